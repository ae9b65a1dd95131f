"""The CRAFT Shared Task metric (Bossy et al. 2013, as used by CRAFT-ST 2019).

Pure functions over frozen :class:`~craftrdf.core.model.Annotation` records; nothing here
knows about the store. The class similarity is a callable passed in (in production the
``bossy`` Wang index: is_a only, weight 0.65), and so is the test of whether a class is
in the ontology.

For one document with reference annotations R and predictions P:

- annotations whose class is not in the ontology are left out of both sides, with one
  :class:`~craftrdf.core.errors.DataWarning` naming the classes;
- for ``+extensions`` sets other than ``GO_MF_EXT``, parallel-hierarchy classes
  (``XX_EXT:`` followed only by digits) are compared under their base id
  (``SO_EXT:0000704`` -> ``SO:0000704``) on both sides, before the ontology test;
- candidate pairs are the (reference, prediction) pairs whose spans share at least one
  character; pair score = boundary score × similarity(ref class, pred class);
- pairs are taken by score, highest first, a pair kept when neither side is already
  paired. Ties are broken by reference position, then prediction position, in the
  order the annotations were given, so the result is deterministic. A kept pair may
  score 0 (overlapping spans, unrelated classes, or EXACT with different spans): it is
  then a substitution, not a deletion plus an insertion;
- M = Σ kept pair scores, D = unpaired references, I = unpaired predictions,
  N = |R|, P = |predictions|, S = N − D − M.

>>> from craftrdf.core.model import Annotation, Span
>>> ref = [Annotation("T1", "d", "A", (Span(0, 4),))]
>>> pred = [Annotation("T1", "d", "A", (Span(2, 4),))]
>>> s = score_document(ref, pred, lambda a, b: 1.0 if a == b else 0.0)
>>> s.matches, s.substitutions, s.ser
(0.5, 0.5, 0.5)
"""

from __future__ import annotations

import re
import warnings
from bisect import bisect_left
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ...core.errors import DataWarning
from ...core.model import Annotation, Span
from .metrics import rates

Boundary = Literal["exact", "jaccard"]
Similarity = Callable[[str, str], float]

_PARALLEL = re.compile(r"^([A-Za-z]+)_EXT:(\d+)$")


@dataclass(frozen=True, slots=True)
class Scores:
    """The Shared Task counts of one document (or a corpus total) and the rates from them.

    ``matches`` is M (a sum of pair scores, so a float), ``insertions`` I,
    ``deletions`` D, ``ref_count`` N, ``pred_count`` P. Add two with ``+`` for totals.
    ``exact`` is M as an exact Decimal when the official scorer's arithmetic computed it
    (:mod:`craftrdf.analysis.evaluation.official`), else None.

    >>> Scores(matches=1.5, insertions=1, deletions=0, ref_count=2, pred_count=3).ser
    0.75
    """

    matches: float
    insertions: int
    deletions: int
    ref_count: int
    pred_count: int
    exact: Decimal | None = None

    @property
    def substitutions(self) -> float:
        """S = N − D − M."""
        return self.ref_count - self.deletions - self.matches

    @property
    def ser(self) -> float:
        """(S + I + D) / N; 0 when N = P = 0, 1 when exactly one of N, P is 0."""
        n, p = self.ref_count, self.pred_count
        if n == 0:
            return 0.0 if p == 0 else 1.0
        if p == 0:
            return 1.0
        return (self.substitutions + self.insertions + self.deletions) / n

    @property
    def precision(self) -> float:
        """M / P; 1 when N = P = 0, 0 when exactly one of them is 0."""
        return rates(self.matches, self.ref_count, self.pred_count)[0]

    @property
    def recall(self) -> float:
        """M / N; 1 when N = P = 0, 0 when exactly one of them is 0."""
        return rates(self.matches, self.ref_count, self.pred_count)[1]

    @property
    def f1(self) -> float:
        """2PR / (P + R); 0 when P + R is 0; the edge cases as for precision."""
        return rates(self.matches, self.ref_count, self.pred_count)[2]

    def __add__(self, other: Scores) -> Scores:
        if not isinstance(other, Scores):
            return NotImplemented
        return Scores(
            self.matches + other.matches,
            self.insertions + other.insertions,
            self.deletions + other.deletions,
            self.ref_count + other.ref_count,
            self.pred_count + other.pred_count,
            None if self.exact is None or other.exact is None else self.exact + other.exact,
        )


