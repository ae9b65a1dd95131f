"""results.csv (append, resume, partial lines), best configurations and the Pareto front on hand-made tables."""

from __future__ import annotations

import pytest

from craftrdf.core.errors import ConfigError
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.sweeps.results import COLUMNS, ResultsFile, SweepRow, best_rows, pareto_front, read_results


def row(case: str, tp: int, fp: int, fn: int, ser: float, stemmer: str = "PORTER") -> SweepRow:
    return SweepRow(MatcherConfig(caseMatch=case, stemmer=stemmer), tp, fp, fn, ser, 1.0)


A = row("CASE_SENSITIVE", 8, 2, 12, 0.70)  # P 0.8   R 0.4   F1 0.5333
B = row("CASE_INSENSITIVE", 12, 8, 8, 0.65)  # P 0.6   R 0.6   F1 0.6
C = row("CASE_IGNORE", 16, 24, 4, 0.90)  # P 0.4   R 0.8   F1 0.5333
D = row("CASE_FOLD_DIGITS", 10, 10, 10, 0.60)  # P 0.5 R 0.5  F1 0.5: dominated by B, yet the lowest SER
E = row("CASE_SENSITIVE", 7, 3, 13, 0.80, stemmer="NONE")  # P 0.7 R 0.35: dominated by A


def test_best_rows_of_a_hand_made_table():
    best = best_rows([A, B, C, D, E])
    assert best["precision"] is A and best["recall"] is C and best["f1"] is B and best["ser"] is D


def test_best_ties_go_to_the_better_f1():
    tie = row("CASE_IGNORE", 4, 1, 16, 0.95)  # P 0.8 like A, F1 lower
    assert best_rows([tie, A])["precision"] is A


def test_pareto_front_of_a_hand_made_table():
    assert pareto_front([A, B, C, D, E]) == [A, B, C]  # by recall


def test_best_of_nothing_is_an_error():
    with pytest.raises(ConfigError):
        best_rows([])


def test_rows_round_trip_and_rates():
    r = SweepRow.from_values(B.values())
    assert r == B
    assert (r.precision, r.recall, r.f1) == (pytest.approx(0.6), pytest.approx(0.6), pytest.approx(0.6))
    assert SweepRow(MatcherConfig(), 0, 0, 5, 1.0, 0.0).f1 == 0.0


def test_append_then_resume_ignores_and_cuts_an_incomplete_last_line(tmp_path):
    path = tmp_path / "results.csv"
    with ResultsFile(path) as f:
        assert f.rows == {}
        f.append([A, B])
    text = path.read_text()
    assert text.splitlines()[0] == ",".join(COLUMNS) and text.endswith("\n")
    # a write cut short by a kill: half a line, no newline
    with open(path, "a") as fh:
        fh.write(",".join(C.values())[:25])
    assert set(read_results(path)) == {A.config, B.config}
    with ResultsFile(path) as f:
        assert set(f.rows) == {A.config, B.config}
        f.append([C])
    rows = read_results(path)
    assert rows == {A.config: A, B.config: B, C.config: C}
    assert len(path.read_text().splitlines()) == 4


def test_a_foreign_file_is_refused(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(ConfigError, match="not a sweep results file"):
        read_results(path)


def test_a_damaged_middle_line_is_an_error_naming_it(tmp_path):
    path = tmp_path / "results.csv"
    with ResultsFile(path) as f:
        f.append([A, B])
    lines = path.read_text().splitlines()
    lines[1] = "garbage"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match="line 2"):
        read_results(path)
