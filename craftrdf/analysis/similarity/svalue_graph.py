"""Wang similarity for any SPARQL 1.1 server: each class's S-values written into the store as triples.

``craftrdf similarity --materialize`` writes, for one ontology graph (or all, merged) and one
weight setting, a batch ``https://w3id.org/craftrdf/derived/svalues/<ontology>/<weights>``
holding every class's S-values (Wang et al. 2007: the weight of each ancestor t of a class A,
the largest product of edge weights on a path from A to t, 1 for A itself), one triple each::

    <A> <level> <t> .                         # S_A(t) is the value of the level
    <level> a craft:SValueLevel ; craft:sValue "0.64"^^xsd:double .

A level stands for one distinct S-value (products of a few weights: a few hundred of them), so
a class's S-values cost one triple per ancestor. The library query ``wang-svalues`` then computes
Sim(A, B) = sum over common t of (S_A(t) + S_B(t)) / (SV(A) + SV(B)) with ``SUM`` alone, on
any SPARQL 1.1 server that holds the batch (Virtuoso, QLever, an Oxigraph server). The values
are those of :class:`~craftrdf.analysis.similarity.wang.WangIndex` (the same index ``craftrdf similarity``
uses), written with 17 significant digits; a parallel extension class gets its base class's rows.

The batch's digest is made of the digests of the ontology batches it was computed from and the
weights, so re-running writes nothing, and a rebuilt ontology makes it be rewritten.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ...core.curie import CurieMap
from ...core.iris import ontology_graph
from ...core.rdf import iri, literal, mint, quad
from ...core.vocab import BASE, CRAFT, RDF, XSD
from ...store.local import ReadableStore, WritableStore
from .graph import IndexSpec, method_weights, wang_index
from .wang import WangIndex

logger = logging.getLogger(__name__)

#: Changes when the shape of the batch changes (its digest then changes too).
_VERSION = b"svalues-1"


def weights_text(weights: Mapping[str, float]) -> str:
    """The weights as one canonical string, sorted: ``is_a=0.8,part_of=0.6``.

    >>> weights_text({"part_of": 0.6, "is_a": 0.8})
    'is_a=0.8,part_of=0.6'
    """
    return ",".join(f"{name}={weight!r}" for name, weight in sorted(weights.items()))


def svalue_graph(ontology: str | None, weights: Mapping[str, float]) -> str:
    """The graph IRI of the S-values of ``ontology`` (None: every ontology graph merged, ``all``) and ``weights``.

    >>> svalue_graph("UBERON", {"is_a": 0.8, "part_of": 0.6})
    'https://w3id.org/craftrdf/derived/svalues/UBERON/is_a%3D0.8%2Cpart_of%3D0.6'
    """
    return mint(BASE, "derived", "svalues", ontology or "all", weights_text(weights))


@dataclass(frozen=True, slots=True)
class SValueReport:
    """What :func:`materialize_svalues` wrote: the graph, its size, and the time spent.

    ``triples`` counts the lines written (0 when the batch was there already); ``classes`` the
    classes with S-values, aliases included; ``svalues`` the S-value triples; ``levels`` the
    distinct values; ``seconds`` the whole run (index, serialization, write).
    """

    graph: str
    classes: int
    svalues: int
    levels: int
    triples: int
    seconds: float


def svalue_lines(index: WangIndex, graph: str, *, curies: CurieMap | None = None) -> Iterator[str]:
    """The N-Quads lines of ``index``'s S-values in ``graph`` (see the module docstring), the levels first."""
    cm = curies or CurieMap()
    g = iri(graph)
    levels: dict[float, str] = {}
    rows: list[tuple[str, dict[str, float]]] = [(t, index.semantic_values(t)) for t in index.terms]
    for _, values in rows:
        for v in values.values():
            levels.setdefault(v, f"{graph}#s{len(levels)}")
    for v, level in levels.items():
        yield quad(iri(level), iri(RDF.type), iri(CRAFT.SValueLevel), g)
        yield quad(iri(level), iri(CRAFT.sValue), f'"{v!r}"^^<{XSD.double}>', g)
    names = {t: iri(cm.expand(t)) for t in index.terms}
    by_row: dict[int, list[str]] = {}
    for name, row in index.index.items():
        by_row.setdefault(row, []).append(name)  # a term, then its aliases
    for term, values in rows:
        for subject in by_row.get(index.index[term], [term]):
            s = names.get(subject) or iri(cm.expand(subject))
            for ancestor, v in values.items():
                yield quad(s, iri(levels[v]), names[ancestor], g)


def _digest(store: ReadableStore, ontology: str | None, weights: Mapping[str, float]) -> str:
    """The batch digest: the ontology batches' digests, the weights and the format version."""
    prefix = ontology_graph("")
    batches = store.batches()
    sources = [ontology_graph(ontology)] if ontology else sorted(g for g in batches if g.startswith(prefix))
    h = hashlib.sha256(_VERSION + b"\0" + weights_text(weights).encode())
    for g in sources:
        h.update(b"\0" + g.encode() + b"\0" + (batches[g].digest if g in batches else "").encode())
    return h.hexdigest()


def materialize_svalues(
    store: WritableStore,
    *,
    ontology: str | None = None,
    weights: Mapping[str, float] | None = None,
    curies: CurieMap | None = None,
) -> SValueReport:
    """Write the S-values of ``ontology`` (None: every ontology graph, merged) for ``weights`` as a batch.

    ``weights`` as for :func:`~craftrdf.analysis.similarity.graph.wang_index` (default: the paper's,
    is_a 0.8, part_of 0.6). Nothing is written when the batch is there and its ontology unchanged.
    Raises what ``wang_index`` raises (ConfigError for an unknown ontology or weights).
    """
    started = time.perf_counter()
    w = method_weights("wang", weights)
    graph = svalue_graph(ontology, w)
    digest = _digest(store, ontology, w)
    index = wang_index(store, IndexSpec(weights=w, ontology=ontology), cache=None)
    levels = {v for t in index.terms for v in index.semantic_values(t).values()}
    classes = len(index.index)
    svalues = sum(len(index.semantic_values(t)) for t in index.index)
    if store.has_batch(graph, digest):
        logger.info("S-values %s: already in the store", graph)
        return SValueReport(graph, classes, svalues, len(levels), 0, time.perf_counter() - started)
    g = iri(graph)
    source = iri(ontology_graph(ontology)) if ontology else iri(ontology_graph("").rstrip("/"))
    head = [
        quad(g, iri(RDF.type), iri(CRAFT.SValueGraph), g),
        quad(g, iri(CRAFT.svaluesOf), source, g),
        quad(g, iri(CRAFT.weights), literal(weights_text(w)), g),
    ]
    lines = iter([*head, *svalue_lines(index, graph, curies=curies)])
    written = store.load_batch(graph, lines, digest=digest)
    seconds = time.perf_counter() - started
    logger.info("S-values %s: %d triples for %d classes in %.1f s", graph, written, classes, seconds)
    return SValueReport(graph, classes, svalues, len(levels), written, seconds)
