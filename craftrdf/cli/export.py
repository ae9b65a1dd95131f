"""The ``export`` command: write one annotation set of a store to a file or a folder (docs/exports.md)."""

from __future__ import annotations

import argparse

from ._common import add_store_options, open_store

_FORMATS = ("turtle", "trig", "nquads", "jsonld", "bionlp", "pubannotation")


def _cmd_export(args: argparse.Namespace) -> int:
    from ..exports import export_set

    with open_store(args, mode="read") as store:
        r = export_set(
            store,
            args.set,
            args.out,
            format=args.format,
            document=args.document,
        )
    what = f"{r.annotations:,} annotations of {r.documents} document(s)"
    if r.quads:
        what += f", {r.quads:,} {'triples' if r.format.value == 'turtle' else 'quads'}"
    where = f"{r.files} file(s) in {r.out}" if r.format.per_document else str(r.out)
    print(f"exported {r.set.key} as {r.format.value}: {what} -> {where}, {r.seconds:.1f} s")
    if r.skipped:
        print(f"left out {r.skipped} annotation(s) without spans ({r.format.value} cannot carry them)")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``export`` to the ``craftrdf`` parser."""
    e = sub.add_parser(
        "export",
        help="write an annotation set as Turtle, TriG, N-Quads, JSON-LD, PubAnnotation or BioNLP",
        description="Write one annotation set (a CRAFT set, a loaded set or a materialised view) of a store. "
        "turtle: the set graph; trig, nquads: the set graph with its documents and the classes "
        "it uses; jsonld: a W3C Web Annotation collection; bionlp, pubannotation: one file per "
        "document in the --out folder.",
    )
    add_store_options(e)
    e.add_argument("--set", required=True, help="set key, matched case-insensitively, e.g. UBERON_EXT")
    e.add_argument("--format", required=True, choices=_FORMATS)
    e.add_argument(
        "--out", required=True, help="output file (turtle, trig, nquads, jsonld) or folder (bionlp, pubannotation)"
    )
    e.add_argument("--document", metavar="PMID", help="only this document's annotations")
    e.set_defaults(func=_cmd_export)
