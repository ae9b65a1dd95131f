"""The words around a find, whatever its class: which of them the set's annotations stand near.

One word used two ways ("cut" with NdeI, sections cut on a microtome; a peroxidase-coupled
antibody, a G protein-coupled receptor) is told apart by the words of its passage more than
by the word just before or after it. For every find of a training document, each distinct
normalized token within ``span`` tokens before or after it (the find's own tokens excluded)
is counted as a term ``(("@", token), "*")``: the finds near that token, and how many of
them were a gold annotation (of any class). ``(("@", ""), "*")`` counts every find once:
the set's base rate. No normalized token is ``@`` or empty and no class is ``*``, so these
never mix with a name's counts; a model keeps them in contexts.tsv (side ``@``).

The learned decision (:mod:`.features`) reads three numbers per find: the mean, lowest and
highest log-odds of its window's tokens' smoothed precisions, less the base rate's.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from ...core.model import Span
from ..matcher.normalize import NormalizedText
from .engine import Candidate, Term

#: The first element of a window term's key, and the class of every window term.
WINDOW, ANY = "@", "*"
#: The term counting every find once.
BASE: Term = ((WINDOW, ""), ANY)
#: How many finds of the base rate a window token's precision is smoothed with.
WEIGHT = 5.0

Stats = Callable[[Term], tuple[int, int]]


def window_term(token: str) -> Term:
    """The term under which the finds near ``token`` are counted."""
    return (WINDOW, token), ANY


class Windows:
    """A document's normalized tokens, to give each find's window of ``span`` tokens each side."""

    def __init__(self, normalized: NormalizedText, span: int) -> None:
        starts = normalized.tokenized.starts
        self.span = span
        self.tokens = normalized.tokens
        self.starts = [starts[i] for i in normalized.index]

    def words(self, start: int, end: int) -> frozenset[str]:
        """The distinct normalized tokens within ``span`` tokens of the find at ``start``-``end``."""
        first = bisect.bisect_left(self.starts, start)
        last = bisect.bisect_left(self.starts, end)
        return frozenset(self.tokens[max(0, first - self.span) : first] + self.tokens[last : last + self.span])


def count_windows(
    candidates: Sequence[Candidate],
    windows: Windows,
    gold: Iterable[tuple[tuple[Span, ...], str]],
    compare: Callable[[str], str],
) -> Counter[tuple[Term, bool]]:
    """Per (window term, is a gold annotation): every find of one document, once, and its window's tokens.

    A find is right when one of its classes, as the scorer compares it, is a gold annotation
    with exactly its spans.
    """
    exact = {(tuple(sorted(spans)), compare(cls)) for spans, cls in gold}
    out: Counter[tuple[Term, bool]] = Counter()
    for c in candidates:
        spans = tuple(sorted(c.spans))
        hit = any((spans, compare(k)) in exact for k in c.classes)
        out[(BASE, hit)] += 1
        for w in windows.words(c.start, c.end):
            out[(window_term(w), hit)] += 1
    return out


def window_features(words: Iterable[str], stats: Stats) -> tuple[float, float, float]:
    """Mean, lowest and highest log-odds of the tokens' smoothed precisions, less the base rate's (0s: no token).

    A token's precision is ``(tp + WEIGHT * base) / (finds + WEIGHT)``: a token seen near few
    finds says little.
    """
    tp, n = stats(BASE)
    base = (tp + 0.5) / (n + 1.0)
    logit_base = math.log(base / (1.0 - base))
    values = []
    for w in words:
        wtp, wn = stats(window_term(w))
        p = (wtp + WEIGHT * base) / (wn + WEIGHT)
        values.append(math.log(p / (1.0 - p)) - logit_base)
    if not values:
        return 0.0, 0.0, 0.0
    return math.fsum(values) / len(values), min(values), max(values)
