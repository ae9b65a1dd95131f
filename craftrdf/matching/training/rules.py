"""Rules applied after the decisions: abbreviations defined in the text, coordinated elided heads,
parentheses, stacked modifiers.

**Abbreviations** (:mod:`.abbreviations`, Schwartz & Hearst 2003): when a kept
annotation is a defined long form, whole ("retinal pigment epithelium (RPE)"),
every later whole-word occurrence of the short form in the document, the one in the
parentheses included, takes its class (unless it overlaps a longer kept annotation, or
the short form's own term was mostly wrong in training); when no kept annotation ends
where the long form ends, the short form's matches are dropped; when one does but is only
the long form's head, they are left to the decision.

**Coordination** (elided heads): "left and right ventricles", "T and B cells". When a
kept annotation "Y H" (its first token Y, the rest H) follows "X and", "X or" or "X, Z
and", and the dictionary names "X H" (one allowed class passing the decision), "X H"
is annotated discontinuously: X's span and H's span, as CRAFT's annotators did; a kept
annotation of X alone is dropped (they wrote "rod ... photoreceptors", not "rod").

**Parentheses**: tokens are runs of letters and digits, so a dictionary name "ES cells"
matches "ES) cells" in "embryonic stem (ES) cells". CRAFT's annotators never let a span
cross a parenthesis there: they wrote "ES ... cells" and "embryonic stem ... cells", two
discontinuous annotations of one class. A kept annotation whose text has a parenthesis
between two of its tokens is split there; when its first part is the short form of the
definition just before ("embryonic stem (ES)", Schwartz & Hearst), the long form with
the same head is annotated too.

**Stacked modifiers**: "spiral sensory neurons", "pluripotent embryonic cells". When a kept
annotation "Y H" (its first token Y, the rest H) follows a word X with only a space between, and
the dictionary names "X H" (one allowed class passing the decision), "X H" is annotated
discontinuously, as CRAFT's annotators wrote "spiral ... neurons" beside "sensory neurons": the
head is shared by two modifiers as in coordination, without the conjunction.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields

from ...core.model import Span
from ..matcher.normalize import NormalizedText, Normalizer
from .abbreviations import definitions
from .engine import Candidate, Decision, Key, Term

_CONJ = frozenset({"and", "or"})
_GAP_LIST = re.compile(r"\s*,\s*")
_GAP_SPACE = re.compile(r"\s+")
_PAREN = re.compile(r"[()\[\]]")
#: The rules every model folder of the format's version records (those added since may be absent).
_REQUIRED = frozenset({"abbreviations", "coordination"})


@dataclass(frozen=True, slots=True)
class Rules:
    """Which rules run: abbreviations (Schwartz & Hearst 2003), coordination (elided heads), whether
    word-family candidates (:mod:`.family`) are decided at all, parentheses (split at them) and
    stacked modifiers (a head shared without a conjunction)."""

    abbreviations: bool = False
    coordination: bool = False
    families: bool = False
    parentheses: bool = False
    modifiers: bool = False

    @property
    def rewrites(self) -> bool:
        """Whether any rule changes or adds annotations after the decision (all but ``families``)."""
        return self.abbreviations or self.coordination or self.parentheses or self.modifiers

    def label(self) -> str:
        """``abbreviations+coordination``, ``none``..."""
        return "+".join(name for name, on in self.as_json().items() if on) or "none"

    def as_json(self) -> dict[str, bool]:
        """Each rule's name and whether it runs, in the fields' order (model.json ``rules``)."""
        return asdict(self)

    @classmethod
    def from_json(cls, entry: Mapping[str, object]) -> Rules:
        """Read :meth:`as_json`'s mapping; a rule added after the model format's version reads as off when absent.

        ``abbreviations`` and ``coordination`` are required (every folder of the version has them):
        a missing one raises ``KeyError``.
        """
        return cls(
            **{f.name: bool(entry[f.name] if f.name in _REQUIRED else entry.get(f.name, False)) for f in fields(cls)}
        )


@dataclass(frozen=True, slots=True)
class ShortForm:
    """A short form defined in a document: its long form's extent, its normalized key, where it occurs.

    ``occurrences`` are its whole-word occurrences from the definition on (the one in the
    parentheses first).
    """

    short: str
    long_start: int
    long_end: int
    key: Key
    occurrences: tuple[tuple[int, int], ...]


def short_forms(text: str, normalizer: Normalizer) -> tuple[ShortForm, ...]:
    """Each short form's first definition in ``text`` (:func:`.abbreviations.definitions`), with its occurrences.

    Depends on the text and the normalization only: computed once per document, used by
    every decision the selection tries.
    """
    out = []
    done: set[str] = set()
    for d in definitions(text):
        if d.short in done:
            continue
        done.add(d.short)
        found = tuple(_whole_words(text, d.short, d.short_start))
        out.append(ShortForm(d.short, d.long_start, d.long_end, normalizer.phrase(d.short), found))
    return tuple(out)


def _word_char(ch: str) -> bool:
    """A character of a word as the short form's boundaries see it (``\\w`` or a hyphen)."""
    return ch.isalnum() or ch in "_-"


