"""Issue 17's probes of the server as tests: sandbox, bounded bodies, fairness, cancellation, slowloris, headers.

Every server here runs over a small store of its own (2,000 triples, so a three-way cross
join of it never ends within a test) in real uvicorn on loopback, with the connection layer
``craftrdf serve`` uses (:func:`craftrdf.publishing.server.transport.uvicorn_config`), except where the
Starlette test client is enough.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pyoxigraph as ox
import pytest
from starlette.testclient import TestClient

from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.routes import sparql as sparql_routes
from craftrdf.publishing.server.transport import uvicorn_config
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from craftrdf.store.local import AnnotationStore
from tests.helpers.server import listener as counting_listener
from tests.helpers.server import running

TOKEN = "hardening-test-token-0123456789abcdef"
CROSS = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?a ?b ?c } GRAPH ?h { ?d ?e ?f } GRAPH ?i { ?x ?y ?z } }"
ASK = "ASK {}"
SMALL = "SELECT ?s WHERE { GRAPH <http://g> { ?s <http://e/p> 7 } }"


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hardening") / "s.store"
    with AnnotationStore.open(path) as store:
        g = ox.NamedNode("http://g")
        store.raw.extend(
            ox.Quad(ox.NamedNode(f"http://e/s{i}"), ox.NamedNode("http://e/p"), ox.Literal(i), g) for i in range(2000)
        )
    return path


def serving(app: Any, **kw: Any) -> contextlib.AbstractContextManager[str]:
    """``app`` under uvicorn with craftrdf's connection layer, in a thread; yields the base URL."""
    return running(app, make_config=uvicorn_config, **kw)


@pytest.fixture(scope="module")
def listener() -> Iterator[tuple[str, list[int]]]:
    """A TCP listener on loopback counting the connections it gets: (URL, hits)."""
    with counting_listener() as it:
        yield it


def app_over(pool: WorkerPool, tmp_path: Path, **config: Any) -> Any:
    return create_app(pool, config=ServerConfig(**config), dump_dir=tmp_path / "dumps", viewer=False)


# -- defence in depth -----------------------------------------------------------------------


