"""What every export format shares: the formats, the report, the annotations as records, atomic files."""

from __future__ import annotations

import enum
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO
from urllib.parse import unquote

import pyoxigraph as ox

from ...core.errors import ConfigError
from ...core.iris import DOCUMENTS_GRAPH
from ...core.model import Span
from ...core.vocab import CRAFT, FABIO
from ...querying.library import resolve_query
from ...querying.sets import SetRef
from ...store.local import ReadableStore, solutions


class ExportFormat(enum.Enum):
    """The formats :func:`export_set` writes; the value is the CLI's ``--format`` name.

    >>> ExportFormat("trig").is_rdf, ExportFormat.BIONLP.per_document
    (True, True)
    """

    TURTLE = "turtle"
    TRIG = "trig"
    NQUADS = "nquads"
    JSONLD = "jsonld"
    PUBANNOTATION = "pubannotation"
    BIONLP = "bionlp"

    @property
    def is_rdf(self) -> bool:
        """True for the RDF dumps (turtle, trig, nquads)."""
        return self in (ExportFormat.TURTLE, ExportFormat.TRIG, ExportFormat.NQUADS)

    @property
    def per_document(self) -> bool:
        """True when the output is a folder with one file per document."""
        return self in (ExportFormat.BIONLP, ExportFormat.PUBANNOTATION)


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What :func:`export_set` wrote.

    ``annotations`` counts the annotations written, ``skipped`` those the format cannot
    carry (no span); ``quads`` is the number of triples or quads of an RDF dump (0 for
    the other formats); ``files`` the files written.
    """

    set: SetRef
    format: ExportFormat
    out: Path
    documents: int
    annotations: int
    skipped: int
    files: int
    quads: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Ann:
    """One annotation as exported: IRIs of itself, its document and class; spans in order; annotator's name."""

    iri: str
    doc: str
    cls: str
    spans: tuple[Span, ...]
    text: str | None
    creator: str | None = None
    #: a trained matcher's confidence (``craft:confidence``), None for gold and plain runs
    confidence: float | None = None


@cache
def _query_text(name: str) -> str:
    return resolve_query(name).text


def select(store: ReadableStore, name: str, **bindings: ox.NamedNode) -> ox.QuerySolutions:
    """The solutions of library query ``name`` (a SELECT) with ``bindings``."""
    return solutions(store.query(_query_text(name), substitutions=bindings))


@contextmanager
def atomic(path: Path) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` only when the block ends without an exception.

    The temporary file sits beside ``path`` (same file system, so the rename is atomic) and
    is created with the default permissions, as ``open`` would create ``path`` itself.
    """
    directory = path.parent
    if not directory.is_dir():
        raise ConfigError(f"cannot write {path}: folder {directory} does not exist")
    tmp = directory / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part"
    try:
        with open(tmp, "xb") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def annotations_by_document(store: ReadableStore, ref: SetRef, doc: ox.NamedNode | None) -> list[tuple[str, list[Ann]]]:
    """(document IRI, its annotations) for each document with annotations, sorted by document IRI.

    Each document's annotations are in the order of :func:`_order`.
    """
    bindings = {"setGraph": ox.NamedNode(ref.graph)}
    if doc is not None:
        bindings["doc"] = doc
    grouped: dict[str, dict[int, ox.QuerySolution]] = {}
    for row in select(store, "export-annotations", **bindings):
        # keyed by span index: an annotation with two creators or texts (not written by craftrdf, but
        # possible in a store) repeats its rows, and must not repeat its spans
        grouped.setdefault(row["annotation"].value, {}).setdefault(int(row["spanIndex"].value), row)
    by_doc: dict[str, list[Ann]] = {}
    for iri, by_index in grouped.items():
        rows = [by_index[i] for i in sorted(by_index)]
        first = rows[0]
        spans = tuple(Span(int(r["start"].value), int(r["end"].value)) for r in rows if r["start"] is not None)
        text, creator, confidence = first["text"], first["creator"], first["confidence"]
        doc_iri = first["doc"].value
        by_doc.setdefault(doc_iri, []).append(
            Ann(
                iri,
                doc_iri,
                first["class"].value,
                spans,
                text.value if text is not None else None,
                creator.value if creator is not None else None,
                float(confidence.value) if confidence is not None else None,
            )
        )
    return [(d, sorted(anns, key=_order)) for d, anns in sorted(by_doc.items())]


def _order(ann: Ann) -> tuple[int, int, str, tuple[Span, ...]]:
    """The line order of write_bionlp (begin, end, class, spans), so T numbers agree across formats."""
    if not ann.spans:
        return (-1, -1, ann.cls, ())
    return (min(s.start for s in ann.spans), max(s.end for s in ann.spans), ann.cls, ann.spans)


def document_info(store: ReadableStore, doc_iri: str) -> tuple[str, str | None]:
    """A document's PubMed id and text from the documents graph; the IRI's last segment and None if absent."""
    pmid = text = None
    for q in store.quads_for_pattern(ox.NamedNode(doc_iri), None, None, ox.NamedNode(DOCUMENTS_GRAPH)):
        p, o = q.predicate.value, q.object
        if not isinstance(o, ox.Literal):
            continue
        if p == FABIO.hasPubMedId:
            pmid = o.value
        elif p == CRAFT.text:
            text = o.value
    return pmid or unquote(doc_iri.rsplit("/", 1)[1]), text


def file_stem(pmid: str, doc_iri: str) -> str:
    """A file name stem for a document: its id, unless that cannot be a plain file name."""
    if pmid in ("", ".", "..") or "/" in pmid or "\\" in pmid or "\x00" in pmid:
        return doc_iri.rsplit("/", 1)[1]
    return pmid
