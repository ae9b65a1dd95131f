"""Benchmark: building into Virtuoso 7 through the Graph Store Protocol vs its bulk loader.

    python bench/bench_virtuoso_load.py --craft ../shared/craft --work /tmp/vload [--sets UBERON_EXT] \
                                        [--repeat 3] [--buffers 340000] [--store S]

Per repeat, each path starts from an empty Virtuoso of its own (``tests/helpers/virtuoso.py``:
Debian's ``virtuoso-t``, a temporary directory, free loopback ports):

- ``gsp``: ``craftrdf build --craft DIR --endpoint .../sparql --graph-store .../sparql-graph-crud``,
  one process start to exit: reading the corpus and one HTTP PUT per batch;
- ``local``: ``craftrdf build --craft DIR --store`` (what the bulk path needs first, unless the
  store is there already: ``--store S`` skips this step and dumps S);
- ``dump``: the store written as one N-Quads file (``Store.dump``, what ``oxigraph dump`` does);
- ``bulk``: ``ld_dir`` / ``rdf_loader_run()`` / ``checkpoint`` of that file.

Both Virtuosos must then hold the local store's quad count (named graphs, Virtuoso's own left
out; with ``--store``, which may hold derived batches a build does not make, both counts are printed). Prints the medians, the ratios ``gsp / bulk`` and ``gsp / (local + dump + bulk)`` from the
same run, the load (``os.getloadavg``) and one JSON line. Needs ``virtuoso-t`` and ``isql-vt``.
Not part of the test suite.
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
from pathlib import Path

import pyoxigraph as ox

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the test helper that starts a Virtuoso of its own

from tests.helpers.virtuoso import Virtuoso, virtuoso_command, virtuoso_server  # noqa: E402

COUNT = (
    "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), 'https://w3id.org/craftrdf/')) }"
)


def _craftrdf(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "craftrdf", "-q", *args], check=True)
    return time.perf_counter() - started


def _count(server: Virtuoso) -> int:
    from craftrdf.store.remote import RemoteStore

    (row,) = RemoteStore(server.endpoint, timeout=600).query(COUNT)  # type: ignore[misc]
    return int(row["n"].value)


def one_round(args: argparse.Namespace, work: Path) -> dict[str, float]:
    """One measurement of each path, in fresh directories under ``work``."""
    exe = virtuoso_command()
    assert exe is not None, "virtuoso-t is not installed"
    sets = ["--sets", args.sets] if args.sets else []
    times: dict[str, float] = {}
    with virtuoso_server(exe, work / "gsp", buffers=args.buffers) as server:
        times["gsp"] = _craftrdf(
            "build", "--craft", str(args.craft), *sets, "--endpoint", server.endpoint, "--graph-store",
            server.graph_store, "--timeout", "3600",
        )  # fmt: skip
        gsp_quads = _count(server)
        gsp_bytes = _checkpointed_size(server)
    store = args.store
    if store is None:
        store = work / "local.store"
        times["local"] = _craftrdf("build", "--craft", str(args.craft), *sets, "--store", str(store))
    started = time.perf_counter()
    dump = work / "store.nq"
    source = ox.Store.read_only(str(store))
    local_quads = len(source)
    source.dump(str(dump), format=ox.RdfFormat.N_QUADS)
    del source
    times["dump"] = time.perf_counter() - started
    with virtuoso_server(exe, work / "bulk", buffers=args.buffers) as server:
        times["bulk"] = server.bulk_load([dump])
        bulk_quads = _count(server)
        bulk_bytes = _checkpointed_size(server)
    if args.store is None and not gsp_quads == bulk_quads == local_quads:
        raise SystemExit(f"quads differ: gsp {gsp_quads}, bulk {bulk_quads}, local store {local_quads}")
    # a given --store may hold more than a build makes (derived batches: containment links, S-values)
    times |= {"quads": local_quads, "gsp_quads": gsp_quads, "gsp_bytes": gsp_bytes, "bulk_bytes": bulk_bytes}
    shutil.rmtree(work)
    return times


def _checkpointed_size(server: Virtuoso) -> float:
    server.isql("checkpoint;")
    return float(sum(f.stat().st_size for f in server.directory.glob("virtuoso.*") if f.suffix in (".db", ".trx")))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--craft", type=Path, required=True)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--sets", help="as craftrdf build --sets (default: all)")
    p.add_argument("--store", type=Path, help="a store of the same build, dumped instead of building one")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--buffers", type=int, default=340_000, help="Virtuoso's NumberOfBuffers (8 kB pages)")
    args = p.parse_args()
    rounds = []
    for i in range(args.repeat):
        r = one_round(args, args.work / f"round{i}")
        print(json.dumps({"round": i, "load": os.getloadavg(), **r}), flush=True)
        rounds.append(r)
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    bulk_path = med["bulk"] + med["dump"] + med.get("local", 0.0)
    print(f"quads {int(med['quads']):,}; medians of {args.repeat}; load {os.getloadavg()[0]:.1f}")
    for k in ("gsp", "local", "dump", "bulk"):
        if k in med:
            print(f"{k:6s} {med[k]:9.1f} s")
    print(
        f"Virtuoso files after checkpoint: gsp {med['gsp_bytes'] / 1e6:.0f} MB, bulk {med['bulk_bytes'] / 1e6:.0f} MB"
    )
    print(f"gsp / bulk = {med['gsp'] / med['bulk']:.2f}; gsp / (local + dump + bulk) = {med['gsp'] / bulk_path:.2f}")
    print(json.dumps({"medians": med, "repeat": args.repeat, "sets": args.sets}))


if __name__ == "__main__":
    main()
