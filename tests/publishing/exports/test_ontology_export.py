"""``export --ontology``: OBO 1.4 that pronto and fastobo load, OWL that owlready2 loads.

Expected terms, labels, synonyms, is_a and relationships are read from the raw OBO text
with plain regular expressions (:func:`raw_terms`), never from craftrdf's reader; the
exported file is read back by pronto and fastobo, two independent parsers.
"""

from __future__ import annotations

import re
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from craftrdf.apps.demo import sample_dir
from craftrdf.building.loader import load_files
from craftrdf.publishing.exports.obo import escape_id, escape_quoted
from craftrdf.publishing.exports.ontology import export_ontology
from craftrdf.store.local import AnnotationStore
from tests.helpers.cli import craftrdf
from tests.helpers.corpus import CRAFT_OBO_FILES, DATA

pronto = pytest.importorskip("pronto")
fastobo = pytest.importorskip("fastobo")

AXIOMS = DATA / "obo" / "axioms.obo"
OWL_NS = "http://www.w3.org/2002/07/owl#"
VALID = DATA / "obo" / "valid.obo"


@dataclass
class RawTerm:
    name: str | None = None
    synonyms: set[tuple[str, str]] = field(default_factory=set)
    is_a: set[str] = field(default_factory=set)
    relationships: set[tuple[str, str]] = field(default_factory=set)


def _text(path: Path) -> str:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            (name,) = [n for n in z.namelist() if n.endswith(".obo") and not n.startswith("__MACOSX")]
            return z.read(name).decode("utf-8")
    return path.read_text(encoding="utf-8")


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


def raw_terms(path: Path) -> dict[str, RawTerm]:
    """[Term] stanzas of the raw text: the first stanza of an id wins, as OBO readers do."""
    out: dict[str, RawTerm] = {}
    blocks = re.split(r"^\[", _text(path), flags=re.MULTILINE)[1:]
    # MOP writes "relationship: has_participant X" for the Typedef "id: BFO:0000057, name:
    # has_participant": a relationship names its Typedef by id, so that is what an export says
    typedef_ids: dict[str, str] = {}
    for block in blocks:
        if block.startswith("Typedef]"):
            tid = re.findall(r"^id: (\S+)", block, re.MULTILINE)[0]
            typedef_ids[tid] = tid
            for name in re.findall(r"^name: (.*?)\s*$", block, re.MULTILINE)[:1]:
                typedef_ids.setdefault(name, tid)
    for block in blocks:
        if not block.startswith("Term]"):
            continue
        ids = re.findall(r"^id: (\S+)", block, re.MULTILINE)
        if not ids or ids[0] in out:
            continue
        t = out[ids[0]] = RawTerm()
        names = re.findall(r"^name: (.*?)\s*(?:\s!\s.*)?$", block, re.MULTILINE)
        t.name = _unescape(names[0]) if names else None
        for text, scope in re.findall(r'^synonym: "((?:[^"\\]|\\.)*)" (\w+)', block, re.MULTILINE):
            t.synonyms.add((_unescape(text), scope))
        for scope, text in re.findall(
            r'^(exact|broad|narrow|related)_synonym: "((?:[^"\\]|\\.)*)"', block, re.MULTILINE
        ):
            t.synonyms.add((_unescape(text), scope.upper()))  # OBO 1.0 synonym tags
        t.is_a = set(re.findall(r"^is_a: (\S+)", block, re.MULTILINE))
        rels = re.findall(r"^relationship: (\S+) (\S+)", block, re.MULTILINE)
        t.relationships = {(typedef_ids.get(r, r), x) for r, x in rels}
    return out


def export(path: Path, tmp_path: Path, fmt: str = "obo") -> tuple[Path, tuple[tuple[str, str], ...]]:
    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = load_files(store, [path])
    (graph,) = report.loaded
    name = graph.rsplit("/", 1)[1]
    out = tmp_path / f"{name}.{fmt}"
    r = export_ontology(store, name, out, format=fmt)  # type: ignore[arg-type]
    return out, r.unwritten


