"""The Shared Task metric on hand-built documents; every expected value computed by hand."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.analysis.evaluation.bossy import (
    Pair,
    Scores,
    boundary_score,
    comparison_class,
    jaccard,
    pair_annotations,
    score_document,
    total,
)
from craftrdf.core.errors import DataWarning
from craftrdf.core.model import Annotation, Span


def ann(cls, *spans, id="T"):
    return Annotation(id, "doc", cls, tuple(Span(a, b) for a, b in spans))


def identity(a, b):
    return 1.0 if a == b else 0.0


def table(values):
    def sim(a, b):
        if a == b:
            return 1.0
        return values.get((a, b), values.get((b, a), 0.0))

    return sim


def check(s, *, m, i, d, n, p, ser, precision, recall, f1):
    assert s.matches == pytest.approx(m)
    assert (s.insertions, s.deletions, s.ref_count, s.pred_count) == (i, d, n, p)
    assert s.substitutions == pytest.approx(n - d - m)
    assert s.ser == pytest.approx(ser)
    assert s.precision == pytest.approx(precision)
    assert s.recall == pytest.approx(recall)
    assert s.f1 == pytest.approx(f1)


# -- edge cases ---------------------------------------------------------------------


def test_no_reference_no_prediction():
    check(score_document([], [], identity), m=0, i=0, d=0, n=0, p=0, ser=0, precision=1, recall=1, f1=1)


def test_predictions_without_reference():
    s = score_document([], [ann("A", (0, 3)), ann("A", (5, 8))], identity)
    check(s, m=0, i=2, d=0, n=0, p=2, ser=1, precision=0, recall=0, f1=0)


def test_reference_without_predictions():
    s = score_document([ann("A", (0, 3))], [], identity)
    check(s, m=0, i=0, d=1, n=1, p=0, ser=1, precision=0, recall=0, f1=0)


# -- boundaries ---------------------------------------------------------------------


def test_jaccard_partial_overlap():
    # [0,10) vs [5,15): 5 common characters of 15 -> M = 1/3, S = 1 - 0 - 1/3
    s = score_document([ann("A", (0, 10))], [ann("A", (5, 15))], identity)
    check(s, m=1 / 3, i=0, d=0, n=1, p=1, ser=2 / 3, precision=1 / 3, recall=1 / 3, f1=1 / 3)


def test_jaccard_discontinuous_reference():
    # ref chars {0,1,2,6,7,8}, pred {0..8}: 6 common of 9
    assert jaccard((Span(0, 3), Span(6, 9)), (Span(0, 9),)) == pytest.approx(2 / 3)
    # ref {0..3, 10..13} (8), pred {2..11} (10): common {2,3,10,11} = 4, union 14
    assert jaccard((Span(0, 4), Span(10, 14)), (Span(2, 12),)) == pytest.approx(4 / 14)
    # both discontinuous, pieces out of text order: {0..2, 8..9} vs {1..2, 8..11}: 4 of 7
    assert jaccard((Span(8, 10), Span(0, 3)), (Span(1, 3), Span(8, 12))) == pytest.approx(4 / 7)


def test_jaccard_overlapping_pieces_counted_once():
    # pieces [0,5) and [3,8) cover {0..7}: 8 characters, not 10
    assert jaccard((Span(0, 5), Span(3, 8)), (Span(0, 8),)) == 1.0


def test_discontinuous_gap_is_not_an_overlap():
    # the prediction lies in the gap of the reference: no common character, no candidate
    s = score_document([ann("A", (0, 3), (6, 9))], [ann("A", (3, 6))], identity)
    check(s, m=0, i=1, d=1, n=1, p=1, ser=2, precision=0, recall=0, f1=0)


def test_discontinuous_in_a_document_score():
    s = score_document([ann("A", (0, 4), (10, 14))], [ann("A", (2, 12))], identity)
    check(s, m=2 / 7, i=0, d=0, n=1, p=1, ser=5 / 7, precision=2 / 7, recall=2 / 7, f1=2 / 7)


def test_exact_boundary():
    assert boundary_score((Span(0, 3), Span(6, 9)), (Span(0, 3), Span(6, 9)), "exact") == 1.0
    assert boundary_score((Span(0, 3), Span(6, 9)), (Span(6, 9), Span(0, 3)), "exact") == 0.0
    assert boundary_score((Span(0, 9),), (Span(0, 8),), "exact") == 0.0
    with pytest.raises(ValueError, match="fuzzy"):
        boundary_score((Span(0, 1),), (Span(0, 1),), "fuzzy")  # type: ignore[arg-type]


def test_exact_boundary_overlapping_pair_is_a_substitution():
    # the pair overlaps, so it is a candidate; its score is 0: one substitution, no D, no I
    s = score_document([ann("A", (0, 10))], [ann("A", (0, 5))], identity, boundary="exact")
    check(s, m=0, i=0, d=0, n=1, p=1, ser=1, precision=0, recall=0, f1=0)


# -- similarity -----------------------------------------------------------------------


def test_similarity_multiplies_boundary():
    sim = table({("A", "B"): 0.5})
    s = score_document([ann("A", (0, 10))], [ann("B", (0, 10))], sim)
    check(s, m=0.5, i=0, d=0, n=1, p=1, ser=0.5, precision=0.5, recall=0.5, f1=0.5)
    # half the boundary times half the class: 0.25
    s = score_document([ann("A", (0, 10))], [ann("B", (5, 10))], sim)
    assert s.matches == pytest.approx(0.25)


def test_similarity_is_called_reference_first():
    calls = []

    def sim(a, b):
        calls.append((a, b))
        return 1.0

    score_document([ann("R", (0, 1))], [ann("P", (0, 1))], sim)
    assert calls == [("R", "P")]


# -- pairing ----------------------------------------------------------------------------


def test_greedy_by_score_not_first_come():
    # R1=[0,10), R2=[6,10), P1=[4,10). R1-P1 = 6/10, R2-P1 = 4/6. First come would pair R1;
    # by score R2 wins, R1 is a deletion. M = 2/3, D = 1, S = 2 - 1 - 2/3 = 1/3.
    refs = [ann("A", (0, 10), id="R1"), ann("A", (6, 10), id="R2")]
    preds = [ann("A", (4, 10), id="P1")]
    assert pair_annotations(refs, preds, identity) == [Pair(1, 0, pytest.approx(2 / 3))]
    s = score_document(refs, preds, identity)
    check(s, m=2 / 3, i=0, d=1, n=2, p=1, ser=2 / 3, precision=2 / 3, recall=1 / 3, f1=4 / 9)


def test_greedy_prefers_better_prediction():
    # P1=[0,5) scores 0.5 with R1, P2=[0,10) scores 1: P2 is kept, P1 is an insertion
    refs = [ann("A", (0, 10))]
    preds = [ann("A", (0, 5)), ann("A", (0, 10))]
    assert pair_annotations(refs, preds, identity) == [Pair(0, 1, 1.0)]
    s = score_document(refs, preds, identity)
    check(s, m=1, i=1, d=0, n=1, p=2, ser=1, precision=0.5, recall=1, f1=2 / 3)


def test_class_changes_the_pairing():
    # same spans; R1 (A) and R2 (B) on [0,10), P1 (B) on [0,10): P1 pairs with R2 (score 1)
    refs = [ann("A", (0, 10)), ann("B", (0, 10))]
    preds = [ann("B", (0, 10))]
    assert pair_annotations(refs, preds, identity) == [Pair(1, 0, 1.0)]


def test_ties_broken_by_reference_then_prediction_position():
    refs = [ann("A", (0, 10), id="R1"), ann("A", (0, 10), id="R2")]
    preds = [ann("A", (0, 10), id="P1")]
    assert pair_annotations(refs, preds, identity) == [Pair(0, 0, 1.0)]
    preds = [ann("A", (0, 10), id="P1"), ann("A", (0, 10), id="P2")]
    assert pair_annotations(refs[:1], preds, identity) == [Pair(0, 0, 1.0)]
    # a second pass pairs the leftovers with each other
    assert pair_annotations(refs, preds, identity) == [Pair(0, 0, 1.0), Pair(1, 1, 1.0)]


def test_chain_of_overlaps():
    # R1=[0,10) A, R2=[10,20) A; P1=[5,15) A overlaps both with 5/15 each; tie -> R1.
    # P2=[10,20) B scores 0 with R2 (identity): kept as a substitution.
    refs = [ann("A", (0, 10)), ann("A", (10, 20))]
    preds = [ann("A", (5, 15)), ann("B", (10, 20))]
    kept = pair_annotations(refs, preds, identity)
    assert [(k.ref, k.pred) for k in kept] == [(0, 0), (1, 1)]
    s = score_document(refs, preds, identity)
    check(s, m=1 / 3, i=0, d=0, n=2, p=2, ser=(2 - 1 / 3) / 2, precision=1 / 6, recall=1 / 6, f1=1 / 6)


# -- classes ------------------------------------------------------------------------------


def test_parallel_translation_in_extension_sets():
    assert comparison_class("SO_EXT:0000704", "SO_EXT") == "SO:0000704"
    assert comparison_class("CHEBI_EXT:12345", "chebi_ext") == "CHEBI:12345"
    assert comparison_class("SO_EXT:0000704", "SO") == "SO_EXT:0000704"
    assert comparison_class("GO_EXT:0000001", "GO_MF_EXT") == "GO_EXT:0000001"
    assert comparison_class("UBERON_EXT:bone_element_or_tissue", "UBERON_EXT") == "UBERON_EXT:bone_element_or_tissue"
    assert comparison_class("SO_EXT:0000704a", "SO_EXT") == "SO_EXT:0000704a"


def test_parallel_translation_on_both_sides_before_the_ontology_test():
    known = {"SO:0000704", "SO:0000001"}
    refs = [ann("SO_EXT:0000704", (0, 4))]
    preds = [ann("SO:0000704", (0, 4))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = score_document(refs, preds, identity, set_key="SO_EXT", known=known)
    check(s, m=1, i=0, d=0, n=1, p=1, ser=0, precision=1, recall=1, f1=1)
    # the other way round too
    s = score_document(preds, refs, identity, set_key="SO_EXT", known=known)
    assert s.matches == 1


def test_go_mf_ext_keeps_parallel_ids():
    refs = [ann("GO_EXT:0000001", (0, 4))]
    preds = [ann("GO:0000001", (0, 4))]
    s = score_document(refs, preds, identity, set_key="GO_MF_EXT")
    check(s, m=0, i=0, d=0, n=1, p=1, ser=1, precision=0, recall=0, f1=0)


def test_classes_outside_the_ontology_are_left_out_with_a_warning():
    refs = [ann("A", (0, 4)), ann("Z", (10, 14))]
    preds = [ann("A", (0, 4)), ann("Y", (20, 24)), ann("Z", (10, 14))]
    with pytest.warns(DataWarning, match="Y, Z"):
        s = score_document(refs, preds, identity, known={"A"})
    check(s, m=1, i=0, d=0, n=1, p=1, ser=0, precision=1, recall=1, f1=1)
    # a predicate works as well as a set
    with pytest.warns(DataWarning):
        s = score_document(refs, preds, identity, known=lambda c: c == "A")
    assert (s.ref_count, s.pred_count) == (1, 1)


def test_no_warning_when_every_class_is_known():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        score_document([ann("A", (0, 1))], [ann("A", (0, 1))], identity, known={"A"})


# -- totals -------------------------------------------------------------------------------


def test_totals_sum_counts_then_apply_the_formulas():
    doc1 = Scores(matches=1.0, insertions=0, deletions=0, ref_count=1, pred_count=1)
    doc2 = Scores(matches=0.0, insertions=1, deletions=1, ref_count=1, pred_count=1)
    empty = Scores(0.0, 0, 0, 0, 0)
    t = total([doc1, doc2, empty])
    check(t, m=1, i=1, d=1, n=2, p=2, ser=1, precision=0.5, recall=0.5, f1=0.5)
    # not the mean of the documents' SERs (0 and 2 and 0)
    assert total([]) == empty
    check(total([]), m=0, i=0, d=0, n=0, p=0, ser=0, precision=1, recall=1, f1=1)


def test_totals_with_predictions_only_documents():
    # doc A: N=2, M=1.5, D=0, I=0; doc B: N=0, P=1 (I=1). Total: N=2, P=3, M=1.5, I=1, D=0
    a = Scores(1.5, 0, 0, 2, 2)
    b = Scores(0.0, 1, 0, 0, 1)
    check(total([a, b]), m=1.5, i=1, d=0, n=2, p=3, ser=(0.5 + 1) / 2, precision=0.5, recall=0.75, f1=0.6)


# -- properties ----------------------------------------------------------------------------


@st.composite
def annotations(draw, max_size=6):
    out = []
    for k in range(draw(st.integers(0, max_size))):
        pieces = []
        for _ in range(draw(st.integers(1, 2))):
            start = draw(st.integers(0, 40))
            pieces.append((start, start + draw(st.integers(1, 10))))
        out.append(ann(draw(st.sampled_from("ABC")), *pieces, id=f"T{k}"))
    return out


SIM = table({("A", "B"): 0.6, ("B", "C"): 0.3, ("A", "C"): 0.1})


@settings(max_examples=150, deadline=None)
@given(annotations(), annotations(), st.sampled_from(["exact", "jaccard"]))
def test_scores_within_bounds(refs, preds, boundary):
    s = score_document(refs, preds, SIM, boundary=boundary)
    assert 0 <= s.matches <= min(s.ref_count, s.pred_count) + 1e-9
    assert s.substitutions >= -1e-9
    assert s.ser >= 0
    for v in (s.precision, s.recall, s.f1):
        assert 0 <= v <= 1 + 1e-9
    assert s.ref_count == len(refs) and s.pred_count == len(preds)
    kept = pair_annotations(refs, preds, SIM, boundary=boundary)
    assert len({k.ref for k in kept}) == len(kept) == len({k.pred for k in kept})


@settings(max_examples=150, deadline=None)
@given(annotations(), st.sampled_from(["exact", "jaccard"]))
def test_gold_against_itself_is_perfect(refs, boundary):
    s = score_document(refs, list(refs), identity, boundary=boundary)
    assert s.ser == pytest.approx(0)
    assert s.f1 == pytest.approx(1)
    assert s.matches == pytest.approx(len(refs))


@settings(max_examples=100, deadline=None)
@given(annotations(), annotations())
def test_deterministic(refs, preds):
    assert pair_annotations(refs, preds, SIM) == pair_annotations(refs, preds, SIM)
