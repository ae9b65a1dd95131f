"""The direct edges of an OWL ontology graph, as the derived relations graph holds them.

The ontology graph is OWL (restrictions, intersections and unions on blank nodes); the
queries, views, Wang similarity and the viewer walk plain class-to-class triples. The
OBO reader writes those while it reads (:mod:`craftrdf.ingest.axioms`); for an ontology
given as OWL/RDF, :class:`RelationCollector` derives the same edges from its triples:

- ``C rdfs:subClassOf D`` (both named) -> ``C rdfs:subClassOf D``;
- ``C rdfs:subClassOf [owl:onProperty P; owl:someValuesFrom X]`` -> ``C P X``;
- ``C owl:equivalentClass [owl:intersectionOf (G, [P some X], ...)]`` -> ``C rdfs:subClassOf G``
  and ``C P X`` for every named genus and every ``some`` restriction with a named filler.

Only the triples these patterns need are kept in memory, never the whole file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyoxigraph as ox

from ..core.vocab import OWL, RDF, RDFS

_KEEP = frozenset(
    {
        RDFS.subClassOf,
        OWL.equivalentClass,
        OWL.onProperty,
        OWL.someValuesFrom,
        OWL.intersectionOf,
        RDF.first,
        RDF.rest,
    }
)

Edge = tuple[str, str, str]


class RelationCollector:
    """Collects the triples the relations graph needs; :meth:`edges` derives it at the end."""

    def __init__(self) -> None:
        self._named_sub: list[tuple[str, str]] = []
        self._anon_sub: list[tuple[str, str]] = []  # named class, blank superclass
        self._equivalent: list[tuple[str, str]] = []  # named class, blank class expression
        self._blank: dict[str, dict[str, str]] = {}  # blank node -> {predicate: object}

    def add(self, s: ox.NamedNode | ox.BlankNode, p: str, o: object) -> None:
        """Look at one triple (subject, predicate IRI, object); keeps it if a pattern needs it."""
        if p not in _KEEP:
            return
        o_named = isinstance(o, ox.NamedNode)
        if isinstance(s, ox.BlankNode):
            if o_named or isinstance(o, ox.BlankNode):
                self._blank.setdefault("_:" + s.value, {})[p] = _key(o)
            return
        if p == RDFS.subClassOf:
            if o_named:
                self._named_sub.append((s.value, o.value))  # type: ignore[attr-defined]
            elif isinstance(o, ox.BlankNode):
                self._anon_sub.append((s.value, "_:" + o.value))
        elif p == OWL.equivalentClass and isinstance(o, ox.BlankNode):
            self._equivalent.append((s.value, "_:" + o.value))

    def _some(self, node: str) -> tuple[str, str] | None:
        """``(P, X)`` when the blank ``node`` is ``P some X`` with a named X."""
        b = self._blank.get(node, {})
        p, x = b.get(OWL.onProperty), b.get(OWL.someValuesFrom)
        if p is None or x is None or p.startswith("_:") or x.startswith("_:"):
            return None
        return p, x

    def _members(self, head: str) -> Iterator[str]:
        seen: set[str] = set()
        while head.startswith("_:") and head not in seen:
            seen.add(head)
            cell = self._blank.get(head, {})
            item = cell.get(RDF.first)
            if item is not None:
                yield item
            head = cell.get(RDF.rest, RDF.nil)

    def edges(self) -> Iterator[Edge]:
        """The direct edges ``(child, predicate, parent)`` as IRIs, each once."""
        seen: set[Edge] = set()
        for c, d in self._named_sub:
            yield from _once((c, RDFS.subClassOf, d), seen)
        for c, b in self._anon_sub:
            hit = self._some(b)
            if hit is not None:
                yield from _once((c, hit[0], hit[1]), seen)
        for c, b in self._equivalent:
            head = self._blank.get(b, {}).get(OWL.intersectionOf)
            for item in self._members(head) if head else ():
                if not item.startswith("_:"):
                    yield from _once((c, RDFS.subClassOf, item), seen)
                elif (hit := self._some(item)) is not None:
                    yield from _once((c, hit[0], hit[1]), seen)


def _key(term: object) -> str:
    """A named node as its IRI, a blank node as ``_:label``."""
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    assert isinstance(term, ox.NamedNode)
    return term.value


def _once(edge: Edge, seen: set[Edge]) -> Iterator[Edge]:
    if edge not in seen:
        seen.add(edge)
        yield edge


def direct_edges(triples: Iterable[ox.Triple | ox.Quad]) -> Iterator[Edge]:
    """The relations-graph edges of an OWL graph's triples (see the module docstring)."""
    collector = RelationCollector()
    for t in triples:
        collector.add(t.subject, t.predicate.value, t.object)  # type: ignore[arg-type]
    return collector.edges()
