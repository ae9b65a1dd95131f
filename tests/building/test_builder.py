"""Building a store from a CRAFT-layout directory, checked against the raw files of the bundled sample."""

from __future__ import annotations

import re
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest

from craftrdf.apps.demo import sample_dir
from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.core.errors import InputError
from craftrdf.core.registry import load_registry
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.store.local import AnnotationStore

SAMPLE = sample_dir()
CA = SAMPLE / "concept-annotation"


@pytest.fixture(scope="module")
def built() -> AnnotationStore:
    store = AnnotationStore.memory()
    build_store(SAMPLE, store, RunContext.create())
    return store


def _raw_counts() -> Counter[tuple[str, str, str]]:
    """(set key, split, 'all'|'disc') -> count, straight from the sample's XML text."""
    split = {}
    for s in ("train", "dev", "test"):
        for pmid in (SAMPLE / "articles" / "ids" / f"craft-ids-{s}.txt").read_text().split():
            split[pmid] = s
    out: Counter[tuple[str, str, str]] = Counter()
    for spec in load_registry().sets.values():
        for f in (CA / spec.annotations).glob("*.xml"):
            pmid = f.name.split(".")[0]
            text = f.read_text(encoding="utf-8")
            blocks = re.findall(r"<annotation[ >].*?</annotation>", text, flags=re.S)
            out[(spec.key, split[pmid], "all")] += len(blocks)
            out[(spec.key, split[pmid], "disc")] += sum(1 for b in blocks if len(re.findall(r"<span ", b)) > 1)
    return out


def test_counts_per_set_and_split_match_the_raw_files(built):
    raw = _raw_counts()
    result = run_query(built, resolve_query("annotation-counts"))
    got: Counter[tuple[str, str, str]] = Counter()
    for s, split, n, disc in result.rows:
        got[(s.value, split.value, "all")] = int(n.value)
        got[(s.value, split.value, "disc")] = int(disc.value)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in raw.items() if v}


def test_rebuild_adds_nothing(built):
    before = len(built)
    report = build_store(SAMPLE, built, RunContext.create())
    assert report.loaded == {}
    assert len(built) == before
    assert len(report.unchanged) > 40


def test_absent_ontologies_are_reported_not_fatal(built):
    report = build_store(SAMPLE, built, RunContext.create())
    assert "PR_EXT" in report.skipped and "PR+extensions.obo.zip" in report.skipped["PR_EXT"]
    assert "UBERON" not in report.skipped
    # PR_EXT annotations are loaded all the same
    rows = run_query(built, resolve_query("sets"), {"set": "PR_EXT"}).rows
    assert int(rows[0][4].value) > 0


def _raw_obo(zip_path: Path) -> str:
    with zipfile.ZipFile(zip_path) as z:
        return z.read(z.namelist()[0]).decode("utf-8")


def _stanza(obo: str, cid: str) -> str:
    m = re.search(rf"\[Term\]\nid: {re.escape(cid)}\n(.*?)(?:\n\n|\Z)", obo, flags=re.S)
    assert m, cid
    return m.group(1)


def test_parallel_extension_classes_get_base_link_and_label(built):
    xml = "".join(p.read_text() for p in (CA / "SO/SO+extensions/knowtator").glob("*.xml"))
    used = sorted(set(re.findall(r'mentionClass id="(SO_EXT:\d+)"', xml)))
    assert used, "the sample has SO_EXT parallel classes"
    obo = _raw_obo(CA / "SO/SO+extensions/SO+extensions.obo.zip")
    for cid in used:
        base = cid.replace("SO_EXT:", "SO:")
        label = re.search(r"^name: (.*)$", _stanza(obo, base), flags=re.M).group(1)
        rows = list(
            built.query(
                "SELECT ?c ?base ?label WHERE { GRAPH ?g { ?c <https://w3id.org/craftrdf/vocab#parallelOf> ?base ; "
                "<http://www.w3.org/2000/01/rdf-schema#label> ?label } }",
                substitutions={"c": ox.NamedNode("http://purl.obolibrary.org/obo/" + cid.replace(":", "_"))},
            )
        )
        assert [(r["base"].value, r["label"].value) for r in rows] == [
            ("http://purl.obolibrary.org/obo/" + base.replace(":", "_"), label)
        ]


def test_mapping_files_become_triples(built):
    line = (
        (CA / "CL/CL+extensions/unused_classes_and_substitute_extension_classes_for_CL+extensions_annotations.txt")
        .read_text()
        .split("\n")[0]
        .split("\t")
    )
    assert line == ["CL:0000000", "CL_GO_EXT:cell"]
    ask = (
        "ASK { GRAPH ?g { <http://purl.obolibrary.org/obo/CL_0000000> "
        "<https://w3id.org/craftrdf/vocab#substituteClass> <http://purl.obolibrary.org/obo/CL_GO_EXT_cell> } }"
    )
    assert bool(built.query(ask))


