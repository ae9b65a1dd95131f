"""The Shared Task metric on hand-built documents, every expected value computed by hand.

Each case is checked on the official scorer (``craftrdf.analysis.evaluation.official``, with an
identity similarity: :func:`exact_wang`, a graph with no edge) and on the float oracle of
``tests/helpers/bossy.py``, written from the metric's definition; where the two rules differ
(ties, EXACT on reordered pieces) the case says so and checks the oracle only (the official
rule has its own test in test_official.py). A property test then holds the official scorer
against the oracle on random documents over the toy ontology.
"""

from __future__ import annotations

import itertools
import warnings
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from craftrdf.analysis.evaluation.official import exact_wang, official_class, score_official
from craftrdf.analysis.evaluation.official_graph import OfficialWang, read_official_graph
from craftrdf.analysis.evaluation.scores import Scores, total
from craftrdf.core.errors import DataWarning
from craftrdf.core.model import Annotation, Span
from tests.helpers import bossy
from tests.helpers.corpus import DATA


def ann(cls, *spans, id="T"):
    return Annotation(id, "doc", cls, tuple(Span(a, b) for a, b in spans))


def ids(anns):
    """The annotations with distinct T ids (the official scorer keeps one annotation per id)."""
    return [Annotation(f"T{k}", a.document, a.class_id, a.spans, a.text, a.annotator) for k, a in enumerate(anns)]


def identity(a, b):
    return 1.0 if a == b else 0.0


def table(values):
    def sim(a, b):
        if a == b:
            return 1.0
        return values.get((a, b), values.get((b, a), 0.0))

    return sim


def official(refs, preds, *, boundary="jaccard", set_key=None, known=None):
    """The official score with identity similarity; ``known`` the declared classes (default: every class seen)."""
    classes = known if known is not None else {a.class_id for a in (*refs, *preds)}
    wang = exact_wang(classes, set_key or "")
    return score_official(ids(refs), ids(preds), wang, boundary=boundary, set_key=set_key)


def check(s, *, m, i, d, n, p, ser, precision, recall, f1):
    assert float(s.matches) == pytest.approx(m)
    assert (s.insertions, s.deletions, s.ref_count, s.pred_count) == (i, d, n, p)
    assert float(s.substitutions) == pytest.approx(n - d - m)
    assert s.ser == pytest.approx(ser)
    assert s.precision == pytest.approx(precision)
    assert s.recall == pytest.approx(recall)
    assert s.f1 == pytest.approx(f1)


def both(refs, preds, *, boundary="jaccard", **expected):
    """Check the official scorer and the oracle (identity similarity) against the same hand-computed values."""
    check(official(refs, preds, boundary=boundary), **expected)
    check(bossy.score_document(refs, preds, identity, boundary=boundary), **expected)


# -- edge cases ---------------------------------------------------------------------


def test_no_reference_no_prediction():
    both([], [], m=0, i=0, d=0, n=0, p=0, ser=0, precision=1, recall=1, f1=1)


def test_predictions_without_reference():
    both([], [ann("A", (0, 3)), ann("A", (5, 8))], m=0, i=2, d=0, n=0, p=2, ser=1, precision=0, recall=0, f1=0)


def test_reference_without_predictions():
    both([ann("A", (0, 3))], [], m=0, i=0, d=1, n=1, p=0, ser=1, precision=0, recall=0, f1=0)


# -- boundaries ---------------------------------------------------------------------


def test_jaccard_partial_overlap():
    # [0,10) vs [5,15): 5 common characters of 15 -> M = 1/3, S = 1 - 0 - 1/3
    both(
        [ann("A", (0, 10))],
        [ann("A", (5, 15))],
        m=1 / 3,
        i=0,
        d=0,
        n=1,
        p=1,
        ser=2 / 3,
        precision=1 / 3,
        recall=1 / 3,
        f1=1 / 3,
    )


