"""Annotations and documents as W3C Web Annotation quads (see docs/rdf-model.md).

One annotation becomes::

    <ann> a oa:Annotation ; oa:hasBody <class> ; oa:hasTarget <ann#target> ;
          craft:begin 36 ; craft:end 44 ; craft:spanCount 1 ; craft:spans "36-44" ;
          dcterms:creator "..." .
    <ann#target> oa:hasSource <doc> ; craft:coveredText "striatum" ;
          oa:hasSelector <ann#span0> .
    <ann#span0> a oa:TextPositionSelector ; oa:start 36 ; oa:end 44 .

Selectors of a discontinuous annotation also carry ``craft:spanIndex`` (file order).
``craft:begin``/``craft:end`` are the extremes over all spans, as ``xsd:integer`` so
range filters stay numeric and fast; ``craft:spans`` repeats the spans in one literal
(``"16855-16876;16881-16894"``) so that bulk readers (views, containment, read-back) get
an annotation in one row instead of a join over its selectors.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..curie import CurieMap
from ..errors import InputError
from ..iris import annotation_iri, document_iri, set_iri
from ..model import Annotation, Document, Span
from ..rdf import int_literal, iri, literal, quad
from ..vocab import CRAFT, DCTERMS, FABIO, OA, RDF

__all__ = ["annotation_nquads", "document_nquads", "parse_spans_text", "set_nquads", "spans_text"]

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
        yield f"{t} {_SOURCE} {d} {g} ."
        if a.text is not None:
            yield f"{t} {_COVERED} {literal(a.text)} {g} ."
        if not a.spans:
            continue
        yield f"{s} {_SPANS} {literal(spans_text(a.spans))} {g} ."
        yield f"{s} {_BEGIN} {int_literal(a.begin)} {g} ."  # type: ignore[arg-type]
        yield f"{s} {_CEND} {int_literal(a.end)} {g} ."  # type: ignore[arg-type]
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
