"""Tests of the OBO -> N-Quads mapping, checked through SPARQL on a pyoxigraph store.

Expected values are written by hand from the fixture text or read from the raw text of
the real files in the test; none is copied from the mapper's output.
"""

from __future__ import annotations

import re
import warnings
import zipfile
from pathlib import Path

import pytest
from pyoxigraph import RdfFormat, Store

from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import ConfigError, DataWarning
from craftrdf.core.model import Term
from craftrdf.core.vocab import prefixes
from craftrdf.ingest.obo import OboHeader, iter_obo
from craftrdf.ingest.ontology import RELATION_IRIS, ontology_nquads, relation_iri

VALID = Path(__file__).resolve().parent.parent / "data" / "obo" / "valid.obo"
GRAPH = "https://w3id.org/craftrdf/graph/fixture"
RELS = "https://w3id.org/craftrdf/relations/fixture"
OBO = "http://purl.obolibrary.org/obo/"
PREFIXES = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in prefixes().items())


def load(lines: list[str]) -> Store:
    store = Store()
    store.load(input=("\n".join(lines) + "\n").encode(), format=RdfFormat.N_QUADS)
    return store


def select(store: Store, query: str) -> set[tuple[str, ...]]:
    """The rows of a SELECT over the union of all graphs, as tuples of term values."""
    rows = store.query(PREFIXES + query, use_default_graph_as_union=True)
    return {tuple(term.value for term in row) for row in rows}  # type: ignore[union-attr]


def ask(store: Store, query: str) -> bool:
    return bool(store.query(PREFIXES + query, use_default_graph_as_union=True))


@pytest.fixture(scope="module")
def fixture_store() -> Store:
    lines = list(ontology_nquads(iter_obo(VALID), graph=GRAPH, curies=CurieMap(), source=str(VALID), relations=RELS))
    return load(lines)


# --------------------------------------------------------------------------- the fixture


def test_everything_is_in_the_named_graph(fixture_store: Store) -> None:
    assert {q.graph_name.value for q in fixture_store} == {GRAPH, RELS}  # type: ignore[union-attr]


def test_ontology_header(fixture_store: Store) -> None:
    assert ask(fixture_store, f'ASK {{ <{GRAPH}> a owl:Ontology ; owl:versionInfo "fixture/2024-01-01" }}')


def test_classes_labels_ids(fixture_store: Store) -> None:
    rows = select(fixture_store, "SELECT ?c ?id ?label { ?c a owl:Class ; oboInOwl:id ?id ; rdfs:label ?label }")
    assert len(rows) == 8
    assert (OBO + "FIX_0000001", "FIX:0000001", "anatomical thing") in rows
    assert (OBO + "FIX_EXT_organ_or_tissue", "FIX_EXT:organ_or_tissue", "organ or tissue") in rows


def test_definition_comment_namespace(fixture_store: Store) -> None:
    rows = select(
        fixture_store,
        "SELECT ?d ?c ?ns { obo:FIX_0000001 obo:IAO_0000115 ?d ; rdfs:comment ?c ; oboInOwl:hasOBONamespace ?ns }",
    )
    assert rows == {
        (
            'Any part of an organism! Not a comment, "quoted" and a \\ backslash {not a modifier}.',
            "First line.\nSecond line.",
            "fixture_anatomy",
        )
    }
    # no namespace: tag, so the header's default-namespace
    assert select(fixture_store, "SELECT ?ns { obo:FIX_0000002 oboInOwl:hasOBONamespace ?ns }") == {("fixture_space",)}


def test_synonyms_by_scope(fixture_store: Store) -> None:
    rows = select(
        fixture_store,
        """SELECT ?scope ?text { obo:FIX_0000001 ?p ?text
             VALUES (?p ?scope) { (oboInOwl:hasExactSynonym "EXACT") (oboInOwl:hasBroadSynonym "BROAD")
                                  (oboInOwl:hasNarrowSynonym "NARROW") (oboInOwl:hasRelatedSynonym "RELATED") } }""",
    )
    assert rows == {
        ("EXACT", "exact thing"),
        ("EXACT", "old style exact"),
        ("BROAD", "broad thing"),
        ("NARROW", "narrow thing"),
        ("RELATED", "related thing"),
    }


