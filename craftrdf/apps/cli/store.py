"""Commands on the store itself: demo, build, query, load, index."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._common import (
    add_store_options,
    index_progress,
    open_store,
    parse_params,
    progress_bar,
    store_name,
)


def _cmd_demo(args: argparse.Namespace) -> int:
    import tempfile

    from ...analysis.evaluation.run import format_table
    from ...querying.library import QueryResult, format_result
    from ..demo import DEMO_CLASS, DEMO_SET, next_steps, run_demo

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="craftrdf-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    r = run_demo(progress=progress_bar(args.quiet, name="build the sample"), out_dir=out)
    print(
        f"craftrdf demo: built the bundled CRAFT sample in {r.build.seconds:.1f} s "
        f"({len(r.build.loaded)} batches, {r.quads:,} quads in an in-memory store)"
    )
    if r.build.skipped:
        print(
            f"Ontologies skipped (their files are not in the sample; annotations still loaded): "
            f"{', '.join(r.build.skipped)}"
        )
    print("\nAnnotation sets (query: sets)")
    print(format_result(r.sets, "table"))
    print("Annotations per set and split (query: annotation-counts)")
    print(format_result(r.counts, "table"))
    print(
        f"Annotations of brain and its subclasses (query: annotations-of-class, cls=UBERON:0000955): "
        f"{len(r.brain.rows)}; the first 10:"
    )
    print(format_result(QueryResult(r.brain.columns, r.brain.rows[:10]), "table"))
    print(
        f"Classes most similar to {DEMO_CLASS} in the UBERON ontology (Wang, is_a 0.8, part_of 0.6; "
        f"craftrdf similarity --top-k 5 {DEMO_CLASS} --ontology UBERON):"
    )
    for cls, label, sim in r.similar:
        print(f"  {sim:.3f}  {cls:<16} {label}")
    m = r.matcher
    print(
        f"\nThe dictionary matcher with {DEMO_SET}'s ontology ({m.dictionary_entries:,} dictionary entries, "
        f"default configuration: {r.config.label()}) on the {m.documents} sample articles: "
        f"{m.annotations:,} annotations in {sum(m.seconds.values()):.2f} s (craftrdf annotate), scored against "
        f"the gold {DEMO_SET} annotations as the CRAFT Shared Task 2019 did (craftrdf evaluate):"
    )
    print(format_table([r.scores]), end="")
    print(
        "(ref, pred: gold and predicted annotations; M: matches, a partial one scored by span overlap and "
        "class similarity; SER: slot error rate, lower is better; P, R, F1 from M)"
    )
    if r.export is not None:
        print(
            f"\nThe gold {DEMO_SET} annotations as one W3C Web Annotation collection in JSON-LD "
            f"({r.export.annotations:,} annotations, the context inline, readable offline; craftrdf export --set "
            f"{DEMO_SET} --format jsonld): {r.export.out}"
        )
        with open(r.export.out, encoding="utf-8") as fh:
            first = next((line.strip().rstrip(",") for line in fh if line.startswith("  {")), None)
        if first is not None:
            print(f"Its first annotation: {first}")
    print()
    print("\n".join(next_steps()))
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from ...building.builder import build_store, check_craft_dir
    from ...core.context import RunContext

    sets = [s.strip() for s in args.sets.split(",")] if args.sets else None
    check_craft_dir(Path(args.craft))  # before the store is created
    with open_store(args, mode="write", create=True) as store:
        r = build_store(
            Path(args.craft),
            store,
            RunContext.create(),
            sets=sets,
            progress=progress_bar(args.quiet, name="build"),
        )
        total = len(store)
    print(
        f"built {store_name(args)}: {len(r.loaded)} batches loaded ({r.quads:,} quads), "
        f"{len(r.unchanged)} already present, {total:,} quads in store, {r.seconds:.1f} s"
        + (f" (view indexes: {r.indexes} made in {r.index_seconds:.1f} s)" if r.indexes else "")
    )
    for k, why in r.skipped.items():
        print(f"skipped {k}: {why}")
    return 0


def _cmd_query(args: argparse.Namespace) -> int:
    from ...core.errors import ConfigError
    from ...querying.library import format_result, resolve_params, resolve_query, run_query

    if args.list:
        if args.query is not None:
            raise ConfigError("--list takes no query name")
        sys.stdout.write(_query_list(show_internal=args.all))
        return 0
    if args.all:
        raise ConfigError("--all goes with --list")
    if args.query is None:
        raise ConfigError("give a query name or a .rq file (craftrdf query --list shows the library)")
    q = resolve_query(args.query)
    params = parse_params(args.param)
    if args.store is None and args.endpoint is None:
        raise ConfigError("give --store DIR or --endpoint URL")
    with open_store(args, mode="read") as store:
        from ...analysis.similarity.sparql import functions_for  # craftrdf:wang and its kin, on an embedded store

        result = run_query(store, q, resolve_params(store, q, params), functions=functions_for(store).session())
    sys.stdout.write(format_result(result, args.format))
    return 0


def _query_list(*, show_internal: bool) -> str:
    """The library for ``query --list``: name, purpose and parameters of each query meant for users."""
    from ...querying.library import library

    lib = library()
    shown = [q for q in lib.values() if show_internal or not q.internal]
    width = max(len(q.name) for q in shown)
    lines = []
    for q in shown:
        params = f" [{', '.join(q.params)}]" if q.params else ""
        mark = "(internal) " if q.internal else ""
        lines.append(f"{q.name:<{width}}  {mark}{q.purpose}{params}")
    hidden = sum(q.internal for q in lib.values()) if not show_internal else 0
    if hidden:
        lines.append(f"({hidden} internal queries, run by craftrdf's own commands, are left out: --list --all)")
    return "\n".join(lines) + "\n"


def _cmd_load(args: argparse.Namespace) -> int:
    from ...building.loader import load_files

    with open_store(args, mode="write", create=True) as store:
        paths = [Path(p) for p in args.inputs]
        r = load_files(store, paths, set_key=args.set, module=args.module, progress=index_progress(args))
    for graph, n in r.loaded.items():
        print(f"{graph}: {n:,} quads" if n else f"{graph}: unchanged")
    if r.empty:  # legitimate (some CRAFT documents have none in a set), so said rather than refused
        shown = ", ".join(r.empty[:5]) + (f" and {len(r.empty) - 5} more" if len(r.empty) > 5 else "")
        print(f"{len(r.empty)} annotation file(s) hold no annotations: {shown}")
    if not r.loaded:
        print("nothing loaded: the inputs hold no annotations")
    return 0


def _cmd_index(args: argparse.Namespace) -> int:
    from ...querying.indexes import update_indexes

    with open_store(args, mode="write") as store:
        n = update_indexes(store, progress=index_progress(args))
    print(f"{store_name(args)}: {n} view indexes made" if n else f"{store_name(args)}: view indexes already current")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add demo, build, query, load and index to the ``craftrdf`` parser."""

    d = sub.add_parser(
        "demo", help="build the bundled sample in memory: queries, similarity, the matcher scored, an export"
    )
    d.add_argument(
        "--out", metavar="DIR", help="folder for the demo's JSON-LD export (default: a new temporary folder)"
    )
    d.set_defaults(func=_cmd_demo)

    b = sub.add_parser("build", help="build a store from a CRAFT directory")
    b.add_argument("--craft", required=True, help="CRAFT distribution directory")
    add_store_options(b, write=True, create=True)
    b.add_argument("--sets", help="comma-separated set keys (default: all)")
    b.set_defaults(func=_cmd_build)

    q = sub.add_parser("query", help="run a library query (by name) or a .rq file")
    q.add_argument("query", nargs="?", help="query name (e.g. annotation-counts) or path to a .rq file")
    q.add_argument("--list", action="store_true", help="list the library's queries: name, purpose, [parameters]")
    q.add_argument("--all", action="store_true", help="with --list: the internal queries too")
    add_store_options(q, required=False)
    q.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="bind a query variable (CURIE/IRI -> IRI, else literal); repeatable",
    )
    q.add_argument("--format", choices=["table", "csv", "tsv", "json"], default="table")
    q.set_defaults(func=_cmd_query)

    ld = sub.add_parser("load", help="add ontology files and annotation files or folders")
    ld.add_argument("inputs", nargs="+")
    add_store_options(ld, write=True, create=True)
    ld.add_argument("--module", help="module the inputs belong to (recorded on the set)")
    ld.add_argument("--set", help="set key for annotation inputs")
    ld.set_defaults(func=_cmd_load)

    ix = sub.add_parser(
        "index",
        help="make a store's view indexes (nested annotations, view rows) current; build and load do it themselves",
    )
    add_store_options(ix, write=True)
    ix.set_defaults(func=_cmd_index)
