"""The ``sweep`` command: every matcher configuration scored against gold (docs/sweep.md)."""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path


def _cmd_sweep(args: argparse.Namespace) -> int:
    from ...core.context import RunContext
    from ...core.errors import ConfigError
    from ...matching.matcher.dictionary import default_cache_dir
    from ...matching.sweeps.entry import SweepOptions, sweep_store
    from ...matching.sweeps.grid import load_grid
    from ...matching.sweeps.termfilter import TermFilter
    from ...runtime.executors import DaskExecutor, InlineExecutor, LocalPool, SweepExecutor
    from ._common import open_store, progress_bar, worker_count

    if (args.select_on is None) != (args.report_on is None):
        raise ConfigError("--select-on and --report-on go together (e.g. --select-on train,dev --report-on test)")
    if args.workers is not None and args.scheduler is not None:
        raise ConfigError("give --workers (a local process pool) or --scheduler (a Dask cluster), not both")
    configs = load_grid(args.grid)
    flt = TermFilter() if args.term_filter else None
    options = SweepOptions(
        args.select_on or args.split, args.report_on, args.apply_craft_rules, args.prefer_labels, term_filter=flt
    )
    cache_dir = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    with contextlib.ExitStack() as stack:
        if args.scheduler is not None:
            from distributed import Client

            executor: SweepExecutor = DaskExecutor(stack.enter_context(Client(args.scheduler)))
        else:
            workers = worker_count("--workers", args.workers, os.cpu_count() or 1)
            executor = stack.enter_context(LocalPool(workers)) if workers > 1 else InlineExecutor()
        store = stack.enter_context(open_store(args, mode="read"))
        report = sweep_store(
            store,
            args.set,
            configs,
            RunContext.create(
                cache_dir=cache_dir,
                executor=executor,
                progress=progress_bar(args.quiet, name=f"sweep {args.set}", unit="configuration"),
            ),
            out_dir=Path(args.out),
            options=options,
        )
    r = report.result
    print(
        f"{report.set_key}: {len(r.rows)} configurations on {report.documents} "
        f"({r.run_now} run now as {r.distinct_runs} distinct searches, {r.resumed} resumed) in {r.seconds:.1f} s"
    )
    if r.distinct_runs:
        print(
            f"per distinct search (matching and scoring): {r.run_seconds / r.distinct_runs:.2f} s wall clock, "
            f"{r.run_cpu_seconds / r.distinct_runs:.2f} s processor time"
        )
    for key, label in (("f1", "best F1"), ("precision", "best P"), ("recall", "best R"), ("ser", "lowest SER")):
        b = report.best[key]
        line = (
            f"{label:>10}: P {b.precision:.3f} R {b.recall:.3f} F1 {b.f1:.3f} SER {b.ser:.3f} "
            f"(TP {b.tp}, FP {b.fp}, FN {b.fn})"
        )
        if report.report is not None:
            t = report.report[key]
            line += (
                f"; on {report.report_documents}: P {t.precision:.3f} R {t.recall:.3f} F1 {t.f1:.3f} SER {t.ser:.3f}"
            )
        print(line)
    if report.filtered is not None:
        for key, label in (("f1", "best F1"), ("ser", "lowest SER")):
            f = report.filtered[key]
            c = f.selection
            line = (
                f"{label:>10} + term filter: P {c.precision:.3f} R {c.recall:.3f} F1 {c.f1:.3f} SER {c.ser:.3f} "
                f"(5-fold cross-validated)"
            )
            if f.report is not None:
                t = f.report
                line += (
                    f"; on {report.report_documents}: P {t.precision:.3f} R {t.recall:.3f} F1 {t.f1:.3f} "
                    f"SER {t.ser:.3f} ({f.dropped} terms dropped)"
                )
            print(line)
    print("wrote " + ", ".join(str(p) for p in report.files))
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sweep`` to the ``craftrdf`` parser."""
    p = sub.add_parser(
        "sweep",
        help="run every matcher configuration and score it against gold",
        description="Run the matcher's configurations (default: all 576 of ConceptMapper's parameters) over "
        "documents of the store and score each against the set's gold: exact-span P/R/F1 and the "
        "CRAFT Shared Task slot error rate. Writes results.csv (resumable), best.md and pr.png.",
    )
    from ._common import add_store_options

    add_store_options(p)  # --store DIR (opened read-only) or --endpoint URL: the gold, texts and ontology
    p.add_argument("--set", required=True, help="annotation set whose ontology gives the dictionary, e.g. UBERON")
    p.add_argument(
        "--split",
        default="train,dev",
        help="documents: train, dev, test, a comma list, or all (default train,dev: the 67 public documents)",
    )
    p.add_argument("--grid", default="all", help="all (576), quick (16), or a GRID.toml file")
    p.add_argument("--workers", type=int, help="local worker processes (default: the cores; 1 runs in-process)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="a Dask distributed scheduler to run on")
    p.add_argument(
        "--apply-craft-rules",
        action="store_true",
        help="apply CRAFT's post-processing rules to predictions (unused classes; substitutes for _EXT)",
    )
    p.add_argument(
        "--prefer-labels",
        action="store_true",
        help="a name that labels some of its classes and is a synonym of others keeps only the "
        "classes it labels (not ConceptMapper's behaviour)",
    )
    p.add_argument(
        "--term-filter",
        action="store_true",
        help="also score the best-F1 and lowest-SER configurations with a learned term filter: the "
        "matches of a term (text and class) right less than half the time, seen at least twice, "
        "are dropped (cross-validated on the selection documents; learned there for --report-on)",
    )
    p.add_argument("--select-on", help="select the best configurations on these splits (e.g. train,dev)")
    p.add_argument("--report-on", help="and report them on these (e.g. test)")
    p.add_argument("--out", required=True, help="output folder; rerunning with the same folder resumes")
    p.add_argument("--cache-dir", help="matcher cache (default: ~/.cache/craftrdf/matcher)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the matcher cache")
    p.set_defaults(func=_cmd_sweep)
