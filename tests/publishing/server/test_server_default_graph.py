"""Where the served data is: the union default graph, the index page, VoID, and the query page for browsers.

rdflib's SPARQLStore (a client that names no graph) is run against a real uvicorn serving the
sample store; expected counts come from the store opened directly with pyoxigraph and from the
sample's raw Knowtator files, never from the server's answers alone.
"""

from __future__ import annotations

import html
import re

import httpx
import pyoxigraph as ox
import pytest
from starlette.testclient import TestClient

from craftrdf.core.vocab import BASE, OBO, RDFS
from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from craftrdf.store.local import AnnotationStore
from tests.helpers.sample import raw_set
from tests.helpers.server import running

SD = "http://www.w3.org/ns/sparql-service-description#"
VOID = "http://rdfs.org/ns/void#"
BRAIN = OBO.NS + "UBERON_0000955"
UBERON_EXT = BASE + "set/UBERON_EXT"
#: What Firefox and Chromium send for a page.
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
OA_ANN = "http://www.w3.org/ns/oa#Annotation"
COUNT_ANNOTATIONS = f"SELECT (COUNT(?a) AS ?n) WHERE {{ ?a a <{OA_ANN}> }}"


@pytest.fixture(scope="module")
def store_path(sample_store_copy, tmp_path_factory):
    return sample_store_copy(tmp_path_factory.mktemp("default-graph") / "sample.store")


@pytest.fixture(scope="module")
def direct(store_path):
    """What the store holds, read with pyoxigraph beside the server (read-only: shared lock)."""
    with AnnotationStore.open(store_path, mode="read") as store:
        raw = store.raw
        yield {
            "quads": len(raw),
            "default": len(list(raw.quads_for_pattern(None, None, None, ox.DefaultGraph()))),
            "graphs": {g.value for g in raw.named_graphs()},
        }


@pytest.fixture(scope="module")
def pool(store_path):
    with WorkerPool(StoreOpener(str(store_path)), size=1) as p:
        yield p


def _app(pool, tmp_path_factory, **config):
    cfg = ServerConfig(base_iri="http://testserver/", timeout=30, **config)
    return create_app(pool, config=cfg, dump_dir=tmp_path_factory.mktemp("dumps"), viewer=False)


@pytest.fixture(scope="module")
def union_app(pool, tmp_path_factory):
    return _app(pool, tmp_path_factory, union_default_graph=True)


@pytest.fixture(scope="module")
def plain_app(pool, tmp_path_factory):
    return _app(pool, tmp_path_factory)


def _count(client, query: str, **params) -> int:
    r = client.get("/sparql", params={"query": query, **params}, headers={"Accept": "application/sparql-results+json"})
    assert r.status_code == 200, r.text
    return int(r.json()["results"]["bindings"][0]["n"]["value"])


def _raw_annotations(folder: str) -> int:
    return sum(len(v) for v in raw_set(folder).values())


# -- rdflib, a client that names no graph ---------------------------------------------------------


