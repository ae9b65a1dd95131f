"""The :class:`~craftrdf.ontology.model.OntologyModel` of a store's ontology graph, read once and cached.

Two library queries, both bound to one ontology graph (or over every ontology graph of the
store, merged): ``similarity-graph`` reads the structure (classes, labels, deprecation,
extension classes' logical definitions, the relations graph's edges, the edges a current
``craftrdf classify`` inferred, the parallel extension classes), ``ontology-names`` the
synonyms and text definitions, on first use only; the told axioms (``subclass_of``,
``equivalents``) are read on first use, per graph, by the OWL reader
(:func:`~craftrdf.ontology.owlread.read_told_axioms`, cached on its own: :func:`told_axioms`,
which the official scorer's store graph projects too). Both results are cached per store and
ontology name in a :class:`~craftrdf.ontology.cache.SimilarityCache` (by default the
process-wide one), which forgets a store's entries when its batches change.

Merging (``ontology=None``): a class present in several graphs is one class with the union
of its edges; its label is the first one read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pyoxigraph as ox

from ..core.classexpr import Expr
from ..core.curie import CurieMap
from ..core.errors import ConfigError, QueryError
from ..core.iris import ontology_graph
from ..core.model import SYNONYM_SCOPES, Synonym
from ..core.vocab import CRAFT, OBO, OBOINOWL, OWL, RDF, RDFS
from ..querying.library import library
from ..querying.sets import resolve_ontology
from ..store.local import ReadableStore
from .cache import DEFAULT_CACHE, SimilarityCache
from .model import Axioms, Names, OntologyModel
from .owlread import ToldAxioms, read_told_axioms

logger = logging.getLogger(__name__)

#: The library query that reads a model's structure, and the one that reads its names.
STRUCTURE_QUERY = "similarity-graph"
NAMES_QUERY = "ontology-names"

_REF = "https://w3id.org/craftrdf/ref/"


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
        names_loader=lambda: _names(store, ontology, curie),
        axioms_loader=lambda: _axioms(store, ontology, curie, cache),
    )


def _names(store: ReadableStore, ontology: str | None, curie: Callable[[str], str]) -> Names:
    """Synonyms (sorted by scope, then text: a store keeps no order), text definitions and namespaces by class."""
    synonyms: dict[str, list[Synonym]] = {}
    definitions: dict[str, str] = {}
    namespaces: dict[str, str] = {}
    for _graph, child_t, rel_t, value_t in _solutions(store, NAMES_QUERY, ontology):
        child, rel = curie(child_t.value), rel_t.value
        if rel == OBO.definition:
            definitions.setdefault(child, value_t.value)
        elif rel == OBOINOWL.hasOBONamespace:
            namespaces.setdefault(child, value_t.value)
        else:
            synonyms.setdefault(child, []).append(Synonym(value_t.value, SYNONYM_SCOPES[rel]))
    order = {s: i for i, s in enumerate(SYNONYM_SCOPES.values())}
    out = {c: tuple(sorted(set(ss), key=lambda s: (order[s.scope], s.text))) for c, ss in synonyms.items()}
    return out, definitions, namespaces


def told_axioms(store: ReadableStore, name: str, cache: SimilarityCache | None = DEFAULT_CACHE) -> ToldAxioms:
    """The logical axioms of ontology graph ``name`` or its IRI (:func:`read_told_axioms`), read once per store.

    Cached per store and graph like the model (``cache=None`` reads afresh): the model's told
    axioms and the official scorer's graph of one store share the read.
    """
    graph = name if name.startswith(("http://", "https://")) else ontology_graph(name)
    entries = cache.entries(store) if cache is not None else {}
    hit = entries.get(("axioms", graph))
    if not isinstance(hit, ToldAxioms):
        hit = entries[("axioms", graph)] = read_told_axioms(store, graph)
    return hit


def _axioms(
    store: ReadableStore, ontology: str | None, curie: Callable[[str], str], cache: SimilarityCache | None
) -> Axioms:
    """Told superclasses and equivalents by class, from each graph's OWL axioms (:func:`told_axioms`)."""
    prefix = ontology_graph("")
    names = [ontology] if ontology else [g[len(prefix) :] for g in sorted(store.batches()) if g.startswith(prefix)]
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