@pytest.mark.parametrize(
    ("ref", "pred", "expected"),
    [
        # ref chars {0,1,2,6,7,8}, pred {0..8}: 6 common of 9
        (((0, 3), (6, 9)), ((0, 9),), 2 / 3),
        # ref {0..3, 10..13} (8), pred {2..11} (10): common {2,3,10,11} = 4, union 14
        (((0, 4), (10, 14)), ((2, 12),), 4 / 14),
        # both discontinuous, pieces out of text order: {0..2, 8..9} vs {1..2, 8..11}: 4 of 7
        (((8, 10), (0, 3)), ((1, 3), (8, 12)), 4 / 7),
        # pieces [0,5) and [3,8) cover {0..7}: 8 characters, not 10
        (((0, 5), (3, 8)), ((0, 8),), 1.0),
    ],
)
def test_jaccard_over_the_characters_of_discontinuous_spans(ref, pred, expected):
    assert bossy.jaccard(tuple(Span(*s) for s in ref), tuple(Span(*s) for s in pred)) == pytest.approx(expected)
    assert float(official([ann("A", *ref)], [ann("A", *pred)]).matches) == pytest.approx(expected)


def test_discontinuous_gap_is_not_an_overlap():
    # the prediction lies in the gap of the reference: no common character, no candidate
    both([ann("A", (0, 3), (6, 9))], [ann("A", (3, 6))], m=0, i=1, d=1, n=1, p=1, ser=2, precision=0, recall=0, f1=0)


def test_discontinuous_in_a_document_score():
    refs, preds = [ann("A", (0, 4), (10, 14))], [ann("A", (2, 12))]
    both(refs, preds, m=2 / 7, i=0, d=0, n=1, p=1, ser=5 / 7, precision=2 / 7, recall=2 / 7, f1=2 / 7)


def test_exact_boundary():
    assert bossy.boundary_score((Span(0, 3), Span(6, 9)), (Span(0, 3), Span(6, 9)), "exact") == 1.0
    assert bossy.boundary_score((Span(0, 9),), (Span(0, 8),), "exact") == 0.0
    # the oracle compares the lists as given; the official scorer sorts them first (test_official.py)
    assert bossy.boundary_score((Span(0, 3), Span(6, 9)), (Span(6, 9), Span(0, 3)), "exact") == 0.0
    assert official([ann("A", (0, 3), (6, 9))], [ann("A", (6, 9), (0, 3))], boundary="exact").matches == 1
    with pytest.raises(ValueError, match="fuzzy"):
        bossy.boundary_score((Span(0, 1),), (Span(0, 1),), "fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fuzzy"):
        official([], [], boundary="fuzzy")


def test_exact_boundary_overlapping_pair_is_a_substitution():
    # the pair overlaps, so it is a candidate; its score is 0: one substitution, no D, no I
    refs, preds = [ann("A", (0, 10))], [ann("A", (0, 5))]
    both(refs, preds, boundary="exact", m=0, i=0, d=0, n=1, p=1, ser=1, precision=0, recall=0, f1=0)


# -- similarity (the oracle's: any function; the official Wang has its own tests) -----------------


def test_similarity_multiplies_boundary():
    sim = table({("A", "B"): 0.5})
    s = bossy.score_document([ann("A", (0, 10))], [ann("B", (0, 10))], sim)
    check(s, m=0.5, i=0, d=0, n=1, p=1, ser=0.5, precision=0.5, recall=0.5, f1=0.5)
    # half the boundary times half the class: 0.25
    s = bossy.score_document([ann("A", (0, 10))], [ann("B", (5, 10))], sim)
    assert s.matches == pytest.approx(0.25)


def test_similarity_is_called_reference_first():
    calls = []

    def sim(a, b):
        calls.append((a, b))
        return 1.0

    bossy.score_document([ann("R", (0, 1))], [ann("P", (0, 1))], sim)
    assert calls == [("R", "P")]


# -- pairing ----------------------------------------------------------------------------


