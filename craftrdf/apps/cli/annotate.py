"""The ``annotate`` command: run the dictionary matcher over texts (docs/matcher.md)."""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Literal

from ._common import add_store_options, index_progress, open_store, parse_params, worker_count
from .annotate_stream import add_stream_options, is_streamed, run_streamed


def _cmd_annotate(args: argparse.Namespace) -> int:
    if is_streamed(args):
        if args.ids is not None:
            from ...core.errors import ConfigError

            raise ConfigError("--ids is not read by a streamed run: give the documents as inputs")
        return run_streamed(args)
    from ...core.context import RunContext
    from ...matching.matcher.config import MatcherConfig
    from ...matching.matcher.dictionary import default_cache_dir
    from ...matching.matcher.run import run_annotation

    cache_dir = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    if args.model is not None:
        return _annotate_with_model(args, cache_dir)
    config = MatcherConfig.from_params(parse_params(args.param))
    texts = _inputs(args)
    mode: Literal["write", "read"] = "write" if args.into_store else "read"
    workers = worker_count("--jobs", args.jobs, min(os.cpu_count() or 1, 4))
    with contextlib.ExitStack() as stack:
        executor = None
        if workers > 1 and len(texts) >= 8:  # sentence splitting in worker processes, beside the dictionary
            # forkserver: workers do not inherit the open store (RocksDB handles, the lock file)
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["craftrdf.matching.matcher.tokenize"])
            executor = stack.enter_context(ProcessPoolExecutor(max_workers=workers, mp_context=context))
        store = stack.enter_context(open_store(args, mode=mode))
        r = run_annotation(
            store,
            args.set,
            config,
            texts,
            RunContext.create(cache_dir=cache_dir, executor=executor, progress=index_progress(args)),
            out_dir=Path(args.out),
            into_store=args.into_store,
        )
    total = sum(r.seconds.values())
    print(
        f"annotated {r.documents} documents with {args.set} ({r.dictionary_entries:,} dictionary entries): "
        f"{r.annotations:,} annotations, BioNLP in {r.out_dir}, {total:.1f} s"
    )
    print(f"configuration: {config.label()}")
    if r.graph is not None:
        print(f"{r.graph}: {r.quads:,} quads" if r.quads else f"{r.graph}: unchanged (same run already stored)")
    return 0


def _inputs(args: argparse.Namespace) -> dict[str, str]:
    """The texts of the inputs (``--split``), only those of ``--ids FILE`` when given (in its order)."""
    from ...ingest.ids import read_ids
    from ...matching.matcher.run import read_inputs

    texts = read_inputs([Path(p) for p in args.inputs], split=args.split)
    if args.ids is None:
        return texts
    return {d: texts[d] for d in read_ids(Path(args.ids), texts)}


def _annotate_with_model(args: argparse.Namespace, cache_dir: Path | None) -> int:
    from ...core.context import RunContext
    from ...core.errors import ConfigError
    from ...matching.training.train import annotate_with_model

    if args.param:
        raise ConfigError("--model fixes the configuration: drop --param")
    if args.min_confidence is not None and not 0.0 <= args.min_confidence <= 1.0:
        raise ConfigError(f"--min-confidence must be in [0, 1], got {args.min_confidence}")
    texts = _inputs(args)
    with open_store(args, mode="write" if args.into_store else "read") as store:
        r, _ = annotate_with_model(
            store,
            args.set,
            Path(args.model),
            texts,
            RunContext.create(cache_dir=cache_dir),
            out_dir=Path(args.out),
            min_confidence=args.min_confidence,
            into_store=args.into_store,
        )
    print(
        f"annotated {r.documents} documents with the model {args.model}: {r.annotations:,} annotations, "
        f"BioNLP in {r.out_dir} (confidences in {r.out_dir}/confidence.tsv), {r.seconds:.1f} s"
    )
    if args.into_store:
        print(f"stored as set {args.into_store}, each annotation with its craft:confidence")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``annotate`` to the ``craftrdf`` parser."""
    a = sub.add_parser(
        "annotate",
        help="annotate texts with the ConceptMapper-like dictionary matcher",
        description="Annotate texts with a dictionary built from the ontology of a set in the store. "
        "Parameters (ConceptMapper's): caseMatch, findAllMatches, orderIndependentLookup, "
        "searchStrategy, stemmer, stopWords, synonyms.",
    )
    a.add_argument("inputs", nargs="+", metavar="INPUT", help="text files, folders of *.txt, or a CRAFT directory")
    add_store_options(a)
    a.add_argument("--set", required=True, help="set whose ontology gives the dictionary, e.g. UBERON_EXT")
    a.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a matcher parameter, e.g. caseMatch=CASE_IGNORE; repeatable",
    )
    a.add_argument("--split", help="with a CRAFT directory: train, dev, test, a comma list, or all (default)")
    a.add_argument("--ids", metavar="FILE", help="annotate only the documents listed in FILE (one id a line)")
    a.add_argument(
        "--out", required=True, help="folder for the <document>.bionlp files (evaluate --pred takes it as it is)"
    )
    a.add_argument("--into-store", metavar="NAME", help="also store the annotations as set NAME in the store")
    a.add_argument("--cache-dir", help="dictionary and sentence cache (default: ~/.cache/craftrdf/matcher)")
    a.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    a.add_argument("--model", metavar="DIR", help="a model folder from `craftrdf train` (trained for --set)")
    a.add_argument(
        "--min-confidence",
        type=float,
        metavar="P",
        help="with --model: keep annotations of confidence at least P (replaces the model's threshold; "
        "the train report's precision-recall curve shows what each P gives)",
    )
    a.add_argument("--jobs", type=int, help="processes for sentence splitting (default: cores, at most 4)")
    add_stream_options(a)
    a.set_defaults(func=_cmd_annotate)
