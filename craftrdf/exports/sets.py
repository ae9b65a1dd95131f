"""Exports of one annotation set: RDF dumps, Web Annotation JSON-LD, PubAnnotation JSON, BioNLP.

:func:`export_set` writes any set graph of the store (a CRAFT set, a set added with
``craftrdf load``, a materialised view) in one of the :class:`ExportFormat` formats, for
the whole set or one document. docs/exports.md shows each format with an example.

- ``turtle``: the set graph's triples. ``trig``, ``nquads``: the set graph, plus the
  documents it annotates (documents graph) and what the ontology and mapping graphs say
  about the classes it uses, each quad in the graph it comes from. All three are written by
  ``pyoxigraph.serialize`` from an iterator, so the file is streamed, never built in memory.
- ``jsonld``: one ``AnnotationCollection`` in the W3C Web Annotation JSON-LD serialization
  (context ``http://www.w3.org/ns/anno.jsonld``), its annotations in one embedded
  ``AnnotationPage``. A discontinuous annotation's ``selector`` is the segment from its
  first to its last character (the only reading Web Annotation allows one target), and its
  pieces, in order, are in ``spans``, a craftrdf term declared in a second context object.
- ``pubannotation``: one ``<PMID>.json`` per document. A discontinuous annotation becomes
  one denotation per piece, all but the last with ``obj`` ``"_FRAGMENT"``, chained by
  ``_lexicallyChainedTo`` relations: what PubAnnotation itself stores and serves.
- ``bionlp``: one ``<PMID>.bionlp`` per document (:func:`craftrdf.ingest.bionlp.write_bionlp`),
  the text column taken from the document text in the store.

Files are written beside their destination and renamed into place, so an export that fails
leaves no half-written file. Annotations without spans (CRAFT has one) cannot be written in
BioNLP or PubAnnotation; they are left out with a :class:`~craftrdf.errors.DataWarning` and
counted in :attr:`ExportReport.skipped`.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import secrets
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO
from urllib.parse import unquote

import pyoxigraph as ox

from ..curie import CurieMap
from ..errors import ConfigError, DataWarning, StoreError
from ..ingest.bionlp import write_bionlp
from ..iris import DOCUMENTS_GRAPH, document_iri
from ..model import Annotation, Span
from ..querying import resolve_query
from ..sets import SetRef, resolve_set
from ..store import ReadableStore
from ..vocab import BASE, CRAFT, FABIO, OA, RDF, prefixes

__all__ = [
    "CRAFT_JSONLD_CONTEXT",
    "WA_CONTEXT",
    "ExportFormat",
    "ExportReport",
    "export_set",
]

logger = logging.getLogger(__name__)

#: The W3C Web Annotation JSON-LD context, referenced (not copied) by the JSON-LD export.
WA_CONTEXT = "http://www.w3.org/ns/anno.jsonld"

#: The context object the JSON-LD export adds after :data:`WA_CONTEXT`: one term, ``spans``,
#: an ordered list (``@list``) of the ``TextPositionSelector`` pieces of a discontinuous target.
CRAFT_JSONLD_CONTEXT: Mapping[str, object] = {
    "craft": CRAFT.NS,
    "spans": {"@id": "craft:spans", "@container": "@list"},
}

#: PubAnnotation's names for the pieces of a discontinuous denotation.
_FRAGMENT = "_FRAGMENT"
_CHAINED = "_lexicallyChainedTo"


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
class _Ann:
    """One annotation as exported: IRIs of itself, its document and class; spans in order."""

    iri: str
    doc: str
    cls: str
    spans: tuple[Span, ...]
    text: str | None


# -- finding the set -------------------------------------------------------------------


@cache
def _query_text(name: str) -> str:
    return resolve_query(name).text


def _select(store: ReadableStore, name: str, **bindings: ox.NamedNode) -> ox.QuerySolutions:
    result = store.query(_query_text(name), substitutions=bindings)
    assert isinstance(result, ox.QuerySolutions), f"{name} is a SELECT query"
    return result


# -- the entry point -------------------------------------------------------------------


def export_set(
    store: ReadableStore,
    key: str,
    out: str | os.PathLike[str],
    *,
    format: ExportFormat | str,
    document: str | None = None,
    curies: CurieMap | None = None,
) -> ExportReport:
    """Write the annotation set ``key`` (or its annotations of one ``document``) to ``out``.

    ``out`` is a file for turtle, trig, nquads and jsonld, and a folder (created when
    absent) for bionlp and pubannotation, which write one ``<PMID>.<ext>`` per document
    of the store (its documents graph) and per other document the set annotates, empty
    for a document without annotations in the set, as CRAFT's own files are (with
    ``document``, that document's file alone). Existing files of the same name are replaced.

    Raises :class:`~craftrdf.errors.ConfigError` for an unknown set, format or document
    (one neither in the documents graph nor annotated in the set), ``OSError`` when the
    output cannot be written. ``curies`` turns class IRIs into the CURIEs of the BioNLP and
    PubAnnotation outputs.

    >>> import tempfile
    >>> from craftrdf.loader import load_files
    >>> from craftrdf.store import AnnotationStore
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "d1.bionlp").write_text("T1\\tCL:0000540 0 6;10 14\\tneuron ... cell\\n")
    >>> store = AnnotationStore.memory()
    >>> _ = load_files(store, [folder / "d1.bionlp"], set_key="MINE")
    >>> r = export_set(store, "mine", folder / "out", format="pubannotation")
    >>> (r.set.key, r.documents, r.annotations, r.files)
    ('MINE', 1, 1, 1)
    >>> doc = json.loads((folder / "out" / "d1.json").read_text())
    >>> [(d["id"], d["obj"]) for d in doc["denotations"]], doc["relations"][0]["pred"]
    ([('T1-0', '_FRAGMENT'), ('T1-1', 'CL:0000540')], '_lexicallyChainedTo')
    """
    started = time.perf_counter()
    try:
        fmt = ExportFormat(format)
    except ValueError:
        names = ", ".join(f.value for f in ExportFormat)
        raise ConfigError(f"unknown export format {format!r}: use {names}") from None
    ref = resolve_set(store, key)
    doc = None
    if document is not None:
        doc = ox.NamedNode(document_iri(document))
        _check_document(store, ref, doc, document)
    path = Path(out)
    curies = curies or CurieMap()
    if fmt.is_rdf:
        counts = _export_rdf(store, ref, fmt, path, doc)
    elif fmt is ExportFormat.JSONLD:
        counts = _export_jsonld(store, ref, path, doc, document)
    else:
        counts = _export_per_document(store, ref, fmt, path, doc, curies)
    documents, annotations, skipped, files, quads = counts
    report = ExportReport(ref, fmt, path, documents, annotations, skipped, files, quads, time.perf_counter() - started)
    logger.info("exported %s as %s to %s in %.1f s", ref.key, fmt.value, path, report.seconds)
    return report


def _check_document(store: ReadableStore, ref: SetRef, doc: ox.NamedNode, pmid: str) -> None:
    """ConfigError unless the document is in the documents graph or annotated in the set."""
    if any(True for _ in store.quads_for_pattern(doc, None, None, ox.NamedNode(DOCUMENTS_GRAPH))):
        return
    if any(True for _ in _select(store, "export-annotations", setGraph=ox.NamedNode(ref.graph), doc=doc)):
        return
    raise ConfigError(f"document {pmid!r} is neither in the store's documents nor annotated in set {ref.key}")


# -- writing files atomically ----------------------------------------------------------


@contextmanager
def _atomic(path: Path) -> Iterator[IO[bytes]]:
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


# -- RDF dumps -------------------------------------------------------------------------

_RDF_FORMATS = {
    ExportFormat.TURTLE: ox.RdfFormat.TURTLE,
    ExportFormat.TRIG: ox.RdfFormat.TRIG,
    ExportFormat.NQUADS: ox.RdfFormat.N_QUADS,
}


def _rdf_prefixes(ref: SetRef, doc: ox.NamedNode | None) -> dict[str, str]:
    """The shared prefixes plus craftrdf's own namespaces; ``ann:`` covers the set's annotations."""
    out = prefixes()
    out.update(
        {
            "craftrdf": BASE,
            "set": BASE + "set/",
            "doc": BASE + "doc/",
            "ontology": BASE + "ontology/",
            "mappings": BASE + "mappings/",
        }
    )
    ann = BASE + "ann/" + ref.graph.rsplit("/", 1)[1] + "/"
    if doc is not None:
        ann += doc.value.rsplit("/", 1)[1] + "/"
    out["ann"] = ann
    return out


def _export_rdf(
    store: ReadableStore, ref: SetRef, fmt: ExportFormat, path: Path, doc: ox.NamedNode | None
) -> tuple[int, int, int, int, int]:
    counter = _Counter()
    with _atomic(path) as fh:
        if fmt is ExportFormat.TURTLE:
            triples = (q.triple for q in counter.count(_set_quads(store, ref, doc)))
            ox.serialize(triples, fh, _RDF_FORMATS[fmt], prefixes=_rdf_prefixes(ref, doc))
        else:
            quads = counter.count(_dataset_quads(store, ref, doc))
            ox.serialize(quads, fh, _RDF_FORMATS[fmt], prefixes=_rdf_prefixes(ref, doc))
    return counter.documents, counter.annotations, 0, 1, counter.quads


class _Counter:
    """Counts quads, annotations and documents while they stream past."""

    _ANN = ox.NamedNode(OA.Annotation)
    _TYPE = ox.NamedNode(RDF.type)
    _SOURCE = ox.NamedNode(OA.hasSource)

    def __init__(self) -> None:
        self.quads = self.annotations = 0
        self._docs: set[str] = set()

    @property
    def documents(self) -> int:
        return len(self._docs)

    def count(self, quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
        for q in quads:
            self.quads += 1
            if q.predicate == self._TYPE:
                if q.object == self._ANN:
                    self.annotations += 1
            elif q.predicate == self._SOURCE:
                self._docs.add(str(q.object))
            yield q


def _set_quads(store: ReadableStore, ref: SetRef, doc: ox.NamedNode | None) -> Iterator[ox.Quad]:
    """The set graph: as it is, or its description and one document's annotations."""
    g = ox.NamedNode(ref.graph)
    if doc is None:
        yield from store.quads_for_pattern(None, None, None, g)
        return
    digest = ox.NamedNode(CRAFT.digest)  # the manifest describes the whole batch, not this extract
    yield from (q for q in store.quads_for_pattern(g, None, None, g) if q.predicate != digest)
    rows = _select(store, "export-set-annotations", setGraph=g, doc=doc)
    yield from _sorted_quads(((r["s"], r["p"], r["o"]) for r in rows), g)


