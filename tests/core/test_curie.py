"""CURIE <-> IRI for OBO ids and CRAFT's extension prefixes, checked on every id the corpus uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from craftrdf.core.curie import CurieMap, is_extension_curie, parallel_base
from craftrdf.core.errors import InputError

OBO = "http://purl.obolibrary.org/obo/"


@pytest.mark.parametrize(
    ("curie", "iri"),
    [
        ("UBERON:0000955", OBO + "UBERON_0000955"),
        ("UBERON_EXT:bone_element_or_tissue", OBO + "UBERON_EXT_bone_element_or_tissue"),
        ("CL_GO_EXT:cell", OBO + "CL_GO_EXT_cell"),
        ("CHEBI_GO_SO_EXT:enzyme", OBO + "CHEBI_GO_SO_EXT_enzyme"),
        ("NCBITaxon:10090", OBO + "NCBITaxon_10090"),
        ("SO_EXT:0000704", OBO + "SO_EXT_0000704"),
    ],
)
def test_both_directions(curie, iri):
    cm = CurieMap()
    assert cm.expand(curie) == iri
    assert CurieMap().compress(iri) == curie  # a fresh map must split it right too


@pytest.mark.parametrize("bad", ["", "UBERON", "UBERON:", ":0000955", "UBERON 0000955", "UBER ON:1", "a:b c"])
def test_malformed_ids_are_input_errors(bad):
    with pytest.raises(InputError, match="malformed class id"):
        CurieMap().expand(bad, source="x.xml")


def test_non_obo_iris_pass_through():
    assert CurieMap().compress("http://example.org/neuron") == "http://example.org/neuron"
    assert CurieMap().expand("http://example.org/neuron") == "http://example.org/neuron"


def test_extension_and_parallel():
    assert is_extension_curie("GO_PATO_EXT:x") and not is_extension_curie("GO:0008150")
    assert parallel_base("PR_EXT:000005403") == "PR:000005403"
    assert parallel_base("CHEBI_EXT:22586") == "CHEBI:22586"
    assert parallel_base("GO_EXT:biological_movement") is None


@given(st.from_regex(r"[A-Z][A-Za-z]{1,8}(_[A-Z]{2,6}){0,2}_EXT:[a-z0-9][a-z0-9_]{0,20}", fullmatch=True))
def test_extension_curies_round_trip(curie):
    assert CurieMap().compress(CurieMap().expand(curie)) == curie


@pytest.mark.corpus
def test_every_class_id_in_the_corpus_round_trips(craft_dir: Path):
    ids: set[str] = set()
    for f in (craft_dir / "concept-annotation").glob("*/*/knowtator/*.xml"):
        ids.update(re.findall(r'mentionClass id="([^"]+)"', f.read_text(encoding="utf-8")))
    assert len(ids) > 5000
    expand, compress = CurieMap(), CurieMap()
    for cid in ids:
        assert compress.compress(expand.expand(cid)) == cid
