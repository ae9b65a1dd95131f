"""``craftrdf export --ontology``: one ontology graph as OWL (RDF/XML), Turtle or OBO 1.4.

OWL and Turtle are the ontology graph itself (the OBO 1.4 -> OWL mapping of
docs/rdf-model.md), without the store's batch manifest; RDF/XML is what owlready2 and
the OWL API (HermiT, ROBOT) read. OBO is written by :mod:`craftrdf.exports.obo`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pyoxigraph as ox

from ..curie import CurieMap
from ..errors import ConfigError
from ..owlread import ontology_triples, read_ontology
from ..store import ReadableStore
from .obo import write_obo

__all__ = ["OntologyExportReport", "export_ontology", "ontology_triples"]

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
        counted = _Counter(ontology_triples(store, name))
        with open(out, "wb") as fh:
            ox.serialize(counted, fh, _RDF_FORMATS[format], prefixes=_prefixes() if format == "ttl" else None)
        report = OntologyExportReport(name, format, out, counted.n, 0, (), 0.0)
    elif format == "obo":
        onto = read_ontology(store, name)
        with open(out, "w", encoding="utf-8", newline="\n") as fh:
            r = write_obo(onto, fh, name=name, curies=curies)
        report = OntologyExportReport(name, format, out, 0, r.terms, r.unwritten, 0.0)
    else:
        raise ConfigError(f"unknown ontology export format {format!r}: use owl, obo or ttl")
    seconds = time.perf_counter() - t0
    logger.info("exported %s as %s to %s in %.1f s", name, format, out, seconds)
    return OntologyExportReport(
        report.ontology, report.format, report.out, report.triples, report.terms, report.unwritten, seconds
    )


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
    from ..vocab import prefixes

    return prefixes()