@pytest.mark.parametrize("sandboxed", [False, True])
def test_a_sandboxed_worker_cannot_reach_the_network_even_past_the_guard(
    sandboxed: bool, store_path: Path, tmp_path: Path, listener: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard is switched off on purpose; only the worker's seccomp filter stands between SERVICE and the URL."""
    url, hits = listener
    monkeypatch.setattr(sparql_routes, "check_request", lambda text, limits: None)
    with WorkerPool(StoreOpener(str(store_path)), size=1, no_network=sandboxed) as pool:
        client = TestClient(app_over(pool, tmp_path, timeout=20))
        before = len(hits)
        r = client.get("/sparql", params={"query": f"SELECT * {{ SERVICE <{url}> {{ ?s ?p ?o }} }}"})
        assert r.status_code >= 400  # the listener hangs up, or the connection is refused
        if sandboxed:
            assert len(hits) == before, "a sandboxed worker connected to the listener"
            assert client.get("/sparql", params={"query": SMALL}).status_code == 200  # the store still reads
        else:
            assert len(hits) > before  # the control: without the sandbox the engine does connect


def test_load_on_an_update_server_without_allow_load(store_path: Path, tmp_path: Path, listener: Any) -> None:
    url, hits = listener
    with WorkerPool(StoreOpener(str(tmp_path / "rw.store"), "write"), size=1, no_network=True) as pool:
        client = TestClient(app_over(pool, tmp_path, base_iri="http://testserver/", allow_update=True, token=TOKEN))
        auth = {"Authorization": f"Bearer {TOKEN}"}
        before = len(hits)
        for update in (
            f"LOAD <{url}>",
            f"CLEAR ALL;LOAD<{url}>",
            f"PREFIX ex: <http://e/> INSERT DATA {{ ex:a ex:p\\#q 1 }} ; LOAD <{url}>",
        ):
            r = client.post("/sparql", data={"update": update}, headers=auth)
            assert r.status_code == 403, (update, r.text)
        assert len(hits) == before


def test_a_hidden_deep_group_never_reaches_a_worker(store_path: Path, tmp_path: Path) -> None:
    """Issue 17: ``ex:p\\#q`` hid a 3,000-deep group from the old tokenizer, and the worker segfaulted."""
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        client = TestClient(app_over(pool, tmp_path))
        deep = "{" * 3000 + "}" * 3000
        for hide in ("?s ex:p\\#q ?o .", "?s ex:p\\'q ?o .", "?s ?p 1."):
            r = client.get("/sparql", params={"query": f"PREFIX ex: <http://e/> SELECT * {{ {hide} {deep} }}"})
            assert r.status_code == 400 and "deep" in r.text, hide
        assert pool.restarts == 0
        assert client.get("/sparql", params={"query": ASK}).status_code == 200


def test_using_graph_uri_is_honoured_over_http(tmp_path: Path) -> None:
    with WorkerPool(StoreOpener(str(tmp_path / "rw.store"), "write"), size=1) as pool:
        client = TestClient(app_over(pool, tmp_path, base_iri="http://testserver/", allow_update=True, token=TOKEN))
        auth = {"Authorization": f"Bearer {TOKEN}"}
        seed = "INSERT DATA { GRAPH <http://g1> { <http://a> <http://p> 1 } GRAPH <http://g2> { <http://b> <http://p> 2 } }"
        assert client.post("/sparql", data={"update": seed}, headers=auth).status_code == 200
        copy = "PREFIX ex: <http://e/> INSERT { GRAPH <http://out> { ?s ex:p\\#q ?o } } WHERE { ?s ?p ?o }"
        r = client.post("/sparql?using-graph-uri=http%3A%2F%2Fg1", data={"update": copy}, headers=auth)
        assert r.status_code == 200, r.text
        rows = client.get("/sparql", params={"query": "SELECT ?s WHERE { GRAPH <http://out> { ?s ?p ?o } }"}).json()
        assert [b["s"]["value"] for b in rows["results"]["bindings"]] == ["http://a"]  # g1 only, not g2
        r = client.post(
            "/sparql?using-graph-uri=http%3A%2F%2Fg1", data={"update": "DELETE WHERE { ?s ?p ?o }"}, headers=auth
        )
        assert r.status_code == 400


# -- bodies ---------------------------------------------------------------------------------


def test_bodies_are_refused_while_they_stream(store_path: Path, tmp_path: Path) -> None:
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        app = app_over(pool, tmp_path, max_body=10_000, body_timeout=0.8, body_deadline=1.0)
        with serving(app) as base:
            port = int(base.rsplit(":", 1)[1].strip("/"))

            def raw(head: str, body: bytes) -> bytes:
                with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                    s.sendall(head.encode() + body)
                    return s.recv(4096)

            # chunked, past the limit
            chunk = b"a" * 4000
            chunked = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(5)) + b"0\r\n\r\n"
            head = "POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
            assert raw(head + "Transfer-Encoding: chunked\r\n\r\n", chunked).startswith(b"HTTP/1.1 413")
            # a declared length past the limit: refused before reading
            assert raw(head + "Content-Length: 20000\r\n\r\n", b"").startswith(b"HTTP/1.1 413")
            # a length that overstates the body: 408 once the body stops arriving
            started = time.monotonic()
            assert raw(head + "Content-Length: 1000\r\n\r\n", b"ASK {}").startswith(b"HTTP/1.1 408")
            assert time.monotonic() - started < 5
            # a body trickling a byte well inside the per-piece wait: cut at the whole body's deadline
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall((head + "Content-Length: 100\r\n\r\n").encode())
                s.settimeout(0.3)
                started, answer = time.monotonic(), b""
                while not answer and time.monotonic() - started < 6:
                    s.sendall(b" ")
                    with contextlib.suppress(TimeoutError):
                        answer = s.recv(4096)
                took = time.monotonic() - started
                # the head and the body may come in separate segments: read to the close the server announces
                s.settimeout(5)
                while answer and (more := s.recv(4096)):
                    answer += more
            assert answer.startswith(b"HTTP/1.1 408") and b"took longer than 1 s" in answer, answer
            assert 0.9 < took < 3
            # an honest small body still works
            r = httpx.post(base + "sparql", content=ASK, headers={"Content-Type": "application/sparql-query"})
            assert r.status_code == 200 and r.json()["boolean"] is True  # the empty pattern has one solution


# -- fairness -------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(p * len(ordered)), len(ordered) - 1)]


