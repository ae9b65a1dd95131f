"""A set as one W3C Web Annotation ``AnnotationCollection`` in JSON-LD.

The context is inline by default: the W3C Web Annotation context (shipped in the package as
``anno.jsonld``, under the W3C Document License, see ``anno.jsonld.NOTICE``) followed by
:data:`CRAFT_JSONLD_CONTEXT`, so a JSON-LD processor reads the file without fetching anything.
``context="remote"`` names the W3C context by its IRI instead, as the Web Annotation Data Model
(sections 3.1 and 5.1) asks of a conforming document; a processor then fetches it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import pyoxigraph as ox

from ...core.model import Span
from ...core.vocab import CRAFT
from ...querying.sets import SetRef
from ...store.local import ReadableStore
from ._base import Ann, annotations_by_document, atomic, document_info

#: ``inline``: the W3C context's terms are in the file; ``remote``: the file names :data:`WA_CONTEXT`.
JsonldContext = Literal["inline", "remote"]

#: The W3C Web Annotation JSON-LD context's IRI (written with ``context="remote"``).
WA_CONTEXT = "http://www.w3.org/ns/anno.jsonld"

#: The context object the JSON-LD export adds after the Web Annotation context: ``spans``, an
#: ordered list (``@list``) of the ``TextPositionSelector`` pieces of a discontinuous target, and
#: ``confidence``, a trained matcher's confidence in the annotation (an ``xsd:decimal``).
CRAFT_JSONLD_CONTEXT: Mapping[str, object] = {
    "craft": CRAFT.NS,
    "spans": {"@id": "craft:spans", "@container": "@list"},
    "confidence": {"@id": "craft:confidence", "@type": "xsd:decimal"},
}

#: Every annotation's motivation: ``oa:classifying``, "the user intends to classify the Target as
#: something" (Web Annotation Data Model, 3.3.5): the mention is classified as the body's class.
MOTIVATION = "classifying"

#: Characters of article text in a ``TextQuoteSelector``'s ``prefix`` and ``suffix`` (fewer at the
#: start and end of the text).
QUOTE_CONTEXT = 32


@cache
def _context_text() -> str:
    return resources.files("craftrdf.publishing.exports").joinpath("anno.jsonld").read_text(encoding="utf-8")


def web_annotation_context() -> dict[str, object]:
    """The W3C Web Annotation JSON-LD context's term definitions (the ``@context`` object of anno.jsonld).

    A new dict on each call, read from the copy shipped with craftrdf.

    >>> ctx = web_annotation_context()
    >>> ctx["motivation"], ctx["TextQuoteSelector"]
    ({'@type': '@vocab', '@id': 'oa:motivatedBy'}, 'oa:TextQuoteSelector')
    """
    context: dict[str, object] = json.loads(_context_text())["@context"]
    return context


def _position(span: Span) -> dict[str, object]:
    return {"type": "TextPositionSelector", "start": span.start, "end": span.end}


def _quote(text: str, span: Span) -> dict[str, object]:
    """A TextQuoteSelector of ``span`` in ``text``; an empty prefix or suffix (text start or end) is left out."""
    quote: dict[str, object] = {"type": "TextQuoteSelector", "exact": text[span.start : span.end]}
    prefix = text[max(0, span.start - QUOTE_CONTEXT) : span.start]
    suffix = text[span.end : span.end + QUOTE_CONTEXT]
    if prefix:
        quote["prefix"] = prefix
    if suffix:
        quote["suffix"] = suffix
    return quote


def _annotation_jsonld(ann: Ann, text: str | None) -> dict[str, object]:
    """One annotation as a Web Annotation JSON-LD object (without ``@context``).

    ``text`` is the document's text, for the TextQuoteSelector (None: position only).
    """
    target: dict[str, object] = {"source": ann.doc}
    if ann.spans:
        # one segment, from the first character of the first piece to the last of the last:
        # the only reading Web Annotation allows one target (docs/exports.md)
        extent = Span(min(s.start for s in ann.spans), max(s.end for s in ann.spans))
        if text is not None and extent.end <= len(text):
            target["selector"] = [_position(extent), _quote(text, extent)]
        else:
            target["selector"] = _position(extent)
        if len(ann.spans) > 1:
            target["spans"] = [_position(s) for s in ann.spans]
    out: dict[str, object] = {"id": ann.iri, "type": "Annotation", "motivation": MOTIVATION}
    if ann.creator is not None:
        # an Agent (Data Model 3.3.1 and 3.3.2); the store has the annotator's name, not an IRI
        out["creator"] = {"type": "Person", "name": ann.creator}
    if ann.confidence is not None:
        out["confidence"] = f"{ann.confidence:.4f}"  # a string: an xsd:decimal's lexical form, kept exact
    out["body"] = ann.cls
    out["target"] = target
    return out


def export_jsonld(
    store: ReadableStore,
    ref: SetRef,
    path: Path,
    doc: ox.NamedNode | None,
    document: str | None,
    *,
    context: JsonldContext = "inline",
) -> tuple[int, int, int, int, int]:
    """Write the set (or one document's annotations) as one AnnotationCollection to ``path``.

    Returns (documents, annotations, skipped, files, quads), as the other exports do.
    """
    per_doc = annotations_by_document(store, ref, doc)
    total = sum(len(anns) for _, anns in per_doc)
    collection, label = ref.graph, f"annotation set {ref.key}"
    if doc is not None:
        collection += "?document=" + doc.value.rsplit("/", 1)[1]
        label += f", document {document}"
    page = collection + ("&" if "?" in collection else "?") + "page=0"
    wa: object = WA_CONTEXT if context == "remote" else web_annotation_context()
    head = {
        "@context": [wa, CRAFT_JSONLD_CONTEXT],
        "id": collection,
        "type": "AnnotationCollection",
        "label": label,
        "total": total,
    }
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    page_head = {"id": page, "type": "AnnotationPage", "partOf": collection, "startIndex": 0}
    with atomic(path) as fh:
        fh.write(b"{\n")
        for name, value in head.items():
            fh.write(f" {dumps(name)}: {dumps(value)},\n".encode())
        fh.write(f' "first": {dumps(page_head)[:-1]},"items": ['.encode())
        separator = b"\n  "
        for doc_iri, anns in per_doc:
            _, text = document_info(store, doc_iri)
            for ann in anns:
                fh.write(separator + dumps(_annotation_jsonld(ann, text)).encode("utf-8"))
                separator = b",\n  "
        fh.write(b"\n ]}\n}\n")
    return len(per_doc), total, 0, 1, 0
