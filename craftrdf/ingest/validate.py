"""Check annotations against their document's text: spans inside it, covered text equal to it.

A pure function over records: no I/O, no state; it raises on the first inconsistency.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from ..core.errors import DataWarning, ValidationError
from ..core.model import Annotation
from .knowtator import PIECE_SEPARATOR


def validate_annotations(annotations: Sequence[Annotation], text: str, *, source: str) -> None:
    """Check one document's annotations against its text; return None when all is well.

    Checks, in order for each annotation: its id is not used by an earlier one; every
    span lies inside ``text``; its covered text (when not None) equals the text the spans
    cover. A discontinuous annotation's covered text is compared piece by piece when
    splitting it on ``" ... "`` gives one piece per span, else as a whole against the
    pieces joined by ``" ... "`` (Knowtator's convention). Line breaks and tabs count as
    spaces in this comparison: BioNLP's text column cannot carry them, so writers put a
    space there (CRAFT has such a span, MONDO 14737183-927).

    Raises :class:`~craftrdf.core.errors.ValidationError` (``source`` as given, ``element``
    ``"annotation <id>"``) on the first problem; warns with
    :class:`~craftrdf.core.errors.DataWarning` for an annotation without spans.

    >>> from craftrdf.core.model import Annotation, Span
    >>> validate_annotations([Annotation("a1", "d", "CL:0000540", (Span(4, 10),), "neuron")],
    ...                      "The neuron fired.", source="d.xml")
    """
    seen: set[str] = set()
    size = len(text)
    for ann in annotations:
        if ann.id in seen:
            raise ValidationError(f"duplicate annotation id {ann.id!r}", source=source, element=f"annotation {ann.id}")
        seen.add(ann.id)
        spans = ann.spans
        if not spans:
            warnings.warn(
                f"{source}, annotation {ann.id}: annotation has no span; nothing to check", DataWarning, stacklevel=2
            )
            continue
        for span in spans:
            if span.end > size:
                raise ValidationError(
                    f"span [{span.start}, {span.end}) lies outside the text ({size} characters)",
                    source=source,
                    element=f"annotation {ann.id}",
                )
        if ann.text is not None:
            problem = text_problem(ann, text)
            if problem is not None:
                raise ValidationError(problem, source=source, element=f"annotation {ann.id}")


def text_problem(ann: Annotation, text: str, *, brat_joins: bool = False) -> str | None:
    """Why ``ann.text`` differs from what its spans cover in ``text``, or None if it does not.

    None too when ``ann.text`` is None (nothing to compare). The spans must lie inside
    ``text``; :func:`validate_annotations` checks that first. The comparison is the one
    :func:`validate_annotations` describes; with ``brat_joins``, a discontinuous
    annotation's pieces may also be joined by one space, as plain brat writes them.

    >>> from craftrdf.core.model import Annotation, Span
    >>> text_problem(Annotation("T1", "d", "CL:0000540", (Span(4, 10),), "neuron"), "The neuron fired.") is None
    True
    >>> text_problem(Annotation("T1", "d", "CL:0000540", (Span(4, 10),), "nerve"), "The neuron fired.")
    "covered text 'nerve' differs from the text at [4, 10): 'neuron'"
    """
    covered = ann.text
    if covered is None:
        return None
    spans = ann.spans
    if len(spans) == 1:
        span = spans[0]
        actual = text[span.start : span.end]
        if _same(covered, actual):
            return None
        return f"covered text {_show(covered)} differs from the text at [{span.start}, {span.end}): {_show(actual)}"
    pieces = [text[s.start : s.end] for s in spans]
    claimed = covered.split(PIECE_SEPARATOR)
    if len(claimed) == len(spans):
        for number, (span, said, actual) in enumerate(zip(spans, claimed, pieces), start=1):
            if not _same(said, actual):
                return (
                    f"piece #{number} of the covered text, {_show(said)}, differs from the text at "
                    f"[{span.start}, {span.end}): {_show(actual)}"
                )
        return None
    joined = PIECE_SEPARATOR.join(pieces)
    if _same(covered, joined) or (brat_joins and _same(covered, " ".join(pieces))):
        return None
    return (
        f"covered text {_show(covered)} differs from the text of its {len(spans)} spans "
        f"joined by {PIECE_SEPARATOR!r}: {_show(joined)}"
    )


_BLANKS = str.maketrans("\n\r\t", "   ")


def _same(said: str, actual: str) -> bool:
    """Equal texts, line breaks and tabs counting as spaces."""
    return said == actual or said.translate(_BLANKS) == actual.translate(_BLANKS)


def _show(value: str, limit: int = 80) -> str:
    """A repr of ``value`` cut to about ``limit`` characters."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + "..."