@pytest.mark.slow
def test_simple_queries_do_not_queue_behind_heavy_ones(store_path: Path, tmp_path: Path) -> None:
    """Two clients keep sending cross joins; ASK {} and small SELECTs stay fast, the joins are cut at the timeout."""
    with WorkerPool(StoreOpener(str(store_path)), size=2, heavy=2, heavy_after=1.0) as pool:
        app = app_over(pool, tmp_path, timeout=4)
        with serving(app) as base:
            stop = threading.Event()
            heavy: list[tuple[int, float]] = []

            def hammer() -> None:
                with httpx.Client(base_url=base, timeout=60) as c:
                    while not stop.is_set():
                        t = time.monotonic()
                        r = c.get("sparql", params={"query": CROSS})
                        heavy.append((r.status_code, time.monotonic() - t))

            threads = [threading.Thread(target=hammer) for _ in range(2)]
            for t in threads:
                t.start()
            time.sleep(1.5)  # both joins are heavy now
            lat: list[float] = []
            codes: list[int] = []
            # the probe is another client than the hammers (an address as a proxy on loopback gives it)
            with httpx.Client(base_url=base, timeout=30, headers={"X-Forwarded-For": "192.0.2.8"}) as c:
                for i in range(60):
                    t = time.monotonic()
                    r = c.get("sparql", params={"query": ASK if i % 2 else SMALL})
                    lat.append(time.monotonic() - t)
                    codes.append(r.status_code)
            stop.set()
            for t in threads:
                t.join()
    assert codes == [200] * 60
    # the bench (docs/benchmarks.md) measures p99 < 250 ms; a shared test machine gets slack
    assert statistics.median(lat) < 0.25 and percentile(lat, 0.99) < 1.5, (statistics.median(lat), max(lat))
    assert heavy and all(code == 503 and 3.5 < took < 8 for code, took in heavy), heavy


def test_the_heavy_lane_is_bounded_with_retry_after(store_path: Path, tmp_path: Path) -> None:
    """One heavy slot: a second long query is stopped at its first half second; a known one is refused at once.

    The client that sent them is then heavy: its next query is refused too while the lane is full.
    """
    other = CROSS.replace("?x ?y ?z", "?u ?v ?w")  # another text: not known to be heavy
    with WorkerPool(StoreOpener(str(store_path)), size=1, heavy=1, heavy_after=0.5) as pool:
        app = app_over(pool, tmp_path, timeout=6)
        with serving(app) as base:
            first: list[httpx.Response] = []
            t = threading.Thread(
                target=lambda: first.append(httpx.get(base + "sparql", params={"query": CROSS}, timeout=30))
            )
            t.start()
            time.sleep(1.5)  # the first is heavy now, and remembered as such
            assert pool.heavy_running() == 1
            started = time.monotonic()
            again = httpx.get(base + "sparql", params={"query": CROSS}, timeout=30)
            assert again.status_code == 503 and time.monotonic() - started < 0.4  # refused before any work
            started = time.monotonic()
            new = httpx.get(base + "sparql", params={"query": other}, timeout=30)
            assert new.status_code == 503 and 0.4 < time.monotonic() - started < 3  # stopped when it turned heavy
            # that client's long queries make it heavy: its next queries wait for the full heavy lane
            assert httpx.get(base + "sparql", params={"query": ASK}, timeout=30).status_code == 503
            other_client = {"X-Forwarded-For": "192.0.2.7"}  # as a proxy on loopback says it (uvicorn trusts it)
            assert (
                httpx.get(base + "sparql", params={"query": ASK}, headers=other_client, timeout=30).status_code == 200
            )
            t.join()
    for r in (again, new):
        assert int(r.headers["Retry-After"]) >= 1 and "long queries" in r.text
    assert first[0].status_code == 503 and "time limit" in first[0].text  # cut at --timeout


def test_a_disconnected_clients_query_is_cancelled(store_path: Path, tmp_path: Path) -> None:
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        app = app_over(pool, tmp_path, timeout=60)
        with serving(app) as base:
            before = pool.restarts
            with pytest.raises(httpx.ReadTimeout):
                httpx.get(base + "sparql", params={"query": CROSS}, timeout=1.0)
            deadline = time.monotonic() + 10
            while pool.restarts == before and time.monotonic() < deadline:
                time.sleep(0.05)
            assert pool.restarts == before + 1  # its worker was stopped, long before the 60 s limit
            r = httpx.get(base + "sparql", params={"query": ASK}, timeout=30)
            assert r.status_code == 200


# -- connections ----------------------------------------------------------------------------


def test_a_slowloris_of_3000_sockets_does_not_exhaust_the_server(store_path: Path, tmp_path: Path) -> None:
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        app = app_over(pool, tmp_path)
        with serving(app, header_timeout=2.0, max_half_open=100) as base:
            port = int(base.rsplit(":", 1)[1].strip("/"))
            with contextlib.ExitStack() as opened:  # closed even when an assertion fails: no leak into later tests
                socks = []
                for _ in range(3000):
                    s = opened.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
                    s.sendall(b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\n")  # never finished
                    socks.append(s)
                started = time.monotonic()
                r = httpx.get(base + "sparql", params={"query": ASK}, timeout=10)
                # measured at load 12-17: 0.77-1.18 s (0.51-0.87 s before bursts were spared the cap, which
                # now parses a flood socket's first bytes before closing it); 2 s was passed at load 18+
                assert r.status_code == 200 and time.monotonic() - started < 3
                time.sleep(2.5)  # past the header deadline every silent socket is closed by the server
                closed = 0
                for s in socks:
                    s.settimeout(0.5)
                    try:
                        closed += s.recv(1) == b""
                    except ConnectionResetError:
                        closed += 1
                    except TimeoutError:
                        pass
                assert closed == len(socks)


async def _burst(port: int, n: int) -> list[bytes]:
    """Open ``n`` connections at once, then send a request on each; the first line of each answer."""
    opened: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = list(
        await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port) for _ in range(n)))
    )

    async def ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try:
            await writer.drain()
            return (await asyncio.wait_for(reader.read(), 30)).split(b"\r\n", 1)[0]
        except OSError:
            return b""
        finally:
            writer.close()

    return list(await asyncio.gather(*(ask(r, w) for r, w in opened)))


