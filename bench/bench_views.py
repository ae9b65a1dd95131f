"""Benchmark: the nesting filter over all ten *_EXT sets, and every library query, on a full store.

    python bench/bench_views.py --store ./craft.store [--repeat 5]

The store must be a full build (`craftrdf build --craft ../shared/craft --store ./craft.store`);
it is opened for writing once to bring the containment links and the view rows up to date
(timed separately), then every figure is the median of --repeat runs, wall clock and CPU time of
this process (the CPU figure is the steadier one on a shared machine). The peer for the views is
the same view read by queries/view.rq straight from the set graphs (what a read-only store
without current view rows runs), timed once. Goals: the nesting filter under 10 s,
every library query under 2 s. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from craftrdf.iris import CONTAINMENT_GRAPH, DOCUMENTS_GRAPH, set_iri
from craftrdf.query import library, resolve_query, run_query
from craftrdf.store import AnnotationStore
from craftrdf.views import (
    ViewSpec,
    ensure_containment,
    ensure_view_rows,
    nested_pairs,
    run_view,
)

EXT = ("CHEBI_EXT", "CL_EXT", "GO_BP_EXT", "GO_CC_EXT", "GO_MF_EXT", "MOP_EXT", "NCBITaxon_EXT", "PR_EXT",
       "SO_EXT", "UBERON_EXT")
PARAMS = {
    "annotation-counts": {}, "sets": {}, "annotations": {"set": "UBERON_EXT"},
    "annotations-of-class": {"cls": "UBERON:0001016"}, "per-document-stats": {}, "unique-concepts": {},
    "top-classes": {"set": "UBERON_EXT"}, "missing-classes": {}, "set-mappings": {"set": "SO_EXT"},
    "spans": {"set": "UBERON_EXT"},
}


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """Median wall and median CPU seconds of ``repeat`` runs (CPU too: the machine is shared)."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with AnnotationStore.open(args.store) as store:
        t = time.perf_counter()
        ensure_containment(store)
        print(f"containment links (one-time, after any set changes): {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        n = ensure_view_rows(store, EXT)
        print(f"view rows of the *_EXT sets (one-time, per changed set): {n} sets written, "
              f"{time.perf_counter() - t:.1f} s")
        for nesting in ("all", "outermost", "nested"):
            s, c, rows = timed(lambda: run_view(store, ViewSpec(EXT, "all", nesting)), args.repeat)
            if nesting == "outermost":
                outer = (s, c)
            print(f"view *_EXT classes=all nesting={nesting:<9}: {len(rows):>7,} annotations  {s:6.2f} s "
                  f"(cpu {c:5.2f} s)  (goal < 10 s)", flush=True)
        graphs = [set_iri(k) for k in EXT] + [CONTAINMENT_GRAPH, DOCUMENTS_GRAPH]
        ps, pc, res = timed(lambda: run_query(store, resolve_query("view"), {"classes": "all", "nesting": "outermost"},
                                              named_graphs=graphs), 1)
        print(f"peer: queries/view.rq *_EXT nesting=outermost: {len(res.rows):>7,} rows {ps:6.2f} s (cpu {pc:5.2f} s); "
              f"run_view / peer: wall {outer[0] / ps:.2f}, cpu {outer[1] / pc:.2f}")
        s, c, res = timed(lambda: nested_pairs(store, EXT), args.repeat)
        print(f"nested-pairs over *_EXT: {len(res.rows):,} pairs  {s:.2f} s (cpu {c:.2f} s)")
        print()
        for name, q in library().items():
            # the views are timed above; export-*, matcher-*, similarity-* and viewer-* are bulk data
            # pulls or per-page queries of those commands, timed with them (bench_server, bench_similarity);
            # view-rows is the bulk read of run_view, timed with it
            if name in ("view", "nested-pairs", "view-rows") or name.startswith(
                    ("export-", "matcher-", "similarity-", "viewer-")):
                continue
            s, c, res = timed(lambda: run_query(store, q, PARAMS.get(name, {})), args.repeat)
            flag = "" if s < 2 else "   over the 2 s goal"
            print(f"{name:<22}{len(res.rows):>8,} rows {s:7.2f} s (cpu {c:5.2f} s){flag}", flush=True)


if __name__ == "__main__":
    main()
