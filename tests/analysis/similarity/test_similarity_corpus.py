"""Similarity on CRAFT's real UBERON ontology files (needs the corpus; skipped without it)."""

from __future__ import annotations

import heapq
import random
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pytest

from craftrdf import similarity_index
from craftrdf.analysis.similarity.definition import SimilarityWarning
from craftrdf.analysis.similarity.graph import load_term_graph
from craftrdf.core.curie import CurieMap
from craftrdf.core.iris import set_iri
from craftrdf.core.vocab import OBO, RDFS
from craftrdf.ontology.extensions import place_extensions
from craftrdf.store.local import AnnotationStore

pytestmark = pytest.mark.corpus

UBERON_EXT = "UBERON+extensions"


@pytest.fixture(scope="module")
def uberon_store(corpus_store: Path) -> Iterator[AnnotationStore]:
    """The session's full-corpus store, read-only: these tests read its UBERON sets and ontology graphs."""
    with AnnotationStore.open(corpus_store, mode="read") as store:
        yield store


def best_first_s_values(parents: Mapping[str, list[tuple[str, float]]], term: str) -> dict[str, float]:
    """S-values by a best-first search (Dijkstra on products: weights <= 1 never raise a product),
    a third way of computing them, independent of the library's two."""
    done: dict[str, float] = {}
    heap = [(-1.0, term)]
    while heap:
        neg, t = heapq.heappop(heap)
        if t in done:
            continue
        done[t] = -neg
        for p, w in parents.get(t, []):
            if p not in done:
                heapq.heappush(heap, (neg * w, p))
    return done


def test_uberon_pairs_match_an_independent_best_first_search(uberon_store):
    graph = load_term_graph(uberon_store, ontology=UBERON_EXT)
    weights = {RDFS.subClassOf: 0.8, OBO.part_of: 0.6}
    parents: dict[str, list[tuple[str, float]]] = {}
    for child, rel, parent in graph.edges:
        if rel in weights and child != parent:
            parents.setdefault(child, []).append((parent, weights[rel]))
    idx = similarity_index(uberon_store, ontology=UBERON_EXT)
    rng = random.Random(4)
    terms = sorted(t for t in graph.classes if t.startswith("UBERON:"))
    pairs = [(rng.choice(terms), rng.choice(terms)) for _ in range(300)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        got = idx.pairs([a for a, _ in pairs], [b for _, b in pairs])
    for (a, b), value in zip(pairs, got):
        sa, sb = best_first_s_values(parents, a), best_first_s_values(parents, b)
        num = sum(sa[t] + sb[t] for t in sa.keys() & sb.keys())
        assert value == pytest.approx(num / (sum(sa.values()) + sum(sb.values())), abs=1e-12), (a, b)


def test_bossy_on_bone_tissue_and_bone_element(uberon_store):
    # From UBERON+extensions.obo, each with a single is_a chain:
    # bone element 0001474 > skeletal element 0004765 > organ 0000062 > 0010000 > 0000061 > 0000465 > 0001062
    # bone tissue 0002481 > skeletal tissue 0004755 > connective tissue 0002384 > tissue 0000479 > 0010000 > ...
    idx = similarity_index(uberon_store, ontology=UBERON_EXT, method="bossy")
    w = 0.65
    sv_element = sum(w**k for k in range(7))
    sv_tissue = sum(w**k for k in range(8))
    assert idx.semantic_value("UBERON:0001474") == pytest.approx(sv_element)
    assert idx.semantic_value("UBERON:0002481") == pytest.approx(sv_tissue)
    common = sum(w**k for k in range(3, 7)) + sum(w**k for k in range(4, 8))  # 0010000 and its three ancestors
    assert idx.similarity("UBERON:0001474", "UBERON:0002481") == pytest.approx(common / (sv_element + sv_tissue))


def test_classify_extensions_places_bone_element_or_tissue(uberon_store):
    report = place_extensions(load_term_graph(uberon_store, ontology=UBERON_EXT))
    placed = {p.cls: p for p in report.placed}
    # def: "UBERON:'bone element' or UBERON:'bone tissue'"; their most specific common is_a
    # ancestor (chains above) is multicellular anatomical structure, UBERON:0010000.
    p = placed["UBERON_EXT:bone_element_or_tissue"]
    assert p.members == ("UBERON:0001474", "UBERON:0002481")
    assert p.parents == ("UBERON:0010000",)
    # 56 extension classes in UBERON+extensions have a def:; each is placed or reported
    assert len(report.placed) + len(report.problems) + len(report.already_placed) == 56
    assert not report.unparsable()  # every UBERON+extensions definition is well formed
    plain = similarity_index(uberon_store, ontology=UBERON_EXT)
    placed_idx = similarity_index(uberon_store, ontology=UBERON_EXT, classify_extensions=True)
    with pytest.warns(SimilarityWarning):
        assert plain.similarity("UBERON_EXT:bone_element_or_tissue", "UBERON:0001474") == 0.0
    assert placed_idx.similarity("UBERON_EXT:bone_element_or_tissue", "UBERON:0001474") > 0.5


def test_all_pairs_of_the_uberon_classes_annotated_in_craft(uberon_store):
    rows = uberon_store.query(
        "SELECT DISTINCT ?cls WHERE { GRAPH ?g { ?a <http://www.w3.org/ns/oa#hasBody> ?cls } }",
        named_graphs=[set_iri("UBERON"), set_iri("UBERON_EXT")],  # the store holds every set; these two are UBERON's
    )
    cm = CurieMap()
    terms = sorted(cm.compress(r["cls"].value) for r in rows)
    idx = similarity_index(uberon_store, ontology=UBERON_EXT)
    known = [t for t in terms if t in idx]
    assert len(terms) > 800 and len(known) >= 0.98 * len(terms)
    m = idx.matrix(known)
    assert m.shape == (len(known), len(known))
    assert np.array_equal(np.diag(m), np.ones(len(known))) and np.array_equal(m, m.T)
    assert m.min() >= 0.0 and m.max() <= 1.0
