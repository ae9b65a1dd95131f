"""``craftrdf classify``: run a reasoner on one ontology graph and store what it infers."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.iris import inferred_graph, ontology_graph
from ...core.rdf import iri, literal, quad
from ...core.vocab import BASE, CRAFT, RDF, RDFS
from ...store.local import ReadableStore, require_writable
from ..owlread import read_ontology
from .structural import StructuralReasoner, classify_structural

logger = logging.getLogger(__name__)

Reasoner = Literal["structural", "hermit"]
_REF = BASE + "ref/"
Edge = tuple[str, str]


@dataclass(frozen=True, slots=True)
class ClassifyReport:
    """What :func:`classify` wrote: the inferred direct edges (IRIs), the graph, the time taken."""

    ontology: str
    reasoner: str
    graph: str
    edges: frozenset[Edge]
    seconds: float

    def extension_edges(self, curies: CurieMap | None = None) -> list[tuple[str, str]]:
        """The edges with an extension class on either side, as sorted CURIE pairs."""
        cm = curies or CurieMap()
        pairs = ((cm.compress(a), cm.compress(b)) for a, b in self.edges)
        return sorted(p for p in pairs if "_EXT:" in p[0] or "_EXT:" in p[1])


def classify(
    store: ReadableStore, ontology: str, *, reasoner: Reasoner = "structural", write: bool = True
) -> ClassifyReport:
    """Classify ontology graph ``ontology`` (``UBERON+extensions``) and store the inferred edges.

    ``structural`` is pure Python (see :mod:`craftrdf.ontology.reasoning.structural`); ``hermit`` needs
    the ``craftrdf[owl]`` extra and Java (ConfigError saying which is missing). With
    ``write`` the edges replace the graph :func:`~craftrdf.core.iris.inferred_graph` of the
    ontology as one batch (the store must be writable), recording the ontology batch's
    digest: once the ontology is rebuilt from other input, the queries that read the
    inferred graph ignore it (stale) until ``classify`` runs again.
    """
    graph = ontology_graph(ontology)
    if not store.contains_named_graph(graph):
        raise ConfigError(f"no ontology graph {ontology!r} in the store ({graph}); build or load it first")
    t0 = time.perf_counter()
    if reasoner == "structural":
        edges = classify_structural(read_ontology(store, ontology))
    elif reasoner == "hermit":
        from .hermit import classify_hermit

        edges = classify_hermit(store, ontology)
    else:
        raise ConfigError(f"unknown reasoner {reasoner!r}: use structural or hermit")
    # classes outside the file that extension definitions name are not part of the hierarchy
    edges = {(c, p) for c, p in edges if not (c.startswith(_REF) or p.startswith(_REF))}
    seconds = time.perf_counter() - t0
    target = inferred_graph(ontology)
    if write:
        writer = require_writable(store, "classify")
        source = store.batches().get(graph)
        source_digest = source.digest if source else ""
        digest = hashlib.sha256(f"{reasoner}\0{source_digest}".encode()).hexdigest()
        writer.remove_batch(target)
        writer.load_batch(target, _lines(target, graph, source_digest, reasoner, edges), digest=digest)
    logger.info("classify %s with %s: %d edges in %.1f s", ontology, reasoner, len(edges), seconds)
    return ClassifyReport(ontology, reasoner, target, frozenset(edges), seconds)


def _lines(target: str, source: str, source_digest: str, reasoner: str, edges: set[Edge]) -> Iterator[str]:
    g = iri(target)
    yield quad(g, iri(RDF.type), iri(CRAFT.InferredGraph), g)
    yield quad(g, iri(CRAFT.inferredFrom), iri(source), g)
    yield quad(g, iri(CRAFT.sourceDigest), literal(source_digest), g)
    yield quad(g, iri(CRAFT.reasoner), literal(reasoner), g)
    sub = iri(RDFS.subClassOf)
    for child, parent in sorted(edges):
        yield quad(iri(child), sub, iri(parent), g)


def compare_placements(store: ReadableStore, ontology: str, hermit: set[Edge]) -> list[Edge]:
    """The HermiT edges the structural reasoner's closure does not entail (its misses)."""
    reasoner = StructuralReasoner(read_ontology(store, ontology))
    reasoner.run()
    reasoner._reset()
    return sorted((a, b) for a, b in hermit if b not in reasoner.ancestors(a))
