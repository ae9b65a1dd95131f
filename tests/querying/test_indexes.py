"""The view indexes: containment pairs by hand and against brute force; made by build, load and the other
writers of sets; current, stale and missing as a reader sees them."""

from __future__ import annotations

import logging

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import craftrdf
from craftrdf.analysis.views import ViewSpec, resolve_sets, run_view
from craftrdf.apps.demo import sample_dir
from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import StoreError
from craftrdf.core.iris import CONTAINMENT_GRAPH, set_iri
from craftrdf.core.model import Annotation, Span
from craftrdf.querying.indexes import (
    containment_pairs,
    ensure_containment,
    ensure_view_rows,
    update_indexes,
    view_rows_graph,
    write_set_batch,
)
from craftrdf.querying.webanno import annotation_nquads, set_nquads
from craftrdf.store.local import AnnotationStore
from tests.helpers.sample import raw_set


def _pairs(rows):
    return set(containment_pairs(rows))


def test_hand_cases():
    rows = [
        ("outer", "d", 0, 20),  # "retinal ganglion cell"
        ("inner", "d", 0, 16),  # "retinal ganglion"
        ("same", "d", 0, 20),  # identical text: not nested in "outer", nor "outer" in it
        ("disc", "d", 0, 7),
        ("disc", "d", 17, 20),  # two pieces inside "outer"
        ("gap", "d", 5, 10),  # inside outer/same; inside "disc"? no: 7..10 is not covered
        ("other", "e", 0, 16),  # other document
        ("empty", "d", 3, 3),  # no characters: never nested
    ]
    assert _pairs(rows) == {
        ("inner", "outer"),
        ("inner", "same"),
        ("disc", "outer"),
        ("disc", "same"),
        ("gap", "outer"),
        ("gap", "same"),
        ("gap", "inner"),
    }


def test_discontinuous_outer_must_cover_every_character():
    rows = [("b", "d", 0, 5), ("b", "d", 10, 15), ("a", "d", 2, 4), ("c", "d", 4, 11)]
    assert _pairs(rows) == {("a", "b")}


def test_overlapping_pieces_of_the_outer_are_merged():
    # outer pieces 0-8 and 5-12 overlap: together they cover 0-12, which contains 6-11
    rows = [("o", "d", 0, 8), ("o", "d", 5, 12), ("i", "d", 6, 11)]
    assert _pairs(rows) == {("i", "o")}


_span = st.tuples(st.integers(0, 30), st.integers(0, 8)).map(lambda t: (t[0], t[0] + t[1]))


# pieces far apart and boxes longer than the window of outer starts (128 characters), as discontinuous
# annotations across a sentence have: found by the full comparison, not the window
_wide_span = st.tuples(st.integers(0, 400), st.sampled_from([0, 1, 5, 60, 127, 128, 129, 250])).map(
    lambda t: (t[0], t[0] + t[1])
)


def _brute_force(annotations: list[list[tuple[int, int]]]) -> set[tuple[str, str]]:
    chars = {f"a{i}": frozenset(c for s, e in spans for c in range(s, e)) for i, spans in enumerate(annotations)}
    return {(a, b) for a in chars for b in chars if chars[a] and chars[a] < chars[b]}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_span, min_size=1, max_size=3), min_size=1, max_size=12))
def test_matches_brute_force_character_sets(annotations):
    rows = [(f"a{i}", "d", s, e) for i, spans in enumerate(annotations) for s, e in spans]
    assert _pairs(rows) == _brute_force(annotations)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_wide_span, min_size=1, max_size=3), min_size=1, max_size=16))
def test_long_and_far_apart_annotations_match_brute_force(annotations):
    rows = [(f"a{i}", "d", s, e) for i, spans in enumerate(annotations) for s, e in spans]
    assert _pairs(rows) == _brute_force(annotations)


# -- made by the writers, never by a reader -------------------------------------------------------


def _graph(store: AnnotationStore, graph: str) -> set[str]:
    return {str(q.triple) for q in store.raw.quads_for_pattern(None, None, None, ox.NamedNode(graph))}


def test_build_leaves_the_indexes_current_and_its_view_rows_equal_those_read_back(sample_store):
    assert update_indexes(sample_store) == 0
    # the build made the nested-annotation index from the annotations in hand; the same from the store
    built = _graph(sample_store, CONTAINMENT_GRAPH)
    sample_store.remove_batch(CONTAINMENT_GRAPH)
    assert ensure_containment(sample_store) == len(built)  # the links and the digest
    assert _graph(sample_store, CONTAINMENT_GRAPH) == built
    keys = resolve_sets(sample_store, ["*"])
    assert len(keys) >= 22  # the sample's sets, and any an earlier test of this module added
    for key in keys:
        # written from the annotations in the build's batch; read back from the set graph here
        built = _graph(sample_store, view_rows_graph(key))
        sample_store.remove_batch(view_rows_graph(key))
        assert ensure_view_rows(sample_store, [key]) == 1
        assert _graph(sample_store, view_rows_graph(key)) == built, key


def _brute_nested(annotations: dict[str, list[tuple[str, frozenset[int]]]]) -> set[tuple[str, str]]:
    """(document, id) of every annotation whose characters another one's strictly include, by sets of ints."""
    return {
        (doc, a) for doc, anns in annotations.items() for a, chars in anns if chars and any(chars < o for _, o in anns)
    }


