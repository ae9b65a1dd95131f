"""An ontology graph of the store read back as per-class axioms (the inverse of the OBO mapping).

The OBO export and the structural reasoner both need each class's told axioms with the
blank nodes resolved: ``rdfs:subClassOf`` a named class or a restriction,
``owl:equivalentClass`` a named class or an intersection/union expression, and the
annotations the OBO format has tags for. :func:`read_ontology` reads one graph with
pattern lookups (no SPARQL), so it costs one pass over the graph's quads.
:func:`read_told_axioms` reads the logical axioms alone (one query, a fraction of the triples):
the ontology model's told axioms (:mod:`craftrdf.ontology.store_model`) and the official
scorer's store graph are that read. Both resolve class expressions with one reader, into
:mod:`craftrdf.core.classexpr`'s tree with class IRIs as leaves and one property IRI per
restriction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..core.classexpr import And, Expr, Not, Or, Restriction
from ..core.errors import ConfigError
from ..core.iris import ontology_graph
from ..core.model import SYNONYM_SCOPES
from ..core.vocab import CRAFT, IAO, OBO, OBOINOWL, OWL, RDF, RDFS
from ..querying.library import library
from ..store.local import ReadableStore

_QUANTIFIERS = {
    OWL.someValuesFrom: "some",
    OWL.allValuesFrom: "only",
    OWL.qualifiedCardinality: "exactly",
    OWL.minQualifiedCardinality: "min",
    OWL.maxQualifiedCardinality: "max",
}


@dataclass(frozen=True, slots=True)
class ClassAxioms:
    """What the ontology graph says of one named class, with class expressions resolved."""

    iri: str
    id: str | None
    label: str | None
    values: dict[str, tuple[str, ...]]  # annotation predicate -> literal or IRI values
    synonyms: tuple[tuple[str, str], ...]  # (scope, text)
    parents: tuple[Expr, ...]  # rdfs:subClassOf
    equivalents: tuple[Expr, ...]  # owl:equivalentClass
    disjoint: tuple[str, ...]
    types: frozenset[str]

    @property
    def extension(self) -> bool:
        """True for a CRAFT extension class."""
        return CRAFT.ExtensionClass in self.types


@dataclass(frozen=True, slots=True)
class PropertyAxioms:
    """What the ontology graph says of one property."""

    iri: str
    id: str | None
    label: str | None
    types: frozenset[str]
    parents: tuple[str, ...]
    inverse: tuple[str, ...]
    domain: tuple[str, ...]
    range: tuple[str, ...]
    xrefs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OntologyAxioms:
    """Every named class and property of one ontology graph."""

    graph: str
    classes: dict[str, ClassAxioms] = field(default_factory=dict)
    properties: dict[str, PropertyAxioms] = field(default_factory=dict)
    version: str | None = None


class _Graph:
    """Triples of one graph (all of them, or those of a query), indexed by subject."""

    def __init__(self, triples: Iterable[tuple[object, str, object]]) -> None:
        self.by_subject: dict[object, dict[str, list[object]]] = defaultdict(lambda: defaultdict(list))
        for s, p, o in triples:
            self.by_subject[s][p].append(o)

    def get(self, node: object, p: str) -> list[object]:
        """The objects of ``node p ?o``."""
        props = self.by_subject.get(node)
        return props.get(p, []) if props else []

    def items(self, head: object) -> Iterator[object]:
        """The members of the RDF list starting at ``head``."""
        seen: set[object] = set()
        while isinstance(head, ox.BlankNode) and head not in seen:
            seen.add(head)
            yield from self.get(head, RDF.first)[:1]
            rest = self.get(head, RDF.rest)
            head = rest[0] if rest else None

    def expr(self, node: object, depth: int = 0) -> Expr | None:
        """The class expression at ``node``; None for a shape this reader does not know."""
        if isinstance(node, ox.NamedNode):
            return node.value
        if not isinstance(node, ox.BlankNode) or depth > 50:
            return None
        for p, kind in ((OWL.intersectionOf, And), (OWL.unionOf, Or)):
            for head in self.get(node, p):
                items = [self.expr(i, depth + 1) for i in self.items(head)]
                known = tuple(i for i in items if i is not None)
                return kind(known) if len(known) == len(items) else None
        for inner in self.get(node, OWL.complementOf):
            e = self.expr(inner, depth + 1)
            return None if e is None else Not(e)
        props = self.get(node, OWL.onProperty)
        if not props or not isinstance(props[0], ox.NamedNode):
            return None
        for p, quantifier in _QUANTIFIERS.items():
            for value in self.get(node, p):
                if quantifier in ("some", "only"):
                    filler = self.expr(value, depth + 1)
                    count = None
                elif isinstance(value, ox.Literal):
                    on = self.get(node, OWL.onClass)
                    filler = self.expr(on[0], depth + 1) if on else OWL.NS + "Thing"
                    count = int(value.value)
                else:
                    return None
                return None if filler is None else Restriction((props[0].value,), quantifier, filler, count)
        return None


def _values(objs: list[object]) -> tuple[str, ...]:
    return tuple(o.value for o in objs if isinstance(o, ox.NamedNode | ox.Literal))


def read_ontology(store: ReadableStore, name: str) -> OntologyAxioms:
    """The classes and properties of ontology graph ``name`` (``UBERON+extensions``) or its IRI.

    Raises ConfigError naming the graph when the store does not have it.
    """
    graph = name if name.startswith(("http://", "https://")) else ontology_graph(name)
    if not store.contains_named_graph(graph):
        raise ConfigError(f"no ontology graph {name!r} in the store ({graph}); build or load it first")
    g = _Graph(
        (q.subject, q.predicate.value, q.object) for q in store.quads_for_pattern(None, None, None, ox.NamedNode(graph))
    )
    out = OntologyAxioms(graph)
    for subject, props in g.by_subject.items():
        if not isinstance(subject, ox.NamedNode):
            continue
        types = frozenset(_values(props.get(RDF.type, [])))
        ids, labels = _values(props.get(OBOINOWL.id, [])), _values(props.get(RDFS.label, []))
        if OWL.Class in types:
            out.classes[subject.value] = ClassAxioms(
                iri=subject.value,
                id=ids[0] if ids else None,
                label=labels[0] if labels else None,
                values={p: _values(v) for p, v in props.items() if p in _ANNOTATIONS},
                synonyms=tuple((s, t) for p, s in SYNONYM_SCOPES.items() for t in _values(props.get(p, []))),
                parents=_exprs(g, props.get(RDFS.subClassOf, [])),
                equivalents=_exprs(g, props.get(OWL.equivalentClass, [])),
                disjoint=_values(props.get(OWL.disjointWith, [])),
                types=types,
            )
        elif types & {OWL.ObjectProperty, OWL.AnnotationProperty}:
            out.properties[subject.value] = PropertyAxioms(
                iri=subject.value,
                id=ids[0] if ids else None,
                label=labels[0] if labels else None,
                types=types,
                parents=_values(props.get(RDFS.subPropertyOf, [])),
                inverse=_values(props.get(OWL.inverseOf, [])),
                domain=_values(props.get(RDFS.domain, [])),
                range=_values(props.get(RDFS.range, [])),
                xrefs=_values(props.get(OBOINOWL.hasDbXref, [])),
            )
    version = _values(g.get(ox.NamedNode(graph), OWL.versionInfo))
    return OntologyAxioms(graph, out.classes, out.properties, version[0] if version else None)


#: The predicates of the library query ``ontology-axioms`` by the number it gives them (its VALUES table).
AXIOM_PREDICATES = (
    RDF.type,
    RDFS.subClassOf,
    OWL.equivalentClass,
    CRAFT.logicalDefinition,
    RDF.first,
    RDF.rest,
    OWL.intersectionOf,
    OWL.unionOf,
    OWL.complementOf,
    OWL.onProperty,
    OWL.onClass,
    OWL.someValuesFrom,
    OWL.allValuesFrom,
    OWL.qualifiedCardinality,
    OWL.minQualifiedCardinality,
    OWL.maxQualifiedCardinality,
)

_AXIOM_CODES = {str(k): p for k, p in enumerate(AXIOM_PREDICATES)}


@dataclass(frozen=True, slots=True)
class ToldAxioms:
    """The logical axioms of one ontology graph, by class IRI, as :func:`read_told_axioms` reads them.

    ``classes`` are the graph's named ``owl:Class`` subjects (the ``https://w3id.org/craftrdf/ref/``
    placeholders included); ``subclass_of`` and ``equivalents`` their told axioms as class
    expressions (the same as :func:`read_ontology`'s, in the order the store returns them);
    ``derived`` the classes with a ``craft:logicalDefinition``, whose equivalents ingest wrote
    from that text rather than read from the ontology file.
    """

    graph: str
    classes: frozenset[str]
    subclass_of: Mapping[str, tuple[Expr, ...]]
    equivalents: Mapping[str, tuple[Expr, ...]]
    derived: frozenset[str]


def read_told_axioms(store: ReadableStore, name: str) -> ToldAxioms:
    """The logical axioms of ontology graph ``name`` (``UBERON+extensions``) or its IRI, in one query.

    The library query ``ontology-axioms`` reads the axiom triples alone, not the annotations, so
    this costs a fraction of :func:`read_ontology`. A graph the store lacks gives no classes.
    """
    graph = name if name.startswith(("http://", "https://")) else ontology_graph(name)
    rows = store.query(library()["ontology-axioms"].text, named_graphs=[graph])
    assert isinstance(rows, ox.QuerySolutions)
    g = _Graph((s, _AXIOM_CODES[k.value], o) for s, k, o in rows)
    classes: set[str] = set()
    subclass_of: dict[str, tuple[Expr, ...]] = {}
    equivalents: dict[str, tuple[Expr, ...]] = {}
    derived: set[str] = set()
    for subject, props in g.by_subject.items():
        if RDF.type not in props or not isinstance(subject, ox.NamedNode):  # a blank node, or undeclared
            continue
        classes.add(subject.value)
        if props.get(CRAFT.logicalDefinition):
            derived.add(subject.value)
        for into, p in ((subclass_of, RDFS.subClassOf), (equivalents, OWL.equivalentClass)):
            if exprs := _exprs(g, props.get(p, [])):
                into[subject.value] = exprs
    return ToldAxioms(graph, frozenset(classes), subclass_of, equivalents, frozenset(derived))


def _exprs(g: _Graph, nodes: list[object]) -> tuple[Expr, ...]:
    """The class expressions of ``nodes``: named classes in the store's order, then the others sorted.

    An anonymous expression is a blank node, whose place in a scan changes from one build to the
    next; sorted by its text, what is written from it (OBO ``relationship:`` lines) is the same for
    the same ontology every time.
    """
    found = [e for e in (g.expr(n) for n in nodes) if e is not None]
    return tuple(
        [e for e in found if isinstance(e, str)] + sorted((e for e in found if not isinstance(e, str)), key=repr)
    )


#: Annotation predicates kept in :attr:`ClassAxioms.values`.
_ANNOTATIONS = frozenset(
    {
        OBO.definition,
        RDFS.comment,
        OBOINOWL.hasOBONamespace,
        OBOINOWL.hasAlternativeId,
        OBOINOWL.hasDbXref,
        OBOINOWL.inSubset,
        OBOINOWL.consider,
        IAO.replaced_by,
        OWL.deprecated,
        CRAFT.logicalDefinition,
    }
)


#: The store's own bookkeeping about a batch, not part of the ontology.
_MANIFEST = frozenset({CRAFT.digest, CRAFT.companion, CRAFT.relationsGraph})


def ontology_triples(
    store: ReadableStore, name: str, *, subject: ox.NamedNode | ox.BlankNode | None = None
) -> Iterator[ox.Triple]:
    """The triples of ontology graph ``name`` (about ``subject`` only, when given), without the batch manifest.

    ConfigError if the store lacks the graph.
    """
    graph = ontology_graph(name)
    if not store.contains_named_graph(graph):
        raise ConfigError(f"no ontology graph {name!r} in the store ({graph}); build or load it first")
    for q in store.quads_for_pattern(subject, None, None, ox.NamedNode(graph)):
        if q.predicate.value not in _MANIFEST:
            yield q.triple
