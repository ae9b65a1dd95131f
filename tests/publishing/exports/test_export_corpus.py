"""Exports on the full corpus: UBERON_EXT as BioNLP, counted against the raw Knowtator files."""

from __future__ import annotations

import re

import pytest

from craftrdf.publishing.exports.sets import export_set
from craftrdf.store.local import AnnotationStore


@pytest.mark.corpus
def test_uberon_ext_bionlp_has_each_documents_knowtator_annotations(corpus_store, craft_dir, tmp_path):
    with AnnotationStore.open(corpus_store, mode="read") as store:
        r = export_set(store, "UBERON_EXT", tmp_path, format="bionlp")
    folder = craft_dir / "concept-annotation" / "UBERON" / "UBERON+extensions" / "knowtator"
    expected = {
        p.name.split(".")[0]: len(re.findall(r"<annotation>", p.read_text(encoding="utf-8")))
        for p in folder.glob("*.knowtator.xml")
    }
    assert len(expected) == 97
    lines = {p.stem: p.read_text(encoding="utf-8").splitlines() for p in tmp_path.glob("*.bionlp")}
    # a file for each of the 97 documents, as the corpus has: empty where the set has no annotation
    assert set(lines) == set(expected) and any(n == 0 for n in expected.values())
    assert {d: len(lines[d]) for d in expected} == expected
    assert all(re.fullmatch(r"T\d+\t\S+ \d+ \d+(;\d+ \d+)*\t[^\t]*", line) for ls in lines.values() for line in ls)
    assert (r.documents, r.annotations, r.skipped) == (len(lines), sum(expected.values()), 0)
