"""OWL class expressions and axioms as N-Quads lines, per the OBO 1.4 -> OWL mapping.

The mapping (oboformat.org, "OBO flat file format 1.4 syntax and semantics", section 5,
and the OWL 2 mapping to RDF graphs, table 1) writes:

- ``relationship: R X`` as ``C rdfs:subClassOf [a owl:Restriction; owl:onProperty R;
  owl:someValuesFrom X]``;
- the ``intersection_of`` lines of a stanza as ``C owl:equivalentClass [a owl:Class;
  owl:intersectionOf (G [R some X] ...)]`` (genus and differentiae in one list);
- the ``union_of`` lines as ``C owl:equivalentClass [a owl:Class; owl:unionOf (...)]``;
- ``disjoint_from: X`` as ``C owl:disjointWith X``, ``equivalent_to: X`` as
  ``C owl:equivalentClass X``.

Blank nodes are named ``_:o<8 hex digits of the graph>n<counter>`` so that two ontology
graphs never share one and a rebuild writes the same labels (a batch is replaced
whole, never merged). :class:`BlankNodes` holds the counter of one batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence

from ..core.classexpr import And, Expr, Named, Not, Or, Restriction
from ..core.rdf import int_literal, iri, quad
from ..core.vocab import OWL, RDF, RDFS

_TYPE = iri(RDF.type)
_FIRST = iri(RDF.first)
_REST = iri(RDF.rest)
_NIL = iri(RDF.nil)
_CLASS = iri(OWL.Class)
_RESTRICTION = iri(OWL.Restriction)
_ON_PROPERTY = iri(OWL.onProperty)
_SOME = iri(OWL.someValuesFrom)
_ONLY = iri(OWL.allValuesFrom)
_ON_CLASS = iri(OWL.onClass)
_CARDINALITY = {
    "exactly": iri(OWL.qualifiedCardinality),
    "min": iri(OWL.minQualifiedCardinality),
    "max": iri(OWL.maxQualifiedCardinality),
}
_BOOLEAN = {And: iri(OWL.intersectionOf), Or: iri(OWL.unionOf)}
_COMPLEMENT = iri(OWL.complementOf)
SUBCLASS = iri(RDFS.subClassOf)
EQUIVALENT = iri(OWL.equivalentClass)

#: Resolves a class reference of a logical definition to ``<IRI>``, or raises NotExpressible.
ClassRef = Callable[[Named], str]
#: Resolves a relation name to ``<IRI>``.
PropertyRef = Callable[[str], str]


class NotExpressible(ValueError):
    """A logical definition with a part OWL (or this writer) cannot express: says which part."""


class BlankNodes:
    """Fresh blank node labels for one batch, unique to its graph."""

    def __init__(self, graph: str) -> None:
        self._prefix = "_:o" + hashlib.sha1(graph.encode(), usedforsecurity=False).hexdigest()[:8] + "n"
        self._n = 0

    def new(self) -> str:
        """A blank node label not used before in this batch."""
        self._n += 1
        return f"{self._prefix}{self._n}"


def rdf_list(items: Sequence[str], g: str, nodes: BlankNodes, out: list[str]) -> str:
    """The head of an RDF collection of ``items`` (formatted terms); its quads go to ``out``."""
    head = _NIL
    for item in reversed(items):
        cell = nodes.new()
        out.append(quad(cell, _FIRST, item, g))
        out.append(quad(cell, _REST, head, g))
        head = cell
    return head


def some(prop: str, filler: str, g: str, nodes: BlankNodes, out: list[str]) -> str:
    """A blank ``owl:Restriction`` ``prop some filler`` (formatted terms); quads go to ``out``."""
    r = nodes.new()
    out.append(quad(r, _TYPE, _RESTRICTION, g))
    out.append(quad(r, _ON_PROPERTY, prop, g))
    out.append(quad(r, _SOME, filler, g))
    return r


def boolean(kind: type[And] | type[Or], items: Sequence[str], g: str, nodes: BlankNodes, out: list[str]) -> str:
    """A blank ``owl:Class`` that is the intersection or union of ``items``; quads go to ``out``."""
    c = nodes.new()
    out.append(quad(c, _TYPE, _CLASS, g))
    out.append(quad(c, _BOOLEAN[kind], rdf_list(items, g, nodes, out), g))
    return c


def class_expression(expr: Expr, g: str, nodes: BlankNodes, out: list[str], *, cls: ClassRef, prop: PropertyRef) -> str:
    """The formatted term of a logical definition's class expression; its quads go to ``out``.

    A property chain is unfolded (``(p o q) some X`` is ``p some (q some X)``, likewise for
    ``only``). Raises NotExpressible for a chain with a cardinality and for ``value`` (an individual, which CRAFT's
    definitions never name); ``cls`` raises it for a reference it cannot resolve.
    """
    if isinstance(expr, Named):
        return cls(expr)
    if isinstance(expr, str):  # a class IRI
        return iri(expr)
    if isinstance(expr, And | Or):
        parts = [class_expression(e, g, nodes, out, cls=cls, prop=prop) for e in expr.items]
        return boolean(type(expr), parts, g, nodes, out)
    if isinstance(expr, Not):
        c = nodes.new()
        inner = class_expression(expr.item, g, nodes, out, cls=cls, prop=prop)
        out.append(quad(c, _TYPE, _CLASS, g))
        out.append(quad(c, _COMPLEMENT, inner, g))
        return c
    return _restriction(expr, g, nodes, out, cls=cls, prop=prop)


def _restriction(
    expr: Restriction, g: str, nodes: BlankNodes, out: list[str], *, cls: ClassRef, prop: PropertyRef
) -> str:
    if len(expr.chain) > 1:
        if expr.quantifier not in ("some", "only"):
            raise NotExpressible(f"property chain {' o '.join(expr.chain)!r} with {expr.quantifier}")
        # (p o q) some X is p some (q some X); the same holds for only
        inner = Restriction(expr.chain[1:], expr.quantifier, expr.filler)
        expr = Restriction(expr.chain[:1], expr.quantifier, inner)
    if expr.quantifier == "value":
        raise NotExpressible(f"'{expr.chain[0]} value ...' names an individual")
    p = prop(expr.chain[0])
    filler = class_expression(expr.filler, g, nodes, out, cls=cls, prop=prop)
    if expr.quantifier == "some":
        return some(p, filler, g, nodes, out)
    r = nodes.new()
    out.append(quad(r, _TYPE, _RESTRICTION, g))
    out.append(quad(r, _ON_PROPERTY, p, g))
    if expr.quantifier == "only":
        out.append(quad(r, _ONLY, filler, g))
    else:
        out.append(quad(r, _CARDINALITY[expr.quantifier], int_literal(expr.count or 0, non_negative=True), g))
        out.append(quad(r, _ON_CLASS, filler, g))
    return r


def equivalent_axiom(s: str, target: str, g: str) -> Iterator[str]:
    """``s owl:equivalentClass target``."""
    yield quad(s, EQUIVALENT, target, g)
