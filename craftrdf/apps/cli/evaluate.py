"""The ``evaluate`` command: score predicted annotations against gold as the CRAFT Shared Task does.

``craftrdf evaluate --gold G --pred P (--store S | --craft DIR) --out DIR`` where G and P are
set keys, Shared Task directories (one subdirectory per set key of ``<PMID>.bionlp`` files),
or one folder of ``<PMID>.bionlp`` files (what ``annotate --out`` writes); set keys and
ontologies come from the store (or a remote one, ``--endpoint``), or, with ``--craft`` alone,
from the CRAFT directory read into memory. Writes ``<key>_results.tsv``,
``<key>_criteria.tsv`` and ``summary.json`` in DIR and prints a short table. See
``docs/evaluation.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...core.errors import ConfigError


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from ...analysis.evaluation.run import (
        EvaluateOptions,
        evaluate_craft,
        evaluate_store,
        format_table,
        parse_criteria,
        write_report,
    )
    from ...core.registry import load_registry
    from ._common import open_store

    ids = Path(args.ids) if args.ids is not None else None
    options = EvaluateOptions(args.boundary, parse_criteria(args.criteria), args.apply_craft_rules, ids)
    if args.store is None and args.endpoint is None:
        if args.craft is None:
            raise ConfigError("give --store S (a built store), --endpoint URL, or --craft DIR (a CRAFT directory)")
        reports = evaluate_craft(args.craft, args.gold, args.pred, load_registry(), options=options)
    else:
        with open_store(args, mode="read") as store:
            reports = evaluate_store(store, args.gold, args.pred, load_registry(), options=options, craft=args.craft)
    write_report(reports, args.out, boundary=args.boundary)
    sys.stdout.write(format_table(reports))
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add evaluate to the ``craftrdf`` parser."""
    from ._common import add_store_options

    p = sub.add_parser("evaluate", help="score predictions against gold (CRAFT Shared Task SER, NER criteria)")
    sides = "set key(s) in the store, a Shared Task directory (<SET>/<PMID>.bionlp), or a folder of .bionlp files"
    p.add_argument("--gold", required=True, help=f"gold: {sides}")
    p.add_argument("--pred", required=True, help=f"predictions: {sides} (what annotate --out writes)")
    add_store_options(p, required=False)  # the store (or endpoint) holding the ontologies and set keys
    p.add_argument(
        "--craft",
        help="CRAFT directory: without --store, the sets and ontologies are read from it; "
        "with --store, it supplies the texts for the fragment criterion",
    )
    p.add_argument(
        "--apply-craft-rules",
        action="store_true",
        help="run CRAFT's post-processing rules on the prediction first (unused classes dropped, "
        "or substituted in +extensions sets)",
    )
    p.add_argument("--boundary", choices=["jaccard", "exact"], default="jaccard")
    p.add_argument(
        "--criteria",
        default="all",
        help="all, or a comma-separated list: exact,left,right,left_or_right,approximate,partial,fragment",
    )
    p.add_argument("--ids", metavar="FILE", help="score only the predicted documents listed in FILE (one id a line)")
    p.add_argument("--out", required=True, help="directory for the result files")
    p.set_defaults(func=_cmd_evaluate)
