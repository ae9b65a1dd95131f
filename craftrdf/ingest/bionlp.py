"""BioNLP / brat standoff for concept annotations, as in the CRAFT Shared Task 2019.

One entity per line, tab-separated: id, then class and spans, then the covered text::

    T1	CL:0000540 83 89	neuron
    T7	UBERON:0001950 239 247;259 265	neocortex ... cortex

Discontinuous pieces are ``start end`` pairs joined by ``;``. CRAFT's own ``.bionlp``
files (written by ``boot ... convert --bionlp``, i.e. ``BioNLPDocumentWriter`` of
UCDenver-ccp/file-conversion) put Knowtator's ``spannedText`` in the text column, so a
discontinuous annotation's pieces are joined by ``" ... "``; newlines become spaces.
:func:`write_bionlp` follows that convention (and replaces tabs as well). Plain brat
joins pieces with a single space; :func:`read_bionlp` keeps the column as it finds it.
"""

from __future__ import annotations

import os
import re
import warnings
from collections import Counter
from collections.abc import Iterable

from ..core.errors import AnnotationFormatError, DataWarning, ValidationError
from ..core.model import Annotation, Span
from .knowtator import PIECE_SEPARATOR

#: First characters of brat lines that are not text-bound entities (skipped on reading).
_OTHER_LINES = frozenset("REAMN#*")
_ID = re.compile(r"T\w+")
_OFFSET = re.compile(r"[0-9]+")
_MAX_DIGITS = 15
_UNSAFE = re.compile(r"[\t\r\n]")


