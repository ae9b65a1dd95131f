"""Benchmark: Wang similarity on CRAFT's UBERON, against goatools' Wang as the peer.

    python bench/bench_similarity.py --craft ../shared/craft [--pairs 100000] [--repeat 5] [--seed 1]

Builds the UBERON and UBERON_EXT sets into an in-memory store, then measures (medians of
``--repeat`` runs):

- the one-time costs: the graph query (store -> TermGraph) and the index build
  (S-values of every class), for the ``UBERON+extensions`` graph, is_a 0.8, part_of 0.6;
  and, apart, numba's import and the first index build of the process, which compiles
  the kernels or loads them from numba's disk cache (clear the cache, or set
  ``NUMBA_CACHE_DIR`` to an empty directory, to see the compile time);
- ``WangIndex.pairs`` on ``--pairs`` random pairs of UBERON classes (CURIEs in, floats
  out), as pairs per second, and ``pairs_by_row`` on the same pairs' row numbers;
- the all-pairs matrix of the UBERON classes used in CRAFT's UBERON annotations;
- ``top_k(term, 10)`` against every class;
- in the same run, the same pairs through goatools' ``SsWang`` (is_a + part_of, the same
  weights) on the same OBO file: its DAG load, its per-term set-up, its per-pair loop;
  and the largest difference between its values and ours. For the ratios, our pairs are
  timed again, ``--repeat`` times before each of the peer's ``--peer-repeat`` loops, so
  that on a shared machine bursts of load from elsewhere fall on both sides. Skipped, with a message, when
  goatools is not installed (``pip install goatools``).

Prints each figure and the ratios. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import statistics
import sys
import tempfile
import time
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyoxigraph as ox

from craftrdf import similarity_index
from craftrdf.analysis.similarity._svalues import load_kernels
from craftrdf.analysis.similarity.definition import SimilarityWarning
from craftrdf.analysis.similarity.graph import TermGraph, load_term_graph
from craftrdf.analysis.similarity.wang import WangIndex
from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.core.curie import CurieMap
from craftrdf.ontology.cache import SimilarityCache
from craftrdf.store.local import AnnotationStore

ONTOLOGY = "UBERON+extensions"
WEIGHTS = {"is_a": 0.8, "part_of": 0.6}


T = TypeVar("T")


def median_time(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """Median wall time of ``repeat`` calls (at least one), and the last result."""
    times = []
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def annotated_classes(store: AnnotationStore) -> list[str]:
    rows = store.query("SELECT DISTINCT ?cls WHERE { GRAPH ?g { ?a <http://www.w3.org/ns/oa#hasBody> ?cls } }")
    assert isinstance(rows, ox.QuerySolutions)
    cm = CurieMap()
    return sorted(cm.compress(r["cls"].value) for r in rows)


def load_peer(obo_zip: Path) -> tuple[Any, float] | None:
    """goatools' GODag of the same OBO file (is_a and relationships), and its load time."""
    try:
        from goatools.obo_parser import GODag
    except ImportError:
        print("peer: goatools is not installed; the peer comparison is skipped (pip install goatools)")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(obo_zip) as z:
            member = next(n for n in z.namelist() if n.endswith(".obo") and not n.startswith("__MACOSX"))
            obo = Path(tmp) / "ontology.obo"
            obo.write_bytes(z.read(member))
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            dag = GODag(str(obo), optional_attrs={"relationship"}, load_obsolete=False, prt=None)
        return dag, time.perf_counter() - t


