"""The ``train`` command: learn a matcher from a set's gold on chosen splits (docs/training.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_store_options, open_store


def _cmd_train(args: argparse.Namespace) -> int:
    from ...core.context import RunContext
    from ...core.errors import ConfigError
    from ...matching.matcher.dictionary import default_cache_dir
    from ...matching.training.train import TrainOptions, train_set

    if args.ids is not None and args.on is not None:
        raise ConfigError("give --on SPLITS or --ids FILE, not both")
    cache_dir = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    with open_store(args, mode="read") as store:
        report, _ = train_set(
            store,
            args.set,
            RunContext.create(cache_dir=cache_dir),
            on=args.on or "train,dev",
            ids=Path(args.ids) if args.ids is not None else None,
            out=Path(args.out),
            options=TrainOptions(quick=args.quick, folds=args.folds),
        )
    s = report.selection
    print(
        f"trained {report.set_key} on {report.documents} documents ({report.gold:,} gold annotations, "
        f"{report.names:,} gold names) in {report.seconds:.1f} s; model in {report.out}"
    )
    print(f"configuration: {s.config.label()}")
    print(
        f"decision: threshold {s.decision.threshold}, prior {s.decision.prior}; rules: {s.rules.label()}; "
        f"{len(s.tried)} points cross-validated, SER {s.cv_ser:.3f}"
        + (" (exact classes only: no ontology in the store)" if report.exact_only else "")
    )
    ls = report.learned
    if ls is not None:
        print(
            f"learned decision (logistic regression, C={ls.learned.strength}, threshold {ls.learned.threshold}, "
            f"window {ls.learned.window.label}): cross-validated SER {ls.cv_ser:.3f}, "
            + ("used" if ls.chosen else "not used (the threshold decision is lower)")
        )
        print(
            "precision-recall over the confidence, cross-validated (exact matches): "
            + ", ".join(f"{t:.2f}: P {p:.3f} R {r:.3f}" for t, p, r in ls.curve)
        )
    print(
        f"coordination: recovers {report.discontinuous_recovered} of {report.discontinuous_gold} gold "
        f"discontinuous annotations on the training documents ({report.discontinuous_predicted} predicted)"
    )
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``train`` to the ``craftrdf`` parser."""
    t = sub.add_parser(
        "train",
        help="learn a dictionary matcher from a set's gold annotations",
        description="Learn, from the gold of the chosen splits only, the names annotators wrote, each term's "
        "precision, abbreviations and coordinated heads; choose the configuration and threshold by "
        "cross-validation over documents; write a model folder for `craftrdf annotate --model`.",
    )
    add_store_options(t)
    t.add_argument("--set", required=True, help="annotation set to learn, e.g. UBERON_EXT")
    t.add_argument("--on", help="splits to learn from (default train,dev)")
    t.add_argument("--ids", metavar="FILE", help="a file of document ids to learn from (one a line), instead of --on")
    t.add_argument("--out", required=True, help="model folder to write (replaced if it is a model folder)")
    t.add_argument("--quick", action="store_true", help="a reduced selection (one configuration)")
    t.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    t.add_argument("--cache-dir", help="dictionary and sentence cache (default: ~/.cache/craftrdf/matcher)")
    t.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    t.set_defaults(func=_cmd_train)
