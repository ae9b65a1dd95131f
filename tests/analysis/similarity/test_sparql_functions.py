"""craftrdf:wang, craftrdf:bossy and craftrdf:wangGroup in SPARQL: the numbers ``craftrdf similarity`` prints.

The same pair goes through ``craftrdf similarity`` (the reference: the Python index the
functions wrap, tested against the paper and GOSemSim in test_wang*.py), ``craftrdf query`` with
a query file, and ``craftrdf serve``'s SPARQL endpoint (its worker processes). The limits of
FunctionLimits bound what one query can make the functions do; past one the query fails.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from starlette.testclient import TestClient

from craftrdf.analysis.similarity.sparql import FunctionLimits, SimilarityFunctions
from craftrdf.apps.cli import main
from craftrdf.core.errors import QueryError
from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.guard import RequestRefused
from craftrdf.publishing.server.jobs import QueryJob, run_sparql
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from craftrdf.querying.library import query_prefixes
from craftrdf.store.local import AnnotationStore

PAIR = ("UBERON:0000955", "UBERON:0002435")  # brain, striatum
#: The issue's query, prefixes undeclared (craftrdf declares its own and the CRAFT ones)
WANG = f"SELECT (craftrdf:wang({PAIR[0]}, {PAIR[1]}) AS ?s) {{}}"
BOSSY = f'SELECT (craftrdf:bossy({PAIR[0]}, {PAIR[1]}, "UBERON+extensions") AS ?s) {{}}'


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _command(store: Path, capsys: pytest.CaptureFixture[str], *args: str) -> float:
    return float(_out(["-q", "similarity", "--store", str(store), *args, *PAIR], capsys).split()[-1])


def _query(store: Path, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> float:
    rq = tmp_path / "pair.rq"
    rq.write_text(text)
    out = _out(["-q", "query", str(rq), "--store", str(store), "--format", "csv"], capsys)
    header, value = out.split()
    assert header == "s"
    return float(value)


def test_wang_and_bossy_through_craftrdf_query_equal_craftrdf_similarity(
    sample_store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wang = _command(sample_store_dir, capsys)
    assert 0.1 < wang < 1  # related, not the same class
    assert round(_query(sample_store_dir, WANG, tmp_path, capsys), 6) == wang
    bossy = _command(sample_store_dir, capsys, "--method", "bossy", "--ontology", "UBERON+extensions")
    assert bossy != wang
    assert round(_query(sample_store_dir, BOSSY, tmp_path, capsys), 6) == bossy


@pytest.fixture(scope="module")
def pool(sample_store_copy, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerPool]:  # type: ignore[no-untyped-def]
    """One query worker over a copy of the sample, as ``craftrdf serve --workers 1`` runs it."""
    path = sample_store_copy(tmp_path_factory.mktemp("fn") / "sample.store")
    with WorkerPool(StoreOpener(str(path)), size=1) as workers:
        yield workers


@pytest.fixture(scope="module")
def endpoint(pool: WorkerPool, tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    app = create_app(pool, config=ServerConfig(timeout=20), dump_dir=tmp_path_factory.mktemp("d"), viewer=False)
    return TestClient(app)


def _endpoint_value(client: TestClient, text: str) -> float:
    r = client.post("/sparql", data={"query": text}, headers={"Accept": "application/sparql-results+json"})
    assert r.status_code == 200, r.text
    (row,) = json.loads(r.content)["results"]["bindings"]
    return float(row["s"]["value"])


def test_wang_through_serves_endpoint_equals_craftrdf_similarity(
    endpoint: TestClient, sample_store_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert round(_endpoint_value(endpoint, WANG), 6) == _command(sample_store_dir, capsys)


def test_an_unknown_ontology_fails_the_query_on_the_endpoint(endpoint: TestClient) -> None:
    r = endpoint.post("/sparql", data={"query": f'SELECT (craftrdf:wang({PAIR[0]}, {PAIR[1]}, "NOPE") AS ?s) {{}}'})
    assert r.status_code == 400
    assert "NOPE" in r.text


def _run(store: AnnotationStore, functions: SimilarityFunctions, text: str) -> list[object]:
    session = functions.session()
    rows = list(store.query(text, prefixes=query_prefixes(), custom_functions=session.functions))  # type: ignore[call-arg]
    session.check()
    return [r["s"] for r in rows]  # type: ignore[index]


def test_each_limit_fails_the_query_past_it(sample_store: AnnotationStore) -> None:
    limits = FunctionLimits(indexes_per_query=2, arguments_per_query=3, group_terms=4)
    functions = SimilarityFunctions(sample_store, limits=limits)
    five = " ".join(["UBERON:0000955", "UBERON:0002435", "UBERON:0001062", "UBERON:0000061", "UBERON:0000467"])
    group = 'SELECT (craftrdf:wangGroup("{}", "UBERON:0000955") AS ?s) {{}}'
    (four,) = _run(sample_store, functions, group.format(" ".join(five.split()[:4])))
    assert isinstance(four, ox.Literal) and 0 < float(four.value) <= 1
    with pytest.raises(QueryError, match="5 classes in a set; the limit is 4"):
        _run(sample_store, functions, group.format(five))
    # one index per weight setting: a third one in a query is refused before it is built
    weights = ["is_a=0.8,part_of=0.6", "is_a=0.7,part_of=0.5", "is_a=0.6,part_of=0.4"]
    three = " ".join(
        f'(craftrdf:wang({PAIR[0]}, {PAIR[1]}, "UBERON+extensions", "{w}") AS ?s{i})' for i, w in enumerate(weights)
    )
    with pytest.raises(QueryError, match="more than 2 similarity indexes"):
        _run(sample_store, functions, f"SELECT ?s {three} {{}}")
    # four spellings of one ontology (one index): its name, a set's key, both graphs' IRIs
    names = [
        '"UBERON+extensions"',
        '"UBERON_EXT"',
        "<https://w3id.org/craftrdf/ontology/UBERON+extensions>",
        "<https://w3id.org/craftrdf/set/UBERON_EXT>",
    ]
    calls = " ".join(f"(craftrdf:wang({PAIR[0]}, {PAIR[1]}, {n}) AS ?s{i})" for i, n in enumerate(names))
    with pytest.raises(QueryError, match="more than 3 distinct ontology arguments"):
        _run(sample_store, functions, f"SELECT ?s {calls} {{}}")
    # three are within the limit, and all spell the same ontology: the same number
    session = functions.session()
    three = " ".join(f"(craftrdf:wang({PAIR[0]}, {PAIR[1]}, {n}) AS ?s{i})" for i, n in enumerate(names[:3]))
    (row,) = sample_store.query(f"SELECT {three} {{}}", prefixes=query_prefixes(), custom_functions=session.functions)  # type: ignore[call-arg]
    session.check()
    values = {row[f"s{i}"].value for i in range(3)}  # type: ignore[index,union-attr]
    assert len(values) == 1 and 0 < float(values.pop()) < 1


# -- the server's limits apply to the calls -----------------------------------------------------

_RELATIONS = "GRAPH <https://w3id.org/craftrdf/relations/UBERON+extensions>"


def pairs(n: int) -> str:
    """craftrdf:wang over n x n classes of the sample's UBERON+extensions (its index: the one WANG builds)."""
    classes = [
        f"{{ SELECT DISTINCT ?{v} WHERE {{ {_RELATIONS} {{ ?{v} rdfs:subClassOf ?x }} }} LIMIT {n} }}" for v in "ab"
    ]
    return f"SELECT (COUNT(?s) AS ?n) WHERE {{ {' '.join(classes)} BIND(craftrdf:wang(?a, ?b) AS ?s) }}"


