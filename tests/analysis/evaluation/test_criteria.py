"""The Tsai et al. (2006) matching criteria on hand-built spans; expected values by hand."""

from __future__ import annotations

import pytest

from craftrdf.analysis.evaluation.criteria import (
    CRITERIA,
    CriterionScores,
    criteria_scores,
    related_by_ancestors,
    tokens,
    total_criteria,
)
from craftrdf.core.model import Annotation, Span

#       0123456789012345678901234
TEXT = "the red blood cell count"
# tokens: the [0,3) red [4,7) blood [8,13) cell [14,18) count [19,24)


def ann(cls, *spans, id="T"):
    return Annotation(id, "doc", cls, tuple(Span(a, b) for a, b in spans))


def tps(refs, preds, **kw):
    return {s.criterion: s.tp for s in criteria_scores(refs, preds, text=TEXT, **kw)}


REF = [ann("A", (4, 18))]  # "red blood cell"


@pytest.mark.parametrize(
    ("pred", "expected"),
    [
        ((4, 18), {"exact": 1, "left": 1, "right": 1, "left_or_right": 1, "approximate": 1, "partial": 1}),
        ((4, 13), {"exact": 0, "left": 1, "right": 0, "left_or_right": 1, "approximate": 1, "partial": 1}),
        ((8, 18), {"exact": 0, "left": 0, "right": 1, "left_or_right": 1, "approximate": 1, "partial": 1}),
        ((0, 13), {"exact": 0, "left": 0, "right": 0, "left_or_right": 0, "approximate": 0, "partial": 1}),
        ((0, 24), {"exact": 0, "left": 0, "right": 0, "left_or_right": 0, "approximate": 1, "partial": 1}),
        ((19, 24), {"exact": 0, "left": 0, "right": 0, "left_or_right": 0, "approximate": 0, "partial": 0}),
    ],
)
def test_span_criteria(pred, expected):
    got = tps(REF, [ann("A", pred)], criteria=[c for c in CRITERIA if c != "fragment"])
    assert got == expected


def test_exact_needs_identical_span_lists():
    ref = [ann("A", (4, 7), (14, 18))]
    assert tps(ref, [ann("A", (4, 7), (14, 18))], criteria=["exact"]) == {"exact": 1}
    # same first and last character, not the same pieces
    assert tps(ref, [ann("A", (4, 18))], criteria=["exact", "left", "right", "approximate"]) == {
        "exact": 0,
        "left": 1,
        "right": 1,
        "approximate": 1,
    }


def test_gap_of_a_discontinuous_reference_is_no_overlap():
    ref = [ann("A", (4, 7), (14, 18))]  # "red ... cell"
    assert tps(ref, [ann("A", (8, 13))], criteria=["partial"]) == {"partial": 0}


def test_fragment_counts_tokens():
    s = criteria_scores(REF, [ann("A", (8, 18))], criteria=["fragment"], text=TEXT)[0]
    # ref units: red, blood, cell (3); pred units: blood, cell (2); both matched
    assert (s.tp, s.ref_count, s.pred_count) == (2, 3, 2)
    assert (s.precision, s.recall) == (1.0, pytest.approx(2 / 3))
    s = criteria_scores(REF, [ann("A", (0, 13))], criteria=["fragment"], text=TEXT)[0]
    # pred units: the, red, blood; matched: red, blood
    assert (s.tp, s.ref_count, s.pred_count) == (2, 3, 3)


def test_fragment_token_touched_by_a_partial_span():
    # "ed bl" touches red and blood
    s = criteria_scores(REF, [ann("A", (5, 10))], criteria=["fragment"], text=TEXT)[0]
    assert (s.tp, s.ref_count, s.pred_count) == (2, 3, 2)


def test_fragment_one_prediction_unit_per_reference_unit():
    refs = [ann("A", (4, 7)), ann("B", (4, 18))]
    preds = [ann("A", (4, 7))]
    s = criteria_scores(refs, preds, criteria=["fragment"], text=TEXT)[0]
    # ref units: red(A), red(B), blood(B), cell(B); pred units: red(A); one match
    assert (s.tp, s.ref_count, s.pred_count) == (1, 4, 1)
    s = criteria_scores(refs, preds, criteria=["fragment"], text=TEXT, classes="ignore")[0]
    assert s.tp == 1


def test_fragment_left_out_without_text():
    assert [s.criterion for s in criteria_scores(REF, REF)] == list(CRITERIA[:-1])


def test_tokens_split_on_whitespace_and_punctuation():
    assert tokens("IL-2, p53_x") == [Span(0, 2), Span(3, 4), Span(6, 9), Span(10, 11)]


# -- classes --------------------------------------------------------------------------

