"""Annotations and documents as W3C Web Annotation quads, and read back as records (docs/rdf-model.md).

One annotation becomes::

    <ann> a oa:Annotation ; oa:hasBody <class> ; oa:hasTarget <ann#target> ;
          craft:begin 36 ; craft:end 44 ; craft:spanCount 1 ; craft:spans "36-44" ;
          dcterms:creator "..." .
    <ann#target> oa:hasSource <doc> ; craft:coveredText "striatum" ;
          oa:hasSelector <ann#span0> .
    <ann#span0> a oa:TextPositionSelector ; oa:start 36 ; oa:end 44 .

Selectors of a discontinuous annotation also carry ``craft:spanIndex`` (file order). An
annotation of a trained matcher (``craftrdf annotate --model``) carries its confidence,
``craft:confidence "0.8734"^^xsd:decimal``.
``craft:begin``/``craft:end`` are the extremes over all spans, as ``xsd:integer`` so
range filters stay numeric and fast; ``craft:spans`` repeats the spans in one literal
(``"16855-16876;16881-16894"``) so that bulk readers (views, containment, read-back) get
an annotation in one row instead of a join over its selectors.

The encoder (:func:`annotation_nquads`, :func:`document_nquads`, :func:`set_nquads`) is what
every writer uses (build, load, views, rules, matcher runs); the read-back
(:func:`fetch_annotations`, :func:`rows_to_annotations`, :func:`document_texts`) is its inverse.
Both live here so the model is written down once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from urllib.parse import unquote

import pyoxigraph as ox

from ..core.curie import CurieMap
from ..core.errors import InputError, QueryError, StoreError
from ..core.iris import DOCUMENTS_GRAPH, annotation_iri, document_iri, set_iri
from ..core.model import Annotation, Document, Span
from ..core.rdf import decimal_literal, int_literal, iri, literal, quad
from ..core.vocab import BASE, CRAFT, DCTERMS, FABIO, OA, RDF
from ..store.local import ReadableStore, solutions
from .library import QueryResult, Term, bind_value, resolve_query, run_query

_TYPE = iri(RDF.type)
_ANN = iri(OA.Annotation)
_BODY = iri(OA.hasBody)
_TARGET = iri(OA.hasTarget)
_SOURCE = iri(OA.hasSource)
_SELECTOR = iri(OA.hasSelector)
_TPS = iri(OA.TextPositionSelector)
_START = iri(OA.start)
_END = iri(OA.end)
_BEGIN = iri(CRAFT.begin)
_CEND = iri(CRAFT.end)
_COUNT = iri(CRAFT.spanCount)
_INDEX = iri(CRAFT.spanIndex)
_COVERED = iri(CRAFT.coveredText)
_CREATOR = iri(DCTERMS.creator)
_SPANS = iri(CRAFT.spans)
_CONFIDENCE = iri(CRAFT.confidence)


def annotation_nquads(
    annotations: Iterable[Annotation], *, set_key: str, curies: CurieMap, source: str | None = None
) -> Iterator[str]:
    """N-Quads lines of annotations in the graph of set ``set_key``.

    Class ids are expanded with ``curies``; a malformed one raises InputError naming
    ``source`` and the annotation.
    """
    g = iri(set_iri(set_key))
    doc_iris: dict[str, str] = {}
    for a in annotations:
        d = doc_iris.get(a.document)
        if d is None:
            d = doc_iris[a.document] = iri(document_iri(a.document))
        try:
            body = iri(curies.expand(a.class_id))
        except InputError as exc:
            raise InputError(exc.message, source=source, element=f"annotation {a.id}") from None
        base = annotation_iri(set_key, a.document, a.id)
        s = f"<{base}>"
        t = f"<{base}#target>"
        yield f"{s} {_TYPE} {_ANN} {g} ."
        yield f"{s} {_BODY} {body} {g} ."
        yield f"{s} {_TARGET} {t} {g} ."
        yield f"{s} {_COUNT} {int_literal(len(a.spans))} {g} ."
        if a.annotator:
            yield f"{s} {_CREATOR} {literal(a.annotator)} {g} ."
        if a.confidence is not None:
            yield f"{s} {_CONFIDENCE} {decimal_literal(a.confidence)} {g} ."
        yield f"{t} {_SOURCE} {d} {g} ."
        if a.text is not None:
            yield f"{t} {_COVERED} {literal(a.text)} {g} ."
        if not a.spans:
            continue
        yield f"{s} {_SPANS} {literal(spans_text(a.spans))} {g} ."
        yield f"{s} {_BEGIN} {int_literal(min(x.start for x in a.spans))} {g} ."
        yield f"{s} {_CEND} {int_literal(max(x.end for x in a.spans))} {g} ."
        several = len(a.spans) > 1
        for i, span in enumerate(a.spans):
            sel = f"<{base}#span{i}>"
            yield f"{t} {_SELECTOR} {sel} {g} ."
            yield f"{sel} {_TYPE} {_TPS} {g} ."
            yield f"{sel} {_START} {int_literal(span.start, non_negative=True)} {g} ."
            yield f"{sel} {_END} {int_literal(span.end, non_negative=True)} {g} ."
            if several:
                yield f"{sel} {_INDEX} {int_literal(i)} {g} ."


def spans_text(spans: tuple[Span, ...]) -> str:
    """All spans in one compact literal, in order: ``"16855-16876;16881-16894"``.

    >>> spans_text((Span(16855, 16876), Span(16881, 16894)))
    '16855-16876;16881-16894'
    """
    return ";".join(f"{s.start}-{s.end}" for s in spans)


def parse_spans_text(value: str) -> tuple[Span, ...]:
    """The inverse of :func:`spans_text`; ``""`` gives no spans.

    >>> parse_spans_text("3-8;10-12")
    (Span(start=3, end=8), Span(start=10, end=12))
    """
    if not value:
        return ()
    out = []
    for piece in value.split(";"):
        start, _, end = piece.partition("-")
        out.append(Span(int(start), int(end)))
    return tuple(out)


def document_nquads(documents: Iterable[Document], *, graph: str) -> Iterator[str]:
    """N-Quads lines for document resources: PMID, PMCID, split and full text."""
    g = iri(graph)
    for doc in documents:
        d = iri(document_iri(doc.pmid))
        yield quad(d, _TYPE, iri(FABIO.ResearchPaper), g)
        yield quad(d, iri(FABIO.hasPubMedId), literal(doc.pmid), g)
        yield quad(d, iri(DCTERMS.identifier), literal(doc.pmid), g)
        if doc.pmcid:
            yield quad(d, iri(FABIO.hasPubMedCentralId), literal(doc.pmcid), g)
        if doc.split:
            yield quad(d, iri(CRAFT.split), literal(doc.split), g)
        yield quad(d, iri(CRAFT.text), literal(doc.text), g)


def set_nquads(
    key: str,
    *,
    module: str | None,
    variant: str | None,
    ontology: str | None,
    mappings: str | None,
) -> Iterator[str]:
    """The description of an annotation set, stored inside the set's own graph."""
    s = iri(set_iri(key))
    yield quad(s, _TYPE, iri(CRAFT.AnnotationSet), s)
    yield quad(s, iri(CRAFT.key), literal(key), s)
    if module:
        yield quad(s, iri(CRAFT.module), literal(module), s)
    if variant:
        yield quad(s, iri(CRAFT.variant), literal(variant), s)
    if ontology:
        yield quad(s, iri(CRAFT.ontology), iri(ontology), s)
    if mappings:
        yield quad(s, iri(CRAFT.mappings), iri(mappings), s)


