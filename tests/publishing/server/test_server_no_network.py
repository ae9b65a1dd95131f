"""Issue 28: safety that does not rest on the guard agreeing with oxigraph's parser.

The engine runs without a network in every configuration (read-only, updates, ``--allow-load``);
LOAD is fetched by a process of its own from the operator's URLs. The listener below counts
every TCP connection it gets: a query or update that made the server fetch would show there.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.guard import Limits, check_request
from craftrdf.publishing.server.load import plain_load
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from craftrdf.store.local import AnnotationStore
from tests.helpers.server import listener as counting_listener

TOKEN = "no-network-test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
#: Issue 28's repro: the guard reads <'x>' as an IRI, then a string hiding the rest of the line;
#: oxigraph reads a less-than comparison, and then the SERVICE call.
SSRF = "SELECT ?x WHERE {{ OPTIONAL {{ BIND(1 AS ?a) FILTER(?a<'x>') }} SERVICE <{u}x> {{ ?x ?q ?r }} #'\n}}"
TURTLE = b"<http://e/loaded> <http://e/p> 1 .\n<http://e/loaded> <http://e/p> 2 .\n"


@pytest.fixture(scope="module")
def listener() -> Iterator[tuple[str, list[int]]]:
    """A TCP listener on loopback counting the connections it gets: (URL, hits)."""
    with counting_listener() as it:
        yield it


@pytest.fixture(scope="module")
def documents(listener: tuple[str, list[int]]) -> Iterator[str]:
    """An HTTP server on loopback: ``data.ttl`` (two triples) and ``away`` (a redirect to the listener)."""
    forbidden = listener[0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/data.ttl":
                self.send_response(200)
                self.send_header("Content-Type", "text/turtle")
                self.send_header("Content-Length", str(len(TURTLE)))
                self.end_headers()
                self.wfile.write(TURTLE)
            else:
                self.send_response(302)
                self.send_header("Location", forbidden + "hidden.ttl")
                self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/"
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def read_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A read-only app over a one-triple store, its pool built as ``craftrdf serve`` builds it."""
    tmp = tmp_path_factory.mktemp("ro")
    with AnnotationStore.open(tmp / "s.store") as store:
        store.raw.add(ox.Quad(ox.NamedNode("http://e/a"), ox.NamedNode("http://e/b"), ox.Literal(1)))
    with WorkerPool(StoreOpener(str(tmp / "s.store"), "read"), size=1) as pool:
        config = ServerConfig(timeout=10)
        yield TestClient(create_app(pool, config=config, dump_dir=tmp / "d", viewer=False))


@pytest.fixture(scope="module")
def loader(tmp_path_factory: pytest.TempPathFactory, documents: str) -> Iterator[TestClient]:
    """An update server with LOAD allowed from ``documents`` only (the most permissive configuration)."""
    tmp = tmp_path_factory.mktemp("rw")
    with WorkerPool(StoreOpener(str(tmp / "w.store"), "write"), size=1) as pool:
        config = ServerConfig(
            base_iri="http://testserver/",
            timeout=10,
            allow_update=True,
            token=TOKEN,
            limits=Limits(allow_load=True),
            load_urls=(documents,),
        )
        yield TestClient(create_app(pool, config=config, dump_dir=tmp / "d", viewer=False))


def test_worker_pools_are_sandboxed_unless_a_test_says_otherwise() -> None:
    assert WorkerPool.__init__.__kwdefaults__["no_network"] is True


@pytest.mark.parametrize("server", ["read_only", "loader"])
def test_the_ssrf_repro_reaches_no_listener(server: str, listener: Any, request: pytest.FixtureRequest) -> None:
    url, hits = listener
    client: TestClient = request.getfixturevalue(server)
    before = len(hits)
    query = SSRF.format(u=url)
    check_request(query, Limits())  # the desync: the guard sees no SERVICE, so only the sandbox stands
    assert plain_load(query) is None
    r = client.get("/sparql", params={"query": query}, headers=AUTH if server == "loader" else {})
    assert r.status_code != 200
    r = client.post("/sparql", data={"update": "INSERT DATA {}; LOAD <" + url + "y>"}, headers=AUTH)
    assert r.status_code >= 400
    assert len(hits) == before, "the engine reached the listener"


