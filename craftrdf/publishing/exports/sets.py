"""Exports of one annotation set: RDF dumps, Web Annotation JSON-LD, PubAnnotation JSON, BioNLP.

:func:`export_set` writes any set graph of the store (a CRAFT set, a set added with
``craftrdf load``, a materialised view) in one of the :class:`ExportFormat` formats, for
the whole set or one document. docs/exports.md shows each format with an example.

- ``turtle``: the set graph's triples. ``trig``, ``nquads``: the set graph, plus the
  documents it annotates (documents graph) and what the ontology and mapping graphs say
  about the classes it uses, each quad in the graph it comes from. All three are written by
  ``pyoxigraph.serialize`` from an iterator, so the file is streamed, never built in memory.
- ``jsonld``: one ``AnnotationCollection`` in the W3C Web Annotation JSON-LD serialization,
  its annotations in one embedded ``AnnotationPage``, each with motivation ``classifying``,
  its annotator as ``creator`` and a ``TextPositionSelector`` beside a ``TextQuoteSelector``
  (exact text, prefix, suffix). The W3C context is inline (the file is read without a
  network) or, with ``jsonld_context="remote"``, named by its IRI. A discontinuous
  annotation's ``selector`` is the segment from its first to its last character (the only
  reading Web Annotation allows one target), and its pieces, in order, are in ``spans``, a
  craftrdf term declared in a second context object.
- ``pubannotation``: one ``<PMID>.json`` per document. A discontinuous annotation becomes
  one denotation per piece, all but the last with ``obj`` ``"_FRAGMENT"``, chained by
  ``_lexicallyChainedTo`` relations: what PubAnnotation itself stores and serves.
- ``bionlp``: one ``<PMID>.bionlp`` per document (:func:`craftrdf.ingest.bionlp.write_bionlp`),
  the text column taken from the document text in the store.

Files are written beside their destination and renamed into place, so an export that fails
leaves no half-written file. Annotations without spans (CRAFT has one) cannot be written in
BioNLP or PubAnnotation; they are left out with a :class:`~craftrdf.core.errors.DataWarning` and
counted in :attr:`ExportReport.skipped`.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.iris import DOCUMENTS_GRAPH, document_iri
from ...querying.sets import SetRef, resolve_set
from ...store.local import ReadableStore
from ._base import ExportFormat, ExportReport, select
from .jsonld import JsonldContext, export_jsonld
from .per_document import export_per_document
from .rdf import export_rdf

logger = logging.getLogger(__name__)


def export_set(
    store: ReadableStore,
    key: str,
    out: str | os.PathLike[str],
    *,
    format: ExportFormat | str,
    document: str | None = None,
    curies: CurieMap | None = None,
    jsonld_context: JsonldContext = "inline",
) -> ExportReport:
    """Write the annotation set ``key`` (or its annotations of one ``document``) to ``out``.

    ``out`` is a file for turtle, trig, nquads and jsonld, and a folder (created when
    absent) for bionlp and pubannotation, which write one ``<PMID>.<ext>`` per document
    of the store (its documents graph) and per other document the set annotates, empty
    for a document without annotations in the set, as CRAFT's own files are (with
    ``document``, that document's file alone). Existing files of the same name are replaced.

    Raises :class:`~craftrdf.core.errors.ConfigError` for an unknown set, format or document
    (one neither in the documents graph nor annotated in the set), ``OSError`` when the
    output cannot be written. ``curies`` turns class IRIs into the CURIEs of the BioNLP and
    PubAnnotation outputs. ``jsonld_context`` (jsonld only): ``inline`` writes the W3C Web
    Annotation context's terms into the file, ``remote`` names it by its IRI (a JSON-LD
    processor then fetches it).

    >>> import json
    >>> import tempfile
    >>> from craftrdf.building.loader import load_files
    >>> from craftrdf.store.local import AnnotationStore
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
    if jsonld_context not in ("inline", "remote"):
        raise ConfigError(f"unknown JSON-LD context {jsonld_context!r}: use inline or remote")
    ref = resolve_set(store, key)
    doc = None
    if document is not None:
        doc = ox.NamedNode(document_iri(document))
        _check_document(store, ref, doc, document)
    path = Path(out)
    curies = curies or CurieMap()
    if fmt.is_rdf:
        counts = export_rdf(store, ref, fmt, path, doc)
    elif fmt is ExportFormat.JSONLD:
        counts = export_jsonld(store, ref, path, doc, document, context=jsonld_context)
    else:
        counts = export_per_document(store, ref, fmt, path, doc, curies)
    documents, annotations, skipped, files, quads = counts
    report = ExportReport(ref, fmt, path, documents, annotations, skipped, files, quads, time.perf_counter() - started)
    logger.info("exported %s as %s to %s in %.1f s", ref.key, fmt.value, path, report.seconds)
    return report


def _check_document(store: ReadableStore, ref: SetRef, doc: ox.NamedNode, pmid: str) -> None:
    """ConfigError unless the document is in the documents graph or annotated in the set."""
    if any(True for _ in store.quads_for_pattern(doc, None, None, ox.NamedNode(DOCUMENTS_GRAPH))):
        return
    if any(True for _ in select(store, "export-annotations", setGraph=ox.NamedNode(ref.graph), doc=doc)):
        return
    raise ConfigError(f"document {pmid!r} is neither in the store's documents nor annotated in set {ref.key}")
