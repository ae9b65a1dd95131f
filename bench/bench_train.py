"""Benchmark: ``craftrdf train`` and ``craftrdf annotate --model``, beside the plain configuration, same run.

    python bench/bench_train.py --store /tmp/craft.store --craft ../shared/craft [--sets MOP,UBERON]
                                [--repeat 3] [--quick]

For each set, in fresh processes (imports, store, dictionary, matching, files), medians of
``--repeat`` runs with a warm cache (one untimed run first fills it):

- ``craftrdf train --set KEY --on train,dev`` (the full selection, or ``--quick``'s);
- ``craftrdf annotate --set KEY --model MODEL`` on the 30 test documents;
- ``craftrdf annotate --set KEY`` with the plain (default) configuration on the same documents,
  the floor the model's matching adds to.

Prints a table, the load average before and after (the machine may be shared: say so beside the
numbers), and a JSON line. Not part of the test suite.
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
from pathlib import Path


def run(args: list[str]) -> float:
    """Seconds one ``craftrdf`` command takes in a fresh process; fails loudly if it fails."""
    t = time.perf_counter()
    cli = "from craftrdf.apps.cli import main; raise SystemExit(main())"
    subprocess.run([sys.executable, "-c", cli, "-q", *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def median(args: list[str], repeat: int) -> tuple[float, float, float]:
    """(median, min, max) seconds of ``repeat`` runs."""
    times = [run(args) for _ in range(repeat)]
    return statistics.median(times), min(times), max(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", required=True)
    p.add_argument("--craft", required=True)
    p.add_argument("--sets", default="MOP,UBERON")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    load_before = os.getloadavg()
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = str(Path(tmp) / "cache")
        for key in a.sets.split(","):
            model = str(Path(tmp) / f"model-{key}")
            train = [
                "train",
                "--store",
                a.store,
                "--set",
                key,
                "--on",
                "train,dev",
                "--out",
                model,
                "--cache-dir",
                cache,
            ]
            train += ["--quick"] if a.quick else []
            common = ["annotate", "--store", a.store, "--set", key, a.craft, "--split", "test", "--cache-dir", cache]
            with_model = [*common, "--model", model, "--out", str(Path(tmp) / "run-model")]
            plain = [*common, "--out", str(Path(tmp) / "run-plain")]
            run(train)  # fills the cache (sentences, dictionaries); untimed
            run(plain)
            out[key] = {
                "train": median(train, a.repeat),
                "annotate --model": median(with_model, a.repeat),
                "annotate (plain)": median(plain, a.repeat),
            }
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (2 cores)")
    print(f"{'set':<12} {'command':<18} {'median s':>9} {'min':>7} {'max':>7}")
    for key, rows in out.items():
        for name, (med, lo, hi) in rows.items():
            print(f"{key:<12} {name:<18} {med:9.1f} {lo:7.1f} {hi:7.1f}")
    print(json.dumps({"load": [load_before[0], load_after[0]], "quick": a.quick, "results": out}))


if __name__ == "__main__":
    main()
