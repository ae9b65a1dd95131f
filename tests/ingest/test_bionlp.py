"""BioNLP standoff: hand-made fixtures, malformed lines, round-trips (Hypothesis and real files)."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.errors import AnnotationFormatError, CraftrdfError, DataWarning, ValidationError
from craftrdf.core.model import Annotation, Span
from craftrdf.ingest.bionlp import read_bionlp, write_bionlp
from craftrdf.ingest.knowtator import read_knowtator
from craftrdf.ingest.validate import validate_annotations
from tests.helpers.corpus import DATA

BIONLP = DATA / "bionlp"
# "The granule cell layer of the adult dentate gyrus contains neurons.\n"
TEXT = (DATA / "knowtator" / "valid.txt").read_text(encoding="utf-8")


# -- reading ------------------------------------------------------------------------------


def test_read_craft_style_file() -> None:
    t1, t2, t3 = read_bionlp(BIONLP / "craft_style.bionlp", document="valid")
    assert (t1.id, t1.document, t1.class_id, t1.spans, t1.text) == (
        "T1",
        "valid",
        "UBERON:0001885",
        (Span(36, 49),),
        "dentate gyrus",
    )
    assert t2.spans == (Span(4, 25), Span(36, 49))
    assert t2.text == "granule cell layer of ... dentate gyrus"
    assert (t3.class_id, t3.spans, t3.annotator) == ("CL:0000540", (Span(59, 66),), None)


def test_read_craft_style_file_matches_its_text() -> None:
    validate_annotations(read_bionlp(BIONLP / "craft_style.bionlp", document="valid"), TEXT, source="craft_style")


def test_read_from_text_and_from_str_path() -> None:
    content = (BIONLP / "craft_style.bionlp").read_text(encoding="utf-8")
    from_text = read_bionlp(content, document="valid")
    from_str_path = read_bionlp(str(BIONLP / "craft_style.bionlp"), document="valid")
    assert from_text == from_str_path
    assert read_bionlp("", document="d") == []


def test_other_brat_lines_are_skipped_with_one_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        anns = read_bionlp(BIONLP / "brat_mixed.ann", document="valid")
    assert [(a.id, a.spans, a.text) for a in anns] == [
        ("T1", (Span(59, 66),), "neurons"),  # CRLF line ends removed
        ("T2", (Span(44, 49), Span(36, 43)), "gyrus dentate"),  # spans in line order
    ]
    assert [w.category for w in caught] == [DataWarning]
    message = str(caught[0].message)
    assert "3 non-entity lines" in message and "#: 1" in message and "R: 1" in message and "A: 1" in message


def test_line_without_text_column_has_no_text() -> None:
    (ann,) = read_bionlp("T1\tCL:0000540 59 66\n", document="d")
    assert ann.text is None


def test_text_column_may_be_empty_or_hold_tabs() -> None:
    a, b = read_bionlp("T1\tCL:0000540 59 66\t\nT2\tCL:0000540 1 2\ta\tb\n", document="d")
    assert a.text == "" and b.text == "a\tb"


MALFORMED = [
    ("T2\tCL:0000540 83\tneuron", "bad offsets"),
    ("T2\tCL:0000540 a 89\tneuron", "bad offsets"),
    ("T2\tCL:0000540 -1 89\tneuron", "bad offsets"),
    ("T2\tCL:0000540 89 83\tneuron", "start > end"),
    ("T2\tCL:0000540 83 89;90\tneuron", "bad offsets"),
    ("T2\tCL:0000540\tneuron", "second column"),
    ("T2 CL:0000540 83 89 neuron", "no tab-separated"),
    ("T\tCL:0000540 83 89\tneuron", "bad T id"),
    ("T1\tCL:0000540 1 5\tdup", "duplicate id 'T1'"),
    ("X9\tsomething", "unrecognised line"),
]


@pytest.mark.parametrize(("line", "reason"), MALFORMED)
def test_malformed_lines_raise_with_line_number(line: str, reason: str) -> None:
    content = "T1\tCL:0000540 59 66\tneurons\n" + line + "\n"
    with pytest.raises(AnnotationFormatError) as info:
        read_bionlp(content, document="d", source="doc.bionlp")
    assert info.value.line == 2
    assert info.value.source == "doc.bionlp"
    assert reason in info.value.message
    assert str(info.value).startswith("doc.bionlp, line 2")


def test_a_file_that_is_not_utf8_names_the_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.bionlp"
    first = b"T1\tCL:0000540 59 66\tneurons\n"
    path.write_bytes(first + "T2\tCL:0000540 4 11\tgranul\xe9\n".encode("latin-1"))
    with pytest.raises(AnnotationFormatError) as info:
        read_bionlp(path, document="d")
    # latin-1 writes é as the single byte 0xe9, which cannot start a UTF-8 sequence
    offset = len(first) + len("T2\tCL:0000540 4 11\tgranul")
    assert (info.value.source, info.value.line) == (str(path), 2)
    assert f"byte 0xe9 at byte offset {offset}" in info.value.message and "not UTF-8" in info.value.message
    assert "\n" not in str(info.value)


def test_a_byte_order_mark_is_not_part_of_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "bom.bionlp"
    path.write_bytes(b"\xef\xbb\xbfT1\tCL:0000540 59 66\tneurons\n")
    (ann,) = read_bionlp(path, document="d")
    assert (ann.id, ann.spans) == ("T1", (Span(59, 66),))


def test_offsets_past_the_document_text_name_the_line() -> None:
    # TEXT has 68 characters: "The granule ... contains neurons.\n"
    assert len(TEXT) == 68
    ok = "T1\tCL:0000540 59 66\tneurons\n"
    assert len(read_bionlp(ok + "T2\tCL:0000540 60 68\tx\n", document="d", text=TEXT)) == 2
    with pytest.raises(ValidationError) as info:
        read_bionlp(ok + "T2\tCL:0000540 4 11;60 69\tx\n", document="d", source="d.bionlp", text=TEXT)
    assert (info.value.source, info.value.line) == ("d.bionlp", 2)
    assert "[60, 69)" in info.value.message and "68 characters" in info.value.message
    # the text column is not held against the text here (the evaluation counts that)
    (wrong,) = read_bionlp("T1\tCL:0000540 59 66\tglia\n", document="d", text=TEXT)
    assert wrong.text == "glia"


def test_an_offset_of_thousands_of_digits_is_a_format_error() -> None:
    # int() refuses to parse more than 4300 digits with a ValueError of its own
    with pytest.raises(AnnotationFormatError, match="digits"):
        read_bionlp("T1\tCL:0000540 0 " + "9" * 5000 + "\tx\n", document="d")


#: Pieces of BioNLP lines, valid and not, for byte strings that reach past the first checks.
_PIECES = [b"T1", b"T2", b"T", b"R1", b"#", b"\t", b" ", b";", b"CL:1", b"0", b"7", b"12", b"9" * 30]
_PIECES += [b"\n", b"\r", b"\r\n", b"\xff", b"\xef\xbb\xbf", b"\xc3\xa9", b"\x00", b"...", b"-1"]
bionlp_like_bytes = st.binary(max_size=300) | st.lists(st.sampled_from(_PIECES), max_size=60).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=bionlp_like_bytes, text=st.none() | st.text(max_size=20))
def test_any_bytes_are_read_or_refused_with_a_craftrdf_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, text: str | None
) -> None:
    path = tmp_path_factory.getbasetemp() / "arbitrary.bionlp"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # skipped brat lines
        try:
            anns = read_bionlp(path, document="d", text=text)
        except CraftrdfError as exc:
            assert str(exc).startswith(str(path)) and "\n" not in str(exc)
            return
    for ann in anns:
        assert ann.id.startswith("T") and ann.spans and ann.document == "d"
        if text is not None:
            assert all(s.end <= len(text) for s in ann.spans)


# -- writing ------------------------------------------------------------------------------


def _ann(ann_id: str, class_id: str, spans: tuple[tuple[int, int], ...], text: str | None = None) -> Annotation:
    return Annotation(ann_id, "valid", class_id, tuple(Span(s, e) for s, e in spans), text)


def test_write_orders_by_begin_end_class_and_takes_text_from_document() -> None:
    anns = [
        _ann("k3", "CL:0000540", ((59, 66),)),
        _ann("k2", "UBERON:0005381", ((4, 25), (36, 49))),
        _ann("k1b", "UBERON:0001885", ((36, 49),)),
        _ann("k1a", "CL:0000000", ((36, 49),)),
        _ann("k4", "UBERON:0001885", ((44, 49), (36, 43))),
    ]
    # begin/end are the extremes over all spans, so k4 ties with k1a/k1b at (36, 49);
    # then class id; then the span tuples (Span(36, 49) < Span(44, 49)).
    expected = (
        "T1\tUBERON:0005381 4 25;36 49\tgranule cell layer of ... dentate gyrus\n"
        "T2\tCL:0000000 36 49\tdentate gyrus\n"
        "T3\tUBERON:0001885 36 49\tdentate gyrus\n"
        "T4\tUBERON:0001885 44 49;36 43\tgyrus ... dentate\n"
        "T5\tCL:0000540 59 66\tneurons\n"
    )
    assert write_bionlp(anns, text=TEXT) == expected
    assert write_bionlp(reversed(anns), text=TEXT) == expected  # any iterable, any order


def test_write_uses_annotation_text_and_cleans_it() -> None:
    anns = [_ann("a", "C:1", ((0, 3),), "line\none\ttab"), _ann("b", "C:2", ((4, 5),), None)]
    assert write_bionlp(anns) == "T1\tC:1 0 3\tline one tab\nT2\tC:2 4 5\t\n"


def test_write_replaces_newlines_from_document_text() -> None:
    text = "heart\nmuscle"
    assert write_bionlp([_ann("a", "C:1", ((0, 12),))], text=text) == "T1\tC:1 0 12\theart muscle\n"


def test_write_nothing() -> None:
    assert write_bionlp([]) == ""


def test_write_leaves_out_spanless_annotations_with_a_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = write_bionlp([_ann("gone", "C:1", ()), _ann("kept", "C:2", ((0, 3),), "The")])
    assert out == "T1\tC:2 0 3\tThe\n"
    assert [w.category for w in caught] == [DataWarning]
    assert "gone" in str(caught[0].message)


def test_write_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="whitespace"):
        write_bionlp([_ann("a", "bad class", ((0, 3),))])
    with pytest.raises(ValidationError, match="outside"):
        write_bionlp([_ann("a", "C:1", ((60, 80),))], text=TEXT)


# -- round trips ----------------------------------------------------------------------------

class_ids = st.from_regex(r"\A[A-Z][A-Za-z]{0,7}(_EXT)?:[A-Za-z0-9_]{1,12}\Z")
span_lists = st.lists(
    st.tuples(st.integers(0, 500), st.integers(1, 30)).map(lambda t: Span(t[0], t[0] + t[1])),
    min_size=1,
    max_size=4,
)
covered = st.none() | st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
annotation_lists = st.lists(
    st.builds(
        lambda i, c, s, t: Annotation(f"a{i}", "doc", c, tuple(s), t),
        st.integers(0, 10**6),
        class_ids,
        span_lists,
        covered,
    ),
    max_size=25,
)


def _key(ann: Annotation) -> tuple[str, tuple[Span, ...]]:
    return (ann.class_id, ann.spans)


@settings(max_examples=200, deadline=None)
@given(annotation_lists)
def test_round_trip_keeps_classes_and_spans(anns: list[Annotation]) -> None:
    out = write_bionlp(anns)
    back = read_bionlp(out, document="doc")
    assert Counter(map(_key, back)) == Counter(map(_key, anns))
    assert [a.id for a in back] == [f"T{n}" for n in range(1, len(anns) + 1)]
    # begins never decrease down the file
    assert [a.begin for a in back] == sorted(a.begin for a in back)
    # written again, the output is the same: ids, order and text column are stable
    assert write_bionlp(back) == out


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_round_trip_with_document_text(data: st.DataObject) -> None:
    text = data.draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200))
    spans_in_text = st.lists(
        st.integers(0, len(text) - 1).flatmap(lambda s: st.integers(s + 1, len(text)).map(lambda e: Span(s, e))),
        min_size=1,
        max_size=3,
    )
    anns = data.draw(
        st.lists(st.builds(lambda c, s: Annotation("x", "doc", c, tuple(s)), class_ids, spans_in_text), max_size=10)
    )
    back = read_bionlp(write_bionlp(anns, text=text), document="doc")
    assert Counter(map(_key, back)) == Counter(map(_key, anns))
    for ann in back:
        pieces = [text[s.start : s.end] for s in ann.spans]
        expected = " ... ".join(pieces).replace("\r", " ").replace("\n", " ").replace("\t", " ")
        assert ann.text == expected


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("module", "variant", "pmid"),
    [
        ("UBERON", "UBERON", "11319941"),  # holds discontinuous annotations
        ("GO_BP", "GO_BP+extensions", "17696610"),  # holds the one span-less annotation
        ("PR", "PR+extensions", "16628246"),
    ],
)
def test_knowtator_to_bionlp_and_back(craft_dir: Path, module: str, variant: str, pmid: str) -> None:
    path = craft_dir / "concept-annotation" / module / variant / "knowtator" / f"{pmid}.txt.knowtator.xml"
    text = (craft_dir / "articles" / "txt" / f"{pmid}.txt").read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        anns = [a for a in read_knowtator(path) if a.spans]  # BioNLP cannot hold a span-less one
        written = write_bionlp(anns, text=text)
    back = read_bionlp(written, document=pmid)
    assert len(back) == len(anns) > 0
    assert Counter(map(_key, back)) == Counter(map(_key, anns))
    # CRAFT's convention: the text column is Knowtator's spannedText (newlines as spaces)
    by_key = Counter((a.class_id, a.spans, (a.text or "").replace("\n", " ")) for a in anns)
    assert Counter((a.class_id, a.spans, a.text) for a in back) == by_key