# -- read back ---------------------------------------------------------------------------------


# (annotation, document, class, spans, text) cells of one row of set-annotations.rq
_Row = tuple[Term | None, Term | None, Term | None, Term | None, Term | None]


def fetch_annotations(
    store: ReadableStore, set_key: str, *, document: str | None = None, curies: CurieMap | None = None
) -> list[Annotation]:
    """The annotations of a set (optionally one document), spans in their original order.

    With ``document``, the cost is that document's annotations, whatever the set's size (and
    the set's confidences, which only a trained matcher's run has). Annotation ids are the
    source file's own ids (the last segment of the annotation IRI); classes come back as
    CURIEs; ``confidence`` is the annotation's ``craft:confidence`` (None where it has none).
    Sorted by document, then annotation IRI.
    """
    curies = curies or CurieMap()
    confidences = _confidences(store, set_key)
    if document is None:
        return _records(set_rows(store, set_key, curies=curies), curies, confidences)
    # from the document's targets, at the cost of its own annotations (``annotations`` with
    # ?document bound filters the whole set); the IRI is the one whose text after doc/ is
    # ``document``, as that query's test compares, so both select the same rows
    doc = BASE + "doc/" + document
    try:
        ox.NamedNode(doc)
    except ValueError:  # no IRI has this text after doc/ (a newline, a bad %-escape): no document
        return []
    result = run_query(store, resolve_query("document-annotations"), {"set": set_key, "doc": doc}, curies=curies)
    return rows_to_annotations(result.columns, _sorted_rows(result), curies, confidences)