def _dataset_quads(store: ReadableStore, ref: SetRef, doc: ox.NamedNode | None) -> Iterator[ox.Quad]:
    """The set graph, then its documents, then its classes from each ontology and mapping graph."""
    g = ox.NamedNode(ref.graph)
    yield from _set_quads(store, ref, doc)
    bindings = {"setGraph": g} if doc is None else {"setGraph": g, "doc": doc}
    rows = _select(store, "export-documents", **bindings)
    yield from _sorted_quads(((r["doc"], r["p"], r["o"]) for r in rows), ox.NamedNode(DOCUMENTS_GRAPH))
    for source in _class_graphs(store, ref):
        src = ox.NamedNode(source)
        rows = _select(store, "export-classes", source=src, **bindings)
        yield from _sorted_quads(((r["class"], r["p"], r["o"]) for r in rows), src)


def _class_graphs(store: ReadableStore, ref: SetRef) -> list[str]:
    """The set's declared ontology and mapping graphs; for a kind it declares none of, all of that kind."""
    declared: dict[str, list[str]] = {"ontology": [], "mappings": []}
    every: dict[str, list[str]] = {"ontology": [], "mappings": []}
    for r in _select(store, "export-class-graphs", setGraph=ox.NamedNode(ref.graph)):
        kind = r["kind"].value
        (declared if r["declared"].value == "true" else every)[kind].append(r["graph"].value)
    out: list[str] = []
    for kind in ("ontology", "mappings"):
        out.extend(declared[kind] or every[kind])
    return list(dict.fromkeys(out))