def test_a_plain_load_fetches_only_allowed_urls(loader: TestClient, documents: str, listener: Any) -> None:
    url, hits = listener
    before = len(hits)
    r = loader.post(
        "/sparql", data={"update": f"LOAD <{documents}data.ttl> INTO GRAPH <http://g/loaded>"}, headers=AUTH
    )
    assert r.status_code == 200, r.text
    assert "loaded 2 triples" in r.text
    count = loader.get(
        "/sparql",
        params={"query": "SELECT (COUNT(*) AS ?n) { GRAPH <http://g/loaded> { <http://e/loaded> ?p ?o } }"},
        headers={"Accept": "text/csv"},
    )
    assert count.text.split() == ["n", "2"]
    r = loader.post("/sparql", data={"update": f"LOAD <{url}x.ttl>"}, headers=AUTH)
    assert r.status_code == 403 and "not allowed" in r.text
    r = loader.post("/sparql", data={"update": f"LOAD SILENT <{url}x.ttl>"}, headers=AUTH)
    assert r.status_code == 403  # SILENT does not lift the operator's policy
    r = loader.post("/sparql", data={"update": f"LOAD <{documents}away>"}, headers=AUTH)
    assert r.status_code == 502 and "not allowed" in r.text  # a redirect off the allowed prefix
    assert len(hits) == before


# -- guard/engine disagreements, generated ------------------------------------------------------

_PIECES = [
    "'",
    '"',
    "'''",
    '"""',
    "#",
    "\n",
    "<",
    ">",
    "<'x>",
    "?a<'x>'",
    "?a<",
    "<http://e/(a)[b]>",
    "\\'",
    "\\#",
    "\\u0027",
    "\\u003E",
    "ex:p\\#q",
    "1.",
    "1<2",
    " ",
    "{",
    "}",
    "(",
    ")",
    "BIND(1 AS ?a)",
    "FILTER(",
    "?x ?q ?r .",
    "'s'",
    '"d"',
]