def _confidences(store: ReadableStore, set_key: str) -> dict[str, float]:
    """Annotation IRI -> its ``craft:confidence`` in the set's graph (empty for gold and plain runs).

    Read by pattern on the one predicate of the one graph (one request to a remote store) rather
    than as a column of the set's query, whose rows the derived views read as they are.
    """
    quads = store.quads_for_pattern(None, ox.NamedNode(CRAFT.confidence), None, ox.NamedNode(set_iri(set_key)))
    out = {}
    for q in quads:
        if not isinstance(q.object, ox.Literal):
            raise StoreError(f"craft:confidence of {q.subject} is not a literal: {q.object}")
        try:
            out[_value(q.subject)] = float(q.object.value)
        except ValueError:
            raise StoreError(f"craft:confidence of {q.subject} is not a number: {q.object.value!r}") from None
    return out


def _sorted_rows(result: QueryResult) -> list[tuple[Term | None, ...]]:
    # sorted here rather than by ORDER BY: Oxigraph's sort decodes terms on every comparison,
    # which cost more than the rest of the query (same order: document, then annotation IRI)
    keys = result.strings("document", "annotation")
    return [row for _, row in sorted(zip(keys, result.rows), key=lambda kr: kr[0])]


def set_rows(store: ReadableStore, set_key: str, *, curies: CurieMap | None = None) -> Iterator[_Row]:
    """A whole set's rows of ``queries/set-annotations.rq`` as (annotation, document, class, spans, text) terms.

    Sorted by document, then annotation IRI, as :func:`fetch_annotations` returns its records
    (spans and text None where the annotation has none); for writers that want the stored
    terms rather than records (the derived view rows). The query runs on the set's graph only,
    as hash joins of whole scans, and its rows are read once: grouped by document as they
    arrive, then each document's sorted on its own (docs/scale.md).
    """
    query = resolve_query("set-annotations")
    key = {"set": bind_value(set_key, curies or CurieMap())}
    try:
        answer = solutions(store.query(query.text, substitutions=key, named_graphs=[set_iri(set_key)]))
    except RuntimeError as exc:  # an embedded store's failure, as run_query reports it
        raise QueryError(f"query {query.name} failed: {exc}") from None
    return _by_document(answer)


