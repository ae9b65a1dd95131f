"""Benchmark: ten sets trained together, and ``craftrdf annotate --model`` per set, beside another tree, same run.

    git -C /work/main archive main | tar -x -C /tmp/main_src       # today's code, the baseline
    python bench/bench_train.py --store S --craft ../shared/craft --baseline /tmp/main_src \\
        [--sets CL,...,UBERON_EXT] [--workers 2] [--repeat 1] [--out DIR]

1. **Training**: every set of ``--sets`` (default the ten with an ontology in CRAFT's copy) trained
   on train+dev and scored on test, as ``craftrdf reproduce`` section 4 and the long corpus test do
   (``start_training``/``collect_trained``), on a :class:`~craftrdf.runtime.executors.LocalPool` of
   ``--workers`` processes (0: one after another in the process), in a fresh process per tree. Each
   run prints its wall time, the CPU time of the parent (reading the store, shipping the inputs)
   and of each worker, and the estimate of the wall time on an idle machine: the parent's CPU plus
   the busiest worker's (the workers run side by side on the two cores). The two trees' model
   folders are compared byte for byte (every run with ``PYTHONHASHSEED=0``: the order of a
   candidate's classes, a frozenset, orders the learned decision's rows, so without one seed the
   last digits of the fitted weights differ between two runs of the same code) and their test
   SERs printed side by side.
2. **annotate --model**: ``craftrdf annotate --set KEY --model MODEL`` on the 30 test articles in a
   fresh process, each tree with its own models and the cache its training filled (warm), the
   median of ``--repeat``: wall and CPU seconds (one process, so its CPU time is an idle machine's
   wall time, give or take the disk).

With ``--baseline SRC`` (another checkout's source tree), that tree's craftrdf is put first on
``PYTHONPATH`` for its runs, which run *at the same time* as this tree's (each pair of commands
side by side), so both see the same load: the ratios are same-run ratios. Prints the load average
before and after (the machine may be shared: say so beside the numbers) and a JSON line. Not part
of the test suite.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TEN = "CL,CL_EXT,GO_MF,GO_MF_EXT,MOP,MOP_EXT,SO,SO_EXT,UBERON,UBERON_EXT"


def _env(src: str | None) -> dict[str, str]:
    # one hash seed for every run: a candidate's classes are a frozenset, whose order (string hashing)
    # orders the learned decision's rows, and so the last digits of its fitted weights
    env = dict(os.environ, PYTHONHASHSEED="0")
    if src:
        env["PYTHONPATH"] = src
    return env


def run_together(commands: list[tuple[list[str], Path, str | None]]) -> list[tuple[float, float]]:
    """Run ``craftrdf`` commands side by side, each in a fresh process; (wall s, CPU s) of each.

    Each command is (arguments, working directory, source tree first on the path or None). The
    working directory must not hold a ``craftrdf`` folder: ``python -c`` (and a forkserver) put it
    first on the path, before ``PYTHONPATH``, so run from a checkout it would time that checkout's
    code whatever the source tree says. The trees run at the same time so that both see the same
    load; the CPU time (user + system, :func:`os.wait4`) is the figure the load moves least.
    """
    cli = "from craftrdf.apps.cli import main; raise SystemExit(main())"
    t = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, "-c", cli, "-q", *args], stdout=subprocess.DEVNULL, env=_env(src), cwd=cwd)
        for args, cwd, src in commands
    ]
    out = []
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise subprocess.CalledProcessError(p.returncode, p.args)
        out.append((time.perf_counter() - t, usage.ru_utime + usage.ru_stime))
    return out


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of a live process (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def child_train(store_path: str, keys: list[str], out: Path, workers: int) -> dict[str, Any]:
    """(In a fresh process) train and test the sets with whichever craftrdf is on the path."""
    import craftrdf
    from craftrdf.matching.training import evaluate
    from craftrdf.runtime.executors import LocalPool
    from craftrdf.store.local import AnnotationStore

    pool = LocalPool(workers) if workers > 0 else None
    cache, models = out / "cache", out / "models"
    t, c = time.perf_counter(), time.process_time()
    with AnnotationStore.open(store_path, mode="read") as store:
        if hasattr(evaluate, "SplitPlan"):  # this branch: a run context and a plan
            from craftrdf.core.context import RunContext

            ctx = RunContext.create(cache_dir=cache, executor=pool)
            training = evaluate.start_training(store, keys, ctx, evaluate.SplitPlan(out_dir=models))
        else:  # main before issue 25's folding: keyword arguments
            from craftrdf.core.registry import load_registry

            training = evaluate.start_training(
                store, keys, registry=load_registry(), cache_dir=cache, out_dir=models, executor=pool
            )
        read = time.perf_counter() - t
        scores = evaluate.collect_trained(training)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    procs = list(pool._pool._processes) if pool is not None and pool._pool is not None else []
    worker_cpu = [_cpu_of(p) for p in procs]
    worker_kb = [_peak_kb(p) for p in procs]
    if pool is not None:
        pool.close()
    return {
        "craftrdf": craftrdf.__file__,
        "wall": wall,
        "read_wall": read,
        "parent_cpu": cpu,
        "worker_cpu": worker_cpu,
        "idle_estimate": cpu + max(worker_cpu, default=0.0),
        "peak_mb": max([_peak_kb(os.getpid()), *worker_kb]) / 1024,
        "sets": {k: {"ser": s.ser, "cv_ser": s.train.cv_ser, "seconds": s.seconds} for k, s in scores.items()},
    }


def train_together(a: argparse.Namespace, runs: list[tuple[Path, str | None]]) -> list[dict[str, Any]]:
    """Ten-set training runs side by side, each in a fresh process (a tree's source, or None: this one)."""
    procs = []
    for out, src in runs:
        if (out / "result.json").is_file() and (out / "result.json").stat().st_size:
            continue  # --out given again: this run's result is there (and its models, for step 2)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child-train", str(out), "--store", a.store]
        cmd += ["--craft", a.craft, "--sets", a.sets, "--workers", str(a.workers)]
        out.mkdir(parents=True, exist_ok=True)  # the working directory: see run_together
        with (out / "result.json").open("w") as f:
            procs.append(subprocess.Popen(cmd, stdout=f, env=_env(src), cwd=out))
    for p in procs:
        if p.wait() != 0:
            raise subprocess.CalledProcessError(p.returncode, p.args)
    return [json.loads((out / "result.json").read_text().strip().splitlines()[-1]) for out, _ in runs]


def same_models(a: Path, b: Path) -> bool:
    """Whether two model folders hold the same files with the same bytes."""
    names = sorted(p.name for p in a.iterdir())
    if names != sorted(p.name for p in b.iterdir()):
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    return not mismatch and not errors


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", required=True)
    p.add_argument("--craft", required=True)
    p.add_argument("--sets", default=TEN)
    p.add_argument("--workers", type=int, default=2, help="training processes (0: in the parent, one set at a time)")
    p.add_argument("--repeat", type=int, default=1, help="timed runs of each command (medians)")
    p.add_argument("--baseline", help="another source tree to time beside this one (same commands, same run)")
    p.add_argument(
        "--out", help="keep the models and runs here (default: a temporary folder); given again, the training is reused"
    )
    p.add_argument("--child-train", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child_train:
        print(json.dumps(child_train(a.store, a.sets.split(","), Path(a.child_train), a.workers)))
        return
    # absolute: the runs work from other directories (run_cli)
    a.store, a.craft = str(Path(a.store).resolve()), str(Path(a.craft).resolve())
    a.baseline = str(Path(a.baseline).resolve()) if a.baseline else None
    load_before = os.getloadavg()
    trees = [("this", None)] + ([("baseline", a.baseline)] if a.baseline else [])
    keys = a.sets.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(a.out).resolve() if a.out else Path(tmp)
        trained: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
        for i in range(a.repeat):  # side by side: both trees see the same load
            results = train_together(a, [(root / f"{name}-{i}", src) for name, src in trees])
            for (name, _), result in zip(trees, results):
                trained[name].append(result)
        annotate: dict[str, dict[str, list[tuple[float, float]]]] = {name: {} for name, _ in trees}
        for key in keys:
            commands = []
            for name, src in trees:
                run = root / f"{name}-0"
                cmd = ["annotate", "--store", a.store, "--set", key, a.craft, "--split", "test"]
                cmd += ["--cache-dir", str(run / "cache"), "--model", str(run / "models" / key)]
                cmd += ["--out", str(run / "annotate" / key)]
                commands.append((cmd, run, src))
            # no untimed run first: the training runs filled each tree's cache (dictionaries, sentences)
            timed = [run_together(commands) for _ in range(a.repeat)]
            for j, (name, _) in enumerate(trees):
                annotate[name][key] = [t[j] for t in timed]
        identical = (
            {k: same_models(root / "this-0" / "models" / k, root / "baseline-0" / "models" / k) for k in keys}
            if a.baseline
            else {}
        )
    load_after = os.getloadavg()
    _print(a, trained, annotate, identical, (load_before[0], load_after[0]))


def _print(
    a: argparse.Namespace,
    trained: dict[str, list[dict[str, Any]]],
    annotate: dict[str, dict[str, list[tuple[float, float]]]],
    identical: dict[str, bool],
    load: tuple[float, float],
) -> None:
    print(f"load average before {load[0]:.2f}, after {load[1]:.2f} (2 cores); {a.workers} training workers")

    label = f"{len(a.sets.split(','))} sets trained and tested"

    def med(name: str, field: str) -> float:
        return statistics.median(r[field] for r in trained[name])

    print(f"{label:<34} {'wall s':>8} {'read s':>7} {'CPU s':>7} {'idle est. s':>11} {'peak MB':>8}")
    for name in trained:
        print(f"{name}: craftrdf from {trained[name][0]['craftrdf']}")
    for name in trained:
        cpu = statistics.median(r["parent_cpu"] + sum(r["worker_cpu"]) for r in trained[name])
        print(
            f"{name:<34} {med(name, 'wall'):8.1f} {med(name, 'read_wall'):7.1f} {cpu:7.1f} "
            f"{med(name, 'idle_estimate'):11.1f} {med(name, 'peak_mb'):8.0f}"
        )
    if "baseline" in trained:
        print(
            f"ratio this/baseline: wall {med('this', 'wall') / med('baseline', 'wall'):.2f}, "
            f"idle estimate {med('this', 'idle_estimate') / med('baseline', 'idle_estimate'):.2f}"
        )
    print("annotate --model on the test articles: wall s (CPU s), median of --repeat")
    print(f"{'set':<12} {'test SER':>9} {'baseline':>9} {'models':>10} {'this':>13} {'baseline':>13} {'CPU ratio':>9}")
    for key in a.sets.split(","):
        ser = trained["this"][0]["sets"].get(key, {}).get("ser", float("nan"))
        base = trained.get("baseline", [{"sets": {}}])[0]["sets"].get(key, {}).get("ser", float("nan"))
        same = "" if key not in identical else "identical" if identical[key] else "DIFFER"
        tw, tc = (statistics.median(x[i] for x in annotate["this"][key]) for i in (0, 1))
        bw, bc = (
            (statistics.median(x[i] for x in annotate["baseline"][key]) for i in (0, 1))
            if "baseline" in annotate
            else (float("nan"), float("nan"))
        )
        print(f"{key:<12} {ser:9.4f} {base:9.4f} {same:>10} {tw:6.1f} ({tc:4.1f}) {bw:6.1f} ({bc:4.1f}) {tc / bc:9.2f}")
    print(
        json.dumps(
            {"load": load, "workers": a.workers, "trained": trained, "annotate": annotate, "identical": identical}
        )
    )


if __name__ == "__main__":
    main()
