"""CRAFT's post-processing rules, by hand and on the real mapping files."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftrdf.analysis.rules import (
    Mappings,
    apply_rules,
    drop_unused,
    postprocess_set,
    replace_related,
    set_mappings,
    substitute_unused,
)
from craftrdf.apps.demo import sample_dir
from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import ConfigError
from craftrdf.core.model import Annotation, Span
from craftrdf.querying.webanno import fetch_annotations
from craftrdf.store.local import AnnotationStore


def A(i, cls, *spans, doc="d"):
    return Annotation(i, doc, cls, tuple(Span(s, e) for s, e in spans))


def test_unused_classes_are_dropped():
    anns = [A("1", "CL:0000000", (0, 4)), A("2", "CL:0000540", (5, 11))]
    out, r = drop_unused(anns, {"CL:0000000"})
    assert [a.id for a in out] == ["2"] and (r.before, r.after, r.dropped) == (2, 1, 1)


def test_substitution_single_none_several_and_duplicates():
    subs = {"CL:0000000": ("CL_GO_EXT:cell",), "GO:0005623": (), "SO:0000001": ("SO_EXT:a", "SO_EXT:b")}
    anns = [
        A("1", "CL:0000000", (0, 4)),  # single mapping: replaced
        A("2", "GO:0005623", (0, 4)),  # no mapping: deleted
        A("3", "SO:0000001", (6, 9)),  # several: deleted
        A("4", "CL_GO_EXT:cell", (20, 24)),  # already the extension class on 20-24 ...
        A("5", "CL:0000000", (20, 24)),  # ... so this one is deleted, not duplicated
        A("6", "CL:0000000", (30, 34)),
        A("7", "CL:0000000", (30, 34)),  # two unused on the same span: the second is a duplicate
        A("8", "UBERON:0000955", (40, 45)),  # untouched
    ]
    out, r = substitute_unused(anns, subs)
    assert [(a.id, a.class_id) for a in out] == [
        ("1", "CL_GO_EXT:cell"),
        ("4", "CL_GO_EXT:cell"),
        ("6", "CL_GO_EXT:cell"),
        ("8", "UBERON:0000955"),
    ]
    assert (r.replaced, r.dropped, r.duplicates, r.after) == (2, 2, 2, 4)


def test_related_pick():
    rel = {"CL_EXT:neural_crest_cell": ("CL:0000333", "CL:0007004"), "CL_GO_EXT:cell": ("CL:0000000",)}
    anns = [A("1", "CL_EXT:neural_crest_cell", (0, 17)), A("2", "CL_GO_EXT:cell", (20, 24))]
    first, r1 = replace_related(anns, rel, pick="first")
    assert [a.class_id for a in first] == ["CL:0000333", "CL:0000000"] and r1.replaced == 2
    every, r2 = replace_related(anns, rel, pick="all")
    assert [(a.id, a.class_id) for a in every] == [("1", "CL:0000333"), ("1#1", "CL:0007004"), ("2", "CL:0000000")]
    assert r2.added == 1
    dropped, r3 = replace_related(anns, rel, pick="drop")
    assert [a.class_id for a in dropped] == ["CL:0000000"] and r3.dropped == 1
    with pytest.raises(ConfigError):
        replace_related(anns, rel, pick="best")  # type: ignore[arg-type]


def test_rules_apply_in_order():
    m = Mappings(frozenset({"CL:0000000"}), {"CL:0000000": ("CL_GO_EXT:cell",)}, {"CL_GO_EXT:cell": ("CL:0000000",)})
    anns = [A("1", "CL:0000000", (0, 4))]
    out, reports = apply_rules(anns, ["substitute", "related"], m)
    assert [a.class_id for a in out] == ["CL:0000000"] and [r.rule for r in reports] == ["substitute", "related"]
    with pytest.raises(ConfigError, match="unknown rule"):
        apply_rules(anns, ["nope"], m)


def test_mappings_come_from_the_raw_files(sample_store):
    raw = sample_dir() / "concept-annotation/CL/CL+extensions/CL_extension_classes_and_related_CL_classes.txt"
    expected = {line.split("\t")[0]: tuple(line.split("\t")[1:]) for line in raw.read_text().splitlines() if line}
    m = set_mappings(sample_store, "CL_EXT")
    assert {k: v[0] for k, v in m.related.items()} == {k: v[0] for k, v in expected.items()}
    assert {k: set(v) for k, v in m.related.items()} == {k: set(v) for k, v in expected.items()}
    assert m.substitutes == {"CL:0000000": ("CL_GO_EXT:cell",)}


def test_postprocess_stores_a_new_set(sample_store):
    n, reports = postprocess_set(sample_store, "CL_EXT", ["related"], into="CL_EXT_AS_CL", curies=CurieMap())
    source = fetch_annotations(sample_store, "CL_EXT")
    back = fetch_annotations(sample_store, "CL_EXT_AS_CL")
    assert len(back) == n == reports[0].after
    m = set_mappings(sample_store, "CL_EXT")
    assert sum(1 for a in source if a.class_id in m.related) == reports[0].replaced + reports[0].duplicates
    assert not any(a.class_id in m.related for a in back)
    with pytest.raises(ConfigError):
        postprocess_set(sample_store, "CL_EXT", ["related"], into="CL_EXT", curies=CurieMap())


@pytest.mark.corpus
def test_gold_sets_have_no_unused_classes(corpus_store: Path, craft_dir: Path):
    # the corpus README: the listed classes "were not used at all" in the corresponding annotations
    with AnnotationStore.open(corpus_store, mode="read") as store:
        for key in ("UBERON", "CL", "SO", "GO_BP"):
            anns = fetch_annotations(store, key)
            _, [r] = apply_rules(anns, ["unused"], set_mappings(store, key))
            assert r.dropped == 0 and len(set_mappings(store, key).unused) > 0, key
        anns = fetch_annotations(store, "UBERON_EXT")
        _out, [r] = apply_rules(anns, ["substitute"], set_mappings(store, "UBERON_EXT"))
        assert r.replaced == r.dropped == 0
