"""The classic NER matching criteria (Tsai et al. 2006, BMC Bioinformatics 7:92).

Each criterion is a test on the spans of a reference and a prediction, combined with a
test on their classes:

========== ===========================================================================
exact      the span lists are identical
left       same first character (the smallest start of the spans)
right      same last character (the largest end of the spans)
left_or_right  left or right
approximate    the characters of one are a subset of the characters of the other
partial    they share at least one character
fragment   token level: each token of a reference is a unit of its own (see below)
========== ===========================================================================

Class modes: ``exact`` (the classes are equal), ``ignore`` (any classes), ``hierarchy``
(the prediction's class equals the reference's, or is an ancestor or a descendant of it;
decided by a ``related(ref_class, pred_class)`` callable passed in, see
:func:`related_by_ancestors`).

**One-to-many overlaps.** Each reference and each prediction counts at most once per
criterion: the true positives are the size of a *maximum one-to-one matching* between
references and predictions over the pairs that satisfy the criterion (augmenting paths,
tried in document order), so a prediction overlapping two references matches only one,
and a second reference is matched by another prediction whenever some assignment allows
it. Precision = TP / |predictions|, recall = TP / |references|; when both sides are empty
all three are 1, when one side is empty they are 0 (as in :mod:`.bossy`).

**Fragments.** The text is cut into tokens: maximal runs of letters and digits
(whitespace and punctuation separate tokens and are not tokens). An annotation covers
a token when it shares at least one character with it. Units are (annotation, token)
pairs on each side; a reference unit matches a prediction unit on the same token whose
class passes the class test, again one-to-one (per token, maximum matching). The
fragment criterion needs the document text and is left out without it.

>>> from craftrdf.core.model import Annotation, Span
>>> r = [Annotation("T1", "d", "A", (Span(0, 9),))]
>>> p = [Annotation("T1", "d", "A", (Span(0, 5),))]
>>> [(s.criterion, s.tp) for s in criteria_scores(r, p, classes="exact")]
[('exact', 0), ('left', 1), ('right', 0), ('left_or_right', 1), ('approximate', 1), ('partial', 1)]
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from ...core.model import Annotation, Span
from .bossy import merged_spans, overlapping
from .metrics import rates

CRITERIA = ("exact", "left", "right", "left_or_right", "approximate", "partial", "fragment")
ClassMode = Literal["exact", "ignore", "hierarchy"]
Related = Callable[[str, str], bool]

_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class CriterionScores:
    """True positives and counts under one criterion and class mode.

    For ``fragment`` the counts are of (annotation, token) units.
    """

    criterion: str
    classes: str
    tp: int
    ref_count: int
    pred_count: int

    @property
    def precision(self) -> float:
        return rates(self.tp, self.ref_count, self.pred_count)[0]

    @property
    def recall(self) -> float:
        return rates(self.tp, self.ref_count, self.pred_count)[1]

    @property
    def f1(self) -> float:
        return rates(self.tp, self.ref_count, self.pred_count)[2]


def tokens(text: str) -> list[Span]:
    """Tokens of a text: maximal runs of letters and digits.

    >>> [(t.start, t.end) for t in tokens("IL-2 (human)")]
    [(0, 2), (3, 4), (6, 11)]
    """
    return [Span(m.start(), m.end()) for m in _TOKEN.finditer(text)]


def related_by_ancestors(ancestors: Callable[[str], Iterable[str]]) -> Related:
    """A hierarchy test from an ancestors function: equal, ancestor or descendant.

    ``ancestors(term)`` gives the term's ancestors (it may include the term itself),
    e.g. ``lambda t: index.semantic_values(t)`` for a Wang index. Results are cached.

    >>> rel = related_by_ancestors({"b": ["a"], "c": ["a"], "a": []}.__getitem__)
    >>> rel("a", "b"), rel("b", "a"), rel("b", "c"), rel("c", "c")
    (True, True, False, True)
    """

    @cache
    def anc(t: str) -> frozenset[str]:
        try:
            return frozenset(ancestors(t))
        except (KeyError, LookupError):
            return frozenset()

    def related(ref: str, pred: str) -> bool:
        return ref == pred or pred in anc(ref) or ref in anc(pred)

    return related


def _class_test(classes: ClassMode, related: Related | None) -> Related:
    if classes == "exact":
        return lambda a, b: a == b
    if classes == "ignore":
        return lambda a, b: True
    if classes == "hierarchy":
        if related is None:
            raise ValueError("class mode 'hierarchy' needs a related(ref_class, pred_class) callable")
        return related
    raise ValueError(f"unknown class mode {classes!r}: expected exact, ignore or hierarchy")


def _max_matching(n_left: int, edges: Mapping[int, Sequence[int]]) -> int:
    """Size of a maximum bipartite matching (Kuhn's augmenting paths, in index order;
    scipy's Hopcroft-Karp for large graphs, where recursion would run deep)."""
    if n_left > 64:
        import numpy as np
        import scipy.sparse as sp
        from scipy.sparse.csgraph import maximum_bipartite_matching

        rows = [u for u, vs in edges.items() for _ in vs]
        cols = [v for vs in edges.values() for v in vs]
        if not rows:
            return 0
        g = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_left, max(cols) + 1))
        return int((maximum_bipartite_matching(g, perm_type="column") >= 0).sum())
    owner: dict[int, int] = {}

    def augment(u: int, seen: set[int]) -> bool:
        for v in edges.get(u, ()):
            if v in seen:
                continue
            seen.add(v)
            if v not in owner or augment(owner[v], seen):
                owner[v] = u
                return True
        return False

    return sum(1 for u in range(n_left) if augment(u, set()))


