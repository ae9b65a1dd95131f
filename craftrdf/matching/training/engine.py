"""The trained matcher's decisions: every dictionary match, scored by what training saw, one class kept.

A trained model matches as ConceptMapper's contiguous search with ``findAllMatches=YES``
(every entry found at every position, overlaps included), over two dictionaries: the
ontology's names and the names annotators wrote in the training documents. Each match
is a :class:`Candidate`: its spans, its normalized tokens (the *key*) and the classes of
its entries. A *term* is a (key, class) pair.

Each term has counts from the training documents (:func:`count_terms`): ``n``, how many
times the key was found there, and ``tp``, how many of those finds were a gold
annotation with that class and exactly those spans. A find inside a longer gold
annotation that the matcher also finds is not counted ("ganglion" inside "retinal
ganglion cell"): there the longer match wins anyway. The term's precision estimate is
``(tp + weight * prior) / (n + weight)`` (:class:`Decision`), so a term never seen in
training is kept when the prior passes the threshold, and one seen once counts half.

For each candidate the class with the highest estimate that passes the threshold is
kept (ties: more true positives, then the smaller class id); then overlapping
candidates are resolved longest first (:func:`resolve`), since within one CRAFT set no
annotation lies inside another.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ...core.errors import ConfigError
from ...core.model import Annotation, Span
from ...ingest.knowtator import PIECE_SEPARATOR
from ..matcher.config import FindAllMatches, OrderIndependentLookup, SearchKey, SearchStrategy
from ..matcher.normalize import NormalizedText
from ..matcher.search import SearchIndex, find_matches, match_spans

Key = tuple[str, ...]
#: (normalized key, class id)
Term = tuple[Key, str]
#: term -> (true positives, finds)
TermCounts = Mapping[Term, tuple[int, int]]

#: The first element of a written form's key: no normalized token is empty, so no key starts so.
SURFACE = ""
#: The first element of a context's key (:func:`context_terms`).
BEFORE, AFTER = "<", ">"

#: Every contiguous match at every position, in order.
ALL_CONTIGUOUS = SearchKey(FindAllMatches.YES, OrderIndependentLookup.OFF, SearchStrategy.CONTIGUOUS_MATCH)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One match: document, character spans (one per run of kept tokens), key and classes."""

    document: str
    spans: tuple[Span, ...]
    key: Key
    classes: frozenset[str]
    #: the covered text as written, lower-cased, pieces joined by one space
    surface: str = ""
    #: the words just before and after the match, lower-cased ("" at the text's edge; a symbol has none)
    before: str = ""
    after: str = ""
    #: first character, and one past the last: kept as fields, since the decisions read them millions of times
    start: int = field(init=False, repr=False, compare=False)
    end: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "start", self.spans[0].start if self.spans else 0)
        object.__setattr__(self, "end", self.spans[-1].end if self.spans else 0)


def find_candidates(document: str, normalized: NormalizedText, indexes: Sequence[SearchIndex]) -> list[Candidate]:
    """Every match of every index in a normalized text, classes of the same tokens merged, in text order."""
    merged: dict[tuple[int, ...], set[str]] = {}
    for index in indexes:
        for m in find_matches(normalized, index, ALL_CONTIGUOUS):
            merged.setdefault(m.positions, set()).update(m.classes)
    toks = normalized.tokens
    tokenized = normalized.tokenized
    text, starts, ends, token_of = tokenized.text, tokenized.starts, tokenized.ends, normalized.index
    last = len(starts) - 1
    out = []
    for pos, classes in merged.items():
        spans = match_spans(normalized, pos)
        surface = " ".join(" ".join(text[s.start : s.end] for s in spans).lower().split())  # no tab or newline
        first, end = token_of[pos[0]], token_of[pos[-1]]
        before = text[starts[first - 1] : ends[first - 1]].lower() if first > 0 else ""
        after = text[starts[end + 1] : ends[end + 1]].lower() if end < last else ""
        out.append(Candidate(document, spans, tuple(toks[p] for p in pos), frozenset(classes), surface, before, after))
    out.sort(key=lambda c: (c.start, c.end, c.key))
    return out