#: every triple of classes of the relations graph: 427 ** 3 = 78 million calls, hours of work
MANY = (
    "SELECT (SUM(craftrdf:wang(?a, ?b)) AS ?s) WHERE { "
    f"{_RELATIONS} {{ ?a rdfs:subClassOf ?x }} {_RELATIONS} {{ ?b rdfs:subClassOf ?y }} "
    f"{_RELATIONS} {{ ?c rdfs:subClassOf ?z }} }}"
)


def test_each_call_is_bounded_and_many_calls_hit_the_time_limit(pool: WorkerPool, endpoint: TestClient) -> None:
    """The last test of the module's worker: it is killed here, and later tests would pay for a new one."""
    assert _endpoint_value(endpoint, WANG) > 0  # the index is built (the earlier tests did it already)
    started = time.monotonic()
    r = endpoint.post("/sparql", data={"query": pairs(50)}, headers={"Accept": "text/csv"})
    took = time.monotonic() - started
    assert r.status_code == 200 and r.text.split() == ["n", str(50 * 50)], r.text  # each pair has a value
    assert took < 2_500 * 2e-3, f"{took:.1f} s for 2,500 calls"  # a call is a lookup and one pair: < 2 ms
    restarts = pool.restarts
    started = time.monotonic()
    with pytest.raises(RequestRefused) as cut:  # the endpoint's answer: 503 with this message (test_server_hardening)
        pool.call(run_sparql, QueryJob(MANY), timeout=1)
    assert cut.value.status == 503 and "time limit" in cut.value.message
    assert time.monotonic() - started < 15  # stopped at the limit, not run to its end
    assert pool.restarts == restarts + 1  # its worker was killed and replaced


@pytest.mark.long("a worker of its own builds the index, then fills its memory limit: 75 s at load 14")
def test_many_calls_sorted_hit_the_memory_limit(sample_store_dir: Path) -> None:
    from craftrdf.publishing.server.workers import _resident

    with WorkerPool(StoreOpener(str(sample_store_dir), "read"), size=1) as workers:
        workers.call(run_sparql, QueryJob(WANG), timeout=300)  # the index, built once per worker
        worker = workers._all[next(iter(workers._all))]
        workers.max_memory = _resident(worker) + (64 << 20)
        # ORDER BY keeps every row: memory grows with the calls made, until the limit stops the query
        sort = MANY.replace(
            "SELECT (SUM(craftrdf:wang(?a, ?b)) AS ?s)", "SELECT ?a ?b ?c (craftrdf:wang(?a, ?b) AS ?s)"
        )
        with pytest.raises(RequestRefused) as refused:
            workers.call(run_sparql, QueryJob(sort + " ORDER BY ?s"), timeout=600)
        assert refused.value.status == 503 and "memory limit" in refused.value.message
        assert _resident(worker) == 0 and workers.restarts == 1