@dataclass(frozen=True, slots=True)
class Pair:
    """A kept pair: positions in the (filtered) reference and prediction lists, and its score."""

    ref: int
    pred: int
    score: float


def total(scores: Iterable[Scores]) -> Scores:
    """Corpus totals: M, I, D, N and P summed over documents (rates recomputed from them).

    >>> total([Scores(1.0, 0, 0, 1, 1), Scores(0.0, 1, 1, 1, 1)]).ser
    1.0
    """
    items = list(scores)
    out = Scores(0.0, 0, 0, 0, 0, exact=Decimal(0) if items and all(s.exact is not None for s in items) else None)
    for s in items:
        out = out + s
    return out


# -- classes ------------------------------------------------------------------------


def uses_parallel_ids(set_key: str | None) -> bool:
    """Whether a set compares parallel-hierarchy classes under their base id.

    True for ``+extensions`` sets (key ending in ``_EXT``, any case) other than ``GO_MF_EXT``.

    >>> uses_parallel_ids("SO_EXT"), uses_parallel_ids("GO_MF_EXT"), uses_parallel_ids("SO")
    (True, False, False)
    """
    key = (set_key or "").upper()
    return key.endswith("_EXT") and key != "GO_MF_EXT"


def comparison_class(class_id: str, set_key: str | None) -> str:
    """The id a class is compared under in set ``set_key``.

    >>> comparison_class("SO_EXT:0000704", "SO_EXT")
    'SO:0000704'
    >>> comparison_class("UBERON_EXT:bone_element_or_tissue", "UBERON_EXT")
    'UBERON_EXT:bone_element_or_tissue'
    >>> comparison_class("GO_EXT:0000001", "GO_MF_EXT")
    'GO_EXT:0000001'
    """
    if uses_parallel_ids(set_key):
        m = _PARALLEL.match(class_id)
        if m:
            return f"{m.group(1)}:{m.group(2)}"
    return class_id


def exclude_unknown(
    annotations: Sequence[Annotation], known: Callable[[str], bool] | Container[str], *, side: str = "annotations"
) -> tuple[list[Annotation], list[str]]:
    """Annotations whose class is known, and the sorted distinct classes left out."""
    test = known if callable(known) else known.__contains__
    kept = [a for a in annotations if test(a.class_id)]
    left = sorted({a.class_id for a in annotations if not test(a.class_id)})
    return kept, left


# -- boundaries ---------------------------------------------------------------------


def merged_spans(spans: Iterable[Span]) -> list[tuple[int, int]]:
    """The character set of spans as sorted, disjoint, non-empty intervals."""
    out: list[tuple[int, int]] = []
    for s in sorted(spans):
        if s.start == s.end:
            continue
        if out and s.start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], s.end))
        else:
            out.append((s.start, s.end))
    return out


def _size(iv: list[tuple[int, int]]) -> int:
    return sum(b - a for a, b in iv)


def _common(x: list[tuple[int, int]], y: list[tuple[int, int]]) -> int:
    i = j = n = 0
    while i < len(x) and j < len(y):
        lo, hi = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if lo < hi:
            n += hi - lo
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return n


def overlapping(
    xs: Sequence[list[tuple[int, int]]], ys: Sequence[list[tuple[int, int]]]
) -> Iterator[tuple[int, int, int]]:
    """(i, j, shared characters) for every pair of merged span lists that share a character.

    A sweep over start offsets: each ``x`` looks only at the ``y`` starting within the
    longest extent of ``ys`` before it, so a document costs about n log n, not n².
    """
    order = sorted((j for j in range(len(ys)) if ys[j]), key=lambda j: ys[j][0][0])
    starts = [ys[j][0][0] for j in order]
    reach = max((ys[j][-1][1] - ys[j][0][0] for j in order), default=0)
    for i, x in enumerate(xs):
        if not x:
            continue
        first, last = x[0][0], x[-1][1]
        for k in range(bisect_left(starts, first - reach), bisect_left(starts, last)):
            y = ys[order[k]]
            if y[-1][1] <= first:
                continue
            common = _common(x, y)
            if common:
                yield i, order[k], common


