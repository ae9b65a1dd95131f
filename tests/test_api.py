"""The notebook API on the bundled sample, with expected values from the sample's raw files."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import craftrdf
from craftrdf.apps.demo import sample_dir
from craftrdf.core.errors import QueryError
from tests.helpers.sample import raw_set


@pytest.fixture(scope="module")
def store():
    s = craftrdf.open()
    craftrdf.build(s, sample_dir())
    return s


def test_query_rows_as_python_values(store):
    rows = craftrdf.query(store, "annotation-counts", set="UBERON_EXT").records()
    raw = raw_set("UBERON/UBERON+extensions")
    assert sum(r["annotations"] for r in rows) == sum(len(v) for v in raw.values())
    assert all(isinstance(r["annotations"], int) for r in rows)
    with pytest.raises(QueryError, match="no query named"):
        craftrdf.query(store, "no-such-query")


def test_view_and_build_rerun(store):
    raw = raw_set("CL/CL+extensions")
    assert len(craftrdf.view(store, "CL_EXT")) == sum(len(v) for v in raw.values())
    again = craftrdf.build(store, sample_dir())
    assert again.loaded == {} and len(again.unchanged) > 22


def test_similarity_matrix_is_symmetric_with_ones_on_the_diagonal(store):
    terms = ["UBERON:0000955", "UBERON:0001017", "UBERON:0002435"]
    m = craftrdf.similarity_index(store).matrix(terms)
    assert m.shape == (3, 3)
    assert all(m[i, i] == pytest.approx(1.0) for i in range(3))
    assert (m == m.T).all()


def test_similarity_index_keeps_the_keywords_users_call_it_with():
    # issue 25 moved the options inside the library into an IndexSpec; the public call is as docs/guide.md shows
    params = inspect.signature(craftrdf.similarity_index).parameters
    assert list(params) == [
        "store",
        "method",
        "weights",
        "ontology",
        "classify_extensions",
        "curies",
        "cache",
        "engine",
        "placements",
        "cache_dir",
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in list(params.values())[1:])
    assert (params["method"].default, params["engine"].default, params["cache_dir"].default) == ("wang", "auto", None)


def test_annotate_finds_a_label_of_the_ontology(store):
    # "brain" is the rdfs:label of UBERON:0000955 in the sample's UBERON excerpt
    out = craftrdf.annotate(store, "UBERON_EXT", {"d": "the brain"})
    assert [(a.class_id, a.spans[0].start, a.spans[0].end) for a in out["d"]] == [("UBERON:0000955", 4, 9)]


def test_evaluate_gold_against_itself_is_perfect(store):
    (report,) = craftrdf.evaluate(store, "UBERON_EXT", "UBERON_EXT")
    assert report.total.ser == 0.0 and report.total.f1 == 1.0


def test_export_writes_a_file_per_annotated_document(store, tmp_path: Path):
    r = craftrdf.export(store, "UBERON_EXT", tmp_path / "out", format="bionlp")
    assert r.annotations == sum(len(v) for v in raw_set("UBERON/UBERON+extensions").values())
