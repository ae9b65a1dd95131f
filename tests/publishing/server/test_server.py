"""The SPARQL endpoint and linked-data routes on the bundled sample, through the Starlette test client.

Expected values come from the raw sample files (Knowtator XML read with ElementTree, the article
text, the zipped OBO file read line by line), never from the server's own output.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections import Counter

import pyoxigraph as ox
import pytest
from starlette.testclient import TestClient

from craftrdf.apps.demo import sample_dir
from craftrdf.core.vocab import BASE, OA, RDFS
from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from tests.helpers.sample import article_text, raw_set

UBERON_EXT = "UBERON/UBERON+extensions"
OA_PREFIX = "PREFIX oa: <http://www.w3.org/ns/oa#>\n"


@pytest.fixture(scope="module")
def store_path(sample_store_copy, tmp_path_factory):
    return sample_store_copy(tmp_path_factory.mktemp("server") / "sample.store")


@pytest.fixture(scope="module")
def pool(store_path):
    with WorkerPool(StoreOpener(str(store_path)), size=2) as p:
        yield p


@pytest.fixture(scope="module")
def client(pool, tmp_path_factory):
    app = create_app(
        pool,
        config=ServerConfig(base_iri="https://example.org/craft", timeout=20),
        dump_dir=tmp_path_factory.mktemp("dumps"),
    )
    return TestClient(app, base_url="https://example.org")


@pytest.fixture(scope="module")
def plain(pool, tmp_path_factory):
    """The same server without the article viewer (plain HTML pages)."""
    app = create_app(pool, config=ServerConfig(timeout=20), dump_dir=tmp_path_factory.mktemp("dumps"), viewer=False)
    return TestClient(app)


def raw_count(folder: str) -> int:
    return sum(len(v) for v in raw_set(folder).values())


def obo_label(curie: str) -> str:
    """The ``name:`` of a term in the sample's zipped UBERON.obo, read line by line."""
    path = sample_dir() / "concept-annotation" / "UBERON" / "UBERON" / "UBERON.obo.zip"
    with zipfile.ZipFile(path) as z:
        text = z.read(next(n for n in z.namelist() if n.endswith(".obo"))).decode("utf-8")
    stanza = text.split(f"\nid: {curie}\n", 1)[1]
    return next(line[6:] for line in stanza.splitlines() if line.startswith("name: "))


COUNT_SET = OA_PREFIX + f"SELECT (COUNT(?a) AS ?n) WHERE {{ GRAPH <{BASE}set/UBERON_EXT> {{ ?a a oa:Annotation }} }}"


def _json_value(response) -> str:
    data = response.json()
    return data["results"]["bindings"][0]["n"]["value"]


# -- the protocol ------------------------------------------------------------------------


def test_get_post_form_and_post_direct_give_the_raw_count(client):
    expected = str(raw_count(UBERON_EXT))
    assert int(expected) > 100
    r1 = client.get("/sparql", params={"query": COUNT_SET})
    r2 = client.post("/sparql", data={"query": COUNT_SET})
    r3 = client.post("/sparql", content=COUNT_SET.encode(), headers={"Content-Type": "application/sparql-query"})
    for r in (r1, r2, r3):
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/sparql-results+json")
        assert _json_value(r) == expected


def test_result_formats_by_accept(client):
    """JSON, XML, CSV and TSV carry the same rows: annotations per document of UBERON_EXT."""
    expected = {pmid: len(anns) for pmid, anns in raw_set(UBERON_EXT).items()}
    q = OA_PREFIX + (
        f"SELECT ?doc (COUNT(?a) AS ?n) WHERE {{ GRAPH <{BASE}set/UBERON_EXT> {{ ?a a oa:Annotation ; oa:hasTarget ?t . "
        '?t oa:hasSource ?d } BIND(STRAFTER(STR(?d), "/doc/") AS ?doc) } GROUP BY ?doc ORDER BY ?doc'
    )
    got = {}
    for mtype in ("application/sparql-results+json", "application/sparql-results+xml", "text/tab-separated-values"):
        r = client.get("/sparql", params={"query": q}, headers={"Accept": mtype})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].split(";")[0] == mtype
        fmt = ox.QueryResultsFormat.from_media_type(mtype)
        got[mtype] = {s["doc"].value: int(s["n"].value) for s in ox.parse_query_results(r.content, fmt)}
    r = client.get("/sparql", params={"query": q}, headers={"Accept": "text/csv"})
    assert r.headers["content-type"].startswith("text/csv")
    got["csv"] = {row["doc"]: int(row["n"]) for row in csv.DictReader(io.StringIO(r.text))}
    for rows in got.values():
        assert rows == expected


