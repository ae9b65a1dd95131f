"""One Scores record, two arithmetics: the TSV's official values and the float values, each derived by hand."""

from __future__ import annotations

from decimal import Decimal

from craftrdf.analysis.evaluation.metrics import FLOAT, slot_error_rate
from craftrdf.analysis.evaluation.official import official_row
from craftrdf.analysis.evaluation.scores import OFFICIAL, Scores, total


def test_a_total_keeps_the_float_sum_and_the_exact_sum():
    # two documents with M = 0.1 and M = 0.2 (one reference and one prediction each)
    a = Scores(0.1, 0, 0, 1, 1, Decimal("0.1"))
    b = Scores(0.2, 0, 0, 1, 1, Decimal("0.2"))
    t = total([a, b])
    # IEEE doubles: 0.1 + 0.2 is 0.30000000000000004; the exact sum is 0.3
    assert t.matches == 0.30000000000000004 and t.exact == Decimal("0.3")
    # the float values use the float M: S = 2 - 0 - 0.30000000000000004, SER = S / 2
    assert t.substitutions == 2 - 0.30000000000000004
    assert t.ser == (2 - 0.30000000000000004) / 2
    assert t.precision == 0.30000000000000004 / 2
    # the TSV's values use the exact M: S = 1.7, SER = 0.85, P = R = F1 = 0.15
    assert official_row("TOTAL", t) == "TOTAL\t1.7000\t0\t0\t0.3000\t2\t2\t0.8500\t0.1500\t0.1500\t0.1500"
    r = t.rates
    assert (r.substitutions, r.ser, r.precision, r.recall, r.f1) == (
        Decimal("1.7"),
        Decimal("0.8500000000"),
        Decimal("0.1500000000"),
        Decimal("0.1500000000"),
        Decimal("0.1500000000"),
    )


def test_the_official_rates_round_each_division_the_floats_do_not():
    # M = 1, N = 3, P = 3: the float precision is 1/3 as a double; the official one 0.3333333333
    s = Scores(1.0, 2, 2, 3, 3, Decimal(1))
    assert s.precision == 1 / 3 and s.rates.precision == Decimal("0.3333333333")
    # SER = (S + I + D) / N = (0 + 2 + 2) / 3
    assert s.ser == 4 / 3 and s.rates.ser == Decimal("1.3333333333")


def test_slot_error_rate_edge_cases_in_both_arithmetics():
    for arithmetic in (FLOAT, OFFICIAL):
        zero = arithmetic.zero
        assert slot_error_rate(zero, 0, 0, arithmetic) == 0  # nothing to find, nothing found
        assert slot_error_rate(zero, 0, 2, arithmetic) == 1  # only insertions
    # only deletions: S = 0, D = N, so the division gives 1
    assert slot_error_rate(2.0, 2, 0, FLOAT) == 1.0
    assert slot_error_rate(Decimal(2), 2, 0, OFFICIAL) == Decimal("1.0000000000")
    # half up at the tenth decimal: 2/3 = 0.66666666666... -> 0.6666666667
    assert slot_error_rate(Decimal(2), 3, 3, OFFICIAL) == Decimal("0.6666666667")
