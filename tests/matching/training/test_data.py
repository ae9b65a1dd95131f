"""The training's corpora read from the store, against the sample's split files and Knowtator files."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from craftrdf.apps.demo import sample_dir
from craftrdf.matching.training import data as data_module
from craftrdf.matching.training.data import read_corpora
from craftrdf.querying.webanno import fetch_annotations


def _ids(split: str) -> list[str]:
    return sorted((sample_dir() / "articles" / "ids" / f"craft-ids-{split}.txt").read_text().split())


def _spanned(pmids: list[str]) -> int:
    """Annotations with at least one span in CL's Knowtator files of ``pmids``."""
    folder = sample_dir() / "concept-annotation" / "CL" / "CL" / "knowtator"
    return sum(
        1
        for p in pmids
        for a in ET.parse(folder / f"{p}.txt.knowtator.xml").getroot().iter("annotation")
        if a.findall("span")
    )


def test_corpora_from_annotations_read_beforehand_are_the_corpora_read(sample_store, monkeypatch):
    groups = [_ids("train") + _ids("dev"), _ids("test")]
    read = read_corpora(sample_store, "CL", groups)
    annotations = fetch_annotations(sample_store, "CL")

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the set was read again")

    monkeypatch.setattr(data_module, "fetch_annotations", no_read)
    given = read_corpora(sample_store, "CL", groups, annotations=annotations)
    assert [dict(c.gold) for c in given] == [dict(c.gold) for c in read]
    assert [dict(c.texts) for c in given] == [dict(c.texts) for c in read]
    assert [c.annotations for c in given] == [_spanned(g) for g in groups]