def test_construct_in_every_rdf_format(client):
    q = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{BASE}set/UBERON_EXT> {{ ?s ?p ?o }} }} ORDER BY ?s ?p ?o LIMIT 40"
    graphs = []
    for mtype in ("text/turtle", "application/n-triples", "application/ld+json", "application/rdf+xml"):
        r = client.post("/sparql", data={"query": q}, headers={"Accept": mtype})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].split(";")[0] == mtype
        graphs.append(set(ox.parse(r.content, ox.RdfFormat.from_media_type(mtype))))
    assert len(graphs[0]) == 40
    assert all(g == graphs[0] for g in graphs)


def test_default_and_named_graph_parameters(client):
    count_default = OA_PREFIX + "SELECT (COUNT(?a) AS ?n) WHERE { ?a a oa:Annotation }"
    assert _json_value(client.get("/sparql", params={"query": count_default})) == "0"  # the default graph is empty
    r = client.get("/sparql", params={"query": count_default, "default-graph-uri": BASE + "set/UBERON_EXT"})
    assert _json_value(r) == str(raw_count(UBERON_EXT))
    both = [BASE + "set/UBERON_EXT", BASE + "set/UBERON"]
    r = client.get("/sparql", params={"query": count_default, "default-graph-uri": both})
    assert _json_value(r) == str(raw_count(UBERON_EXT) + raw_count("UBERON/UBERON"))
    graphs = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
    r = client.get("/sparql", params={"query": graphs, "named-graph-uri": both})
    assert {b["g"]["value"] for b in r.json()["results"]["bindings"]} == set(both)


