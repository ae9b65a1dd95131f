"""The graph out of the store: one query, weights per relation, methods, caching, parallel classes."""

from __future__ import annotations

import warnings

import pytest

from craftrdf import similarity_index
from craftrdf.analysis.similarity.definition import SimilarityWarning, UnknownTermError
from craftrdf.analysis.similarity.graph import (
    GRAPH_QUERY,
    IndexSpec,
    load_term_graph,
    method_weights,
    parse_weights,
    wang_index,
)
from craftrdf.building.loader import load_files
from craftrdf.core.errors import ConfigError
from craftrdf.ontology.cache import SimilarityCache
from craftrdf.ontology.model import relation_iri
from craftrdf.querying.library import library
from tests.helpers.corpus import DATA as TESTS_DATA

SIM_DATA = TESTS_DATA / "similarity"
FIG1_SIM = 6.12 / 7.92  # worked out in test_wang.py from the paper's Figure 1


def test_graph_query_is_in_the_library_with_its_parameter():
    q = library()[GRAPH_QUERY]
    assert q.params == ("graph",)
    assert "Columns: graph, child, rel, parent" in q.text


def test_fig1_through_the_store(toy_store):
    idx = similarity_index(toy_store, ontology="wang2007_fig1", cache=None)
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1_SIM, abs=1e-12)
    assert idx.semantic_values("GO:0043231")["GO:0005575"] == pytest.approx(0.512)
    assert idx.semantic_values("GO:0043231")["GO:0005623"] == pytest.approx(0.288)
    # every ontology graph merged: the toy anatomy shares no term, so nothing changes
    merged = similarity_index(toy_store, cache=None)
    assert merged.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1_SIM, abs=1e-12)
    assert "TOY:0000001" in merged and "TOY:0000001" not in idx


def test_the_library_index_takes_a_spec(toy_store):
    # craftrdf.similarity_index's keywords, as one IndexSpec: Figure 1 by hand, and is_a alone at 0.8
    # (SV(43231) = 1+.8+.8+.64+.512 = 3.752, SV(43229) = 1+.8+.64 = 2.44, common .8+.64+.512)
    idx = wang_index(toy_store, IndexSpec(ontology="wang2007_fig1"), cache=None)
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1_SIM, abs=1e-12)
    is_a = wang_index(toy_store, IndexSpec(weights={"is_a": 0.8}, ontology="wang2007_fig1"), cache=None)
    assert is_a.similarity("GO:0043231", "GO:0043229") == pytest.approx(4.392 / 6.192, abs=1e-12)
    with pytest.raises(ConfigError, match="fixed weights"):
        wang_index(toy_store, IndexSpec(method="bossy", weights={"is_a": 0.8}), cache=None)


def test_term_graph_holds_classes_edges_labels_definitions(toy_store):
    g = load_term_graph(toy_store, ontology="wang2007_fig1", cache=None)
    assert len(g.classes) == 7
    assert ("GO:0043229", "http://purl.obolibrary.org/obo/BFO_0000050", "GO:0005622") in g.edges
    assert ("GO:0043231", "http://www.w3.org/2000/01/rdf-schema#subClassOf", "GO:0043227") in g.edges
    assert len(g.edges) == 8
    assert g.labels["GO:0043231"] == "intracellular membrane-bound organelle"
    toy = load_term_graph(toy_store, ontology="toy_extensions", cache=None)
    assert toy.definitions["TOY_EXT:bone"] == "TOY:'bone tissue' or TOY:0000007"


