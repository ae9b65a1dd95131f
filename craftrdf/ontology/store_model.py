"""The :class:`~craftrdf.ontology.model.OntologyModel` of a store's ontology graph, read once and cached.

Three reads, each a library query: ``similarity-graph``, bound to one ontology graph (or over
every ontology graph of the store, merged), reads the structure (classes, labels, deprecation,
extension classes' logical definitions, the relations graph's edges, the edges a current
``craftrdf classify`` inferred, the parallel extension classes) when the model is made; the
names (:func:`ontology_names`: ``ontology-names``, one query per graph) and the told axioms
(:func:`told_axioms`: the OWL reader's ``ontology-axioms``, one per graph) on first use. The
names and the told axioms are each read once per store and graph and shared: the dictionary
matcher's terms are made from the same names (:func:`~craftrdf.matching.matcher.dictionary.fetch_terms`),
the official scorer's store graph from the same told axioms. Everything is cached per store in
a :class:`~craftrdf.ontology.cache.SimilarityCache` (by default on the store object itself),
which forgets a store's entries when its batches change.

Merging (``ontology=None``): a class present in several graphs is one class with the union
of its edges; its label is the first one read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import pyoxigraph as ox

from ..core.classexpr import Expr
from ..core.curie import CurieMap
from ..core.errors import ConfigError, QueryError
from ..core.iris import ontology_graph
from ..core.model import SYNONYM_SCOPES, Synonym
from ..core.vocab import CRAFT, OWL, RDF, RDFS
from ..querying.library import library
from ..querying.sets import resolve_ontology
from ..store.local import ReadableStore
from .cache import DEFAULT_CACHE, SimilarityCache
from .model import Axioms, Names, OntologyModel
from .owlread import ToldAxioms, read_told_axioms

logger = logging.getLogger(__name__)

#: The library query that reads a model's structure, and the one that reads a graph's names.
STRUCTURE_QUERY = "similarity-graph"
NAMES_QUERY = "ontology-names"
DEFINITIONS_QUERY = "ontology-definitions"
#: The kinds of ``ontology-names`` rows that carry a name: a label, then the synonym scopes.
NAME_KINDS = ("LABEL", *SYNONYM_SCOPES.values())

_REF = "https://w3id.org/craftrdf/ref/"
_Read = TypeVar("_Read")


def read_store_model(
    store: ReadableStore,
    ontology: str | None = None,
    *,
    curies: CurieMap | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
) -> OntologyModel:
    """The model of ontology graph ``ontology`` (``UBERON+extensions``), or of every ontology graph merged.

    Cached per store and ontology (``cache=None`` reads afresh); the names (synonyms, text
    definitions) are read on first use and cached with it. ConfigError (listing the store's
    ontology graphs) when the named graph is not in the store.
    """
    entries = cache.entries(store) if cache is not None else {}
    key = ("model", ontology)
    hit = entries.get(key)
    if isinstance(hit, OntologyModel):
        return hit
    model = _read(store, ontology, curies or CurieMap(), cache)
    entries[key] = model
    return model


def _solutions(store: ReadableStore, name: str, ontology: str | None) -> ox.QuerySolutions:
    subs = {"graph": ox.NamedNode(ontology_graph(ontology))} if ontology else None
    try:
        solutions = store.query(library()[name].text, substitutions=subs)
    except (SyntaxError, RuntimeError) as exc:  # pragma: no cover - the queries are tested
        raise QueryError(f"query {name} failed: {exc}") from None
    assert isinstance(solutions, ox.QuerySolutions)
    return solutions


def _read(store: ReadableStore, ontology: str | None, curies: CurieMap, cache: SimilarityCache | None) -> OntologyModel:
    if ontology:
        resolve_ontology(store, ontology)  # a name the store lacks: the error lists those it has
    names: dict[str, str] = {}

    def curie(iri: str) -> str:
        c = names.get(iri)
        if c is None:
            c = names[iri] = curies.compress(iri)
        return c

    classes: set[str] = set()
    edges: set[tuple[str, str, str]] = set()
    labels: dict[str, str] = {}
    definitions: dict[str, str] = {}
    parallel: dict[str, str] = {}
    deprecated: set[str] = set()
    graphs: set[str] = set()
    for _graph, child_t, rel_t, parent_t in _solutions(store, STRUCTURE_QUERY, ontology):
        graphs.add(_graph.value)
        child, rel, value = curie(child_t.value), rel_t.value, parent_t.value
        if rel == RDF.type:
            classes.add(child)
        elif rel == RDFS.label:
            labels.setdefault(child, value)
        elif rel == CRAFT.logicalDefinition:
            definitions[child] = value
        elif rel == OWL.deprecated:
            if value == "true":
                deprecated.add(child)
        elif rel == CRAFT.parallelOf:
            parallel[child] = curie(value)
        else:
            edges.add((child, rel, curie(value)))
    if ontology and not graphs:
        raise ConfigError(f"no ontology graph {ontology!r} in the store ({ontology_graph(ontology)})")
    logger.info(
        "ontology model %s: %d classes, %d edges, %d parallel classes, from %d graph(s)",
        ontology or "(all ontologies)",
        len(classes),
        len(edges),
        len(parallel),
        len(graphs),
    )
    return OntologyModel(
        ontology=ontology,
        source=f"store graph {ontology_graph(ontology) if ontology else 'every ontology graph'}",
        classes=frozenset(classes),
        edges=frozenset(edges),
        labels=labels,
        logical_definitions=definitions,
        parallel={p: b for p, b in parallel.items() if p not in classes},
        deprecated=frozenset(deprecated),
        curies=curies,
        names_loader=lambda: _names(store, ontology, curie, cache),
        axioms_loader=lambda: _axioms(store, ontology, curie, cache),
    )


@dataclass(frozen=True, slots=True)
class GraphNames:
    """The names of one ontology graph's classes by class IRI, as ``ontology-names`` reads them.

    ``classes`` are the declared classes, ``deprecated`` the obsolete ones; ``values[kind][iri]``
    every value of a class of that kind (``LABEL``, ``EXACT``, ``BROAD``, ``NARROW``, ``RELATED``,
    ``NAMESPACE``), in the order the store gave them. Made by :func:`ontology_names`.
    """

    graph: str
    classes: frozenset[str]
    deprecated: frozenset[str]
    values: Mapping[str, Mapping[str, tuple[str, ...]]]

    def of(self, kind: str) -> Mapping[str, tuple[str, ...]]:
        """The values of ``kind`` by class IRI (empty when the graph has none)."""
        return self.values.get(kind, {})


def _per_graph(
    store: ReadableStore,
    name: str,
    cache: SimilarityCache | None,
    kind: type[_Read],
    read: Callable[[ReadableStore, str], _Read],
) -> _Read:
    """``read(store, graph IRI)`` for ontology graph ``name`` (or its IRI), cached per store, graph and kind."""
    graph = name if name.startswith(("http://", "https://")) else ontology_graph(name)
    entries = cache.entries(store) if cache is not None else {}
    hit = entries.get((kind.__name__, graph))
    if not isinstance(hit, kind):
        hit = entries[(kind.__name__, graph)] = read(store, graph)
    return hit


def ontology_names(store: ReadableStore, name: str, cache: SimilarityCache | None = DEFAULT_CACHE) -> GraphNames:
    """The names of ontology graph ``name`` (``UBERON+extensions``) or its IRI, read once per store.

    Cached per store and graph like the model (``cache=None`` reads afresh): the model's synonyms,
    definitions and namespaces and the matcher's dictionary terms share the read.
    """
    return _per_graph(store, name, cache, GraphNames, _read_names)


def _graph_rows(store: ReadableStore, name: str, graph: str) -> ox.QuerySolutions:
    """Library query ``name`` on the one graph ``graph`` (the dataset restricted to it)."""
    try:
        solutions = store.query(library()[name].text, named_graphs=[graph])
    except (SyntaxError, RuntimeError) as exc:  # pragma: no cover - the queries are tested
        raise QueryError(f"query {name} failed: {exc}") from None
    assert isinstance(solutions, ox.QuerySolutions)
    return solutions


def _read_names(store: ReadableStore, graph: str) -> GraphNames:
    classes: set[str] = set()
    deprecated: set[str] = set()
    values: dict[str, dict[str, list[str]]] = {}
    for cls, kind, value in _graph_rows(store, NAMES_QUERY, graph):
        if kind.value == "CLASS":
            classes.add(cls.value)
        elif kind.value == "DEPRECATED":
            deprecated.add(cls.value)
        else:
            values.setdefault(kind.value, {}).setdefault(cls.value, []).append(value.value)
    frozen = {k: {c: tuple(v) for c, v in by_class.items()} for k, by_class in values.items()}
    return GraphNames(graph, frozenset(classes), frozenset(deprecated), frozen)


def _graph_names(store: ReadableStore, ontology: str | None) -> list[str]:
    """``[ontology]``, or every ontology graph's name of the store (sorted) for ``None``."""
    if ontology:
        return [ontology]
    prefix = ontology_graph("")
    return [g[len(prefix) :] for g in sorted(store.batches()) if g.startswith(prefix)]


