"""The ``classify`` command: infer subsumptions in one ontology graph (docs/classify.md)."""

from __future__ import annotations

import argparse

from ._common import add_store_options, open_store


def _cmd_classify(args: argparse.Namespace) -> int:
    from ...ontology.reasoning.run import classify

    with open_store(args, mode="write") as store:
        r = classify(store, args.ontology, reasoner=args.reasoner)
    ext = r.extension_edges()
    print(
        f"classified {r.ontology} with {r.reasoner} in {r.seconds:.1f} s: {len(r.edges)} inferred direct "
        f"subsumption(s), {len(ext)} with an extension class -> {r.graph}"
    )
    for child, parent in ext:
        print(f"  {child} is_a {parent}")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``classify`` to the ``craftrdf`` parser."""
    c = sub.add_parser(
        "classify",
        help="infer rdfs:subClassOf in an ontology (structural, or HermiT through owlready2)",
        description="Classify one ontology graph and write the inferred direct subsumptions into its "
        "derived graph (https://w3id.org/craftrdf/inferred/<NAME>), which similarity, views and the "
        "viewer read. structural (default): pure Python, places union- and intersection-defined "
        "classes from told axioms. hermit: HermiT through owlready2; needs pip install 'craftrdf[owl]' "
        "and Java.",
    )
    add_store_options(c, write=True)
    c.add_argument("--ontology", required=True, metavar="NAME", help="an ontology graph, e.g. UBERON+extensions")
    c.add_argument("--reasoner", choices=("structural", "hermit"), default="structural")
    c.set_defaults(func=_cmd_classify)
