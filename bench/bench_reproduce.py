"""Benchmark: ``craftrdf reproduce --quick`` from nothing, against the issue's 3 minutes and the build alone.

    python bench/bench_reproduce.py --craft ../shared/craft [--repeat 3] [--workers 2]

Each repeat runs the whole quick report into a fresh temporary directory (store built from
the CRAFT directory, every section, the figures) and prints its wall time with the time of
each stage. The floor, measured in the same run, is a build of the same store and nothing
else: every report needs the store, so the ratio says what the report costs on top of it.
Medians over the repeats; the machine is shared and noisy. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from craftrdf.builder import build_store
from craftrdf.registry import load_registry
from craftrdf.reproduce import reproduce
from craftrdf.store import AnnotationStore
from craftrdf.sweeps import LocalPool

GOAL = 180.0  # seconds: issue 9's "--quick finishes in under 3 minutes"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--craft", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    totals: list[float] = []
    floors: list[float] = []
    by_stage: dict[str, list[float]] = {}
    for i in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as tmp:
            load = _load()
            pool = LocalPool(args.workers) if args.workers > 1 else None
            try:
                result = reproduce(args.craft, Path(tmp) / "out", quick=True, executor=pool)
            finally:
                if pool is not None:
                    pool.close()
            totals.append(result.seconds)
            for name, seconds in result.stages:
                by_stage.setdefault(name, []).append(seconds)
            stages = ", ".join(f"{name} {s:.1f}" for name, s in result.stages)
            print(f"run {i + 1}: reproduce --quick {result.seconds:.1f} s (load {load}; {stages})", flush=True)
            t = time.perf_counter()
            with AnnotationStore.open(Path(tmp) / "floor.store") as store:
                build_store(args.craft, store, registry=load_registry())
            floors.append(time.perf_counter() - t)
            print(f"run {i + 1}: build alone {floors[-1]:.1f} s (load {_load()})", flush=True)
    total, floor = statistics.median(totals), statistics.median(floors)
    print(
        f"median reproduce --quick from nothing: {total:.1f} s (range {min(totals):.1f}-{max(totals):.1f}); "
        f"{total / GOAL:.2f} of the {GOAL:.0f} s goal"
    )
    print(f"median build alone (floor): {floor:.1f} s; reproduce / floor = {total / floor:.2f}x")
    print("median per stage: " + ", ".join(f"{name} {statistics.median(v):.1f} s" for name, v in by_stage.items()))


if __name__ == "__main__":
    main()