def _covering(gold: Iterable[tuple[int, int]]) -> tuple[list[int], list[tuple[int, int]]]:
    spans = sorted(set(gold))
    return [s for s, _ in spans], spans


def surface_term(surface: str, cls: str) -> Term:
    """The term under which a written form's counts are kept (beside its normalized key's)."""
    return (SURFACE, surface), cls


def context_terms(c: Candidate, cls: str) -> tuple[Term, Term]:
    """The terms under which a find's counts are kept with the word before it and with the word after it.

    ``(("<", word, *key), class)`` and ``((">", word, *key), class)``: no normalized token is
    ``<`` or ``>`` (tokens are runs of letters and digits), so none collides with a name.

    >>> c = Candidate("d", (), ("reduct",), frozenset(), "reduction", "a", "in")
    >>> context_terms(c, "MOP:1")
    ((('<', 'a', 'reduct'), 'MOP:1'), (('>', 'in', 'reduct'), 'MOP:1'))
    """
    return ((BEFORE, c.before, *c.key), cls), ((AFTER, c.after, *c.key), cls)


def count_terms(
    candidates: Sequence[Candidate],
    gold: Iterable[tuple[tuple[Span, ...], str]],
    compare: Callable[[str], str] = str,
    *,
    contexts: bool = False,
) -> Counter[tuple[Term, bool]]:
    """Per (term, is a true positive): finds in one document with gold ``(spans, class)`` pairs.

    Each find counts twice: for its normalized key, and for its written form
    (:func:`surface_term`); with ``contexts``, also with the word before it and with the word
    after it (:func:`context_terms`). A find strictly inside a gold annotation that some candidate
    hits exactly is not counted. ``compare`` maps a class to the id the scorer compares it
    under (:func:`~craftrdf.analysis.evaluation.official.official_class`: in an _EXT set,
    ``SO_EXT:0000704`` is ``SO:0000704``).
    """
    exact = {(tuple(sorted(spans)), compare(cls)) for spans, cls in gold}
    hit_extents = [
        (c.start, c.end) for c in candidates if any((tuple(sorted(c.spans)), compare(k)) in exact for k in c.classes)
    ]
    starts, extents = _covering(hit_extents)
    out: Counter[tuple[Term, bool]] = Counter()
    for c in candidates:
        i = bisect.bisect_right(starts, c.start) - 1
        inside = False
        while i >= 0 and not inside:
            s, e = extents[i]
            inside = e >= c.end and (s, e) != (c.start, c.end)
            i -= 1
            if s < c.start - 200:  # no gold annotation is this long
                break
        if inside:
            continue
        spans = tuple(sorted(c.spans))
        for cls in c.classes:
            hit = (spans, compare(cls)) in exact
            out[((c.key, cls), hit)] += 1
            out[(((SURFACE, c.surface), cls), hit)] += 1
            if contexts:
                for t in context_terms(c, cls):
                    out[(t, hit)] += 1
    return out


def add_counts(total: dict[Term, list[int]], counts: Counter[tuple[Term, bool]], sign: int = 1) -> None:
    """Add (or with ``sign=-1`` take away) one document's counts to ``term -> [tp, n]``."""
    for (term, tp), k in counts.items():
        c = total.setdefault(term, [0, 0])
        if tp:
            c[0] += sign * k
        c[1] += sign * k


