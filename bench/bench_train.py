"""Benchmark: ``craftrdf train`` and ``craftrdf annotate --model``, beside the plain configuration, same run.

    python bench/bench_train.py --store /tmp/craft.store --craft ../shared/craft [--sets MOP,UBERON]
                                [--repeat 3] [--quick] [--baseline SRC]

For each set, in fresh processes (imports, store, dictionary, matching, files), medians of
``--repeat`` runs with a warm cache (one untimed run first fills it):

- ``craftrdf train --set KEY --on train,dev`` (the full selection, or ``--quick``'s);
- ``craftrdf annotate --set KEY --model MODEL`` on the 30 test documents;
- ``craftrdf annotate --set KEY`` with the plain (default) configuration on the same documents,
  the floor the model's matching adds to.

With ``--baseline SRC`` (another checkout's source tree, e.g. ``git archive main | tar -x -C SRC``),
each command is also timed with that tree's craftrdf first on ``PYTHONPATH``, interleaved with this
tree's runs, and the table gives the ratio (this / baseline).

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


def run(args: list[str], src: str | None = None) -> float:
    """Seconds one ``craftrdf`` command takes in a fresh process (``src``: a source tree first on the path)."""
    t = time.perf_counter()
    cli = "from craftrdf.apps.cli import main; raise SystemExit(main())"
    env = dict(os.environ, PYTHONPATH=src) if src else None
    subprocess.run([sys.executable, "-c", cli, "-q", *args], check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def median(args: list[str], repeat: int, src: str | None = None) -> tuple[float, float, float]:
    """(median, min, max) seconds of ``repeat`` runs."""
    times = [run(args, src) for _ in range(repeat)]
    return statistics.median(times), min(times), max(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", required=True)
    p.add_argument("--craft", required=True)
    p.add_argument("--sets", default="MOP,UBERON")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--baseline", help="another source tree to time beside this one (same commands, same run)")
    a = p.parse_args()
    load_before = os.getloadavg()
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = str(Path(tmp) / "cache")
        for key in a.sets.split(","):
            out.update(_time_set(a, key, tmp, cache, None, ""))
            if a.baseline:  # its own cache: the two trees may write different cache files
                out.update(_time_set(a, key, tmp, str(Path(tmp) / "cache-base"), a.baseline, " (baseline)"))
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (2 cores)")
    print(f"{'set':<24} {'command':<18} {'median s':>9} {'min':>7} {'max':>7} {'ratio':>6}")
    for key, rows in out.items():
        for name, (med, lo, hi) in rows.items():
            base = out.get(f"{key} (baseline)", {}).get(name)
            ratio = f"{med / base[0]:6.2f}" if base and not key.endswith("(baseline)") else ""
            print(f"{key:<24} {name:<18} {med:9.1f} {lo:7.1f} {hi:7.1f} {ratio:>6}")
    print(json.dumps({"load": [load_before[0], load_after[0]], "quick": a.quick, "results": out}))


def _time_set(
    a: argparse.Namespace, key: str, tmp: str, cache: str, src: str | None, label: str
) -> dict[str, dict[str, tuple[float, float, float]]]:
    """The three commands' times for one set with one source tree."""
    model = str(Path(tmp) / f"model-{key}{'-base' if src else ''}")
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
    run(train, src)  # fills the cache (sentences, dictionaries); untimed
    run(plain, src)
    return {
        key + label: {
            "train": median(train, a.repeat, src),
            "annotate --model": median(with_model, a.repeat, src),
            "annotate (plain)": median(plain, a.repeat, src),
        }
    }


if __name__ == "__main__":
    main()