def _whole_words(text: str, short: str, start: int) -> Iterator[tuple[int, int]]:
    """Occurrences of ``short`` from ``start`` on, neither side touching a word character (or a hyphen).

    What ``re.finditer(r"(?<![\\w-])SF(?![\\w-])", text[start:])`` finds, with ``str.find``
    (the regex scan cost a training run seconds): no look-behind at ``start`` itself.
    """
    i = text.find(short, start)
    while i >= 0:
        e = i + len(short)
        if (i == start or not _word_char(text[i - 1])) and (e == len(text) or not _word_char(text[e])):
            yield i, e
            i = text.find(short, e)
        else:
            i = text.find(short, i + 1)


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What the rules need of one document and of the model (``short_forms``: the document's, once)."""

    document: str
    normalized: NormalizedText
    normalizer: Normalizer
    stats: Callable[[Term], tuple[int, int]]
    classes_of: Callable[[Key], Sequence[str]]
    decision: Decision
    short_forms: Sequence[ShortForm]

    def best_class(self, key: Key) -> str | None:
        """The allowed class of ``key`` with the best estimate passing the decision, if any."""
        best: tuple[float, str] | None = None
        for cls in sorted(self.classes_of(key)):
            p = self.decision.estimate(*self.stats((key, cls)))
            if p >= self.decision.threshold and (best is None or p > best[0]):
                best = (p, cls)
        return best[1] if best else None


Pair = tuple[tuple[Span, ...], str]


def apply_rules(ctx: RuleContext, kept: Sequence[tuple[Candidate, str, float]], rules: Rules) -> list[Pair]:
    """The (spans, class) pairs of ``kept``, with what the rules add."""
    out: list[Pair] = [(c.spans, cls) for c, cls, _ in kept]
    if rules.coordination:
        elided = _coordination(ctx, kept)
        # annotators wrote "rod ... photoreceptors" for the "rod" of "rod and cone photoreceptors", not "rod"
        firsts = {spans[0] for spans, _ in elided}
        out = [(spans, cls) for spans, cls in out if len(spans) > 1 or spans[0] not in firsts] + elided
    if rules.modifiers:
        out += _modifiers(ctx, kept)
    if rules.parentheses:
        out = _parentheses(ctx, out)
    if rules.abbreviations:
        out = _abbreviations(ctx, out)
    return out


def _overlaps(taken: list[tuple[int, int]], s: int, e: int) -> bool:
    i = bisect.bisect_left(taken, (s, s))
    return (i < len(taken) and taken[i][0] < e) or (i > 0 and taken[i - 1][1] > s)


def _abbreviations(ctx: RuleContext, pairs: Sequence[Pair]) -> list[Pair]:
    """``pairs`` with each defined short form given its long form's class, or dropped when the long
    form is not an annotation of the set (an "OM" defined as otitis media is no oculomotor nucleus).

    A long form kept only in part (its head) says nothing of the short form: its matches stay as decided.
    """
    ends = {spans[-1].end: (spans, cls) for spans, cls in pairs if len(spans) == 1}
    out = {(spans[0].start, spans[-1].end): (spans, cls) for spans, cls in pairs}
    taken = sorted(out)
    for d in ctx.short_forms:
        hit = ends.get(d.long_end)
        start = hit[0][0].start if hit is not None else None
        if start is not None and start > d.long_start:
            continue  # the head is of the set, the whole is not: no evidence either way, the decision stands
        # the whole long form, not its head: "starburst amacrine cells (SACs)" kept as "amacrine
        # cells" would make every SAC an amacrine cell, which annotators did not write
        cls = hit[1] if hit is not None and start == d.long_start else None
        if cls is not None:
            tp, n = ctx.stats((d.key, cls))
            if n >= 2 and ctx.decision.estimate(tp, n) < ctx.decision.threshold:
                continue
        for s, e in d.occurrences:
            if cls is None:
                out.pop((s, e), None)  # left in ``taken``: nothing else is placed there
            elif (s, e) in out:
                out[(s, e)] = ((Span(s, e),), cls)
            elif not _overlaps(taken, s, e):
                bisect.insort(taken, (s, e))
                out[(s, e)] = ((Span(s, e),), cls)
    return list(out.values())


def crosses_parenthesis(text: str, spans: Sequence[Span]) -> bool:
    """Whether a parenthesis lies between two of ``spans`` (the parts :func:`_parentheses` makes)."""
    return any(_PAREN.search(text, a.end, b.start) for a, b in itertools.pairwise(spans))


def _parentheses(ctx: RuleContext, pairs: Sequence[Pair]) -> list[Pair]:
    """``pairs`` with each one-span annotation split where a parenthesis lies between its tokens,
    and "LF ... H" added for a split "SF ... H" whose SF is defined by the long form LF just before."""
    tok = ctx.normalized.tokenized
    text, starts, ends = tok.text, tok.starts, tok.ends
    defined = {f.occurrences[0]: f for f in ctx.short_forms if f.occurrences}
    out: list[Pair] = []
    for spans, cls in pairs:
        if len(spans) != 1 or not _PAREN.search(text, spans[0].start, spans[0].end):
            out.append((spans, cls))
            continue
        s, e = spans[0].start, spans[0].end
        parts: list[Span] = []
        begin = s
        # the gaps between the tokens the span overlaps (a symbol's own parenthesis is no gap)
        for i in range(bisect.bisect_right(ends, s), bisect.bisect_left(starts, e) - 1):
            if _PAREN.search(text, ends[i], starts[i + 1]):
                parts.append(Span(begin, ends[i]))
                begin = starts[i + 1]
        if not parts:
            out.append((spans, cls))
            continue
        parts.append(Span(begin, e))
        out.append((tuple(parts), cls))
        short = defined.get((parts[0].start, parts[0].end))
        if short is not None:
            out.append(((Span(short.long_start, short.long_end), *parts[1:]), cls))
    return out


def _first_and_head(starts: Sequence[int], c: Candidate) -> tuple[int, int] | None:
    """The index of ``c``'s first token and where the rest of it (its head) starts; None without a head."""
    if len(c.spans) != 1 or len(c.key) < 2:
        return None
    r = bisect.bisect_left(starts, c.start)
    if r >= len(starts) or starts[r] != c.start:
        return None
    head_start = starts[r + 1] if r + 1 < len(starts) else c.end
    return (r, head_start) if head_start < c.end else None


def _coordination(ctx: RuleContext, kept: Sequence[tuple[Candidate, str, float]]) -> list[Pair]:
    tok = ctx.normalized.tokenized
    text, starts, ends = tok.text, tok.starts, tok.ends
    out: list[Pair] = []
    for c, _, _ in kept:
        if (found := _first_and_head(starts, c)) is None:
            continue
        r, head_start = found
        if r < 2 or text[starts[r - 1] : ends[r - 1]].lower() not in _CONJ:
            continue
        if not _GAP_SPACE.fullmatch(text[ends[r - 1] : starts[r]]):
            continue
        x = r - 2
        gap = text[ends[x] : starts[x + 1]]
        while x >= 0 and len(out) < 1000:
            if not (_GAP_SPACE.fullmatch(gap) or _GAP_LIST.fullmatch(gap)):
                break
            word = text[starts[x] : ends[x]]
            norm = ctx.normalizer.lookup(word)
            cls = ctx.best_class((norm, *c.key[1:])) if norm else None
            if cls is None:
                break
            out.append(((Span(starts[x], ends[x]), Span(head_start, c.end)), cls))
            if x == 0:
                break
            gap = text[ends[x - 1] : starts[x]]
            if not _GAP_LIST.fullmatch(gap):
                break
            x -= 1
    return out


def _modifiers(ctx: RuleContext, kept: Sequence[tuple[Candidate, str, float]]) -> list[Pair]:
    tok = ctx.normalized.tokenized
    text, starts, ends = tok.text, tok.starts, tok.ends
    out: list[Pair] = []
    for c, _, _ in kept:
        if (found := _first_and_head(starts, c)) is None or found[0] < 1:
            continue
        r, head_start = found
        if not _GAP_SPACE.fullmatch(text[ends[r - 1] : starts[r]]):
            continue  # a comma or a parenthesis between: a list or an aside, not one noun phrase
        norm = ctx.normalizer.lookup(text[starts[r - 1] : ends[r - 1]])
        cls = ctx.best_class((norm, *c.key[1:])) if norm else None
        if cls is not None:
            out.append(((Span(starts[r - 1], ends[r - 1]), Span(head_start, c.end)), cls))
    return out
