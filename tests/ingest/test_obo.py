"""Tests of the streaming OBO reader.

Expected values come from the fixture text as written by hand, or from the raw text of
the real files read here with plain string operations, never from the reader itself.
"""

from __future__ import annotations

import gzip
import re
import warnings
import zipfile
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.errors import DataWarning, InputError, OboSyntaxError
from craftrdf.core.model import Synonym, Term, Typedef
from craftrdf.ingest.files import open_text
from craftrdf.ingest.obo import OboHeader, iter_obo
from tests.helpers.corpus import CRAFT_OBO_FILES
from tests.helpers.corpus import DATA as TESTS_DATA

OBO_DATA = TESTS_DATA / "obo"
VALID = OBO_DATA / "valid.obo"
MALFORMED = OBO_DATA / "malformed.obo"


def read_all(path: Path, **kwargs: bool) -> tuple[list[OboHeader | Term | Typedef], list[warnings.WarningMessage]]:
    """Everything iter_obo yields, and every warning it emits."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        items = list(iter_obo(path, **kwargs))
    return items, caught


def terms_by_id(items: list[OboHeader | Term | Typedef]) -> dict[str, Term]:
    return {i.id: i for i in items if isinstance(i, Term)}


def line_of(path: Path, marker: str) -> int:
    """1-based number of the first line of ``path`` that starts with ``marker``."""
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.startswith(marker):
            return n
    raise AssertionError(f"{marker!r} not in {path}")


# --------------------------------------------------------------------------- valid fixture


def test_header_fields_and_other_tags() -> None:
    header, *_ = read_all(VALID)[0]
    assert header == OboHeader(
        format_version="1.2",
        data_version="fixture/2024-01-01",
        ontology="fix",
        default_namespace="fixture_space",
        tags=(
            ("subsetdef", 'core_slim "Core classes"'),
            ("synonymtypedef", 'LATIN "latin term"'),
            ("remark", "a hand-written fixture ! with a comment"),
        ),
    )


def test_valid_fixture_reads_without_warnings() -> None:
    items, caught = read_all(VALID)
    assert caught == []
    assert isinstance(items[0], OboHeader)
    assert [type(i).__name__ for i in items[1:]] == ["Term"] * 8 + ["Typedef"] * 2


def test_term_with_every_construct() -> None:
    term = terms_by_id(read_all(VALID)[0])["FIX:0000001"]
    assert term.name == "anatomical thing"
    assert term.namespace == "fixture_anatomy"
    # `!`, `{...}` inside quotes are text; \" and \\ are decoded
    assert term.definition == 'Any part of an organism! Not a comment, "quoted" and a \\ backslash {not a modifier}.'
    assert term.comment == "First line.\nSecond line."
    assert term.synonyms == (
        Synonym("exact thing", "EXACT"),
        Synonym("broad thing", "BROAD", "LATIN"),
        Synonym("narrow thing", "NARROW"),
        Synonym("related thing", "RELATED"),
        Synonym("old style exact", "EXACT"),
    )
    assert term.subsets == ("core_slim",)
    assert term.alt_ids == ("FIX:0000101",)
    # escaped colon decoded, quoted description and trailing modifier dropped, escaped newline stripped
    assert term.xrefs == ("http:http://en.wikipedia.org/wiki/Thing", "UMLS:C0000001", "PMID:12345")
    assert term.line == line_of(VALID, "id: FIX:0000001") - 1
    assert term.obsolete is False


def test_is_a_relationship_and_comments() -> None:
    term = terms_by_id(read_all(VALID)[0])["FIX:0000002"]
    assert term.name == "organ"
    assert term.namespace is None
    assert term.is_a == ("FIX:0000001", "FIX:0000003")
    assert term.relationships == (
        ("part_of", "FIX:0000003"),
        ("BFO:0000051", "FIX:0000004"),
        ("connected_to", "FIX:0000003"),
    )


def test_obsolete_and_obo10_synonym() -> None:
    terms = terms_by_id(read_all(VALID)[0])
    old = terms["FIX:0000009"]
    assert old.obsolete is True
    assert old.replaced_by == ("FIX:0000002",)
    assert old.consider == ("FIX:0000003", "FIX:0000004")
    assert terms["FIX:0000004"].synonyms == (Synonym("tissue-like", "RELATED"),)


def test_extension_definitions_and_quote_repairs() -> None:
    terms = terms_by_id(read_all(VALID)[0])
    assert terms["FIX_EXT:organ_or_tissue"].definition == "FIX:'organ' or FIX:'tissue's part'"
    assert terms["FIX_EXT:double_quoted"].definition == "A definition wrapped twice."
    assert terms["FIX_EXT:inner_quote"].definition == "FIX:'organ\" or FIX:tissue"


def test_typedefs() -> None:
    items = read_all(VALID)[0]
    part_of, connected = (i for i in items if isinstance(i, Typedef))
    assert part_of == Typedef(
        id="part_of", name="part of", xrefs=("BFO:0000050",), transitive=True, line=line_of(VALID, "id: part_of") - 1
    )
    assert connected.is_a == ("part_of",)
    assert connected.transitive is False
    assert connected.inverse_of == "connected_to"  # valid.obo: "inverse_of: connected_to"
    assert connected.extra == ()


# --------------------------------------------------------------------------- malformed input

_PROBLEMS = {
    # stanza header line for a missing id; the offending line otherwise
    "no id": ("name: a stanza without an id", -1),
    "unterminated": ('def: "an unterminated', 0),
    "bad scope": ('synonym: "sideways" SIDEWAYS', 0),
    "no colon": ("this line has no colon", 0),
}


def test_malformed_stanzas_warn_with_file_and_line_and_are_skipped() -> None:
    items, caught = read_all(MALFORMED)
    assert list(terms_by_id(items)) == ["BAD:0000001", "BAD:0000006"]
    assert [w.category for w in caught] == [DataWarning] * 4
    for (marker, offset), w in zip(_PROBLEMS.values(), caught, strict=True):
        assert f"{MALFORMED}, line {line_of(MALFORMED, marker) + offset}:" in str(w.message)
        assert w.filename == __file__  # stacklevel points at the caller


def test_malformed_messages_say_what_is_wrong() -> None:
    messages = [str(w.message) for w in read_all(MALFORMED)[1]]
    assert "without an id" in messages[0]
    assert "unterminated quoted string" in messages[1]
    assert "SIDEWAYS" in messages[2]
    assert "without ':'" in messages[3]


def test_tags_reads_only_those_tags_so_other_lines_cannot_be_wrong() -> None:
    # malformed.obo's bad def, bad synonym scope and colon-less line sit in tags not asked for;
    # the stanza without an id is still malformed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        items = list(iter_obo(MALFORMED, tags={"name"}))
    assert list(terms_by_id(items)) == ["BAD:0000001", "BAD:0000003", "BAD:0000004", "BAD:0000005", "BAD:0000006"]
    assert [t.name for t in items if isinstance(t, Term)] == ["first good term", None, None, None, "last good term"]
    assert len(caught) == 1 and "without an id" in str(caught[0].message)
    valid = [t for t in iter_obo(OBO_DATA / "valid.obo", tags={"is_a"}) if isinstance(t, Term)]
    organ = next(t for t in valid if t.id == "FIX:0000002")
    assert organ.is_a == ("FIX:0000001", "FIX:0000003")
    assert organ.name is None and organ.relationships == () and organ.definition is None


def test_strict_raises_at_first_problem() -> None:
    with pytest.raises(OboSyntaxError) as info:
        list(iter_obo(MALFORMED, strict=True))
    assert info.value.source == str(MALFORMED)
    assert info.value.line == line_of(MALFORMED, "name: a stanza without an id") - 1


@pytest.mark.parametrize("problem", list(_PROBLEMS))
def test_strict_line_of_each_problem(problem: str, tmp_path: Path) -> None:
    marker, offset = _PROBLEMS[problem]
    source = MALFORMED.read_text(encoding="utf-8").split("\n")
    start = next(n for n, line in enumerate(source) if line.startswith(marker))
    # keep the header, the stanza with this problem, and nothing else
    stanza_start = max(n for n in range(start + 1) if source[n] == "[Term]")
    stanza_end = next((n for n in range(start, len(source)) if source[n] == ""), len(source))
    path = tmp_path / "one.obo"
    path.write_text("\n".join(source[:3] + source[stanza_start:stanza_end]) + "\n", encoding="utf-8")
    with pytest.raises(OboSyntaxError) as info:
        list(iter_obo(path, strict=True))
    assert info.value.line == 4 + (start - stanza_start) + offset


def test_reading_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "late.obo"
    path.write_text("[Term]\nid: A:1\n\n[Term]\nid: A:2\n\n[Term]\nname: no id\n", encoding="utf-8")
    stream = iter_obo(path, strict=True)
    assert next(stream) == OboHeader()
    assert next(stream).id == "A:1"  # type: ignore[union-attr]
    assert next(stream).id == "A:2"  # type: ignore[union-attr]
    with pytest.raises(OboSyntaxError):
        next(stream)


def test_unknown_stanza_types_warn_once_per_type(tmp_path: Path) -> None:
    path = tmp_path / "kinds.obo"
    path.write_text(
        "[Instance]\nid: I:1\n\n[Term]\nid: A:1\n\n[Instance]\nid: I:2\n\n[Foo]\nid: F:1\n\n[Term]\nid: A:2\n",
        encoding="utf-8",
    )
    items, caught = read_all(path)
    assert list(terms_by_id(items)) == ["A:1", "A:2"]
    assert ["[Instance]" in str(w.message) for w in caught] == [True, False]
    assert "[Foo]" in str(caught[1].message) and "line 10" in str(caught[1].message)


def test_duplicate_id_keeps_first(tmp_path: Path) -> None:
    path = tmp_path / "dup.obo"
    path.write_text("[Term]\nid: A:1\nname: first\n\n[Term]\nid: A:1\nname: second\n", encoding="utf-8")
    items, caught = read_all(path)
    assert [t.name for t in terms_by_id(items).values()] == ["first"]
    assert len(caught) == 1 and "duplicate id 'A:1'" in str(caught[0].message) and "line 5" in str(caught[0].message)
    with pytest.raises(OboSyntaxError) as info:
        list(iter_obo(path, strict=True))
    assert info.value.line == 5


def test_file_without_header_or_stanzas(tmp_path: Path) -> None:
    empty = tmp_path / "empty.obo"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(OboSyntaxError, match="not an OBO ontology"):  # issue 17: not an empty ontology
        read_all(empty)
    bare = tmp_path / "bare.obo"
    bare.write_text("[Term]\nid: A:1\n", encoding="utf-8")
    assert [type(i) for i in read_all(bare)[0]] == [OboHeader, Term]


def test_crlf_bom_and_latin1(tmp_path: Path) -> None:
    path = tmp_path / "latin.obo"
    path.write_bytes(b"\xef\xbb\xbfontology: x\r\n\r\n[Term]\r\nid: A:1\r\nname: caf\xe9 \xc3\xa9t\xc3\xa9\r\n")
    items, caught = read_all(path)
    assert items[0] == OboHeader(ontology="x")
    assert items[1].name == "caf\u00e9 \u00e9t\u00e9"  # type: ignore[union-attr]
    assert len(caught) == 1 and f"{path}, line 5" in str(caught[0].message) and "Latin-1" in str(caught[0].message)
    with pytest.raises(OboSyntaxError) as info:
        list(iter_obo(path, strict=True))
    assert info.value.line == 5


# --------------------------------------------------------------------------- open_text


def test_open_text_gz_and_zip_with_macosx_junk(tmp_path: Path) -> None:
    raw = VALID.read_bytes()
    gz = tmp_path / "valid.obo.gz"
    gz.write_bytes(gzip.compress(raw))
    zp = tmp_path / "valid.obo.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("__MACOSX/", b"")
        z.writestr("__MACOSX/._valid.obo", b"\x00\x05\x16\x07junk")
        z.writestr("valid.obo", raw)
    expected = raw.decode("utf-8")
    for path in (VALID, gz, zp):
        with open_text(path) as stream:
            assert stream.read() == expected
    assert read_all(zp)[0] == read_all(VALID)[0]


@pytest.mark.parametrize("members", [[], ["a.obo", "sub/b.owl"]])
def test_open_text_zip_needs_exactly_one_member(members: list[str], tmp_path: Path) -> None:
    zp = tmp_path / "odd.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("readme.txt", b"not an ontology")
        for m in members:
            z.writestr(m, b"format-version: 1.2\n")
    with pytest.raises(InputError, match=r"odd\.zip"), open_text(zp):
        pass


# --------------------------------------------------------------------------- round trip


def _obo_quote(text: str) -> str:
    """OBO quoted-string escaping, written independently of the reader."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@settings(max_examples=200, deadline=None)
