"""Hostile inputs to ``craftrdf load`` (issue 28, item 8, "Writers").

Each probe of the issue is one line on stderr naming the file and what is wrong, exit status 1,
and a store holding exactly the quads it held before. The expected limits come from the sources
they bound: pyoxigraph's parser and bulk loader take 16 MiB in one line or term; the OBO line
limit and the expansion bound are constants of craftrdf, set from the longest line and the
compression ratios of CRAFT's own OBO files (measured on ../shared/craft, see docs/rdf-model.md).
"""

from __future__ import annotations

import gzip
import shutil
import warnings
import zipfile
from pathlib import Path

import pyoxigraph as ox
import pytest

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.core.errors import DataWarning, InputError
from craftrdf.ingest import files
from craftrdf.ingest.obo import MAX_LINE_CHARS
from craftrdf.ingest.rdfsource import rdf_file_nquads
from tests.helpers.corpus import DATA

TRIPLE = '<http://e/s{}> <http://e/p> "v" .\n'
MIB16 = 16 * 1024 * 1024  # pyoxigraph's buffer, as its MemoryError states it


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one ontology (tests/data/obo/valid.obo), closed; tests copy it."""
    store = tmp_path_factory.mktemp("template") / "s.store"
    assert main(["-q", "load", "--store", str(store), str(DATA / "obo" / "valid.obo")]) == 0
    return store


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    """A copy of the template store, for one test to write to."""
    return Path(shutil.copytree(template, tmp_path / "s.store"))


def dump(store: Path) -> list[str]:
    """Every quad of the store, sorted."""
    return sorted(str(q) for q in ox.Store.read_only(str(store)))


def refused(store: Path, f: Path, body: bytes | str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """Write ``body`` to ``f`` and load it; assert exit 1, one line naming ``f`` and an unchanged store; return that line."""
    if isinstance(body, str):
        f.write_text(body, encoding="utf-8")
    else:
        f.write_bytes(body)
    before = dump(store)
    capsys.readouterr()
    assert main(["-q", "load", "--store", str(store), str(f), *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(f) in err[0], err
    assert dump(store) == before
    return err[0]


def test_a_60_mb_ntriples_literal_is_one_line_naming_the_parsers_limit(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "big.nt"
    line = refused(store, f, '<http://e/s> <http://e/p> "' + "a" * 60_000_000 + '" .\n', capsys)
    assert "too large to parse" in line and f"{MIB16}" in line, line


def test_a_30_mb_obo_line_is_refused_with_its_number_and_length(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "big.obo"
    line = refused(store, f, "format-version: 1.2\n\n[Term]\nid: X:1\nname: " + "a" * 30_000_000 + "\n", capsys)
    # line 5; "name: " and 30,000,000 letters
    assert f"{f}, line 5: a line of 30,000,006 characters" in line and f"{MAX_LINE_CHARS:,}" in line, line


def test_the_obo_line_limit_is_far_above_craft_and_counts_the_line_end_right(tmp_path: Path) -> None:
    """The longest line of CRAFT's OBO files is 3,008 characters (UBERON.obo, line 15317)."""
    from craftrdf.ingest.obo import iter_obo

    assert MAX_LINE_CHARS >= 300 * 3008 and MAX_LINE_CHARS < MIB16
    f = tmp_path / "edge.obo"
    value = "b" * (10 - len("name: "))  # exactly 10 characters before the LF
    f.write_text(f"[Term]\nid: X:1\nname: {value}\n")
    assert [getattr(i, "id", None) for i in iter_obo(f, max_line=10)] == [None, "X:1"]
    f.write_text(f"[Term]\nid: X:1\nname: {value}b")  # 11, no final LF
    with pytest.raises(InputError, match=r", line 3: a line of 11 characters, longer than the limit of 10"):
        list(iter_obo(f, max_line=10))