def check_against_raw(exported: Path, expected: dict[str, RawTerm]) -> None:
    """fastobo and pronto load the export; its terms equal the raw file's.

    Names and synonyms are read with pronto; is_a and relationships with fastobo (pronto
    resolves a relationship's target as a term and fails on the many targets CRAFT's
    files reference without declaring them, e.g. CHEBI classes in MOP).
    """
    doc = fastobo.load(str(exported))
    frames = {str(f.id): f for f in doc if isinstance(f, fastobo.term.TermFrame)}
    assert set(frames) == {escape_id(i) for i in expected}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onto = pronto.Ontology(str(exported))
    got = {t.id: t for t in onto.terms()}
    assert set(got) == set(expected)
    for tid, raw in expected.items():
        t = got[tid]
        assert t.name == raw.name, tid
        assert {(s.description, s.scope) for s in t.synonyms} == raw.synonyms, tid
        frame = frames[escape_id(tid)]
        is_a = {str(c.term) for c in frame if isinstance(c, fastobo.term.IsAClause)}
        assert is_a == {escape_id(p) for p in raw.is_a}, tid
        rels = {(str(c.typedef), str(c.term)) for c in frame if isinstance(c, fastobo.term.RelationshipClause)}
        assert rels == {(escape_id(r), escape_id(x)) for r, x in raw.relationships}, tid


def raw_data_version(path: Path) -> str | None:
    """The ``data-version:`` of the raw file's header (the lines before the first stanza)."""
    header = re.split(r"^\[", _text(path), maxsplit=1, flags=re.MULTILINE)[0]
    found = re.findall(r"^data-version: (.*?)\s*$", header, re.MULTILINE)
    return found[0] if found else None