def test_rdflib_sparqlstore_sees_every_triple_with_the_union_default_graph(union_app, direct):
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import RDFS as RDFLIB_RDFS
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    assert direct["default"] == 0 and direct["quads"] > 10_000  # a built store: all in named graphs
    with running(union_app) as url:
        graph = Graph(store=SPARQLStore(url + "sparql", returnFormat="json"))
        seen = len(graph)
        named = int(
            httpx.get(
                url + "sparql",
                params={"query": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"},
                headers={"Accept": "application/sparql-results+json"},
            ).json()["results"]["bindings"][0]["n"]["value"]
        )
        # one row per quad (pyoxigraph's union keeps a triple once per graph holding it)
        assert seen == named == direct["quads"]
        # a triple of the sample's UBERON.obo ("name: brain"), asked without naming a graph
        assert (URIRef(BRAIN), RDFLIB_RDFS.label, Literal("brain")) in graph


def test_without_the_flag_the_default_graph_is_empty(plain_app, direct):
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import RDFS as RDFLIB_RDFS
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    with running(plain_app) as url:
        graph = Graph(store=SPARQLStore(url + "sparql", returnFormat="json"))
        assert len(graph) == direct["default"] == 0
        assert (URIRef(BRAIN), RDFLIB_RDFS.label, Literal("brain")) not in graph


def test_a_query_or_request_naming_its_dataset_gets_that_dataset_with_the_union_on(union_app):
    client = TestClient(union_app)
    ext = _raw_annotations("UBERON/UBERON+extensions")
    core = _raw_annotations("UBERON/UBERON")
    assert ext != core
    # FROM in the query: that graph only (pyoxigraph's own union flag would override it)
    assert _count(client, f"SELECT (COUNT(?a) AS ?n) FROM <{UBERON_EXT}> WHERE {{ ?a a <{OA_ANN}> }}") == ext
    # the protocol's default-graph-uri
    assert _count(client, COUNT_ANNOTATIONS, **{"default-graph-uri": UBERON_EXT}) == ext
    # named-graph-uri alone: the default graph is then empty, as the protocol says
    assert _count(client, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", **{"named-graph-uri": UBERON_EXT}) == 0
    # no dataset named: every set's annotations, once per set
    every = sum(_raw_annotations(f"{m}/{m}") + _raw_annotations(f"{m}/{m}+extensions") for m in ("UBERON", "CL"))
    assert _count(client, COUNT_ANNOTATIONS) > every
    # a variable or a prefixed name spelt "from" is not a dataset clause
    q = f"PREFIX from: <{OBO.NS}> SELECT (COUNT(?from) AS ?n) WHERE {{ ?from <{RDFS.label}> ?l FILTER(?from = from:UBERON_0000955) }}"
    assert _count(client, q) >= 1


# -- saying where the data is ---------------------------------------------------------------------


@pytest.mark.parametrize("union", [False, True])
def test_index_page_says_where_the_data_is(pool, tmp_path_factory, union):
    client = TestClient(_app(pool, tmp_path_factory, union_default_graph=union))
    r = client.get("/")
    assert r.status_code == 200 and "<script" not in r.text
    note = html.unescape(re.search(r'<p id="default-graph">(.*?)</p>', r.text).group(1))
    assert ("union of all named graphs" in note) is union
    assert ("default graph is empty" in note) is not union
    for iri in (UBERON_EXT, BASE + "ontology/UBERON+extensions", BASE + "documents"):
        assert iri in r.text
    (listing,) = re.findall(r'<a href="(sparql\?query=[^"]+)">List the named graphs</a>', r.text)
    listed = client.get("/" + html.unescape(listing), headers={"Accept": "text/tab-separated-values"})
    assert listed.status_code == 200 and len(listed.text.splitlines()) > 10


@pytest.mark.parametrize("union", [False, True])
def test_void_describes_the_default_graph_and_names_every_graph(pool, tmp_path_factory, direct, union):
    client = TestClient(_app(pool, tmp_path_factory, union_default_graph=union))
    r = client.get("/.well-known/void", headers={"Accept": "text/turtle"})
    assert r.status_code == 200
    g = list(ox.parse(r.content, ox.RdfFormat.TURTLE))

    def objects(s, p):
        return [t.object for t in g if t.subject == s and t.predicate == ox.NamedNode(p)]

    service = ox.NamedNode("http://testserver/sparql")
    ds = ox.NamedNode("http://testserver/.well-known/void#dataset")
    assert objects(service, SD + "defaultDataset") == [ds]
    assert (ox.NamedNode(SD + "UnionDefaultGraph") in objects(service, SD + "feature")) is union
    (default,) = objects(ds, SD + "defaultGraph")
    (size,) = objects(default, VOID + "triples")
    assert int(size.value) == (direct["quads"] if union else direct["default"])
    names = {o.value for entry in objects(ds, SD + "namedGraph") for o in objects(entry, SD + "name")}
    assert names == direct["graphs"]
    (comment,) = objects(ds, RDFS.comment)
    assert ("union of all named graphs" in comment.value) is union
    assert ("default graph is empty" in comment.value) is not union


# -- the query page -------------------------------------------------------------------------------


def test_browsers_get_a_query_page_and_other_clients_the_protocol_400(plain_app):
    client = TestClient(plain_app)
    r = client.get("/sparql", headers={"Accept": BROWSER})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<form method="get">' in r.text and '<textarea name="query"' in r.text
    assert "<script" not in r.text and "http://" not in r.text.split('<section id="data">')[0]
    assert "script-src" not in r.headers["content-security-policy"]  # default-src 'none': no script at all
    assert "default graph is empty" in r.text
    for accept in (None, "*/*", "application/sparql-results+json"):
        r = client.get("/sparql", headers={"Accept": accept} if accept else {})
        assert r.status_code == 400 and "missing 'query'" in r.text, accept


def test_the_form_shows_results_as_a_table(plain_app):
    client = TestClient(plain_app)
    query = f"SELECT (COUNT(?a) AS ?n) WHERE {{ GRAPH <{UBERON_EXT}> {{ ?a a <{OA_ANN}> }} }}"
    r = client.get("/sparql", params={"query": query}, headers={"Accept": BROWSER})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    cells = re.findall(r"<td><span class=lit>(\d+)</span></td>", r.text)
    assert cells == [str(_raw_annotations("UBERON/UBERON+extensions"))]
    assert html.escape(query) in r.text  # the form keeps the query
    r = client.get(
        "/sparql",
        params={"query": f"SELECT ?l WHERE {{ GRAPH ?g {{ <{BRAIN}> <{RDFS.label}> ?l }} }}"},
        headers={"Accept": BROWSER},
    )
    assert "<span class=lit>brain</span>" in r.text
    r = client.get(
        "/sparql", params={"query": f"ASK {{ GRAPH ?g {{ <{BRAIN}> ?p ?o }} }}"}, headers={"Accept": BROWSER}
    )
    assert '<p id="boolean">yes (true)</p>' in r.text
    r = client.get(
        "/sparql",
        params={
            "query": f"CONSTRUCT {{ <{BRAIN}> <{RDFS.label}> ?l }} WHERE {{ GRAPH ?g {{ <{BRAIN}> <{RDFS.label}> ?l }} }}"
        },
        headers={"Accept": BROWSER},
    )
    assert '<p id="count">1 triple</p>' in r.text and "&quot;brain&quot;" in r.text


def test_the_query_page_shows_errors_and_escapes_the_query(plain_app):
    client = TestClient(plain_app)
    hostile = "SELECT * WHERE { ?s ?p </textarea><script>alert(1)</script> }"
    r = client.get("/sparql", params={"query": hostile}, headers={"Accept": BROWSER})
    assert r.status_code == 400
    assert "<script>" not in r.text and "&lt;/textarea&gt;&lt;script&gt;" in r.text
    assert re.search(r'<p class="error" id="error">[^<]*syntax', r.text, re.IGNORECASE)
    r = client.get(
        "/sparql",
        params={"query": "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"},
        headers={"Accept": BROWSER},
    )
    assert r.status_code == 403 and "SERVICE is disabled" in r.text


def test_the_python_serve_passes_the_union_default_graph_on(monkeypatch, store_path):
    """``craftrdf.serve(..., union_default_graph=True)`` serves as ``craftrdf serve --union-default-graph`` does."""
    import craftrdf
    import craftrdf.publishing.server.app as app_module

    seen: list[ServerConfig] = []
    monkeypatch.setattr(app_module, "serve", lambda store, config, **kw: seen.append(config))
    craftrdf.serve(store_path, port=8123, union_default_graph=True)
    craftrdf.serve(store_path, port=8123)
    assert [c.union_default_graph for c in seen] == [True, False]
    assert seen[0].base_iri == "http://127.0.0.1:8123/"