def test_greedy_by_score_not_first_come():
    # R1=[0,10), R2=[6,10), P1=[4,10). R1-P1 = 6/10, R2-P1 = 4/6. First come would pair R1;
    # by score R2 wins, R1 is a deletion. M = 2/3, D = 1, S = 2 - 1 - 2/3 = 1/3.
    refs = [ann("A", (0, 10), id="R1"), ann("A", (6, 10), id="R2")]
    preds = [ann("A", (4, 10), id="P1")]
    assert bossy.pair_annotations(refs, preds, identity) == [bossy.Pair(1, 0, pytest.approx(2 / 3))]
    both(refs, preds, m=2 / 3, i=0, d=1, n=2, p=1, ser=2 / 3, precision=2 / 3, recall=1 / 3, f1=4 / 9)


def test_greedy_prefers_better_prediction():
    # P1=[0,5) scores 0.5 with R1, P2=[0,10) scores 1: P2 is kept, P1 is an insertion
    refs = [ann("A", (0, 10))]
    preds = [ann("A", (0, 5)), ann("A", (0, 10))]
    assert bossy.pair_annotations(refs, preds, identity) == [bossy.Pair(0, 1, 1.0)]
    both(refs, preds, m=1, i=1, d=0, n=1, p=2, ser=1, precision=0.5, recall=1, f1=2 / 3)


def test_class_changes_the_pairing():
    # same spans; R1 (A) and R2 (B) on [0,10), P1 (B) on [0,10): P1 pairs with R2 (score 1), R1 is a deletion
    refs = [ann("A", (0, 10)), ann("B", (0, 10))]
    preds = [ann("B", (0, 10))]
    assert bossy.pair_annotations(refs, preds, identity) == [bossy.Pair(1, 0, 1.0)]
    both(refs, preds, m=1, i=0, d=1, n=2, p=1, ser=0.5, precision=1, recall=0.5, f1=2 / 3)


def test_oracle_breaks_ties_by_reference_then_prediction_position():
    # the official scorer breaks ties by Java's hash order instead (test_official.py::test_tie_follows_java_hash_order)
    refs = [ann("A", (0, 10), id="R1"), ann("A", (0, 10), id="R2")]
    preds = [ann("A", (0, 10), id="P1")]
    assert bossy.pair_annotations(refs, preds, identity) == [bossy.Pair(0, 0, 1.0)]
    preds = [ann("A", (0, 10), id="P1"), ann("A", (0, 10), id="P2")]
    assert bossy.pair_annotations(refs[:1], preds, identity) == [bossy.Pair(0, 0, 1.0)]
    # a second pass pairs the leftovers with each other
    assert bossy.pair_annotations(refs, preds, identity) == [bossy.Pair(0, 0, 1.0), bossy.Pair(1, 1, 1.0)]


def test_chain_of_overlaps():
    # R1=[0,10) A, R2=[10,20) A; P1=[5,15) A overlaps both with 5/15 each; tie -> R1 (by position).
    # P2=[10,20) B scores 0 with R2 (identity): kept as a substitution.
    refs = [ann("A", (0, 10)), ann("A", (10, 20))]
    preds = [ann("A", (5, 15)), ann("B", (10, 20))]
    kept = bossy.pair_annotations(refs, preds, identity)
    assert [(k.ref, k.pred) for k in kept] == [(0, 0), (1, 1)]
    s = bossy.score_document(refs, preds, identity)
    check(s, m=1 / 3, i=0, d=0, n=2, p=2, ser=(2 - 1 / 3) / 2, precision=1 / 6, recall=1 / 6, f1=1 / 6)
    # the official hash order iterates ref_1 before ref_0, so (R2, P1) is kept and blocks the others
    s = official(refs, preds)
    check(s, m=1 / 3, i=1, d=1, n=2, p=2, ser=(2 - 1 - 1 / 3 + 1 + 1) / 2, precision=1 / 6, recall=1 / 6, f1=1 / 6)


# -- classes ------------------------------------------------------------------------------


def test_parallel_classes_renamed_in_extension_sets():
    assert official_class("SO_EXT:0000704", "SO_EXT") == "SO:0000704"
    assert official_class("CHEBI_EXT:12345", "chebi_ext") == "CHEBI:12345"
    assert official_class("SO_EXT:0000704", "SO") == "SO_EXT:0000704"
    assert official_class("GO_EXT:0000001", "GO_MF_EXT") == "GO_EXT:0000001"
    assert official_class("UBERON_EXT:bone_element_or_tissue", "UBERON_EXT") == "UBERON_EXT:bone_element_or_tissue"
    assert official_class("SO_EXT:0000704a", "SO_EXT") == "SO_EXT:0000704a"


