"""The ``craftrdf`` command: parse options, call one library function, format the result.

Errors a user can fix come out as one line on stderr and exit status 1 (2 for usage).
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from .errors import CraftrdfError

logger = logging.getLogger("craftrdf")


class _TqdmHandler(logging.Handler):
    """Log lines written through tqdm so they do not tear the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        tqdm.write(self.format(record), file=sys.stderr)


def _setup_logging(verbose: int) -> None:
    handler = _TqdmHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    logging.captureWarnings(True)
    warnings.simplefilter("default")


def _progress(disable: bool):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    bar = None

    def update(done: int, total: int, label: str) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="batch", disable=disable, dynamic_ncols=True, file=sys.stderr)
        bar.set_description(label[:40])
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def _params(values: Sequence[str]) -> dict[str, str]:
    out = {}
    for v in values:
        name, sep, value = v.partition("=")
        if not sep or not name:
            raise CraftrdfError(f"--param expects NAME=VALUE, got {v!r}")
        out[name.lstrip("?$")] = value
    return out


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo
    from .query import QueryResult, format_result

    r = run_demo(progress=_progress(args.quiet))
    print(f"craftrdf demo: built the bundled CRAFT sample in {r.build.seconds:.1f} s "
          f"({len(r.build.loaded)} batches, {r.quads:,} quads in an in-memory store)")
    if r.build.skipped:
        print("Ontologies skipped (their files are not in the sample; annotations still loaded):")
        for k, why in r.build.skipped.items():
            print(f"  {k}: {why}")
    print("\nAnnotation sets (query: sets)")
    print(format_result(r.sets, "table"))
    print("Annotations per set and split (query: annotation-counts)")
    print(format_result(r.counts, "table"))
    print(f"Annotations of brain and its subclasses (query: annotations-of-class, cls=UBERON:0000955): "
          f"{len(r.brain.rows)}; the first 10:")
    print(format_result(QueryResult(r.brain.columns, r.brain.rows[:10]), "table"))
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from .build import build_store
    from .registry import load_registry
    from .store import AnnotationStore

    sets = [s.strip() for s in args.sets.split(",")] if args.sets else None
    with AnnotationStore.open(args.store) as store:
        r = build_store(Path(args.craft), store, registry=load_registry(), sets=sets,
                        progress=_progress(args.quiet))
        total = len(store)
    print(f"built {args.store}: {len(r.loaded)} batches loaded ({r.quads:,} quads), "
          f"{len(r.unchanged)} already present, {total:,} quads in store, {r.seconds:.1f} s")
    for k, why in r.skipped.items():
        print(f"skipped {k}: {why}")
    return 0


def _cmd_query(args: argparse.Namespace) -> int:
    from .query import format_result, resolve_query, run_query
    from .store import AnnotationStore

    q = resolve_query(args.query)
    with AnnotationStore.open(args.store, mode="read") as store:
        result = run_query(store, q, _params(args.param))
    sys.stdout.write(format_result(result, args.format))
    return 0


def _cmd_load(args: argparse.Namespace) -> int:
    from .load import load_files
    from .store import AnnotationStore

    with AnnotationStore.open(args.store) as store:
        r = load_files(store, [Path(p) for p in args.inputs], set_key=args.set, module=args.module)
    for graph, n in r.loaded.items():
        print(f"{graph}: {n:,} quads" if n else f"{graph}: unchanged")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``craftrdf`` command."""
    p = argparse.ArgumentParser(prog="craftrdf", description="CRAFT's ontologies and annotations as an RDF store.")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="build the bundled sample in memory and show a few queries")
    d.set_defaults(func=_cmd_demo)

    b = sub.add_parser("build", help="build a store from a CRAFT directory")
    b.add_argument("--craft", required=True, help="CRAFT distribution directory")
    b.add_argument("--store", required=True, help="store directory (created if absent)")
    b.add_argument("--sets", help="comma-separated set keys (default: all)")
    b.set_defaults(func=_cmd_build)

    q = sub.add_parser("query", help="run a library query (by name) or a .rq file")
    q.add_argument("query", help="query name (e.g. annotation-counts) or path to a .rq file")
    q.add_argument("--store", required=True)
    q.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="bind a query variable (CURIE/IRI -> IRI, else literal); repeatable")
    q.add_argument("--format", choices=["table", "csv", "tsv", "json"], default="table")
    q.set_defaults(func=_cmd_query)

    ld = sub.add_parser("load", help="add ontology files and annotation files or folders")
    ld.add_argument("inputs", nargs="+")
    ld.add_argument("--store", required=True)
    ld.add_argument("--module", help="module the inputs belong to (recorded on the set)")
    ld.add_argument("--set", help="set key for annotation inputs")
    ld.set_defaults(func=_cmd_load)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run one command; CraftrdfError becomes one line on stderr and exit 1."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.verbose)
    try:
        return int(args.func(args))
    except CraftrdfError as exc:
        print(f"craftrdf: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("craftrdf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
