"""A float reimplementation of the Shared Task metric (Bossy et al. 2013): an oracle for the official scorer.

Written from the metric's definition, independently of ``craftrdf.analysis.evaluation.official``
(no Java hash order, no decimal rounding, every pair of annotations tried), so a test can
score one document both ways and compare. For one document with references R and
predictions P:

- annotations whose class ``known`` rejects are left out of both sides, with one
  :class:`~craftrdf.errors.DataWarning` naming the classes;
- candidate pairs are the (reference, prediction) pairs whose spans share a character;
  pair score = boundary score x similarity(ref class, pred class);
- pairs are taken by score, highest first, ties by reference position, then prediction
  position; a pair is kept when neither side is already paired (a kept pair may score 0:
  a substitution);
- M = sum of kept scores, D = unpaired references, I = unpaired predictions, N = |R|,
  P = |predictions|, S = N - D - M; SER = (S + I + D) / N, precision M / P, recall M / N,
  F1 = 2PR / (P + R); N = P = 0 gives SER 0 and P = R = F1 = 1, exactly one of them 0
  gives SER 1 and P = R = F1 = 0.

The official scorer breaks ties by Java's hash order, so the two agree on every document
where no two candidate pairs score the same (and on many others).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from craftrdf.core.errors import DataWarning
from craftrdf.core.model import Annotation, Span

Boundary = Literal["exact", "jaccard"]
Similarity = Callable[[str, str], float]


@dataclass(frozen=True, slots=True)
class FloatScores:
    """M (a float), I, D, N and P of one document or a total, and the rates from them in floats."""

    matches: float
    insertions: int
    deletions: int
    ref_count: int
    pred_count: int

    @property
    def substitutions(self) -> float:
        return self.ref_count - self.deletions - self.matches

    @property
    def ser(self) -> float:
        n, p = self.ref_count, self.pred_count
        if n == 0:
            return 0.0 if p == 0 else 1.0
        if p == 0:
            return 1.0
        return (self.substitutions + self.insertions + self.deletions) / n

    def _rates(self) -> tuple[float, float, float]:
        n, p = self.ref_count, self.pred_count
        if n == 0 or p == 0:
            v = 1.0 if n == p else 0.0
            return v, v, v
        precision, recall = self.matches / p, self.matches / n
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        return precision, recall, f1

    @property
    def precision(self) -> float:
        return self._rates()[0]

    @property
    def recall(self) -> float:
        return self._rates()[1]

    @property
    def f1(self) -> float:
        return self._rates()[2]


@dataclass(frozen=True, slots=True)
class Pair:
    """A kept pair: positions in the (filtered) reference and prediction lists, and its score."""

    ref: int
    pred: int
    score: float


def total(scores: Iterable[FloatScores]) -> FloatScores:
    """M, I, D, N and P summed over documents."""
    items = list(scores)
    return FloatScores(
        sum(s.matches for s in items),
        sum(s.insertions for s in items),
        sum(s.deletions for s in items),
        sum(s.ref_count for s in items),
        sum(s.pred_count for s in items),
    )


def _chars(spans: Iterable[Span]) -> set[int]:
    return {c for s in spans for c in range(s.start, s.end)}


def jaccard(a: Sequence[Span], b: Sequence[Span]) -> float:
    """|chars(a) & chars(b)| / |chars(a) | chars(b)| over all spans' characters (0 if both are empty)."""
    x, y = _chars(a), _chars(b)
    union = len(x | y)
    return len(x & y) / union if union else 0.0


def boundary_score(a: Sequence[Span], b: Sequence[Span], boundary: Boundary = "jaccard") -> float:
    """EXACT: 1 if the span lists are identical, else 0; JACCARD: :func:`jaccard`."""
    if boundary == "exact":
        return 1.0 if tuple(a) == tuple(b) else 0.0
    if boundary == "jaccard":
        return jaccard(a, b)
    raise ValueError(f"unknown boundary {boundary!r}: expected 'exact' or 'jaccard'")


def pair_annotations(
    refs: Sequence[Annotation], preds: Sequence[Annotation], similarity: Similarity, *, boundary: Boundary = "jaccard"
) -> list[Pair]:
    """The kept pairs, greedily by score (ties: lower ref position, then lower pred position)."""
    candidates = []
    for i, r in enumerate(refs):
        for j, p in enumerate(preds):
            if _chars(r.spans) & _chars(p.spans):
                candidates.append(
                    (boundary_score(r.spans, p.spans, boundary) * similarity(r.class_id, p.class_id), i, j)
                )
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_r: set[int] = set()
    used_p: set[int] = set()
    kept = []
    for score, i, j in candidates:
        if i not in used_r and j not in used_p:
            used_r.add(i)
            used_p.add(j)
            kept.append(Pair(i, j, score))
    return kept


def score_document(
    refs: Sequence[Annotation],
    preds: Sequence[Annotation],
    similarity: Similarity,
    *,
    boundary: Boundary = "jaccard",
    known: Callable[[str], bool] | Container[str] | None = None,
) -> FloatScores:
    """The :class:`FloatScores` of one document; ``known`` (a set or a predicate) filters classes."""
    r, p = list(refs), list(preds)
    if known is not None:
        test = known if callable(known) else known.__contains__
        left = sorted({a.class_id for a in (*r, *p) if not test(a.class_id)})
        r, p = [a for a in r if test(a.class_id)], [a for a in p if test(a.class_id)]
        if left:
            warnings.warn(
                f"left out annotations of classes not in the ontology: {', '.join(left)}", DataWarning, stacklevel=2
            )
    kept = pair_annotations(r, p, similarity, boundary=boundary)
    return FloatScores(sum(k.score for k in kept), len(p) - len(kept), len(r) - len(kept), len(r), len(p))
