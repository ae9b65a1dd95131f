"""export_set's options and errors, and the ``craftrdf export`` command."""

from __future__ import annotations

import json
import warnings

import pytest

from craftrdf.building.loader import load_files
from craftrdf.core.errors import ConfigError, DataWarning
from craftrdf.publishing.exports._base import ExportFormat
from craftrdf.publishing.exports.sets import export_set
from craftrdf.store.local import AnnotationStore
from tests.helpers.cli import craftrdf
from tests.helpers.corpus import DATA
from tests.helpers.sample import article_text, raw_set


def test_unknown_format_and_document_are_config_errors(sample_store, tmp_path):
    with pytest.raises(ConfigError, match="unknown export format 'xml'"):
        export_set(sample_store, "UBERON_EXT", tmp_path / "x", format="xml")
    with pytest.raises(ConfigError, match="document '999'"):
        export_set(sample_store, "UBERON_EXT", tmp_path / "x", format="bionlp", document="999")
    with pytest.raises(ConfigError, match="does not exist"):
        export_set(sample_store, "UBERON_EXT", tmp_path / "absent" / "x.ttl", format="turtle")
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="not a folder"):
        export_set(sample_store, "UBERON_EXT", tmp_path / "file", format="bionlp")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing half-written left behind


def test_a_document_without_annotations_in_the_set_gives_empty_files(sample_store, tmp_path):
    # MOP+extensions has no annotation in 17244351 (its Knowtator file holds none)
    assert raw_set("MOP/MOP+extensions")["17244351"] == []
    r = export_set(sample_store, "MOP_EXT", tmp_path / "b", format="bionlp", document="17244351")
    assert (r.documents, r.annotations, r.files) == (1, 0, 1)
    assert (tmp_path / "b" / "17244351.bionlp").read_text() == ""
    export_set(sample_store, "MOP_EXT", tmp_path / "p", format="pubannotation", document="17244351")
    doc = json.loads((tmp_path / "p" / "17244351.json").read_text(encoding="utf-8"))
    assert doc["denotations"] == [] and doc["text"] == article_text("17244351") and "relations" not in doc


@pytest.mark.parametrize(
    ("key", "folder", "fmt", "suffix"),
    [
        ("MOP_EXT", "MOP/MOP+extensions", "bionlp", ".bionlp"),  # no annotation in 17244351
        ("GO_MF", "GO_MF/GO_MF", "pubannotation", ".json"),  # none in 11319941
    ],
)
def test_a_whole_set_gives_a_file_for_every_document_as_the_corpus_does(
    sample_store, tmp_path, key, folder, fmt, suffix
):
    raw = raw_set(folder)  # the sample's Knowtator files: one per document, empty or not
    assert len(raw) == 3 and any(not anns for anns in raw.values())
    r = export_set(sample_store, key, tmp_path, format=fmt)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(d + suffix for d in raw)
    assert (r.documents, r.files, r.annotations) == (3, 3, sum(len(a) for a in raw.values()))
    for pmid, anns in raw.items():
        text = (tmp_path / (pmid + suffix)).read_text(encoding="utf-8")
        if fmt == "bionlp":
            assert len(text.splitlines()) == len(anns), pmid
        else:
            doc = json.loads(text)
            assert doc["text"] == article_text(pmid)
            assert len(doc["denotations"]) == sum(len(a.spans) for a in anns), pmid


def test_a_set_outside_the_documents_graph_gets_the_files_of_its_own_documents(tmp_path):
    (tmp_path / "d1.bionlp").write_text("T1\tCL:0000540 0 6\tneuron\n")
    store = AnnotationStore.memory()
    load_files(store, [tmp_path / "d1.bionlp"], set_key="MINE")  # no documents graph in this store
    export_set(store, "MINE", tmp_path / "out", format="bionlp")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["d1.bionlp"]


