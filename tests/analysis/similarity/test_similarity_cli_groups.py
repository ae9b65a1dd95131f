"""``craftrdf similarity`` with IC measures and group modes (--documents, --groups, --document-matrix) on the sample."""

from __future__ import annotations

import csv
import io
import warnings

import pytest

from craftrdf import similarity_index
from craftrdf.analysis.similarity.corpus import document_classes, ic_index
from craftrdf.analysis.similarity.graph import IndexSpec
from craftrdf.analysis.similarity.groups import Scorer
from craftrdf.apps.cli import main
from craftrdf.store.local import AnnotationStore

ONTO = ("--ontology", "UBERON+extensions")
DOCS = ("11319941", "11597317", "17244351")  # the sample's three articles


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["-q", "similarity", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def expected(sample_store_dir):
    """Python's answers (whose measures the other tests check by hand and against GOSemSim), from the store."""
    with AnnotationStore.open(sample_store_dir, mode="read") as store:
        classes = document_classes(store, "UBERON_EXT")
        lin = Scorer(ic_index(store, IndexSpec(ontology="UBERON+extensions"), set_key="UBERON_EXT"), "lin")
        wang = Scorer(similarity_index(store, ontology="UBERON+extensions"))
        intrinsic = Scorer(ic_index(store, IndexSpec(ontology="UBERON+extensions"), ic="intrinsic"), "resnik")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {
                "lin_bma": lin.group(classes[DOCS[0]], classes[DOCS[2]]),
                "wang_avg": wang.group(classes[DOCS[0]], classes[DOCS[1]], combine="avg"),
                "wang_matrix": wang.group_matrix([classes[d] for d in DOCS]),
                "resnik_pair": intrinsic.similarity("UBERON:0000955", "UBERON:0002435"),
            }


def test_ic_measures_of_one_pair(sample_store_dir, capsys, expected):
    store = ("--store", str(sample_store_dir), *ONTO)
    code, out, _ = run(capsys, "UBERON:0000955", "UBERON:0002435", *store, "--measure", "resnik", "--ic", "intrinsic")
    assert (code, out) == (0, f"{expected['resnik_pair']:.6f}\n")
    code, out, _ = run(capsys, "UBERON:0000955", "UBERON:0000955", *store, "--measure", "lin", "--ic-set", "UBERON_EXT")
    assert (code, out) == (0, "1.000000\n")  # Lin of a class with itself
    code, _, err = run(capsys, "UBERON:0000955", "UBERON:0002435", *store, "--measure", "lin")
    assert code == 1 and err.count("\n") == 1 and "--ic-set" in err


def test_two_documents_and_gold_against_predicted(sample_store_dir, capsys, expected):
    store = ("--store", str(sample_store_dir), *ONTO)
    args = ("--documents", DOCS[0], DOCS[2], "--set", "UBERON_EXT", "--measure", "lin")
    assert run(capsys, *args, *store) == (0, f"{expected['lin_bma']:.6f}\n", "")
    args = ("--documents", DOCS[0], DOCS[1], "--set", "UBERON_EXT", "--combine", "avg")
    assert run(capsys, *args, *store)[:2] == (0, f"{expected['wang_avg']:.6f}\n")
    # a document against itself in the same set (gold against a prediction that equals it): 1
    args = ("--documents", DOCS[1], DOCS[1], "--set", "UBERON_EXT", "--set2", "UBERON_EXT")
    assert run(capsys, *args, *store)[:2] == (0, "1.000000\n")


def test_document_matrix(sample_store_dir, capsys, expected):
    code, out, _ = run(capsys, "--document-matrix", "--set", "UBERON_EXT", "--store", str(sample_store_dir), *ONTO)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["document", *DOCS] and [r[0] for r in rows[1:]] == list(DOCS)
    for i, row in enumerate(rows[1:]):
        assert row[1:] == [f"{v:.6f}" for v in expected["wang_matrix"][i]]


def test_groups_files(sample_store_dir, capsys, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("UBERON:0000955\nUBERON:0002435\n")
    b.write_text("UBERON:0002435\n")
    code, out, _ = run(capsys, "--groups", str(a), str(b), "--store", str(sample_store_dir), *ONTO)
    assert (code, out) == (0, "1.000000\n")  # one column: GOSemSim takes the vector's maximum, striatum vs itself


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--documents", "11319941", "nope", "--set", "UBERON_EXT"), "empty group"),
        (("--documents", "11319941", "17244351", "--set", "NOPE"), "UBERON_EXT"),  # lists the sets there are
        (("--document-matrix",), "need --set"),
        (("--groups", "a.txt", "unknown.txt"), "unknown term 'UBERON:9999999'"),
        (("--groups", "a.txt", "empty.txt"), "empty group"),
        (("--top-k", "3", "UBERON:0000955", "--measure", "lin"), "Wang similarity only"),
        (("UBERON:0000955", "UBERON:9999999", "--measure", "resnik", "--ic", "intrinsic"), "unknown term"),
    ],
)
def test_errors_are_one_line(sample_store_dir, capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("UBERON:0000955\n")
    (tmp_path / "unknown.txt").write_text("UBERON:0000955\nUBERON:9999999\n")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    code, out, err = run(capsys, *args, "--store", str(sample_store_dir), *ONTO)
    assert (code, out) == (1, "") and err.count("\n") == 1 and message in err, err