def test_protocol_errors_are_400_with_a_message(client):
    r = client.get("/sparql?query=ASK%7B%7D&query=ASK%7B%7D")
    assert r.status_code == 400 and "2 'query' parameters" in r.text
    r = client.post("/sparql", data={"query": "ASK {}", "update": "CLEAR ALL"})
    assert r.status_code == 400 and "both" in r.text
    r = client.get("/sparql", params={"query": "SELECT WHERE {"})
    assert r.status_code == 400 and "syntax" in r.text.lower()
    r = client.get("/sparql")
    assert r.status_code == 400 and "query" in r.text
    r = client.post("/sparql", content=b"ASK {}", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    r = client.put("/sparql", content=b"ASK {}", headers={"Content-Type": "application/sparql-query"})
    assert r.status_code == 405


def test_ask_and_select_negotiation(client):
    r = client.get("/sparql", params={"query": "ASK {}"}, headers={"Accept": "application/sparql-results+xml"})
    assert r.status_code == 200 and bool(ox.parse_query_results(r.content, ox.QueryResultsFormat.XML)) is True
    r = client.get("/sparql", params={"query": "ASK {}"}, headers={"Accept": "text/turtle"})
    assert r.status_code == 406
    r = client.get(
        "/sparql",
        params={"query": "CONSTRUCT WHERE { ?s ?p ?o }"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert r.status_code == 406


# -- linked data -------------------------------------------------------------------------


def test_document_by_content_negotiation(client):
    pmid = sorted(raw_set(UBERON_EXT))[0]
    text = article_text(pmid)
    iri = ox.NamedNode(f"{BASE}doc/{pmid}")
    for mtype in ("text/turtle", "application/ld+json", "application/n-triples", "application/rdf+xml"):
        r = client.get(f"/doc/{pmid}", headers={"Accept": mtype})
        assert r.status_code == 200, (mtype, r.text[:200])
        assert r.headers["content-type"].split(";")[0] == mtype
        triples = list(ox.parse(r.content, ox.RdfFormat.from_media_type(mtype)))
        texts = [t.object.value for t in triples if t.subject == iri and t.predicate.value.endswith("vocab#text")]
        assert texts == [text]


def test_document_html_comes_from_the_viewer(client, plain, pool):
    pmid = sorted(raw_set(UBERON_EXT))[0]
    r = client.get(f"/doc/{pmid}", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    from starlette.applications import Starlette

    from craftrdf.publishing.server.pooled import PooledStore
    from craftrdf.publishing.server.viewer import viewer_routes

    alone = TestClient(
        Starlette(routes=viewer_routes(PooledStore(pool, timeout=20), base_iri="https://example.org/craft/"))
    )
    assert r.text == alone.get(f"/doc/{pmid}").text  # the viewer's own page, not the triple table
    r = plain.get(f"/doc/{pmid}", headers={"Accept": "text/html"})
    assert r.status_code == 200 and "<table>" in r.text
    assert f"{BASE}doc/{pmid}" in r.text


def test_annotation_with_its_target_and_selectors(client):
    """An annotation's description holds its target fragment and the selectors with the raw offsets."""
    pmid = sorted(raw_set(UBERON_EXT))[0]
    anns = raw_set(UBERON_EXT)[pmid]
    spans = Counter(a.spans for a in anns)
    ann = next(a for a in anns if len(a.spans) == 1 and spans[a.spans] == 1)
    ((start, end),) = ann.spans
    q = (
        OA_PREFIX + f"SELECT ?a WHERE {{ GRAPH <{BASE}set/UBERON_EXT> {{ ?a oa:hasTarget ?t . "
        f"?t oa:hasSource <{BASE}doc/{pmid}> ; oa:hasSelector ?s . ?s oa:start {start:d} ; oa:end {end:d} }} }}"
    )
    rows = client.get("/sparql", params={"query": q}).json()["results"]["bindings"]
    assert len(rows) == 1
    iri = rows[0]["a"]["value"]
    r = client.get("/" + iri[len(BASE) :], headers={"Accept": "application/n-triples"})
    assert r.status_code == 200, r.text
    triples = [q.triple for q in ox.parse(r.content, ox.RdfFormat.N_TRIPLES)]
    starts = {int(t.object.value) for t in triples if t.predicate == ox.NamedNode(OA.start)}
    ends = {int(t.object.value) for t in triples if t.predicate == ox.NamedNode(OA.end)}
    assert starts == {start} and ends == {end}
    assert any(t.predicate == ox.NamedNode(OA.hasTarget) for t in triples)
    assert all(t.subject.value.startswith(iri) for t in triples)


def test_class_page_by_curie(client):
    curie = Counter(a.cls for anns in raw_set("UBERON/UBERON").values() for a in anns).most_common(1)[0][0]
    r = client.get(f"/class/{curie}", headers={"Accept": "text/turtle"})
    assert r.status_code == 200, r.text
    triples = list(ox.parse(r.content, ox.RdfFormat.TURTLE))
    labels = {t.object.value for t in triples if t.predicate == ox.NamedNode(RDFS.label)}
    assert obo_label(curie) in labels


def test_set_resource_and_unknown_iris(client):
    r = client.get("/set/UBERON_EXT", headers={"Accept": "text/turtle"})
    assert r.status_code == 200
    assert any(t.object.value == "UBERON_EXT" for t in ox.parse(r.content, ox.RdfFormat.TURTLE))
    for path in (
        "/set/NO_SUCH_SET",
        "/doc/00000000",
        "/class/UBERON:9999999",
        "/class/not-a-curie",
        "/ann/UBERON_EXT/1/nothing",
        "/ontology/nothing",
    ):
        r = client.get(path, headers={"Accept": "text/turtle"})
        assert r.status_code == 404, (path, r.status_code)


def test_base_iri_maps_requests_and_links(client):
    """Served under https://example.org/craft/: links in pages and VoID point there; data IRIs stay canonical."""
    r = client.get("/set/UBERON_EXT", headers={"Accept": "text/html"})
    assert r.status_code == 200
    assert 'href="https://example.org/craft/set/UBERON_EXT"' in r.text
    r = client.get("/set/UBERON_EXT", headers={"Accept": "text/turtle"})
    assert f"<{BASE}set/UBERON_EXT>" in r.text or "set/UBERON_EXT" in r.text


def test_void_lists_sets_with_counts_and_dumps(client):
    r = client.get("/.well-known/void", headers={"Accept": "text/turtle"})
    assert r.status_code == 200
    g = [q.triple for q in ox.parse(r.content, ox.RdfFormat.TURTLE)]
    void = "http://rdfs.org/ns/void#"
    ds = ox.NamedNode("https://example.org/craft/.well-known/void#dataset")
    assert ox.Triple(ds, ox.NamedNode(void + "sparqlEndpoint"), ox.NamedNode("https://example.org/craft/sparql")) in g
    subsets = {t.object for t in g if t.subject == ds and t.predicate == ox.NamedNode(void + "subset")}
    keys = {s.value.rsplit("/", 1)[-1] for s in subsets if "/set/" in s.value}
    folders = [p for p in (sample_dir() / "concept-annotation").glob("*/*") if (p / "knowtator").is_dir()]
    assert len(keys) >= len(folders)  # one per CRAFT set of the sample at least
    assert any("/ontology/" in s.value for s in subsets)
    sub = ox.NamedNode(f"{BASE}set/UBERON_EXT")
    count = next(int(t.object.value) for t in g if t.subject == sub and t.predicate == ox.NamedNode(void + "triples"))
    dump = client.get("/dump/UBERON_EXT.ttl")
    assert dump.status_code == 200 and dump.headers["content-type"].startswith("text/turtle")
    assert count == len(list(ox.parse(dump.content, ox.RdfFormat.TURTLE)))  # COUNT(*) vs the exported graph
    dumps = {t.object.value for t in g if t.subject == sub and t.predicate == ox.NamedNode(void + "dataDump")}
    assert "https://example.org/craft/dump/UBERON_EXT.ttl" in dumps


def test_jsonld_dump_has_the_raw_annotations(client):
    r = client.get("/dump/UBERON_EXT.jsonld")
    assert r.status_code == 200
    doc = json.loads(r.content)
    items = doc["first"]["items"] if "first" in doc else doc.get("items", [])
    assert len(items) == raw_count(UBERON_EXT)
    r = client.get("/dump/UBERON_EXT.nq")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/n-quads")


def test_six_downloads_of_a_dump_at_once_share_one_export_off_the_query_workers(pool, client):
    """Issue 28: six dumps requested at once got four 503s (each export held a query worker)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(6) as ex:
        answers = list(ex.map(lambda _: client.get("/dump/UBERON_EXT.trig"), range(6)))
    assert [r.status_code for r in answers] == [200] * 6
    assert len({r.content for r in answers}) == 1
    graph = f"{BASE}set/UBERON_EXT"
    quads = [q for q in ox.parse(answers[0].content, ox.RdfFormat.TRIG) if q.graph_name.value == graph]
    counted = client.get(
        "/sparql",
        params={"query": f"SELECT (COUNT(*) AS ?n) {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert len(quads) == int(counted.json()["results"]["bindings"][0]["n"]["value"])
    # made in the pool's dumps lane, a worker of its own; the query workers stayed free
    assert set(pool.lane("dumps").pids()).isdisjoint(pool.pids()) and pool.idle() == 2


def test_html_escapes_data(tmp_path):
    """A literal holding markup is escaped on the plain HTML page."""
    from tests.helpers.server import load_graphs

    data = tmp_path / "x.nt"
    data.write_text(f'<{BASE}set/EVIL> <{RDFS.label}> "<script>alert(1)</script>" .\n', encoding="utf-8")
    with WorkerPool(StoreOpener(str(tmp_path / "s.store"), "write"), size=1) as writer:
        writer.call(load_graphs, [(str(data), BASE + "set/EVIL")], timeout=30)
        app = create_app(writer, config=ServerConfig(timeout=10), dump_dir=tmp_path / "d", viewer=False)
        r = TestClient(app).get("/set/EVIL", headers={"Accept": "text/html"})
    assert r.status_code == 200
    assert "<script>alert(1)</script>" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text


def test_pooled_store_serves_library_code(pool):
    """PooledStore answers run_query like the embedded store (what the viewer relies on)."""
    from craftrdf.publishing.server.pooled import PooledStore
    from craftrdf.querying.library import resolve_query, run_query

    result = run_query(PooledStore(pool, timeout=20), resolve_query("sets"), {"set": "UBERON_EXT"})
    row = dict(zip(result.columns, result.rows[0]))
    assert int(row["annotations"].value) == raw_count(UBERON_EXT)


@pytest.mark.parametrize(
    "path", ["/class/UBERON:0000955%00", "/class/UBERON:0000955%0a", "/api/class/UBERON:0000955%00"]
)
@pytest.mark.parametrize("accept", ["text/html", "text/turtle"])
def test_control_characters_in_a_path_are_404_not_500(client, path, accept):
    """Issue 28, item 7: ``%00`` and ``%0a`` in a class id once made two tracebacks and a 500."""
    assert client.get(path, headers={"Accept": accept}).status_code == 404
