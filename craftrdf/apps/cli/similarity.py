"""The ``similarity`` command: Wang semantic similarity of ontology classes in a store.

``craftrdf similarity TERM TERM --store S`` prints one score; ``--pairs FILE`` writes
``term1,term2,similarity`` rows; ``--matrix TERMS_FILE`` an all-pairs matrix;
``--top-k N TERM`` the N most similar classes. Output is CSV on stdout (or ``--output``).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import logging
import math
import os
import re
import secrets
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ...core.errors import ConfigError, InputError
from ._common import add_store_options, open_store

if TYPE_CHECKING:
    from ...analysis.evaluation.official_index import OfficialIndex
    from ...analysis.similarity.definition import Missing
    from ...analysis.similarity.groups import Scorer
    from ...analysis.similarity.wang import WangIndex
    from ...store.local import ReadableStore

logger = logging.getLogger(__name__)

_SPLIT = re.compile(r"\s*[\t,]\s*|\s+")
_TERM = re.compile(r"^([A-Za-z][A-Za-z0-9_]*:\S+|https?://\S+)$")


def _rows(path: str) -> Iterator[tuple[int, list[str]]]:
    """Non-blank, non-comment lines of a file as fields (tab, comma or space separated),
    the first line left out when it is a header (its first field is not a CURIE or IRI)."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = list(enumerate(fh, 1))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source=path) from None
    first = True
    for n, line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        fields = [f for f in _SPLIT.split(text) if f]
        if first and not _TERM.match(fields[0]):
            first = False
            continue
        first = False
        yield n, fields


def read_pairs(path: str) -> tuple[list[str], list[str]]:
    """The two term columns of a pairs file; InputError naming the line of a short row."""
    a: list[str] = []
    b: list[str] = []
    for n, fields in _rows(path):
        if len(fields) < 2:
            raise InputError("expected two terms (CURIEs) on the line", source=path, line=n)
        a.append(fields[0])
        b.append(fields[1])
    return a, b


def read_terms(path: str) -> list[str]:
    """The first column of a terms file, in order, without repeats."""
    return list(dict.fromkeys(fields[0] for _, fields in _rows(path)))


def _fmt(value: float, digits: int) -> str:
    return "" if math.isnan(value) else f"{value:.{digits}f}"


@contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    """stdout, or ``path`` written whole or not at all: a temporary file beside it, renamed over it at the end."""
    if path is None:
        yield sys.stdout
        return
    target = Path(path)
    # created by open(), not tempfile, so the file gets the permissions the umask gives any new file
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fh = open(temporary, "x", encoding="utf-8", newline="")  # noqa: SIM115 - closed below, before the rename
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", source=path) from None
    try:
        with fh:
            yield fh
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)  # an error before the end leaves the old file, or none
        raise


def _report_extensions(report: object, path: str | None) -> None:
    from ...ontology.extensions import ExtensionReport

    assert isinstance(report, ExtensionReport)
    kinds = {k: [p for p in report.problems if p.kind == k] for k in ("syntax", "not-union", "unresolved", "cycle")}
    for p in kinds["syntax"]:
        logger.warning("extension class %s: definition not parsed (%s): %s", p.cls, p.reason, p.definition)
    for p in kinds["unresolved"] + kinds["cycle"]:
        logger.info("extension class %s not placed: %s", p.cls, p.reason)
    print(
        f"extension classes: {len(report.placed)} placed; not placed: {len(kinds['syntax'])} unparsable, "
        f"{len(kinds['not-union'])} not a union of named classes, {len(kinds['unresolved'])} with unresolved "
        f"members, {len(kinds['cycle'])} in a cycle",
        file=sys.stderr,
    )
    if path:
        with _output(path) as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(["class", "outcome", "detail", "definition"])
            for pl in report.placed:
                w.writerow([pl.cls, "placed", f"members {' '.join(pl.members)}; parents {' '.join(pl.parents)}", ""])
            for p in report.problems:
                w.writerow([p.cls, p.kind, p.reason, p.definition])


_GROUP_MODES = ("documents", "groups", "document_matrix")


