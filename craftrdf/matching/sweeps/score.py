"""Scoring one configuration's annotations against gold: exact spans (the paper) and the Shared Task SER.

- **Exact** (Bada et al. 2017): an annotation is a true positive when gold has one in
  the same document with the same spans and the same class (parallel-hierarchy classes
  under their base id in ``+extensions`` sets, :func:`exact_class`). Both sides are sets of
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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...analysis.evaluation.metrics import RetrievalRates
from ...analysis.evaluation.official import official_scores, prepare_official, score_prepared
from ...analysis.evaluation.official_graph import OfficialWang
from ...analysis.evaluation.scores import Scores, total
from ...core.model import Annotation, Span

ExactKey = tuple[str, tuple[Span, ...], str]

_PARALLEL = re.compile(r"^([A-Za-z]+)_EXT:(\d+)$")


@dataclass(frozen=True, slots=True)
class ExactCounts(RetrievalRates):
    """Exact-span, exact-class counts; precision, recall and F1 (0 when undefined)."""

    tp: int
    fp: int
    fn: int


def renames_parallel(set_key: str | None) -> bool:
    """Whether the exact match compares a set's parallel-hierarchy classes under their base id.

    True for ``+extensions`` sets (key ending in ``_EXT``, any case) other than ``GO_MF_EXT``.

    >>> renames_parallel("SO_EXT"), renames_parallel("GO_MF_EXT"), renames_parallel("SO")
    (True, False, False)
    """
    key = (set_key or "").upper()
    return key.endswith("_EXT") and key != "GO_MF_EXT"


def exact_class(class_id: str, set_key: str | None) -> str:
    """The class an exact match compares in set ``set_key``: ``XX_EXT:<digits>`` as ``XX:<digits>``.

    The sweeps and training have always compared these; the official scorer's renaming
    (:func:`~craftrdf.analysis.evaluation.official.official_class`) differs on two kinds of id, kept
    apart so that sweep and training results stay as they were: it keeps ``NCBITaxon_EXT:<digits>``
    (its pattern is upper-case) and renames ``PR_EXT:<UniProt accession>``.

    >>> exact_class("SO_EXT:0000704", "SO_EXT"), exact_class("SO_EXT:0000704", "SO")
    ('SO:0000704', 'SO_EXT:0000704')
    >>> exact_class("UBERON_EXT:bone_element_or_tissue", "UBERON_EXT"), exact_class("GO_EXT:0000001", "GO_MF_EXT")
    ('UBERON_EXT:bone_element_or_tissue', 'GO_EXT:0000001')
    """
    if renames_parallel(set_key):
        m = _PARALLEL.match(class_id)
        if m:
            return f"{m.group(1)}:{m.group(2)}"
    return class_id


def exact_key(a: Annotation, set_key: str | None = None) -> ExactKey:
    """``(document, sorted spans, class)``: what must be equal for an exact match (:func:`exact_class`)."""
    return a.document, tuple(sorted(a.spans)), exact_class(a.class_id, set_key)


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
