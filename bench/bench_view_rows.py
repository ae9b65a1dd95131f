"""Benchmark: writing a set's derived view rows, the old read against the one-pass read.

    python bench/bench_view_rows.py STORE [STORE ...] [--set SCALE] [--passes 2]

WRITES into each STORE (it removes and rewrites the set's view rows): give copies. Per store and
pass, one run each, wall and CPU seconds: the rows read with the ``annotations`` query (what
``ensure_view_rows`` ran before), the rows read with ``craftrdf.querying.webanno.set_rows`` (what it runs
now), then ``ensure_view_rows`` itself after removing the rows (read and write). Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import craftrdf
from craftrdf.querying.indexes import ensure_view_rows, view_rows_graph
from craftrdf.querying.library import QueryResult, run_query
from craftrdf.querying.webanno import set_rows
from craftrdf.store.local import AnnotationStore

_COLUMNS = ("annotation", "document", "class", "spans", "text")


def _old(store: AnnotationStore, key: str) -> list[str]:
    result = run_query(store, "annotations", {"set": key})
    return [json.dumps(r, ensure_ascii=False) for r in result.optional_strings(*_COLUMNS)]


def _new(store: AnnotationStore, key: str) -> list[str]:
    result = QueryResult(_COLUMNS, tuple(set_rows(store, key)))
    return [json.dumps(r, ensure_ascii=False) for r in result.optional_strings(*_COLUMNS)]


def _timed(f: Callable[[], object]) -> str:
    start, cpu = time.perf_counter(), time.process_time()
    f()
    return f"wall {time.perf_counter() - start:.2f} s\tCPU {time.process_time() - cpu:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--set", default="SCALE")
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args()
    stores = {p: craftrdf.open(p, mode="write") for p in args.stores}
    for path, store in stores.items():
        same = sorted(_old(store, args.set)) == sorted(_new(store, args.set))
        print(f"{path}\tsame rows: {same}", flush=True)
    for _ in range(args.passes):
        for path, store in stores.items():
            print(f"{path}\tread before (annotations)\t{_timed(lambda s=store: _old(s, args.set))}", flush=True)
            print(f"{path}\tread now (set_rows)\t{_timed(lambda s=store: _new(s, args.set))}", flush=True)
            store.remove_batch(view_rows_graph(args.set))
            print(f"{path}\tensure_view_rows\t{_timed(lambda s=store: ensure_view_rows(s, [args.set]))}", flush=True)


if __name__ == "__main__":
    main()