def _sorted_quads(triples: Iterable[tuple[object, object, object]], graph: ox.NamedNode) -> list[ox.Quad]:
    """Quads in ``graph``, repeats removed, grouped by subject so Turtle and TriG come out compact."""
    unique = {(str(s), str(p), str(o)): (s, p, o) for s, p, o in triples}
    return [_quad(*unique[k], graph) for k in sorted(unique)]


def _quad(s: object, p: object, o: object, graph: ox.NamedNode) -> ox.Quad:
    if (
        isinstance(s, (ox.NamedNode, ox.BlankNode))
        and isinstance(p, ox.NamedNode)
        and isinstance(o, (ox.NamedNode, ox.BlankNode, ox.Literal))
    ):
        return ox.Quad(s, p, o, graph)
    raise StoreError(f"the store answered a triple that cannot be exported: {s!r} {p!r} {o!r}")


# -- annotations as records ------------------------------------------------------------


def _annotations(store: ReadableStore, ref: SetRef, doc: ox.NamedNode | None) -> list[tuple[str, list[_Ann]]]:
    """(document IRI, its annotations) for each document with annotations, sorted by document IRI.

    Each document's annotations are in the order of :func:`_order`.
    """
    bindings = {"setGraph": ox.NamedNode(ref.graph)}
    if doc is not None:
        bindings["doc"] = doc
    grouped: dict[str, list[tuple[int, ox.QuerySolution]]] = {}
    for row in _select(store, "export-annotations", **bindings):
        grouped.setdefault(row["annotation"].value, []).append((int(row["spanIndex"].value), row))
    by_doc: dict[str, list[_Ann]] = {}
    for iri, rows in grouped.items():
        rows.sort(key=lambda pair: pair[0])
        first = rows[0][1]
        spans = tuple(Span(int(r["start"].value), int(r["end"].value)) for _, r in rows if r["start"] is not None)
        text = first["text"]
        doc_iri = first["doc"].value
        by_doc.setdefault(doc_iri, []).append(
            _Ann(iri, doc_iri, first["class"].value, spans, text.value if text is not None else None)
        )
    return [(d, sorted(anns, key=_order)) for d, anns in sorted(by_doc.items())]