def _raw_chars(folder: str) -> dict[str, list[tuple[str, frozenset[int]]]]:
    return {
        doc: [(a.id, frozenset(c for s, e in a.spans for c in range(s, e))) for a in anns]
        for doc, anns in raw_set(folder).items()
    }


def test_a_load_makes_the_nested_index_again_for_a_reader(tmp_path, sample_store_copy):
    path = sample_store_copy(tmp_path / "s.store", sets=["UBERON_EXT"])
    pmid = "11319941"
    raw = _raw_chars("UBERON/UBERON+extensions")
    text = (sample_dir() / "articles" / "txt" / f"{pmid}.txt").read_text(encoding="utf-8")
    longest = max(raw[pmid], key=lambda a: len(a[1]))[1]
    found = []
    for start, end in ((min(longest) - 1, max(longest) + 2), (0, 1)):  # around the longest one; then elsewhere
        mine = tmp_path / f"{pmid}.bionlp"
        mine.write_text(f"T1\tCL:0000540 {start} {end}\t{text[start:end]}\n", encoding="utf-8")
        with craftrdf.open(path, mode="write") as store:
            craftrdf.load(store, [mine], set_key="MINE")
        expected = _brute_nested({**raw, pmid: [*raw[pmid], ("T1", frozenset(range(start, end)))]})
        with craftrdf.open(path) as store:  # read-only: the load left the index current
            got = craftrdf.view(store, ["UBERON_EXT", "MINE"], nesting="nested")
            assert {(r.annotation.document, r.annotation.id) for r in got} == expected
            assert update_indexes(store) == 0
        found.append(len(expected))
    assert found[0] > found[1]  # the second load took the links of the first one away


def test_a_reader_of_a_store_without_current_indexes_is_told_which_command_makes_them(
    tmp_path, sample_store_copy, caplog
):
    path = sample_store_copy(tmp_path / "s.store", sets=["UBERON", "CL"])
    with AnnotationStore.open(path) as store:  # as an older craftrdf left it: no indexes
        expected = {(r.set, r.annotation) for r in run_view(store, ViewSpec(("UBERON", "CL")))}
        store.remove_batch(CONTAINMENT_GRAPH)
        store.remove_batch(view_rows_graph("CL"))
    with craftrdf.open(path) as store:
        with pytest.raises(StoreError) as err:
            craftrdf.view(store, ["UBERON", "CL"], nesting="outermost")
        message = str(err.value)
        assert "\n" not in message and message.startswith(f"{path}: the nested-annotation index is missing")
        assert f"`craftrdf index --store {path}`" in message and "craftrdf.index(store)" in message
        with caplog.at_level(logging.WARNING, logger="craftrdf.analysis.views"):  # answered from the set graphs
            assert {(r.set, r.annotation) for r in craftrdf.view(store, ["UBERON", "CL"])} == expected
        assert "the view index of CL is missing" in caplog.text and f"craftrdf index --store {path}" in caplog.text
        with pytest.raises(StoreError, match="craftrdf index"):
            update_indexes(store)
    with craftrdf.open(path, mode="write") as store:
        assert craftrdf.index(store) == 2  # CL's view rows and the nested-annotation index
        assert craftrdf.index(store) == 0
    caplog.clear()
    with craftrdf.open(path) as store:
        assert {(r.set, r.annotation) for r in craftrdf.view(store, ["UBERON", "CL"])} == expected
        assert craftrdf.view(store, ["UBERON", "CL"], nesting="nested")  # 'granule cell' in the dentate gyrus
    assert caplog.text == ""


def test_a_set_grown_under_one_digest_is_indexed_again_when_named(sample_store):
    # a streamed run appends to its set without changing the batch's digest
    extra = Annotation("late", "11319941", "CL:0000540", (Span(0, 7),))
    sample_store.append_batch(set_iri("CL"), annotation_nquads([extra], set_key="CL", curies=CurieMap()))
    assert update_indexes(sample_store) == 0  # nothing a digest can see
    assert update_indexes(sample_store, changed=["CL"]) == 2
    rows = {r.annotation.id for r in run_view(sample_store, ViewSpec(("CL",)))}
    assert "late" in rows and len(rows) == sum(len(v) for v in raw_set("CL/CL").values()) + 1


def test_a_set_takes_its_view_rows_with_it_and_rows_left_by_an_older_store_are_removed():
    store = AnnotationStore.memory()
    cm = CurieMap()
    anns = [Annotation("x", "d", "CL:0000540", (Span(0, 6),))]
    lines = [*set_nquads("A", module=None, variant=None, ontology=None, mappings=None)]
    write_set_batch(store, "A", [*lines, *annotation_nquads(anns, set_key="A", curies=cm)], anns, digest="a", curies=cm)
    assert view_rows_graph("A") in store.batches()
    store.remove_batch(set_iri("A"))
    assert view_rows_graph("A") not in store.batches()
    store.load_batch(view_rows_graph("GONE"), [], digest="rows of a set an older craftrdf removed")
    assert update_indexes(store) == 1  # the nested-annotation index of no sets; the orphan rows go
    assert [g for g in store.batches() if "view-rows" in g] == []