def run_peer(
    dag: Any, pairs: list[tuple[str, str]], repeat: int, ours: Callable[[], object], ours_repeat: int
) -> tuple[float, float, float, list[float]]:
    """goatools' SsWang on the pairs: set-up for their terms, then the per-pair loop.

    Our ``ours()`` runs ``ours_repeat`` times before each of the peer's ``repeat`` loops,
    so both sides' timings spread over the same stretch of time and a burst of load
    from elsewhere on a shared machine falls on both. Returns the peer's set-up, the
    medians of the peer's and of our timings, and the peer's values.
    """
    from goatools.semsim.termwise.wang import SsWang

    terms = {x for p in pairs for x in p}
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        wang = SsWang(terms, dag, relationships={"part_of"}, rel2scf=dict(WEIGHTS))
    setup = time.perf_counter() - t
    peer_times: list[float] = []
    our_times: list[float] = []
    values: list[float] = []
    for _ in range(max(1, repeat)):
        for _ in range(max(1, ours_repeat)):
            t = time.perf_counter()
            ours()
            our_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        values = [wang.get_sim(a, b) for a, b in pairs]
        peer_times.append(time.perf_counter() - t)
    return setup, statistics.median(peer_times), statistics.median(our_times), values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--craft", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "craft")
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--peer-repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--engine",
        choices=["auto", "numba", "numpy"],
        default="auto",
        help="WangIndex engine: compiled kernels when numba works (auto), or the numpy fallback",
    )
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")

    store = AnnotationStore.memory()
    t = time.perf_counter()
    build_store(args.craft, store, RunContext.create(), sets=["UBERON", "UBERON_EXT"])
    print(f"store: UBERON + UBERON_EXT sets built in memory in {time.perf_counter() - t:.1f} s ({len(store):,} quads)")

    caches: list[SimilarityCache] = []

    def graph_load() -> TermGraph:
        caches.append(SimilarityCache())
        return load_term_graph(store, ontology=ONTOLOGY, cache=caches[-1])

    t_graph, graph = median_time(graph_load, args.repeat)
    # each index build below reads the graph from a cache the loop above filled
    pending = list(caches)

    def index_build() -> WangIndex:
        return similarity_index(store, ontology=ONTOLOGY, weights=WEIGHTS, cache=pending.pop(), engine=args.engine)

    # the first build in a process also imports numba and compiles the kernels (or loads
    # them from numba's disk cache): a one-time cost, reported apart from the median
    t = time.perf_counter()
    kernels = load_kernels(args.engine)
    t_numba_import = time.perf_counter() - t
    first = SimilarityCache()
    load_term_graph(store, ontology=ONTOLOGY, cache=first)
    t = time.perf_counter()
    similarity_index(store, ontology=ONTOLOGY, weights=WEIGHTS, cache=first, engine=args.engine)
    t_first_index = time.perf_counter() - t
    t_index, index = median_time(index_build, args.repeat)
    print(
        f"graph query ({ONTOLOGY}): {t_graph:.2f} s median; {len(graph.classes):,} classes, {len(graph.edges):,} edges"
    )
    print(
        f"kernels: engine {index.engine}"
        + (
            f" (numba {numba_version()}): import {t_numba_import:.2f} s, "
            f"first index build with kernel compile or cache load {t_first_index:.2f} s (one-time)"
            if kernels is not None
            else " (no compiled kernels: the numpy path)"
        )
    )
    print(
        f"index build (S-values of every class): {t_index:.3f} s median; {len(index):,} terms, {index.nnz:,} S-values"
    )

    obo_zip = args.craft / "concept-annotation" / "UBERON" / "UBERON+extensions" / "UBERON+extensions.obo.zip"
    peer = load_peer(obo_zip)
    deprecated = graph.deprecated
    terms = sorted(t for t in graph.classes if t.startswith("UBERON:") and t not in deprecated)
    if peer is not None:
        # goatools reads an alt_id as its main class; keep classes both read the same way
        godag = peer[0]
        kept = [t for t in terms if t in godag and godag[t].item_id == t]
        print(
            f"pairs drawn from {len(kept):,} UBERON classes ({len(terms) - len(kept)} left out: "
            "deprecated here or an alt_id in goatools)"
        )
        terms = kept
    rng = random.Random(args.seed)
    pairs = [(rng.choice(terms), rng.choice(terms)) for _ in range(args.pairs)]
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        t_pairs, ours = median_time(lambda: index.pairs(a, b), args.repeat)
    rate = args.pairs / t_pairs
    print(
        f"pairs: {args.pairs:,} random UBERON pairs in {t_pairs * 1000:.1f} ms median = {rate:,.0f} pairs/s "
        f"(goal >= 200,000)"
    )
    ra, rb = index.rows(a), index.rows(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        t_rows, by_row = median_time(lambda: index.pairs_by_row(ra, rb), args.repeat)
    assert np.array_equal(by_row, ours)
    print(f"pairs by row number (no CURIE lookups): {t_rows * 1000:.1f} ms median = {args.pairs / t_rows:,.0f} pairs/s")

    used = [t for t in annotated_classes(store) if t in index]
    t_matrix, m = median_time(lambda: index.matrix(used), args.repeat)
    print(
        f"matrix: all pairs of the {len(used)} classes used in CRAFT's UBERON annotations "
        f"({m.shape[0]}x{m.shape[1]}) in {t_matrix * 1000:.0f} ms median (goal < 2 s)"
    )

    probes = used[:100]
    t_top, _ = median_time(lambda: [index.top_k(p, 10) for p in probes], args.repeat)
    print(f"top-k: 10 most similar of {len(index):,} classes, {t_top / len(probes) * 1000:.1f} ms per term median")

    if peer is None:
        return 0

    def our_pairs() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SimilarityWarning)
            return index.pairs(a, b)

    setup, peer_pairs, t_pairs, peer_values = run_peer(peer[0], pairs, args.peer_repeat, our_pairs, args.repeat)
    values = np.array([np.nan if v is None else v for v in peer_values])
    diff = float(np.nanmax(np.abs(values - np.asarray(ours))))
    print(
        f"peer goatools {goatools_version()} SsWang: DAG load {peer[1]:.2f} s; set-up for the "
        f"{len({x for p in pairs for x in p}):,} terms {setup:.2f} s; pairs {peer_pairs:.2f} s median = "
        f"{args.pairs / peer_pairs:,.0f} pairs/s; largest difference from ours {diff:.1e}"
    )
    print(
        f"ours, interleaved with the peer's loops ({args.repeat} before each of its {args.peer_repeat}): "
        f"{t_pairs * 1000:.1f} ms median = {args.pairs / t_pairs:,.0f} pairs/s"
    )
    print(f"ratio, pairs only (after each side's one-time work; interleaved medians): {peer_pairs / t_pairs:.1f}x")
    print(
        f"ratio, similarity work for the {args.pairs:,} pairs once the ontology is in memory "
        f"(peer set-up + pairs vs our index build + pairs): {(setup + peer_pairs) / (t_index + t_pairs):.1f}x"
    )
    print(
        f"ratio, as above but our index build is this process's first (numba import and kernel "
        f"load included): {(setup + peer_pairs) / (t_numba_import + t_first_index + t_pairs):.1f}x"
    )
    print(
        f"ratio, from the ontology file/store (peer DAG load + set-up + pairs vs our graph query + index + "
        f"pairs): {(peer[1] + setup + peer_pairs) / (t_graph + t_index + t_pairs):.1f}x"
    )
    return 0


def goatools_version() -> str:
    from importlib.metadata import version

    return version("goatools")


def numba_version() -> str:
    from importlib.metadata import version

    return version("numba")


if __name__ == "__main__":
    sys.exit(main())