@given(definition=st.text(), synonym=st.text())
def test_quoted_strings_round_trip(definition: str, synonym: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("rt") / "rt.obo"
    path.write_text(
        f"[Term]\nid: A:1\ndef: {_obo_quote(definition)} [A:ref]\nsynonym: {_obo_quote(synonym)} EXACT []\n",
        encoding="utf-8",
    )
    items, caught = read_all(path, strict=True)
    term = items[1]
    assert isinstance(term, Term) and caught == []
    assert term.definition == definition
    assert term.synonyms == (Synonym(synonym, "EXACT"),)


# --------------------------------------------------------------------------- the real files


@cache
def raw_lines(path: Path) -> tuple[str, ...]:
    """The lines of the .obo member of a CRAFT zip, read with zipfile directly."""
    with zipfile.ZipFile(path) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".obo") and not n.startswith("__MACOSX")]
        return tuple(z.read(name).decode("utf-8").split("\n"))


def raw_tag_lines(path: Path) -> Iterator[tuple[str, str, str]]:
    """``(stanza kind, stanza id, line)`` for every tag line inside a stanza."""
    kind, stanza_id = "", ""
    for line in raw_lines(path):
        if line.startswith("["):
            kind, stanza_id = line.strip(), ""
        elif line.startswith("id: ") and kind:
            stanza_id = line[4:].strip()
        elif kind:
            yield kind, stanza_id, line


