"""A set as one W3C Web Annotation ``AnnotationCollection`` in JSON-LD."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pyoxigraph as ox

from ..model import Span
from ..sets import SetRef
from ..store import ReadableStore
from ..vocab import CRAFT
from ._base import Ann, annotations_by_document, atomic

__all__ = ["CRAFT_JSONLD_CONTEXT", "WA_CONTEXT", "export_jsonld"]


#: The W3C Web Annotation JSON-LD context, referenced (not copied) by the JSON-LD export.
WA_CONTEXT = "http://www.w3.org/ns/anno.jsonld"

#: The context object the JSON-LD export adds after :data:`WA_CONTEXT`: one term, ``spans``,
#: an ordered list (``@list``) of the ``TextPositionSelector`` pieces of a discontinuous target.
CRAFT_JSONLD_CONTEXT: Mapping[str, object] = {
    "craft": CRAFT.NS,
    "spans": {"@id": "craft:spans", "@container": "@list"},
}


def _selector(span: Span) -> dict[str, object]:
    return {"type": "TextPositionSelector", "start": span.start, "end": span.end}


def _annotation_jsonld(ann: Ann) -> dict[str, object]:
    """One annotation as a Web Annotation JSON-LD object (without ``@context``)."""
    target: dict[str, object] = {"source": ann.doc}
    if len(ann.spans) == 1:
        target["selector"] = _selector(ann.spans[0])
    elif ann.spans:
        extent = Span(min(s.start for s in ann.spans), max(s.end for s in ann.spans))
        target["selector"] = _selector(extent)
        target["spans"] = [_selector(s) for s in ann.spans]
    return {"id": ann.iri, "type": "Annotation", "body": ann.cls, "target": target}


def export_jsonld(
    store: ReadableStore, ref: SetRef, path: Path, doc: ox.NamedNode | None, document: str | None
) -> tuple[int, int, int, int, int]:
    per_doc = annotations_by_document(store, ref, doc)
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
    with atomic(path) as fh:
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
