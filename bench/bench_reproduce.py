"""Benchmark: ``craftrdf reproduce --quick`` from nothing, cold and warm, against the issue's 3 minutes and the build.

    python bench/bench_reproduce.py --craft ../shared/craft [--repeat 3] [--workers 2] [--python .venv-wheel/bin/python]

Each repeat runs, one after the other, in child processes of ``--python`` (default this
interpreter: its installed craftrdf is what is measured, e.g. a wheel in a virtualenv):

- **cold**: ``craftrdf reproduce --craft C --out OUT --quick`` with a new empty ``HOME``,
  ``XDG_CACHE_HOME``, ``XDG_CONFIG_HOME``, ``NUMBA_CACHE_DIR`` and ``MPLCONFIGDIR``, as on a
  first run after ``pip install``: numba compiles its kernels, matplotlib builds its font list;
- **warm**: the same command in a new OUT with the caches the cold run left in that ``HOME``;
- **floor**: ``craftrdf build`` of the same store and nothing else (every report needs it).

Every run starts from nothing (a new store; the matcher's caches live in ``OUT/cache``).
The wall time is the child's, interpreter start-up included; the stages come from the
report's first line (whole seconds). Medians over the repeats; the machine is shared and
noisy, so the same-run ratios (cold / warm, each / floor) are the figures to compare. Not part
of the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

GOAL = 180.0  # seconds: issue 9's "--quick finishes in under 3 minutes"; issue 24 holds it for a cold cache
#: the environment variables that point at the caches a first run fills
CACHE_VARIABLES = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "NUMBA_CACHE_DIR", "MPLCONFIGDIR")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cache_environment(home: Path) -> dict[str, str]:
    """This process's environment with every cache variable pointing into ``home`` (made empty by the caller)."""
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        NUMBA_CACHE_DIR=str(home / ".cache" / "numba"),
        MPLCONFIGDIR=str(home / ".config" / "matplotlib"),
    )
    return env


def stages_of(report: Path) -> list[tuple[str, float]]:
    """The stage times of a report's first paragraph ("in 170 s (build 50 s, counts and statistics 28 s, ...")."""
    text = report.read_text(encoding="utf-8")
    found = re.search(r" in \d+ s \(([^;)]*)", text)
    if found is None:
        raise SystemExit(f"{report}: no stage times in its first paragraph")
    return [(m[1], float(m[2])) for m in re.finditer(r"([a-z][a-z ]*?) (\d+) s", found[1])]


def run_cli(python: str, args: list[str], env: dict[str, str], log: Path) -> float:
    """``python -m craftrdf ARGS`` in ``env``; its wall time (exit status checked, output into ``log``)."""
    t = time.perf_counter()
    with log.open("w", encoding="utf-8") as out:
        # run in the log's directory: ``-m`` puts the working directory first on sys.path, and in a checkout
        # that would import the checkout's craftrdf instead of the installed one
        done = subprocess.run(
            [python, "-m", "craftrdf", *args], env=env, stdout=out, stderr=out, check=False, cwd=log.parent
        )
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:1])} exited {done.returncode}: see {log}")
    return seconds


@contextlib.contextmanager
def _run_directory(keep: Path | None, run: int) -> Iterator[Path]:
    """A new directory for one repeat: ``keep/run-N`` (left behind) or a temporary one."""
    if keep is not None:
        path = keep / f"run-{run}"
        path.mkdir(parents=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as tmp:
        yield Path(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--craft", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--python", default=sys.executable, help="interpreter whose craftrdf is measured")
    parser.add_argument("--keep", type=Path, help="run in KEEP/run-N and leave the outputs there (default: removed)")
    args = parser.parse_args()
    craft = str(args.craft.resolve())
    where = subprocess.run(
        [args.python, "-c", "import craftrdf; print(craftrdf.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    ).stdout.strip()
    print(f"craftrdf from {where}", flush=True)
    times: dict[str, list[float]] = {"cold": [], "warm": [], "floor": []}
    by_stage: dict[str, dict[str, list[float]]] = {"cold": {}, "warm": {}}
    for i in range(args.repeat):
        with _run_directory(args.keep, i + 1) as tmp:
            home = tmp / "home"
            home.mkdir()
            env = cache_environment(home)
            for mode in ("cold", "warm"):  # the warm run finds what the cold one left in home
                out, load = tmp / mode, _load()
                reproduce = [
                    "reproduce",
                    "--craft",
                    craft,
                    "--out",
                    str(out),
                    "--quick",
                    "--workers",
                    str(args.workers),
                ]
                seconds = run_cli(args.python, reproduce, env, tmp / f"{mode}.log")
                times[mode].append(seconds)
                stages = stages_of(out / "report.md")
                for name, s in stages:
                    by_stage[mode].setdefault(name, []).append(s)
                shown = ", ".join(f"{name} {s:.0f}" for name, s in stages)
                print(f"run {i + 1}: {mode} reproduce --quick {seconds:.1f} s (load {load}; {shown})", flush=True)
            load = _load()
            build = ["build", "--craft", craft, "--store", str(tmp / "floor.store")]
            times["floor"].append(run_cli(args.python, build, env, tmp / "floor.log"))
            print(f"run {i + 1}: build alone {times['floor'][-1]:.1f} s (load {load})", flush=True)
    cold, warm, floor = (statistics.median(times[k]) for k in ("cold", "warm", "floor"))
    for mode, total in (("cold", cold), ("warm", warm)):
        print(
            f"median {mode} reproduce --quick from nothing: {total:.1f} s "
            f"(range {min(times[mode]):.1f}-{max(times[mode]):.1f}); {total / GOAL:.2f} of the {GOAL:.0f} s goal; "
            f"{total / floor:.2f}x the build alone"
        )
        print(
            f"  median per stage ({mode}): "
            + ", ".join(f"{n} {statistics.median(v):.0f} s" for n, v in by_stage[mode].items())
        )
    ratios = [c / w for c, w in zip(times["cold"], times["warm"], strict=True)]
    print(
        f"median build alone (floor): {floor:.1f} s; cold / warm = {statistics.median(ratios):.3f} (median of the runs' ratios)"
    )


if __name__ == "__main__":
    main()
