"""Knowtator and Knowtator-2 readers: hand-made fixtures, hostile XML, and the whole corpus.

Expected values come from the fixtures as written by hand (offsets counted on
tests/data/knowtator/valid.txt) or, for the corpus, from counting raw ``<annotation``
tags with a regular expression on the file text.
"""

from __future__ import annotations

import itertools
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import AnnotationFormatError, DataWarning
from craftrdf.core.model import Annotation, Span
from craftrdf.ingest.knowtator import read_knowtator, read_knowtator2
from craftrdf.ingest.validate import validate_annotations

KNOWTATOR = Path(__file__).resolve().parent.parent / "data" / "knowtator"

# `<annotation` followed by a non-word character: excludes <annotations> and <annotationComment>.
RAW_ANNOTATION = re.compile(r"<annotation\b")

# CRAFT v5.0.2 facts checked by hand on the files (see the brief and CRAFT's CHANGES.md).
CORPUS_ANNOTATIONS = 255_778
SPANLESS_SET = ("GO_BP", "GO_BP+extensions")
SPANLESS_DOC = "17696610"
SPANLESS_MENTION = "GO_BP_2016_02_16_with_nested_annotations_Instance_150074"


def knowtator_sets(craft_dir: Path) -> list[Path]:
    """The 20 ``.../knowtator`` directories of the concept annotation sets."""
    return sorted(craft_dir.glob("concept-annotation/*/*/knowtator"))


def article_text(craft_dir: Path, pmid: str) -> str:
    return (craft_dir / "articles" / "txt" / f"{pmid}.txt").read_text(encoding="utf-8")


# -- fixtures: valid files ---------------------------------------------------------------


def test_valid_file_is_read_in_file_order() -> None:
    anns = read_knowtator(KNOWTATOR / "valid.knowtator.xml")
    assert [a.id for a in anns] == ["T_1", "T_2", "T_3", "T_4"]
    assert {a.document for a in anns} == {"valid"}
    assert [a.class_id for a in anns] == ["UBERON:0001885", "UBERON:0005381", "CL:0000540", "UBERON:0001885"]


def test_valid_file_fields() -> None:
    t1, t2, t3, t4 = read_knowtator(KNOWTATOR / "valid.knowtator.xml")
    assert t1.spans == (Span(36, 49),)
    assert t1.text == "dentate gyrus"
    assert t1.annotator == "Alice"
    # discontinuous, pieces joined by " ... "; &amp; decoded
    assert t2.spans == (Span(4, 25), Span(36, 49))
    assert t2.text == "granule cell layer of ... dentate gyrus"
    assert t2.annotator == "Alice & Bob"
    assert t2.is_discontinuous
    # no <annotator>; the annotationComment is skipped
    assert t3.annotator is None
    assert t3.spans == (Span(59, 66),)
    # spans out of text order stay in file order
    assert t4.spans == (Span(44, 49), Span(36, 43))
    assert t4.text == "gyrus ... dentate"


def test_valid_file_matches_its_text() -> None:
    text = (KNOWTATOR / "valid.txt").read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validate_annotations(read_knowtator(KNOWTATOR / "valid.knowtator.xml"), text, source="valid")


def test_source_names_the_input() -> None:
    with pytest.raises(AnnotationFormatError) as info:
        read_knowtator(KNOWTATOR / "duplicate_mention_id.knowtator.xml", source="my-set/doc.xml")
    assert info.value.source == "my-set/doc.xml"
    assert str(info.value).startswith("my-set/doc.xml")


def test_empty_file_gives_no_annotations() -> None:
    assert read_knowtator(KNOWTATOR / "empty.knowtator.xml") == []


def test_spanless_annotation_is_read_with_one_warning() -> None:
    path = KNOWTATOR / "spanless.knowtator.xml"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        anns = read_knowtator(path)
    data_warnings = [w for w in caught if issubclass(w.category, DataWarning)]
    assert len(data_warnings) == 1
    message = str(data_warnings[0].message)
    assert str(path) in message and "S_2" in message
    assert data_warnings[0].filename == __file__  # stacklevel points at the caller
    assert [a.id for a in anns] == ["S_1", "S_2"]
    assert anns[1].spans == ()
    assert anns[1].text is None
    assert anns[1].class_id == "GO:0007399"


def test_empty_span_is_kept_with_a_warning() -> None:
    path = KNOWTATOR / "empty_span.knowtator.xml"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (a,) = read_knowtator(path)
    assert a.spans == (Span(59, 66), Span(7, 7))
    messages = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    assert len(messages) == 1 and "E_1" in messages[0] and "span #2 is empty" in messages[0]


# -- fixtures: errors ---------------------------------------------------------------------