@dataclass(frozen=True, slots=True)
class Decision:
    """When a term is kept: its precision estimate ``(tp + weight * prior) / (n + weight)`` >= ``threshold``."""

    threshold: float = 0.5
    prior: float = 0.5
    weight: float = 1.0
    #: how many finds of its written form outweigh the normalized key's estimate (:meth:`refine`)
    backoff: float = 2.0

    def __post_init__(self) -> None:
        for name in ("threshold", "prior"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ConfigError(f"decision {name} must be in [0, 1], got {v}")
        if self.weight <= 0 or self.backoff <= 0:
            raise ConfigError(f"decision weight and backoff must be positive, got {self.weight}, {self.backoff}")

    def estimate(self, tp: int, n: int) -> float:
        """The precision estimate of a term found ``n`` times, ``tp`` of them right.

        >>> Decision(prior=0.5).estimate(0, 0), Decision(prior=0.5).estimate(3, 3)
        (0.5, 0.875)
        """
        return (tp + self.weight * self.prior) / (n + self.weight)

    def refine(self, estimate: float, tp: int, n: int) -> float:
        """The estimate of one written form (``tp`` right of ``n`` finds), backing off to its key's ``estimate``.

        Stemming merges forms that annotators treated apart (Porter makes "hybrid" and
        "hybridization" one key): a form seen in training is judged mostly by its own record.

        >>> Decision().refine(0.9, 0, 8)
        0.18
        """
        return (tp + self.backoff * estimate) / (n + self.backoff)


Allowed = Callable[[Key, str], bool]
Stats = Callable[[Term], tuple[int, int]]


def choose(
    candidates: Iterable[Candidate], decision: Decision, stats: Stats, allowed: Allowed | None = None
) -> list[tuple[Candidate, str, float]]:
    """The candidates that keep a class: (candidate, class, estimate), best class per candidate."""
    out = []
    for c in candidates:
        best: tuple[float, int, str] | None = None
        for cls in c.classes:
            if allowed is not None and not allowed(c.key, cls):
                continue
            tp, n = stats((c.key, cls))
            p = decision.estimate(tp, n)
            if p >= decision.threshold and (best is None or _better(p, tp, cls, best)):
                best = (p, tp, cls)
        if best is not None:
            out.append((c, best[2], best[0]))
    return out


def choose_options(
    options: Iterable[tuple[Candidate, Sequence[tuple[str, int, int, int, int]]]], decision: Decision
) -> list[tuple[Candidate, str, float]]:
    """:func:`choose` over precomputed allowed classes with the counts of their key and written form."""
    out = []
    w, prior, threshold = decision.weight, decision.weight * decision.prior, decision.threshold
    v = decision.backoff
    for c, opts in options:
        best: tuple[float, int, str] | None = None
        for cls, tp, n, stp, sn in opts:
            p = (stp + v * (tp + prior) / (n + w)) / (sn + v)
            if p >= threshold and (best is None or _better(p, tp, cls, best)):
                best = (p, tp, cls)
        if best is not None:
            out.append((c, best[2], best[0]))
    return out


def _better(p: float, tp: int, cls: str, best: tuple[float, int, str]) -> bool:
    """Whether class ``cls`` (estimate ``p``, ``tp`` true positives) beats ``best``: higher estimate, then more
    true positives, then the class ordered first (at the first differing character the smaller; of a class
    and its prefix, the longer).

    The order is ``(p, tp, tuple(-ord(ch) for ch in cls))``'s, compared lazily: the decisions meet it
    millions of times and nearly always settle it on the estimate.
    """
    bp, btp, bcls = best
    if p != bp:
        return p > bp
    if tp != btp:
        return tp > btp
    for x, y in zip(cls, bcls):
        if x != y:
            return x < y
    return len(cls) > len(bcls)


def resolve(chosen: Sequence[tuple[Candidate, str, float]]) -> list[tuple[Candidate, str, float]]:
    """Non-overlapping choices, longest extent first (then higher estimate, then earlier), in text order."""
    order = sorted(chosen, key=lambda x: (-(x[0].end - x[0].start), -x[2], x[0].start))
    taken_starts: list[int] = []
    taken: list[tuple[int, int]] = []
    out = []
    for item in order:
        s, e = item[0].start, item[0].end
        i = bisect.bisect_left(taken_starts, s)
        if i < len(taken) and taken[i][0] < e:
            continue
        if i > 0 and taken[i - 1][1] > s:
            continue
        taken_starts.insert(i, s)
        taken.insert(i, (s, e))
        out.append(item)
    out.sort(key=lambda x: (x[0].start, x[0].end))
    return out


def to_annotations(
    document: str, text: str, kept: Iterable[tuple[tuple[Span, ...], str]], annotator: str
) -> list[Annotation]:
    """Annotations ``M1``, ``M2``... in text order from (spans, class) pairs."""
    ordered = sorted(set(kept), key=lambda x: (x[0][0].start, x[0][-1].end, x[1]))
    return [
        Annotation(f"M{n}", document, cls, spans, PIECE_SEPARATOR.join(text[s.start : s.end] for s in spans), annotator)
        for n, (spans, cls) in enumerate(ordered, start=1)
    ]