def test_bossy_and_custom_weights_through_the_store(toy_store):
    bossy = similarity_index(toy_store, method="bossy", ontology="wang2007_fig1", cache=None)
    # by hand in test_wang.py: (0.65 + 0.4225 + 0.274625 + 2.0725) / (2.997125 + 2.0725)
    assert bossy.similarity("GO:0043231", "GO:0043229") == pytest.approx(3.419625 / 5.069625, abs=1e-12)
    # is_a only at 0.8: SV(43231) = 1+.8+.8+.64+.512 = 3.752, SV(43229) = 1+.8+.64 = 2.44,
    # common in DAG(43231): .8 + .64 + .512 = 1.952 -> (1.952 + 2.44) / (3.752 + 2.44)
    is_a = similarity_index(toy_store, weights={"is_a": 0.8}, ontology="wang2007_fig1", cache=None)
    assert is_a.similarity("GO:0043231", "GO:0043229") == pytest.approx(4.392 / 6.192, abs=1e-12)
    # the relation named by CURIE is the same property as part_of
    by_curie = similarity_index(
        toy_store, weights={"is_a": 0.8, "BFO:0000050": 0.6}, ontology="wang2007_fig1", cache=None
    )
    assert by_curie.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1_SIM, abs=1e-12)


def test_parse_weights_and_methods():
    assert parse_weights("is_a=0.8,part_of=0.6") == {"is_a": 0.8, "part_of": 0.6}
    assert parse_weights(" is_a = 0.7 , part_of ") == {"is_a": 0.7, "part_of": 0.6}
    assert parse_weights("is_a,develops_from") == {"is_a": 0.8, "develops_from": 0.6}
    for bad in ("is_a=x", "is_a=1.5", "is_a=0", "=0.3", ","):
        with pytest.raises(ConfigError):
            parse_weights(bad)
    assert method_weights() == {"is_a": 0.8, "part_of": 0.6}
    assert method_weights("wang", {"is_a": 0.5}) == {"is_a": 0.5}
    assert method_weights("bossy") == {"is_a": 0.65}
    with pytest.raises(ConfigError, match="fixed weights"):
        method_weights("bossy", {"is_a": 0.5})
    with pytest.raises(ConfigError):
        method_weights("resnik")  # type: ignore[arg-type]
    assert relation_iri("develops_from") == "http://purl.obolibrary.org/obo/RO_0002202"
    assert relation_iri("https://example.org/rel") == "https://example.org/rel"
    with pytest.raises(ConfigError, match="unknown relation"):
        relation_iri("no such relation")


def test_unknown_ontology_and_unknown_terms(toy_store):
    with pytest.raises(ConfigError, match="no ontology graph"):
        similarity_index(toy_store, ontology="NOPE", cache=None)
    idx = similarity_index(toy_store, ontology="wang2007_fig1", cache=None)
    with pytest.raises(UnknownTermError):
        idx.similarity("GO:0043229", "TOY:0000001")  # in the store, not in this graph


def test_cross_ontology_pair_in_the_merged_graph_is_0_with_a_warning(toy_store):
    idx = similarity_index(toy_store, cache=None)
    with pytest.warns(SimilarityWarning):
        assert idx.similarity("GO:0043229", "TOY:0000004") == 0.0


def test_cache_returns_the_same_index_until_the_store_changes(toy_store):
    cache = SimilarityCache()
    a = similarity_index(toy_store, ontology="wang2007_fig1", cache=cache)
    assert similarity_index(toy_store, ontology="wang2007_fig1", cache=cache) is a
    assert similarity_index(toy_store, ontology="wang2007_fig1", method="bossy", cache=cache) is not a
    assert (
        similarity_index(toy_store, ontology="wang2007_fig1", weights={"is_a": 0.8, "part_of": 0.6}, cache=cache) is a
    )  # same weights, same key
    g = load_term_graph(toy_store, ontology="wang2007_fig1", cache=cache)
    assert load_term_graph(toy_store, ontology="wang2007_fig1", cache=cache) is g
    extra = SIM_DATA.parent / "obo" / "valid.obo"
    load_files(toy_store, [extra])  # a new batch: the cache of this store is dropped
    assert similarity_index(toy_store, ontology="wang2007_fig1", cache=cache) is not a
    assert similarity_index(toy_store, ontology="wang2007_fig1", cache=None) is not similarity_index(
        toy_store, ontology="wang2007_fig1", cache=None
    )