def _names(
    store: ReadableStore, ontology: str | None, curie: Callable[[str], str], cache: SimilarityCache | None
) -> Names:
    """Synonyms (sorted by scope, then text: a store keeps no order), text definitions and namespaces by class.

    Of each graph's declared classes (:func:`ontology_names`, and ``ontology-definitions`` for the
    definitions), merged over graphs in name order.
    """
    synonyms: dict[str, set[Synonym]] = {}
    definitions: dict[str, str] = {}
    namespaces: dict[str, str] = {}
    for name in _graph_names(store, ontology):
        names = ontology_names(store, name, cache)
        for scope in SYNONYM_SCOPES.values():
            for iri, texts in names.of(scope).items():
                if iri in names.classes:
                    synonyms.setdefault(curie(iri), set()).update(Synonym(t, scope) for t in texts)
        for iri, texts in names.of("NAMESPACE").items():
            if iri in names.classes:
                namespaces.setdefault(curie(iri), texts[0])
        for cls, text in _graph_rows(store, DEFINITIONS_QUERY, names.graph):
            definitions.setdefault(curie(cls.value), text.value)
    order = {s: i for i, s in enumerate(SYNONYM_SCOPES.values())}
    out = {c: tuple(sorted(ss, key=lambda s: (order[s.scope], s.text))) for c, ss in synonyms.items()}
    return out, definitions, namespaces


