"""Benchmark: the nesting filter over all ten *_EXT sets, and every library query, on a full store.

    python bench/bench_views.py --store ./craft.store [--repeat 5]

The store must be a full build (`craftrdf build --craft ../shared/craft --store ./craft.store`);
it is opened for writing once to bring the containment links and the view rows up to date
(timed separately), then every figure is the median of --repeat runs, wall clock and CPU time of
this process (the CPU figure is the steadier one on a shared machine). The peer for the views is
the same view read by querying/queries/view.rq straight from the set graphs (what a read-only store
without current view rows runs), timed once. Goals: the nesting filter under 10 s,
every library query under 2 s. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from craftrdf.analysis.views import ViewSpec, nested_pairs, run_view
from craftrdf.core.iris import CONTAINMENT_GRAPH, DOCUMENTS_GRAPH, set_iri
from craftrdf.querying.indexes import containment_pairs, containment_spans, ensure_containment, ensure_view_rows
from craftrdf.querying.library import library, resolve_query, run_query
from craftrdf.querying.webanno import parse_spans_text
from craftrdf.store.local import AnnotationStore

EXT = (
    "CHEBI_EXT",
    "CL_EXT",
    "GO_BP_EXT",
    "GO_CC_EXT",
    "GO_MF_EXT",
    "MOP_EXT",
    "NCBITaxon_EXT",
    "PR_EXT",
    "SO_EXT",
    "UBERON_EXT",
)
PARAMS = {
    "annotation-counts": {},
    "sets": {},
    "annotations": {"set": "UBERON_EXT"},
    "annotations-of-class": {"cls": "UBERON:0001016"},
    "per-document-stats": {},
    "unique-concepts": {},
    "top-classes": {"set": "UBERON_EXT"},
    "missing-classes": {},
    "set-mappings": {"set": "SO_EXT"},
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


def bench_containment(store: AnnotationStore, repeat: int) -> None:
    """Recompute the containment links from scratch; read their input the new way and the old way."""

    def recompute() -> int:
        store.remove_batch(CONTAINMENT_GRAPH)
        return ensure_containment(store)

    s, c, n = timed(recompute, repeat)
    print(f"containment links recomputed: {n - 1:,} links {s:.2f} s (cpu {c:.2f} s)")
    s1, c1, spans = timed(lambda: containment_spans(store), repeat)

    def old_read() -> list[tuple[str, str, int, int]]:
        rows = run_query(store, resolve_query("spans")).rows
        return [(r[1].value, r[2].value, x.start, x.end) for r in rows for x in parse_spans_text(r[3].value)]

    s2, c2, spans2 = timed(old_read, repeat)
    assert len(spans) == len(spans2)
    print(
        f"their input, {len(spans):,} spans: containment-spans.rq + IRI {s1:.2f} s (cpu {c1:.2f} s); "
        f"peer spans.rq (three patterns per annotation) {s2:.2f} s (cpu {c2:.2f} s); ratio {s2 / s1:.1f}x"
    )
    s3, c3, pairs = timed(lambda: sum(1 for _ in containment_pairs(spans)), repeat)
    print(f"their pairs: {pairs:,} in {s3:.2f} s (cpu {c3:.2f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--containment",
        action="store_true",
        help="also recompute the containment links --repeat times (the graph is dropped first) and "
        "time their input read as before (querying/queries/spans.rq) as the peer",
    )
    args = ap.parse_args()
    with AnnotationStore.open(args.store) as store:
        if args.containment:
            bench_containment(store, args.repeat)
        t = time.perf_counter()
        ensure_containment(store)
        print(f"containment links (one-time, after any set changes): {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        n = ensure_view_rows(store, EXT)
        print(
            f"view rows of the *_EXT sets (one-time, per changed set): {n} sets written, "
            f"{time.perf_counter() - t:.1f} s"
        )
        for nesting in ("all", "outermost", "nested"):
            s, c, rows = timed(lambda n=nesting: run_view(store, ViewSpec(EXT, "all", n)), args.repeat)
            if nesting == "outermost":
                outer = (s, c)
            print(
                f"view *_EXT classes=all nesting={nesting:<9}: {len(rows):>7,} annotations  {s:6.2f} s "
                f"(cpu {c:5.2f} s)  (goal < 10 s)",
                flush=True,
            )
        graphs = [set_iri(k) for k in EXT] + [CONTAINMENT_GRAPH, DOCUMENTS_GRAPH]
        ps, pc, res = timed(
            lambda: run_query(
                store, resolve_query("view"), {"classes": "all", "nesting": "outermost"}, named_graphs=graphs
            ),
            1,
        )
        print(
            f"peer: querying/queries/view.rq *_EXT nesting=outermost: {len(res.rows):>7,} rows {ps:6.2f} s (cpu {pc:5.2f} s); "
            f"run_view / peer: wall {outer[0] / ps:.2f}, cpu {outer[1] / pc:.2f}"
        )
        s, c, res = timed(lambda: nested_pairs(store, EXT), args.repeat)
        print(f"nested-pairs over *_EXT: {len(res.rows):,} pairs  {s:.2f} s (cpu {c:.2f} s)")
        print()
        for name, q in library().items():
            # the views are timed above; export-*, matcher-*, similarity-* and viewer-* are bulk data
            # pulls or per-page queries of those commands, timed with them (bench_server, bench_similarity);
            # view-rows and containment-spans are the bulk reads of run_view and of the containment links,
            # timed with them
            if name in ("view", "nested-pairs", "view-rows", "containment-spans") or name.startswith(
                ("export-", "matcher-", "similarity-", "viewer-")
            ):
                continue
            s, c, res = timed(lambda q=q, name=name: run_query(store, q, PARAMS.get(name, {})), args.repeat)
            flag = "" if s < 2 else "   over the 2 s goal"
            print(f"{name:<22}{len(res.rows):>8,} rows {s:7.2f} s (cpu {c:5.2f} s){flag}", flush=True)


if __name__ == "__main__":
    main()
