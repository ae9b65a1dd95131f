"""The words around a find, whatever its class: which of them the set's annotations stand near.

One word used two ways ("cut" with NdeI, sections cut on a microtome; a peroxidase-coupled
antibody, a G protein-coupled receptor) is told apart by the words of its passage more than
by the word just before or after it. For every find of a training document, each normalized
token within ``span`` tokens before or after it (the find's own tokens excluded; a token
written twice there counts twice) is counted as a term ``(("@", token), "*")``: the finds
near that token, and how many of them were a gold annotation (of any class).
``(("@", ""), "*")`` counts every find once: the set's base rate. No normalized token is
``@`` or empty and no class is ``*``, so these never mix with a name's counts; a model
keeps them in contexts.tsv (side ``@``).

The same tokens are counted for each name: ``(("@", token, *key), class)``, the finds of that
key and class near the token (each token once per find), and ``(("@", "", *key), class)`` every
find of it. "reduced" near "glutathione" is MOP's chemical reduction; near "expression" it is
not, and no word of the passage says so for the set as a whole. Only a name found both right
and wrong has such lifts (a name always right or always wrong has nothing to tell apart): the
others' are not counted (:func:`.learn.context_counts`), nor kept in a model.

The learned decision (:mod:`.features`) reads three numbers per find from the *lifts* of its
window's tokens (the log-odds of a token's smoothed precision less the base rate's): their
mean, the sum of the negative ones and the sum of the positive ones. Sums, not the lowest and
highest lift: several words of a passage pointing the same way ("glutathione", "GSH",
"oxidized" around "reduced") are more evidence than one word, as in naive Bayes; the
cross-validation on train+dev chose the sums (docs/training.md, "Fourth round"). The windows
are index arrays into one vocabulary, made once per document (:class:`Windows`), so each
fold's features are a few numpy reductions. Three more come from the name's own lifts of the
window's distinct tokens (:func:`name_window_features`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..matcher.annotate import MatchingSession
from ..matcher.config import TextNormalization
from .engine import Candidate, Term

#: The first element of a window term's key, and the class of every window term.
WINDOW, ANY = "@", "*"
#: The term counting every find once.
BASE: Term = ((WINDOW, ""), ANY)
#: How many finds at the base rate a window token's precision is smoothed with.
WEIGHT = 5.0

Stats = Callable[[Term], tuple[int, int]]
Ints = npt.NDArray[np.int64]


def window_term(token: str) -> Term:
    """The term under which the finds near ``token`` are counted."""
    return (WINDOW, token), ANY


def name_window_term(token: str, term: Term) -> Term:
    """The term under which the finds of ``term`` (a key and class) near ``token`` are counted; ``""``: all of them."""
    key, cls = term
    return (WINDOW, token, *key), cls


@dataclass(frozen=True, slots=True, eq=False)
class DocumentWindows:
    """The windows of a document's candidates (in its candidate order): token ids, each window's offset and size."""

    ids: Ints
    offsets: Ints
    sizes: Ints

    def distinct(self, i: int) -> list[int]:
        """Window ``i``'s distinct token ids, ascending (what a name's lifts are read over)."""
        o = int(self.offsets[i])
        return [int(t) for t in np.unique(self.ids[o : o + int(self.sizes[i])])]


class Windows:
    """Every document's windows of ``span`` tokens each side of a find, over one vocabulary, made once.

    ``names``: whether each name's own lifts are counted and read too (:func:`count_name_windows`).
    """

    def __init__(
        self, session: MatchingSession, normalization: TextNormalization, span: int, *, names: bool = False
    ) -> None:
        self.session, self.normalization, self.span, self.names = session, normalization, span, names
        self.vocabulary: dict[str, int] = {}
        self._documents: dict[str, DocumentWindows] = {}

    def of(self, document: str, candidates: Sequence[Candidate]) -> DocumentWindows:
        """The windows of ``candidates``, the document's candidates (always the same list for a document)."""
        hit = self._documents.get(document)
        if hit is not None:
            return hit
        normalized = self.session.normalized(document, self.normalization)
        vocabulary = self.vocabulary
        tokens = np.asarray([vocabulary.setdefault(t, len(vocabulary)) for t in normalized.tokens], dtype=np.int64)
        char_starts = np.asarray(normalized.tokenized.starts, dtype=np.int64)[
            np.asarray(normalized.index, dtype=np.int64)
        ]
        first = np.searchsorted(char_starts, [c.start for c in candidates], side="left").astype(np.int64)
        last = np.searchsorted(char_starts, [c.end for c in candidates], side="left").astype(np.int64)
        before_from = np.maximum(first - self.span, 0)
        after_to = np.minimum(last + self.span, len(tokens))
        # each window is two runs of token positions: [before_from, first) and [last, after_to)
        starts = np.stack([before_from, last], axis=1).ravel()
        lengths = np.stack([first - before_from, np.maximum(after_to - last, 0)], axis=1).ravel()
        positions = _runs(starts, lengths)
        sizes = lengths.reshape(-1, 2).sum(axis=1)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        hit = self._documents[document] = DocumentWindows(tokens[positions], offsets, sizes)
        return hit

    def tokens(self) -> list[str]:
        """The vocabulary by id."""
        out = [""] * len(self.vocabulary)
        for t, i in self.vocabulary.items():
            out[i] = t
        return out


