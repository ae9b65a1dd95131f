"""Benchmark: an ontology graph's told axioms read by one query against the OWL reader's scan of every quad.

    python bench/bench_told_axioms.py --store /work/corpus.store [--ontology UBERON+extensions ...] [--repeat 3]

Per ontology graph, medians of --repeat runs, nothing cached between them:
``read_told_axioms`` (the library query ``ontology-axioms``: what the ontology model's
``subclass_of``/``equivalents`` and the official scorer's store graph are read from) against
``read_ontology`` (the scan of every quad of the graph the model's told axioms were read by
before), and ``store_official_graph`` (the told axioms and the scorer's projection of them).
The peer in the same run is ``read_ontology``; the ratio is told axioms / read_ontology.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
from functools import partial

from bench_scale import timed  # run as python bench/...: its directory is on sys.path

from craftrdf.analysis.evaluation.official_graph import store_official_graph
from craftrdf.ontology.cache import DEFAULT_CACHE
from craftrdf.ontology.owlread import read_ontology, read_told_axioms
from craftrdf.store.local import AnnotationStore

DEFAULT = ("MOP+extensions", "CL+extensions", "SO+extensions", "GO_MF_stub+GO_MF_extensions", "UBERON+extensions")


def official_afresh(store: AnnotationStore, name: str) -> None:
    """The scorer's graph of one ontology graph with nothing cached (its told axioms read again)."""
    DEFAULT_CACHE.entries(store).clear()  # the store's entries, wherever the default cache keeps them
    store_official_graph(store, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--ontology", action="append", help="an ontology graph name (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}; medians of {args.repeat}")
    print(f"{'ontology':<30} {'told axioms':>11} {'read_ontology':>13} {'ratio':>6} {'official graph':>14}")
    with AnnotationStore.open(args.store, mode="read") as store:
        for name in args.ontology or DEFAULT:
            told = timed(partial(read_told_axioms, store, name), args.repeat)
            full = timed(partial(read_ontology, store, name), args.repeat)
            official = timed(partial(official_afresh, store, name), args.repeat)
            print(f"{name:<30} {told:>10.2f}s {full:>12.2f}s {told / full:>5.2f}x {official:>13.2f}s")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
