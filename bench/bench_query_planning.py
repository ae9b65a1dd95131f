"""Benchmark: pyoxigraph's planning time against the operands joined in one group (the guard's ``--max-joins``).

    python bench/bench_query_planning.py [--sizes 40,60,80,100,150] [--limit 8]

For each form (triple patterns in one group, sibling groups, one RDF collection, OPTIONAL
siblings, UNION branches, sibling sub-SELECTs) and each size n, runs the query once over a
200-triple in-memory store in a fresh process, on a thread with the server's engine stack
(:data:`craftrdf.publishing.server.engine.ENGINE_STACK`), and prints the seconds to plan and
evaluate it, or ``> limit`` when the process had to be killed (planning cannot be interrupted).
Next to each size it prints what :func:`craftrdf.publishing.server.shape.join_operands` counts
for that text, the figure the guard compares with ``--max-joins``. docs/server.md quotes a run.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import threading
import time
from collections.abc import Callable

import pyoxigraph as ox

from craftrdf.core.lexer import tokenize
from craftrdf.publishing.server.engine import ENGINE_STACK
from craftrdf.publishing.server.shape import join_operands

FORMS: dict[str, Callable[[int], str]] = {
    "patterns": lambda n: "SELECT * WHERE { " + "?a ?b 1 . " * n + "}",
    "groups": lambda n: "SELECT * WHERE { " + "".join(f"{{?a ?b ?c{i}}}" for i in range(n)) + " }",
    "collection": lambda n: "SELECT * WHERE { ?s ?p (" + " 1" * n + " ) }",
    "optionals": lambda n: "SELECT * WHERE { ?a ?b ?c " + "OPTIONAL {?a ?b 1}" * n + " }",
    "unions": lambda n: "SELECT * WHERE { {?a ?b 1}" + " UNION {?a ?b 1}" * n + " }",
    "sub-selects": lambda n: "SELECT * WHERE { " + "{SELECT ?a WHERE {?a ?b 1}}" * n + " }",
}


def _run(query: str, out: mp.Queue[float]) -> None:
    store = ox.Store()
    store.extend(ox.Quad(ox.NamedNode(f"http://e/s{i}"), ox.NamedNode("http://e/p"), ox.Literal(i)) for i in range(200))

    def go() -> None:
        started = time.perf_counter()
        list(store.query(query))  # type: ignore[call-overload]
        out.put(time.perf_counter() - started)

    threading.stack_size(ENGINE_STACK)
    t = threading.Thread(target=go)
    t.start()
    t.join()


def measure(query: str, limit: float) -> float | None:
    """Seconds to plan and run ``query`` in a fresh process, or None past ``limit``."""
    ctx = mp.get_context("spawn")
    out: mp.Queue[float] = ctx.Queue()
    p = ctx.Process(target=_run, args=(query, out))
    p.start()
    p.join(limit + 5)  # the process start and the store are not counted by the query's own clock
    if p.is_alive():
        p.kill()
        p.join()
        return None
    took = out.get() if not out.empty() else None
    return took if took is not None and took <= limit else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="40,60,80,100,150", help="sizes n, comma-separated")
    ap.add_argument("--limit", type=float, default=8.0, help="seconds before a run is killed")
    ap.add_argument("--forms", default=",".join(FORMS), help="forms to run, comma-separated")
    args = ap.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    print(f"{'form':<12}" + "".join(f"{'n=' + str(n):>18}" for n in sizes))
    for name in args.forms.split(","):
        cells = []
        for n in sizes:
            query = FORMS[name](n)
            joins = join_operands(list(tokenize(query)))
            took = measure(query, args.limit)
            cells.append(f"{'> ' + format(args.limit, 'g') if took is None else format(took, '.3f')} s ({joins})")
        print(f"{name:<12}" + "".join(f"{c:>18}" for c in cells), flush=True)
    print("(seconds to plan and run; in brackets what the guard counts against --max-joins)")


if __name__ == "__main__":
    main()
