"""``craftrdf sweep`` on the bundled sample: files written, select/report, and a SIGKILL mid-sweep then resume."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from craftrdf.matching.sweeps.results import COLUMNS, read_results

GRID = """[grid]
caseMatch = ["CASE_SENSITIVE", "CASE_INSENSITIVE", "CASE_IGNORE", "CASE_FOLD_DIGITS"]
stopWords = ["NONE", "PUBMED"]
synonyms = ["EXACT_ONLY", "ALL"]
searchStrategy = ["CONTIGUOUS_MATCH", "SKIP_ANY_MATCH", "SKIP_ANY_MATCH_ALLOW_OVERLAP"]
"""


@pytest.fixture(scope="module")
def store_path(sample_store_copy, tmp_path_factory) -> Path:
    return sample_store_copy(tmp_path_factory.mktemp("store") / "sample.store", sets=["UBERON", "UBERON_EXT"])


def sweep_args(store: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "craftrdf",
        "-q",
        "sweep",
        "--store",
        str(store),
        "--set",
        "UBERON",
        "--workers",
        "1",
        "--no-cache",
        "--out",
        str(out),
        *extra,
    ]


def fields(path: Path) -> set[tuple[str, ...]]:
    """The rows of a results file as CSV fields without the seconds."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == COLUMNS
    return {tuple(r[:-1]) for r in rows[1:]}


def test_quick_sweep_writes_results_best_and_plot(store_path, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run(
        sweep_args(store_path, out, "--grid", "quick", "--select-on", "train,dev", "--report-on", "test"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert "best F1" in r.stdout and "on test (1 documents)" in r.stdout
    assert len(read_results(out / "results.csv")) == 16
    best = (out / "best.md").read_text()
    # which documents each table's numbers came from: the sample's train and dev articles, then its test article
    assert "Selected on train,dev (2 documents)" in best and "11597317, 17244351" in best
    assert "reported on test (1 documents)" in best and "11319941." in best
    assert best.count("| caseMatch |") == 2 and "| **TP** |" in best
    assert (out / "pr.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(out / "report.csv", newline="") as fh:
        report = list(csv.DictReader(fh))
    assert 1 <= len(report) <= 4
    assert "term filter" not in r.stdout and "With the term filter" not in best


def test_term_filter_lines_and_table(store_path, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run(
        sweep_args(
            store_path, out, "--grid", "quick", "--select-on", "train,dev", "--report-on", "test", "--term-filter"
        ),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stdout.splitlines() if "+ term filter" in x]
    assert len(lines) == 2 and all("(5-fold cross-validated); on test (1 documents)" in x for x in lines)
    best = (out / "best.md").read_text()
    assert "## With the term filter" in best and "| terms dropped (learned on all of train,dev (2 documents)) |" in best
    # the filter never adds a match: cross-validated TP + FN is still the gold count of the best-F1 row
    table = best.split("## With the term filter")[1]
    tp, _fp, fn = (
        int(x)
        for x in table.split("| **TP / FP / FN**, train,dev (2 documents), cross-validated | ")[1]
        .split(" |")[0]
        .split(" / ")
    )
    f1_row = next(x for x in best.split("## The same")[0].splitlines() if x.startswith("| **TP** |"))
    f1_tp = int(f1_row.split("|")[4])  # columns: parameter, best precision, best recall, best F1, lowest SER
    f1_fn = int(next(x for x in best.split("## The same")[0].splitlines() if x.startswith("| **FN** |")).split("|")[4])
    assert tp + fn == f1_tp + f1_fn and tp <= f1_tp


def test_bad_options_are_one_line_errors(store_path, tmp_path):
    r = subprocess.run(
        sweep_args(store_path, tmp_path / "o", "--select-on", "train"), capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 1 and "go together" in r.stderr and r.stderr.count("\n") == 1
    r = subprocess.run(
        sweep_args(store_path, tmp_path / "o", "--grid", str(tmp_path / "nope.toml")),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1 and "no such file" in r.stderr
    r = subprocess.run(
        sweep_args(store_path, tmp_path / "o", "--set", "NOPE"), capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 1 and r.stderr.startswith("craftrdf: error:")
    assert not (tmp_path / "o").exists()  # refused input leaves no output folder behind


@pytest.mark.slow
def test_sigkill_mid_sweep_then_resume_equals_an_uninterrupted_run(store_path, tmp_path):
    grid = tmp_path / "GRID.toml"
    grid.write_text(GRID)  # 48 configurations in 16 dictionaries
    whole = tmp_path / "whole"
    r = subprocess.run(sweep_args(store_path, whole, "--grid", str(grid)), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    expected = fields(whole / "results.csv")
    assert len(expected) == 48

    out = tmp_path / "killed"
    proc = subprocess.Popen(
        sweep_args(store_path, out, "--grid", str(grid)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    results = out / "results.csv"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if results.exists() and results.read_bytes().count(b"\n") >= 4:  # header and one dictionary's rows
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    partial = read_results(results)  # parses: complete lines only
    assert 3 <= len(partial) < 48, "the sweep was not killed mid-way"
    assert {tuple(r.values()[:-1]) for r in partial.values()} <= expected

    r = subprocess.run(sweep_args(store_path, out, "--grid", str(grid)), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"{len(partial)} resumed" in r.stdout
    assert fields(results) == expected
    assert results.read_bytes().count(b"\n") == 49  # no row twice
