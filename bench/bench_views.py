"""Benchmark: the nesting filter over all ten *_EXT sets, and every library query, on a full store.

    python bench/bench_views.py --store ./craft.store [--repeat 5]

The store must be a full build (`craftrdf build --craft ../shared/craft --store ./craft.store`);
it is opened for writing once to bring the containment links up to date (timed separately),
then every figure is the median of --repeat runs. Goals: the nesting filter under 10 s,
every library query under 2 s. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from craftrdf.query import library, run_query
from craftrdf.store import AnnotationStore
from craftrdf.views import ViewSpec, ensure_containment, nested_pairs, run_view

EXT = ("CHEBI_EXT", "CL_EXT", "GO_BP_EXT", "GO_CC_EXT", "GO_MF_EXT", "MOP_EXT", "NCBITaxon_EXT", "PR_EXT",
       "SO_EXT", "UBERON_EXT")
PARAMS = {
    "annotation-counts": {}, "sets": {}, "annotations": {"set": "UBERON_EXT"},
    "annotations-of-class": {"cls": "UBERON:0001016"}, "per-document-stats": {}, "unique-concepts": {},
    "top-classes": {"set": "UBERON_EXT"}, "missing-classes": {}, "set-mappings": {"set": "SO_EXT"},
    "spans": {"set": "UBERON_EXT"},
}


def timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with AnnotationStore.open(args.store) as store:
        t = time.perf_counter()
        ensure_containment(store)
        print(f"containment links (one-time, after any set changes): {time.perf_counter() - t:.1f} s")
        for nesting in ("all", "outermost", "nested"):
            s, rows = timed(lambda: run_view(store, ViewSpec(EXT, "all", nesting)), args.repeat)
            print(f"view *_EXT classes=all nesting={nesting:<9}: {len(rows):>7,} annotations  {s:6.2f} s  "
                  f"(goal < 10 s)")
        s, res = timed(lambda: nested_pairs(store, EXT), args.repeat)
        print(f"nested-pairs over *_EXT: {len(res.rows):,} pairs  {s:.2f} s")
        print()
        for name, q in library().items():
            # the views are timed above; export-* and matcher-* are bulk data pulls for those commands
            if name in ("view", "nested-pairs") or name.startswith(("export-", "matcher-")):
                continue
            s, res = timed(lambda: run_query(store, q, PARAMS.get(name, {})), args.repeat)
            flag = "" if s < 2 else "   over the 2 s goal"
            print(f"{name:<22}{len(res.rows):>8,} rows {s:7.2f} s{flag}")


if __name__ == "__main__":
    main()
