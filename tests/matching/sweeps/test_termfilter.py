"""The learned term filter: counts, drops and cross-validation worked out by hand, and its invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.errors import ConfigError
from craftrdf.core.model import Annotation, Span
from craftrdf.matching.sweeps.termfilter import TermFilter, cross_validated

TEXT = "A reduction of the reduction, a brain and a brain."
#       0123456789012345678901234567890123456789012345678
#  "A" 0-1, "reduction" 2-11 and 19-28, "brain" 32-37 and 44-49


def ann(i: str, doc: str, cls: str, start: int, end: int) -> Annotation:
    return Annotation(i, doc, cls, (Span(start, end),))


def test_counts_and_drops_by_hand():
    preds = {
        "d1": [
            ann("1", "d1", "MOP:0000569", 2, 11),
            ann("2", "d1", "MOP:0000569", 19, 28),
            ann("3", "d1", "UBERON:0000955", 32, 37),
        ],
        "d2": [ann("4", "d2", "UBERON:0000955", 44, 49), ann("5", "d2", "SO:0001435", 0, 1)],
    }
    texts = {"d1": TEXT, "d2": TEXT}
    right = {"3", "4", "2"}  # "reduction" right once in two; "brain" twice in two; "A" never, but seen once
    flt = TermFilter(threshold=0.6, min_count=2)
    counts = flt.counts(preds, texts, lambda a: a.id in right)
    assert counts == {
        ("reduction", "MOP:0000569"): (1, 2),
        ("brain", "UBERON:0000955"): (2, 2),
        ("A", "SO:0001435"): (0, 1),
    }
    # 1/2 < 0.6: dropped; "A" has too few to judge
    assert flt.dropped(counts) == {("reduction", "MOP:0000569")}
    assert TermFilter(threshold=0.5).dropped(counts) == frozenset()  # 1/2 is not below 1/2
    assert TermFilter(threshold=0.5, min_count=1).dropped(counts) == {("A", "SO:0001435")}
    kept = TermFilter.apply(preds, texts, flt.dropped(counts))
    assert [a.id for a in kept["d1"]] == ["3"] and [a.id for a in kept["d2"]] == ["4", "5"]


def test_cross_validation_filters_a_document_by_the_others_only():
    # "reduction" is wrong in d1 and d2 and right in d3; two folds of the sorted documents: {d1, d3}, {d2}
    texts = dict.fromkeys(("d1", "d2", "d3"), TEXT)
    preds = {d: [ann(d, d, "MOP:0000569", 2, 11)] for d in texts}
    right = {"d3"}
    out = cross_validated(TermFilter(threshold=0.5, min_count=1), preds, texts, lambda a: a.id in right, folds=2)
    # fold {d1, d3} learns from d2 alone (0 of 1 right): dropped in d1 and d3, d3's right match too;
    # fold {d2} learns from d1 and d3 (1 of 2 right, not below a half): kept
    assert {d: [a.id for a in anns] for d, anns in out.items()} == {"d1": [], "d2": ["d2"], "d3": []}
    with pytest.raises(ConfigError):
        cross_validated(TermFilter(), preds, texts, lambda a: True, folds=1)


def test_bad_parameters_are_refused():
    with pytest.raises(ConfigError):
        TermFilter(threshold=1.5)
    with pytest.raises(ConfigError):
        TermFilter(min_count=0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["d1", "d2", "d3", "d4"]),
            st.sampled_from([(2, 11), (32, 37), (0, 1)]),
            st.sampled_from(["C:1", "C:2"]),
            st.booleans(),
        ),
        max_size=25,
    ),
    st.integers(2, 4),
)
def test_filtering_only_removes_and_threshold_zero_removes_nothing(items, folds):
    preds: dict[str, list[Annotation]] = {d: [] for d in ("d1", "d2", "d3", "d4")}
    right = set()
    for i, (doc, (s, e), cls, ok) in enumerate(items):
        preds[doc].append(ann(str(i), doc, cls, s, e))
        if ok:
            right.add(str(i))
    texts = dict.fromkeys(preds, TEXT)
    correct = lambda a: a.id in right  # noqa: E731
    for out in (
        cross_validated(TermFilter(), preds, texts, correct, folds=folds),
        TermFilter.apply(preds, texts, TermFilter().learn(preds, texts, correct)),
    ):
        assert set(out) == set(preds)
        assert all({a.id for a in out[d]} <= {a.id for a in preds[d]} for d in preds)
        # a term that was always right is never dropped
        assert all(
            a in out[d]
            for d in preds
            for a in preds[d]
            if all(b.id in right for dd in preds for b in preds[dd] if (b.class_id, b.spans) == (a.class_id, a.spans))
        )
    assert cross_validated(TermFilter(threshold=0.0), preds, texts, correct, folds=folds) == preds
