"""Benchmark: where a whole-set read's time grows, layer by layer, on stores of growing size.

    python bench/bench_growth_layers.py STORE [STORE ...] [--graph IRI] [--repeat 3]

For the set graph ``--graph`` (default the scale benchmark's ``SCALE`` set) in each store (e.g. the
1x, 10x and 40x stores of ``bench/bench_scale.py --keep``), times per annotation, median of
``--repeat``: a count in the engine (scan and join, nothing decoded), the graph serialized by
Oxigraph (every term decoded, in Rust), one pattern's rows as Python objects, and
``craftrdf.webanno.fetch_annotations`` (the whole-set read). Prints one line per layer and store.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

import craftrdf
from craftrdf.webanno import fetch_annotations

_COUNT = "PREFIX oa: <http://www.w3.org/ns/oa#> SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?a oa:hasBody ?c } }"
_ROWS = "PREFIX oa: <http://www.w3.org/ns/oa#> SELECT ?a ?c WHERE { GRAPH ?g { ?a oa:hasBody ?c } }"


def _median(f: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--graph", default="https://w3id.org/craftrdf/set/SCALE")
    parser.add_argument("--set", default="SCALE", help="the set key of --graph")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    graph = ox.NamedNode(args.graph)
    for path in args.stores:
        n = _engine_layers(ox.Store.read_only(str(path)), path, graph, args.repeat)
        with craftrdf.open(path, mode="read") as store:
            m = _median(lambda: fetch_annotations(store, args.set), args.repeat)
        print(f"{path}\t{n} annotations\tfetch_annotations\t{m:.3f} s\t{m / n * 1e6:.2f} us/annotation", flush=True)


def _engine_layers(raw: ox.Store, path: Path, graph: ox.NamedNode, repeat: int) -> int:
    # the raw store goes out of scope on return, so craftrdf.open can take the directory next
    n = int(next(iter(raw.query(_COUNT, named_graphs=[graph])))[0].value)  # type: ignore[index]
    layers: dict[str, Callable[[], object]] = {
        "count in the engine": lambda: list(raw.query(_COUNT, named_graphs=[graph])),
        "graph serialized (N-Triples)": lambda: raw.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=graph),
        "one pattern's rows as Python objects": lambda: sum(1 for _ in raw.query(_ROWS, named_graphs=[graph])),
    }
    for name, f in layers.items():
        m = _median(f, repeat)
        print(f"{path}\t{n} annotations\t{name}\t{m:.3f} s\t{m / n * 1e6:.2f} us/annotation", flush=True)
    return n


if __name__ == "__main__":
    main()