def _order(ann: _Ann) -> tuple[int, int, str, tuple[Span, ...]]:
    """The line order of write_bionlp (begin, end, class, spans), so T numbers agree across formats."""
    if not ann.spans:
        return (-1, -1, ann.cls, ())
    return (min(s.start for s in ann.spans), max(s.end for s in ann.spans), ann.cls, ann.spans)


def _document_info(store: ReadableStore, doc_iri: str) -> tuple[str, str | None]:
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


def _file_stem(pmid: str, doc_iri: str) -> str:
    """A file name stem for a document: its id, unless that cannot be a plain file name."""
    if pmid in ("", ".", "..") or "/" in pmid or "\\" in pmid or "\x00" in pmid:
        return doc_iri.rsplit("/", 1)[1]
    return pmid


# -- JSON-LD ---------------------------------------------------------------------------


def _selector(span: Span) -> dict[str, object]:
    return {"type": "TextPositionSelector", "start": span.start, "end": span.end}


def _annotation_jsonld(ann: _Ann) -> dict[str, object]:
    """One annotation as a Web Annotation JSON-LD object (without ``@context``)."""
    target: dict[str, object] = {"source": ann.doc}
    if len(ann.spans) == 1:
        target["selector"] = _selector(ann.spans[0])
    elif ann.spans:
        extent = Span(min(s.start for s in ann.spans), max(s.end for s in ann.spans))
        target["selector"] = _selector(extent)
        target["spans"] = [_selector(s) for s in ann.spans]
    return {"id": ann.iri, "type": "Annotation", "body": ann.cls, "target": target}


def _export_jsonld(
    store: ReadableStore, ref: SetRef, path: Path, doc: ox.NamedNode | None, document: str | None
) -> tuple[int, int, int, int, int]:
    per_doc = _annotations(store, ref, doc)
    total = sum(len(anns) for _, anns in per_doc)
    collection, label = ref.graph, f"annotation set {ref.key}"
    if doc is not None:
        collection += "?document=" + doc.value.rsplit("/", 1)[1]
        label += f", document {document}"
    page = collection + ("&" if "?" in collection else "?") + "page=0"
    head = {
        "@context": [WA_CONTEXT, CRAFT_JSONLD_CONTEXT],
        "id": collection,
        "type": "AnnotationCollection",
        "label": label,
        "total": total,
    }
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    page_head = {"id": page, "type": "AnnotationPage", "partOf": collection, "startIndex": 0}
    with _atomic(path) as fh:
        fh.write(b"{\n")
        for name, value in head.items():
            fh.write(f" {dumps(name)}: {dumps(value)},\n".encode())
        fh.write(f' "first": {dumps(page_head)[:-1]},"items": ['.encode())
        separator = b"\n  "
        for _, anns in per_doc:
            for ann in anns:
                fh.write(separator + dumps(_annotation_jsonld(ann)).encode("utf-8"))
                separator = b",\n  "
        fh.write(b"\n ]}\n}\n")
    return len(per_doc), total, 0, 1, 0


