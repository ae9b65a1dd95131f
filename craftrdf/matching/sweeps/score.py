"""Scoring one configuration's annotations against gold: exact spans (the paper) and the Shared Task SER.

- **Exact** (Bada et al. 2017): an annotation is a true positive when gold has one in
  the same document with the same spans and the same class (parallel-hierarchy classes
  under their base id in ``+extensions`` sets, the official scorer's renaming,
  :func:`~craftrdf.analysis.evaluation.official.official_class`). Both sides are sets of
  ``(document, sorted spans, class)``, so a duplicate counts once; TP = |gold ∩ pred|,
  FP = |pred| − TP, FN = |gold| − TP.
- **SER** (CRAFT Shared Task 2019): the official scorer's, as ``craftrdf evaluate`` and
  ``craftrdf train`` compute it (:func:`~craftrdf.analysis.evaluation.official.score_official`:
  Jaccard boundaries, its class renaming and ontology filter, its pairing and tie order;
  the Wang similarity over the set's own ontology graph as owltools walks it, extension
  classes placed by their unions and intersections,
  :class:`~craftrdf.analysis.evaluation.official_graph.OfficialWang`). The gold side of each
  document is prepared once (:func:`~craftrdf.analysis.evaluation.official.prepare_official`) and
  the similarity of each class pair is computed once, so a sweep pays for the pairing only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...analysis.evaluation.metrics import RetrievalRates
from ...analysis.evaluation.official import official_class, official_scores, prepare_official, score_prepared
from ...analysis.evaluation.official_graph import OfficialWang
from ...analysis.evaluation.scores import Scores, total
from ...core.model import Annotation, Span

ExactKey = tuple[str, tuple[Span, ...], str]


@dataclass(frozen=True, slots=True)
class ExactCounts(RetrievalRates):
    """Exact-span, exact-class counts; precision, recall and F1 (0 when undefined)."""

    tp: int
    fp: int
    fn: int


def exact_key(a: Annotation, set_key: str | None = None) -> ExactKey:
    """``(document, sorted spans, class)``: what must be equal for an exact match.

    The class as the official scorer compares it in set ``set_key``
    (:func:`~craftrdf.analysis.evaluation.official.official_class`: its parallel-class renaming).
    """
    return a.document, tuple(sorted(a.spans)), official_class(a.class_id, set_key)


@dataclass(eq=False)
class GoldStandard:
    """Gold annotations of a set, prepared once for scoring many predictions.

    ``wang`` is the official scorer's similarity over the set's ontology
    (:func:`~craftrdf.analysis.evaluation.official_graph.store_wang`); None scores exact classes
    only, as :func:`~craftrdf.analysis.evaluation.official.official_scores` does.
    """

    set_key: str
    gold: Mapping[str, Sequence[Annotation]]
    wang: OfficialWang | None

    def __post_init__(self) -> None:
        self._exact: set[ExactKey] = {exact_key(a, self.set_key) for anns in self.gold.values() for a in anns}
        wang = self.wang
        self._refs = {} if wang is None else {d: prepare_official(a, wang, self.set_key) for d, a in self.gold.items()}

    def is_exact(self, a: Annotation) -> bool:
        """Whether one prediction is an exact true positive (same document, spans and class as a gold one)."""
        return exact_key(a, self.set_key) in self._exact

    def exact(self, predictions: Mapping[str, Sequence[Annotation]]) -> ExactCounts:
        """Exact counts of predictions over the documents of the gold standard."""
        pred = {exact_key(a, self.set_key) for d, anns in predictions.items() if d in self.gold for a in anns}
        tp = len(pred & self._exact)
        return ExactCounts(tp, len(pred) - tp, len(self._exact) - tp)

    def ser(self, predictions: Mapping[str, Sequence[Annotation]]) -> Scores:
        """The official Shared Task totals over the gold standard's documents (``official_scores``'s)."""
        wang = self.wang
        if wang is None:
            return official_scores(self.set_key, self.gold, predictions, None)
        return total(
            score_prepared(self._refs[d], prepare_official(predictions.get(d, ()), wang, self.set_key), wang)
            for d in sorted(self._refs)
        )
