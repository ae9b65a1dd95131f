"""Benchmark: a quick-grid sweep's processor time (reading the inputs, then running and scoring), and the
official scorer's graph of every ontology graph of a store.

    python bench/bench_sweep_scoring.py --store S [--set UBERON_EXT] [--repeat 3]

For the sweep: ``prepare_inputs`` (train+dev) and ``run_sweep`` over the 16 configurations of the
quick grid in this process, processor seconds of each (wall clock is printed too, but on a shared
machine it measures the load). For the graph: ``store_official_graph(store, None)``. Medians of
``--repeat`` runs, with digests of the rows and of the graph so two versions of the code can be
compared (run the older one from a ``git archive`` of its commit, with ``PYTHONPATH`` pointing there).
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from pathlib import Path

from craftrdf.analysis.evaluation.official_graph import store_official_graph
from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.matching.sweeps.grid import load_grid
from craftrdf.matching.sweeps.inputs import prepare_inputs
from craftrdf.matching.sweeps.run import run_sweep
from craftrdf.store.local import AnnotationStore


def _timed(fn):  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--set", default="UBERON_EXT")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    store = AnnotationStore.open(args.store, mode="read")
    configs = load_grid("quick")
    prep, run, graph = [], [], []
    with tempfile.TemporaryDirectory() as cache:
        for _ in range(args.repeat):
            inputs, w1, c1 = _timed(
                lambda: prepare_inputs(
                    store, args.set, RunContext(load_registry(), cache_dir=Path(cache)), split="train,dev"
                )
            )
            result, w2, c2 = _timed(lambda: run_sweep(inputs, configs))  # noqa: B023
            g, w3, c3 = _timed(lambda: store_official_graph(store, None))
            prep.append((w1, c1))
            run.append((w2, c2))
            graph.append((w3, c3))
    rows = sorted((r.config.label(), round(r.ser, 4), r.tp, r.fp, r.fn) for r in result.rows)
    edges = sorted((c, p) for c, ps in g.parents.items() for p in ps)
    for name, xs in (("prepare_inputs", prep), ("run_sweep (16)", run), ("official graph, all", graph)):
        wall, cpu = statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)
        print(f"{name}: median wall {wall:.2f} s, processor {cpu:.2f} s")
    print(
        f"lowest SER {min(r.ser for r in result.rows):.4f}; rows (SER to 4 decimals) digest "
        f"{hashlib.sha256(repr(rows).encode()).hexdigest()[:12]}"
    )
    print(
        f"graph: {len(g.declared)} classes, {len(edges)} edges, digest "
        f"{hashlib.sha256(repr(edges).encode()).hexdigest()[:12]}"
    )


if __name__ == "__main__":
    main()
