"""Benchmark: where a whole-set read's time grows, layer by layer, on stores of growing size.

    python bench/bench_growth_layers.py STORE [STORE ...] [--graph IRI] [--repeat 3]

For the set graph ``--graph`` (default the scale benchmark's ``SCALE`` set) in each store (e.g. the
1x, 10x and 40x stores of ``bench/bench_scale.py --keep``), times per annotation, median of
``--repeat``: a count in the engine (scan and join, nothing decoded), the graph serialized by
Oxigraph (every term decoded, in Rust), one pattern's rows as Python objects, the five patterns of
``set-annotations.rq`` scanned one at a time and joined in Python dicts (the alternative measured
and not taken, docs/scale.md), the query's rows read through ``run_query`` and sorted at once (the
read before the one-pass grouping), and ``craftrdf.querying.webanno.fetch_annotations`` (the whole-set
read). Prints one line per layer and store, wall and CPU time (``time.process_time``: less moved
by other processes on a shared machine than wall time). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

import craftrdf
from craftrdf.core.curie import CurieMap
from craftrdf.core.iris import set_iri
from craftrdf.core.model import Annotation
from craftrdf.core.vocab import BASE
from craftrdf.querying.library import run_query
from craftrdf.querying.webanno import fetch_annotations, rows_to_annotations

OA = "http://www.w3.org/ns/oa#"
CRAFT = BASE + "vocab#"

_COUNT = "PREFIX oa: <http://www.w3.org/ns/oa#> SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?a oa:hasBody ?c } }"
_ROWS = "PREFIX oa: <http://www.w3.org/ns/oa#> SELECT ?a ?c WHERE { GRAPH ?g { ?a oa:hasBody ?c } }"


def median_wall_cpu(f: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeat`` calls."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        f()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(wall), statistics.median(cpu)


def _line(path: Path, n: int, name: str, times: tuple[float, float]) -> str:
    wall, cpu = times
    return (
        f"{path}\t{n} annotations\t{name}\t{wall:.3f} s\t{wall / n * 1e6:.2f} us/annotation\tCPU {cpu / n * 1e6:.2f} us"
    )


def _scan_join(store: ox.Store, graph: ox.NamedNode) -> list[tuple[str, str, object, object, object]]:
    """set-annotations.rq's rows by five one-pattern scans joined in dicts (sorted per document)."""

    def scan(p: str) -> list[tuple[object, object]]:
        return [
            (r[0], r[1])
            for r in store.query(f"SELECT ?s ?o WHERE {{ GRAPH ?g {{ ?s <{p}> ?o }} }}", named_graphs=[graph])
        ]  # type: ignore[index]

    body = scan(OA + "hasBody")
    target, source = dict(scan(OA + "hasTarget")), dict(scan(OA + "hasSource"))
    spans, text = dict(scan(CRAFT + "spans")), dict(scan(CRAFT + "coveredText"))
    groups: dict[str, list[tuple[str, str, object, object, object]]] = {}
    for a, c in body:
        t = target[a]
        d = source[t].value.partition(BASE + "doc/")[2]  # type: ignore[attr-defined]
        groups.setdefault(d, []).append((a.value, d, c, spans.get(a), text.get(t)))  # type: ignore[attr-defined]
    return [row for d in sorted(groups) for row in sorted(groups[d], key=lambda r: r[0])]


def _query_sorted_at_once(store: craftrdf.AnnotationStore, key: str) -> list[Annotation]:
    """The whole-set read before the one-pass grouping: run_query, one sort of all rows, records."""
    result = run_query(store, "set-annotations", {"set": key}, named_graphs=[set_iri(key)])
    keys = result.strings("document", "annotation")
    rows = [row for _, row in sorted(zip(keys, result.rows), key=lambda kr: kr[0])]
    return rows_to_annotations(result.columns, rows, CurieMap())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--graph", default="https://w3id.org/craftrdf/set/SCALE")
    parser.add_argument("--set", default="SCALE", help="the set key of --graph")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dump", action="store_true", help="skip the serialization layer (a minute a run at 40x)")
    args = parser.parse_args()
    graph = ox.NamedNode(args.graph)
    for path in args.stores:
        n = _engine_layers(ox.Store.read_only(str(path)), path, graph, args.repeat, dump=not args.no_dump)
        with craftrdf.open(path, mode="read") as store:
            old = median_wall_cpu(lambda: _query_sorted_at_once(store, args.set), args.repeat)
            print(_line(path, n, "set-annotations.rq via run_query, sorted at once", old), flush=True)
            m = median_wall_cpu(lambda: fetch_annotations(store, args.set), args.repeat)
            print(_line(path, n, "fetch_annotations", m), flush=True)


def _engine_layers(raw: ox.Store, path: Path, graph: ox.NamedNode, repeat: int, *, dump: bool) -> int:
    # the raw store goes out of scope on return, so craftrdf.open can take the directory next
    n = int(next(iter(raw.query(_COUNT, named_graphs=[graph])))[0].value)  # type: ignore[index]
    layers: dict[str, Callable[[], object]] = {
        "count in the engine": lambda: list(raw.query(_COUNT, named_graphs=[graph])),
        "graph serialized (N-Triples)": lambda: raw.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=graph),
        "one pattern's rows as Python objects": lambda: sum(1 for _ in raw.query(_ROWS, named_graphs=[graph])),
        "five one-pattern scans joined in Python": lambda: _scan_join(raw, graph),
    }
    if not dump:
        del layers["graph serialized (N-Triples)"]
    for name, f in layers.items():
        print(_line(path, n, name, median_wall_cpu(f, repeat)), flush=True)
    return n


if __name__ == "__main__":
    main()
