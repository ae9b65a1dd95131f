"""Benchmark: the library queries, the view and the whole-set read on scale stores of growing size.

    python bench/bench_grown_queries.py REPEAT DOCUMENT STORE [STORE ...]

Each STORE (the ``SCALE`` stores of ``bench/bench_scale.py --keep`` or of
``bench/copy_scale_store.py``) is opened read-only, so the view runs ``querying/queries/view.rq``. Prints,
per query, the median wall and CPU seconds of REPEAT runs, then one JSON line per store. DOCUMENT
is a document id of the set (e.g. r000-11319941). Not part of the test suite.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from bench_growth_layers import median_wall_cpu  # run as python bench/...: its directory is on sys.path

import craftrdf
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.querying.webanno import fetch_annotations
from craftrdf.store.local import AnnotationStore

RUN = "SCALE"


def main() -> None:
    repeat, doc = int(sys.argv[1]), sys.argv[2]
    for path in sys.argv[3:]:
        out: dict[str, object] = {"store": path}
        with AnnotationStore.open(path, mode="read") as store:
            cases = {
                "annotation-counts": ("annotation-counts", {"set": RUN}),
                "top-classes": ("top-classes", {"set": RUN}),
                "per-document-stats": ("per-document-stats", {"set": RUN}),
                "annotations-of-class brain": ("annotations-of-class", {"cls": "UBERON:0000955", "set": RUN}),
                "document-annotations (one document)": (
                    "document-annotations",
                    {"set": RUN, "doc": f"https://w3id.org/craftrdf/doc/{doc}"},
                ),
                "viewer-document (one document)": ("viewer-document", {"doc": f"https://w3id.org/craftrdf/doc/{doc}"}),
            }
            timings: dict[str, Callable[[], object]] = {
                label: (lambda n=name, p=params: run_query(store, resolve_query(n), p).rows)
                for label, (name, params) in cases.items()
            }
            timings["fetch_annotations (whole set)"] = lambda: fetch_annotations(store, RUN)
            timings["view proper classes (view.rq)"] = lambda: craftrdf.view(store, RUN, classes="proper")
            for label, fn in timings.items():
                out[label] = tuple(round(x, 3) for x in median_wall_cpu(fn, repeat))
                print(path, label, out[label], flush=True)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