def _check_args(args: argparse.Namespace) -> None:
    """ConfigError for options that do not go together (before the store is opened)."""
    modes = [m for m in ("pairs", "matrix", "top_k", *_GROUP_MODES) if getattr(args, m) not in (None, False)]
    terms: Sequence[str] = args.terms
    if not modes and len(terms) != 2:
        raise ConfigError(
            "give two terms, or one of --pairs FILE, --matrix TERMS_FILE, --top-k N TERM, "
            "--documents A B, --groups FILE FILE, --document-matrix"
        )
    if args.top_k is not None and len(terms) != 1:
        raise ConfigError("--top-k N takes one term: craftrdf similarity --top-k 10 UBERON:0000955 --store S")
    if modes and args.top_k is None and terms:
        raise ConfigError(f"terms on the command line cannot be combined with --{modes[0].replace('_', '-')}")
    if args.candidates and args.top_k is None:
        raise ConfigError("--candidates only goes with --top-k")
    if args.top_k is not None and args.top_k < 1:
        raise ConfigError(f"--top-k needs a positive number, got {args.top_k}")
    if args.top_k is not None and args.measure != "wang":
        raise ConfigError("--top-k computes Wang similarity only: leave out --measure")
    if args.extensions_report and not args.classify_extensions:
        raise ConfigError("--extensions-report only goes with --classify-extensions")
    if not 0 <= args.digits <= 17:
        raise ConfigError(f"--digits must be between 0 and 17, got {args.digits}")
    if (args.documents is not None or args.document_matrix) and not args.set:
        raise ConfigError("--documents and --document-matrix need --set KEY (the annotation set, e.g. UBERON_EXT)")
    if args.set2 and args.documents is None:
        raise ConfigError("--set2 only goes with --documents")
    if args.method == "bossy" and args.measure != "wang":
        raise ConfigError("--method bossy is a Wang variant: leave out --measure, or --method")
    if args.measure == "wang" and (args.ic_set or args.ic_split):
        raise ConfigError("--ic-set and --ic-split go with an IC measure (--measure resnik, lin, jiang or rel)")


def _cmd_similarity(args: argparse.Namespace) -> int:
    from ...analysis.similarity.graph import IndexSpec, parse_weights, wang_index
    from ...analysis.similarity.wang import WangIndex
    from ...core.context import RunContext
    from ...ontology.placement import place_in_store

    if args.materialize:
        return _materialize(args)
    _check_args(args)
    weights = parse_weights(args.weights) if args.weights else None
    missing: Missing = "nan" if args.unknown == "nan" else "raise"
    with open_store(args, mode="read") as store:
        if args.method == "bossy" and weights is None and not args.classify_extensions:
            from ...analysis.evaluation.official_index import store_official_index  # the official scorer's graph

            index: WangIndex | OfficialIndex | Scorer = store_official_index(store, ontology=args.ontology)
        elif args.measure != "wang":
            index = _ic_scorer(store, args, weights)
        else:
            spec = IndexSpec(args.method, weights, args.ontology, args.classify_extensions)
            index = wang_index(store, spec, RunContext.create(cache_dir=_cache_dir(args)))
        if args.classify_extensions:
            # the union pass's report (the reasoner's placements are cached from the index's build)
            _report_extensions(place_in_store(store, args.ontology).unions, args.extensions_report)
        groups = _read_groups(store, args) if any(getattr(args, m) not in (None, False) for m in _GROUP_MODES) else None
    if groups is not None:
        from ...analysis.similarity.groups import Scorer

        scorer = index if isinstance(index, Scorer) else Scorer(index) if isinstance(index, WangIndex) else None
        if scorer is None:
            raise ConfigError("group similarity takes --method wang (with --weights) or an IC measure")
        rows: Iterable[list[str]] | str = _group_rows(args, scorer, groups)
    else:
        rows = _result_rows(args, index, missing)  # every term checked before the output is opened
    with _output(args.output) as out:
        if isinstance(rows, str):
            out.write(rows)
        else:
            csv.writer(out, lineterminator="\n").writerows(rows)
    return 0


def _ic_scorer(store: ReadableStore, args: argparse.Namespace, weights: dict[str, float] | None) -> Scorer:
    """The IC measure the options ask for, with its information content."""
    from ...analysis.similarity.corpus import ic_index
    from ...analysis.similarity.graph import IndexSpec
    from ...analysis.similarity.groups import Scorer
    from ...core.context import RunContext
    from ...matching.matcher.run import parse_splits

    ic_set = args.ic_set or args.set
    if args.ic == "corpus" and not ic_set:
        raise ConfigError(
            "--ic corpus counts the annotations of a set: give --ic-set KEY (or --set KEY), or --ic intrinsic"
        )
    index = ic_index(
        store,
        IndexSpec(weights=weights, ontology=args.ontology, classify_extensions=args.classify_extensions),
        RunContext.create(cache_dir=_cache_dir(args)),
        ic=args.ic,
        set_key=ic_set,
        splits=parse_splits(args.ic_split),
    )
    return Scorer(index, args.measure)


def _cache_dir(args: argparse.Namespace) -> Path | None:
    """Where the built index is kept between commands (None with --no-cache)."""
    from ...analysis.similarity.persist import default_cache_dir

    return None if args.no_cache else default_cache_dir()


