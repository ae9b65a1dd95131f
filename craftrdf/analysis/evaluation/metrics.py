"""Precision, recall and F1, written once, with the rules for empty sides stated once.

Two rules, each where its readers expect it:

- **Shared Task rules** (:func:`rates` and :func:`slot_error_rate`), for ``craftrdf
  evaluate`` (the official scorer's ``SlotErrorRate`` and the NER criteria alike): ``hits``
  counts the matches (the sum of kept pair scores for the Shared Task, true positives for a
  criterion), N the references, P the predictions. When N = P = 0 there was nothing to find
  and nothing was found wrongly, so precision, recall and F1 are all 1 and SER 0; when only
  N is 0, all three are 0 and SER 1; when only P is 0, all three are 0. Otherwise
  P = hits/P, R = hits/N, F1 = 2PR/(P+R) (0 when P+R = 0), SER = (S+I+D)/N. The division
  is the caller's :class:`Arithmetic`: :data:`FLOAT`, or ``SlotErrorRate``'s 10-decimal
  half-up division (:data:`craftrdf.analysis.evaluation.scores.OFFICIAL`; F1 then comes from the
  rounded P and R, as ``SlotErrorRate`` computes it).
- **Retrieval rules** (:func:`retrieval_rates` and :class:`RetrievalRates`), for sweep
  tables, which rank configurations on corpus totals of exact matches: TP/(TP+FP),
  TP/(TP+FN), each 0 when undefined, so a configuration that predicts nothing ranks below
  every one that finds something, even on a corpus without gold.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

Number = TypeVar("Number", float, Decimal)


@dataclass(frozen=True, slots=True)
class Arithmetic(Generic[Number]):
    """The numbers rates are computed in: the values of 1 and 0, and how a number is divided by another or a count."""

    one: Number
    zero: Number
    divide: Callable[[Number, Number | int], Number]


#: Plain float division (the NER criteria; the float values of :class:`~craftrdf.analysis.evaluation.scores.Scores`).
FLOAT: Arithmetic[float] = Arithmetic(1.0, 0.0, operator.truediv)


def f1_score(precision: Number, recall: Number, arithmetic: Arithmetic[Number]) -> Number:
    """The harmonic mean 2PR/(P+R); 0 when both are 0.

    >>> f1_score(0.5, 0.75, FLOAT)
    0.6
    """
    both = precision + recall
    return arithmetic.zero if both == 0 else arithmetic.divide(2 * precision * recall, both)


def rates(
    hits: Number, ref_count: int, pred_count: int, arithmetic: Arithmetic[Number]
) -> tuple[Number, Number, Number]:
    """Precision, recall and F1 of ``hits`` by the Shared Task rules (see the module docstring).

    >>> rates(3, 4, 6, FLOAT)
    (0.5, 0.75, 0.6)
    >>> rates(0, 0, 0, FLOAT), rates(0, 2, 0, FLOAT)
    ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    """
    if ref_count == 0 or pred_count == 0:
        v = arithmetic.one if ref_count == pred_count else arithmetic.zero
        return v, v, v
    precision, recall = arithmetic.divide(hits, pred_count), arithmetic.divide(hits, ref_count)
    return precision, recall, f1_score(precision, recall, arithmetic)


def slot_error_rate(errors: Number, ref_count: int, pred_count: int, arithmetic: Arithmetic[Number]) -> Number:
    """SER = (S + I + D) / N of ``errors`` = S + I + D by the Shared Task rules: 0 when N = P = 0, 1 when only N is 0.

    >>> slot_error_rate(1.5, 2, 3, FLOAT), slot_error_rate(0.0, 0, 0, FLOAT), slot_error_rate(2.0, 0, 2, FLOAT)
    (0.75, 0.0, 1.0)
    """
    if ref_count == 0:
        return arithmetic.zero if pred_count == 0 else arithmetic.one
    return arithmetic.divide(errors, ref_count)


def retrieval_rates(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from counts by the retrieval rules (each 0 when undefined).

    >>> retrieval_rates(3, 3, 1)
    (0.5, 0.75, 0.6)
    >>> retrieval_rates(0, 0, 0)
    (0.0, 0.0, 0.0)
    """
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, f1_score(precision, recall, FLOAT)


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