def check_owl_against_raw(exported: Path, path: Path) -> None:
    """pronto reads the OWL export (it wants a typed ``owl:Ontology`` element): the header names the
    ontology graph and carries the raw data-version; every raw term is there with its name and is_a.

    The export may declare more classes: those the extension classes' definitions name by label
    without an id (``https://w3id.org/craftrdf/ref/...``, docs/rdf-model.md).
    """
    expected = raw_terms(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onto = pronto.Ontology(str(exported))
    assert onto.metadata.ontology == "https://w3id.org/craftrdf/ontology/" + exported.stem
    versions = {a.literal for a in onto.metadata.annotations if a.property == OWL_NS + "versionInfo"}
    data_version = raw_data_version(path)
    assert versions == ({data_version} if data_version else set())
    got = {t.id: t for t in onto.terms()}
    assert set(expected) <= set(got)
    assert all(i.startswith("https://w3id.org/craftrdf/ref/") for i in set(got) - set(expected))
    for tid, raw in expected.items():
        assert got[tid].name == raw.name, tid
        assert {c.id for c in got[tid].superclasses(distance=1, with_self=False)} == raw.is_a, tid


def test_owl_exports_of_the_sample_load_in_pronto(tmp_path: Path) -> None:
    files = sorted((sample_dir() / "concept-annotation").glob("*/*/*.obo.zip"))
    assert len(files) == 10
    for path in files:
        exported, _ = export(path, tmp_path, "owl")
        check_owl_against_raw(exported, path)


def test_fixture_exports_load_in_pronto_and_fastobo(tmp_path: Path) -> None:
    for path in (VALID, AXIOMS):
        exported, _ = export(path, tmp_path)
        check_against_raw(exported, raw_terms(path))


def test_union_and_intersection_lines_and_what_obo_cannot_say(tmp_path: Path) -> None:
    exported, unwritten = export(AXIOMS, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onto = pronto.Ontology(str(exported))
    # axioms.obo: manus = autopod region and part_of some forelimb; manus or pes = union
    assert {t.id for t in onto["AX:0000005"].union_of} == {"AX:0000003", "AX:0000004"}
    inter = onto["AX:0000003"].intersection_of
    assert {x.id for x in inter if not isinstance(x, tuple)} == {"AX:0000002"}
    assert {(r.id, x.id) for x in inter if isinstance(x, tuple) for r, x in [x]} == {("part_of", "AX:0000010")}
    # paw is (manus or pes) and part_of some Mammalia: nested, and Mammalia is outside the file;
    # chain's (derives_from o part_of) some forelimb is derives_from some (part_of some forelimb)
    assert sorted(c for c, _ in unwritten) == ["AX_EXT:chain", "AX_EXT:paw"]
    text = exported.read_text(encoding="utf-8")
    assert re.search(r"^remark: .*AX_EXT:paw", text, re.MULTILINE)
    # an extension class's def gets an empty xref list
    assert 'def: "(AX:manus or AX:pes) and part_of some NCBITaxon:Mammalia" []' in text


def test_relationship_lines_are_the_same_whatever_the_store_s_blank_nodes(tmp_path: Path) -> None:
    # valid.obo's FIX:0000002 has three relationships, each a restriction (a blank node in the store, named
    # anew by every load); exported from six loads, the lines are in one order: by relation IRI,
    # .../obo/BFO_0000050 (part_of) < .../obo/BFO_0000051 < .../obo/fix#connected_to
    texts = set()
    for i in range(6):
        (tmp_path / str(i)).mkdir()
        exported, _ = export(VALID, tmp_path / str(i))
        stanza = exported.read_text(encoding="utf-8").split("id: FIX:0000002\n")[1].split("\n\n")[0]
        texts.add(tuple(line for line in stanza.splitlines() if line.startswith("relationship:")))
    (lines,) = texts
    assert [line.split()[2] for line in lines] == ["FIX:0000003", "FIX:0000004", "FIX:0000003"]
    assert "part_of" in lines[0] and "connected_to" in lines[2]


def test_escaping() -> None:
    # OBO 1.4 section 2.1: backslash escapes; quoted strings escape quote, backslash, newline
    assert escape_quoted('a "b" \\ c\nd') == 'a \\"b\\" \\\\ c\\nd'
    assert escape_id("isbn 0080923437") == "isbn\\ 0080923437"
    assert escape_id("X:a,b]") == "X:a\\,b\\]"
    assert escape_id("http://x.org/a b\\c") == "http://x.org/a%20b%5Cc"


def test_owl_export_loads_in_owlready2(tmp_path: Path) -> None:
    owlready2 = pytest.importorskip("owlready2")
    exported, _ = export(AXIOMS, tmp_path, "owl")
    world = owlready2.World()
    onto = world.get_ontology(exported.as_uri()).load()
    names = {c.iri for c in onto.classes()}
    assert "http://purl.obolibrary.org/obo/AX_EXT_paw" in names
    paw = world.search_one(iri="http://purl.obolibrary.org/obo/AX_EXT_paw")
    assert len(paw.equivalent_to) == 1  # (manus or pes) and part_of some Mammalia


#: UBERON's two files, 306,000 and 307,000 quads: half a minute of CPU between them; the default suite
#: exports the eight other CRAFT files, extension classes (CL, MOP, SO, GO_MF) among them
_UBERON_LONG = pytest.mark.long("exporting UBERON and UBERON+extensions to OBO (20 s of CPU; docs/testing.md)")
_OBO_PARAMS = [
    pytest.param(rel, id=rel.rsplit("/", 1)[1], marks=_UBERON_LONG if rel.startswith("UBERON/") else ())
    for rel in CRAFT_OBO_FILES
]


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _OBO_PARAMS)
def test_every_craft_ontology_exports_to_obo_that_pronto_and_fastobo_load(
    craft_dir: Path, rel: str, tmp_path: Path
) -> None:
    path = craft_dir / "concept-annotation" / rel
    if not path.is_file():
        pytest.skip(f"{rel} not in this copy of CRAFT")
    exported, _ = export(path, tmp_path)
    check_against_raw(exported, raw_terms(path))


_OWL_PARAMS = [
    pytest.param(
        rel,
        id=rel.rsplit("/", 1)[1],
        marks=pytest.mark.long("UBERON to OWL, read by pronto: 15 s per file at load 5 on 2 cores")
        if rel.startswith("UBERON/")
        else (),
    )
    for rel in CRAFT_OBO_FILES
]


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _OWL_PARAMS)
def test_every_craft_ontology_exports_to_owl_that_pronto_loads(craft_dir: Path, rel: str, tmp_path: Path) -> None:
    path = craft_dir / "concept-annotation" / rel
    if not path.is_file():
        pytest.skip(f"{rel} not in this copy of CRAFT")
    exported, _ = export(path, tmp_path, "owl")
    check_owl_against_raw(exported, path)


@pytest.mark.corpus
def test_mop_and_go_mf_stub_load_as_shipped(craft_dir: Path, tmp_path: Path) -> None:
    # the two CRAFT files that need no export (docs/ontologies.md said none loads)
    for rel in ("MOP/MOP/MOP.obo.zip", "GO_MF/GO_MF/GO_MF_stub.obo.zip"):
        path = craft_dir / "concept-annotation" / rel
        if not path.is_file():
            pytest.skip(f"{rel} not in this copy of CRAFT")
        plain = tmp_path / path.name.removesuffix(".zip")
        plain.write_text(_text(path), encoding="utf-8")
        assert len(fastobo.load(str(plain))) > 0


def test_cli_exports_an_ontology(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert craftrdf("load", str(AXIOMS), "--store", store).returncode == 0
    out = tmp_path / "axioms.obo"
    r = craftrdf("export", "--store", store, "--ontology", "axioms", "--format", "obo", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "AX_EXT:paw" in r.stdout  # listed as not expressible in OBO 1.4
    assert len(fastobo.load(str(out))) > 0
    r = craftrdf("export", "--store", store, "--ontology", "axioms", "--format", "jsonld", "--out", str(out))
    assert r.returncode == 1 and "owl, obo, ttl" in r.stderr