def test_parallel_classes_renamed_on_both_sides_before_the_ontology_test():
    known = {"SO:0000704", "SO:0000001"}
    refs = [ann("SO_EXT:0000704", (0, 4))]
    preds = [ann("SO:0000704", (0, 4))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = official(refs, preds, set_key="SO_EXT", known=known)
        check(s, m=1, i=0, d=0, n=1, p=1, ser=0, precision=1, recall=1, f1=1)
        # the other way round too
        assert official(preds, refs, set_key="SO_EXT", known=known).matches == 1


def test_go_mf_ext_keeps_parallel_ids():
    refs = [ann("GO_EXT:0000001", (0, 4))]
    preds = [ann("GO:0000001", (0, 4))]
    check(official(refs, preds, set_key="GO_MF_EXT"), m=0, i=0, d=0, n=1, p=1, ser=1, precision=0, recall=0, f1=0)


def test_classes_outside_the_ontology_are_left_out_with_a_warning():
    refs = [ann("A", (0, 4)), ann("Z", (10, 14))]
    preds = [ann("A", (0, 4)), ann("Y", (20, 24)), ann("Z", (10, 14))]
    with pytest.warns(DataWarning, match="Y, Z"):
        s = official(refs, preds, known={"A"})
    check(s, m=1, i=0, d=0, n=1, p=1, ser=0, precision=1, recall=1, f1=1)
    with pytest.warns(DataWarning, match="Y, Z"):
        s = bossy.score_document(refs, preds, identity, known={"A"})
    check(s, m=1, i=0, d=0, n=1, p=1, ser=0, precision=1, recall=1, f1=1)


def test_no_warning_when_every_class_is_known():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        official([ann("A", (0, 1))], [ann("A", (0, 1))], known={"A"})


# -- totals -------------------------------------------------------------------------------


def test_totals_sum_counts_then_apply_the_formulas():
    doc1 = Scores(matches=1.0, insertions=0, deletions=0, ref_count=1, pred_count=1, exact=Decimal(1))
    doc2 = Scores(matches=0.0, insertions=1, deletions=1, ref_count=1, pred_count=1, exact=Decimal(0))
    empty = Scores(0.0, 0, 0, 0, 0, Decimal(0))
    t = total([doc1, doc2, empty])
    check(t, m=1, i=1, d=1, n=2, p=2, ser=1, precision=0.5, recall=0.5, f1=0.5)
    # not the mean of the documents' SERs (0 and 2 and 0)
    assert total([]) == empty
    check(total([]), m=0, i=0, d=0, n=0, p=0, ser=0, precision=1, recall=1, f1=1)
    f = bossy.total([bossy.FloatScores(1.0, 0, 0, 1, 1), bossy.FloatScores(0.0, 1, 1, 1, 1)])
    check(f, m=1, i=1, d=1, n=2, p=2, ser=1, precision=0.5, recall=0.5, f1=0.5)


def test_totals_with_predictions_only_documents():
    # doc A: N=2, M=1.5, D=0, I=0; doc B: N=0, P=1 (I=1). Total: N=2, P=3, M=1.5, I=1, D=0
    a = Scores(1.5, 0, 0, 2, 2, Decimal("1.5"))
    b = Scores(0.0, 1, 0, 0, 1, Decimal(0))
    check(total([a, b]), m=1.5, i=1, d=0, n=2, p=3, ser=(0.5 + 1) / 2, precision=0.5, recall=0.75, f1=0.6)


def test_rates_are_the_official_scorer_s_rounded_values():
    # M = 1, N = 3, P = 6: P = 0.1666666667 (half-up), R = 0.3333333333; F1 from those rounded values:
    # 2 * 0.1666666667 * 0.3333333333 / 0.5 = 0.22222222224444444444 -> 0.2222222222
    r = Scores(1.0, 5, 2, 3, 6, Decimal(1)).rates
    assert (r.precision, r.recall, r.f1) == (Decimal("0.1666666667"), Decimal("0.3333333333"), Decimal("0.2222222222"))
    # S = 3 - 2 - 1 = 0; SER = (0 + 5 + 2) / 3 = 2.3333333333
    assert r.ser == Decimal("2.3333333333")


# -- properties ----------------------------------------------------------------------------


@st.composite
def annotations(draw, classes="ABC", max_size=6):
    out = []
    for k in range(draw(st.integers(0, max_size))):
        pieces = []
        for _ in range(draw(st.integers(1, 2))):
            start = draw(st.integers(0, 40))
            pieces.append((start, start + draw(st.integers(1, 10))))
        out.append(ann(draw(st.sampled_from(classes)), *pieces, id=f"T{k}"))
    return out


SIM = table({("A", "B"): 0.6, ("B", "C"): 0.3, ("A", "C"): 0.1})


@settings(max_examples=150, deadline=None)
@given(annotations(), annotations(), st.sampled_from(["exact", "jaccard"]))
def test_scores_within_bounds(refs, preds, boundary):
    for s in (bossy.score_document(refs, preds, SIM, boundary=boundary), official(refs, preds, boundary=boundary)):
        assert 0 <= s.matches <= min(s.ref_count, s.pred_count)
        assert s.substitutions >= 0
        assert s.ser >= 0
        for v in (s.precision, s.recall, s.f1):
            assert 0 <= v <= 1
        assert s.ref_count == len(refs) and s.pred_count == len(preds)
    kept = bossy.pair_annotations(refs, preds, SIM, boundary=boundary)
    assert len({k.ref for k in kept}) == len(kept) == len({k.pred for k in kept})


@settings(max_examples=150, deadline=None)
@given(annotations(), st.sampled_from(["exact", "jaccard"]))
def test_gold_against_itself_is_perfect(refs, boundary):
    for s in (
        bossy.score_document(refs, list(refs), identity, boundary=boundary),
        official(refs, refs, boundary=boundary),
    ):
        assert s.ser == 0
        assert s.f1 == 1
        assert s.matches == len(refs)


@settings(max_examples=100, deadline=None)
@given(annotations(), annotations())
def test_oracle_is_deterministic(refs, preds):
    assert bossy.pair_annotations(refs, preds, SIM) == bossy.pair_annotations(refs, preds, SIM)


TOY = OfficialWang(read_official_graph(DATA / "evaluation" / "official_toy.obo"))
TOY_CLASSES = [f"TOY:000000{i}" for i in range(1, 10)] + ["TOY_EXT:bone_or_cartilage"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(annotations(TOY_CLASSES, 5), annotations(TOY_CLASSES, 5), st.sampled_from(["exact", "jaccard"]))
def test_official_scorer_agrees_with_the_float_oracle_when_no_scores_tie(refs, preds, boundary):
    """Over the toy ontology's Wang similarity, with every candidate pair's score distinct (ties are
    broken differently), the official scorer's counts and rates are the oracle's, to rounding."""
    sim = lambda a, b: float(TOY.similarity(a, b))  # noqa: E731
    scores = sorted(
        bossy.boundary_score(r.spans, p.spans, boundary) * sim(r.class_id, p.class_id)
        for r in refs
        for p in preds
        if bossy.jaccard(r.spans, p.spans) > 0
    )
    assume(all(b - a > 1e-8 for a, b in itertools.pairwise(scores)))
    expected = bossy.score_document(refs, preds, sim, boundary=boundary)
    s = score_official(refs, preds, TOY, boundary=boundary)
    assert (s.insertions, s.deletions, s.ref_count, s.pred_count) == (
        expected.insertions,
        expected.deletions,
        expected.ref_count,
        expected.pred_count,
    )
    for got, want in [(float(s.matches), expected.matches), (s.ser, expected.ser), (s.precision, expected.precision)]:
        assert got == pytest.approx(want, abs=1e-9)
    assert (s.recall, s.f1) == (pytest.approx(expected.recall, abs=1e-9), pytest.approx(expected.f1, abs=1e-9))