ERROR_CASES = [
    # file, what the element description must contain, what the message must contain
    ("missing_mention_id.knowtator.xml", "annotation #2", "no <mention id>"),
    ("non_integer_offset.knowtator.xml", "annotation #1 (mention E_1)", "non-integer"),
    ("start_after_end.knowtator.xml", "annotation #1 (mention E_1)", "start > end (12 > 5)"),
    ("no_class_mention.knowtator.xml", "annotation #2 (mention E_2)", "classMention"),
    ("no_mention_class_id.knowtator.xml", "classMention #1 (id E_1)", "mentionClass has no id"),
    ("duplicate_mention_id.knowtator.xml", "annotation #2 (mention E_1)", "duplicate mention id 'E_1'"),
    ("wrong_root.knowtator.xml", "<knowtator-project>", "wrong root element"),
    ("no_text_source.knowtator.xml", "<annotations>", "textSource"),
]


@pytest.mark.parametrize(("name", "element", "reason"), ERROR_CASES)
def test_structural_errors_name_file_and_element(name: str, element: str, reason: str) -> None:
    path = KNOWTATOR / name
    with pytest.raises(AnnotationFormatError) as info:
        read_knowtator(path)
    err = info.value
    assert err.source == str(path)
    assert element in (err.element or "")
    assert reason in err.message
    assert str(path) in str(err) and element in str(err)


def test_error_carries_the_line_of_the_annotation() -> None:
    # the second <annotation> of duplicate_mention_id.knowtator.xml opens on line 8
    with pytest.raises(AnnotationFormatError) as info:
        read_knowtator(KNOWTATOR / "duplicate_mention_id.knowtator.xml")
    assert info.value.line == 8


def test_malformed_xml_reports_expat_line() -> None:
    path = KNOWTATOR / "malformed.knowtator.xml"
    with pytest.raises(AnnotationFormatError) as info:
        read_knowtator(path)
    # <span ...> on line 5 is never closed; </annotation> on line 7 mismatches it
    assert info.value.line == 7
    assert "mismatched tag" in info.value.message
    assert str(path) in str(info.value)


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match=r"malformed\.knowtator\.xml"):
        read_knowtator(KNOWTATOR / "malformed.knowtator.xml")


@pytest.mark.parametrize("name", ["billion_laughs.knowtator.xml", "external_entity.knowtator.xml"])
@pytest.mark.parametrize("reader", ["knowtator", "knowtator2"])
def test_hostile_xml_is_refused(name: str, reader: str) -> None:
    path = KNOWTATOR / name
    started = time.perf_counter()
    with pytest.raises(AnnotationFormatError) as info:
        if reader == "knowtator":
            read_knowtator(path)
        else:
            read_knowtator2(path, curies=CurieMap())
    assert time.perf_counter() - started < 2.0  # refused, not expanded
    err = info.value
    assert err.source == str(path)
    assert "refused" in err.message and "DTD" in err.message
    assert "root:" not in str(err)  # nothing from /etc/passwd leaks into the message


def test_missing_file_is_an_os_error() -> None:
    with pytest.raises(FileNotFoundError):
        read_knowtator(KNOWTATOR / "no-such-file.xml")


# -- Knowtator-2 fixtures --------------------------------------------------------------------


def test_knowtator2_valid_file() -> None:
    path = KNOWTATOR / "valid.knowtator2.xml"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a1, a3, a6 = read_knowtator2(path, curies=CurieMap())
    assert (a1.id, a1.document, a1.class_id) == ("valid-1", "valid", "UBERON:0001885")
    assert a1.spans == (Span(36, 49),)
    assert a1.text == "dentate gyrus"
    assert a1.annotator == "Default"
    # extension class IRI -> extension CURIE; spans and texts in file order
    assert a3.class_id == "UBERON_EXT:granule_layer"
    assert a3.spans == (Span(44, 49), Span(4, 22))
    assert a3.text == "gyrus ... granule cell layer"
    # IRI outside the OBO space stays an IRI; no annotator attribute; the empty span is kept
    # (CRAFT's published counts treat MONDO's one such annotation as discontinuous)
    assert a6.class_id == "http://example.org/neuron"
    assert a6.annotator is None
    assert a6.spans == (Span(59, 66), Span(30, 30))
    assert a6.text == "neurons ... "
    messages = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    assert len(messages) == 1 and "valid-6" in messages[0] and "empty" in messages[0]


def test_knowtator2_valid_file_matches_its_text() -> None:
    text = (KNOWTATOR / "valid.txt").read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        anns = read_knowtator2(KNOWTATOR / "valid.knowtator2.xml", curies=CurieMap())
    validate_annotations(anns, text, source="valid")


