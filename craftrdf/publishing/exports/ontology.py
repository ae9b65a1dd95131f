"""``craftrdf export --ontology``: one ontology graph as OWL (RDF/XML), Turtle or OBO 1.4.

OWL and Turtle are the ontology graph itself (the OBO 1.4 -> OWL mapping of
docs/rdf-model.md), without the store's batch manifest; RDF/XML is what owlready2 and
the OWL API (HermiT, ROBOT) read. OBO is written by :mod:`craftrdf.publishing.exports.obo`.

The triples are written in an order that lets tools read the RDF/XML that look for typed
elements rather than for ``rdf:type`` triples (pronto finds the ontology only in an
``<owl:Ontology>`` child of ``rdf:RDF``, classes only in ``<owl:Class>`` elements): the
ontology header first, then every resource with its ``rdf:type`` triples before its other
triples, because pyoxigraph's writer names an element after the resource's first triple when
that is an ``rdf:type``. A graph without an ``owl:Ontology`` resource (an RDF file loaded
without one) gets ``<graph IRI> a owl:Ontology``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.iris import ontology_graph
from ...core.vocab import OWL, RDF, prefixes
from ...ontology.owlread import ontology_triples, read_ontology
from ...store.local import ReadableStore
from .obo import write_obo

logger = logging.getLogger(__name__)

OntologyFormat = Literal["owl", "obo", "ttl"]
_RDF_FORMATS = {"owl": ox.RdfFormat.RDF_XML, "ttl": ox.RdfFormat.TURTLE}


@dataclass(frozen=True, slots=True)
class OntologyExportReport:
    """What :func:`export_ontology` wrote; ``unwritten`` lists what OBO could not hold (OBO only)."""

    ontology: str
    format: str
    out: Path
    triples: int
    terms: int
    unwritten: tuple[tuple[str, str], ...]
    seconds: float


def export_ontology(
    store: ReadableStore,
    name: str,
    out: str | Path,
    *,
    format: OntologyFormat,
    curies: CurieMap | None = None,
) -> OntologyExportReport:
    """Write ontology ``name`` (as in ``/ontology/<name>``, e.g. ``UBERON+extensions``) to ``out``.

    ``format`` is ``owl`` (RDF/XML), ``ttl`` (Turtle) or ``obo`` (OBO 1.4). Raises
    ConfigError for an unknown format or an ontology the store lacks.
    """
    out = Path(out)
    t0 = time.perf_counter()
    if format in _RDF_FORMATS:
        counted = _Counter(header_first(store, name))
        with open(out, "wb") as fh:
            ox.serialize(counted, fh, _RDF_FORMATS[format], prefixes=_prefixes())
        report = OntologyExportReport(name, format, out, counted.n, 0, (), 0.0)
    elif format == "obo":
        onto = read_ontology(store, name)
        with open(out, "w", encoding="utf-8", newline="\n") as fh:
            r = write_obo(onto, fh, name=name, curies=curies or CurieMap())
        report = OntologyExportReport(name, format, out, 0, r.terms, r.unwritten, 0.0)
    else:
        raise ConfigError(f"unknown ontology export format {format!r}: use owl, obo or ttl")
    seconds = time.perf_counter() - t0
    logger.info("exported %s as %s to %s in %.1f s", name, format, out, seconds)
    return OntologyExportReport(
        report.ontology, report.format, report.out, report.triples, report.terms, report.unwritten, seconds
    )


_TYPE = ox.NamedNode(RDF.type)
_ONTOLOGY = ox.NamedNode(OWL.Ontology)


def header_first(store: ReadableStore, name: str) -> Iterator[ox.Triple]:
    """The triples of ontology graph ``name`` (:func:`ontology_triples`): the ``owl:Ontology`` resources first,
    then the others, each resource's ``rdf:type`` triples before its other triples.

    A graph that types no resource ``owl:Ontology`` gets the triple ``<graph IRI> a owl:Ontology`` first.
    ConfigError if the store lacks the graph.
    """
    graph = ontology_graph(name)
    heads = [
        q.subject
        for q in store.quads_for_pattern(None, _TYPE, _ONTOLOGY, ox.NamedNode(graph))
        if isinstance(q.subject, ox.NamedNode | ox.BlankNode)
    ]
    if not heads:
        yield ox.Triple(ox.NamedNode(graph), _TYPE, _ONTOLOGY)
    for head in heads:
        yield from _types_first(t for t in ontology_triples(store, name, subject=head))
    yield from _types_first(t for t in ontology_triples(store, name) if t.subject not in heads)


#: The types an element is named after when a resource has several: what it is declared as, not a
#: characteristic (a property typed ``owl:TransitiveProperty`` too must come out as ``<owl:ObjectProperty>``,
#: which is what pronto collects properties from), not craftrdf's own ``craft:ExtensionClass``.
_DECLARATIONS = frozenset(
    ox.NamedNode(OWL.NS + t)
    for t in ("Ontology", "Class", "ObjectProperty", "AnnotationProperty", "DatatypeProperty", "Restriction", "Axiom")
)


def _rank(t: ox.Triple) -> int:
    if t.predicate != _TYPE:
        return 2
    return 0 if t.object in _DECLARATIONS else 1


def _types_first(triples: Iterable[ox.Triple]) -> Iterator[ox.Triple]:
    """Each subject's ``rdf:type`` triples (a declaration first) before its others; a subject's triples must
    come together (as a store yields them), and only one subject's are held at a time."""
    group: list[ox.Triple] = []
    for t in triples:
        if group and t.subject != group[0].subject:
            yield from sorted(group, key=_rank)  # stable: the rest keep their order
            group = []
        group.append(t)
    yield from sorted(group, key=_rank)


class _Counter:
    """Counts the triples passing through."""

    def __init__(self, triples: Iterator[ox.Triple]) -> None:
        self._it = triples
        self.n = 0

    def __iter__(self) -> Iterator[ox.Triple]:
        for t in self._it:
            self.n += 1
            yield t


def _prefixes() -> dict[str, str]:

    return prefixes()