def test_a_0_byte_turtle_file_is_no_triples(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "empty.ttl"
    assert "no triples" in refused(store, f, b"", capsys)
    assert "no triples" in refused(store, f, "@prefix e: <http://e/> .\n# prefixes and comments only\n", capsys)


def bomb(path: Path, repeats: int) -> None:
    """5 distinct triples, then the first one again ``repeats`` times: gzip makes it hundreds of times smaller."""
    with gzip.open(path, "wb") as out:
        out.write("".join(TRIPLE.format(i) for i in range(5)).encode())
        out.write(TRIPLE.format(0).encode() * repeats)


def test_a_gzip_bomb_is_refused_once_it_expands_past_the_bound(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's bomb at a tenth of its size, the 16 MiB floor lowered so it trips early (same code path)."""
    monkeypatch.setattr(files, "MIN_EXPANDED", 1 << 16)
    f = tmp_path / "bomb.nt.gz"
    bomb(f, 300_000)  # 10 MB of text
    packed = f.stat().st_size
    assert packed * files.MAX_EXPANSION < 10_000_000  # independent check that this is a bomb by the bound
    line = refused(store, f, f.read_bytes(), capsys)
    assert f"expands more than {files.MAX_EXPANSION} times" in line and f"from {packed:,}" in line, line


@pytest.mark.long("the issue's gzip bomb at full size: 3,000,005 lines, about 10 s")
def test_the_full_gzip_bomb_is_refused_at_the_default_bound(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "bomb.nt.gz"
    bomb(f, 3_000_000)
    assert "decompression bomb" in refused(store, f, f.read_bytes(), capsys)


def test_a_zipped_bomb_is_refused_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MIN_EXPANDED", 1 << 16)
    f = tmp_path / "x.owl.zip"
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.owl", b" " * 5_000_000)
    with pytest.raises(InputError, match="decompression bomb"), files.open_text(f) as text:
        text.read()


def test_the_count_reported_is_what_the_store_holds(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """5 distinct triples among 1,005 lines, gzipped as in the issue: the store holds 5, so 5 is reported."""
    f = tmp_path / "dups.nt.gz"
    bomb(f, 1000)
    capsys.readouterr()
    assert main(["-q", "load", "--store", str(store), str(f)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["https://w3id.org/craftrdf/ontology/dups.nt: 5 quads"], out
    g = ox.NamedNode("https://w3id.org/craftrdf/ontology/dups.nt")
    held = list(ox.Store.read_only(str(store)).quads_for_pattern(None, ox.NamedNode("http://e/p"), None, g))
    assert len(held) == 5


def test_an_rdf_line_over_the_bulk_loaders_buffer_is_one_error(tmp_path: Path) -> None:
    """Past the parser, the bulk loader's own 16 MiB bound is a StoreError naming the batch, the store untouched."""
    from craftrdf.core.errors import StoreError
    from craftrdf.store.local import AnnotationStore

    with AnnotationStore.open(tmp_path / "s.store") as s:
        s.load_batch("http://e/g", ['<http://e/s> <http://e/p> "v" <http://e/g> .'], digest="1")
        before = sorted(map(str, s.raw))
        big = f'<http://e/s> <http://e/p> "{"a" * (MIB16 + 1)}" <http://e/h> .'
        with pytest.raises(StoreError, match=r"^batch http://e/h not written, too large to load: .*16777216"):
            s.load_batch("http://e/h", [big], digest="2")
        assert sorted(map(str, s.raw)) == before


def test_a_knowtator_file_without_annotations_loads_and_is_named(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CRAFT has such files (GO_MF 11319941 among them, bundled): said, not refused; nothing is written."""
    f = sample_dir() / "concept-annotation" / "GO_MF" / "GO_MF" / "knowtator" / "11319941.txt.knowtator.xml"
    assert "<annotation>" not in f.read_text(encoding="utf-8")
    before = dump(store)
    capsys.readouterr()
    assert main(["-q", "load", "--store", str(store), str(f), "--set", "MINE"]) == 0
    out = capsys.readouterr().out
    assert f"1 annotation file(s) hold no annotations: {f}" in out and "nothing loaded" in out, out
    assert dump(store) == before


def test_rdf_reader_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "e.nt"
    f.write_text("# nothing\n")
    with pytest.raises(InputError, match=rf"^{f}: no triples"):
        list(rdf_file_nquads(f, graph="http://e/g"))


# the small probes, each with what its one line must say (Latin-1 "é" is byte 0xe9, not UTF-8)
SMALL = {
    "bad.ttl": (b'<http://e/s> <http://e/p> "caf\xe9" .\n', "not UTF-8 text (byte 0xe9)"),
    "bad.nt": (b'<http://e/s> <http://e/p> "caf\xe9" .\n', "not UTF-8 text (byte 0xe9)"),
    "bad.jsonld": (b'{"@id": "http://e/s", "http://e/p": "caf\xe9"}\n', "not UTF-8 text (byte 0xe9)"),
    "bad.owl": (
        b'<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        b'xmlns:l="http://e/"><rdf:Description rdf:about="http://e/s"><l:p>caf\xe9</l:p>'
        b"</rdf:Description></rdf:RDF>\n",
        "not UTF-8 text (byte 0xe9)",
    ),
    "11319941.bionlp": (b"T1\tUBERON:0000955 0 5\tbr\xe9in\n", "line 1: not UTF-8: byte 0xe9"),
    "d1.bionlp": (
        ("T1\tUBERON:0000955 " + "9" * 5000 + " " + "9" * 5001 + "\tbrain\n").encode(),
        "line 1: bad offsets",
    ),
    "malformed.obo": (b"format-version: 1.2\n\n[Term]\nname: no id here\n", "no [Term] or [Typedef] stanza"),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_each_small_probe_is_one_line_and_changes_nothing(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    body, says = SMALL[name]
    f = tmp_path / name
    extra = ("--set", "MINE") if name.endswith(".bionlp") else ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # the malformed stanza is warned about before the error
        line = refused(store, f, body, capsys, *extra)
    assert says in line, line
