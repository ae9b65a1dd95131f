"""Benchmark: the viewer's class page read by its queries, against reading the ontology model it could project.

    python bench/bench_class_page.py --store /work/corpus.store [--class UBERON:0001017 ...] [--repeat 3]

Per class, the median of --repeat ``class_view`` calls (its two library queries and the
annotation query), a viewer state of its own per class; the similar classes are left out (the
state builds no index, so no build competes with the timings). The peer, in
the same run: the ontology model the page's description would come from, read afresh
(``read_store_model`` with its names) for the largest graph declaring the class and for every
ontology graph merged (a page shows labels and parents from every graph). Ratio: model / page.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
from functools import partial
from typing import Any

from bench_scale import timed  # run as python bench/...: its directory is on sys.path

from craftrdf.ontology.store_model import read_store_model
from craftrdf.publishing.server.viewer_classes import ViewerState, class_view
from craftrdf.store.local import AnnotationStore

CLASSES = ("UBERON:0001017", "CL:0000540", "UBERON_EXT:bone_element_or_tissue")


def _none(store: object, ontology: str) -> Any:
    """No index and no placements: the page then says its similar classes are pending."""
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--class", dest="classes", action="append", help="a class CURIE (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}; medians of {args.repeat}")
    with AnnotationStore.open(args.store, mode="read") as store:

        def model(ontology: str | None) -> None:
            read_store_model(store, ontology, cache=None).synonyms  # noqa: B018 - the names are read on first use

        def state() -> ViewerState:
            return ViewerState(store, base_iri="http://localhost/", build_index=_none, build_placements=_none)

        warm = state()
        class_view(warm, CLASSES[0])  # the store's first queries (graph sizes, caches) out of the timing
        pages = {}
        for curie in args.classes or CLASSES:
            page = state()
            view = class_view(page, curie)  # untimed: the state reads the graph sizes once per server
            assert view is not None, curie
            pages[curie] = (timed(partial(class_view, page, curie), args.repeat), view.similarity_ontology)
            print(f"page {curie:<36} {pages[curie][0] * 1000:8.1f} ms   (graph {view.similarity_ontology})")
        slowest = max(t for t, _ in pages.values())
        for ontology in [*sorted({g for _, g in pages.values() if g}), None]:
            t = timed(partial(model, ontology), args.repeat)
            name = ontology or "every ontology graph"
            print(f"model {name:<35} {t:8.2f} s    ratio to the slowest page {t / slowest:,.0f}x")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