def test_only_the_asked_document_is_written(sample_store, tmp_path):
    r = export_set(sample_store, "UBERON_EXT", tmp_path, format="pubannotation", document="11319941")
    assert [p.name for p in tmp_path.iterdir()] == ["11319941.json"]
    assert r.annotations == len(raw_set("UBERON/UBERON+extensions")["11319941"])


def test_annotations_without_spans_are_left_out_with_a_warning(tmp_path):
    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load_files(store, [DATA / "knowtator" / "spanless.knowtator.xml"], set_key="SPANLESS")
    for fmt in ("bionlp", "pubannotation"):
        with pytest.warns(DataWarning, match=r"left out 1 annotation\(s\) without spans \(S_2\)"):
            r = export_set(store, "SPANLESS", tmp_path / fmt, format=fmt)
        assert (r.annotations, r.skipped) == (1, 1)
    # no document text in this store: the covered text comes from the Knowtator file
    assert (tmp_path / "bionlp" / "valid.bionlp").read_text() == "T1\tCL:0000540 59 66\tneurons\n"
    doc = json.loads((tmp_path / "pubannotation" / "valid.json").read_text())
    assert "text" not in doc and doc["denotations"] == [
        {"id": "T1", "span": {"begin": 59, "end": 66}, "obj": "CL:0000540"}
    ]
    # JSON-LD keeps it: a target with a source and no selector
    r = export_set(store, "SPANLESS", tmp_path / "s.jsonld", format="jsonld")
    items = json.loads((tmp_path / "s.jsonld").read_text())["first"]["items"]
    assert r.annotations == 2 and r.skipped == 0
    assert [i["target"] for i in items if i["id"].endswith("/S_2")] == [
        {"source": "https://w3id.org/craftrdf/doc/valid"}
    ]


def test_formats_have_cli_names():
    from craftrdf.apps.cli.export import _FORMATS

    assert [f.value for f in ExportFormat] == ["turtle", "trig", "nquads", "jsonld", "pubannotation", "bionlp"]
    assert set(_FORMATS) == {f.value for f in ExportFormat}
    assert [f.value for f in ExportFormat if f.per_document] == ["pubannotation", "bionlp"]


def test_cli_export(tmp_path):
    from craftrdf.apps.demo import sample_dir

    store = str(tmp_path / "s")
    r = craftrdf("build", "--craft", str(sample_dir()), "--store", store, "--sets", "UBERON_EXT,MOP_EXT")
    assert r.returncode == 0, r.stderr
    # a Shared-Task-style directory: a file for each of the sample's 3 documents, as the corpus has one
    # Knowtator file for each; MOP_EXT has no annotation in 17244351, so its file is empty
    raw = raw_set("MOP/MOP+extensions")
    r = craftrdf("export", "--store", store, "--set", "MOP_EXT", "--format", "bionlp", "--out", str(tmp_path / "m"))
    assert r.returncode == 0, r.stderr
    written = {p.stem: p.read_text(encoding="utf-8").splitlines() for p in (tmp_path / "m").iterdir()}
    assert {d: len(lines) for d, lines in written.items()} == {d: len(a) for d, a in raw.items()}
    assert written["17244351"] == [] and len(written) == 3
    out = tmp_path / "bionlp"
    r = craftrdf(
        "export",
        "--store",
        store,
        "--set",
        "uberon_ext",
        "--format",
        "bionlp",
        "--out",
        str(out),
        "--document",
        "11319941",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("exported UBERON_EXT as bionlp: ") and "1 file(s)" in r.stdout
    assert [p.name for p in out.iterdir()] == ["11319941.bionlp"]
    r = craftrdf(
        "export", "--store", store, "--set", "UBERON_EXT", "--format", "trig", "--out", str(tmp_path / "u.trig")
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "u.trig").stat().st_size > 0 and "quads" in r.stdout
    r = craftrdf("export", "--store", store, "--set", "NOPE", "--format", "jsonld", "--out", str(tmp_path / "x"))
    assert r.returncode == 1 and r.stderr.strip().count("\n") == 0 and "no annotation set 'NOPE'" in r.stderr
