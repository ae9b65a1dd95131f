"""The ``term`` command: look classes up in a store's ontologies (``info``, ``ancestors``, ``descendants``, ``search``).

``craftrdf term info UBERON:0000955 --store S`` prints a class's record; ``ancestors`` and
``descendants`` the classes above or below it (``--relations is_a,part_of``); ``search TEXT``
the classes whose label or synonym matches. ``--format table`` (default) or ``json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ._common import add_store_options, open_store

if TYPE_CHECKING:
    from ...analysis.terms import TermLookup


def _print_table(rows: list[list[str]]) -> None:
    """Rows as aligned columns (the last column unpadded)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        sys.stdout.write("  ".join([c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]).rstrip() + "\n")


def _info(lookup: TermLookup, args: argparse.Namespace) -> None:
    info = lookup.info(args.arg)
    if args.format == "json":
        print(json.dumps(info.as_dict(), ensure_ascii=False, indent=2))
        return
    rows = [["id", info.id], ["label", info.label or ""], ["iri", info.iri]]
    rows += [["synonym", f"{text} ({scope})"] for text, scope in info.synonyms]
    if info.definition:
        rows.append(["definition", info.definition])
    if info.logical_definition:
        rows.append(["logical definition", info.logical_definition])
    for rel, parents in info.parents.items():
        rows += [[rel, f"{p} {lookup.label(p) or ''}".rstrip()] for p in parents]
    if info.deprecated:
        rows.append(["deprecated", "true"])
    _print_table(rows)


def _cmd_term(args: argparse.Namespace) -> int:
    from ...analysis.terms import TermLookup
    from ...core.errors import ConfigError

    relations = [r.strip() for r in args.relations.split(",") if r.strip()]
    if not relations:
        raise ConfigError("--relations names no relation")
    if args.limit < 1:
        raise ConfigError(f"--limit needs a positive number, got {args.limit}")
    with open_store(args, mode="read") as store:
        lookup = TermLookup.of(store, ontology=args.ontology, classify_extensions=args.classify_extensions)
        if args.action == "info":
            _info(lookup, args)
            return 0
        if args.action == "search":
            hits = lookup.search(args.arg, limit=args.limit)
            found = [{"id": m.id, "label": m.label, "matched": m.matched, "scope": m.scope} for m in hits]
        else:
            walk = lookup.ancestors if args.action == "ancestors" else lookup.descendants
            found = [{"id": t, "label": lookup.label(t)} for t in walk(args.arg, relations)]
    if args.format == "json":
        print(json.dumps(found, ensure_ascii=False, indent=2))
    elif found:
        _print_table([[str(v or "") for v in row.values()] for row in found])
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``term`` to the ``craftrdf`` parser."""
    t = sub.add_parser(
        "term",
        help="look classes up: info, ancestors, descendants, search (labels and synonyms)",
        description="Look classes up in the store's ontology graphs (all merged, or --ontology NAME). "
        "info: labels, synonyms, definition, parents by relation; ancestors/descendants over --relations; "
        "search: label or synonym equal to, starting with, or containing the text (CURIEs out). "
        "Extension placements stored by craftrdf classify are edges; --classify-extensions adds the union pass.",
    )
    t.add_argument("action", choices=["info", "ancestors", "descendants", "search"])
    t.add_argument("arg", metavar="TERM_OR_TEXT", help="a CURIE or IRI (info, ancestors, descendants) or text (search)")
    add_store_options(t)
    t.add_argument("--ontology", metavar="NAME", help="one ontology graph, e.g. UBERON+extensions (default: all)")
    t.add_argument(
        "--relations", default="is_a", metavar="REL,...", help="relations ancestors/descendants follow (default is_a)"
    )
    t.add_argument("--classify-extensions", action="store_true", help="place union-defined extension classes first")
    t.add_argument("--limit", type=int, default=20, help="search: at most this many classes (default 20)")
    t.add_argument("--format", choices=["table", "json"], default="table")
    t.set_defaults(func=_cmd_term)
