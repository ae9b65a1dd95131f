"""The ``export`` command: write one annotation set of a store to a file or a folder (docs/exports.md)."""

from __future__ import annotations

import argparse

from ._common import add_store_options, open_store

_FORMATS = ("turtle", "trig", "nquads", "jsonld", "bionlp", "pubannotation")
_ONTOLOGY_FORMATS = ("owl", "obo", "ttl")


def _cmd_export_ontology(args: argparse.Namespace) -> int:
    from ...core.errors import ConfigError
    from ...publishing.exports.ontology import export_ontology

    if args.format not in _ONTOLOGY_FORMATS:
        raise ConfigError(f"--ontology exports as {', '.join(_ONTOLOGY_FORMATS)}, not {args.format}")
    with open_store(args, mode="read") as store:
        r = export_ontology(store, args.ontology, args.out, format=args.format)
    size = f"{r.terms:,} terms" if r.format == "obo" else f"{r.triples:,} triples"
    print(f"exported ontology {r.ontology} as {r.format}: {size} -> {r.out}, {r.seconds:.1f} s")
    if r.unwritten:
        print(f"{len(r.unwritten)} logical definition(s) OBO 1.4 cannot express (in the OWL export only):")
        for cls, reason in r.unwritten:
            print(f"  {cls}: {reason}")
    return 0


def _cmd_export_sssom(args: argparse.Namespace) -> int:
    from ...core.errors import ConfigError
    from ...publishing.exports.sssom import export_sssom

    if args.document or args.context is not None:
        raise ConfigError("--format sssom exports the set's extension-class mappings: no --document or --context")
    with open_store(args, mode="read") as store:
        r = export_sssom(store, args.set, args.out)
    print(
        f"exported {r.set_key}'s extension-class mappings as SSSOM: {r.mappings:,} mappings "
        f"of {r.classes:,} classes -> {r.out}"
    )
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from ...core.errors import ConfigError
    from ...publishing.exports.sets import export_set

    if args.ontology:
        return _cmd_export_ontology(args)
    if not args.set:
        raise ConfigError("give --set KEY (an annotation set) or --ontology NAME (an ontology)")
    if args.format == "sssom":
        return _cmd_export_sssom(args)
    if args.format not in _FORMATS:
        raise ConfigError(f"an annotation set exports as {', '.join(_FORMATS)}, not {args.format}")
    if args.context is not None and args.format != "jsonld":
        raise ConfigError(f"--context is for --format jsonld, not {args.format}")
    with open_store(args, mode="read") as store:
        r = export_set(
            store,
            args.set,
            args.out,
            format=args.format,
            document=args.document,
            jsonld_context=args.context or "inline",
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
        help="write an annotation set (Turtle, TriG, N-Quads, JSON-LD, PubAnnotation, BioNLP; its "
        "extension-class mappings as SSSOM) or an ontology (OWL, OBO, Turtle)",
        description="Write one annotation set (a CRAFT set, a loaded set or a materialised view) of a store. "
        "turtle: the set graph; trig, nquads: the set graph with its documents and the classes "
        "it uses; jsonld: a W3C Web Annotation collection; bionlp, pubannotation: one file per "
        "document in the --out folder. With --ontology NAME (as in /ontology/<name>, e.g. "
        "UBERON+extensions): owl (RDF/XML for OWL tools), ttl, or obo (OBO 1.4 for pronto, fastobo, ROBOT). "
        "--set KEY --format sssom: the set's extension classes and their related classes as SSSOM TSV.",
    )
    add_store_options(e)
    what = e.add_mutually_exclusive_group(required=True)
    what.add_argument("--set", help="set key, matched case-insensitively, e.g. UBERON_EXT")
    what.add_argument("--ontology", metavar="NAME", help="an ontology graph, e.g. UBERON+extensions")
    e.add_argument("--format", required=True, choices=(*_FORMATS, "sssom", *_ONTOLOGY_FORMATS))
    e.add_argument(
        "--out",
        required=True,
        help="output file (turtle, trig, nquads, jsonld, owl, obo, ttl) or folder (bionlp, pubannotation)",
    )
    e.add_argument("--document", metavar="PMID", help="only this document's annotations")
    e.add_argument(
        "--context",
        choices=("inline", "remote"),
        help="jsonld: write the W3C Web Annotation context into the file (inline, the default: read without "
        "a network) or name it by its IRI http://www.w3.org/ns/anno.jsonld (remote)",
    )
    e.set_defaults(func=_cmd_export)
