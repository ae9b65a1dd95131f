"""The compiled (numba) kernels against the definition, and the numpy path they fall back to.

The reference is :func:`wang_similarity` over :func:`semantic_values`, which follow the
paper's text literally (and are themselves checked against hand computations and a
brute-force path enumeration in test_wang.py); the kernels are a different algorithm
(a topological sweep for the S-values, a scratch-vector or merge join for the pairs).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.analysis.similarity._svalues import compile_kernels, load_kernels, s_value_rows
from craftrdf.analysis.similarity.definition import DEFAULT_WEIGHTS, SimilarityWarning, wang_similarity, weighted_dag
from craftrdf.analysis.similarity.wang import WangIndex
from craftrdf.core.errors import ConfigError

numba = pytest.importorskip("numba", reason="numba is not installed: the compiled kernels are not tested")

KERNELS = "craftrdf.analysis.similarity._kernels"

# Figure 1 of Wang et al. (2007), as in test_wang.py: Sim(GO:0043229, GO:0043231) = 6.12 / 7.92.
FIG1 = weighted_dag(
    [
        ("GO:0043231", "is_a", "GO:0043227"),
        ("GO:0043231", "is_a", "GO:0043229"),
        ("GO:0043229", "is_a", "GO:0043226"),
        ("GO:0043229", "part_of", "GO:0005622"),
        ("GO:0043227", "is_a", "GO:0043226"),
        ("GO:0043226", "is_a", "GO:0005575"),
        ("GO:0005622", "part_of", "GO:0005623"),
        ("GO:0005623", "is_a", "GO:0005575"),
    ],
    DEFAULT_WEIGHTS,
)


@st.composite
def several_path_dags(draw):
    """Random DAGs with unequal weights where ancestors are reached by several paths.

    Node i may have parents among nodes < i by one or two relations; each DAG also has a
    diamond (t1 and t2 below t0, t3 below both) so at least one ancestor has two paths of
    different products. Optionally 70 isolated ``pad`` terms make the index large enough
    that a single pair takes the kernel's merge branch (fewer pairs than terms / 64).
    """
    weights = draw(
        st.fixed_dictionaries(
            {
                "is_a": st.sampled_from([0.8, 0.65, 0.37, 1.0]),
                "part_of": st.sampled_from([0.6, 0.3, 0.91]),
                "develops_from": st.sampled_from([0.5, 0.75, 0.123]),
            }
        )
    )
    n = draw(st.integers(min_value=4, max_value=12))
    edges = [
        ("t1", draw(st.sampled_from(sorted(weights))), "t0"),
        ("t2", draw(st.sampled_from(sorted(weights))), "t0"),
        ("t3", draw(st.sampled_from(sorted(weights))), "t1"),
        ("t3", draw(st.sampled_from(sorted(weights))), "t2"),
    ]
    for i in range(4, n):
        for j in draw(st.sets(st.integers(min_value=0, max_value=i - 1), max_size=3)):
            for rel in draw(st.sets(st.sampled_from(sorted(weights)), min_size=1, max_size=2)):
                edges.append((f"t{i}", rel, f"t{j}"))
    pad = [f"pad{i}" for i in range(70)] if draw(st.booleans()) else []
    return weighted_dag(edges, weights, nodes=[f"t{i}" for i in range(n)] + pad)


@settings(max_examples=80, deadline=None)
@given(several_path_dags())
def test_kernels_equal_the_definition_on_random_dags(dag):
    fast = WangIndex(dag, engine="numba")
    slow = WangIndex(dag, engine="numpy")
    assert fast.engine == "numba" and slow.engine == "numpy"
    terms = sorted(t for t in dag if t.startswith("t"))
    a = [x for x in terms for _ in terms]
    b = [y for _ in terms for y in terms]
    expected = np.array([wang_similarity(dag, x, y) for x, y in zip(a, b)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        got = fast.pairs(a, b)  # one batch: the scratch-vector branch
        singles = np.array([fast.similarity(x, y) for x, y in zip(a, b)])  # merged in Python: few pairs
        # one pair at a time through the kernel itself: its merge branch when padded
        kernels, r, one = fast._compiled(), fast.index, np.empty(1)
        merged = []
        for x, y in zip(a, b):
            ra, rb = np.array([r[x]]), np.array([r[y]])
            kernels.pair_similarities(fast._indptr, fast._cols, fast._vid, fast._table, fast.sv, ra, rb, one)
            merged.append(one[0])
        numpy_path = slow.pairs(a, b)
    assert np.allclose(got, expected, rtol=0, atol=1e-12)
    assert np.allclose(singles, expected, rtol=0, atol=1e-12)
    assert np.allclose(numpy_path, expected, rtol=0, atol=1e-12)
    # Sim(a, b) and Sim(b, a) are one float, and Sim(a, a) is exactly 1
    square = got.reshape(len(terms), len(terms))
    assert np.array_equal(square, square.T)
    assert np.all(np.diag(square) == 1.0)
    assert np.array_equal(singles.reshape(square.shape), square)
    assert np.array_equal(np.array(merged).reshape(square.shape), square)
    # the compiled S-value sweep gives the very floats of the per-level numpy one
    with_kernels = s_value_rows(dag, load_kernels("numba"))
    without = s_value_rows(dag)
    assert with_kernels[0] == without[0]
    for x, y in zip(with_kernels[1:], without[1:]):
        assert np.array_equal(x, y)
    assert np.array_equal(fast.sv, slow.sv)
    # the compact rows give back those floats, on both engines
    assert np.array_equal(fast._table[fast._vid], without[3])
    assert np.array_equal(slow._table[slow._vid], without[3])


def test_value_ids_gives_back_every_float_bit_for_bit():
    kernels = load_kernels("numba")
    rng = np.random.default_rng(7)
    distinct = rng.random(5_000)  # enough to grow the hash table often
    vals = np.concatenate([distinct, distinct[::-1], [0.0, -0.0, 0.0, 1.0, 1.0]])
    table, ids = kernels.value_ids(vals)
    assert table[ids].view(np.uint64).tolist() == vals.view(np.uint64).tolist()
    # 5,000 random values, 0.0, -0.0 (other bits, so kept apart) and 1.0
    assert len(table) == 5_003 and len(set(table.view(np.uint64).tolist())) == len(table)


def test_kernels_reproduce_the_papers_figure_1():
    idx = WangIndex(FIG1, engine="numba")
    assert idx.engine == "numba"
    # (2.72 + 3.4) / (4.52 + 3.4), worked out in test_wang.py
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(6.12 / 7.92, abs=1e-12)
    assert idx.semantic_values("GO:0043231")["GO:0005575"] == pytest.approx(0.512, abs=1e-12)


def test_pairs_by_row_missing_rows_and_disjoint_pairs():
    dag = weighted_dag([("GO:1", "is_a", "GO:0"), ("CL:1", "is_a", "CL:0")], DEFAULT_WEIGHTS)
    idx = WangIndex(dag, engine="numba")
    r = idx.index
    with pytest.warns(SimilarityWarning, match="^2 pair"):
        got = idx.pairs_by_row(
            [r["GO:1"], -1, r["GO:0"], r["GO:1"], r["CL:1"]], [r["CL:1"], r["GO:0"], r["CL:0"], r["GO:0"], r["CL:1"]]
        )
    # GO:1 vs GO:0: common {GO:0}: (0.8 + 1) / (1.8 + 1)
    assert got[0] == 0.0 and np.isnan(got[1]) and got[2] == 0.0
    assert got[3] == pytest.approx(1.8 / 2.8, abs=1e-12) and got[4] == 1.0
    with pytest.raises(IndexError):
        idx.pairs_by_row([0], [len(idx)])
    with pytest.raises(ValueError, match="two 1-D row arrays of one length"):
        idx.pairs_by_row([0, 1], [0])


def test_without_numba_auto_falls_back_with_one_log_line(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, KERNELS, None)  # as if numba could not be imported
    with caplog.at_level(logging.WARNING, logger="craftrdf.analysis.similarity.wang"):
        idx = WangIndex(FIG1)
    assert idx.engine == "numpy"
    lines = [r.getMessage() for r in caplog.records if "compiled kernels unavailable" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0] and "numpy path" in lines[0]
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(6.12 / 7.92, abs=1e-12)
    with pytest.raises(ConfigError, match="numba"):
        WangIndex(FIG1, engine="numba")


@pytest.mark.parametrize("broken", ["s_value_rows", "value_ids", "warm_up"])
def test_a_kernel_that_fails_to_compile_falls_back(monkeypatch, caplog, broken):
    kernels = load_kernels("numba")

    def fails(*args, **kwargs):
        raise numba.core.errors.TypingError("Failed in nopython mode pipeline (simulated)")

    monkeypatch.setattr(kernels, broken, fails)
    with caplog.at_level(logging.WARNING, logger="craftrdf.analysis.similarity.wang"):
        idx = WangIndex(FIG1)
    assert idx.engine == "numpy"
    assert any("TypingError" in r.getMessage() for r in caplog.records)
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(6.12 / 7.92, abs=1e-12)
    with pytest.raises(ConfigError, match="unavailable"):
        WangIndex(FIG1, engine="numba")


def test_engine_numpy_and_unknown_engine():
    assert load_kernels("numpy") is None
    with pytest.raises(ConfigError, match="unknown similarity engine"):
        WangIndex(FIG1, engine="fast")  # type: ignore[arg-type]


def test_importing_craftrdf_does_not_import_numba():
    code = (
        "import sys, craftrdf, craftrdf.analysis.similarity, craftrdf.apps.cli; "
        "from craftrdf.analysis.similarity.wang import WangIndex; "
        "WangIndex({'b': {'a': 0.8}, 'a': {}}, engine='numpy'); "
        "print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_wide_index_past_65536_terms_and_distinct_values():
    # 70,000 leaves x_i below one root, each edge with its own weight w_i: more terms and more
    # distinct S-values than 2-byte numbers hold, so the kernels run on int32 columns and
    # positions. DAG(x_i) = {x_i: 1, root: w_i}; Sim(x_i, x_j) = (w_i + w_j) / (2 + w_i + w_j)
    # (the root is the only common term) and Sim(x_i, root) = (w_i + 1) / (2 + w_i).
    n = 70_000
    weights = [(i + 1) / 100_000 for i in range(n)]
    dag = {f"x{i}": {"root": w} for i, w in enumerate(weights)}
    dag["root"] = {}
    idx = WangIndex(dag, engine="numba")
    assert idx.engine == "numba"
    assert idx._cols.dtype == np.int32 and idx._vid.dtype == np.int32
    rng = np.random.default_rng(3)
    i, j = rng.integers(0, n, 5_000), rng.integers(0, n, 5_000)
    wi, wj = np.array(weights)[i], np.array(weights)[j]
    expected = np.where(i == j, 1.0, (wi + wj) / (2 + wi + wj))
    got = idx.pairs([f"x{k}" for k in i], [f"x{k}" for k in j])  # scratch-vector branch
    assert np.allclose(got, expected, rtol=0, atol=1e-12)
    assert idx.similarity("x5", "x9") == pytest.approx((6e-5 + 1e-4) / (2 + 6e-5 + 1e-4), abs=1e-12)  # merge
    assert idx.similarity("x0", "root") == pytest.approx((1e-5 + 1) / (2 + 1e-5), abs=1e-12)


def test_an_index_pickles_and_keeps_its_values():
    """Sweep workers receive the index by pickle: the kernels module stays behind and is loaded again."""
    import pickle

    from craftrdf.analysis.similarity.definition import weighted_dag
    from craftrdf.analysis.similarity.wang import WangIndex

    dag = weighted_dag([("b", "is_a", "a"), ("c", "is_a", "a"), ("c", "part_of", "b")], {"is_a": 0.8, "part_of": 0.6})
    index = WangIndex(dag)
    copy = pickle.loads(pickle.dumps(index))
    assert copy.engine == index.engine
    # by hand: S_c = {c: 1, a: max(0.8, 0.6 * 0.8) = 0.8, b: 0.6}, SV 2.4; S_b = {b: 1, a: 0.8}, SV 1.8
    # sim(b, c) = ((1 + 0.6) + (0.8 + 0.8)) / (2.4 + 1.8) = 3.2 / 4.2
    assert copy.similarity("b", "c") == pytest.approx(3.2 / 4.2)
    assert copy.similarity("b", "c") == index.similarity("b", "c")


@pytest.mark.long("numba compiles the three kernels into an empty cache: 10 s of CPU, a minute on a loaded machine")
def test_compile_kernels_fills_the_cache_a_later_process_loads(tmp_path):
    # reproduce's warm-up compiles on a worker so that the index, built in another process, only loads:
    # numba's dispatchers count, per signature, a load from the cache as a hit and a compilation as a miss
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    compile_ahead = "from craftrdf.analysis.similarity._svalues import compile_kernels; print(compile_kernels(3))"
    out = subprocess.run([sys.executable, "-c", compile_ahead], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    assert len(list(tmp_path.rglob("*.nbi"))) == 3  # one index per kernel: s_value_rows, value_ids, pair_similarities
    build = (
        "import warnings; from craftrdf.analysis.similarity.wang import WangIndex, load_kernels; "
        "idx = WangIndex({'b': {'a': 0.8}, 'c': {'a': 0.6}, 'a': {}}); "
        "k = load_kernels('numba'); "
        "print(idx.engine, round(idx.similarity('b', 'c'), 6), "
        "sum(len(getattr(k, f).stats.cache_misses) for f in ('s_value_rows', 'value_ids', 'pair_similarities')), "
        "sum(len(getattr(k, f).stats.cache_hits) for f in ('s_value_rows', 'value_ids', 'pair_similarities')))"
    )
    out = subprocess.run([sys.executable, "-c", build], env=env, capture_output=True, text=True, check=True)
    # by hand: S(b) = {b: 1, a: 0.8}, S(c) = {c: 1, a: 0.6}; common {a}: (0.8 + 0.6) / (1.8 + 1.6)
    assert out.stdout.split() == ["numba", str(round(1.4 / 3.4, 6)), "0", "3"]


def test_compile_kernels_without_numba_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, KERNELS, None)
    assert compile_kernels(10) is False
