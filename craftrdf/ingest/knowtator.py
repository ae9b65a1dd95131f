"""Readers for Knowtator XML (CRAFT's concept annotations) and Knowtator-2 XML (MONDO).

Both formats are parsed only through :mod:`defusedxml` with DTDs, entity declarations
and external references forbidden, so an entity-expansion bomb or an external entity
(``<!ENTITY x SYSTEM "file:///etc/passwd">``) is refused before anything is expanded.

Knowtator XML keeps an annotation's class apart from its spans::

    <annotations textSource="11319941.txt">
      <annotation>
        <mention id="UBERON_Instance_30000" />
        <annotator id="...">Michael Bada</annotator>
        <span start="16855" end="16876" />
        <span start="16881" end="16894" />
        <spannedText>granule cell layer of ... dentate gyrus</spannedText>
      </annotation>
      <classMention id="UBERON_Instance_30000">
        <mentionClass id="UBERON:0005381">dentate gyrus granule cell layer</mentionClass>
      </classMention>
    </annotations>

Knowtator-2 XML (``<knowtator-project>``) nests ``<class id=IRI>`` and ``<span>`` elements
inside each ``<annotation>`` of a ``<document>``. Annotation comments and slot mentions
(``complexSlotMention``) are not part of :class:`~craftrdf.core.model.Annotation` and are skipped.
"""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import ParseError
from xml.parsers.expat import ErrorString, ExpatError

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from ..core.curie import CurieMap
from ..core.errors import AnnotationFormatError, DataWarning
from ..core.model import Annotation, Span

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

#: How Knowtator joins the texts of a discontinuous annotation's pieces.
PIECE_SEPARATOR = " ... "

StrPath = str | os.PathLike[str]


def read_knowtator(path: StrPath, *, source: str | None = None) -> list[Annotation]:
    """Read one Knowtator XML file (``<annotations textSource=...>``) into annotations.

    Annotations come back in file order; each keeps its spans in file order (CRAFT has a
    few discontinuous annotations whose pieces are out of text order or overlap).
    ``document`` is ``textSource`` without ``.txt``; ``text`` is ``<spannedText>`` (None
    when absent); ``annotator`` the ``<annotator>`` text or None. ``source`` names the
    file in messages (default: ``path``).

    Raises :class:`~craftrdf.core.errors.AnnotationFormatError` for malformed XML (with the
    line), a DTD or entity declaration, a wrong root element, and any structural problem
    (missing mention id, bad offsets, duplicate mention ids, a mention without a
    classMention, a classMention without a mentionClass id), naming the element.
    An annotation without any span is read with ``spans=()`` and a
    :class:`~craftrdf.core.errors.DataWarning`.
    """
    src = os.fspath(path) if source is None else source
    data = _read_bytes(path)
    expat = _armed_expat()
    handler = _KnowtatorHandler(src, expat)
    try:
        expat.Parse(data, True)
    except _XML_ERRORS as exc:
        raise _refusal(exc, src) from None
    annotations = handler.finish()
    for message in handler.warnings:
        warnings.warn(message, DataWarning, stacklevel=2)
    return annotations


def read_knowtator2(path: StrPath, *, curies: CurieMap, source: str | None = None) -> list[Annotation]:
    """Read one Knowtator-2 XML file (``<knowtator-project>``) into annotations.

    Class IRIs become CURIEs through ``curies.compress`` (IRIs outside the OBO space stay
    IRIs); ``document`` is the ``<document id>`` (``.txt`` stripped); ``text`` is the span
    texts joined by ``" ... "``; ``annotator`` the ``annotator`` attribute or None.
    Errors and warnings as for :func:`read_knowtator`.
    """
    src = os.fspath(path) if source is None else source
    root = _parse_tree(path, src)
    if root.tag != "knowtator-project":
        raise AnnotationFormatError(
            f"wrong root element <{root.tag}>: expected <knowtator-project> (Knowtator-2 XML)",
            source=src,
            element=f"<{root.tag}>",
        )
    reader = _Knowtator2Reader(src, curies)
    for doc_index, doc in enumerate(root.findall("document"), start=1):
        reader.read_document(doc, doc_index)
    for message in reader.warnings:
        warnings.warn(message, DataWarning, stacklevel=2)
    return reader.annotations


# -- parsing ---------------------------------------------------------------------------