def _by_document(answer: ox.QuerySolutions) -> Iterator[_Row]:
    """The rows in the order of :func:`_sorted_rows`, read in one pass.

    Rows are grouped by document as they arrive and each document's are sorted on their own:
    at 10x CRAFT sorting all 220,000 rows at once cost 2.3 us a row, a document's at a time 0.6 us.
    The sort is stable, as :func:`_sorted_rows`' is, so rows of one annotation (several bodies)
    keep the engine's order there too.
    """
    names = [v.value for v in answer.variables]
    ia, idoc, ic, isp, it = (names.index(c) for c in ("annotation", "document", "class", "spans", "text"))
    groups: dict[str, list[_Row]] = {}
    for sol in answer:
        a, d = sol[ia], sol[idoc]
        if d is None:  # ?doc not an IRI or literal (STR of a blank node fails), as strings() reports it
            raise QueryError("column 'document' is unbound in a row of the result")
        rows = groups.get(d.value)
        if rows is None:
            rows = groups[d.value] = []
        rows.append((a, d, sol[ic], sol[isp], sol[it]))
    for document in sorted(groups):
        rows = groups[document]
        rows.sort(key=_annotation_key)
        yield from rows


def _annotation_key(row: _Row) -> str:
    return row[0].value  # type: ignore[union-attr]  # ?annotation is bound in every row


def rows_to_annotations(
    columns: tuple[str, ...],
    rows: Iterable[tuple[object, ...]],
    curies: CurieMap,
    confidences: Mapping[str, float] | None = None,
) -> list[Annotation]:
    """Records from result rows with columns annotation, document, class, spans, text (one row each).

    ``confidences``: annotation IRI -> confidence, for the records' ``confidence``.
    """
    col = {c: i for i, c in enumerate(columns)}
    a, d, c, s, t = col["annotation"], col["document"], col["class"], col["spans"], col["text"]
    return _records(((row[a], row[d], row[c], row[s], row[t]) for row in rows), curies, confidences)


def _records(
    rows: Iterable[tuple[object, ...]], curies: CurieMap, confidences: Mapping[str, float] | None = None
) -> list[Annotation]:
    """Records from (annotation, document, class, spans, text) cells (``confidences`` by annotation IRI)."""
    compress = curies.compress
    confidence = (confidences or {}).get
    return [
        Annotation(
            id=unquote(_value(a).rsplit("/", 1)[1]),
            document=_value(d),
            class_id=compress(_value(c)),
            spans=parse_spans_text(s.value) if isinstance(s, ox.Literal) else (),
            text=t.value if isinstance(t, ox.Literal) else None,
            confidence=confidence(_value(a)),
        )
        for a, d, c, s, t in rows
    ]


def document_splits(store: ReadableStore) -> dict[str, str]:
    """PMID -> split (``train``, ``dev``, ``test``; ``none`` when the store records none)."""
    g = ox.NamedNode(DOCUMENTS_GRAPH)
    ids = {
        q.subject: q.object.value
        for q in store.quads_for_pattern(None, ox.NamedNode(FABIO.hasPubMedId), None, g)
        if isinstance(q.object, ox.Literal)
    }
    splits = {
        q.subject: q.object.value
        for q in store.quads_for_pattern(None, ox.NamedNode(CRAFT.split), None, g)
        if isinstance(q.object, ox.Literal)
    }
    return {pmid: splits.get(doc, "none") for doc, pmid in ids.items()}


def document_texts(store: ReadableStore, pmids: Iterable[str] | None = None) -> dict[str, str]:
    """PMID -> article text for the documents the store holds (all, or those among ``pmids``)."""
    rows = solutions(
        store.query(
            f"SELECT ?g ?id ?text WHERE {{ GRAPH ?g {{ ?d <{FABIO.hasPubMedId}> ?id ; <{CRAFT.text}> ?text }} }}",
            substitutions={"g": ox.NamedNode(DOCUMENTS_GRAPH)},
        )
    )
    wanted = set(pmids) if pmids is not None else None
    out = {_value(r["id"]): _value(r["text"]) for r in rows}
    return {d: t for d, t in out.items() if wanted is None or d in wanted}


def _value(term: object) -> str:
    """The lexical value of an IRI or literal cell; StoreError for an unbound or other cell."""
    if isinstance(term, (ox.NamedNode, ox.Literal)):
        return term.value
    raise StoreError(f"expected an IRI or literal in the store's answer, found {term!r}")
