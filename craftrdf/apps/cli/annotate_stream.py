"""``craftrdf annotate --stream`` / ``--scheduler URL``: the matcher streamed in batches (docs/scale.md)."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any


def add_stream_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of a streamed run to the ``annotate`` parser."""
    g = parser.add_argument_group("streamed runs (any corpus size; resumable)")
    g.add_argument(
        "--stream",
        action="store_true",
        help="annotate in batches, writing results as they come, resumable (--jobs N: a local process pool)",
    )
    g.add_argument("--scheduler", metavar="URL", help="run the batches on a Dask cluster, e.g. tcp://HOST:8786")
    g.add_argument("--batch-size", type=int, default=32, metavar="N", help="documents per batch (default 32)")
    g.add_argument(
        "--in-flight", type=int, metavar="N", help="batches submitted at once (default: twice the worker threads)"
    )
    g.add_argument("--restart", action="store_true", help="ignore the progress in --out and start afresh")


def is_streamed(args: argparse.Namespace) -> bool:
    """True when the options ask for a streamed run."""
    return bool(args.stream or args.scheduler)


def run_streamed(args: argparse.Namespace) -> int:
    """Run ``annotate`` streamed; prints what it did."""
    from ...core.context import RunContext
    from ...matching.matcher.config import MatcherConfig
    from ...matching.matcher.dictionary import default_cache_dir
    from ...matching.matcher.stream import Batching, StreamPlan, run_annotation_stream
    from ...runtime.executors import DaskExecutor, InlineExecutor, LocalPool
    from ._common import index_progress, open_store, parse_params, worker_count

    config = MatcherConfig.from_params(parse_params(args.param))
    cache_dir = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    with contextlib.ExitStack() as stack:
        executor: Any
        if args.scheduler:
            from distributed import Client

            client = stack.enter_context(Client(args.scheduler))
            executor = DaskExecutor(client)
            threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()) or 1
        else:
            threads = worker_count("--jobs", args.jobs, 1)
            executor = (
                stack.enter_context(LocalPool(threads, preload=("craftrdf.matching.matcher.stream",)))
                if threads > 1
                else InlineExecutor()
            )
        store = stack.enter_context(open_store(args, mode="write" if args.into_store else "read"))
        r = run_annotation_stream(
            store,
            args.set,
            config,
            StreamPlan(
                [Path(p) for p in args.inputs],
                Path(args.out),
                split=args.split,
                into_store=args.into_store,
                batching=Batching(
                    args.batch_size, worker_count("--in-flight", args.in_flight, 2 * threads), restart=args.restart
                ),
            ),
            RunContext.create(cache_dir=cache_dir, executor=executor, progress=index_progress(args)),
        )
    print(
        f"annotated {r.documents:,} documents in {r.batches:,} batches with {args.set}: {r.annotations:,} "
        f"annotations, BioNLP in {r.out_dir}, {r.seconds:.1f} s"
        + (f"; {r.resumed:,} done before (resumed)" if r.resumed else "")
    )
    if r.failed:
        print(f"{r.failed:,} documents failed and were skipped: see {r.out_dir / 'failures.tsv'}")
    if r.graph is not None:
        print(f"{r.graph}: {r.quads:,} annotation quads added")
    print(f"seconds: writing to the store {r.store_seconds:.2f}, writing files and progress {r.files_seconds:.2f}")
    return 0
