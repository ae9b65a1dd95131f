"""The ontology graph out of the store, and a Wang index over it, cached per store.

One SPARQL query (``querying/queries/similarity-graph.rq``) reads everything similarity needs
from one ontology graph, or from every ontology graph of the store merged: the
classes, their relations, labels, deprecation flags, extension classes' logical
definitions, and the parallel extension classes. :func:`load_term_graph` turns the rows
into a :class:`TermGraph` (CURIEs throughout); :func:`similarity_index` weights it for
a method and builds a :class:`~craftrdf.analysis.similarity.wang.WangIndex`.

Both are cached per store (weakly: the cache goes with the store object) and per
``(ontology, relation weights, classify_extensions)``; a change of the store's batches
(a build or load that wrote something) empties that store's cache.

Decisions:

- ``ontology=None`` merges every ontology graph (``UBERON``, ``UBERON+extensions``,
  ``CL``, ...): a class present in several graphs is one node, with the union of its
  edges. Name a graph (``ontology="UBERON+extensions"``) to work on that file alone;
  on a large on-disk store that is also much faster to read.
- Parallel extension classes (``SO_EXT:0000704``) are aliases of their base class
  (``craft:parallelOf``): the same node, so Sim(SO_EXT:0000704, SO:0000704) = 1 and
  each compares with other terms as its base does. The CRAFT Shared Task scores
  parallel classes under their base id; this does the same.
- Relations are named as in OBO: ``is_a`` (``rdfs:subClassOf``), a standard relation
  name (``part_of``, ``develops_from``, ... as in :data:`craftrdf.ingest.ontology.RELATION_IRIS`),
  a CURIE (``BFO:0000050``) or an IRI.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Literal

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError, QueryError
from ...core.iris import ontology_graph
from ...core.vocab import CRAFT, OWL, RDF, RDFS
from ...ingest.ontology import RELATION_IRIS
from ...querying.sets import resolve_ontology
from ...store.local import ReadableStore
from .definition import BOSSY_WEIGHTS, DEFAULT_RELATION_WEIGHT, DEFAULT_WEIGHTS, Engine, weighted_dag
from .wang import WangIndex

if TYPE_CHECKING:
    from ...ontology.owlread import OntologyAxioms

logger = logging.getLogger(__name__)

#: The library query (``queries/<name>.rq``) that reads the graph.
GRAPH_QUERY = "similarity-graph"

Method = Literal["wang", "bossy"]

_ONTOLOGY_PREFIX = "https://w3id.org/craftrdf/ontology/"


@dataclass(frozen=True, slots=True)
class TermGraph:
    """What :data:`GRAPH_QUERY` returns for one ontology graph (or all, merged), as CURIEs.

    ``edges`` are ``(child, relation IRI, parent)``; ``parallel`` maps a parallel
    extension class to its base class; ``definitions`` holds extension classes'
    logical definitions (``craft:logicalDefinition``) verbatim.
    """

    ontology: str | None
    classes: frozenset[str]
    edges: frozenset[tuple[str, str, str]]
    labels: Mapping[str, str] = field(default_factory=dict)
    definitions: Mapping[str, str] = field(default_factory=dict)
    parallel: Mapping[str, str] = field(default_factory=dict)
    deprecated: frozenset[str] = frozenset()


def relation_iri(name: str, curies: CurieMap | None = None) -> str:
    """The predicate IRI of a relation named as in OBO.

    >>> relation_iri("is_a")
    'http://www.w3.org/2000/01/rdf-schema#subClassOf'
    >>> relation_iri("part_of")
    'http://purl.obolibrary.org/obo/BFO_0000050'
    >>> relation_iri("RO:0002202")
    'http://purl.obolibrary.org/obo/RO_0002202'
    """
    if name == "is_a":
        return RDFS.subClassOf
    known = RELATION_IRIS.get(name)
    if known is not None:
        return known
    cm = curies or CurieMap()
    if name.startswith(("http://", "https://")) or cm.is_curie(name):
        return cm.expand(name)
    raise ConfigError(
        f"unknown relation {name!r}: use is_a, an OBO relation name "
        f"({', '.join(sorted(RELATION_IRIS)[:4])}, ...), a CURIE or an IRI"
    )


def parse_weights(spec: str) -> dict[str, float]:
    """Relation weights from ``is_a=0.8,part_of=0.6``; a name alone takes its default.

    The default is the paper's (is_a 0.8, part_of 0.6) and, for any other relation,
    :data:`~craftrdf.analysis.similarity.definition.DEFAULT_RELATION_WEIGHT` (0.6). Only the relations
    named are followed. ConfigError for a malformed item or a weight outside (0, 1].

    >>> parse_weights("is_a=0.7,part_of,develops_from")
    {'is_a': 0.7, 'part_of': 0.6, 'develops_from': 0.6}
    """
    out: dict[str, float] = {}
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        name, sep, value = (p.strip() for p in item.partition("="))
        if not name:
            raise ConfigError(f"--weights expects NAME[=WEIGHT],..., got {item!r}")
        if sep:
            try:
                w = float(value)
            except ValueError:
                raise ConfigError(f"weight of {name!r} is not a number: {value!r}") from None
        else:
            w = DEFAULT_WEIGHTS.get(name, DEFAULT_RELATION_WEIGHT)
        if not 0.0 < w <= 1.0:
            raise ConfigError(f"weight of {name!r} must be in (0, 1], got {w}")
        out[name] = w
    if not out:
        raise ConfigError("--weights names no relation")
    return out


def method_weights(method: Method = "wang", weights: Mapping[str, float] | None = None) -> dict[str, float]:
    """The relation weights of a method: ``wang`` (the paper's, or ``weights``) or ``bossy``.

    >>> method_weights("bossy")
    {'is_a': 0.65}
    """
    if method == "wang":
        return dict(weights) if weights else dict(DEFAULT_WEIGHTS)
    if method == "bossy":
        if weights:
            raise ConfigError("method bossy has fixed weights (is_a=0.65); use method wang to set weights")
        return dict(BOSSY_WEIGHTS)
    raise ConfigError(f"unknown similarity method {method!r}: use wang or bossy")


def _graph_query() -> str:
    return resources.files("craftrdf.querying.queries").joinpath(GRAPH_QUERY + ".rq").read_text(encoding="utf-8")


def _read_graph(store: ReadableStore, ontology: str | None, curies: CurieMap) -> TermGraph:
    if ontology:
        resolve_ontology(store, ontology)  # a name the store lacks: the error lists those it has
    subs = {"graph": ox.NamedNode(ontology_graph(ontology))} if ontology else None
    try:
        solutions = store.query(_graph_query(), substitutions=subs)
    except (SyntaxError, RuntimeError) as exc:  # pragma: no cover - the query is tested
        raise QueryError(f"query {GRAPH_QUERY} failed: {exc}") from None
    assert isinstance(solutions, ox.QuerySolutions)
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
    for _graph, child_t, rel_t, parent_t in solutions:
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
        "similarity graph %s: %d classes, %d edges, %d parallel classes, from %d graph(s)",
        ontology or "(all ontologies)",
        len(classes),
        len(edges),
        len(parallel),
        len(graphs),
    )
    return TermGraph(
        ontology,
        frozenset(classes),
        frozenset(edges),
        labels,
        definitions,
        {p: b for p, b in parallel.items() if p not in classes},
        frozenset(deprecated),
    )


class SimilarityCache:
    """Term graphs and indexes per store, weakly keyed by the store object.

    A store's entries are dropped when its batches change (their digests are the
    fingerprint), so a cache never serves a graph the store no longer holds.
    """

    def __init__(self) -> None:
        self._stores: weakref.WeakKeyDictionary[
            ReadableStore, tuple[frozenset[tuple[str, str]], dict[object, object]]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def entries(self, store: ReadableStore) -> dict[object, object]:
        """The cache dictionary of ``store``, emptied first if its batches changed."""
        fingerprint = frozenset((b.graph, b.digest) for b in store.batches().values())
        with self._lock:
            held = self._stores.get(store)
            if held is None or held[0] != fingerprint:
                held = (fingerprint, {})
                self._stores[store] = held
            return held[1]

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._stores.clear()


#: The cache used when none is passed.
DEFAULT_CACHE = SimilarityCache()


def load_term_graph(
    store: ReadableStore,
    *,
    ontology: str | None = None,
    curies: CurieMap | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
) -> TermGraph:
    """The :class:`TermGraph` of one ontology graph by name (``UBERON+extensions``) or of all.

    One query; cached per store and ontology (``cache=None`` reads afresh).
    Raises ConfigError when the named graph is not in the store.
    """
    entries = cache.entries(store) if cache is not None else {}
    key = ("graph", ontology)
    hit = entries.get(key)
    if isinstance(hit, TermGraph):
        return hit
    graph = _read_graph(store, ontology, curies or CurieMap())
    entries[key] = graph
    return graph


def similarity_index(
    store: ReadableStore,
    *,
    method: Method = "wang",
    weights: Mapping[str, float] | None = None,
    ontology: str | None = None,
    classify_extensions: bool = False,
    curies: CurieMap | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
    engine: Engine = "auto",
    placements: Sequence[tuple[str, str]] | None = None,
) -> WangIndex:
    """A :class:`WangIndex` over the store's ontology graph, for ``method`` and ``weights``.

    ``weights`` maps relation names to weights (``{"is_a": 0.8, "part_of": 0.6}``, the
    default of method ``wang``); only those relations are followed. Method ``bossy``
    is is_a only at 0.65. With ``classify_extensions``, extension classes are placed by
    their logical definitions first: union classes as
    :func:`craftrdf.ontology.extensions.place_extensions` does, and every parent the
    structural reasoner (:mod:`craftrdf.ontology.reasoning.structural`, from the OWL axioms:
    intersections too) finds for an extension class. Placements stored by
    ``craftrdf classify`` are read with the graph in any case. Terms are CURIEs;
    parallel extension classes are aliases of their base. Deprecated classes are in the
    index but not offered by ``top_k``. ``engine`` is :class:`WangIndex`'s (compiled
    kernels when numba works, by default). Cached per store and
    ``(ontology, weights, classify_extensions, engine)``. ``placements``: with a named
    ``ontology``, the structural reasoner's placements of it computed beforehand (:func:`structural_placements`
    of this store's ontology, on a worker process say); None computes them here when needed.

    Raises ConfigError (bad method, weights or ontology), CycleError when the chosen
    relations form a cycle.
    """
    from ...ontology.extensions import place_extensions

    w = method_weights(method, weights)
    entries = cache.entries(store) if cache is not None else {}
    key = ("index", ontology, tuple(sorted(w.items())), classify_extensions, engine)
    hit = entries.get(key)
    if isinstance(hit, WangIndex):
        return hit
    cm = curies or CurieMap()
    graph = load_term_graph(store, ontology=ontology, curies=cm, cache=cache)
    by_iri = {relation_iri(name, cm): weight for name, weight in w.items()}
    edges: list[tuple[str, str, str]] = list(graph.edges)
    if classify_extensions:
        report = place_extensions(graph)
        edges.extend((child, RDFS.subClassOf, parent) for child, parent in report.edges())
        if placements is not None and ontology is not None:
            entries.setdefault(("placements", ontology), list(placements))
        edges.extend((c, RDFS.subClassOf, p) for c, p in _reasoned_placements(store, ontology, cm, entries))
    dag = weighted_dag(edges, by_iri, nodes=graph.classes)
    aliases = {p: b for p, b in graph.parallel.items() if b in dag}
    index = WangIndex(dag, aliases=aliases, labels=graph.labels, excluded=graph.deprecated, engine=engine)
    entries[key] = index
    return index


def _reasoned_placements(
    store: ReadableStore, ontology: str | None, curies: CurieMap, entries: dict[object, object]
) -> list[tuple[str, str]]:
    """The structural reasoner's edges from an extension class to its new parents, as CURIEs (cached)."""
    from ...ontology.owlread import read_ontology

    key = ("placements", ontology)
    hit = entries.get(key)
    if isinstance(hit, list):
        return hit
    prefix = _ONTOLOGY_PREFIX
    names = [ontology] if ontology else [g[len(prefix) :] for g in store.batches() if g.startswith(prefix)]
    out: list[tuple[str, str]] = []
    for name in names:
        out.extend(structural_placements(read_ontology(store, name), curies))
    entries[key] = out
    return out


def structural_placements(onto: OntologyAxioms, curies: CurieMap | None = None) -> list[tuple[str, str]]:
    """The structural reasoner's edges ``(extension class, new parent)`` of one ontology, as CURIEs.

    What ``classify_extensions`` adds beside :func:`~craftrdf.ontology.extensions.place_extensions`;
    ``onto`` is :func:`craftrdf.ontology.owlread.read_ontology`'s (it pickles, so this can run in another process).
    """
    from ...ontology.reasoning.structural import classify_structural

    cm = curies or CurieMap()
    out: list[tuple[str, str]] = []
    for child, parent in classify_structural(onto):
        c, p = cm.compress(child), cm.compress(parent)
        # extension classes placed (union members under their union are place_extensions' part)
        if "_EXT:" in c and "/craftrdf/ref/" not in parent:
            out.append((c, p))
    return out