@cache
def parsed(path: Path) -> tuple[tuple[OboHeader | Term | Typedef, ...], int]:
    items, caught = read_all(path)
    return tuple(items), len(caught)


@pytest.fixture(params=CRAFT_OBO_FILES)
def craft_obo(request: pytest.FixtureRequest, craft_dir: Path) -> Path:
    path = craft_dir / "concept-annotation" / request.param
    if not path.is_file():
        pytest.skip(f"{request.param} not in this copy of CRAFT")
    return path


@pytest.mark.corpus
def test_real_file_counts_and_no_warnings(craft_obo: Path) -> None:
    items, n_warnings = parsed(craft_obo)
    raw = raw_lines(craft_obo)
    assert n_warnings == 0
    kinds = Counter(type(i).__name__ for i in items)
    assert kinds["Term"] == sum(1 for line in raw if line.rstrip() == "[Term]")
    assert kinds["Typedef"] == sum(1 for line in raw if line.rstrip() == "[Typedef]")
    obsolete = sum(1 for i in items if isinstance(i, Term | Typedef) and i.obsolete)
    assert obsolete == sum(1 for line in raw if line.rstrip() == "is_obsolete: true")


@pytest.mark.corpus
def test_real_file_tag_counts(craft_obo: Path) -> None:
    terms = [i for i in parsed(craft_obo)[0] if isinstance(i, Term)]
    raw = Counter(line.split(":", 1)[0] for kind, _, line in raw_tag_lines(craft_obo) if kind == "[Term]")
    assert sum(len(t.synonyms) for t in terms) == raw["synonym"]
    assert sum(len(t.xrefs) for t in terms) == raw["xref"]
    assert sum(len(t.is_a) for t in terms) == raw["is_a"]
    assert sum(len(t.relationships) for t in terms) == raw["relationship"]
    assert sum(t.definition is not None for t in terms) == raw["def"]
    assert sum(len(t.alt_ids) for t in terms) == raw["alt_id"]


