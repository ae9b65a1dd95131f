"""Commands on annotation-set views: view, postprocess."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._common import add_store_options, index_progress, open_store


def _cmd_view(args: argparse.Namespace) -> int:
    from ...analysis.views import ViewSpec, materialize_view, resolve_sets, run_view
    from ...core.curie import CurieMap
    from ...publishing.exports.views import write_view_rows

    # reading never writes: the indexes a view reads are made by build, load and index (a remote
    # store given an explicit --graph-store is the exception: it is writable, and makes them)
    with open_store(args, mode="write" if args.materialize else "read") as store:
        spec = ViewSpec(resolve_sets(store, args.sets.split(",")), args.classes, args.nesting, args.split)
        if args.materialize:
            n = materialize_view(store, spec, args.materialize, curies=CurieMap(), progress=index_progress(args))
            print(f"view stored as set {args.materialize}: {n} annotations from {', '.join(spec.sets)}")
            return 0
        rows = run_view(store, spec)
        sys.stdout.write(write_view_rows(store, rows, args.format, Path(args.out) if args.out else None))
    return 0


def _cmd_postprocess(args: argparse.Namespace) -> int:
    from ...analysis.rules import postprocess_set
    from ...analysis.views import resolve_sets
    from ...core.curie import CurieMap

    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    with open_store(args, mode="write") as store:  # an existing store: a mistyped path creates nothing
        (key,) = resolve_sets(store, [args.set])
        (mkey,) = resolve_sets(store, [args.mappings or args.set])
        n, reports = postprocess_set(
            store,
            key,
            rules,
            into=args.into,
            mappings=mkey,
            pick=args.pick,
            curies=CurieMap(),
            progress=index_progress(args),
        )
    print(f"{'rule':<12}{'before':>8}{'after':>8}{'dropped':>9}{'replaced':>10}{'duplicates':>12}{'added':>7}")
    for r in reports:
        print(f"{r.rule:<12}{r.before:>8}{r.after:>8}{r.dropped:>9}{r.replaced:>10}{r.duplicates:>12}{r.added:>7}")
    print(f"stored as set {args.into} ({n} annotations; mappings of {mkey})")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add view and postprocess to the ``craftrdf`` parser."""
    v = sub.add_parser("view", help="a view of annotation sets: class and nesting filters, as SPARQL")
    add_store_options(v)
    v.add_argument("--sets", required=True, help="comma-separated set keys; * wildcards allowed (e.g. '*_EXT')")
    v.add_argument("--classes", choices=["all", "proper", "extension"], default="all")
    v.add_argument("--nesting", choices=["all", "outermost", "nested"], default="all")
    v.add_argument("--split", help="train, dev or test")
    v.add_argument("--format", choices=["bionlp", "csv", "count"], default="count")
    v.add_argument("--out", help="folder (bionlp) or file (csv)")
    v.add_argument("--materialize", metavar="KEY", help="store the view as a new annotation set KEY instead")
    v.set_defaults(func=_cmd_view)

    p = sub.add_parser("postprocess", help="apply CRAFT's post-processing rules to a set, into a new set")
    add_store_options(p, write=True)
    p.add_argument("--set", required=True, help="the set to process (e.g. a system's output)")
    p.add_argument("--rules", required=True, help="comma list, applied in order: unused, substitute, related")
    p.add_argument("--mappings", help="the set whose mapping files to use (default: --set itself)")
    p.add_argument(
        "--pick",
        choices=["first", "all", "drop"],
        default="first",
        help="related rule: which related class when several are mapped",
    )
    p.add_argument("--into", required=True, help="key of the new set")
    p.set_defaults(func=_cmd_postprocess)
