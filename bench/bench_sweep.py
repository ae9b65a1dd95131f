"""Benchmark: a matcher sweep, seconds per configuration, against one configuration run from scratch.

    python bench/bench_sweep.py --store /tmp/full2.store --set UBERON [--split train,dev]
                                [--grid quick|all|GRID.toml] [--limit N] [--workers 2] [--repeat 3]

Measured in one run:

- inputs: what the parent reads from the store once (names, gold, texts, sentence
  spans, the Wang index);
- the floor: one configuration from scratch, as a user without the sweep would run it
  (``annotate_texts``: sentence splitting, tokenization, normalization, dictionary,
  search) and then scored (exact spans and SER), median of ``--repeat`` runs, each on a
  fresh session;
- the sweep: ``run_sweep`` over the grid (first ``--limit`` configurations if given) on
  ``--workers`` processes (1: in this process), wall clock per configuration, and the
  processor time per distinct search measured on the workers; with ``--workers 1`` also
  the processor time of the whole sweep, the figure to compare when other work shares
  the machine.

Prints a table and a JSON line; the ratio floor / (sweep seconds per configuration)
is what sharing saves. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.matching.matcher.annotate import annotate_texts
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.dictionary import default_cache_dir
from craftrdf.matching.sweeps.grid import load_grid, plan
from craftrdf.matching.sweeps.inputs import prepare_inputs
from craftrdf.matching.sweeps.run import run_sweep
from craftrdf.matching.sweeps.score import GoldStandard
from craftrdf.runtime.executors import InlineExecutor, LocalPool
from craftrdf.store.local import AnnotationStore


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--set", default="UBERON")
    ap.add_argument("--split", default="train,dev")
    ap.add_argument("--grid", default="quick", help="all, quick (16) or a GRID.toml file")
    ap.add_argument("--limit", type=int, help="only the first N configurations of the grid")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the from-scratch floor")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    configs = load_grid(args.grid)
    if args.limit:
        configs = configs[: args.limit]
    t = time.perf_counter()
    with AnnotationStore.open(args.store, mode="read") as store:
        inputs = prepare_inputs(
            store, args.set, RunContext(load_registry(), cache_dir=default_cache_dir()), split=args.split
        )
    t_inputs = time.perf_counter() - t

    config = MatcherConfig()
    floor = []
    floor_cpu = []
    for _ in range(args.repeat):
        t, c = time.perf_counter(), time.process_time()
        predictions = annotate_texts(inputs.texts, list(inputs.terms), config)
        gold = GoldStandard(inputs.set_key, inputs.gold, inputs.similarity)
        gold.exact(predictions)
        gold.ser(predictions)
        floor.append(time.perf_counter() - t)
        floor_cpu.append(time.process_time() - c)
    t_floor = statistics.median(floor)
    c_floor = statistics.median(floor_cpu)

    c = time.process_time()
    if args.workers > 1:
        with LocalPool(args.workers) as pool:
            result = run_sweep(inputs, configs, executor=pool)
    else:
        result = run_sweep(inputs, configs, executor=InlineExecutor())
    # processor time of the whole sweep, one-time work included: only measurable in-process
    sweep_cpu = time.process_time() - c if args.workers == 1 else None
    groups = plan(configs)
    per_config = result.seconds / len(configs)
    per_cpu = result.run_cpu_seconds / max(1, result.distinct_runs)
    per_wall = result.run_seconds / max(1, result.distinct_runs)
    print(
        f"{args.set}, {inputs.documents}; {len(configs)} configurations -> {result.distinct_runs} distinct searches "
        f"in {len(groups)} dictionaries; {args.workers} worker(s)"
    )
    print(f"{'inputs from the store (once)':<58}{t_inputs:>9.2f} s")
    print(f"{'floor: one configuration from scratch, scored (median)':<58}{t_floor:>9.2f} s")
    print(f"{'sweep: wall clock':<58}{result.seconds:>9.2f} s")
    print(f"{'sweep: wall clock per configuration':<58}{per_config:>9.2f} s")
    print(f"{'per distinct search on a worker (wall clock)':<58}{per_wall:>9.2f} s")
    print(f"{'per distinct search on a worker (processor time)':<58}{per_cpu:>9.2f} s")
    print(f"{'floor: processor time (median)':<58}{c_floor:>9.2f} s")
    if sweep_cpu is not None:
        print(f"{'sweep: processor time per configuration (all work)':<58}{sweep_cpu / len(configs):>9.2f} s")
        print(f"ratio floor / sweep per configuration, processor time: {c_floor / (sweep_cpu / len(configs)):.1f}x")
    print(f"ratio floor / sweep per configuration, wall clock: {t_floor / per_config:.1f}x")
    print(
        json.dumps(
            {
                "set": args.set,
                "documents": inputs.documents,
                "configurations": len(configs),
                "distinct": result.distinct_runs,
                "workers": args.workers,
                "inputs_s": round(t_inputs, 2),
                "floor_s": round(t_floor, 2),
                "floor_runs": [round(x, 2) for x in floor],
                "sweep_s": round(result.seconds, 2),
                "per_config_s": round(per_config, 3),
                "per_search_wall_s": round(per_wall, 3),
                "per_search_cpu_s": round(per_cpu, 3),
                "ratio": round(t_floor / per_config, 2),
                "floor_cpu_s": round(c_floor, 2),
                "sweep_cpu_s": None if sweep_cpu is None else round(sweep_cpu, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