# The handlers defusedxml installs on its expat parser; they must stay in place.
_GUARDS = ("StartDoctypeDeclHandler", "EntityDeclHandler", "UnparsedEntityDeclHandler", "ExternalEntityRefHandler")
# ElementTree's own handlers, replaced by ours on the fast path.
_TREE_HANDLERS = (
    "StartElementHandler",
    "EndElementHandler",
    "CharacterDataHandler",
    "DefaultHandlerExpand",
    "DefaultHandler",
    "CommentHandler",
    "ProcessingInstructionHandler",
    "StartNamespaceDeclHandler",
    "EndNamespaceDeclHandler",
)


def _defused_parser() -> DefusedXMLParser:
    """A defusedxml ElementTree parser refusing DTDs, entity declarations and external references."""
    return DefusedXMLParser(forbid_dtd=True, forbid_entities=True, forbid_external=True)


def _armed_expat() -> Any:
    """The expat parser inside a defusedxml parser, its guards in place, tree handlers removed.

    Streaming handlers set on it see every element without ElementTree's per-element Python
    overhead, while defusedxml's refusal of DTDs and entities still applies.
    """
    expat = _defused_parser().parser
    if any(getattr(expat, name, None) is None for name in _GUARDS):  # pragma: no cover - defusedxml changed
        raise RuntimeError("defusedxml did not install its DTD/entity guards; refusing to parse")
    for name in _TREE_HANDLERS:
        setattr(expat, name, None)
    expat.ordered_attributes = False
    expat.buffer_text = True
    return expat


def _read_bytes(path: StrPath) -> bytes:
    """The whole file; expat decodes it as its XML declaration says."""
    with open(path, "rb") as fh:
        return fh.read()


def _refusal(exc: Exception, source: str) -> AnnotationFormatError:
    """The AnnotationFormatError for an expat error or a defusedxml refusal."""
    if isinstance(exc, ExpatError):
        return AnnotationFormatError(
            f"malformed XML: {ErrorString(exc.code)} (column {exc.offset + 1})", source=source, line=exc.lineno
        )
    if isinstance(exc, ParseError):
        line, column = exc.position
        return AnnotationFormatError(
            f"malformed XML: {ErrorString(exc.code)} (column {column + 1})", source=source, line=line
        )
    if isinstance(exc, DTDForbidden):
        where = f" referring to {exc.sysid!r}" if exc.sysid else ""
        return AnnotationFormatError(
            f"refused: the file has a document type declaration (<!DOCTYPE {exc.name}>){where}; DTDs are "
            "forbidden because they can define entity-expansion bombs and external entities",
            source=source,
        )
    if isinstance(exc, EntitiesForbidden):
        return AnnotationFormatError(
            f"refused: the file declares the entity {exc.name!r}; entity declarations are forbidden "
            "(entity expansion, external entities)",
            source=source,
        )
    assert isinstance(exc, ExternalReferenceForbidden)
    return AnnotationFormatError(
        f"refused: the file refers to the external resource {exc.sysid!r}; external references are forbidden",
        source=source,
    )


_XML_ERRORS = (ExpatError, ParseError, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden)


def _parse_tree(path: StrPath, source: str) -> Any:
    """The root element of a small XML file, parsed by defusedxml's ElementTree parser."""
    parser = _defused_parser()
    try:
        parser.feed(_read_bytes(path))
        return parser.close()
    except _XML_ERRORS as exc:
        raise _refusal(exc, source) from None


def _span_problem(start: str | None, end: str | None) -> str | None:
    """What is wrong with a span's raw ``start``/``end`` attributes, or None if nothing is."""
    if start is None or end is None:
        return f"has no {'start' if start is None else 'end'} attribute"
    try:
        s, e = int(start), int(end)
    except ValueError:
        return f"has non-integer offsets start={start!r} end={end!r}"
    if s < 0:
        return f"has a negative start {s}"
    if s == e:
        return f"is empty (start == end == {s})"
    if s > e:
        return f"has start > end ({s} > {e})"
    return None


def _document_id(value: str) -> str:
    """A document id from a text-file name: ``11319941.txt`` -> ``11319941``."""
    return value[:-4] if value.endswith(".txt") else value


# -- Knowtator XML: streaming handlers ------------------------------------------------


class _Draft:
    """One ``<annotation>`` as read so far."""

    __slots__ = ("annotator", "index", "line", "mention", "mention_count", "spans", "text")

    def __init__(self, index: int, line: int | None) -> None:
        self.index = index
        self.line = line
        self.mention: str | None = None
        self.mention_count = 0
        self.annotator: str | None = None
        self.spans: list[Span] = []
        self.text: str | None = None

    def describe(self) -> str:
        """How messages name it: ``annotation #12 (mention UBERON_Instance_20000)``."""
        if self.mention is None:
            return f"annotation #{self.index}"
        return f"annotation #{self.index} (mention {self.mention})"