@pytest.mark.corpus
def test_real_xrefs_with_escaped_colon(craft_obo: Path) -> None:
    terms = terms_by_id(list(parsed(craft_obo)[0]))
    checked = 0
    for kind, stanza_id, line in raw_tag_lines(craft_obo):
        m = re.fullmatch(r'xref: (\S*\\:\S*)(?: "[^"\\]*")?', line)
        if kind == "[Term]" and m and m.group(1).count("\\") == m.group(1).count("\\:"):
            assert m.group(1).replace("\\:", ":") in terms[stanza_id].xrefs, line
            checked += 1
    if not checked:
        pytest.skip("no xref with an escaped colon in this file")


@pytest.mark.corpus
def test_real_defs_with_escaped_quotes(craft_obo: Path) -> None:
    terms = terms_by_id(list(parsed(craft_obo)[0]))
    checked = 0
    for kind, stanza_id, line in raw_tag_lines(craft_obo):
        m = re.fullmatch(r'def: "(.*)" \[[^"]*\]', line)
        if kind == "[Term]" and m and "\\" in m.group(1) and m.group(1).count("\\") == m.group(1).count('\\"'):
            assert terms[stanza_id].definition == m.group(1).replace('\\"', '"'), line
            checked += 1
    if not checked:
        pytest.skip('no def with \\" in this file')


