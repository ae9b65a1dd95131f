"""validate_annotations: one test per rule, on hand-made annotations over a hand-made text."""

from __future__ import annotations

import warnings

import pytest

from craftrdf.core.errors import DataWarning, ValidationError
from craftrdf.core.model import Annotation, Span
from craftrdf.ingest.validate import validate_annotations

# offsets: "The"[0,3) "granule"[4,11) "cell"[12,16) "layer"[17,22) "of"[23,25) "the"[26,29)
#          "adult"[30,35) "dentate"[36,43) "gyrus"[44,49) "contains"[50,58) "neurons"[59,66) "."[66,67)
TEXT = "The granule cell layer of the adult dentate gyrus contains neurons."


def ann(ann_id: str, spans: tuple[tuple[int, int], ...], text: str | None) -> Annotation:
    return Annotation(ann_id, "doc", "UBERON:0000001", tuple(Span(s, e) for s, e in spans), text)


def check(*anns: Annotation) -> None:
    validate_annotations(list(anns), TEXT, source="doc.xml")


def test_consistent_annotations_pass_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(
            ann("a", ((36, 49),), "dentate gyrus"),
            ann("b", ((4, 25), (36, 49)), "granule cell layer of ... dentate gyrus"),
            ann("c", ((44, 49), (36, 43)), "gyrus ... dentate"),  # out of text order
            ann("d", ((59, 67),), "neurons."),  # ends exactly at the end of the text
            ann("e", ((0, 3),), None),  # no covered text: nothing to compare
        )


def test_empty_input_passes() -> None:
    validate_annotations([], "", source="doc.xml")


def test_span_outside_text() -> None:
    with pytest.raises(ValidationError) as info:
        check(ann("a", ((36, 49),), "dentate gyrus"), ann("b", ((60, 68),), "eurons.x"))
    err = info.value
    assert err.source == "doc.xml" and err.element == "annotation b"
    assert "outside the text" in err.message and "67 characters" in err.message


def test_second_piece_outside_text() -> None:
    with pytest.raises(ValidationError, match="outside") as info:
        check(ann("a", ((0, 3), (66, 70)), None))
    assert info.value.element == "annotation a"


def test_single_span_text_mismatch() -> None:
    with pytest.raises(ValidationError) as info:
        check(ann("a", ((36, 49),), "dentate gyri"))
    assert info.value.element == "annotation a"
    assert "'dentate gyri'" in info.value.message and "'dentate gyrus'" in info.value.message


def test_discontinuous_mismatch_names_the_piece() -> None:
    with pytest.raises(ValidationError) as info:
        check(ann("b", ((4, 25), (36, 49)), "granule cell layer of ... dentate gyri"))
    assert "piece #2" in info.value.message


def test_discontinuous_without_separator_is_compared_joined() -> None:
    # brat-style single-space join: one piece where two are expected -> compared as a whole
    with pytest.raises(ValidationError) as info:
        check(ann("b", ((4, 25), (36, 49)), "granule cell layer of dentate gyrus"))
    assert "joined by ' ... '" in info.value.message


def test_piece_holding_the_separator_is_compared_joined() -> None:
    # the first piece itself contains " ... ", so splitting gives 3 parts for 2 spans;
    # the joined comparison still accepts it
    text = "a ... b c"
    a = Annotation("x", "doc", "C:1", (Span(0, 7), Span(8, 9)), "a ... b ... c")
    validate_annotations([a], text, source="t")
    bad = Annotation("y", "doc", "C:1", (Span(0, 7), Span(8, 9)), "a ... b ... d")
    with pytest.raises(ValidationError):
        validate_annotations([bad], text, source="t")


def test_duplicate_ids() -> None:
    with pytest.raises(ValidationError) as info:
        check(ann("a", ((36, 49),), "dentate gyrus"), ann("a", ((59, 66),), "neurons"))
    assert info.value.element == "annotation a"
    assert "duplicate" in info.value.message


def test_spanless_annotation_warns() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(ann("a", (), None), ann("b", ((59, 66),), "neurons"))
    assert [w.category for w in caught] == [DataWarning]
    assert "annotation a" in str(caught[0].message) and "doc.xml" in str(caught[0].message)


def test_validation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="a"):
        check(ann("a", ((36, 49),), "x"))
