"""Wang similarity as pure functions: the paper's worked example, hand-computed DAGs, and
properties checked against a brute-force implementation that enumerates every path.

Every expected number below is worked out by hand from the definition (the arithmetic is
written out next to it), or taken from the paper; none comes from running this code.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.analysis.similarity.definition import (
    BOSSY_WEIGHTS,
    DEFAULT_WEIGHTS,
    CycleError,
    SimilarityWarning,
    UnknownTermError,
    combine_scores,
    semantic_value,
    semantic_values,
    wang_similarity,
    weighted_dag,
)
from craftrdf.analysis.similarity.wang import WangIndex
from craftrdf.core.errors import InputError

# -- Figure 1 of Wang et al. (2007) ---------------------------------------------------------
# GO:0043231 intracellular membrane-bound organelle is_a GO:0043227 membrane-bound organelle
#   and is_a GO:0043229 intracellular organelle; GO:0043229 is_a GO:0043226 organelle and
#   part_of GO:0005622 intracellular; GO:0043227 is_a GO:0043226; GO:0043226 is_a GO:0005575
#   cellular_component; GO:0005622 part_of GO:0005623 cell; GO:0005623 is_a GO:0005575.
FIG1_EDGES = [
    ("GO:0043231", "is_a", "GO:0043227"),
    ("GO:0043231", "is_a", "GO:0043229"),
    ("GO:0043229", "is_a", "GO:0043226"),
    ("GO:0043229", "part_of", "GO:0005622"),
    ("GO:0043227", "is_a", "GO:0043226"),
    ("GO:0043226", "is_a", "GO:0005575"),
    ("GO:0005622", "part_of", "GO:0005623"),
    ("GO:0005623", "is_a", "GO:0005575"),
]
FIG1 = weighted_dag(FIG1_EDGES, DEFAULT_WEIGHTS)

# S-values of DAG(GO:0043231), is_a 0.8 and part_of 0.6 (the paper's Table 1):
FIG1_S_43231 = {
    "GO:0043231": 1.0,
    "GO:0043229": 0.8,  # is_a from GO:0043231
    "GO:0043227": 0.8,  # is_a from GO:0043231
    "GO:0043226": 0.64,  # 0.8 * 0.8, by either child
    "GO:0005622": 0.48,  # part_of: 0.6 * 0.8
    "GO:0005623": 0.288,  # part_of: 0.6 * 0.48
    "GO:0005575": 0.512,  # max(0.8 * 0.64 via organelle, 0.8 * 0.288 via cell)
}
FIG1_SV_43231 = 1 + 0.8 + 0.8 + 0.64 + 0.48 + 0.288 + 0.512  # 4.52
# S-values of DAG(GO:0043229):
FIG1_S_43229 = {
    "GO:0043229": 1.0,
    "GO:0043226": 0.8,
    "GO:0005622": 0.6,
    "GO:0005623": 0.36,  # 0.6 * 0.6
    "GO:0005575": 0.64,  # max(0.8 * 0.8, 0.8 * 0.36)
}
FIG1_SV_43229 = 1 + 0.8 + 0.6 + 0.36 + 0.64  # 3.4
# Common terms: all of DAG(GO:0043229); sum of S over them in DAG(GO:0043231):
# 0.8 + 0.64 + 0.48 + 0.288 + 0.512 = 2.72.  Sim = (2.72 + 3.4) / (4.52 + 3.4) = 6.12 / 7.92
FIG1_SIM = 6.12 / 7.92  # 0.7727..., as the paper reports


def test_fig1_s_values_of_GO_0043231_match_table_1():
    assert semantic_values(FIG1, "GO:0043231") == pytest.approx(FIG1_S_43231, abs=1e-12)
    assert semantic_value(FIG1, "GO:0043231") == pytest.approx(4.52, abs=1e-12)
    assert pytest.approx(4.52) == FIG1_SV_43231


def test_fig1_s_values_of_GO_0043229():
    assert semantic_values(FIG1, "GO:0043229") == pytest.approx(FIG1_S_43229, abs=1e-12)
    assert semantic_value(FIG1, "GO:0043229") == pytest.approx(FIG1_SV_43229, abs=1e-12)


def test_fig1_similarity_is_the_papers_0_7727():
    assert wang_similarity(FIG1, "GO:0043229", "GO:0043231") == pytest.approx(FIG1_SIM, abs=1e-12)
    assert round(FIG1_SIM, 4) == 0.7727
    idx = WangIndex(FIG1)
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1_SIM, abs=1e-12)
    assert idx.similarity("GO:0043231", "GO:0043229") == idx.similarity("GO:0043229", "GO:0043231")


def test_fig1_index_s_values_and_sv():
    idx = WangIndex(FIG1)
    assert idx.semantic_values("GO:0043231") == pytest.approx(FIG1_S_43231, abs=1e-12)
    assert idx.semantic_value("GO:0043229") == pytest.approx(FIG1_SV_43229, abs=1e-12)


def test_fig1_bossy_is_a_only_at_0_65():
    dag = weighted_dag(FIG1_EDGES, BOSSY_WEIGHTS)
    # is_a only: DAG(GO:0043231) = {43231: 1, 43229: .65, 43227: .65, 43226: .65^2, 5575: .65^3}
    s = {"GO:0043231": 1.0, "GO:0043229": 0.65, "GO:0043227": 0.65, "GO:0043226": 0.4225, "GO:0005575": 0.274625}
    assert semantic_values(dag, "GO:0043231") == pytest.approx(s, abs=1e-12)
    sv_a = 1 + 0.65 + 0.65 + 0.4225 + 0.274625  # 2.997125
    sv_b = 1 + 0.65 + 0.4225  # GO:0043229: 2.0725
    common_a = 0.65 + 0.4225 + 0.274625  # 43229, 43226, 5575 in DAG(43231)
    expected = (common_a + sv_b) / (sv_a + sv_b)  # 3.419625 / 5.069625
    assert WangIndex(dag).similarity("GO:0043231", "GO:0043229") == pytest.approx(expected, abs=1e-12)


# -- small DAGs with several paths to one ancestor ---------------------------------------

#        R
#      /   \          A is_a P, A part_of M, M is_a Q, P is_a R, Q is_a R;
#     P     Q         B is_a Q;  C part_of R and C is_a P.
#     |     |
#     |     M
#      \   /
#        A
SEVERAL = weighted_dag(
    [
        ("A", "is_a", "P"),
        ("A", "part_of", "M"),
        ("M", "is_a", "Q"),
        ("P", "is_a", "R"),
        ("Q", "is_a", "R"),
        ("B", "is_a", "Q"),
        ("C", "part_of", "R"),
        ("C", "is_a", "P"),
    ],
    DEFAULT_WEIGHTS,
)


def test_several_paths_the_maximum_wins():
    # S_A: P 0.8; M 0.6; Q 0.6*0.8 = 0.48; R = max(0.8*0.8 via P, 0.8*0.48 via Q) = 0.64
    assert semantic_values(SEVERAL, "A") == pytest.approx({"A": 1, "P": 0.8, "M": 0.6, "Q": 0.48, "R": 0.64})
    # S_C: R = max(0.6 direct part_of, 0.8*0.8 via P): the longer path wins, 0.64
    assert semantic_values(SEVERAL, "C") == pytest.approx({"C": 1, "P": 0.8, "R": 0.64})


def test_several_paths_similarities():
    idx = WangIndex(SEVERAL)
    # SV_A = 1 + .8 + .6 + .48 + .64 = 3.52; SV_B = 1 + .8 + .64 = 2.44 (Q .8, R .64)
    # common {Q, R}: (.48 + .8) + (.64 + .64) = 2.56 -> 2.56 / 5.96
    assert idx.similarity("A", "B") == pytest.approx(2.56 / 5.96, abs=1e-12)
    # SV_C = 2.44; common of A and C {P, R}: (.8 + .8) + (.64 + .64) = 2.88 -> 2.88 / 5.96
    assert idx.similarity("A", "C") == pytest.approx(2.88 / 5.96, abs=1e-12)
    assert wang_similarity(SEVERAL, "A", "C") == pytest.approx(2.88 / 5.96, abs=1e-12)


def test_first_met_is_not_the_maximum():
    # X part_of Z (0.6) and X is_a Y is_a Z (0.64): breadth first meets Z at 0.6 first (as
    # GOSemSim's getSV keeps); the definition takes the maximum, 0.64.
    dag = weighted_dag([("X", "part_of", "Z"), ("X", "is_a", "Y"), ("Y", "is_a", "Z")], DEFAULT_WEIGHTS)
    assert semantic_values(dag, "X")["Z"] == pytest.approx(0.64)
    assert WangIndex(dag).semantic_values("X")["Z"] == pytest.approx(0.64)


def test_weighted_dag_keeps_the_larger_weight_of_two_relations_and_skips_others():
    dag = weighted_dag([("a", "part_of", "b"), ("a", "is_a", "b"), ("a", "develops_from", "c")], DEFAULT_WEIGHTS)
    assert dag == {"a": {"b": 0.8}, "b": {}}


# -- edge cases ---------------------------------------------------------------------------


def test_unknown_term_raises_or_gives_nan():
    idx = WangIndex(SEVERAL)
    with pytest.raises(UnknownTermError, match="NOPE"):
        idx.similarity("A", "NOPE")
    with pytest.raises(UnknownTermError):
        wang_similarity(SEVERAL, "NOPE", "A")
    with pytest.raises(LookupError):  # the builtin a caller would catch
        idx.top_k("NOPE", 3)
    got = idx.pairs(["A", "NOPE", "A"], ["B", "A", "A"], missing="nan")
    assert got[0] == pytest.approx(2.56 / 5.96) and math.isnan(got[1]) and got[2] == 1.0
    m = idx.matrix(["A", "NOPE"], missing="nan")
    assert m[0, 0] == 1.0 and np.isnan(m[1]).all() and np.isnan(m[:, 1]).all()


def test_terms_of_different_ontologies_have_similarity_0_with_a_warning():
    dag = weighted_dag([("GO:1", "is_a", "GO:0"), ("CL:1", "is_a", "CL:0")], DEFAULT_WEIGHTS)
    idx = WangIndex(dag)
    with pytest.warns(SimilarityWarning, match="share no ancestor"):
        assert idx.similarity("GO:1", "CL:1") == 0.0
    with pytest.warns(SimilarityWarning, match="^2 pair"):
        idx.pairs(["GO:1", "GO:0", "GO:1"], ["CL:1", "CL:0", "GO:0"])
    assert wang_similarity(dag, "GO:1", "CL:1") == 0.0


def test_same_term_and_alias_give_exactly_1():
    idx = WangIndex(SEVERAL, aliases={"A_EXT": "A"})
    assert idx.similarity("A", "A") == 1.0
    assert idx.similarity("A_EXT", "A") == 1.0
    assert idx.similarity("A_EXT", "B") == idx.similarity("A", "B")
    with pytest.raises(UnknownTermError):
        WangIndex(SEVERAL, aliases={"X": "missing"})


def test_cycle_is_an_error():
    dag = {"a": {"b": 0.8}, "b": {"a": 0.8}}
    with pytest.raises(CycleError):
        WangIndex(dag)
    with pytest.raises(CycleError):
        semantic_values(dag, "a")


def test_weights_outside_0_1_are_refused():
    with pytest.raises(InputError, match=r"\(0, 1\]"):
        WangIndex({"a": {"b": 1.5}, "b": {}})
    with pytest.raises(InputError):
        WangIndex({"a": {"b": 0.0}, "b": {}})


def test_matrix_top_k_and_group():
    idx = WangIndex(SEVERAL)
    terms = ["A", "B", "C"]
    m = idx.matrix(terms)
    assert m.shape == (3, 3)
    assert np.array_equal(np.diag(m), np.ones(3))
    assert np.array_equal(m, m.T)
    assert m[0, 1] == pytest.approx(2.56 / 5.96) and m[0, 2] == pytest.approx(2.88 / 5.96)
    rect = idx.matrix(["A"], ["B", "C"])
    assert rect.shape == (1, 2) and rect[0, 1] == pytest.approx(2.88 / 5.96)
    # top_k among given candidates: best first (A~C .4832 before A~B .4295).
    top = idx.top_k("A", 2, candidates=["B", "C", "R"])
    assert [t for t, _ in top] == ["C", "B"]
    assert top[0][1] == pytest.approx(2.88 / 5.96)
    assert len(idx.top_k("A", 100)) == len(idx) - 1
    # group: [[A~B, A~C]] = [[.4295, .4832]]; GOSemSim's combineScores takes a one-row matrix
    # as a vector, whose BMA and rcmax are its maximum
    ab, ac = 2.56 / 5.96, 2.88 / 5.96
    assert idx.group(["A"], ["B", "C"], combine="bma") == pytest.approx(ac)
    assert idx.group(["A", "B"], ["B", "C"], combine="bma") == pytest.approx((ac + 1 + 1 + ac) / 4)
    assert idx.group(["A"], ["B", "C"], combine="max") == pytest.approx(ac)
    assert idx.group(["A"], ["B", "C"], combine="avg") == pytest.approx((ab + ac) / 2)
    with pytest.warns(SimilarityWarning, match="left out"):
        assert idx.group(["A", "NOPE"], ["B", "C"], combine="max") == pytest.approx(ac)
    with pytest.warns(SimilarityWarning):
        assert math.isnan(idx.group(["NOPE"], ["B"]))


def test_top_k_leaves_out_excluded_terms_unless_asked():
    idx = WangIndex(SEVERAL, excluded=["C"])
    assert "C" not in [t for t, _ in idx.top_k("A", 10)]
    assert "C" in [t for t, _ in idx.top_k("A", 10, include_excluded=True)]


def test_combine_scores_as_mgosim():
    m = [[0.9, 0.1, 0.3], [0.2, 0.5, 0.4]]
    # rows' maxima .9, .5; columns' maxima .9, .5, .4
    assert combine_scores(m, "max") == pytest.approx(0.9)
    assert combine_scores(m, "avg") == pytest.approx(2.4 / 6)
    assert combine_scores(m, "rcmax") == pytest.approx(max(1.4 / 2, 1.8 / 3))
    assert combine_scores(m, "bma") == pytest.approx((1.4 + 1.8) / 5)
    assert math.isnan(combine_scores(np.zeros((0, 3)), "bma"))
    with pytest.raises(ValueError, match="median"):
        combine_scores(m, "median")  # type: ignore[arg-type]


# -- an independent brute force, and properties -------------------------------------------


def brute_force_s_values(dag, term):
    """Every path from ``term`` upwards, enumerated; each ancestor keeps its best product."""
    best: dict[str, float] = {}

    def walk(node, product):
        if product > best.get(node, -1.0):
            best[node] = product
        for parent, w in dag[node].items():
            walk(parent, product * w)

    walk(term, 1.0)
    return best


def brute_force_similarity(dag, a, b):
    sa, sb = brute_force_s_values(dag, a), brute_force_s_values(dag, b)
    shared = [t for t in sa if t in sb]
    return sum(sa[t] + sb[t] for t in shared) / (sum(sa.values()) + sum(sb.values()))


@st.composite
def dags(draw):
    """Random DAGs: node i may have parents among nodes < i, each by one or two relations."""
    n = draw(st.integers(min_value=1, max_value=9))
    weights = draw(
        st.fixed_dictionaries(
            {
                "is_a": st.sampled_from([0.8, 0.65, 0.7, 1.0]),
                "part_of": st.sampled_from([0.6, 0.3, 0.9]),
                "develops_from": st.sampled_from([0.5, 0.75]),
            }
        )
    )
    edges = []
    for i in range(1, n):
        for j in draw(st.sets(st.integers(min_value=0, max_value=i - 1), max_size=3)):
            for rel in draw(st.sets(st.sampled_from(sorted(weights)), min_size=1, max_size=2)):
                edges.append((f"t{i}", rel, f"t{j}"))
    return weighted_dag(edges, weights, nodes=[f"t{i}" for i in range(n)])


@settings(max_examples=60, deadline=None)
@given(dags(), st.data())
def test_index_and_definition_agree_with_brute_force(dag, data):
    terms = sorted(dag)
    a = data.draw(st.sampled_from(terms))
    b = data.draw(st.sampled_from(terms))
    idx = WangIndex(dag)
    assert semantic_values(dag, a) == pytest.approx(brute_force_s_values(dag, a), abs=1e-12)
    assert idx.semantic_values(a) == pytest.approx(brute_force_s_values(dag, a), abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        got = idx.similarity(a, b)
    assert got == pytest.approx(brute_force_similarity(dag, a, b), abs=1e-12)
    assert wang_similarity(dag, a, b) == pytest.approx(got, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(dags())
def test_properties_identity_symmetry_bounds(dag):
    terms = sorted(dag)
    idx = WangIndex(dag)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        m = idx.matrix(terms)
        a = [x for x in terms for _ in terms]
        b = [y for _ in terms for y in terms]
        p = idx.pairs(a, b).reshape(len(terms), len(terms))
    assert np.all(np.diag(m) == 1.0)  # sim(a, a) = 1, exactly
    assert np.array_equal(m, m.T)  # symmetric, exactly
    assert np.all((m >= 0.0) & (m <= 1.0))
    assert np.allclose(p, m, atol=1e-12, rtol=0)  # pairs and matrix agree
    for t in terms:
        top = idx.top_k(t, len(terms))
        assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)
