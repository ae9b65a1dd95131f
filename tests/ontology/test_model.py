"""The ontology read model: from the raw OBO fixture (expected values read off the file by hand),
the same model read back from a store, and on the corpus against a plain scan of the raw OBO files."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from craftrdf.building.loader import load_files
from craftrdf.core.classexpr import And, Or, Restriction
from craftrdf.core.errors import ConfigError
from craftrdf.core.model import Synonym
from craftrdf.ontology.cache import SimilarityCache
from craftrdf.ontology.model import read_obo_model, relation_iri
from craftrdf.ontology.store_model import read_store_model
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import CRAFT_OBO_FILES, DATA

VALID = DATA / "obo" / "valid.obo"
SUB = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
PART_OF = "http://purl.obolibrary.org/obo/BFO_0000050"
HAS_PART = "http://purl.obolibrary.org/obo/BFO_0000051"
# valid.obo's header says "ontology: fix": a relation it names itself gets that ontology's space
CONNECTED = "http://purl.obolibrary.org/obo/fix#connected_to"
FIX_CLASSES = {
    "FIX:0000001",
    "FIX:0000002",
    "FIX:0000003",
    "FIX:0000004",
    "FIX:0000009",
    "FIX_EXT:organ_or_tissue",
    "FIX_EXT:double_quoted",
    "FIX_EXT:inner_quote",
}
# the is_a and relationship lines of FIX:0000002, the only stanza with any
FIX_EDGES = {
    ("FIX:0000002", SUB, "FIX:0000001"),
    ("FIX:0000002", SUB, "FIX:0000003"),
    ("FIX:0000002", PART_OF, "FIX:0000003"),
    ("FIX:0000002", HAS_PART, "FIX:0000004"),
    ("FIX:0000002", CONNECTED, "FIX:0000003"),
}


def test_classes_labels_edges_from_the_raw_file():
    m = read_obo_model(VALID)
    assert m.classes == FIX_CLASSES
    assert m.edges == FIX_EDGES
    assert m.labels["FIX:0000002"] == "organ"  # the "! trailing comment" dropped
    assert m.labels["FIX_EXT:inner_quote"] == "unescaped inner quote"
    assert m.deprecated == {"FIX:0000009"}
    assert m.parallel == {}
    # extension classes' def: text is their logical definition, repaired quoting as ingest reads it
    assert m.logical_definitions["FIX_EXT:organ_or_tissue"] == "FIX:'organ' or FIX:'tissue's part'"
    assert m.logical_definitions["FIX_EXT:double_quoted"] == "A definition wrapped twice."
    assert "FIX:0000002" not in m.logical_definitions
    assert m.definitions["FIX:0000002"] == "An organ."
    # a namespace: tag, else the header's default-namespace
    assert m.namespaces["FIX:0000001"] == "fixture_anatomy"
    assert m.namespaces["FIX:0000002"] == "fixture_space"


def test_told_axioms_in_the_one_tree():
    m = read_obo_model(VALID)
    obo = "http://purl.obolibrary.org/obo/"
    assert set(m.subclass_of["FIX:0000002"]) == {
        obo + "FIX_0000001",
        obo + "FIX_0000003",
        Restriction((PART_OF,), "some", obo + "FIX_0000003"),
        Restriction((HAS_PART,), "some", obo + "FIX_0000004"),
        Restriction((CONNECTED,), "some", obo + "FIX_0000003"),
    }
    assert "FIX:0000001" not in m.subclass_of and m.equivalents == {}
    ax = read_obo_model(DATA / "obo" / "axioms.obo")
    manus, pes, forelimb, segment = (obo + f"AX_00000{n}" for n in ("03", "04", "10", "02"))
    # intersection_of lines are one And, union_of lines one Or, equivalent_to an IRI (axioms.obo by hand)
    assert ax.equivalents["AX:0000003"] == (And((segment, Restriction((PART_OF,), "some", forelimb))),)
    assert ax.equivalents["AX:0000005"] == (Or((manus, pes)),)
    assert ax.equivalents["AX:0000006"] == (manus,)
    # an extension class's definition stays text (the OBO file has no OWL for it)
    assert "AX_EXT:paw" not in ax.equivalents and ax.logical_definitions["AX_EXT:paw"].startswith("(AX:manus")


def test_synonyms_keep_scope_type_and_file_order():
    m = read_obo_model(VALID)
    assert m.synonyms["FIX:0000001"] == (
        Synonym("exact thing", "EXACT"),
        Synonym("broad thing", "BROAD", "LATIN"),
        Synonym("narrow thing", "NARROW"),
        Synonym("related thing", "RELATED"),
        Synonym("old style exact", "EXACT"),
    )
    assert m.synonyms["FIX:0000004"] == (Synonym("tissue-like", "RELATED"),)


def test_class_record_parents_by_relation_and_walks():
    m = read_obo_model(VALID)
    organ = m.get("FIX:0000002")
    assert organ is not None
    assert organ.iri == "http://purl.obolibrary.org/obo/FIX_0000002"
    assert organ.label == "organ" and organ.definition == "An organ." and not organ.deprecated
    assert organ.parents == ("FIX:0000001", "FIX:0000003")
    assert set(organ.relations) == {(rel, p) for _, rel, p in FIX_EDGES}
    assert m.get("FIX:0000404") is None and "FIX:0000404" not in m
    assert m.parents("FIX:0000002", ["part_of"]) == ("FIX:0000003",)
    assert m.parents("FIX:0000002", ["BFO:0000051", CONNECTED]) == ("FIX:0000003", "FIX:0000004")
    assert m.children("FIX:0000003") == ("FIX:0000002",)
    assert m.children("FIX:0000004", ["has_part"]) == ("FIX:0000002",)
    assert m.ancestors("FIX:0000002") == {"FIX:0000001", "FIX:0000003"}
    assert m.ancestors("FIX:0000001") == frozenset()
    assert m.descendants("FIX:0000004", ["is_a", "has_part"]) == {"FIX:0000002"}
    with pytest.raises(ConfigError, match="unknown relation 'touches'"):
        m.parents("FIX:0000002", ["touches"])


def test_names_and_find_are_the_search_hook():
    m = read_obo_model(VALID)
    names = list(m.names())
    assert ("FIX:0000001", "anatomical thing", "LABEL") in names
    assert ("FIX:0000001", "broad thing", "BROAD") in names
    assert len(names) == 8 + 6  # eight labels, six synonyms
    assert m.find("ORGAN") == ("FIX:0000002",)
    assert m.find("Tissue-Like") == ("FIX:0000004",)
    assert m.find("tissue-like", scopes=["LABEL", "EXACT"]) == ()
    assert m.find("no such name") == ()


def test_relation_iri_names():
    assert relation_iri("is_a") == SUB
    assert relation_iri("part_of") == PART_OF
    assert relation_iri("RO:0002202") == "http://purl.obolibrary.org/obo/RO_0002202"


def test_the_store_reads_the_same_model_as_the_file():
    store = AnnotationStore.memory()
    load_files(store, [VALID])
    from_store = read_store_model(store, "valid", cache=None)
    from_file = read_obo_model(VALID)
    assert from_store.classes == from_file.classes
    assert from_store.edges == from_file.edges
    assert from_store.labels == from_file.labels
    assert from_store.deprecated == from_file.deprecated
    assert from_store.logical_definitions == from_file.logical_definitions
    assert from_store.definitions == from_file.definitions
    assert from_store.namespaces == from_file.namespaces
    # the store keeps neither synonym types nor order
    for curie, synonyms in from_file.synonyms.items():
        assert set(from_store.synonyms[curie]) == {Synonym(s.text, s.scope) for s in synonyms}
    assert from_store.get("FIX:0000002") == from_file.get("FIX:0000002")
    # the told axioms: from OBO tags, and read back from the OWL ingest wrote (in no order); the store
    # also has an extension class's definition as OWL, with a placeholder for a name it could not resolve
    assert {c: set(es) for c, es in from_store.subclass_of.items()} == {
        c: set(es) for c, es in from_file.subclass_of.items()
    }
    assert from_file.equivalents == {}
    assert from_store.equivalents == {
        "FIX_EXT:organ_or_tissue": (
            Or(("http://purl.obolibrary.org/obo/FIX_0000002", "https://w3id.org/craftrdf/ref/FIX/tissue%27s%20part")),
        )
    }


def test_the_store_model_is_cached_until_the_store_changes():
    store = AnnotationStore.memory()
    load_files(store, [VALID])
    cache = SimilarityCache()
    first = read_store_model(store, "valid", cache=cache)
    assert read_store_model(store, "valid", cache=cache) is first
    load_files(store, [DATA / "obo" / "union_order.obo"])
    assert read_store_model(store, "valid", cache=cache) is not first
    with pytest.raises(ConfigError, match="no ontology graph 'nothing'"):
        read_store_model(store, "nothing", cache=cache)


# -- the corpus: the model against a plain scan of the raw files ------------------------------------

_STANZA = re.compile(r"^\[(\w+)\]\s*$")


def _scan(path: Path) -> tuple[set[str], set[tuple[str, str]]]:
    """``[Term]`` ids and ``(id, is_a target)`` pairs by plain line matching (no OBO reader)."""
    with zipfile.ZipFile(path) as z:
        text = io.TextIOWrapper(z.open(z.namelist()[0]), encoding="utf-8", errors="replace")
        ids: set[str] = set()
        is_a: set[tuple[str, str]] = set()
        kind, current = "", ""
        for line in text:
            m = _STANZA.match(line)
            if m:
                kind, current = m.group(1), ""
            elif kind == "Term" and line.startswith("id:"):
                current = line[3:].split("!")[0].strip()
                ids.add(current)
            elif kind == "Term" and line.startswith("is_a:") and current:
                is_a.add((current, line[5:].split("!")[0].split("{")[0].strip()))
    return ids, is_a


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["MOP+extensions", "CL+extensions", "SO+extensions"])
def test_corpus_files_against_a_raw_scan(craft_dir: Path, name: str):
    rel = next(f for f in CRAFT_OBO_FILES if f"/{name}/" in f)
    ids, is_a = _scan(craft_dir / "concept-annotation" / rel)
    m = read_obo_model(craft_dir / "concept-annotation" / rel)
    assert m.classes == ids
    assert {(c, p) for c, r, p in m.edges if r == SUB} >= is_a
    assert len(m.classes) > 1000


@pytest.mark.corpus
def test_corpus_store_model_equals_the_file_model(craft_dir: Path, corpus_reader: AnnotationStore):
    rel = next(f for f in CRAFT_OBO_FILES if "/MOP+extensions/" in f)
    from_file = read_obo_model(craft_dir / "concept-annotation" / rel)
    from_store = read_store_model(corpus_reader, "MOP+extensions")
    assert from_store.classes == from_file.classes
    assert from_store.edges >= from_file.edges  # the store adds inferred edges after `craftrdf classify`
    assert from_store.labels == from_file.labels
    assert from_store.definitions == from_file.definitions
