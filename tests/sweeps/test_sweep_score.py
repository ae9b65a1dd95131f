"""Scoring inside the sweep: exact-span counts by hand, overlap clusters, SER equal to the evaluation's scorer."""

from __future__ import annotations

import random

import pytest

from craftrdf.evaluation.bossy import score_document
from craftrdf.model import Annotation, Span
from craftrdf.sweeps.score import ExactCounts, GoldStandard, overlap_clusters


class Flat:
    """Similarity 1 for equal classes, 0.5 for classes sharing their first letter, else 0; knows A*, B*, C*."""

    def similarity(self, a: str, b: str) -> float:
        return 1.0 if a == b else 0.5 if a[0] == b[0] else 0.0

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and term[:1] in "ABC"


def ann(doc: str, cls: str, *spans: tuple[int, int], id: str = "T") -> Annotation:
    return Annotation(id, doc, cls, tuple(Span(s, e) for s, e in spans))


def test_exact_counts_of_a_hand_made_example():
    gold = {
        "d1": [ann("d1", "A1", (0, 5)), ann("d1", "A2", (10, 15)), ann("d1", "B1", (20, 25), (30, 35))],
        "d2": [ann("d2", "A1", (0, 5))],
    }
    pred = {
        "d1": [
            ann("d1", "A1", (0, 5)),  # TP
            ann("d1", "A3", (10, 15)),  # FP (class), and gold A2 is an FN
            ann("d1", "B1", (30, 35), (20, 25)),  # TP: the same spans in another order
            ann("d1", "C1", (40, 45)),
        ],  # FP
        "d2": [ann("d2", "A1", (0, 4))],
    }  # FP (span), gold A1 of d2 is an FN
    # by hand: TP 2, FP 3, FN 2; P 2/5, R 2/4, F1 = 2*0.4*0.5/0.9
    counts = GoldStandard("X", gold, Flat()).exact(pred)
    assert (counts.tp, counts.fp, counts.fn) == (2, 3, 2)
    assert counts.precision == pytest.approx(0.4) and counts.recall == pytest.approx(0.5)
    assert counts.f1 == pytest.approx(0.4 / 0.9)


def test_exact_counts_ignore_documents_without_gold_and_count_duplicates_once():
    gold = {"d1": [ann("d1", "A1", (0, 5))]}
    pred = {
        "d1": [ann("d1", "A1", (0, 5), id="M1"), ann("d1", "A1", (0, 5), id="M2")],
        "other": [ann("other", "A1", (0, 5))],
    }
    assert GoldStandard("X", gold, Flat()).exact(pred) == ExactCounts(1, 0, 0)
    assert ExactCounts(0, 0, 0).f1 == 0.0


def test_overlap_clusters_by_hand():
    refs = [ann("d", "A", (0, 5)), ann("d", "A", (20, 30)), ann("d", "A", (50, 60))]
    preds = [ann("d", "A", (3, 8)), ann("d", "A", (7, 12)), ann("d", "A", (25, 26)), ann("d", "A", (70, 80))]
    # (0,5)-(3,8)-(7,12) chain; (20,30)-(25,26); (50,60) and (70,80) alone (one side only: left out)
    assert overlap_clusters(refs, preds) == [([0], [0, 1]), ([1], [2])]


def test_touching_extents_are_separate_clusters():
    refs = [ann("d", "A", (0, 5))]
    preds = [ann("d", "A", (5, 9))]
    assert overlap_clusters(refs, preds) == []


@pytest.mark.parametrize("seed", range(25))
def test_ser_equals_the_evaluation_scorer_on_random_documents(seed):
    """The cluster-by-cluster pairing gives the same totals as score_document over the whole document."""
    rng = random.Random(seed)
    classes = ["A1", "A2", "B1", "B2", "C1", "Z9"]  # Z9 is not in the ontology: left out on both sides

    def random_ann(i: int) -> Annotation:
        start = rng.randrange(0, 200)
        spans = [(start, start + rng.randrange(1, 15))]
        if rng.random() < 0.2:
            s2 = spans[0][1] + rng.randrange(2, 10)
            spans.append((s2, s2 + rng.randrange(1, 8)))
        return ann("d", rng.choice(classes), *spans, id=f"T{i}")

    refs = [random_ann(i) for i in range(rng.randrange(0, 30))]
    preds = [random_ann(i) for i in range(rng.randrange(0, 30))]
    sim = Flat()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = score_document(refs, preds, sim.similarity, boundary="jaccard", set_key="X", known=sim)
    got = GoldStandard("X", {"d": refs}, sim).ser({"d": preds})
    assert got.matches == pytest.approx(expected.matches)
    assert (got.insertions, got.deletions, got.ref_count, got.pred_count) == (
        expected.insertions,
        expected.deletions,
        expected.ref_count,
        expected.pred_count,
    )
    assert got.ser == pytest.approx(expected.ser)


def test_ser_of_a_hand_made_document():
    # gold A1 [0,10); prediction A2 [0,5): Jaccard 0.5, similarity 0.5 -> M = 0.25; plus an insertion
    gold = {"d": [ann("d", "A1", (0, 10))]}
    pred = {"d": [ann("d", "A2", (0, 5)), ann("d", "B1", (30, 40))]}
    s = GoldStandard("X", gold, Flat()).ser(pred)
    # N 1, P 2, M 0.25, I 1, D 0, S = 1 - 0 - 0.25 = 0.75; SER = (0.75 + 1 + 0) / 1
    assert (s.matches, s.insertions, s.deletions) == (0.25, 1, 0)
    assert s.ser == pytest.approx(1.75)
