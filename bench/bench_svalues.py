"""Benchmark: the S-value batch (plain-SPARQL Wang) of each ontology graph of a store, its size and build time.

    python bench/bench_svalues.py --store S [--repeat 3] [--weights is_a=0.8,part_of=0.6]

``S`` is written to (give a copy: ``cp -a corpus.store /tmp/copy.store``). For each ontology graph
of the store, and for all of them merged, ``craftrdf similarity --materialize`` is
:func:`~craftrdf.analysis.similarity.svalue_graph.materialize_svalues`: the Wang index built from
the graph, its S-values written as one batch. Each run removes the batch first, so every run
builds and writes it. Prints, per graph: classes, S-value triples, distinct levels, triples
written, the N-Triples size of the batch, and the median seconds of ``--repeat`` runs (index,
serialization and write, as the command does), with the load (``os.getloadavg``). One JSON line
per graph. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

import pyoxigraph as ox

from craftrdf.analysis.similarity.graph import parse_weights
from craftrdf.analysis.similarity.svalue_graph import materialize_svalues
from craftrdf.core.iris import ontology_graph, ontology_name
from craftrdf.store.local import AnnotationStore


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", type=Path, required=True, help="a store to write to (a copy)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--weights", default="is_a=0.8,part_of=0.6")
    args = p.parse_args()
    weights = parse_weights(args.weights)
    with AnnotationStore.open(args.store, mode="write", create=False) as store:
        prefix = ontology_graph("")
        names: list[str | None] = [ontology_name(g) for g in sorted(store.batches()) if g.startswith(prefix)]
        print(
            f"{'ontology':32s} {'classes':>8s} {'S-values':>10s} {'levels':>6s} {'triples':>10s} {'MB':>7s} {'s':>7s}"
        )
        for name in [*names, None]:
            seconds, report = [], None
            for _ in range(args.repeat):
                if report is not None:
                    store.remove_batch(report.graph)
                report = materialize_svalues(store, ontology=name, weights=weights)
                seconds.append(report.seconds)
            assert report is not None and report.triples > 0
            graph = store.raw.quads_for_pattern(None, None, None, ox.NamedNode(report.graph))
            size = sum(len(str(q)) + 3 for q in graph)  # one line each: the quad, " ." and a newline
            row = {
                "ontology": name or "all (merged)",
                "classes": report.classes,
                "svalues": report.svalues,
                "levels": report.levels,
                "triples": report.triples,
                "nquads_bytes": size,
                "seconds": statistics.median(seconds),
                "runs": seconds,
                "load": os.getloadavg(),
            }
            print(
                f"{row['ontology']:32s} {report.classes:8,d} {report.svalues:10,d} {report.levels:6,d} "
                f"{report.triples:10,d} {size / 1e6:7.1f} {row['seconds']:7.1f}",
                flush=True,
            )
            print(json.dumps(row), flush=True)
            store.remove_batch(report.graph)  # leave the copy as it was


if __name__ == "__main__":
    main()