def test_xref_alt_id_subset_literals(fixture_store: Store) -> None:
    assert select(fixture_store, "SELECT ?x { obo:FIX_0000001 oboInOwl:hasDbXref ?x }") == {
        ("http:http://en.wikipedia.org/wiki/Thing",),
        ("UMLS:C0000001",),
        ("PMID:12345",),
    }
    assert ask(
        fixture_store, 'ASK { obo:FIX_0000001 oboInOwl:hasAlternativeId "FIX:0000101" ; oboInOwl:inSubset "core_slim" }'
    )


def test_subclass_and_relationships(fixture_store: Store) -> None:
    # is_a stays a named rdfs:subClassOf in the OWL graph; relationship: becomes an
    # existential restriction there (OBO 1.4 -> OWL mapping) and a direct triple in the
    # relations graph
    assert select(
        fixture_store, f"SELECT ?p {{ GRAPH <{GRAPH}> {{ obo:FIX_0000002 rdfs:subClassOf ?p FILTER isIRI(?p) }} }}"
    ) == {
        (OBO + "FIX_0000001",),
        (OBO + "FIX_0000003",),
    }
    expected = {
        (OBO + "BFO_0000050", OBO + "FIX_0000003"),  # part_of
        (OBO + "BFO_0000051", OBO + "FIX_0000004"),  # BFO:0000051
        (OBO + "fix#connected_to", OBO + "FIX_0000003"),  # a name not in the table: ontology 'fix'
    }
    restrictions = (
        f"SELECT ?r ?o {{ GRAPH <{GRAPH}> {{ obo:FIX_0000002 rdfs:subClassOf [ a owl:Restriction ; "
        "owl:onProperty ?r ; owl:someValuesFrom ?o ] } }"
    )
    assert select(fixture_store, restrictions) == expected
    direct = f"SELECT ?r ?o {{ GRAPH <{RELS}> {{ obo:FIX_0000002 ?r ?o FILTER(?r != rdfs:subClassOf) }} }}"
    assert select(fixture_store, direct) == expected
    assert not ask(fixture_store, f"ASK {{ GRAPH <{GRAPH}> {{ obo:FIX_0000002 obo:BFO_0000050 ?o }} }}")
    assert ask(
        fixture_store,
        f"ASK {{ GRAPH <{RELS}> {{ obo:FIX_0000002 (rdfs:subClassOf|obo:BFO_0000050)+ obo:FIX_0000003 }} }}",
    )


def test_obsolete_class(fixture_store: Store) -> None:
    assert ask(fixture_store, "ASK { obo:FIX_0000009 owl:deprecated true ; obo:IAO_0100001 obo:FIX_0000002 }")
    assert select(fixture_store, "SELECT ?c { obo:FIX_0000009 oboInOwl:consider ?c }") == {
        (OBO + "FIX_0000003",),
        (OBO + "FIX_0000004",),
    }
    assert select(fixture_store, "SELECT ?c { ?c owl:deprecated ?v }") == {(OBO + "FIX_0000009",)}


def test_extension_classes(fixture_store: Store) -> None:
    rows = select(
        fixture_store, "SELECT ?c ?def { ?c a craft:ExtensionClass . OPTIONAL { ?c craft:logicalDefinition ?def } }"
    )
    assert rows == {
        (OBO + "FIX_EXT_organ_or_tissue", "FIX:'organ' or FIX:'tissue's part'"),
        (OBO + "FIX_EXT_double_quoted", "A definition wrapped twice."),
        (OBO + "FIX_EXT_inner_quote", "FIX:'organ\" or FIX:tissue"),
    }


