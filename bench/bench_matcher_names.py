"""Benchmark: the matcher's dictionary terms read cold from a store, this tree against another, same run.

    python bench/bench_matcher_names.py --store /work/corpus.store --baseline /tmp/main_src [--repeat 3]

For each set (UBERON_EXT, MOP_EXT, CL_EXT by default), ``fetch_terms`` with nothing cached (the
store's derived entries cleared before each call), median of --repeat calls, in a fresh process
per tree and set, the two trees alternating. ``--baseline`` is a source tree of another craftrdf
(``git archive main | tar -x -C /tmp/main_src``), put first on PYTHONPATH; the ratio is this
tree / baseline. Each run also prints a SHA-256 of the terms, so the two trees' terms can be
compared byte for byte. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SETS = ("UBERON_EXT", "MOP_EXT", "CL_EXT")


def child(store_path: str, key: str, repeat: int) -> None:
    """(In a fresh process) time fetch_terms cold with whichever craftrdf is on the path; print JSON."""
    import craftrdf
    from craftrdf.core.context import RunContext
    from craftrdf.matching.matcher.dictionary import fetch_terms
    from craftrdf.ontology.cache import DEFAULT_CACHE
    from craftrdf.querying.sets import resolve_set
    from craftrdf.store.local import AnnotationStore

    times, digest, n = [], "", 0
    with AnnotationStore.open(store_path, mode="read") as store:
        ref = resolve_set(store, key)
        for _ in range(repeat):
            DEFAULT_CACHE.entries(store).clear()
            ctx = RunContext.create()
            t = time.perf_counter()
            terms = fetch_terms(store, ref, ctx)
            times.append(time.perf_counter() - t)
            digest = hashlib.sha256(repr([(x.class_id, x.name, x.scope) for x in terms]).encode()).hexdigest()
            n = len(terms)
    print(json.dumps({"craftrdf": craftrdf.__file__, "median": statistics.median(times), "terms": n, "sha256": digest}))


def run(tree: Path | None, store: str, key: str, repeat: int) -> dict[str, object]:
    """One child process with ``tree`` (None: the installed craftrdf) first on the path."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    out = subprocess.run(
        [sys.executable, __file__, "--child", store, key, str(repeat)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--baseline", type=Path, required=True, help="another craftrdf source tree")
    ap.add_argument("--set", action="append", dest="sets")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}; medians of {args.repeat} cold reads per process")
    print(f"{'set':<12} {'this tree':>10} {'baseline':>10} {'ratio':>6} {'terms':>8}  same terms")
    for key in args.sets or SETS:
        here = run(None, args.store, key, args.repeat)
        base = run(args.baseline, args.store, key, args.repeat)
        assert str(args.baseline) in str(base["craftrdf"]), base["craftrdf"]
        ratio = float(here["median"]) / float(base["median"])  # type: ignore[arg-type]
        same = "yes" if here["sha256"] == base["sha256"] else "NO"
        print(f"{key:<12} {here['median']:>9.2f}s {base['median']:>9.2f}s {ratio:>5.2f}x {here['terms']:>8,}  {same}")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
