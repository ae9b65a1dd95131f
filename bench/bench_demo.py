"""Benchmark: the demo's steps on the bundled sample, each timed where ``run_demo`` calls it.

    python bench/bench_demo.py [--repeat 3]

Prints the median (and every run) of: the build, the similarity index, the matcher, the
evaluation, and all of ``run_demo``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import craftrdf.apps.demo as demo


def _timed(times: dict[str, list[float]], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        times.setdefault(name, []).append(time.perf_counter() - start)
        return out

    return run


def main() -> None:
    """Run the demo ``--repeat`` times with its steps wrapped in timers; print the medians."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    times: dict[str, list[float]] = {}
    # the demo module's own names are wrapped, so each step is timed where run_demo calls it
    for attr, name in (
        ("build_store", "build"),
        ("similarity_index", "similarity index"),
        ("run_annotation", "matcher"),
        ("evaluate_store", "evaluation"),
    ):
        setattr(demo, attr, _timed(times, name, getattr(demo, attr)))
    run = _timed(times, "run_demo", demo.run_demo)
    for _ in range(args.repeat):
        run()
    for name, values in times.items():
        print(f"{name}: median {statistics.median(values):.2f} s ({', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