class _KnowtatorHandler:
    """Streaming expat handlers that build annotations without building a tree.

    Installs itself on ``expat``; call :meth:`finish` after parsing. Elements it does not
    know (annotationComment, complexSlotMention, ...) are skipped.
    """

    def __init__(self, source: str, expat: Any) -> None:
        self.source = source
        self.warnings: list[str] = []
        self._expat = expat
        self._document: str | None = None
        self._drafts: list[_Draft] = []
        self._by_mention: dict[str, _Draft] = {}
        self._classes: dict[str, str] = {}
        self._draft: _Draft | None = None
        self._buffer: list[str] = []
        self._cm_index = 0
        self._cm_id: str | None = None
        self._cm_line: int | None = None
        self._cm_class: str | None = None
        self._cm_seen_class = False
        expat.StartElementHandler = self._start_root
        expat.EndElementHandler = self._end

    def _fail(self, message: str, element: str, line: int | None) -> AnnotationFormatError:
        return AnnotationFormatError(message, source=self.source, line=line, element=element)

    def _collect(self) -> None:
        """Send character data to the buffer until the current element ends."""
        self._buffer = []
        self._expat.CharacterDataHandler = self._buffer.append

    def _collected(self) -> str:
        """The character data collected since :meth:`_collect`; stop collecting."""
        self._expat.CharacterDataHandler = None
        return "".join(self._buffer)

    def _start_root(self, tag: str, attrib: dict[str, str]) -> None:
        """Check the root element, then hand later elements to :meth:`_start`."""
        line = self._expat.CurrentLineNumber
        if tag != "annotations":
            raise self._fail(f"wrong root element <{tag}>: expected <annotations> (Knowtator XML)", f"<{tag}>", line)
        text_source = attrib.get("textSource")
        if not text_source:
            raise self._fail("root element has no textSource attribute", "<annotations>", line)
        self._document = _document_id(text_source)
        self._expat.StartElementHandler = self._start

    def _start(self, tag: str, attrib: dict[str, str]) -> None:
        draft = self._draft
        if draft is not None:
            if tag == "span":
                start = attrib.get("start", "")
                end = attrib.get("end", "")
                if start.isdigit() and end.isdigit():
                    s, e = int(start), int(end)
                    if s < e:
                        draft.spans.append(Span(s, e))
                        return
                    if s == e:
                        self.warnings.append(
                            f"{self.source}, line {self._expat.CurrentLineNumber}, {draft.describe()}: "
                            f"span #{len(draft.spans) + 1} is empty (start == end == {s}); kept as a zero-length span"
                        )
                        draft.spans.append(Span(s, e))
                        return
                problem = _span_problem(attrib.get("start"), attrib.get("end"))
                raise self._fail(
                    f"span #{len(draft.spans) + 1} {problem}", draft.describe(), self._expat.CurrentLineNumber
                )
            if tag == "mention":
                draft.mention = attrib.get("id")
                draft.mention_count += 1
            elif tag == "spannedText" or tag == "annotator":
                self._collect()
        elif tag == "annotation":
            self._draft = _Draft(len(self._drafts) + 1, self._expat.CurrentLineNumber)
        elif tag == "classMention":
            self._start_class_mention(attrib)
        elif tag == "mentionClass" and self._cm_id is not None:
            self._cm_seen_class = True
            self._cm_class = attrib.get("id")

    def _end(self, tag: str) -> None:
        draft = self._draft
        if draft is not None:
            if tag == "annotation":
                self._end_annotation(draft)
                self._draft = None
            elif tag == "spannedText":
                draft.text = self._collected()
            elif tag == "annotator":
                draft.annotator = self._collected() or None
        elif tag == "classMention" and self._cm_id is not None:
            self._end_class_mention()

    def finish(self) -> list[Annotation]:
        """The annotations, in file order, once every classMention has been seen."""
        return [self._resolve(d) for d in self._drafts]

    def _end_annotation(self, draft: _Draft) -> None:
        if draft.mention_count == 0 or not draft.mention:
            raise self._fail("annotation has no <mention id>", draft.describe(), draft.line)
        if draft.mention_count > 1:
            raise self._fail(
                f"annotation has {draft.mention_count} <mention> elements; expected one", draft.describe(), draft.line
            )
        first = self._by_mention.get(draft.mention)
        if first is not None:
            raise self._fail(
                f"duplicate mention id {draft.mention!r} (first used by annotation #{first.index}, line {first.line})",
                draft.describe(),
                draft.line,
            )
        self._by_mention[draft.mention] = draft
        self._drafts.append(draft)

    def _start_class_mention(self, attrib: dict[str, str]) -> None:
        self._cm_index += 1
        self._cm_line = self._expat.CurrentLineNumber
        self._cm_id = attrib.get("id")
        self._cm_class = None
        self._cm_seen_class = False
        if not self._cm_id:
            raise self._fail("classMention has no id attribute", f"classMention #{self._cm_index}", self._cm_line)

    def _end_class_mention(self) -> None:
        cm_id = self._cm_id
        assert cm_id is not None
        element = f"classMention #{self._cm_index} (id {cm_id})"
        if not self._cm_seen_class:
            raise self._fail("classMention has no <mentionClass>", element, self._cm_line)
        if not self._cm_class:
            raise self._fail("mentionClass has no id attribute (the class is unknown)", element, self._cm_line)
        if cm_id in self._classes:
            raise self._fail(f"duplicate classMention id {cm_id!r}", element, self._cm_line)
        self._classes[cm_id] = self._cm_class
        self._cm_id = None

    def _resolve(self, draft: _Draft) -> Annotation:
        mention = draft.mention
        assert mention is not None and self._document is not None
        class_id = self._classes.get(mention)
        if class_id is None:
            raise self._fail(
                f"no <classMention id={mention!r}> gives this mention's class", draft.describe(), draft.line
            )
        if not draft.spans:
            line = f", line {draft.line}" if draft.line is not None else ""
            self.warnings.append(f"{self.source}{line}, {draft.describe()}: annotation has no span; read with spans=()")
        return Annotation(
            id=mention,
            document=self._document,
            class_id=class_id,
            spans=tuple(draft.spans),
            text=draft.text,
            annotator=draft.annotator,
        )