@pytest.mark.corpus
def test_real_doubly_quoted_defs(craft_obo: Path) -> None:
    terms = terms_by_id(list(parsed(craft_obo)[0]))
    checked = 0
    for kind, stanza_id, line in raw_tag_lines(craft_obo):
        if kind == "[Term]" and line.startswith('def: ""'):
            text = line[len('def: ""') : line.rindex('" [')]
            if "\\" not in text:
                assert terms[stanza_id].definition == text, line
                checked += 1
    if not checked:
        pytest.skip("no doubly quoted def in this file")


def _real(craft_dir: Path, rel: str) -> Path:
    path = craft_dir / "concept-annotation" / rel
    if not path.is_file():
        pytest.skip(f"{rel} not in this copy of CRAFT")
    return path


@pytest.mark.corpus
def test_real_tricky_lines_by_hand(craft_dir: Path) -> None:
    """One hand-decoded example of each construct the strict parsers reject."""
    so = terms_by_id(list(parsed(_real(craft_dir, "SO/SO/SO.obo.zip"))[0]))
    (imprinting,) = [t for t in so.values() if any("Genomic_imprinting" in x for x in t.xrefs)]
    assert "http:http://en.wikipedia.org/wiki/Genomic_imprinting" in imprinting.xrefs

    cl = terms_by_id(list(parsed(_real(craft_dir, "CL/CL/CL.obo.zip"))[0]))
    (podocyte,) = [t for t in cl.values() if (t.definition or "").startswith("A glomerular visceral epithelial cell")]
    assert 'contains "feet" that interdigitate with the "feet" of other glomerular epithelial cells.' in (
        podocyte.definition or ""
    )
    assert "PMID:14699587" in cl["CL:0015000"].xrefs  # raw: 'xref: PMID:14699587 \n'

    so_ext = terms_by_id(list(parsed(_real(craft_dir, "SO/SO+extensions/SO+extensions.obo.zip"))[0]))
    assert so_ext["CHEBI_SO_EXT:rRNA"].definition == "CHEBI:'ribosomal RNA\" or SO_EXT:rRNA"

    go_ext = terms_by_id(
        list(parsed(_real(craft_dir, "GO_MF/GO_MF+extensions/GO_MF_stub+GO_MF_extensions.obo.zip"))[0])
    )
    assert go_ext["GO_EXT:0003674"].definition == (
        "Elemental activities, such as catalysis or binding, describing the actions of a gene product at the "
        "molecular level. A given gene product may exhibit one or more molecular functions."
    )
    assert go_ext["GO_EXT:0033942"].name == (
        "bearer of 4-alpha-D-{(1->4)-alpha-D-glucano}trehalose trehalohydrolase activity"
    )

    ub_ext = parsed(_real(craft_dir, "UBERON/UBERON+extensions/UBERON+extensions.obo.zip"))[0]
    defs = {t.definition for t in ub_ext if isinstance(t, Term)}
    assert "UBERON:'Ammon's horn' or UBERON:'hippocampal formation'" in defs
    al = [s for t in ub_ext if isinstance(t, Term) for s in t.synonyms if s.text == "AL"]
    assert al and all(s.scope == "EXACT" for s in al)  # raw xrefs: [:ISBN ... [Goujet and Young\, 2004\]]


@pytest.mark.corpus
def test_gene_ontology_2022(go_obo: Path) -> None:
    counts: Counter[str] = Counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for item in iter_obo(go_obo):
            if isinstance(item, Term):
                counts["terms"] += 1
                counts["obsolete"] += item.obsolete
    assert caught == []
    assert counts == {"terms": 47_468, "obsolete": 3_910}