def test_typedefs_as_object_properties(fixture_store: Store) -> None:
    assert select(fixture_store, "SELECT ?p ?label { ?p a owl:ObjectProperty ; rdfs:label ?label }") == {
        (OBO + "BFO_0000050", "part of"),
        (OBO + "fix#connected_to", "connected to"),
    }
    assert select(fixture_store, "SELECT ?p { ?p a owl:TransitiveProperty }") == {(OBO + "BFO_0000050",)}
    assert ask(
        fixture_store, "ASK { <http://purl.obolibrary.org/obo/fix#connected_to> rdfs:subPropertyOf obo:BFO_0000050 }"
    )


# --------------------------------------------------------------------------- edge cases


def test_bad_ids_warn_with_file_and_line() -> None:
    items = [
        OboHeader(ontology="t"),
        Term(id="not a curie", name="skipped", line=7),
        Term(id="A:1", is_a=("A:2", "bad target"), line=11),
    ]
    with pytest.warns(DataWarning) as caught:
        store = load(list(ontology_nquads(items, graph=GRAPH, curies=CurieMap(), source="x.obo")))
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert all(w.filename == __file__ for w in caught)  # stacklevel points at the caller
    assert "x.obo, line 7" in messages[0] and "'not a curie'" in messages[0]
    assert "x.obo, line 11" in messages[1] and "'bad target'" in messages[1]
    assert select(store, "SELECT ?c { ?c a owl:Class }") == {(OBO + "A_1",)}
    assert select(store, "SELECT ?p { obo:A_1 rdfs:subClassOf ?p }") == {(OBO + "A_2",)}
    assert not ask(store, 'ASK { ?c rdfs:label "skipped" }')


def test_relation_iri() -> None:
    cm = CurieMap()
    assert relation_iri("BFO:0000050", ontology="x", curies=cm) == OBO + "BFO_0000050"
    assert relation_iri("part_of", ontology="x", curies=cm) == OBO + "BFO_0000050"
    assert relation_iri("negatively_regulates", ontology="x", curies=cm) == OBO + "RO_0002212"
    assert relation_iri("homologous_in", ontology="uberon/basic", curies=cm) == OBO + "uberon/basic#homologous_in"
    assert relation_iri("http://example.org/r", ontology="x", curies=cm) == "http://example.org/r"


def test_ontology_name_fallback() -> None:
    term = Term(id="A:1", relationships=(("touches", "A:2"), ("part_of", "A:3")))
    with pytest.raises(ConfigError, match="touches"):
        list(ontology_nquads([term], graph=GRAPH, curies=CurieMap()))
    store = load(list(ontology_nquads([term], graph=GRAPH, curies=CurieMap(), ontology="given", relations=RELS)))
    assert select(store, f"SELECT ?r {{ GRAPH <{RELS}> {{ obo:A_1 ?r ?o }} }}") == {
        (OBO + "given#touches",),
        (OBO + "BFO_0000050",),
    }
    header_wins = [OboHeader(ontology="fromheader"), term]
    store = load(list(ontology_nquads(header_wins, graph=GRAPH, curies=CurieMap(), ontology="given", relations=RELS)))
    assert ask(store, "ASK { obo:A_1 <http://purl.obolibrary.org/obo/fromheader#touches> obo:A_2 }")


def test_graph_must_be_an_iri() -> None:
    with pytest.raises(ValueError, match="not an iri"):
        list(ontology_nquads([], graph="not an iri", curies=CurieMap()))


# --------------------------------------------------------------------------- the real files


