"""The OWL reader's two reads of an ontology graph: every triple (read_ontology) and the axioms alone (one query)."""

from __future__ import annotations

import re

import pytest

from craftrdf.core.iris import ontology_graph
from craftrdf.core.vocab import CRAFT, OWL, RDF, RDFS
from craftrdf.ontology.owlread import AXIOM_PREDICATES, read_ontology, read_told_axioms
from craftrdf.querying.library import library
from craftrdf.store.local import AnnotationStore

SAMPLE_GRAPHS = ("UBERON+extensions", "SO+extensions", "GO_MF_stub+GO_MF_extensions", "CL")


def _agree(store: AnnotationStore, name: str) -> None:
    """read_told_axioms gives what read_ontology's scan of every quad of the graph gives."""
    full, told = read_ontology(store, name), read_told_axioms(store, name)
    assert told.graph == full.graph == ontology_graph(name)
    assert told.classes == set(full.classes)
    assert told.derived == {c.iri for c in full.classes.values() if c.values.get(CRAFT.logicalDefinition)}
    # a store keeps no order of a class's axioms: compared as sets (a list's members keep theirs)
    for c in full.classes.values():
        assert set(told.subclass_of.get(c.iri, ())) == set(c.parents), c.iri
        assert set(told.equivalents.get(c.iri, ())) == set(c.equivalents), c.iri
    assert set(told.subclass_of) | set(told.equivalents) <= told.classes


@pytest.mark.parametrize("name", SAMPLE_GRAPHS)
def test_told_axioms_are_read_ontologys_on_the_sample(sample_store: AnnotationStore, name: str) -> None:
    _agree(sample_store, name)


def test_told_axioms_hold_unions_intersections_and_extension_definitions(toy_store: AnnotationStore) -> None:
    _agree(toy_store, "toy_extensions")
    told = read_told_axioms(toy_store, "toy_extensions")
    # by hand from tests/data/similarity/toy_extensions.obo: TOY_EXT:muscle's def: is a union, written as OWL
    muscle = "http://purl.obolibrary.org/obo/TOY_EXT_muscle"
    assert muscle in told.derived and muscle in told.equivalents


def test_a_graph_the_store_lacks_has_no_classes(toy_store: AnnotationStore) -> None:
    told = read_told_axioms(toy_store, "nothing")
    assert (told.classes, dict(told.subclass_of), dict(told.equivalents)) == (frozenset(), {}, {})


def test_the_predicate_numbers_are_the_querys() -> None:
    text = library()["ontology-axioms"].text
    prefixes = dict(re.findall(r"PREFIX (\w+): <([^>]+)>", text))
    table = {int(n): prefixes[p] + local for p, local, n in re.findall(r"\((\w+):(\w+) (\d+)\)", text)}
    assert table == {k: p for k, p in enumerate(AXIOM_PREDICATES) if k} and AXIOM_PREDICATES[0] == RDF.type
    assert {RDFS.subClassOf, OWL.equivalentClass, OWL.unionOf} <= set(table.values())
