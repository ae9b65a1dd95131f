"""The ``evaluate`` command: score predicted annotations against gold as the CRAFT Shared Task does.

``craftrdf evaluate --gold G --pred P --store S --out DIR`` where G and P are set keys of
the store or Shared Task directories (one subdirectory per set key of ``<PMID>.bionlp``
files). Writes ``<key>_results.tsv``, ``<key>_criteria.tsv`` and ``summary.json`` in DIR
and prints a short table. See ``docs/evaluation.md``.
"""

from __future__ import annotations

import argparse
import sys


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from ..evaluation.run import (
        evaluate_store,
        format_table,
        parse_criteria,
        write_report,
    )
    from ..store import AnnotationStore

    criteria = parse_criteria(args.criteria)
    with AnnotationStore.open(args.store, mode="read") as store:
        reports = evaluate_store(store, args.gold, args.pred, boundary=args.boundary, criteria=criteria,
                                 craft=args.craft)
    write_report(reports, args.out, boundary=args.boundary)
    sys.stdout.write(format_table(reports))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add evaluate to the ``craftrdf`` parser."""
    p = sub.add_parser("evaluate", help="score predictions against gold (CRAFT Shared Task SER, NER criteria)")
    p.add_argument("--gold", required=True, help="gold: set key(s) in the store, or a Shared Task directory")
    p.add_argument("--pred", required=True, help="predictions: set key(s) in the store, or a Shared Task directory")
    p.add_argument("--store", required=True, help="the store holding the ontologies (and any set keys named)")
    p.add_argument("--craft", help="CRAFT directory: document texts for the fragment criterion")
    p.add_argument("--boundary", choices=["jaccard", "exact"], default="jaccard")
    p.add_argument("--criteria", default="all", help="all, or a comma-separated list: exact,left,right,"
                   "left_or_right,approximate,partial,fragment")
    p.add_argument("--out", required=True, help="directory for the result files")
    p.set_defaults(func=_cmd_evaluate)
