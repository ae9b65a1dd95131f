"""Scoring inside the sweep: exact-span counts by hand, SER equal to the official scorer's (by hand and per document)."""

from __future__ import annotations

import random
import warnings
from decimal import Decimal

import pytest

from craftrdf.analysis.evaluation.official import score_official
from craftrdf.analysis.evaluation.official_graph import OfficialGraph, OfficialWang
from craftrdf.analysis.evaluation.scores import total
from craftrdf.core.model import Annotation, Span
from craftrdf.matching.sweeps.score import ExactCounts, GoldStandard

#: A1, A2 under A; B1, B2 under B; C1 alone; Z9 not declared (left out on both sides)
GRAPH = OfficialGraph(
    frozenset({"A", "A1", "A2", "B", "B1", "B2", "C1"}),
    {"A1": ("A",), "A2": ("A",), "B1": ("B",), "B2": ("B",)},
)


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
    counts = GoldStandard("X", gold, None).exact(pred)
    assert (counts.tp, counts.fp, counts.fn) == (2, 3, 2)
    assert counts.precision == pytest.approx(0.4) and counts.recall == pytest.approx(0.5)
    assert counts.f1 == pytest.approx(0.4 / 0.9)


def test_exact_counts_ignore_documents_without_gold_and_count_duplicates_once():
    gold = {"d1": [ann("d1", "A1", (0, 5))]}
    pred = {
        "d1": [ann("d1", "A1", (0, 5), id="M1"), ann("d1", "A1", (0, 5), id="M2")],
        "other": [ann("other", "A1", (0, 5))],
    }
    assert GoldStandard("X", gold, None).exact(pred) == ExactCounts(1, 0, 0)
    assert ExactCounts(0, 0, 0).f1 == 0.0


@pytest.mark.parametrize("seed", range(25))
def test_ser_equals_the_official_scorer_document_by_document(seed):
    """Gold prepared once and scored twice: the totals of score_official over the same documents."""
    rng = random.Random(seed)
    classes = ["A1", "A2", "B1", "B2", "C1", "Z9"]

    def random_ann(doc: str, i: int) -> Annotation:
        start = rng.randrange(0, 200)
        spans = [(start, start + rng.randrange(1, 15))]
        if rng.random() < 0.2:
            s2 = spans[0][1] + rng.randrange(2, 10)
            spans.append((s2, s2 + rng.randrange(1, 8)))
        return ann(doc, rng.choice(classes), *spans, id=f"T{i}")

    docs = ["d1", "d2", "d3"]
    gold = {d: [random_ann(d, i) for i in range(rng.randrange(0, 30))] for d in docs}
    wang = OfficialWang(GRAPH)
    standard = GoldStandard("X", gold, wang)
    for _ in range(2):
        pred = {d: [random_ann(d, i) for i in range(rng.randrange(0, 30))] for d in docs[:2]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = total(score_official(gold[d], pred.get(d, []), OfficialWang(GRAPH), set_key="X") for d in docs)
        got = standard.ser(pred)
        assert got.exact == expected.exact
        assert (got.insertions, got.deletions, got.ref_count, got.pred_count) == (
            expected.insertions,
            expected.deletions,
            expected.ref_count,
            expected.pred_count,
        )
        assert got.ser == expected.ser


def test_ser_of_a_hand_made_document():
    # gold A1 [0,10); prediction A2 [0,5): Jaccard 0.5; Wang(A1, A2) with A1 -> A, A2 -> A:
    # common ancestor A: (0.65 + 0.65) / (1.65 + 1.65) = 0.3939393939 (10 decimals), so M = 0.19696969695.
    # B1 [30,40) overlaps no gold: an insertion; Z9 is not declared: left out (P = 2, not 3).
    gold = {"d": [ann("d", "A1", (0, 10))]}
    pred = {"d": [ann("d", "A2", (0, 5), id="T1"), ann("d", "B1", (30, 40), id="T2"), ann("d", "Z9", (0, 10), id="T3")]}
    s = GoldStandard("X", gold, OfficialWang(GRAPH)).ser(pred)
    assert s.exact == Decimal("0.19696969695")
    assert (s.insertions, s.deletions, s.ref_count, s.pred_count) == (1, 0, 1, 2)
    # S = N - D - M = 0.80303030305; SER = (S + I + D) / N = 1.80303030305 -> 1.8030303031 (10 decimals, half up)
    assert s.rates.ser == Decimal("1.8030303031")


def test_ser_without_an_ontology_counts_exact_classes_only():
    # no graph: A1 against A2 on the same span is a substitution worth 0, not Wang credit
    gold = {"d": [ann("d", "A1", (0, 10))]}
    pred = {"d": [ann("d", "A2", (0, 10), id="T1"), ann("d", "A1", (20, 30), id="T2")]}
    s = GoldStandard("X", gold, None).ser(pred)
    assert (s.matches, s.insertions, s.deletions, s.ref_count, s.pred_count) == (0.0, 1, 0, 1, 2)
    assert s.ser == 2.0  # S = 1 - 0 - 0 = 1, I = 1


def test_exact_keys_compare_classes_under_the_official_renaming():
    # the rules of CraftConceptEvaluationUtil.translateExtensionToBaseNamespace (docs/evaluation.md):
    # [A-Z]+_EXT:<digits> loses _EXT in +extensions sets but GO_MF_EXT, and so do PR_EXT UniProt ids
    from craftrdf.matching.sweeps.score import exact_key

    def cls(class_id: str, set_key: str) -> str:
        return exact_key(Annotation("d", ((0, 1),), class_id, "x"), set_key)[2]

    assert cls("SO_EXT:0000704", "SO_EXT") == "SO:0000704"
    assert cls("SO_EXT:0000704", "so_ext") == "SO:0000704"  # the key in any case
    assert cls("SO_EXT:0000704", "SO") == "SO_EXT:0000704"  # not an +extensions set
    assert cls("GO_EXT:0000001", "GO_MF_EXT") == "GO_EXT:0000001"  # the one exception
    assert cls("UBERON_EXT:bone_element_or_tissue", "UBERON_EXT") == "UBERON_EXT:bone_element_or_tissue"
    assert cls("NCBITaxon_EXT:9606", "NCBITAXON_EXT") == "NCBITaxon_EXT:9606"  # the pattern is upper-case
    assert cls("PR_EXT:P12345", "PR_EXT") == "PR:P12345"  # a UniProt accession
