"""Benchmark: how annotate, load and query grow with the corpus (1x, 10x, 100x CRAFT), in process and on Dask.

    python bench/bench_scale.py --store /tmp/craft.store --craft ../shared/craft --work /tmp/scale \
                                [--sizes 1,10,100] [--modes inline,dask] [--repeat 1] [--batch-size 32]

``--store`` holds UBERON_EXT and its ontology (``craftrdf build --sets UBERON_EXT``); it is copied
for every run, so each run grows its own store. A size of k is the 97 CRAFT texts k times, each
copy under fresh document ids (``r003-11319941``), so nothing is shared between copies. Per size
and mode, one ``craftrdf annotate --into-store SCALE`` in a fresh process:

- ``inline``: ``--stream`` (everything in the client process);
- ``dask``: ``--scheduler`` of a ``LocalCluster`` of 2 worker processes (1 thread each), started
  afresh for the run so each worker's peak memory is the run's.

Measured: documents/s end to end (process start to exit), the job's own seconds, the seconds the
client spent writing to the store and writing files, peak resident memory of the client (its
``ru_maxrss``, from ``wait4``) and of each worker (``VmHWM``), the store's size on disk (and its
growth over the base store), quads per annotation, the bulk-load floor (the run graph dumped to
N-Quads and bulk-loaded into an empty store with pyoxigraph), and the latency of library queries and
a view on the grown store (median of 3): read-only, the view runs ``querying/queries/view.rq``; writable,
it reads the derived view rows, written once (timed apart). Prints a table and one JSON line per run. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

import craftrdf
from craftrdf.core.iris import set_iri
from craftrdf.querying.indexes import ensure_view_rows
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.store.local import AnnotationStore

RUN = "SCALE"


def make_corpus(craft: Path, copies: int, out: Path) -> int:
    """``copies`` copies of the CRAFT texts under fresh ids in ``out`` (made once); returns documents."""
    texts = sorted((craft / "articles" / "txt").glob("*.txt"))
    if out.is_dir() and len(list(out.glob("*.txt"))) == copies * len(texts):
        return copies * len(texts)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for c in range(copies):
        for t in texts:
            shutil.copyfile(t, out / f"r{c:03d}-{t.name}")
    return copies * len(texts)


def du(path: Path) -> int:
    """Bytes of the files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def vm_hwm() -> int:
    """This process's peak resident memory in bytes (Linux ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def run_client(argv: list[str], work: Path) -> tuple[float, int, str]:
    """Run ``argv``; its wall seconds, peak RSS in bytes (``wait4``), and stdout. Raises on failure."""
    t = time.perf_counter()
    with open(work / "stdout.txt", "w") as out, open(work / "stderr.txt", "w") as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[:6]} failed: {(work / 'stderr.txt').read_text()[-2000:]}")
    return wall, usage.ru_maxrss * 1024, (work / "stdout.txt").read_text()


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    """Median seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def query_latencies(store_dir: Path, document: str) -> dict[str, float]:
    """Median seconds of the library queries and a view on the grown store (results read whole)."""
    out: dict[str, float] = {}
    with AnnotationStore.open(store_dir, mode="read") as store:
        cases: dict[str, tuple[str, dict[str, str]]] = {
            "annotation-counts": ("annotation-counts", {"set": RUN}),
            "annotations (one document)": ("annotations", {"set": RUN, "document": document}),
            "document-annotations (one document)": (
                "document-annotations",
                {"set": RUN, "doc": f"https://w3id.org/craftrdf/doc/{document}"},
            ),
            "viewer-document (one document)": ("viewer-document", {"doc": f"https://w3id.org/craftrdf/doc/{document}"}),
            "annotations-of-class brain": ("annotations-of-class", {"cls": "UBERON:0000955", "set": RUN}),
            "top-classes": ("top-classes", {"set": RUN}),
            "per-document-stats": ("per-document-stats", {"set": RUN}),
        }
        for label, (name, params) in cases.items():
            q = resolve_query(name)
            out[label] = timed(lambda q=q, params=params: run_query(store, q, params).rows)
        out["view proper classes"] = timed(lambda: craftrdf.view(store, RUN, classes="proper"))
    # the same view on a writable store reads the derived view rows, written once on first use
    with AnnotationStore.open(store_dir) as store:
        t = time.perf_counter()
        ensure_view_rows(store, [RUN])
        out["view rows written (once)"] = time.perf_counter() - t
        out["view proper classes (from view rows)"] = timed(lambda: craftrdf.view(store, RUN, classes="proper"))
    return out