def test_classify_extensions_places_union_classes(toy_store):
    plain = similarity_index(toy_store, ontology="toy_extensions", cache=None)
    with pytest.warns(SimilarityWarning):
        assert plain.similarity("TOY_EXT:bone", "TOY:0000006") == 0.0
    idx = similarity_index(toy_store, ontology="toy_extensions", classify_extensions=True, cache=None)
    # Placed: bone(6, 7) under 1; tissues(4, 6, 12) under 2; nested(muscle, 6) under 1. So TOY:6
    # (bone tissue) has parents 2, bone, tissues, nested, each at 0.8, and 1 at 0.64:
    # SV(6) = 1 + 4 * 0.8 + 0.64 = 4.84; SV(bone) = 1 + 0.8 = 1.8;
    # common {bone, 1}: (0.8 + 0.64) + (1 + 0.8) = 3.24  ->  3.24 / 6.64
    assert idx.semantic_value("TOY:0000006") == pytest.approx(4.84)
    assert idx.similarity("TOY_EXT:bone", "TOY:0000006") == pytest.approx(3.24 / 6.64, abs=1e-12)


def test_classify_extensions_on_one_ontology_or_all_merged_gives_the_same_values(toy_store):
    # what reproduce's similarity section relies on: an ontology that references no other one
    # (toy_extensions beside Wang's Figure 1) has the same placements and values read alone or merged
    alone = similarity_index(toy_store, ontology="toy_extensions", classify_extensions=True, cache=None)
    merged = similarity_index(toy_store, classify_extensions=True, cache=None)
    assert "GO:0043229" in merged and "GO:0043229" not in alone
    for idx in (alone, merged):
        # by hand in test_classify_extensions_places_union_classes: 3.24 / 6.64
        assert idx.similarity("TOY_EXT:bone", "TOY:0000006") == pytest.approx(3.24 / 6.64, abs=1e-12)
        # TOY:4 (muscle tissue) has parents 2, muscle, tissues, any_case (4 and nerve 8 meet at 1), each at
        # 0.8, and 1 and nested (muscle is a member of nested) at 0.64: SV(4) = 1 + 4 * 0.8 + 2 * 0.64 = 5.48;
        # muscle (4 and 5 meet at 1) has 1 and nested at 0.8: SV(muscle) = 2.6; common {muscle, 1, nested}:
        # (0.8 + 0.64 + 0.64) + 2.6 = 4.68  ->  4.68 / 8.08
        assert idx.similarity("TOY_EXT:muscle", "TOY:0000004") == pytest.approx(4.68 / 8.08, abs=1e-12)


def test_parallel_extension_classes_are_their_base(sample_store):
    g = load_term_graph(sample_store, cache=None)
    assert g.parallel, "the sample has parallel SO_EXT classes"
    parallel, base = min(g.parallel.items())
    assert parallel.startswith("SO_EXT:") and base == "SO:" + parallel.split(":")[1]
    idx = similarity_index(sample_store, cache=None)
    assert idx.similarity(parallel, base) == 1.0
    other = next(t for t in idx.terms if t.startswith("SO:") and t != base)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        assert idx.similarity(parallel, other) == idx.similarity(base, other)
    assert parallel not in [t for t, _ in idx.top_k(base, len(idx))]


def test_deprecated_classes_are_not_offered_by_top_k(toy_store):
    g = load_term_graph(toy_store, ontology="toy_extensions", cache=None)
    assert g.deprecated == {"TOY:0000013"}
    idx = similarity_index(toy_store, ontology="toy_extensions", cache=None)
    assert "TOY:0000013" in idx
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        assert "TOY:0000013" not in {t for t, _ in idx.top_k("TOY:0000004", len(idx))}
        assert "TOY:0000013" in {t for t, _ in idx.top_k("TOY:0000004", len(idx), include_excluded=True)}
