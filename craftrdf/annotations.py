"""Annotations read back from the store as records (the inverse of ingest.webanno)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote

from .curie import CurieMap
from .model import Annotation, Span
from .query import resolve_query, run_query
from .store import AnnotationStore

__all__ = ["fetch_annotations"]


def fetch_annotations(
    store: AnnotationStore, set_key: str, *, document: str | None = None, curies: CurieMap | None = None
) -> list[Annotation]:
    """The annotations of a set (optionally one document), spans in their original order.

    Annotation ids are the source file's own ids (the last segment of the annotation
    IRI); classes come back as CURIEs.
    """
    curies = curies or CurieMap()
    params = {"set": set_key}
    if document is not None:
        params["document"] = document
    result = run_query(store, resolve_query("annotations"), params, curies=curies)
    col = {c: i for i, c in enumerate(result.columns)}
    return list(_group(result.rows, col, curies))


def _group(rows, col, curies: CurieMap) -> Iterator[Annotation]:  # type: ignore[no-untyped-def]
    current = None
    spans: list[Span] = []
    for row in rows:
        ann = row[col["annotation"]].value
        if ann != current:
            if current is not None:
                yield _make(current, first, spans, col, curies)
            current, first, spans = ann, row, []
        start, end = row[col["start"]], row[col["end"]]
        if start is not None and end is not None:
            spans.append(Span(int(start.value), int(end.value)))
    if current is not None:
        yield _make(current, first, spans, col, curies)


def _make(ann: str, row, spans: list[Span], col, curies: CurieMap) -> Annotation:  # type: ignore[no-untyped-def]
    document, cls, text = row[col["document"]].value, row[col["class"]].value, row[col["text"]]
    return Annotation(
        id=unquote(ann.rsplit("/", 1)[1]),
        document=document,
        class_id=curies.compress(cls),
        spans=tuple(spans),
        text=text.value if text is not None else None,
    )