REL = related_by_ancestors({"A": ["B", "R"], "B": ["R"], "C": ["B", "R"], "R": []}.__getitem__)


def test_class_modes():
    pred = [ann("B", (4, 18))]
    assert tps(REF, pred, criteria=["exact"]) == {"exact": 0}
    assert tps(REF, pred, criteria=["exact"], classes="ignore") == {"exact": 1}
    # B is A's parent; R an ancestor
    assert tps(REF, pred, criteria=["exact"], classes="hierarchy", related=REL) == {"exact": 1}
    assert tps(REF, [ann("R", (4, 18))], criteria=["exact"], classes="hierarchy", related=REL) == {"exact": 1}
    # C is a sibling of A: neither ancestor nor descendant
    assert tps(REF, [ann("C", (4, 18))], criteria=["exact"], classes="hierarchy", related=REL) == {"exact": 0}
    # a descendant of the reference
    assert tps([ann("B", (4, 18))], [ann("A", (4, 18))], criteria=["exact"], classes="hierarchy", related=REL) == {
        "exact": 1
    }


def test_related_by_ancestors_unknown_terms():
    rel = related_by_ancestors({"A": ["B"]}.__getitem__)
    assert rel("X", "X") and not rel("X", "A") and rel("A", "B")


def test_bad_arguments():
    with pytest.raises(ValueError, match="hierarchy"):
        criteria_scores(REF, REF, classes="hierarchy")
    with pytest.raises(ValueError, match="criterion"):
        criteria_scores(REF, REF, criteria=["middle"])
    with pytest.raises(ValueError, match="class mode"):
        criteria_scores(REF, REF, classes="loose")  # type: ignore[arg-type]


# -- one-to-many ------------------------------------------------------------------------


def test_each_side_counted_once_with_a_maximum_matching():
    # R1=[0,20) overlaps P1=[0,5) and P2=[10,20); R2=[0,5) overlaps only P1.
    # Pairing R1 with P1 first would leave R2 out; the maximum matching pairs both.
    refs = [ann("A", (0, 20)), ann("A", (0, 5))]
    preds = [ann("A", (0, 5)), ann("A", (10, 20))]
    s = {x.criterion: x for x in criteria_scores(refs, preds, criteria=["partial", "left"])}
    assert (s["partial"].tp, s["partial"].precision, s["partial"].recall) == (2, 1.0, 1.0)
    # left: R1-P1 and R2-P1 share the start 0, only one of them counts
    assert s["left"].tp == 1


def test_one_prediction_over_two_references():
    refs = [ann("A", (0, 5)), ann("A", (6, 10))]
    s = criteria_scores(refs, [ann("A", (0, 10))], criteria=["partial", "approximate"])
    assert [(x.tp, x.precision, x.recall) for x in s] == [(1, 1.0, 0.5), (1, 1.0, 0.5)]


def test_two_predictions_in_one_reference():
    preds = [ann("A", (0, 4)), ann("A", (5, 10))]
    (s,) = criteria_scores([ann("A", (0, 10))], preds, criteria=["partial"])
    assert (s.tp, s.precision, s.recall) == (1, 0.5, 1.0)


def test_large_chain_uses_a_maximum_matching():
    # ref i = [10i, 10i+10) overlaps pred i-1 and pred i, pred j = [10j+5, 10j+15)
    refs = [ann("A", (10 * i, 10 * i + 10)) for i in range(100)]
    preds = [ann("A", (10 * j + 5, 10 * j + 15)) for j in range(100)]
    assert criteria_scores(refs, preds, criteria=["partial"])[0].tp == 100
    # without pred 0, ref 0 overlaps nothing
    assert criteria_scores(refs, preds[1:], criteria=["partial"])[0].tp == 99


# -- edge cases and totals -------------------------------------------------------------------


def test_edge_cases():
    s = CriterionScores("exact", "exact", 0, 0, 0)
    assert (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)
    s = CriterionScores("exact", "exact", 0, 0, 3)
    assert (s.precision, s.recall, s.f1) == (0.0, 0.0, 0.0)
    s = CriterionScores("exact", "exact", 0, 2, 0)
    assert (s.precision, s.recall, s.f1) == (0.0, 0.0, 0.0)
    s = CriterionScores("exact", "exact", 1, 2, 4)
    assert (s.precision, s.recall, s.f1) == (0.25, 0.5, pytest.approx(1 / 3))


def test_totals():
    a = CriterionScores("exact", "exact", 1, 2, 2)
    b = CriterionScores("exact", "exact", 2, 2, 3)
    c = CriterionScores("left", "exact", 0, 1, 1)
    assert total_criteria([a, c, b]) == [
        CriterionScores("exact", "exact", 3, 4, 5),
        CriterionScores("left", "exact", 0, 1, 1),
    ]