def read_bionlp(
    path_or_text: str | os.PathLike[str],
    *,
    document: str,
    source: str | None = None,
    text: str | None = None,
) -> list[Annotation]:
    """Read the ``T`` lines of a BioNLP/brat standoff file (or its content) into annotations.

    ``path_or_text`` is a path (any ``os.PathLike``, or a ``str`` without a tab or a
    newline) or the content itself (a ``str`` holding a tab or a newline, or ``""``).
    A file is read as UTF-8 (a leading byte-order mark is dropped).
    Annotations keep file order; ``id`` is the T id, ``text`` the third column as written
    (None when the line has no third column), ``annotator`` None, ``document`` as given.
    Spans keep their order on the line. ``source`` names the input in messages.
    ``text``, the document's text when the caller has it, bounds the offsets: a span
    ending past it raises :class:`~craftrdf.core.errors.ValidationError` with its line number
    (the text column is not compared here: :func:`~craftrdf.ingest.validate.text_problem`
    does that, for callers that refuse or count a mismatch).

    Lines of other brat kinds (``R``, ``E``, ``A``, ``M``, ``N``, ``#``, ``*``) are skipped
    with one :class:`~craftrdf.core.errors.DataWarning` for the whole input; blank lines are
    ignored. A file that is not UTF-8 (the byte offset and line of the first bad byte),
    a malformed ``T`` line, a duplicate T id or any other line raises
    :class:`~craftrdf.core.errors.AnnotationFormatError` with its line number.
    """
    content, src = _load(path_or_text, source)
    annotations: list[Annotation] = []
    first_line: dict[str, int] = {}
    skipped: Counter[str] = Counter()
    for number, line in enumerate(content.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        head = line[0]
        if head == "T":
            ann = _parse_t_line(line, number, document, src)
            if text is not None:
                _check_bounds(ann, len(text), number, src)
            if ann.id in first_line:
                raise AnnotationFormatError(
                    f"duplicate id {ann.id!r} (first on line {first_line[ann.id]})", source=src, line=number
                )
            first_line[ann.id] = number
            annotations.append(ann)
        elif head in _OTHER_LINES:
            skipped[head] += 1
        else:
            raise AnnotationFormatError(
                f"unrecognised line {line[:40]!r}: expected a brat T line (or R, E, A, M, N, #, *)",
                source=src,
                line=number,
            )
    if skipped:
        kinds = ", ".join(f"{k}: {n}" for k, n in sorted(skipped.items()))
        warnings.warn(
            f"{src}: skipped {sum(skipped.values())} non-entity lines ({kinds}); only T lines are read",
            DataWarning,
            stacklevel=2,
        )
    return annotations


def write_bionlp(annotations: Iterable[Annotation], *, text: str | None = None) -> str:
    """BioNLP standoff for ``annotations``: one ``T`` line each, ids renumbered ``T1``...

    Lines are ordered by (begin, end, class id, spans), so the output does not depend on
    the input order; spans keep their own order (CRAFT's converter sorts them, which
    would change annotations whose pieces are out of text order). The text column is the
    pieces of ``text`` joined by ``" ... "`` when ``text`` is given, else
    ``Annotation.text`` (empty when None); tabs and newlines in it become spaces.
    The result ends with a newline unless it is empty.

    Annotations without spans cannot be written: they are left out with one
    :class:`~craftrdf.core.errors.DataWarning`. A class id holding whitespace raises
    ``ValueError``; a span beyond the end of ``text`` raises
    :class:`~craftrdf.core.errors.ValidationError` (a ``ValueError``).

    >>> from craftrdf.core.model import Annotation, Span
    >>> a = Annotation("x", "d", "UBERON:0001950", (Span(0, 3), Span(8, 14)))
    >>> write_bionlp([a], text="neo and cortex")
    'T1\\tUBERON:0001950 0 3;8 14\\tneo ... cortex\\n'
    """
    items = list(annotations)
    written = sorted((a for a in items if a.spans), key=_order)
    dropped = [a for a in items if not a.spans]
    lines = [_t_line(f"T{n}", ann, text) for n, ann in enumerate(written, start=1)]
    if dropped:
        ids = ", ".join(a.id for a in dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        warnings.warn(
            f"write_bionlp: left out {len(dropped)} annotation(s) without spans ({ids})", DataWarning, stacklevel=2
        )
    return "".join(line + "\n" for line in lines)


# -- reading ---------------------------------------------------------------------------


def _load(path_or_text: str | os.PathLike[str], source: str | None) -> tuple[str, str]:
    """The content to parse and the name to use in messages."""
    if isinstance(path_or_text, str) and (path_or_text == "" or "\t" in path_or_text or "\n" in path_or_text):
        return path_or_text, source or "<bionlp text>"
    path = os.fspath(path_or_text)
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        return data.decode("utf-8-sig"), source or path
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise AnnotationFormatError(
            f"not UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start} ({exc.reason})",
            source=source or path,
            line=line,
        ) from None


def _check_bounds(ann: Annotation, size: int, number: int, source: str) -> None:
    """ValidationError naming the line when a span of ``ann`` ends past a text of ``size`` characters."""
    for span in ann.spans:
        if span.end > size:
            raise ValidationError(
                f"{ann.id}: span [{span.start}, {span.end}) ends past the end of the document's text "
                f"({size} characters)",
                source=source,
                line=number,
            )


def _parse_t_line(line: str, number: int, document: str, source: str) -> Annotation:
    """One ``T`` line as an Annotation; AnnotationFormatError saying what is wrong."""

    def fail(message: str) -> AnnotationFormatError:
        return AnnotationFormatError(f"{message}: {line[:80]!r}", source=source, line=number)

    fields = line.split("\t", 2)
    if len(fields) < 2:
        raise fail("T line has no tab-separated class and offsets")
    ann_id, middle = fields[0], fields[1]
    if not _ID.fullmatch(ann_id):
        raise fail(f"bad T id {ann_id!r}")
    class_id, _, offsets = middle.partition(" ")
    if not class_id or not offsets.strip():
        raise fail("T line needs 'CLASS START END[;START END...]' in its second column")
    spans: list[Span] = []
    for piece in offsets.split(";"):
        bounds = piece.split()
        if len(bounds) != 2 or not all(_OFFSET.fullmatch(b) for b in bounds):
            raise fail(f"bad offsets {piece!r}: expected two non-negative integers 'START END'")
        if any(len(b) > _MAX_DIGITS for b in bounds):  # int() refuses thousands of digits; no text is that long
            raise fail(f"bad offsets {piece[:40]!r}: more than {_MAX_DIGITS} digits")
        start, end = int(bounds[0]), int(bounds[1])
        if start > end:
            raise fail(f"bad offsets {piece!r}: start > end")
        spans.append(Span(start, end))
    covered = fields[2] if len(fields) == 3 else None
    return Annotation(id=ann_id, document=document, class_id=class_id, spans=tuple(spans), text=covered)


# -- writing ---------------------------------------------------------------------------


def _order(ann: Annotation) -> tuple[int, int, str, tuple[Span, ...]]:
    """Sort key of a written line: begin, end, class id, then the spans themselves."""
    return (min(s.start for s in ann.spans), max(s.end for s in ann.spans), ann.class_id, ann.spans)


def _t_line(t_id: str, ann: Annotation, text: str | None) -> str:
    """The T line of one annotation with spans."""
    if not ann.class_id or any(c.isspace() for c in ann.class_id):
        raise ValueError(
            f"class id {ann.class_id!r} of annotation {ann.id} is empty or holds whitespace; "
            "BioNLP standoff cannot carry it"
        )
    offsets = ";".join(f"{s.start} {s.end}" for s in ann.spans)
    if text is not None:
        for span in ann.spans:
            if span.end > len(text):
                raise ValidationError(
                    f"span [{span.start}, {span.end}) lies outside the text ({len(text)} characters)",
                    element=f"annotation {ann.id}",
                )
        covered = PIECE_SEPARATOR.join(text[s.start : s.end] for s in ann.spans)
    else:
        covered = ann.text or ""
    return f"{t_id}\t{ann.class_id} {offsets}\t{_UNSAFE.sub(' ', covered)}"
