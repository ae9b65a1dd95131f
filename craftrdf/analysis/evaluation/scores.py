"""The Shared Task counts of one document or a corpus total, and the rates from them: one record.

:class:`Scores` holds what the official scorer counts (:mod:`.official`): M (the sum of the
kept pair scores), I, D, N and P. Every reader takes its numbers from it:

- the ``<key>_results.tsv`` rows take :attr:`Scores.rates`, ``SlotErrorRate``'s arithmetic:
  M exact (:attr:`Scores.exact`), each division rounded half-up to 10 decimals, F1 from the
  rounded precision and recall, then written to 4 decimals half-up (:func:`written`);
- ``summary.json``, the terminal table of ``craftrdf evaluate``, the sweeps and training take
  the float properties (:attr:`Scores.ser`, ``precision``, ``recall``, ``f1``): the same
  formulas (:func:`~.metrics.rates`, :func:`~.metrics.slot_error_rate`) in float arithmetic
  over :attr:`Scores.matches`, the float sum of the documents' M. These are the numbers those
  outputs have always printed; they can differ from the TSV's in the last decimals (the TSV
  rounds each division; the floats do not), so both are kept rather than one printed as the
  other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from .metrics import FLOAT, Arithmetic, Number, rates, slot_error_rate
from .official_graph import round_half_up


def _divide(a: Decimal, b: Decimal | int) -> Decimal:
    """``BigDecimal.divide(b, 10, ROUND_HALF_UP)``, exact up to the rounding."""
    return round_half_up(Fraction(a) / Fraction(b))


#: ``SlotErrorRate``'s arithmetic: exact decimals, each division rounded half-up to 10 decimals.
OFFICIAL: Arithmetic[Decimal] = Arithmetic(Decimal(1), Decimal(0), _divide)


@dataclass(frozen=True, slots=True)
class Rates:
    """``SlotErrorRate``'s values at full scale: S = N − D − M exact; SER, precision, recall and F1 to 10 decimals."""

    substitutions: Decimal
    ser: Decimal
    precision: Decimal
    recall: Decimal
    f1: Decimal


def _shared_task(m: Number, s: Scores, arithmetic: Arithmetic[Number]) -> tuple[Number, Number, Number, Number, Number]:
    """S, SER, precision, recall and F1 of ``s``'s counts with M = ``m``, in ``arithmetic``."""
    sub = s.ref_count - s.deletions - m
    ser = slot_error_rate(sub + s.insertions + s.deletions, s.ref_count, s.pred_count, arithmetic)
    precision, recall, f1 = rates(m, s.ref_count, s.pred_count, arithmetic)
    return sub, ser, precision, recall, f1


@dataclass(frozen=True, slots=True)
class Scores:
    """The official counts of one document (or a corpus total) and the rates from them.

    ``exact`` is M, the exact sum of the kept pair scores, and ``matches`` the same as a float
    (for a total, the float sum of the documents' ``matches``); ``insertions`` I,
    ``deletions`` D, ``ref_count`` N, ``pred_count`` P. Add two with ``+`` (or :func:`total`)
    for totals: the counts are summed and the rates recomputed, never averaged.
    :attr:`rates` are the official values (``Decimal``, the TSV's); ``substitutions``,
    ``ser``, ``precision``, ``recall`` and ``f1`` the float ones (see the module docstring).

    >>> s = Scores(2.65, 0, 0, 3, 3, Decimal("2.65"))
    >>> s.rates.ser, s.ser
    (Decimal('0.1166666667'), 0.1166666666666667)
    """

    matches: float
    insertions: int
    deletions: int
    ref_count: int
    pred_count: int
    exact: Decimal

    @property
    def substitutions(self) -> float:
        """S = N − D − M."""
        return _shared_task(self.matches, self, FLOAT)[0]

    @property
    def ser(self) -> float:
        """(S + I + D) / N; 0 when N = P = 0, 1 when only N is 0."""
        return _shared_task(self.matches, self, FLOAT)[1]

    @property
    def precision(self) -> float:
        """M / P; 1 when N = P = 0, 0 when exactly one of them is 0."""
        return _shared_task(self.matches, self, FLOAT)[2]

    @property
    def recall(self) -> float:
        """M / N; the edge cases as for precision."""
        return _shared_task(self.matches, self, FLOAT)[3]

    @property
    def f1(self) -> float:
        """2PR / (P + R); 0 when P + R is 0; the edge cases as for precision."""
        return _shared_task(self.matches, self, FLOAT)[4]

    @property
    def rates(self) -> Rates:
        """The official values from ``exact``, as ``SlotErrorRate`` computes them (10 decimals, half-up)."""
        return Rates(*_shared_task(self.exact, self, OFFICIAL))

    def __add__(self, other: Scores) -> Scores:
        if not isinstance(other, Scores):
            return NotImplemented
        return Scores(
            self.matches + other.matches,
            self.insertions + other.insertions,
            self.deletions + other.deletions,
            self.ref_count + other.ref_count,
            self.pred_count + other.pred_count,
            self.exact + other.exact,
        )


def total(scores: Iterable[Scores]) -> Scores:
    """Corpus totals: M, I, D, N and P summed over documents, in the order given (rates recomputed from them).

    >>> total([Scores(1.0, 0, 0, 1, 1, Decimal(1)), Scores(0.0, 1, 1, 1, 1, Decimal(0))]).ser
    1.0
    """
    out = Scores(0.0, 0, 0, 0, 0, Decimal(0))
    for s in scores:
        out = out + s
    return out


def written(value: Decimal, places: int = 4) -> Decimal:
    """``value.setScale(places, ROUND_HALF_UP)``: a number as the official scorer writes it.

    >>> written(Decimal("0.11665")), written(Decimal("2.125"), 2)
    (Decimal('0.1167'), Decimal('2.13'))
    """
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
