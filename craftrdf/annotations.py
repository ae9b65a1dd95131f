"""Annotations read back from the store as records (the inverse of ingest.webanno)."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote

import pyoxigraph as ox

from .curie import CurieMap
from .ingest.webanno import parse_spans_text
from .model import Annotation
from .query import resolve_query, run_query
from .iris import DOCUMENTS_GRAPH
from .store import AnnotationStore
from .vocab import CRAFT, FABIO

__all__ = ["document_texts", "fetch_annotations", "rows_to_annotations"]


def fetch_annotations(
    store: AnnotationStore, set_key: str, *, document: str | None = None, curies: CurieMap | None = None
) -> list[Annotation]:
    """The annotations of a set (optionally one document), spans in their original order.

    Annotation ids are the source file's own ids (the last segment of the annotation
    IRI); classes come back as CURIEs. Sorted by document, then annotation IRI.
    """
    curies = curies or CurieMap()
    params = {"set": set_key}
    if document is not None:
        params["document"] = document
    result = run_query(store, resolve_query("annotations"), params, curies=curies)
    # sorted here rather than by ORDER BY: Oxigraph's sort decodes terms on every comparison,
    # which cost more than the rest of the query (same order: document, then annotation IRI)
    d, a = result.columns.index("document"), result.columns.index("annotation")
    rows = sorted(result.rows, key=lambda r: (r[d].value, r[a].value))  # type: ignore[union-attr]
    return rows_to_annotations(result.columns, rows, curies)


def rows_to_annotations(
    columns: tuple[str, ...], rows: Iterable[tuple[object, ...]], curies: CurieMap
) -> list[Annotation]:
    """Records from result rows with columns annotation, document, class, spans, text (one row each)."""
    col = {c: i for i, c in enumerate(columns)}
    a, d, c, s, t = col["annotation"], col["document"], col["class"], col["spans"], col["text"]
    out = []
    for row in rows:
        spans, text = row[s], row[t]
        out.append(Annotation(
            id=unquote(row[a].value.rsplit("/", 1)[1]),  # type: ignore[attr-defined]
            document=row[d].value,  # type: ignore[attr-defined]
            class_id=curies.compress(row[c].value),  # type: ignore[attr-defined]
            spans=parse_spans_text(spans.value) if isinstance(spans, ox.Literal) else (),
            text=text.value if isinstance(text, ox.Literal) else None,
        ))
    return out


def document_texts(store: AnnotationStore, pmids: Iterable[str] | None = None) -> dict[str, str]:
    """PMID -> article text for the documents the store holds (all, or those among ``pmids``)."""
    rows = store.query(
        "SELECT ?g ?id ?text WHERE { GRAPH ?g { ?d <%s> ?id ; <%s> ?text } }" % (FABIO.hasPubMedId, CRAFT.text),
        substitutions={"g": ox.NamedNode(DOCUMENTS_GRAPH)})
    wanted = set(pmids) if pmids is not None else None
    return {r["id"].value: r["text"].value for r in rows if wanted is None or r["id"].value in wanted}
