"""``craftrdf similarity``: one pair, --pairs, --matrix, --top-k, methods, weights, errors."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import pytest

from craftrdf.apps.cli import main
from craftrdf.building.loader import load_files
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA as TESTS_DATA

SIM_DATA = TESTS_DATA / "similarity"
FIG1 = f"{6.12 / 7.92:.6f}"  # the paper's Figure 1 example, worked out in test_wang.py


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("sim") / "store"
    with AnnotationStore.open(path) as store:
        load_files(store, [SIM_DATA / "wang2007_fig1.obo", SIM_DATA / "toy_extensions.obo"])
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["-q", "similarity", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_pair_prints_the_score(store_dir, capsys):
    assert run(capsys, "GO:0043229", "GO:0043231", "--store", store_dir) == (0, FIG1 + "\n", "")
    code, out, _ = run(
        capsys, "GO:0043229", "GO:0043231", "--store", store_dir, "--ontology", "wang2007_fig1", "--digits", "4"
    )
    assert (code, out) == (0, "0.7727\n")


def test_methods_and_weights(store_dir, capsys):
    _, out, _ = run(capsys, "GO:0043231", "GO:0043229", "--store", store_dir, "--method", "bossy")
    assert out == f"{3.419625 / 5.069625:.6f}\n"
    _, out, _ = run(capsys, "GO:0043231", "GO:0043229", "--store", store_dir, "--weights", "is_a=0.8")
    assert out == f"{4.392 / 6.192:.6f}\n"
    code, _, err = run(
        capsys, "GO:0043231", "GO:0043229", "--store", store_dir, "--method", "bossy", "--weights", "is_a=0.8"
    )
    assert code == 1 and "fixed weights" in err
    code, _, err = run(capsys, "GO:0043231", "GO:0043229", "--store", store_dir, "--weights", "is_a=2")
    assert code == 1 and "(0, 1]" in err


def test_pairs_file(store_dir, capsys, tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("term1\tterm2\n# a comment\nGO:0043229\tGO:0043231\n\nGO:0043231\tGO:0043231\n")
    code, out, _ = run(capsys, "--pairs", str(pairs), "--store", store_dir)
    assert code == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["term1", "term2", "similarity"],
        ["GO:0043229", "GO:0043231", FIG1],
        ["GO:0043231", "GO:0043231", "1.000000"],
    ]
    outfile = tmp_path / "out.csv"
    assert run(capsys, "--pairs", str(pairs), "--store", store_dir, "-o", str(outfile))[:2] == (0, "")
    assert outfile.read_text() == out


def test_unknown_terms_error_or_empty(store_dir, capsys, tmp_path):
    code, out, err = run(capsys, "GO:0043229", "GO:9999999", "--store", store_dir)
    assert code == 1 and out == "" and "unknown term 'GO:9999999'" in err and err.count("\n") == 1
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("GO:0043229,GO:9999999\nGO:0043229,GO:0043231\n")
    code, out, _ = run(capsys, "--pairs", str(pairs), "--store", store_dir, "--unknown", "nan")
    assert code == 0
    assert out.splitlines()[1:] == ["GO:0043229,GO:9999999,", f"GO:0043229,GO:0043231,{FIG1}"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("GO:0043229\tGO:0043231\nGO:0043229\n")
    code, _, err = run(capsys, "--pairs", str(bad), "--store", store_dir)
    assert code == 1 and "bad.tsv, line 2" in err


def test_matrix(store_dir, capsys, tmp_path):
    terms = tmp_path / "terms.txt"
    terms.write_text("GO:0043229\nGO:0043231\nGO:0043229\n")  # repeats are dropped
    code, out, _ = run(capsys, "--matrix", str(terms), "--store", store_dir)
    assert code == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["term", "GO:0043229", "GO:0043231"],
        ["GO:0043229", "1.000000", FIG1],
        ["GO:0043231", FIG1, "1.000000"],
    ]


def test_top_k(store_dir, capsys, tmp_path):
    code, out, _ = run(capsys, "--top-k", "2", "GO:0043231", "--store", store_dir, "--ontology", "wang2007_fig1")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0] == ["term", "label", "similarity"] and len(rows) == 3
    # GO:0043229 (0.7727) leads; next GO:0043227: common 43227 (.8 + 1), 43226 (.64 + .8),
    # 5575 (.512 + .64) = 4.392, SV 4.52 + 2.44 -> 4.392 / 6.96 = 0.631
    assert rows[1] == ["GO:0043229", "intracellular organelle", FIG1]
    assert rows[2] == ["GO:0043227", "membrane-bound organelle", f"{4.392 / 6.96:.6f}"]
    cands = tmp_path / "cands.txt"
    cands.write_text("GO:0005575\nGO:0005623\n")
    # cell: (.288 + 1) + (.512 + .8) = 2.6 over 4.52 + 1.8; cellular_component: (.512 + 1) / (4.52 + 1)
    _, out, _ = run(capsys, "--top-k", "5", "GO:0043231", "--store", store_dir, "--candidates", str(cands))
    assert list(csv.reader(io.StringIO(out)))[1:] == [
        ["GO:0005623", "cell", f"{2.6 / 6.32:.6f}"],
        ["GO:0005575", "cellular_component", f"{1.512 / 5.52:.6f}"],
    ]


def test_usage_errors(store_dir, capsys):
    for args in (
        ["GO:0043229"],
        ["--top-k", "2", "GO:0043229", "GO:0043231"],
        ["--candidates", "x", "A:1", "A:2"],
        ["--top-k", "0", "GO:0043229"],
        ["--extensions-report", "r.tsv", "A:1", "A:2"],
        ["--digits", "-1", "A:1", "A:2"],
        ["--pairs", "p.tsv", "A:1"],
    ):
        code, _, err = run(capsys, *args, "--store", store_dir)
        assert code == 1 and err.startswith("craftrdf: error:")


def test_classify_extensions_reports_what_it_could_not_place(store_dir, capsys, tmp_path):
    report = tmp_path / "report.tsv"
    code, out, err = run(
        capsys,
        "TOY_EXT:bone",
        "TOY:0000006",
        "--store",
        store_dir,
        "--ontology",
        "toy_extensions",
        "--classify-extensions",
        "--extensions-report",
        str(report),
    )
    assert code == 0 and out == f"{3.24 / 6.64:.6f}\n"  # worked out in test_similarity_graph.py
    assert "6 placed" in err and "1 unparsable" in err and "1 not a union" in err and "1 with unresolved" in err
    assert "TOY_EXT:broken" in err  # unparsable definitions are named
    rows = list(csv.reader(io.StringIO(report.read_text()), delimiter="\t"))
    assert rows[0] == ["class", "outcome", "detail", "definition"]
    assert {r[0]: r[1] for r in rows[1:]}["TOY_EXT:broken"] == "syntax"


def test_the_installed_command_runs(store_dir):
    r = subprocess.run(
        [sys.executable, "-m", "craftrdf", "similarity", "GO:0043229", "GO:0043231", "--store", store_dir],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == FIG1 + "\n"


@pytest.mark.parametrize(
    "mode",
    [
        ["GO:0043229", "GO:9999999"],
        ["--pairs", "PAIRS"],
        ["--matrix", "TERMS"],
        ["--top-k", "3", "GO:9999999"],
    ],
    ids=["pair", "pairs", "matrix", "top-k"],
)
def test_an_unknown_term_writes_nothing(store_dir, capsys, tmp_path, mode):
    """Every term is checked before the output is opened, and -o FILE is written whole or not at all."""
    pairs, terms = tmp_path / "pairs.csv", tmp_path / "terms.txt"
    pairs.write_text("GO:0043229,GO:0043231\nGO:0043229,GO:9999999\n")  # the bad one last
    terms.write_text("GO:0043229\nGO:0043231\nGO:9999999\n")
    args = [str(pairs) if a == "PAIRS" else str(terms) if a == "TERMS" else a for a in mode]
    kept, absent = tmp_path / "kept.csv", tmp_path / "absent.csv"
    kept.write_text("earlier results\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    for target in (kept, absent):
        code, out, err = run(capsys, *args, "--store", store_dir, "-o", str(target))
        assert (code, out) == (1, "")
        assert err.count("\n") == 1 and "unknown term 'GO:9999999'" in err
    assert kept.read_text() == "earlier results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no new file, no temporary left
    code, out, _ = run(capsys, *args, "--store", store_dir)  # stdout: not even the header
    assert (code, out) == (1, "")


def test_output_replaces_the_file_and_leaves_no_temporary(store_dir, capsys, tmp_path):
    target = tmp_path / "one.csv"
    target.write_text("old\n")
    assert run(capsys, "GO:0043229", "GO:0043231", "--store", store_dir, "-o", str(target))[:2] == (0, "")
    assert target.read_text() == FIG1 + "\n"
    assert [p.name for p in tmp_path.iterdir()] == ["one.csv"]


def test_an_unknown_ontology_lists_the_store_s_ontology_graphs(store_dir, capsys):
    # the store holds the two files of store_dir's fixture; a graph is named after its file
    code, out, err = run(capsys, "GO:0043229", "GO:0043231", "--store", store_dir, "--ontology", "wang2007")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.rstrip().endswith("ontology graphs: toy_extensions, wang2007_fig1"), err
    code, _, err = run(capsys, "GO:0043229", "GO:0043231", "--store", store_dir, "--ontology", "X", "--method", "bossy")
    assert code == 1 and "ontology graphs: toy_extensions, wang2007_fig1" in err