KNOWTATOR2_ERRORS = [
    ("no_class_id.knowtator2.xml", "annotation #2 (id valid-3)", "<class> has no id"),
    ("bad_offset.knowtator2.xml", "annotation #1 (id valid-1)", "non-integer"),
    ("duplicate_id.knowtator2.xml", "annotation #2 (id valid-1)", "duplicate annotation id"),
    ("valid.knowtator.xml", "<annotations>", "wrong root element"),
    ("malformed.knowtator.xml", "", "mismatched tag"),
]


@pytest.mark.parametrize(("name", "element", "reason"), KNOWTATOR2_ERRORS)
def test_knowtator2_errors(name: str, element: str, reason: str) -> None:
    path = KNOWTATOR / name
    with pytest.raises(AnnotationFormatError) as info:
        read_knowtator2(path, curies=CurieMap())
    assert info.value.source == str(path)
    assert element in (info.value.element or "")
    assert reason in info.value.message


# -- the corpus -----------------------------------------------------------------------------


@pytest.mark.corpus
def test_corpus_has_twenty_sets_of_97(craft_dir: Path) -> None:
    sets = knowtator_sets(craft_dir)
    assert len(sets) == 20
    assert all(len(list(d.glob("*.txt.knowtator.xml"))) == 97 for d in sets)


@dataclass(frozen=True)
class ReadFile:
    """One corpus Knowtator file as read_knowtator read it, with the DataWarnings it gave."""

    path: Path
    annotations: list[Annotation]
    warnings: list[str]


@pytest.fixture(scope="module")
def corpus_files(craft_dir: Path) -> list[ReadFile]:
    """Every Knowtator file of the 20 sets, read once for the two whole-corpus tests below."""
    out = []
    for set_dir in knowtator_sets(craft_dir):
        for path in sorted(set_dir.glob("*.txt.knowtator.xml")):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                anns = read_knowtator(path)
            out.append(ReadFile(path, anns, [str(w.message) for w in caught if issubclass(w.category, DataWarning)]))
    return out


@pytest.mark.corpus
def test_every_knowtator_file_parses_with_raw_counts_and_validates(
    craft_dir: Path, corpus_files: list[ReadFile]
) -> None:
    total = 0
    spanless: list[str] = []
    texts: dict[str, str] = {}
    for f in corpus_files:
        path, anns = f.path, f.annotations
        pmid = path.name.split(".")[0]
        raw = len(RAW_ANNOTATION.findall(path.read_text(encoding="utf-8")))
        assert len(anns) == raw, path
        assert all(a.document == pmid for a in anns), path
        spanless += f.warnings
        text = texts.get(pmid) or texts.setdefault(pmid, article_text(craft_dir, pmid))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            validate_annotations(anns, text, source=str(path))
        total += raw
    assert total == CORPUS_ANNOTATIONS
    assert len(spanless) == 1 and SPANLESS_MENTION in spanless[0]


@pytest.mark.corpus
def test_the_spanless_annotation(craft_dir: Path) -> None:
    path = craft_dir / "concept-annotation" / SPANLESS_SET[0] / SPANLESS_SET[1] / "knowtator"
    path = path / f"{SPANLESS_DOC}.txt.knowtator.xml"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        anns = read_knowtator(path)
    data_warnings = [w for w in caught if issubclass(w.category, DataWarning)]
    assert len(data_warnings) == 1
    assert SPANLESS_MENTION in str(data_warnings[0].message)
    (ann,) = [a for a in anns if a.id == SPANLESS_MENTION]
    assert ann.spans == ()


@pytest.mark.corpus
def test_discontinuous_spans_keep_file_order(corpus_files: list[ReadFile]) -> None:
    # CRAFT v5.0.2: two discontinuous annotations have pieces out of text order and three
    # have overlapping pieces; a reader that sorted or merged spans would lose them.
    out_of_order = overlapping = 0
    for f in corpus_files:
        for ann in f.annotations:
            ordered = sorted(ann.spans)
            out_of_order += list(ann.spans) != ordered
            overlapping += any(a.end > b.start for a, b in itertools.pairwise(ordered))
    assert (out_of_order, overlapping) == (2, 3)


@pytest.mark.corpus
@pytest.mark.parametrize("variant", ["MONDO_with_genotype_annotations", "MONDO_without_genotype_annotations"])
def test_mondo_sets_parse_with_raw_counts(craft_dir: Path, variant: str) -> None:
    folder = craft_dir / "concept-annotation" / "MONDO" / variant / "knowtator-2"
    files = sorted(folder.glob("*.xml"))
    assert len(files) == 97
    curies = CurieMap()
    for path in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)  # one empty span in 16579849
            anns = read_knowtator2(path, curies=curies)
        assert len(anns) == len(RAW_ANNOTATION.findall(path.read_text(encoding="utf-8"))), path
        assert all(a.document == path.stem for a in anns)
        assert not any(a.class_id.startswith("http") for a in anns), path
        validate_annotations(anns, article_text(craft_dir, path.stem), source=str(path))