_Chars = list[tuple[int, int]]


def _span_tests() -> dict[
    str, Callable[[Annotation, Annotation, list[tuple[int, int]], list[tuple[int, int]], int], bool]
]:
    def exact(r: Annotation, p: Annotation, x: _Chars, y: _Chars, c: int) -> bool:
        return tuple(r.spans) == tuple(p.spans)

    def left(r: Annotation, p: Annotation, x: _Chars, y: _Chars, c: int) -> bool:
        return r.begin == p.begin

    def right(r: Annotation, p: Annotation, x: _Chars, y: _Chars, c: int) -> bool:
        return r.end == p.end

    def either(r: Annotation, p: Annotation, x: _Chars, y: _Chars, c: int) -> bool:
        return r.begin == p.begin or r.end == p.end

    def approximate(r: Annotation, p: Annotation, x: _Chars, y: _Chars, c: int) -> bool:
        return c == sum(b - a for a, b in x) or c == sum(b - a for a, b in y)

    def partial(r: Annotation, p: Annotation, x: _Chars, y: _Chars, c: int) -> bool:
        return True

    return {
        "exact": exact,
        "left": left,
        "right": right,
        "left_or_right": either,
        "approximate": approximate,
        "partial": partial,
    }


_TESTS = _span_tests()


def criteria_scores(
    refs: Sequence[Annotation],
    preds: Sequence[Annotation],
    *,
    criteria: Iterable[str] = CRITERIA,
    classes: ClassMode = "exact",
    related: Related | None = None,
    text: str | None = None,
) -> list[CriterionScores]:
    """Scores of one document under each criterion (in the order given), for one class mode.

    ``fragment`` is computed only when ``text`` is given. Annotations without characters
    (no span, or only empty spans) match nothing. Raises ValueError for an unknown
    criterion or class mode.
    """
    wanted = list(criteria)
    for name in wanted:
        if name not in CRITERIA:
            raise ValueError(f"unknown criterion {name!r}: expected one of {', '.join(CRITERIA)}")
    same_class = _class_test(classes, related)
    rm = [merged_spans(a.spans) for a in refs]
    pm = [merged_spans(p.spans) for p in preds]
    # candidate pairs: those sharing a character (every criterion but fragment implies it)
    cand = [(i, j, common) for i, j, common in overlapping(rm, pm) if same_class(refs[i].class_id, preds[j].class_id)]
    out = []
    for crit in wanted:
        if crit == "fragment":
            if text is not None:
                out.append(_fragment(refs, preds, rm, pm, same_class, text, classes))
            continue
        test = _TESTS[crit]
        edges: dict[int, list[int]] = {}
        for i, j, common in cand:
            if test(refs[i], preds[j], rm[i], pm[j], common):
                edges.setdefault(i, []).append(j)
        for v in edges.values():
            v.sort()
        out.append(CriterionScores(crit, classes, _max_matching(len(refs), edges), len(refs), len(preds)))
    return out


def _fragment(
    refs: Sequence[Annotation],
    preds: Sequence[Annotation],
    rm: list[list[tuple[int, int]]],
    pm: list[list[tuple[int, int]]],
    same_class: Related,
    text: str,
    classes: str,
) -> CriterionScores:
    toks = tokens(text)
    tok_starts = [t.start for t in toks]

    def units(merged: list[list[tuple[int, int]]]) -> dict[int, list[int]]:
        by_token: dict[int, list[int]] = {}
        for a, iv in enumerate(merged):
            seen: set[int] = set()
            for lo, hi in iv:
                k = max(bisect_left(tok_starts, lo) - 1, 0)
                while k < len(toks) and toks[k].start < hi:
                    if toks[k].end > lo and k not in seen:
                        seen.add(k)
                        by_token.setdefault(k, []).append(a)
                    k += 1
        return by_token

    ru, pu = units(rm), units(pm)
    n_ref = sum(len(v) for v in ru.values())
    n_pred = sum(len(v) for v in pu.values())
    tp = 0
    for k, rs in ru.items():
        ps = pu.get(k, [])
        edges = {
            u: [v for v, pj in enumerate(ps) if same_class(refs[ri].class_id, preds[pj].class_id)]
            for u, ri in enumerate(rs)
        }
        tp += _max_matching(len(rs), edges)
    return CriterionScores("fragment", classes, tp, n_ref, n_pred)


def total_criteria(scores: Iterable[CriterionScores]) -> list[CriterionScores]:
    """Corpus totals per (criterion, class mode): TP and counts summed, in first-seen order."""
    acc: dict[tuple[str, str], list[int]] = {}
    for s in scores:
        a = acc.setdefault((s.criterion, s.classes), [0, 0, 0])
        a[0] += s.tp
        a[1] += s.ref_count
        a[2] += s.pred_count
    return [CriterionScores(c, m, *v) for (c, m), v in acc.items()]