def told_axioms(store: ReadableStore, name: str, cache: SimilarityCache | None = DEFAULT_CACHE) -> ToldAxioms:
    """The logical axioms of ontology graph ``name`` or its IRI (:func:`read_told_axioms`), read once per store.

    Cached per store and graph like the model (``cache=None`` reads afresh): the model's told
    axioms and the official scorer's graph of one store share the read.
    """
    return _per_graph(store, name, cache, ToldAxioms, read_told_axioms)


def _axioms(
    store: ReadableStore, ontology: str | None, curie: Callable[[str], str], cache: SimilarityCache | None
) -> Axioms:
    """Told superclasses and equivalents by class, from each graph's OWL axioms (:func:`told_axioms`)."""
    names = _graph_names(store, ontology)
    subclass_of: dict[str, list[Expr]] = {}
    equivalents: dict[str, list[Expr]] = {}
    for name in names:
        told = told_axioms(store, name, cache)
        for into, by_class in ((subclass_of, told.subclass_of), (equivalents, told.equivalents)):
            for iri, exprs in by_class.items():
                if not iri.startswith(_REF):
                    row = into.setdefault(curie(iri), [])
                    row.extend(e for e in exprs if e not in row)
    return (
        {c: tuple(es) for c, es in subclass_of.items() if es},
        {c: tuple(es) for c, es in equivalents.items() if es},
    )
