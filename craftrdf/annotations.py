"""Annotations read back from the store as records (the inverse of ingest.webanno)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
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
    i = col["annotation"]
    for iri, group in groupby(rows, key=lambda row: row[i].value):
        group = list(group)
        spans = tuple(
            Span(int(r[col["start"]].value), int(r[col["end"]].value))
            for r in group if r[col["start"]] is not None and r[col["end"]] is not None
        )
        first = group[0]
        text = first[col["text"]]
        yield Annotation(
            id=unquote(iri.rsplit("/", 1)[1]),
            document=first[col["document"]].value,
            class_id=curies.compress(first[col["class"]].value),
            spans=spans,
            text=text.value if text is not None else None,
        )
