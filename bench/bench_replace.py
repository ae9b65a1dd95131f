"""Benchmark: replacing a batch atomically (one update, the difference) against a plain load.

    python bench/bench_replace.py [--quads 100000] [--repeat 3]

Each figure is the median of --repeat runs, each in its own process on a fresh on-disk store,
so peak memory (max RSS of that process) is the step's own. Steps, on one graph of --quads
N-Quads lines (no blank nodes):

- ``load``: the graph is absent, ``AnnotationStore.load_batch`` bulk-loads it (not timed: the
  first version before each replacement is loaded the same way);
- ``replace P%``: the graph holds the old version and ``load_batch`` replaces it with a version
  where P% of the literals differ, in one transaction (``craftrdf.store.replace``);
- ``drop+load P%``: the previous, non-atomic way for comparison (``remove_graph``, then
  ``bulk_load``), which a kill between the two left with neither version.

Prints a Markdown table, the load average beside it. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

G = "https://w3id.org/craftrdf/set/BENCH"

CHILD = """
import json, resource, sys, time
import pyoxigraph as ox
from craftrdf.store.local import AnnotationStore
sys.path.insert(0, {bench!r})
from bench_replace import G, version
path, step, n, pct = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with AnnotationStore.open(path) as store:
    if step != "load":
        store.load_batch(G, version(n, 0), digest="old")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    if step == "drop+load":
        node = ox.NamedNode(G)
        store.raw.remove_graph(node)
        store.raw.bulk_load(("\\n".join(version(n, pct)) + "\\n").encode(), ox.RdfFormat.N_QUADS)
    else:
        store.load_batch(G, version(n, pct), digest="new")
    wall = time.perf_counter() - t
print(json.dumps({{"wall": wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_before_mb": before / 1024}}))
"""


def version(n: int, pct: int) -> list[str]:
    """``n`` N-Quads lines; ``pct`` percent of the literals differ from version 0's."""
    return [
        f'<https://example.org/s{i}> <https://example.org/p{i % 7}> "value {i}{"*" if i % 100 < pct else ""}" <{G}> .'
        for i in range(n)
    ]


def run(step: str, n: int, pct: int) -> dict[str, float]:
    """One step in a fresh process on a fresh store; its wall time and peak memory."""
    bench = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", CHILD.format(bench=bench), os.path.join(tmp, "s"), step, str(n), str(pct)],
            capture_output=True,
            text=True,
            check=True,
        )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    """Run every step --repeat times and print the medians as a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quads", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    steps = [("load", 0), ("replace", 1), ("replace", 10), ("replace", 100), ("drop+load", 10)]
    print(f"{args.quads:,} quads, median of {args.repeat}; load average {os.getloadavg()[0]:.1f} at start")
    print("| step | wall (s) | peak RSS (MB) |\n|---|---:|---:|")
    for step, pct in steps:
        runs = [run(step, args.quads, pct) for _ in range(args.repeat)]
        name = step if step == "load" else f"{step} {pct}%"
        wall = statistics.median(r["wall"] for r in runs)
        rss = statistics.median(r["rss_mb"] for r in runs)
        print(f"| {name} | {wall:.2f} | {rss:.0f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end; {time.strftime('%Y-%m-%d %H:%M')}")


if __name__ == "__main__":
    main()