def _read_groups(store: ReadableStore, args: argparse.Namespace) -> list[tuple[str, list[str]]]:
    """The class sets the group mode compares, named (document id or file), read before anything is written."""
    from ...analysis.similarity.corpus import document_classes

    if args.groups is not None:
        return [(path, read_terms(path)) for path in args.groups]
    if args.document_matrix:
        from ...querying.webanno import document_splits

        # every document of the store, those the set does not annotate too (empty rows and columns)
        classes = document_classes(store, args.set)
        return [(d, classes.get(d, [])) for d in sorted({*document_splits(store), *classes})]
    (a, b), second_set = args.documents, args.set2 or args.set
    first = document_classes(store, args.set, documents=[a])[a]
    return [(f"{args.set}:{a}", first), (f"{second_set}:{b}", document_classes(store, second_set, documents=[b])[b])]


def _group_rows(
    args: argparse.Namespace, scorer: Scorer, groups: list[tuple[str, list[str]]]
) -> Iterable[list[str]] | str:
    """One group score (its line), or the document-by-document matrix as CSV rows."""
    digits = args.digits
    names = [n for n, _ in groups]
    if args.document_matrix:
        m = scorer.group_matrix([g for _, g in groups], combine=args.combine)
        return itertools.chain(
            [["document", *names]], ([n, *(_fmt(float(v), digits) for v in row)] for n, row in zip(names, m))
        )
    for name, terms in groups:
        if not terms:
            raise ConfigError(f"{name} has no class to compare (an empty group)")
        if args.groups is not None and args.unknown == "error":
            scorer.check(terms)
    value = scorer.group(groups[0][1], groups[1][1], combine=args.combine)
    if math.isnan(value):
        raise ConfigError(f"no class of {names[0]} or of {names[1]} has a {scorer.measure} similarity in the graph")
    return _fmt(value, digits) + "\n"


def _materialize(args: argparse.Namespace) -> int:
    """``--materialize``: write the S-values of the ontology and weights as a batch (docs/similarity.md)."""
    from ...analysis.similarity.graph import parse_weights
    from ...analysis.similarity.svalue_graph import materialize_svalues
    from ...store.local import require_writable

    if args.terms or args.pairs or args.matrix or args.top_k is not None or any(getattr(args, m) for m in _GROUP_MODES):
        raise ConfigError("--materialize takes no terms and no --pairs, --matrix, --top-k or group mode")
    if args.method != "wang" or args.classify_extensions:
        raise ConfigError("--materialize writes the wang method's S-values (--weights chooses the relations)")
    weights = parse_weights(args.weights) if args.weights else None
    with open_store(args, mode="write") as store:
        report = materialize_svalues(require_writable(store, "--materialize"), ontology=args.ontology, weights=weights)
    done = f"{report.triples:,} triples written" if report.triples else "already in the store"
    print(
        f"S-values of {args.ontology or 'every ontology graph'}: {report.graph}: {report.classes:,} classes, "
        f"{report.svalues:,} S-values, {report.levels:,} levels; {done} in {report.seconds:.1f} s"
    )
    return 0


def _result_rows(
    args: argparse.Namespace, index: WangIndex | OfficialIndex | Scorer, missing: Missing
) -> Iterable[list[str]] | str:
    """The CSV rows of the mode asked for (one pair: the line itself); the similarities are
    computed, and every term checked, here."""
    digits = args.digits
    if args.pairs is not None:
        a, b = read_pairs(args.pairs)
        sims = index.pairs(a, b, missing=missing)
        return [["term1", "term2", "similarity"]] + [[x, y, _fmt(float(s), digits)] for x, y, s in zip(a, b, sims)]
    if args.matrix is not None:
        ts = read_terms(args.matrix)
        m = index.matrix(ts, missing=missing)
        # rows made as they are written: an all-pairs matrix can be large
        return itertools.chain([["term", *ts]], ([t, *(_fmt(float(v), digits) for v in row)] for t, row in zip(ts, m)))
    if args.top_k is not None:
        cands = read_terms(args.candidates) if args.candidates else None
        if not hasattr(index, "top_k"):  # pragma: no cover - _check_args stops --top-k with an IC measure
            raise ConfigError("--top-k computes Wang similarity only")
        top = index.top_k(args.terms[0], args.top_k, candidates=cands)
        return [["term", "label", "similarity"]] + [[t, index.labels.get(t, ""), _fmt(s, digits)] for t, s in top]
    x, y = args.terms
    value = float(index.pairs([x], [y], missing="nan")[0]) if missing == "nan" else index.similarity(x, y)
    return _fmt(value, digits) + "\n"


