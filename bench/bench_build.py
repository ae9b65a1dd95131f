"""Benchmark: build the full CRAFT store, against pyoxigraph's own bulk_load as the floor.

    python bench/bench_build.py --craft ../shared/craft [--go ../shared/ontologies/go-2022-07-01.obo.gz]
                                [--sizes 100000,1000000] [--repeat 3]

Prints, for the corpus build: wall time, quads, annotations per second, and the time
``Store.bulk_load`` takes for the same quads dumped as N-Quads (the floor), measured in
the same run, with the ratio. Then, for ontology growth (the full GO and synthetic OBO
files of the given sizes): time and peak memory of craftrdf's OBO load, next to the time
and peak memory of bulk-loading the same quads as N-Quads. Each growth case runs in a
fresh subprocess so peak RSS is its own. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.store.local import AnnotationStore


def synthetic_obo(path: Path, n: int, seed: int = 1) -> None:
    """An OBO file of ``n`` terms: names, defs, synonyms, 1-2 is_a and some part_of edges."""
    rnd = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("format-version: 1.2\nontology: syn\n\n")
        for i in range(n):
            fh.write(f"[Term]\nid: SYN:{i:07d}\nname: synthetic term {i}\n")
            fh.write(f'def: "Definition of term {i}, with \\"quotes\\"." [PMID:{i}]\n')
            fh.write(f'synonym: "syn term {i}" EXACT []\nsynonym: "other {i}" RELATED []\n')
            if i:
                for p in {rnd.randrange(i) for _ in range(rnd.choice((1, 2)))}:
                    fh.write(f"is_a: SYN:{p:07d} ! synthetic term {p}\n")
                if i % 3 == 0:
                    fh.write(f"relationship: part_of SYN:{rnd.randrange(i):07d}\n")
            fh.write("\n")
        fh.write("[Typedef]\nid: part_of\nname: part of\nxref: BFO:0000050\nis_transitive: true\n")


# ru_maxrss survives execve (it would report the parent's peak); VmHWM belongs to the new process.
_PEAK = """
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""

_OUR_LOAD = (
    _PEAK
    + """
import json, sys, time
from pathlib import Path
from craftrdf.building.builder import ontology_lines
from craftrdf.core.curie import CurieMap
from craftrdf.store.local import AnnotationStore
t = time.perf_counter()
with AnnotationStore.open(sys.argv[2]) as st:
    n = st.load_batch("https://w3id.org/craftrdf/ontology/bench", ontology_lines(Path(sys.argv[1]),
        graph="https://w3id.org/craftrdf/ontology/bench", curies=CurieMap()), digest="bench")
print(json.dumps({"seconds": time.perf_counter() - t, "quads": n,
                  "peak_mb": peak_mb()}))
"""
)

_FLOOR_LOAD = (
    _PEAK
    + """
import json, sys, time
import pyoxigraph as ox
t = time.perf_counter()
st = ox.Store(sys.argv[2])
st.bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_QUADS)
st.flush()
print(json.dumps({"seconds": time.perf_counter() - t,
                  "peak_mb": peak_mb()}))
"""
)


def _run(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_corpus(craft: Path, work: Path, repeat: int) -> None:
    builds, floors = [], []
    for r in range(repeat):
        store_dir = work / f"craft-{r}.store"
        t = time.perf_counter()
        with AnnotationStore.open(store_dir) as st:
            report = build_store(craft, st, RunContext.create())
            build_s = time.perf_counter() - t
            quads = len(st)
            counts = run_query(st, resolve_query("annotation-counts"))
            annotations = sum(int(row[2].value) for row in counts.rows)
            dump = work / "craft.nq"
            st.raw.dump(str(dump), ox.RdfFormat.N_QUADS)
        shutil.rmtree(store_dir)
        floor_dir = work / f"floor-{r}.store"
        t = time.perf_counter()
        floor = ox.Store(str(floor_dir))
        floor.bulk_load(path=str(dump), format=ox.RdfFormat.N_QUADS)
        floor.flush()
        floor_s = time.perf_counter() - t
        del floor
        shutil.rmtree(floor_dir)
        builds.append(build_s)
        floors.append(floor_s)
        print(
            f"run {r + 1}: build {build_s:.1f} s ({len(report.loaded)} batches, {quads:,} quads, "
            f"{annotations:,} annotations); bulk_load floor {floor_s:.1f} s",
            flush=True,
        )
    b, f = statistics.median(builds), statistics.median(floors)
    print(
        f"\ncorpus build (median of {repeat}): {b:.1f} s, {quads:,} quads, {annotations / b:,.0f} annotations/s, "
        f"{quads / b:,.0f} quads/s"
    )
    print(f"bulk_load floor (same quads as N-Quads): {f:.1f} s   ratio build/floor = {b / f:.2f}x")


def bench_growth(files: list[tuple[str, Path]], work: Path) -> None:
    print(f"\n{'ontology':<22}{'quads':>11}{'craftrdf s':>12}{'peak MB':>9}{'floor s':>9}{'peak MB':>9}{'ratio':>7}")
    for label, path in files:
        ours = _run(_OUR_LOAD, str(path), str(work / f"{label}.store"))
        nq = work / f"{label}.nq"
        st = ox.Store(str(work / f"{label}.store"))
        st.dump(str(nq), ox.RdfFormat.N_QUADS)
        del st
        floor = _run(_FLOOR_LOAD, str(nq), str(work / f"{label}-floor.store"))
        print(
            f"{label:<22}{int(ours['quads']):>11,}{ours['seconds']:>12.1f}{ours['peak_mb']:>9.0f}"
            f"{floor['seconds']:>9.1f}{floor['peak_mb']:>9.0f}{ours['seconds'] / floor['seconds']:>7.2f}",
            flush=True,
        )
        for p in (work / f"{label}.store", work / f"{label}-floor.store"):
            shutil.rmtree(p, ignore_errors=True)
        nq.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--craft", type=Path, default=Path("../shared/craft"))
    ap.add_argument("--go", type=Path, default=Path("../shared/ontologies/go-2022-07-01.obo.gz"))
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-corpus", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="craftrdf-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_corpus:
            bench_corpus(args.craft, work, args.repeat)
        files: list[tuple[str, Path]] = []
        if args.go.is_file():
            files.append(("GO 2022-07-01", args.go))
        for n in (int(s) for s in args.sizes.split(",") if s):
            p = work / f"synthetic-{n}.obo"
            synthetic_obo(p, n)
            files.append((f"synthetic 10^{len(str(n)) - 1}", p))
        bench_growth(files, work)


if __name__ == "__main__":
    main()
