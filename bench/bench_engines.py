"""Benchmark: one store's data in Oxigraph embedded, in ``oxigraph serve`` and in Virtuoso 7: load, size, queries.

    python bench/bench_engines.py --work /tmp/engines --store 1=S1 --store 10=S10 [--repeat 3] \
                                  [--set SCALE] [--doc IRI]

Each ``--store SIZE=DIR`` (the 1x and 10x stores of docs/scale.md: ``bench_scale.py --keep``, then
``copy_scale_store.py``, with ``craftrdf similarity --materialize --ontology UBERON+extensions``
run on the 1x store before it is copied) is dumped once as N-Quads, then loaded into

- Oxigraph embedded: an empty pyoxigraph store, ``Store.bulk_load`` of the dump;
- Oxigraph's server: ``oxigraph load`` of the dump into its own directory, then
  ``oxigraph serve-read-only`` on a free loopback port (the ``oxigraph`` CLI, PyPI ``oxigraph``);
- Virtuoso: an empty ``virtuoso-t`` of its own (``tests/helpers/virtuoso.py``), its bulk loader.

Measured per engine: load seconds, size on disk after loading (Virtuoso: after ``checkpoint``),
and the median of ``--repeat`` runs (after one warm-up run) of library queries as craftrdf runs
them (``run_query``: bound values; a server through :class:`~craftrdf.store.remote.RemoteStore`,
rows parsed), on the set ``--set``: ``annotation-counts``, ``top-classes``, ``per-document-stats``,
``annotations-of-class`` (brain), ``document-annotations`` (one document), and Wang for brain and
striatum through both SPARQL paths: ``craftrdf:wang`` (the function: embedded only, as
``craftrdf query`` and ``craftrdf serve`` run it; its first call builds the index, timed apart)
and ``wang-svalues`` (plain SPARQL, every engine). Prints a table per size with each server's
time over the embedded one's from the same run, the load (``os.getloadavg``) and JSON lines.
Needs ``virtuoso-t``, ``isql-vt`` and ``oxigraph``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the test helpers that start servers of their own

import craftrdf  # noqa: E402
from craftrdf.analysis.similarity.svalue_graph import svalue_graph  # noqa: E402
from craftrdf.querying.library import resolve_query, run_query  # noqa: E402
from craftrdf.store.local import AnnotationStore  # noqa: E402
from craftrdf.store.remote import RemoteStore  # noqa: E402
from tests.helpers.oxigraph import free_port  # noqa: E402
from tests.helpers.virtuoso import virtuoso_command, virtuoso_server  # noqa: E402

PAIR = ("UBERON:0000955", "UBERON:0002435")  # brain, striatum
SVALUES = svalue_graph("UBERON+extensions", {"is_a": 0.8, "part_of": 0.6})
WANG = f'SELECT (craftrdf:wang({PAIR[0]}, {PAIR[1]}, "UBERON+extensions") AS ?s) {{}}'


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def queries(args: argparse.Namespace) -> dict[str, tuple[str, dict[str, str]]]:
    s = {"set": args.set}
    return {
        "annotation-counts": ("annotation-counts", s),
        "top-classes": ("top-classes", s),
        "per-document-stats": ("per-document-stats", s),
        "annotations-of-class": ("annotations-of-class", {**s, "cls": PAIR[0]}),
        "document-annotations": ("document-annotations", {**s, "doc": args.doc}),
        "wang-svalues": ("wang-svalues", {"a": PAIR[0], "b": PAIR[1], "svalues": SVALUES}),
    }


def timed(fn: Callable[[], int], repeat: int) -> tuple[float, int]:
    """Median seconds of ``repeat`` runs after one warm-up, and the rows of the last."""
    rows = fn()
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        rows = fn()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), rows


def measure(store: Any, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, (name, params) in queries(args).items():
        q = resolve_query(name)
        out[label], out[label + " rows"] = timed(lambda q=q, p=params: len(run_query(store, q, p).rows), args.repeat)
    return out


def oxigraph_server(exe: str, location: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [exe, "serve-read-only", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}/query"
    deadline = time.monotonic() + 120
    while True:
        try:
            RemoteStore(endpoint, timeout=5).query("ASK {}")
            return proc, endpoint
        except Exception:  # not listening yet
            if proc.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def one_size(size: str, source: Path, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    work = args.work / f"x{size}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    dump = work / "store.nq"
    ox.Store.read_only(str(source)).dump(str(dump), format=ox.RdfFormat.N_QUADS)
    results: dict[str, dict[str, Any]] = {}

    # Oxigraph embedded
    started = time.perf_counter()
    local = ox.Store(str(work / "embedded"))
    local.bulk_load(path=str(dump), format=ox.RdfFormat.N_QUADS)
    local.flush()
    local.optimize()
    load = time.perf_counter() - started
    del local
    with AnnotationStore.open(work / "embedded", mode="read") as store:
        r = {"load s": load, "MB": du(work / "embedded") / 1e6, **measure(store, args)}
        wang = work / "wang.rq"  # craftrdf.query runs a library name or a .rq file, as `craftrdf query` does
        wang.write_text(WANG)
        cold = time.perf_counter()
        craftrdf.query(store, str(wang))
        r["craftrdf:wang (first: index)"] = time.perf_counter() - cold
        r["craftrdf:wang"], _ = timed(lambda: len(craftrdf.query(store, str(wang)).rows), args.repeat)
    results["oxigraph embedded"] = r

    # oxigraph serve
    exe = shutil.which("oxigraph")
    assert exe is not None, "the oxigraph CLI is not installed (pip install oxigraph)"
    started = time.perf_counter()
    subprocess.run([exe, "load", "--location", str(work / "server"), "--file", str(dump)], check=True)
    load = time.perf_counter() - started
    proc, endpoint = oxigraph_server(exe, work / "server")
    try:
        remote = RemoteStore(endpoint, timeout=3600)
        results["oxigraph serve"] = {"load s": load, "MB": du(work / "server") / 1e6, **measure(remote, args)}
    finally:
        proc.terminate()
        proc.wait()

    # Virtuoso
    vexe = virtuoso_command()
    assert vexe is not None, "virtuoso-t is not installed"
    with virtuoso_server(vexe, work / "virtuoso", buffers=args.buffers) as server:
        load = server.bulk_load([dump])
        size_mb = sum(f.stat().st_size for f in (work / "virtuoso").glob("virtuoso.*") if f.suffix in (".db", ".trx"))
        remote = RemoteStore(server.endpoint, timeout=3600)
        results["virtuoso"] = {"load s": load, "MB": size_mb / 1e6, **measure(remote, args)}
    dump.unlink()
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--store", action="append", required=True, help="SIZE=DIR, e.g. 1=/tmp/S1 (repeatable)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--set", default="SCALE")
    p.add_argument("--doc", default="https://w3id.org/craftrdf/doc/r000-11319941", help="a document IRI")
    p.add_argument("--buffers", type=int, default=340_000, help="Virtuoso's NumberOfBuffers (8 kB pages)")
    args = p.parse_args()
    for spec in args.store:
        size, _, path = spec.partition("=")
        results = one_size(size, Path(path), args)
        engines = list(results)
        print(f"\n{size}x ({path}); medians of {args.repeat}; load {os.getloadavg()[0]:.1f}")
        print(f"{'':32s}" + "".join(f"{e:>20s}" for e in engines) + "   ratios to embedded")
        for key in results[engines[0]]:
            cells = [results[e].get(key) for e in engines]
            line = f"{key:32s}" + "".join(f"{c:>20,.3f}" if isinstance(c, float) else f"{c!s:>20s}" for c in cells)
            base = cells[0]
            if isinstance(base, float) and base > 0 and not key.endswith(("rows",)):
                line += "   " + " ".join(f"{c / base:.2f}" if isinstance(c, float) else "-" for c in cells[1:])
            print(line)
        print(json.dumps({"size": size, "load": os.getloadavg(), "results": results}), flush=True)


if __name__ == "__main__":
    main()