def bulk_floor(store_dir: Path, work: Path) -> tuple[float, int]:
    """Seconds to bulk-load the run graph's N-Quads into an empty store, and its quads."""
    nq = work / "run.nq"
    with AnnotationStore.open(store_dir, mode="read") as store, open(nq, "wb") as fh:
        store.raw.dump(fh, ox.RdfFormat.N_QUADS, from_graph=ox.NamedNode(set_iri(RUN)))
    empty = work / "floor.store"
    shutil.rmtree(empty, ignore_errors=True)
    t = time.perf_counter()
    s = ox.Store(str(empty))
    s.bulk_load(path=str(nq), format=ox.RdfFormat.N_QUADS)
    s.flush()
    seconds = time.perf_counter() - t
    n = len(s)
    del s
    shutil.rmtree(empty, ignore_errors=True)
    nq.unlink()
    return seconds, n


def number(pattern: str, text: str) -> float:
    m = re.search(pattern, text)
    if m is None:
        raise RuntimeError(f"{pattern!r} not in output: {text}")
    return float(m.group(1).replace(",", ""))


def one_run(args: argparse.Namespace, size: int, mode: str, corpus: Path, docs: int, rep: int) -> dict[str, Any]:
    """One annotate --into-store run at one size in one mode, and the measurements on its store."""
    work = Path(args.work) / f"x{size}-{mode}-{rep}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    store_dir = work / "store"
    shutil.copytree(args.store, store_dir, ignore=shutil.ignore_patterns("craftrdf.lock"))
    base_bytes = du(store_dir)
    argv = [sys.executable, "-m", "craftrdf", "-q", "annotate", "--store", str(store_dir)]
    argv += ["--set", "UBERON_EXT", str(corpus), "--out", str(work / "out"), "--into-store", RUN]
    argv += ["--cache-dir", str(Path(args.work) / "cache"), "--batch-size", str(args.batch_size)]
    workers_peak: list[int] = []
    if mode == "dask":
        from distributed import Client, LocalCluster

        with (
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            wall, peak, out = run_client([*argv, "--scheduler", cluster.scheduler_address], work)
            workers_peak = sorted(client.run(vm_hwm).values())
    else:
        wall, peak, out = run_client([*argv, "--stream"], work)
    annotations = number(r"([\d,]+) annotations", out)
    quads = number(r"([\d,]+) annotation quads", out)
    row: dict[str, Any] = {
        "size": size,
        "mode": mode,
        "documents": docs,
        "wall_s": wall,
        "docs_per_s": docs / wall,
        "job_s": number(r"BioNLP in \S+, ([\d.]+) s", out),
        "store_write_s": number(r"writing to the store ([\d.]+)", out),
        "files_write_s": number(r"writing files and progress ([\d.]+)", out),
        "client_peak_mb": peak / 1e6,
        "worker_peak_mb": [w / 1e6 for w in workers_peak],
        "annotations": int(annotations),
        "quads": int(quads),
        "quads_per_annotation": quads / annotations,
        "store_mb": du(store_dir) / 1e6,
        "store_growth_mb": (du(store_dir) - base_bytes) / 1e6,
    }
    row["bulk_floor_s"], row["graph_quads"] = bulk_floor(store_dir, work)
    row["latency_s"] = query_latencies(store_dir, f"r{size - 1:03d}-11319941")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--craft", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sizes", default="1,10")
    ap.add_argument("--modes", default="inline,dask")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--keep", action="store_true", help="keep each run's store and outputs")
    args = ap.parse_args()
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}", flush=True)
    for size in (int(s) for s in args.sizes.split(",")):
        corpus = Path(args.work) / f"corpus-x{size}"
        docs = make_corpus(Path(args.craft), size, corpus)
        for mode in args.modes.split(","):
            for rep in range(args.repeat):
                row = one_run(args, size, mode, corpus, docs, rep)
                load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.split("average:")[-1].strip()
                row["load"] = load
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
