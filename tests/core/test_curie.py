"""CURIE <-> IRI for OBO ids and CRAFT's extension prefixes, checked on every id the corpus uses.

The contract under test: expand and compress are pure functions of their argument, so one map shared by
a whole run answers as a fresh map would. The oracles below are written from the OBO-to-OWL convention
and the OBO prefix rule with string methods, not with the module's regular expressions.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from craftrdf.apps.demo import sample_dir
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


def _expand_oracle(curie: str) -> str:
    """OBO-to-OWL: ``P:L`` -> ``obo:P_L``."""
    prefix, _, local = curie.partition(":")
    return f"{OBO}{prefix}_{local}"


def _word(text: str, *, underscore: bool) -> bool:
    """A letter, then ASCII letters and digits (and ``_`` when ``underscore``)."""
    rest = all(c.isascii() and (c.isalnum() or (underscore and c == "_")) for c in text)
    return bool(text) and text[0].isascii() and text[0].isalpha() and rest


def _compress_oracle(iri: str) -> str:
    """The OBO rule: prefix up to the first ``_EXT`` followed by ``_`` (extension classes), else up to the
    first ``_``; a non-empty local id; anything else unchanged."""
    if not iri.startswith(OBO):
        return iri
    name = iri[len(OBO) :]
    i = name.find("_EXT_")
    while i != -1:
        if _word(name[:i], underscore=True) and name[i + 5 :]:
            return f"{name[: i + 4]}:{name[i + 5 :]}"
        i = name.find("_EXT_", i + 1)
    head, sep, rest = name.partition("_")
    return f"{head}:{rest}" if sep and rest and _word(head, underscore=False) else iri


# prefixes that trip a longest-prefix match: GO_REF, NCBI_Gene and BBD_reactionID are xref prefixes of the
# CRAFT ontology files; expanding one used to teach the map a prefix that the OBO rule does not give
_PREFIXES = st.sampled_from(
    ["GO", "GO_REF", "UBERON", "UBERON_EXT", "CL_GO_EXT", "NCBI_Gene", "BBD_reactionID", "SO_EXT", "GO_EXT", "EXT"]
)
_LOCAL = st.text(st.sampled_from("0123456789abcXYZ_-.EXT"), min_size=1, max_size=12)
_CURIES = st.builds(lambda p, loc: f"{p}:{loc}", _PREFIXES, _LOCAL)
_IRIS = st.one_of(
    st.builds(lambda c: _expand_oracle(c), _CURIES),
    st.builds(lambda t: OBO + t, st.text(st.sampled_from("AGOab01_:/.#EXT"), max_size=14)),
    st.just("http://example.org/GO_0000001"),
)
_CALLS = st.lists(st.one_of(st.tuples(st.just("expand"), _CURIES), st.tuples(st.just("compress"), _IRIS)), max_size=30)


@given(_CALLS)
def test_a_used_map_answers_as_a_fresh_map(calls):
    used = CurieMap()
    for op, value in calls:
        got = getattr(used, op)(value)
        assert got == getattr(CurieMap(), op)(value)
        assert got == (_expand_oracle(value) if op == "expand" else _compress_oracle(value))


def test_an_xref_prefix_expanded_first_does_not_change_compression():
    cm = CurieMap()
    assert cm.expand("GO_REF:0000001") == OBO + "GO_REF_0000001"
    # the OBO rule reads the prefix up to the first "_": what a fresh map says, whatever this one met before
    assert cm.compress(OBO + "GO_REF_0000001") == "GO:REF_0000001" == CurieMap().compress(OBO + "GO_REF_0000001")


@given(
    st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,9}", fullmatch=True),
    st.text(st.characters(codec="ascii", categories=["L", "N", "P"], exclude_characters=':<>"{}|^`\\'), min_size=1),
)
def test_obo_curies_round_trip(prefix, local):
    curie = f"{prefix}:{local}"
    if "_EXT_" in "_" + local:  # the rule would read an extension prefix out of the local id
        assert CurieMap().compress(CurieMap().expand(curie)) != curie
        return
    cm = CurieMap()
    assert cm.expand(curie) == _expand_oracle(curie)
    assert cm.compress(cm.expand(curie)) == curie


def _sample_curies() -> set[str]:
    """Every class id of the sample's annotations and every CURIE-shaped token of its ontology files."""
    root = sample_dir() / "concept-annotation"
    ids: set[str] = set()
    for f in root.glob("*/*/knowtator/*.xml"):
        ids.update(re.findall(r'mentionClass id="([^"]+)"', f.read_text(encoding="utf-8")))
    for z in root.glob("*/*/*.obo.zip"):
        with zipfile.ZipFile(z) as zf:
            text = "\n".join(zf.read(n).decode("utf-8") for n in zf.namelist())
        ids.update(re.findall(r"(?<![\w:/])([A-Za-z][A-Za-z0-9_]*:[A-Za-z0-9_]+)\b", text))
    return ids


def test_real_craft_curies_of_the_sample():
    ids = _sample_curies()
    annotated = {i for i in ids if i.partition(":")[0].endswith("_EXT")}
    assert len(annotated) > 100 and any(i.startswith("GO_REF:") for i in ids)  # the sample has both kinds
    used = CurieMap()
    iris = {cid: used.expand(cid) for cid in sorted(ids)}  # the shared map meets every prefix first
    for n, (cid, iri) in enumerate(iris.items()):
        assert iri == _expand_oracle(cid)
        assert used.compress(iri) == _compress_oracle(iri)
        if n % 10 == 0:  # a fresh map per id costs a converter each: every tenth id is enough
            assert used.compress(iri) == CurieMap().compress(iri)
        if cid.partition(":")[0] == _compress_oracle(iri).partition(":")[0]:
            assert used.compress(iri) == cid
    assert all(used.compress(iris[c]) == c for c in annotated)  # every annotation class id round-trips