# -- Knowtator-2 XML: small files, read from a tree -----------------------------------


class _Knowtator2Reader:
    """Turns the ``<document>`` elements of a Knowtator-2 tree into annotations."""

    def __init__(self, source: str, curies: CurieMap) -> None:
        self.source = source
        self.curies = curies
        self.annotations: list[Annotation] = []
        self.warnings: list[str] = []
        self._seen: dict[str, int] = {}

    def _fail(self, message: str, element: str) -> AnnotationFormatError:
        return AnnotationFormatError(message, source=self.source, element=element)

    def read_document(self, doc: Element, doc_index: int) -> None:
        """Read every ``<annotation>`` child of one ``<document>``."""
        raw_id = doc.get("id") or doc.get("text-file")
        if not raw_id:
            raise self._fail("document has neither an id nor a text-file attribute", f"document #{doc_index}")
        document = _document_id(raw_id)
        for element in doc.findall("annotation"):
            self.annotations.append(self._annotation(element, document, len(self._seen) + 1))

    def _annotation(self, element: Element, document: str, index: int) -> Annotation:
        ann_id = element.get("id")
        describe = f"annotation #{index}" + (f" (id {ann_id})" if ann_id else "")
        if not ann_id:
            raise self._fail("annotation has no id attribute", describe)
        if ann_id in self._seen:
            raise self._fail(
                f"duplicate annotation id {ann_id!r} (first used by annotation #{self._seen[ann_id]})", describe
            )
        self._seen[ann_id] = index
        classes = element.findall("class")
        if len(classes) != 1:
            raise self._fail(f"annotation has {len(classes)} <class> elements; expected one", describe)
        iri = classes[0].get("id")
        if not iri:
            raise self._fail("<class> has no id attribute (the class is unknown)", describe)
        spans: list[Span] = []
        texts: list[str] = []
        for number, span in enumerate(element.findall("span"), start=1):
            start, end = span.get("start"), span.get("end")
            problem = _span_problem(start, end)
            if problem is None or start == end:
                assert start is not None and end is not None
                if problem is not None:
                    self.warnings.append(
                        f"{self.source}, {describe}: span #{number} {problem}; kept as a zero-length span"
                    )
                spans.append(Span(int(start), int(end)))
                texts.append(span.text or "")
            else:
                raise self._fail(f"span #{number} {problem}", describe)
        if not spans:
            self.warnings.append(f"{self.source}, {describe}: annotation has no span; read with spans=()")
        return Annotation(
            id=ann_id,
            document=document,
            class_id=self.curies.compress(iri),
            spans=tuple(spans),
            text=PIECE_SEPARATOR.join(texts) if spans else None,
            annotator=element.get("annotator") or None,
        )
