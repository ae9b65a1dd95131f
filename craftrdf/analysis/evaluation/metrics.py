"""Precision, recall and F1, with the rules for empty sides stated once.

Two rules, each where its readers expect it:

- **Shared Task rules** (:func:`rates`), for ``craftrdf evaluate`` (per document and in
  totals; the Bossy et al. 2013 metric and the NER criteria alike): ``hits`` counts the
  matches (a sum of pair scores for the Shared Task, true positives for a criterion), N
  the references, P the predictions. When N = P = 0 there was nothing to find and nothing
  was found wrongly, so precision, recall and F1 are all 1; when exactly one of N and P is
  0, all three are 0. Otherwise P = hits/P, R = hits/N, F1 = 2PR/(P+R) (0 when P+R = 0).
  The slot error rate follows the same rule (:attr:`craftrdf.analysis.evaluation.bossy.Scores.ser`).
- **Retrieval rules** (:func:`retrieval_rates` and :class:`RetrievalRates`), for sweep
  tables, which rank configurations on corpus totals of exact matches: TP/(TP+FP),
  TP/(TP+FN), each 0 when undefined, so a configuration that predicts nothing ranks below
  every one that finds something, even on a corpus without gold.
"""

from __future__ import annotations


def f1_score(precision: float, recall: float) -> float:
    """The harmonic mean 2PR/(P+R); 0 when both are 0.

    >>> f1_score(0.5, 0.75)
    0.6
    """
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def rates(hits: float, ref_count: int, pred_count: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``hits`` by the Shared Task rules (see the module docstring).

    >>> rates(3, 4, 6)
    (0.5, 0.75, 0.6)
    >>> rates(0, 0, 0), rates(0, 2, 0)
    ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    """
    if ref_count == 0 or pred_count == 0:
        v = 1.0 if ref_count == pred_count else 0.0
        return v, v, v
    precision, recall = hits / pred_count, hits / ref_count
    return precision, recall, f1_score(precision, recall)


def retrieval_rates(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from counts by the retrieval rules (each 0 when undefined).

    >>> retrieval_rates(3, 3, 1)
    (0.5, 0.75, 0.6)
    >>> retrieval_rates(0, 0, 0)
    (0.0, 0.0, 0.0)
    """
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, f1_score(precision, recall)


class RetrievalRates:
    """Precision, recall and F1 properties from ``tp``, ``fp`` and ``fn`` attributes; a mixin."""

    __slots__ = ()
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        """TP / (TP + FP), 0 without predictions."""
        return retrieval_rates(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        """TP / (TP + FN), 0 without gold."""
        return retrieval_rates(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        """2PR / (P + R), 0 when both are 0."""
        return retrieval_rates(self.tp, self.fp, self.fn)[2]