def _add_ic_options(s: argparse.ArgumentParser) -> None:
    """--measure and where the information content comes from."""
    s.add_argument(
        "--measure",
        choices=["wang", "resnik", "lin", "jiang", "rel"],
        default="wang",
        help="term measure: wang (default), or an information-content measure as GOSemSim defines it "
        "(the ancestors over the --weights relations, is_a and part_of by default)",
    )
    s.add_argument(
        "--ic",
        choices=["corpus", "intrinsic"],
        default="corpus",
        help="information content of the IC measures: corpus (default: annotation counts of --ic-set, "
        "propagated to ancestors) or intrinsic (Seco et al. 2004, from the graph alone)",
    )
    s.add_argument("--ic-set", metavar="KEY", help="annotation set whose counts give the IC (default: --set)")
    s.add_argument(
        "--ic-split",
        metavar="SPLITS",
        help="count the documents of these splits only: train, dev, test, a comma list, or all",
    )


def _add_group_options(s: argparse.ArgumentParser, mode: argparse._MutuallyExclusiveGroup) -> None:
    """The group modes (--documents, --groups, --document-matrix), their sets and --combine."""
    mode.add_argument(
        "--documents",
        nargs=2,
        metavar=("A", "B"),
        help="group similarity of two documents' classes in --set (B's in --set2 when given: gold against predicted)",
    )
    mode.add_argument("--groups", nargs=2, metavar=("FILE", "FILE"), help="group similarity of two term files")
    mode.add_argument(
        "--document-matrix", action="store_true", help="every document of --set against every other (CSV matrix)"
    )
    s.add_argument("--set", metavar="KEY", help="annotation set of --documents and --document-matrix, e.g. UBERON_EXT")
    s.add_argument("--set2", metavar="KEY", help="with --documents: the set of the second document")
    s.add_argument(
        "--combine",
        choices=["max", "avg", "rcmax", "bma"],
        default="bma",
        help="how group modes combine term scores, as GOSemSim's mgoSim (default bma, best-match average)",
    )


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``similarity`` to the ``craftrdf`` parser."""
    s = sub.add_parser(
        "similarity",
        help="semantic similarity of ontology classes and of class sets (Wang, Resnik, Lin, Jiang, Rel)",
        description="Wang et al. (2007) semantic similarity over the ontology graph in the store. "
        "Terms are CURIEs (UBERON:0000955) or IRIs.",
    )
    s.add_argument("terms", nargs="*", metavar="TERM", help="two terms (or one, with --top-k)")
    add_store_options(s)
    s.add_argument(
        "--method",
        choices=["wang", "bossy"],
        default="wang",
        help="wang: the paper's weights (is_a 0.8, part_of 0.6) or --weights; "
        "bossy: the CRAFT Shared Task scorer's graph (is_a, intersection genus, equivalence, "
        "reversed union_of) at 0.65 a step",
    )
    s.add_argument(
        "--weights",
        metavar="REL=W,...",
        help="relations to follow and their weights, e.g. is_a=0.8,part_of=0.6 "
        "(a relation named without a weight: 0.8 for is_a, else 0.6)",
    )
    s.add_argument(
        "--ontology",
        metavar="NAME",
        help="one ontology graph, e.g. UBERON+extensions (default: every ontology graph, merged)",
    )
    s.add_argument(
        "--classify-extensions",
        action="store_true",
        help="place union-defined extension classes by their logical definitions first",
    )
    s.add_argument(
        "--extensions-report",
        metavar="FILE",
        help="with --classify-extensions: write what was placed and what not (TSV)",
    )
    _add_ic_options(s)
    mode = s.add_mutually_exclusive_group()
    mode.add_argument("--pairs", metavar="FILE", help="two term columns -> term1,term2,similarity rows")
    mode.add_argument("--matrix", metavar="TERMS_FILE", help="one term per line -> all-pairs matrix (CSV)")
    mode.add_argument("--top-k", type=int, metavar="N", help="the N classes most similar to TERM")
    _add_group_options(s, mode)
    s.add_argument("--candidates", metavar="TERMS_FILE", help="with --top-k: choose among these terms only")
    s.add_argument(
        "--unknown",
        choices=["error", "nan"],
        default="error",
        help="a term not in the graph: stop with an error (default) or leave its similarity empty",
    )
    s.add_argument("--digits", type=int, default=6, help="decimals printed (default 6)")
    s.add_argument(
        "--materialize",
        action="store_true",
        help="write the S-values of --ontology (default: all, merged) and --weights into the store as "
        "triples, for the library query wang-svalues on any SPARQL server (docs/similarity.md)",
    )
    s.add_argument(
        "--no-cache",
        action="store_true",
        help="build the index from the store, and keep nothing (by default the built index is kept in "
        "~/.cache/craftrdf/similarity, keyed by the digests of the store's ontology graphs)",
    )
    s.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    s.set_defaults(func=_cmd_similarity)