@st.composite
def disagreements(draw: st.DrawFn, url: str) -> str:
    """A query mixing strings, IRIs, comparisons, comments and escapes around a SERVICE call."""
    before = "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=8)))
    after = "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=8)))
    keyword = draw(st.sampled_from(["SERVICE", "SERVICE SILENT", "sErViCe"]))
    return (
        f"PREFIX ex: <http://e/> SELECT * WHERE {{ OPTIONAL {{ {before} }} {keyword} <{url}> {{ ?x ?q ?r }} {after}\n}}"
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_generated_disagreement_reaches_a_listener(
    data: st.DataObject, read_only: TestClient, loader: TestClient, listener: Any
) -> None:
    url, hits = listener
    query = data.draw(disagreements(url))
    before = len(hits)
    read_only.get("/sparql", params={"query": query})
    loader.post("/sparql", data={"update": query.replace("SELECT * WHERE", "INSERT { ?x ?q ?r } WHERE")}, headers=AUTH)
    loader.post(
        "/sparql", data={"update": f"INSERT DATA {{}} ; {query[query.index('{') :]} LOAD <{url}>"}, headers=AUTH
    )
    assert len(hits) == before, query


def test_the_guard_off_and_a_service_query_still_reach_nothing(
    read_only: TestClient, listener: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard is switched off: the sandbox alone holds (the control is test_server_hardening's)."""
    from craftrdf.publishing.server.routes import sparql as sparql_routes

    url, hits = listener
    monkeypatch.setattr(sparql_routes, "check_request", lambda text, limits: None)
    before = len(hits)
    r = read_only.get("/sparql", params={"query": f"SELECT * {{ SERVICE <{url}> {{ ?s ?p ?o }} }}"})
    assert r.status_code >= 400
    assert len(hits) == before


# -- no crash from any query text ----------------------------------------------------------------

CRASHERS = {
    # issue 28, item 2: each segfaulted a worker on the default 8 MiB stack
    "collection": "SELECT * WHERE { ?s ?p (" + " 1" * 5000 + " ) }",
    "parentheses": "SELECT * WHERE { OPTIONAL { BIND(1 AS ?a) } FILTER(?a<"
    + "(" * 20000
    + "1"
    + ")" * 20000
    + "&&?a>0) }",
    "groups": "SELECT * WHERE { " + "{?a ?b 1}" * 10000 + " }",
    "subselects": "SELECT * WHERE { " + "{SELECT ?a WHERE {?a ?b 1}}" * 3000 + " }",
}


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_no_query_text_crashes_a_worker(name: str, tmp_path: Path) -> None:
    """Past the guard (switched off here), the engine's thread has the stack for any query of allowed length."""
    with AnnotationStore.open(tmp_path / "s.store") as store:
        store.raw.add(ox.Quad(ox.NamedNode("http://e/a"), ox.NamedNode("http://e/b"), ox.Literal(1)))
    with WorkerPool(StoreOpener(str(tmp_path / "s.store"), "read"), size=1) as pool:
        from craftrdf.publishing.server.guard import RequestRefused
        from craftrdf.publishing.server.jobs import QueryJob, run_sparql

        try:
            pool.call(run_sparql, QueryJob(CRASHERS[name]), timeout=3)
            status = 200
        except RequestRefused as exc:
            status, message = exc.status, exc.message
            assert status != 500, message
        assert status in (200, 400, 503)
        assert pool.call(run_sparql, QueryJob("ASK {}"), timeout=20).body  # still serving


# -- bounded memory --------------------------------------------------------------------------------


def _concat_bomb(levels: int) -> str:
    """Issue 28, item 5's kind of query: each BIND makes a string ten times the last (100 bytes × 10**levels)."""
    binds = " ".join(f"BIND(CONCAT({','.join([f'?v{i}'] * 10)}) AS ?v{i + 1})" for i in range(levels))
    return f'SELECT (STRLEN(?v{levels}) AS ?n) WHERE {{ BIND("{"x" * 100}" AS ?v0) {binds} }}'


def test_a_query_past_the_memory_limit_is_a_503_and_its_worker_replaced(tmp_path: Path) -> None:
    from craftrdf.publishing.server.guard import RequestRefused
    from craftrdf.publishing.server.jobs import QueryJob, run_sparql
    from craftrdf.publishing.server.workers import _resident

    AnnotationStore.open(tmp_path / "s.store").close()
    limit = 400 << 20
    with WorkerPool(StoreOpener(str(tmp_path / "s.store"), "read"), size=1, max_memory=limit) as pool:
        # 10**5 * 100 bytes = 10 MB fits: the answer is the length, computed independently here
        small = pool.call(run_sparql, QueryJob(_concat_bomb(5), results_format="CSV"), timeout=30)
        assert small.body.split() == [b"n", str(100 * 10**5).encode()]
        worker = pool._all[next(iter(pool._all))]
        with pytest.raises(RequestRefused) as refused:
            pool.call(run_sparql, QueryJob(_concat_bomb(8)), timeout=60)  # 10 GB if it ran
        assert refused.value.status == 503 and "memory limit of 400 MB" in refused.value.message
        assert _resident(worker) == 0  # killed
        assert pool.restarts == 1


def test_an_answer_past_the_byte_limit_is_a_422(tmp_path: Path) -> None:
    """Issue 28, item 5: a short query with a huge answer; here 1,000 bytes, rows well under the row limit."""
    from craftrdf.publishing.server.guard import RequestRefused
    from craftrdf.publishing.server.jobs import QueryJob, run_sparql

    AnnotationStore.open(tmp_path / "s.store").close()
    # one row whose value is 2,000 x's: its TSV is the header "?s\n", the quoted value and a newline
    query = 'SELECT ?s WHERE { BIND(CONCAT("' + "x" * 1000 + '", "' + "x" * 1000 + '") AS ?s) }'
    with WorkerPool(StoreOpener(str(tmp_path / "s.store"), "read"), size=1) as pool:
        fits = pool.call(run_sparql, QueryJob(query, results_format="TSV", max_bytes=2006), timeout=20)
        assert len(fits.body) == len("?s\n") + 2002 + 1
        with pytest.raises(RequestRefused) as refused:
            pool.call(run_sparql, QueryJob(query, results_format="TSV", max_bytes=2005), timeout=20)
        assert refused.value.status == 422 and "2,006 bytes" in refused.value.message
