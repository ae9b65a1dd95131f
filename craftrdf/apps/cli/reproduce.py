"""The ``reproduce`` command: the corpus papers' tables rebuilt from a store, in one report."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from ..reproduce.run import reproduce
    from ._common import progress_bar, worker_count

    def progress(stage: str) -> Callable[[int, int, str], None]:
        # the stages are the store build (batches) and one sweep per set (configurations)
        return progress_bar(
            args.quiet,
            name=stage if stage == "build store" else f"sweep {stage}",
            unit="batch" if stage == "build store" else "configuration",
        )

    pool = None
    workers = worker_count("--workers", args.workers, os.cpu_count() or 1)
    if workers > 1:
        from ...runtime.executors import LocalPool

        pool = LocalPool(workers)
    try:
        result = reproduce(
            Path(args.craft),
            Path(args.out),
            store_path=Path(args.store) if args.store else None,
            quick=args.quick,
            conceptmapper_faithful=args.conceptmapper_faithful,
            executor=pool,
            progress=progress,
        )
    finally:
        if pool is not None:
            pool.close()
    sys.stdout.write(f"wrote {result.report} and {len(result.files) - 1} more files in {result.seconds:.0f} s\n")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add reproduce to the ``craftrdf`` parser."""
    p = sub.add_parser("reproduce", help="rebuild the corpus papers' tables and figures (report.md)")
    p.add_argument("--craft", required=True, help="the CRAFT directory")
    p.add_argument("--out", required=True, help="directory for report.md, the figures and the sweeps")
    p.add_argument("--store", help="store to build or reuse (default: OUT/craft.store)")
    p.add_argument("--quick", action="store_true", help="a reduced grid: minutes instead of the full sweeps")
    p.add_argument("--workers", type=int, help="processes for the sweeps (default: the cores; 1 runs in-process)")
    p.add_argument(
        "--conceptmapper-faithful",
        action="store_true",
        help="sweep as ConceptMapper behaves: no CRAFT post-processing rules, no label preference",
    )
    p.set_defaults(func=_cmd_reproduce)