def _runs(starts: Ints, lengths: Ints) -> Ints:
    """The concatenation of ``range(s, s + n)`` for each start and length."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    shift = np.repeat(starts - (ends - lengths), lengths)
    out: Ints = np.arange(total, dtype=np.int64) + shift
    return out


def count_windows(
    windows: DocumentWindows, tokens: Sequence[str], hits: npt.NDArray[np.bool_]
) -> Counter[tuple[Term, bool]]:
    """Per (window term, is a gold annotation): every find of a document once, and each token of its window.

    ``hits``: whether each candidate (in the windows' order) is a gold annotation; ``tokens``:
    the vocabulary by id (:meth:`Windows.tokens`).
    """
    out: Counter[tuple[Term, bool]] = Counter()
    right = int(hits.sum())
    if right:
        out[(BASE, True)] = right
    if len(hits) - right:
        out[(BASE, False)] = len(hits) - right
    if len(windows.ids) == 0:
        return out
    near_hit = np.repeat(hits, windows.sizes)
    for flag, ids in ((True, windows.ids[near_hit]), (False, windows.ids[~near_hit])):
        found = np.bincount(ids)
        for i in np.flatnonzero(found):
            out[(window_term(tokens[int(i)]), flag)] = int(found[i])
    return out


def count_name_windows(
    windows: DocumentWindows, tokens: Sequence[str], named: Sequence[Sequence[tuple[Term, bool]]]
) -> Counter[tuple[Term, bool]]:
    """Per (name window term, is a gold annotation): each find of a name, and once with each distinct token near it.

    ``named``: per candidate (in the windows' order), each of its names (key and class) and
    whether that name is a gold annotation there.
    """
    out: Counter[tuple[Term, bool]] = Counter()
    for i, options in enumerate(named):
        if not options:
            continue
        words = [tokens[t] for t in windows.distinct(i)]
        for term, hit in options:
            out[(name_window_term("", term), hit)] += 1
            for w in words:
                out[(name_window_term(w, term), hit)] += 1
    return out


def lifts(tokens: Sequence[str], stats: Stats) -> npt.NDArray[np.float64]:
    """Each vocabulary token's lift: log-odds of ``(tp + WEIGHT * base) / (finds + WEIGHT)`` less the base rate's.

    A token seen near few finds says little; one never seen near a find has lift 0.
    """
    tp, n = stats(BASE)
    base = (tp + 0.5) / (n + 1.0)
    counts = np.asarray([stats(window_term(t)) for t in tokens], dtype=np.float64).reshape(len(tokens), 2)
    p = (counts[:, 0] + WEIGHT * base) / (counts[:, 1] + WEIGHT)
    out: npt.NDArray[np.float64] = np.log(p / (1.0 - p)) - np.log(base / (1.0 - base))
    return out


def window_features(windows: DocumentWindows, lift: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per candidate: the mean lift of its window's tokens, the sum of the negative ones, of the positive ones.

    0s for an empty window.
    """
    n = len(windows.sizes)
    out = np.zeros((n, 3))
    full = windows.sizes > 0
    if not full.any():
        return out
    values = lift[windows.ids]
    at = windows.offsets[full]
    sizes = windows.sizes[full]
    out[full, 0] = np.add.reduceat(values, at) / sizes
    out[full, 1] = np.add.reduceat(np.minimum(values, 0.0), at)
    out[full, 2] = np.add.reduceat(np.maximum(values, 0.0), at)
    return out


def name_window_features(words: Callable[[], Sequence[str]], term: Term, stats: Stats) -> tuple[float, float, float]:
    """A name's passage: the mean of its own lifts of a find's distinct window words, their negative and positive sums.

    ``words()`` lists them; it is called only when the name has lifts. Each lift is the log-odds
    of ``(tp + WEIGHT * p) / (finds + WEIGHT)`` less ``p``'s, where ``p`` is the name's smoothed
    precision ``(tp + 0.5) / (finds + 1)``; words never seen near it count for nothing. All 0
    unless ``stats`` has the name found both right and wrong. Many finds: :class:`NameLifts`.
    """
    return NameLifts(stats).features(words, term)


class NameLifts:
    """:func:`name_window_features` for many finds under one ``stats``: each name's lift of a word computed once.

    A fold's rows read the same name's lifts of the same words at every find of it; the
    numbers are the same as computing them afresh.
    """

    def __init__(self, stats: Stats) -> None:
        self._stats = stats
        self._names: dict[Term, tuple[float, float, dict[str, float]] | None] = {}

    def features(self, words: Callable[[], Sequence[str]], term: Term) -> tuple[float, float, float]:
        """:func:`name_window_features` of ``words()`` and ``term``."""
        if term in self._names:
            named = self._names[term]
        else:
            named = self._names[term] = self._name(term)
        if named is None:
            return 0.0, 0.0, 0.0
        base, logit, memo = named
        key, cls = term
        total = against = for_ = 0.0
        seen = 0
        for w in words():
            lift = memo.get(w)
            if lift is None:
                t, m = self._stats(((WINDOW, w, *key), cls))  # name_window_term, inlined: read for every word
                if m == 0:
                    lift = memo[w] = math.nan
                else:
                    p = (t + WEIGHT * base) / (m + WEIGHT)
                    lift = memo[w] = math.log(p / (1.0 - p)) - logit
            if lift != lift:  # NaN: never seen near the name
                continue
            seen += 1
            total += lift
            if lift < 0:
                against += lift
            else:
                for_ += lift
        return (total / seen if seen else 0.0), against, for_

    def _name(self, term: Term) -> tuple[float, float, dict[str, float]] | None:
        """The name's smoothed precision and its log-odds, and a memo of its lifts; None: no lifts."""
        key, cls = term
        tp, n = self._stats(((WINDOW, "", *key), cls))
        if not 0 < tp < n:
            return None
        base = (tp + 0.5) / (n + 1.0)
        return base, math.log(base / (1.0 - base)), {}
