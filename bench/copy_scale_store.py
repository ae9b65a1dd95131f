"""Grow a scale store by copying its set graph with renamed document ids (how the 40x and 100x stores were made).

    python bench/copy_scale_store.py SRC DST --copies 9 [--graph IRI] [--key SCALE]

Copies the store SRC (e.g. the 10x store of ``bench/bench_scale.py --keep``) to DST, dumps its set
graph as N-Triples, then bulk-loads it ``--copies`` more times into the same graph with the document
ids renamed (``r0NN-`` to ``r1NN-``, ``r2NN-``... so no IRI repeats), and compacts. Annotating as
many documents would take 2.9 documents/s on this machine; copying measures the queries only. Not
part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--copies", type=int, default=9, help="at most 9 (one digit renames r0 to rK)")
    parser.add_argument("--graph", default="https://w3id.org/craftrdf/set/SCALE")
    parser.add_argument("--key", default="SCALE")
    args = parser.parse_args()
    start = time.perf_counter()
    graph = ox.NamedNode(args.graph)
    shutil.copytree(args.src, args.dst)
    with tempfile.TemporaryDirectory() as tmp:
        nt = Path(tmp) / "set.nt"
        ox.Store.read_only(str(args.src)).dump(str(nt), format=ox.RdfFormat.N_TRIPLES, from_graph=graph)
        store = ox.Store(str(args.dst))
        for k in range(1, args.copies + 1):
            rename = rf"s#(craftrdf/(doc|ann/{args.key})/)r0([0-9][0-9]-)#\1r{k}\3#g"
            sed = subprocess.Popen(["sed", "-E", rename, str(nt)], stdout=subprocess.PIPE)
            store.bulk_load(sed.stdout, format=ox.RdfFormat.N_TRIPLES, to_graph=graph)
            if sed.wait() != 0:
                raise SystemExit(f"sed failed on copy {k}")
            print(f"copy {k} loaded\t{time.perf_counter() - start:.1f} s", flush=True)
    store.optimize()
    print(f"compacted\t{time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
