"""The ontology graph out of the store, and a Wang index over it, cached per store.

Similarity's graph is a projection of the store's ontology model
(:func:`craftrdf.ontology.store_model.read_store_model`: one ontology graph, or every ontology
graph of the store merged): the classes, their relations, labels, deprecation flags,
extension classes' logical definitions, and the parallel extension classes.
:func:`load_term_graph` gives it as a :class:`TermGraph` (CURIEs throughout);
:func:`wang_index` weights it (an :class:`IndexSpec`) for a method and builds a
:class:`~craftrdf.analysis.similarity.wang.WangIndex`.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ...core.context import RunContext
from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.vocab import RDFS
from ...ontology.cache import DEFAULT_CACHE, SimilarityCache
from ...ontology.model import OntologyModel, relation_iri
from ...ontology.placement import place_in_store
from ...ontology.store_model import STRUCTURE_QUERY, read_store_model
from ...store.local import ReadableStore
from .definition import BOSSY_WEIGHTS, DEFAULT_RELATION_WEIGHT, DEFAULT_WEIGHTS, Engine, weighted_dag
from .persist import index_key, load_index, save_index
from .wang import WangIndex

logger = logging.getLogger(__name__)

#: The library query (``queries/<name>.rq``) that reads the graph (the ontology model's structure).
GRAPH_QUERY = STRUCTURE_QUERY

Method = Literal["wang", "bossy"]


@dataclass(frozen=True, slots=True)
class TermGraph:
    """The ontology model's fields similarity reads, for one ontology graph (or all, merged), as CURIEs.

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


def load_term_graph(
    store: ReadableStore,
    *,
    ontology: str | None = None,
    curies: CurieMap | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
) -> TermGraph:
    """The :class:`TermGraph` of one ontology graph by name (``UBERON+extensions``) or of all.

    The projection of :func:`craftrdf.ontology.store_model.read_store_model`'s model; cached per
    store and ontology (``cache=None`` reads afresh).
    Raises ConfigError when the named graph is not in the store.
    """
    entries = cache.entries(store) if cache is not None else {}
    key = ("graph", ontology)
    hit = entries.get(key)
    if isinstance(hit, TermGraph):
        return hit
    model = read_store_model(store, ontology, curies=curies, cache=cache)
    graph = entries[key] = term_graph(model)
    return graph


def term_graph(model: OntologyModel) -> TermGraph:
    """The :class:`TermGraph` projection of an ontology model (its fields, shared, not copied)."""
    return TermGraph(
        model.ontology,
        model.classes,
        model.edges,
        model.labels,
        model.logical_definitions,
        model.parallel,
        model.deprecated,
    )


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """Which Wang index to build: method and relation weights, ontology graph, extension placement, engine.

    The fields are :func:`craftrdf.similarity_index`'s keywords of the same names: ``weights`` maps
    relation names to weights (method ``wang`` only; None: the paper's is_a 0.8, part_of 0.6),
    ``ontology`` names one ontology graph (None merges them all), ``engine`` is :class:`WangIndex`'s.
    """

    method: Method = "wang"
    weights: Mapping[str, float] | None = None
    ontology: str | None = None
    classify_extensions: bool = False
    engine: Engine = "auto"


#: Method wang with the paper's weights (is_a 0.8, part_of 0.6) over every ontology graph merged.
DEFAULT_SPEC = IndexSpec()


def wang_index(
    store: ReadableStore,
    spec: IndexSpec = DEFAULT_SPEC,
    ctx: RunContext | None = None,
    *,
    cache: SimilarityCache | None = DEFAULT_CACHE,
    placements: Sequence[tuple[str, str]] | None = None,
) -> WangIndex:
    """A :class:`WangIndex` over the store's ontology graph, as ``spec`` says (:func:`craftrdf.similarity_index`).

    ``weights`` maps relation names to weights (``{"is_a": 0.8, "part_of": 0.6}``, the
    default of method ``wang``); only those relations are followed. Method ``bossy``
    is is_a only at 0.65. With ``classify_extensions``, extension classes are placed by
    their logical definitions first (:func:`craftrdf.ontology.placement.place_in_store`: union
    classes, and every parent the structural reasoner finds for an extension class). Placements stored by
    ``craftrdf classify`` are read with the graph in any case. Terms are CURIEs;
    parallel extension classes are aliases of their base. Deprecated classes are in the
    index but not offered by ``top_k``. ``engine`` is :class:`WangIndex`'s (compiled
    kernels when numba works, by default). Cached per store and
    ``(ontology, weights, classify_extensions, engine)``. ``placements``: with a named
    ``ontology``, the structural reasoner's placements of it computed beforehand
    (:func:`~craftrdf.ontology.placement.reasoned_placements` of this store's ontology, on a worker
    process say); None computes them here when needed.

    ``ctx``: the run's CURIE map (``ctx.curies``; None: a new :class:`CurieMap`) and
    ``ctx.cache_dir`` (:func:`craftrdf.analysis.similarity.persist.default_cache_dir`, say): keep the
    built index on disk there, keyed by the digests of the store's ontology graphs, and read it back
    in the next process instead of the graph (:mod:`craftrdf.analysis.similarity.persist`). Every map
    gives the same CURIEs (the :class:`CurieMap` contract), so the index on disk serves any ``ctx``.

    Raises ConfigError (bad method, weights or ontology), CycleError when the chosen
    relations form a cycle.
    """
    method, weights, ontology = spec.method, spec.weights, spec.ontology
    classify_extensions, engine = spec.classify_extensions, spec.engine
    cache_dir = ctx.cache_dir if ctx is not None else None
    w = method_weights(method, weights)
    entries = cache.entries(store) if cache is not None else {}
    key = ("index", ontology, tuple(sorted(w.items())), classify_extensions, engine)
    hit = entries.get(key)
    if isinstance(hit, WangIndex):
        return hit
    disk_key = None
    if cache_dir is not None:
        disk_key = index_key(
            store, ontology=ontology, weights=w, classify_extensions=classify_extensions, engine=engine
        )
        loaded = load_index(cache_dir, disk_key)
        if loaded is not None:
            entries[key] = loaded
            return loaded
    cm = ctx.curies if ctx is not None else CurieMap()
    model = read_store_model(store, ontology, curies=cm, cache=cache)
    graph = term_graph(model)
    by_iri = {relation_iri(name, cm): weight for name, weight in w.items()}
    edges: list[tuple[str, str, str]] = list(graph.edges)
    if classify_extensions:
        report = place_in_store(store, ontology, curies=cm, cache=cache, reasoned=placements, model=model)
        edges.extend((child, RDFS.subClassOf, parent) for child, parent in report.edges())
    dag = weighted_dag(edges, by_iri, nodes=graph.classes)
    aliases = {p: b for p, b in graph.parallel.items() if b in dag}
    index = WangIndex(dag, aliases=aliases, labels=graph.labels, excluded=graph.deprecated, engine=engine)
    entries[key] = index
    if cache_dir is not None and disk_key is not None:
        # saved only if no writer changed the ontologies while the graph was read: never a stale entry
        now = index_key(store, ontology=ontology, weights=w, classify_extensions=classify_extensions, engine=engine)
        if now == disk_key:
            save_index(cache_dir, disk_key, index)
    return index