def jaccard(a: Sequence[Span], b: Sequence[Span]) -> float:
    """|chars(a) ∩ chars(b)| / |chars(a) ∪ chars(b)| over all spans' characters (0 if both empty).

    >>> jaccard((Span(0, 3), Span(6, 9)), (Span(0, 9),))
    0.6666666666666666
    """
    x, y = merged_spans(a), merged_spans(b)
    common = _common(x, y)
    union = _size(x) + _size(y) - common
    return common / union if union else 0.0


def boundary_score(a: Sequence[Span], b: Sequence[Span], boundary: Boundary = "jaccard") -> float:
    """EXACT: 1 if the span lists are identical, else 0; JACCARD: :func:`jaccard`."""
    if boundary == "exact":
        return 1.0 if tuple(a) == tuple(b) else 0.0
    if boundary == "jaccard":
        return jaccard(a, b)
    raise ValueError(f"unknown boundary {boundary!r}: expected 'exact' or 'jaccard'")


# -- pairing and scores -------------------------------------------------------------


def pair_annotations(
    refs: Sequence[Annotation], preds: Sequence[Annotation], similarity: Similarity, *, boundary: Boundary = "jaccard"
) -> list[Pair]:
    """The kept pairs, greedily by score (ties: lower ref position, then lower pred position).

    Classes are compared as given (translate and filter them first, or use
    :func:`score_document`). Only pairs whose spans share a character are candidates.
    """
    if boundary not in ("exact", "jaccard"):
        raise ValueError(f"unknown boundary {boundary!r}: expected 'exact' or 'jaccard'")
    rm = [merged_spans(a.spans) for a in refs]
    pm = [merged_spans(p.spans) for p in preds]
    rs, ps = [_size(x) for x in rm], [_size(y) for y in pm]
    candidates: list[tuple[float, int, int]] = []
    for i, j, common in overlapping(rm, pm):
        r, p = refs[i], preds[j]
        if boundary == "exact":
            b = 1.0 if tuple(r.spans) == tuple(p.spans) else 0.0
        else:
            b = common / (rs[i] + ps[j] - common)
        score = b * float(similarity(r.class_id, p.class_id)) if b else 0.0
        candidates.append((score, i, j))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_r: set[int] = set()
    used_p: set[int] = set()
    kept = []
    for score, i, j in candidates:
        if i in used_r or j in used_p:
            continue
        used_r.add(i)
        used_p.add(j)
        kept.append(Pair(i, j, score))
    return kept


def _prepare(annotations: Sequence[Annotation], set_key: str | None) -> list[Annotation]:
    if not uses_parallel_ids(set_key):
        return list(annotations)
    out = []
    for a in annotations:
        c = comparison_class(a.class_id, set_key)
        out.append(a if c == a.class_id else Annotation(a.id, a.document, c, a.spans, a.text, a.annotator))
    return out


def score_document(
    refs: Sequence[Annotation],
    preds: Sequence[Annotation],
    similarity: Similarity,
    *,
    boundary: Boundary = "jaccard",
    set_key: str | None = None,
    known: Callable[[str], bool] | Container[str] | None = None,
) -> Scores:
    """The Shared Task :class:`Scores` of one document.

    ``set_key`` selects the parallel-hierarchy translation (:func:`comparison_class`);
    ``known`` (a set or a predicate on translated class ids; None keeps everything)
    drops annotations whose class is not in the ontology from both sides, with a
    DataWarning naming those classes.
    """
    r, p = _prepare(refs, set_key), _prepare(preds, set_key)
    if known is not None:
        r, left_r = exclude_unknown(r, known)
        p, left_p = exclude_unknown(p, known)
        left = sorted(set(left_r) | set(left_p))
        if left:
            doc = (refs[0].document if refs else preds[0].document) if (refs or preds) else "?"
            warnings.warn(
                f"document {doc}: left out annotations of {len(left)} class(es) not in the ontology: {', '.join(left)}",
                DataWarning,
                stacklevel=2,
            )
    kept = pair_annotations(r, p, similarity, boundary=boundary)
    m = sum(k.score for k in kept)
    return Scores(
        matches=m, insertions=len(p) - len(kept), deletions=len(r) - len(kept), ref_count=len(r), pred_count=len(p)
    )
