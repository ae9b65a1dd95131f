"""The endpoint over the full corpus store: counts match the raw Knowtator files, VoID lists every set."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pyoxigraph as ox
import pytest
from starlette.testclient import TestClient

from craftrdf.core.vocab import BASE
from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def client(corpus_store, tmp_path_factory):
    with WorkerPool(StoreOpener(str(corpus_store)), size=2) as pool:
        app = create_app(
            pool, config=ServerConfig(timeout=120), dump_dir=tmp_path_factory.mktemp("dumps"), viewer=False
        )
        yield TestClient(app)


def test_uberon_ext_count_matches_the_raw_files(client, craft_dir):
    folder = craft_dir / "concept-annotation" / "UBERON" / "UBERON+extensions" / "knowtator"
    expected = sum(len(ET.parse(p).getroot().findall("annotation")) for p in folder.glob("*.knowtator.xml"))
    q = f"SELECT (COUNT(?a) AS ?n) WHERE {{ GRAPH <{BASE}set/UBERON_EXT> {{ ?a a <http://www.w3.org/ns/oa#Annotation> }} }}"
    r = client.post("/sparql", data={"query": q}, headers={"Accept": "text/tab-separated-values"})
    assert r.status_code == 200, r.text
    rows = list(ox.parse_query_results(r.content, ox.QueryResultsFormat.TSV))
    assert int(rows[0]["n"].value) == expected


def test_void_has_a_subset_per_corpus_set(client, craft_dir):
    r = client.get("/.well-known/void", headers={"Accept": "application/n-triples"})
    assert r.status_code == 200
    subsets = {
        t.object.value
        for t in (q.triple for q in ox.parse(r.content, ox.RdfFormat.N_TRIPLES))
        if t.predicate.value == "http://rdfs.org/ns/void#subset"
    }
    folders = [
        p
        for p in (craft_dir / "concept-annotation").glob("*/*")
        if (p / "knowtator").is_dir() or (p / "knowtator-2").is_dir()
    ]
    set_subsets = [s for s in subsets if s.startswith(BASE + "set/")]
    assert len(set_subsets) >= len(folders) >= 20


def test_document_dereferences_with_the_raw_text(client, craft_dir):
    path = sorted((craft_dir / "articles" / "txt").glob("*.txt"))[-1]
    r = client.get(f"/doc/{path.stem}", headers={"Accept": "application/n-triples"})
    assert r.status_code == 200
    texts = [
        t.object.value
        for t in (q.triple for q in ox.parse(r.content, ox.RdfFormat.N_TRIPLES))
        if t.predicate.value.endswith("vocab#text")
    ]
    assert texts == [path.read_text(encoding="utf-8")]