# -- one file per document: BioNLP and PubAnnotation -----------------------------------


def _export_per_document(
    store: ReadableStore, ref: SetRef, fmt: ExportFormat, folder: Path, doc: ox.NamedNode | None, curies: CurieMap
) -> tuple[int, int, int, int, int]:
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--out {folder} exists and is not a folder: {fmt.value} writes one file per document")
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".bionlp" if fmt is ExportFormat.BIONLP else ".json"
    documents = annotations = skipped = 0
    groups = _annotations(store, ref, doc)
    if doc is not None and not groups:
        groups = [(doc.value, [])]  # a document without annotations in the set: an empty file
    elif doc is None:
        # a set covers every document of the store, as evaluate reads it, and a CRAFT set has a file,
        # empty or not, for every document: so has the export
        annotated = {d for d, _ in groups}
        corpus = ox.NamedNode(DOCUMENTS_GRAPH)
        empty = {
            q.subject.value
            for q in store.quads_for_pattern(None, ox.NamedNode(FABIO.hasPubMedId), None, corpus)
            if isinstance(q.subject, ox.NamedNode) and q.subject.value not in annotated
        }
        groups = sorted(groups + [(d, []) for d in empty])
    for doc_iri, anns in groups:
        pmid, text = _document_info(store, doc_iri)
        spanless = [a for a in anns if not a.spans]
        written = [a for a in anns if a.spans]
        if spanless:
            ids = ", ".join(a.iri.rsplit("/", 1)[1] for a in spanless[:5])
            warnings.warn(
                f"{ref.key}, document {pmid}: left out {len(spanless)} annotation(s) without spans "
                f"({ids}): {fmt.value} cannot carry them",
                DataWarning,
                stacklevel=3,
            )
        if fmt is ExportFormat.BIONLP:
            records = [
                Annotation(unquote(a.iri.rsplit("/", 1)[1]), pmid, curies.compress(a.cls), a.spans, a.text)
                for a in written
            ]
            content = write_bionlp(records, text=text)
        else:
            content = (
                json.dumps(_pubannotation_document(written, doc_iri, pmid, text, curies), ensure_ascii=False, indent=1)
                + "\n"
            )
        with _atomic(folder / (_file_stem(pmid, doc_iri) + suffix)) as fh:
            fh.write(content.encode("utf-8"))
        documents += 1
        annotations += len(written)
        skipped += len(spanless)
    return documents, annotations, skipped, documents, 0


def _pubannotation_document(
    anns: Iterable[_Ann], doc_iri: str, pmid: str, text: str | None, curies: CurieMap
) -> dict[str, object]:
    """One document in PubAnnotation JSON; discontinuous annotations as chained fragments.

    Denotation ids are ``T1``, ``T2``, ... in the order of the BioNLP export; the pieces of
    a discontinuous ``Tn`` are ``Tn-0``, ``Tn-1``, ... (in the annotation's own order), all
    but the last with ``obj`` ``"_FRAGMENT"``, and relation ``C-Tn-<i-1>`` says
    ``Tn-<i> _lexicallyChainedTo Tn-<i-1>``: the form PubAnnotation's own ``chain_spans``
    gives a denotation with several spans.
    """
    denotations: list[dict[str, object]] = []
    relations: list[dict[str, object]] = []
    for n, ann in enumerate(anns, start=1):
        obj = curies.compress(ann.cls)
        tid = f"T{n}"
        if len(ann.spans) == 1:
            s = ann.spans[0]
            denotations.append({"id": tid, "span": {"begin": s.start, "end": s.end}, "obj": obj})
            continue
        last = len(ann.spans) - 1
        for i, s in enumerate(ann.spans):
            denotations.append(
                {"id": f"{tid}-{i}", "span": {"begin": s.start, "end": s.end}, "obj": obj if i == last else _FRAGMENT}
            )
            if i > 0:
                relations.append(
                    {"id": f"C-{tid}-{i - 1}", "pred": _CHAINED, "subj": f"{tid}-{i}", "obj": f"{tid}-{i - 1}"}
                )
    out: dict[str, object] = {"target": doc_iri, "sourcedb": "PubMed", "sourceid": pmid}
    if text is not None:
        out["text"] = text
    out["denotations"] = denotations
    if relations:
        out["relations"] = relations
    return out