def _raw_typedefs(path: Path) -> list[dict[str, list[str]]]:
    """Tag -> values of each [Typedef] stanza, read from the raw text with a regex."""
    with zipfile.ZipFile(path) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".obo") and not n.startswith("__MACOSX")]
        text = z.read(name).decode("utf-8")
    stanzas = []
    for block in re.findall(r"^\[Typedef\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL):
        tags: dict[str, list[str]] = {}
        for tag, value in re.findall(r"^([\w-]+): (.*)$", block, re.MULTILINE):
            tags.setdefault(tag, []).append(value.strip())
        stanzas.append(tags)
    return stanzas


def _evidence(path: Path) -> dict[str, str]:
    """Relation name -> IRI as a file states it: an RO/BFO xref, or an RO/BFO id with that name."""
    found = {}
    for tags in _raw_typedefs(path):
        (tid,) = tags["id"]
        for xref in tags.get("xref", []):
            if re.fullmatch(r"(RO|BFO):\d{7}", xref):
                found[tid] = OBO + xref.replace(":", "_")
        if re.fullmatch(r"(RO|BFO):\d{7}", tid):
            found[tags["name"][0].replace(" ", "_")] = OBO + tid.replace(":", "_")
    return found


_TYPEDEF_FILES = [
    "UBERON/UBERON+extensions/UBERON+extensions.obo.zip",
    "GO_MF/GO_MF/GO_MF_stub.obo.zip",
    "CL/CL/CL.obo.zip",
    "MOP/MOP/MOP.obo.zip",
]


@pytest.mark.corpus
def test_relation_table_matches_real_typedefs(craft_dir: Path) -> None:
    root = craft_dir / "concept-annotation"
    present = [f for f in _TYPEDEF_FILES if (root / f).is_file()]
    if _TYPEDEF_FILES[0] not in present:
        pytest.skip("UBERON+extensions.obo.zip not in this copy of CRAFT")
    uberon = _evidence(root / _TYPEDEF_FILES[0])
    assert uberon and all(RELATION_IRIS.get(name) == value for name, value in uberon.items()), uberon
    attested: dict[str, str] = {}
    for f in present:
        attested |= _evidence(root / f)
    disagree = {n: (v, RELATION_IRIS[n]) for n, v in attested.items() if n in RELATION_IRIS and RELATION_IRIS[n] != v}
    assert disagree == {}
    if len(present) == len(_TYPEDEF_FILES):
        assert set(RELATION_IRIS) <= set(attested), set(RELATION_IRIS) - set(attested)


@pytest.fixture(scope="module")
def uberon_ext(craft_dir: Path) -> tuple[Store, int]:
    path = craft_dir / "concept-annotation" / "UBERON/UBERON+extensions/UBERON+extensions.obo.zip"
    if not path.is_file():
        pytest.skip("UBERON+extensions.obo.zip not in this copy of CRAFT")
    with zipfile.ZipFile(path) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".obo") and not n.startswith("__MACOSX")]
        raw_terms = sum(1 for line in z.read(name).decode("utf-8").split("\n") if line.rstrip() == "[Term]")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        lines = list(ontology_nquads(iter_obo(path), graph=GRAPH, curies=CurieMap(), source=str(path), relations=RELS))
    return load(lines), raw_terms


@pytest.mark.corpus
def test_uberon_extensions_classes(uberon_ext: tuple[Store, int]) -> None:
    store, raw_terms = uberon_ext
    # named classes only: blank owl:Class nodes are intersections and unions, and
    # craft:ExternalReference classes are named by extension definitions, not declared
    query = "SELECT (COUNT(DISTINCT ?c) AS ?n) { ?c a owl:Class FILTER isIRI(?c) FILTER NOT EXISTS { ?c a craft:ExternalReference } }"
    (count,) = select(store, query)
    assert int(count[0]) == raw_terms


@pytest.mark.corpus
def test_uberon_extension_class(uberon_ext: tuple[Store, int]) -> None:
    store, _ = uberon_ext
    rows = select(
        store,
        "SELECT ?label ?def { obo:UBERON_EXT_bone_element_or_tissue a craft:ExtensionClass ; "
        "rdfs:label ?label ; craft:logicalDefinition ?def }",
    )
    assert rows == {("bone element or tissue", "UBERON:'bone element' or UBERON:'bone tissue'")}


@pytest.mark.corpus
def test_uberon_brain_is_an_anatomical_entity(uberon_ext: tuple[Store, int]) -> None:
    store, _ = uberon_ext
    assert ask(store, "ASK { obo:UBERON_0000955 rdfs:subClassOf* obo:UBERON_0001062 }")
    assert ask(store, "ASK { obo:UBERON_0000955 rdfs:label 'brain' }")
