"""``craftrdf term`` and TermLookup against the sample's UBERON+extensions OBO file, read here line by line."""

from __future__ import annotations

import json
import re

import pytest

from craftrdf.analysis.similarity.definition import UnknownTermError
from craftrdf.analysis.terms import TermLookup
from craftrdf.apps.cli import main
from tests.helpers.sample import obo_is_a_closure, obo_is_a_parents, read_obo

ONTOLOGY = "UBERON+extensions"


@pytest.fixture(scope="module")
def raw() -> dict[str, dict[str, list[str]]]:
    """Each [Term] stanza's tags (id -> tag -> values), straight from the file."""
    return read_obo("UBERON/UBERON+extensions")


@pytest.fixture(scope="module")
def lookup(sample_store) -> TermLookup:
    return TermLookup.of(sample_store, ontology=ONTOLOGY)


def test_info_is_the_files_stanza(lookup, raw):
    info = lookup.info("UBERON:0000955")
    tags = raw["UBERON:0000955"]
    assert info.label == tags["name"][0] == "brain"
    synonyms = {tuple(re.match(r'"(.*)" (\w+)', s).groups()) for s in tags.get("synonym", [])}  # type: ignore[union-attr]
    assert set(info.synonyms) == synonyms
    assert info.definition == re.match(r'"(.*)" \[', tags["def"][0]).group(1)  # type: ignore[union-attr]
    assert set(info.parents["is_a"]) == obo_is_a_parents(tags)
    relationships = {tuple(v.split(" !")[0].split()) for v in tags.get("relationship", [])}
    assert {(r, p) for r, ps in info.parents.items() if r != "is_a" for p in ps} == relationships
    with pytest.raises(UnknownTermError):
        lookup.info("UBERON:9999999")


def test_ancestors_and_descendants_are_the_closures(lookup, raw):
    for term in ("UBERON:0000955", "UBERON:0002435", "UBERON_EXT:bone_element_or_tissue"):
        assert set(lookup.ancestors(term)) == obo_is_a_closure(raw, term), term
    below = {t for t in raw if "UBERON:0000062" in obo_is_a_closure(raw, t)}  # organ
    assert set(lookup.descendants("UBERON:0000062")) == below and below
    assert set(lookup.ancestors("UBERON:0000955", ["is_a", "part_of"])) >= obo_is_a_closure(raw, "UBERON:0000955")


def test_search_by_label_and_synonym(lookup, raw):
    hits = lookup.search("Brain", limit=5)
    assert hits[0].id == "UBERON:0000955" and hits[0].scope == "LABEL"
    assert all("brain" in h.matched.lower() for h in hits)
    # a synonym that is no label: the file's first RELATED synonym of the brain
    assert lookup.search("encephalon")[0].id == "UBERON:0000955"
    assert lookup.search("no such anatomy at all") == []


def test_cli(sample_store_dir, capsys):
    store = ("--store", str(sample_store_dir), "--ontology", ONTOLOGY)
    assert main(["term", "info", "UBERON:0000955", *store, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] == "brain"
    assert main(["term", "ancestors", "UBERON:0000955", *store]) == 0
    assert "UBERON:0000062" in capsys.readouterr().out  # organ
    assert main(["term", "search", "brain", *store, "--limit", "1"]) == 0
    assert capsys.readouterr().out.split()[0] == "UBERON:0000955"
    assert main(["-q", "term", "info", "UBERON:9999999", *store]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "UBERON:9999999" in err
