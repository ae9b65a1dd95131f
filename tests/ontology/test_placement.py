"""Extension placement in one step: the union pass and the structural reasoner, one report."""

from __future__ import annotations

from craftrdf.ontology.cache import SimilarityCache
from craftrdf.ontology.extensions import place_extensions
from craftrdf.ontology.owlread import read_ontology
from craftrdf.ontology.placement import place_in_store, reasoned_placements
from craftrdf.ontology.store_model import read_store_model


def test_one_report_of_both_passes(toy_store):
    report = place_in_store(toy_store, "toy_extensions", cache=None)
    assert report.unions == place_extensions(read_store_model(toy_store, "toy_extensions", cache=None))
    assert list(report.reasoned) == reasoned_placements(read_ontology(toy_store, "toy_extensions"))
    assert report.edges() == [*report.unions.edges(), *report.reasoned]
    parents = report.parents()
    # toy_extensions.obo by hand: bone = 'bone tissue' (under tissue) or TOY:7 (under organ): both
    # under anatomical entity only; tissues = three tissues: under tissue
    assert parents["TOY_EXT:bone"] == ("TOY:0000001",)
    assert parents["TOY_EXT:tissues"] == ("TOY:0000002",)
    # "nerve and part_of some 'nervous system'" is no union: the union pass leaves it, the reasoner places it
    assert any(p.cls == "TOY_EXT:restricted" and p.kind == "not-union" for p in report.unions.problems)
    assert "TOY_EXT:restricted" in parents and "TOY_EXT:restricted" not in report.unplaced()
    unplaced = report.unplaced()
    assert set(unplaced) == {"TOY_EXT:broken", "TOY_EXT:missing"}
    assert unplaced["TOY_EXT:broken"].startswith("its logical definition cannot be read")
    assert "'no such thing' names no class" in unplaced["TOY_EXT:missing"]


def test_placements_computed_elsewhere_are_used_and_cached(toy_store):
    cache = SimilarityCache()
    given = [("TOY_EXT:bone", "TOY:0000003")]
    report = place_in_store(toy_store, "toy_extensions", cache=cache, reasoned=given)
    assert report.reasoned == tuple(given)
    assert place_in_store(toy_store, "toy_extensions", cache=cache).reasoned == tuple(given)