@pytest.mark.parametrize(
    "connections",
    [300, pytest.param(1000, marks=pytest.mark.long("1,000 connections at once: 4 s on a loaded machine"))],
)
def test_a_burst_of_new_connections_is_answered_in_full(connections: int, store_path: Path, tmp_path: Path) -> None:
    """Issue 28: of 300 connections opened at once 44 were closed unanswered, of 1,000 about half (the half-open cap)."""
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        app = app_over(pool, tmp_path)
        with serving(app) as base:  # the cap is 256: 300 passes it
            port = int(base.rsplit(":", 1)[1].strip("/"))
            answers = asyncio.run(_burst(port, connections))
    assert answers == [b"HTTP/1.1 200 OK"] * connections


# -- headers and browsers -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cors_client(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        app = create_app(
            pool,
            config=ServerConfig(base_iri="http://testserver/", cors_origin="https://yasgui.example"),
            dump_dir=tmp_path_factory.mktemp("dumps"),
            viewer=False,
        )
        yield TestClient(app)


def test_nosniff_on_every_response(cors_client: TestClient) -> None:
    for method, path, kw in [
        ("GET", "/sparql", {"params": {"query": ASK}}),
        ("GET", "/sparql", {"params": {"query": "SELECT <script>alert(1)</script>"}}),
        ("GET", "/sparql", {"params": {"query": ASK}, "headers": {"Accept": "image/png"}}),
        ("GET", "/nowhere", {}),
        ("GET", "/", {}),
        ("OPTIONS", "/sparql", {}),
    ]:
        r = cors_client.request(method, path, **kw)
        assert r.headers.get("x-content-type-options") == "nosniff", (method, path, r.status_code)


def test_a_malformed_q_in_accept_is_read_leniently(cors_client: TestClient) -> None:
    for accept in ("*/*;q=abc", "application/sparql-results+json;q=", "*/*;q=1;q=x"):
        r = cors_client.get("/sparql", params={"query": ASK}, headers={"Accept": accept})
        assert r.status_code == 200, (accept, r.text)


def test_cors_queries_from_the_allowed_origin_never_updates(cors_client: TestClient) -> None:
    origin = {"Origin": "https://yasgui.example"}
    r = cors_client.get("/sparql", params={"query": ASK}, headers=origin)
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://yasgui.example"
    pre = cors_client.options(
        "/sparql",
        headers={**origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"},
    )
    assert pre.status_code == 200 and "POST" in pre.headers["access-control-allow-methods"]
    # the token cannot be sent from a page of another origin: Authorization is not an allowed header
    pre = cors_client.options(
        "/sparql",
        headers={**origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"},
    )
    assert pre.status_code == 400
    other = cors_client.get("/sparql", params={"query": ASK}, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers
    up = cors_client.post(
        "/sparql", data={"update": "CLEAR ALL"}, headers={**origin, "Authorization": f"Bearer {TOKEN}"}
    )
    assert up.status_code == 403
    assert cors_client.options("/sparql").status_code == 204  # plain OPTIONS, not a preflight


def test_no_cors_by_default(store_path: Path, tmp_path: Path) -> None:
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        client = TestClient(app_over(pool, tmp_path))
        r = client.get("/sparql", params={"query": ASK}, headers={"Origin": "https://yasgui.example"})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_a_client_disconnect_is_one_log_line(
    store_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with WorkerPool(StoreOpener(str(store_path)), size=1) as pool:
        app = app_over(pool, tmp_path, timeout=60)
        with caplog.at_level(logging.INFO), serving(app) as base:
            port = int(base.rsplit(":", 1)[1].strip("/"))
            for _ in range(3):
                with socket.create_connection(("127.0.0.1", port)) as s:
                    s.sendall(f"GET /sparql?query={quote(CROSS)} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                    time.sleep(0.3)
            deadline = time.monotonic() + 10
            while sum("went away" in r.getMessage() for r in caplog.records) < 3 and time.monotonic() < deadline:
                time.sleep(0.1)
    gone = [r for r in caplog.records if "went away" in r.getMessage()]
    assert len(gone) == 3
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
