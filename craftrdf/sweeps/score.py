"""Scoring one configuration's annotations against gold: exact spans (the paper) and the Shared Task SER.

- **Exact** (Bada et al. 2017): an annotation is a true positive when gold has one in
  the same document with the same spans and the same class. Both sides are sets of
  ``(document, sorted spans, class)``, so a duplicate counts once; TP = |gold ∩ pred|,
  FP = |pred| − TP, FN = |gold| − TP.
- **SER** (CRAFT Shared Task 2019): :mod:`craftrdf.evaluation.bossy` with Jaccard
  boundaries and the ``bossy`` Wang similarity, classes translated
  (:func:`~craftrdf.evaluation.bossy.comparison_class`) and filtered by ontology
  membership as ``craftrdf evaluate`` does. The pairing is greedy over all overlapping
  (reference, prediction) pairs of a document; pairs of different clusters of
  overlapping annotations never compete, so each cluster is paired on its own with
  :func:`~craftrdf.evaluation.bossy.pair_annotations` (the same pairs, far fewer
  candidates than every reference against every prediction).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..evaluation.bossy import Scores, comparison_class, pair_annotations, uses_parallel_ids
from ..evaluation.metrics import RetrievalRates
from ..model import Annotation, Span

__all__ = ["ClassSimilarity", "ExactCounts", "GoldStandard", "ShippedIndex", "exact_key", "overlap_clusters"]

ExactKey = tuple[str, tuple[Span, ...], str]


class ClassSimilarity(Protocol):
    """What the SER needs of a similarity index: a score and ontology membership (a WangIndex has both)."""

    def similarity(self, a: str, b: str) -> float:
        """Similarity of two classes in [0, 1]."""
        ...

    def __contains__(self, term: object) -> bool:
        """Whether the class is in the ontology."""
        ...


class ShippedIndex:
    """A similarity index as sent to sweep workers once (it pickles: see ``WangIndex.__getstate__``)."""

    def __init__(self, index: ClassSimilarity) -> None:
        self.index = index

    def similarity(self, a: str, b: str) -> float:
        """The wrapped index's similarity."""
        return float(self.index.similarity(a, b))

    def __contains__(self, term: object) -> bool:
        return term in self.index


@dataclass(frozen=True, slots=True)
class ExactCounts(RetrievalRates):
    """Exact-span, exact-class counts; precision, recall and F1 (0 when undefined)."""

    tp: int
    fp: int
    fn: int


def exact_key(a: Annotation, set_key: str | None = None) -> ExactKey:
    """``(document, sorted spans, class)``: what must be equal for an exact match."""
    cls = comparison_class(a.class_id, set_key) if uses_parallel_ids(set_key) else a.class_id
    return a.document, tuple(sorted(a.spans)), cls


def overlap_clusters(refs: Sequence[Annotation], preds: Sequence[Annotation]) -> list[tuple[list[int], list[int]]]:
    """Groups of (reference positions, prediction positions) whose extents chain into overlaps.

    Each annotation's extent is its first start to its last end, so a group may join
    annotations that share no character (harmless: pairing inside it still needs a
    shared character); annotations of different groups never share one. Groups
    without both sides are left out. Positions keep their input order.
    """
    items: list[tuple[int, int, int, int]] = []  # start, end, side (0 ref, 1 pred), position
    for side, anns in ((0, refs), (1, preds)):
        for i, a in enumerate(anns):
            if a.spans:
                items.append((min(s.start for s in a.spans), max(s.end for s in a.spans), side, i))
    items.sort()
    out: list[tuple[list[int], list[int]]] = []
    end = -1
    current: tuple[list[int], list[int]] = ([], [])
    for start, stop, side, i in items:
        if start >= end:
            if current[0] and current[1]:
                out.append(current)
            current = ([], [])
            end = stop
        else:
            end = max(end, stop)
        current[side].append(i)
    if current[0] and current[1]:
        out.append(current)
    for r, p in out:
        r.sort()
        p.sort()
    return out


@dataclass(eq=False)
class GoldStandard:
    """Gold annotations of a set, prepared once for scoring many predictions.

    ``similarity`` supplies the Wang similarity and the ontology membership test of the
    SER. Similarity values are memoized per instance (a sweep asks for the same pairs
    in every configuration).
    """

    set_key: str
    gold: Mapping[str, Sequence[Annotation]]
    similarity: ClassSimilarity

    def __post_init__(self) -> None:
        self._exact: set[ExactKey] = {exact_key(a, self.set_key) for anns in self.gold.values() for a in anns}
        self._refs: dict[str, list[Annotation]] = {d: self._prepare(anns) for d, anns in self.gold.items()}
        self._memo: dict[tuple[str, str], float] = {}

    def _prepare(self, anns: Iterable[Annotation]) -> list[Annotation]:
        parallel = uses_parallel_ids(self.set_key)
        out = []
        for a in anns:
            c = comparison_class(a.class_id, self.set_key) if parallel else a.class_id
            if c in self.similarity:
                out.append(a if c == a.class_id else Annotation(a.id, a.document, c, a.spans, a.text, a.annotator))
        return out

    def _sim(self, a: str, b: str) -> float:
        if a == b:
            return 1.0
        v = self._memo.get((a, b))
        if v is None:
            v = self._memo[(a, b)] = float(self.similarity.similarity(a, b))
        return v

    def is_exact(self, a: Annotation) -> bool:
        """Whether one prediction is an exact true positive (same document, spans and class as a gold one)."""
        return exact_key(a, self.set_key) in self._exact

    def exact(self, predictions: Mapping[str, Sequence[Annotation]]) -> ExactCounts:
        """Exact counts of predictions over the documents of the gold standard."""
        pred = {exact_key(a, self.set_key) for d, anns in predictions.items() if d in self.gold for a in anns}
        tp = len(pred & self._exact)
        return ExactCounts(tp, len(pred) - tp, len(self._exact) - tp)

    def ser(self, predictions: Mapping[str, Sequence[Annotation]]) -> Scores:
        """Shared Task totals (Jaccard boundaries, Wang similarity) over the gold standard's documents."""
        m = 0.0
        ins = dels = n = p = 0
        sim: Callable[[str, str], float] = self._sim
        for doc, refs in self._refs.items():
            preds = self._prepare(predictions.get(doc, ()))
            n += len(refs)
            p += len(preds)
            kept = 0
            for ri, pi in overlap_clusters(refs, preds):
                pairs = pair_annotations([refs[i] for i in ri], [preds[j] for j in pi], sim, boundary="jaccard")
                kept += len(pairs)
                m += sum(x.score for x in pairs)
            ins += len(preds) - kept
            dels += len(refs) - kept
        return Scores(matches=m, insertions=ins, deletions=dels, ref_count=n, pred_count=p)