def test_extension_class_keeps_its_logical_definition(built):
    obo = _raw_obo(CA / "UBERON/UBERON+extensions/UBERON+extensions.obo.zip")
    cid = re.search(r"^id: (UBERON_EXT:\S+)$", obo, flags=re.M).group(1)
    definition = re.search(r'^def: "(.*)"$', _stanza(obo, cid), flags=re.M).group(1)
    rows = list(
        built.query(
            "SELECT ?c ?d WHERE { GRAPH ?g { ?c a <https://w3id.org/craftrdf/vocab#ExtensionClass> ; "
            "<https://w3id.org/craftrdf/vocab#logicalDefinition> ?d } }",
            substitutions={"c": ox.NamedNode("http://purl.obolibrary.org/obo/" + cid.replace(":", "_"))},
        )
    )
    assert [r["d"].value for r in rows] == [definition.replace("\\'", "'")]


def test_documents_carry_ids_and_split(built):
    mapping = (SAMPLE / "articles/ids/craft-idmappings.txt").read_text().splitlines()
    expected = {line.split("\t")[2]: line.split("\t")[1] for line in mapping if not line.startswith("#")}
    rows = built.query(
        "SELECT ?pmid ?pmc ?split WHERE { GRAPH ?g { ?d <http://purl.org/spar/fabio/hasPubMedId> ?pmid ; "
        "<http://purl.org/spar/fabio/hasPubMedCentralId> ?pmc ; <https://w3id.org/craftrdf/vocab#split> ?split } }"
    )
    got = {r["pmid"].value: (r["pmc"].value, r["split"].value) for r in rows}
    assert {k: v[0] for k, v in got.items()} == expected
    assert got["11319941"][1] == "test"


def test_a_bad_file_stops_the_build_and_names_it(tmp_path):
    craft = tmp_path / "craft"
    shutil.copytree(SAMPLE, craft)
    bad = next((craft / "concept-annotation/CL/CL/knowtator").glob("*.xml"))
    bad.write_text(re.sub(r'<span start="(\d+)"', r'<span start="999999"', bad.read_text(), count=1))
    with AnnotationStore.open(tmp_path / "s") as store:
        with pytest.raises(InputError) as info:
            build_store(craft, store, RunContext.create())
        assert bad.name in str(info.value)
        # the failing set is absent; what was loaded before it is complete
        keys = {r[0].value for r in run_query(store, resolve_query("sets")).rows}
        assert "CL" not in keys and "CHEBI" in keys


MONDO_OWL = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
         xmlns:owl="http://www.w3.org/2002/07/owl#">
  <owl:Class rdf:about="http://purl.obolibrary.org/obo/MONDO_0007739">
    <rdfs:label>Huntington disease</rdfs:label>
    <rdfs:subClassOf rdf:resource="http://purl.obolibrary.org/obo/MONDO_0005395"/>
  </owl:Class>
</rdf:RDF>
"""


def test_an_owl_ontology_loads_through_pyoxigraph(tmp_path):
    craft = tmp_path / "craft"
    shutil.copytree(SAMPLE, craft)
    (craft / "concept-annotation/MONDO/mondo.owl").write_text(MONDO_OWL)
    store = AnnotationStore.memory()
    report = build_store(craft, store, RunContext.create(), sets=["MONDO_WITH_GENOTYPE_ANNOTATIONS"])
    assert "MONDO_WITH_GENOTYPE_ANNOTATIONS" not in report.skipped
    rows = list(
        store.query(
            "SELECT ?g ?label WHERE { GRAPH ?g { <http://purl.obolibrary.org/obo/MONDO_0007739> "
            "<http://www.w3.org/2000/01/rdf-schema#label> ?label } }"
        )
    )
    assert [(r["g"].value, r["label"].value) for r in rows] == [
        ("https://w3id.org/craftrdf/ontology/mondo", "Huntington disease")
    ]
    onto = run_query(store, resolve_query("sets"), {"set": "MONDO_WITH_GENOTYPE_ANNOTATIONS"}).rows[0][3]
    assert onto.value == "https://w3id.org/craftrdf/ontology/mondo"


def test_a_broken_owl_file_is_an_input_error_naming_it(tmp_path):
    craft = tmp_path / "craft"
    shutil.copytree(SAMPLE, craft)
    (craft / "concept-annotation/MONDO/mondo.owl").write_text(MONDO_OWL.replace("</owl:Class>", ""))
    store = AnnotationStore.memory()
    with pytest.raises(InputError, match=r"mondo\.owl"):
        build_store(craft, store, RunContext.create(), sets=["MONDO_WITH_GENOTYPE_ANNOTATIONS"])
