"""Issue 28's limits: per-client budgets (429 with Retry-After), and queries too large to plan (400).

Budgets: query time is charged to each client. The arithmetic is checked on a fake clock against values worked out by hand; the route on a real
worker pool with a budget so small that one query spends it. The starvation attack itself (two
abusive clients, eight polite ones) takes a minute and is in bench/bench_server.py (``--attack``).
Join counts are checked on queries counted by hand (patterns per the SPARQL 1.1 grammar's
expansion of ``;``, ``,``, collections and blank-node lists).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from starlette.requests import Request
from starlette.testclient import TestClient

from craftrdf.core.lexer import tokenize
from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.budget import ClientBudgets, client_of
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.guard import Limits, RequestRefused
from craftrdf.publishing.server.shape import join_operands
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from craftrdf.querying.library import library
from craftrdf.store.local import AnnotationStore

SMALL = "SELECT ?s WHERE { GRAPH <http://g> { ?s <http://e/p> 7 } }"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_budget_is_a_token_bucket_refilled_per_minute() -> None:
    clock = Clock()
    budgets = ClientBudgets(10.0, window=60.0, heavy_after=1.0, clock=clock)
    assert budgets.admit("a") is False  # a new client has its whole budget and is not heavy
    budgets.charge("a", 12.0)  # one query may overdraw: -2 s
    with pytest.raises(RequestRefused) as refused:
        budgets.admit("a")
    # refilled at 10 s per 60 s = 1/6 s per s: 2 s of debt take 12 s to repay
    assert refused.value.status == 429 and refused.value.retry_after == 12
    assert budgets.admit("b") is False  # another client is not affected
    clock.now += 11.9
    with pytest.raises(RequestRefused):
        budgets.admit("a")
    clock.now += 0.2
    assert budgets.admit("a") is True  # positive again; heavy, as its last query held a worker 12 s
    clock.now += 60.0
    assert budgets.admit("a") is False  # a minute later: full again (capped at 10 s) and no longer heavy
    assert budgets.balance("a") == pytest.approx(10.0)
    budgets.charge("a", 0.5)  # short calls never mark a client heavy
    assert budgets.admit("a") is False and budgets.balance("a") == pytest.approx(9.5)


def _request(headers: dict[str, str], host: str = "192.0.2.1") -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "method": "GET", "path": "/", "headers": raw, "client": (host, 1234)})


def test_a_client_is_its_token_when_it_has_the_servers_else_its_address() -> None:
    token = "t" * 32
    assert client_of(_request({}), token) == "addr:192.0.2.1"
    assert client_of(_request({"Authorization": "Bearer wrong"}), token) == "addr:192.0.2.1"
    holder = client_of(_request({"Authorization": f"Bearer {token}"}), token)
    assert holder.startswith("token:") and holder == client_of(
        _request({"Authorization": f"bearer {token}"}, "x"), token
    )
    assert client_of(_request({"Authorization": f"Bearer {token}"}), None) == "addr:192.0.2.1"


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerPool]:
    path = tmp_path_factory.mktemp("budget") / "s.store"
    with AnnotationStore.open(path) as store:
        store.raw.add(
            ox.Quad(ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p"), ox.Literal(7), ox.NamedNode("http://g"))
        )
    with WorkerPool(StoreOpener(str(path)), size=1) as p:
        yield p


def test_a_spent_budget_is_a_429_with_retry_after(pool: WorkerPool, tmp_path: Path) -> None:
    # a millisecond per minute: the first query spends it
    app = create_app(pool, config=ServerConfig(client_budget=0.001), dump_dir=tmp_path, viewer=False)
    first = TestClient(app, client=("192.0.2.10", 1000))
    accept = {"Accept": "application/sparql-results+json"}
    assert first.get("/sparql", params={"query": SMALL}, headers=accept).status_code == 200
    refused = first.get("/sparql", params={"query": SMALL}, headers=accept)
    assert refused.status_code == 429, refused.text
    assert int(refused.headers["Retry-After"]) >= 1 and "query time" in refused.text
    # another address has its own budget
    other = TestClient(app, client=("192.0.2.11", 1000))
    r = other.get("/sparql", params={"query": SMALL}, headers=accept)
    assert r.status_code == 200 and len(r.json()["results"]["bindings"]) == 1
    # without a budget nothing is refused
    free = create_app(pool, config=ServerConfig(client_budget=None), dump_dir=tmp_path, viewer=False)
    unbudgeted = TestClient(free, client=("192.0.2.10", 1000))
    assert [unbudgeted.get("/sparql", params={"query": SMALL}).status_code for _ in range(3)] == [200] * 3


# -- queries the engine cannot take: 400 with a reason, before any worker ---------------------

#: Issue 28's texts: each passed the guard's depth and chain counts and held a worker to the time limit.
HUGE = {
    "a collection of 5,000 items": "SELECT * WHERE { ?s ?p (" + " 1" * 5000 + " ) }",
    "10,000 sibling groups": "SELECT * WHERE { " + "{?a ?b 1}" * 10_000 + " }",
    "3,000 sibling sub-SELECTs": "SELECT * WHERE { " + "{SELECT ?a WHERE {?a ?b 1}}" * 3000 + " }",
    "100 triple patterns": "SELECT * WHERE { " + "".join(f"?a ?b ?c{i} . " for i in range(100)) + "}",
}


@pytest.mark.parametrize(
    ("query", "joins"),
    [
        ("SELECT * WHERE { ?s ?p ?o . ?a ?b ?c }", 2),
        ("SELECT * WHERE { ?s ?p 1, 2 ; ?q 3 }", 3),  # `,` and `;` each start one more pattern
        ("SELECT * WHERE { ?s ?p (1 2 3) }", 7),  # 1 + rdf:first and rdf:rest per item
        ("SELECT * WHERE { ?s ?p [ ?q 1 ; ?r 2 ] }", 3),
        ("SELECT * WHERE { {?a ?b 1} {?a ?b 2} OPTIONAL { ?a ?c ?d } }", 3),
        ("SELECT * WHERE { {?a ?b 1 . ?a ?b 3} UNION {?a ?b 2} UNION {?x ?y ?z} ?q ?r ?s }", 3),  # largest branch
        ("SELECT * WHERE { ?s ?p ?o FILTER regex(?o, 'x') ?a ?b ?c }", 2),
        ("SELECT * WHERE { VALUES (?x ?y) { (1 2) (3 4) } ?s ?p ?x }", 1),
        ("CONSTRUCT { ?s ?p ?o . ?a ?b ?c } WHERE { ?s ?p ?o }", 1),  # a template is not joined
        ("CONSTRUCT WHERE { ?s ?p ?o . ?a ?b ?c }", 2),
        ("SELECT * { { SELECT ?a (COUNT(?b) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e } GROUP BY ?a } ?a ?x ?y }", 3),
        ("INSERT DATA { <a> <b> <c> . <d> <e> <f> }", 0),
        ('SELECT * WHERE { ?s ?p ("1"^^<http://x> "a"@en) }', 5),
    ],
)
def test_join_operands_are_counted_as_the_planner_joins_them(query: str, joins: int) -> None:
    assert join_operands(list(tokenize(query))) == joins


def test_every_library_query_is_well_under_the_join_limit() -> None:
    worst = max(join_operands(list(tokenize(q.text))) for q in library().values())
    assert 5 < worst <= Limits().max_joins // 2


def test_texts_the_engine_cannot_plan_are_a_400_with_a_reason(pool: WorkerPool, tmp_path: Path) -> None:
    client = TestClient(create_app(pool, config=ServerConfig(timeout=20), dump_dir=tmp_path, viewer=False))
    for what, query in HUGE.items():
        started = time.monotonic()
        r = client.post("/sparql", data={"query": query})
        assert r.status_code == 400 and "the limit is 48" in r.text, (what, r.status_code, r.text[:200])
        assert time.monotonic() - started < 1.0, what  # decided on tokens, no worker waits for the planner
    # at the limit a query is planned and answered
    at_limit = "SELECT * WHERE { " + "".join(f"?a ?b ?c{i} . " for i in range(48)) + "}"
    assert client.post("/sparql", data={"query": at_limit}).status_code == 200
