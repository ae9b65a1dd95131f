"""Remote stores against a real Oxigraph server started on loopback (issue 8, "Remote stores").

The bundled sample is built twice from the same input: into an embedded store
(``craftrdf build --store``) and into ``oxigraph serve`` through the Graph Store Protocol
(``craftrdf build --endpoint``). Every library query, and the view, export, similarity,
query and annotate commands, must then give the same results from both. Skipped, with the
reason, when the ``oxigraph`` command (PyPI package ``oxigraph``) is not installed.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.core.errors import QueryError, StoreError
from craftrdf.querying.library import library
from craftrdf.store.local import AnnotationStore
from craftrdf.store.remote import RemoteStore
from tests.helpers.commands import assert_same_outputs, command_outputs
from tests.helpers.oxigraph import free_port
from tests.helpers.oxigraph import oxigraph_server as oxigraph_at
from tests.helpers.queries import (
    ADVERSARIAL,
    EMPTY_IN_SAMPLE,
    IRI_TAIL,
    check_adversarial,
    compare_library_query_ways,
    uses_functions,
)

# craftrdf:wang and its kin run where craftrdf runs the query (craftrdf query, craftrdf serve), not on
# `oxigraph serve`: those queries are compared in tests/analysis/similarity/test_sparql_functions.py
PLAIN = sorted(name for name in library() if not uses_functions(name))


def oxigraph_command() -> str | None:
    """The ``oxigraph`` executable: on PATH, or beside this Python (an unactivated virtualenv)."""
    found = shutil.which("oxigraph")
    if found:
        return found
    beside = Path(sys.executable).parent / "oxigraph"
    return str(beside) if beside.is_file() else None


@contextlib.contextmanager
def oxigraph_server(workdir: Path) -> Iterator[str]:
    """An ``oxigraph serve`` on a free loopback port; yields its base URL, stops it afterwards."""
    exe = oxigraph_command()
    if exe is None:
        pytest.skip("the `oxigraph` command is not installed (pip install oxigraph): no server to test against")
    with oxigraph_at(exe, workdir) as base:
        yield base


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, str]]:
    """(local store path, query endpoint, graph store URL): the sample built into both."""
    work = tmp_path_factory.mktemp("remote")
    with oxigraph_server(work) as base:
        endpoint, gsp = f"{base}/query", f"{base}/store"
        local = work / "local.store"
        assert main(["-q", "build", "--craft", str(sample_dir()), "--store", str(local)]) == 0
        assert main(["-q", "build", "--craft", str(sample_dir()), "--endpoint", endpoint]) == 0
        # nesting links: computed by the first nesting view, on each side (the remote one through the GSP)
        view = ["-q", "view", "--sets", "UBERON_EXT", "--nesting", "outermost"]
        assert main([*view, "--store", str(local)]) == 0
        assert main([*view, "--endpoint", endpoint, "--graph-store", gsp]) == 0
        # S-values of UBERON+extensions (for wang-svalues), on each side
        materialize = ["-q", "similarity", "--materialize", "--ontology", "UBERON+extensions"]
        assert main([*materialize, "--store", str(local)]) == 0
        assert main([*materialize, "--endpoint", endpoint, "--graph-store", gsp]) == 0
        yield local, endpoint, gsp


def test_same_batches_and_size(built: tuple[Path, str, str]) -> None:
    local, endpoint, _ = built
    with AnnotationStore.open(local, mode="read") as store:
        batches, size = store.batches(), len(store)
    remote = RemoteStore(endpoint)
    assert remote.batches() == batches
    assert len(batches) > 50
    assert len(remote) == size


def test_rebuild_loads_nothing(built: tuple[Path, str, str]) -> None:
    _, endpoint, gsp = built
    remote = RemoteStore(endpoint, graph_store=gsp)
    before = remote.batches()
    report = build_store(sample_dir(), remote, RunContext.create())  # type: ignore[arg-type]
    assert report.loaded == {}
    # every batch but the derived ones (containment links, view rows) that earlier tests wrote
    built_batches = {g for g in before if not g.startswith("https://w3id.org/craftrdf/derived/")}
    assert set(report.unchanged) == built_batches
    assert remote.batches() == before


@pytest.mark.parametrize("name", PLAIN)
def test_library_query_same_results_as_embedded(built: tuple[Path, str, str], name: str) -> None:
    local, endpoint, _ = built
    with AnnotationStore.open(local, mode="read") as store:
        compare_library_query_ways(store, RemoteStore(endpoint), name, empty=EMPTY_IN_SAMPLE, virtuoso=False)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_cli_commands_same_output(
    built: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local, endpoint, gsp = built
    sides = {"store": ["--store", str(local)], "endpoint": ["--endpoint", endpoint]}
    out: dict[str, dict[str, str]] = {}
    for side, where in sides.items():
        d = tmp_path / side
        o = out[side] = command_outputs(where, d, capsys)
        _run(["-q", "export", *where, "--set", "CL_EXT", "--format", "nquads", "--out", str(d / "cl.nq")], capsys)
        _run(
            [
                "-q",
                "sweep",
                *where,
                "--set",
                "UBERON",
                "--split",
                "train,dev",
                "--grid",
                "quick",
                "--workers",
                "1",
                "--no-cache",
                "--out",
                str(d / "sweep"),
            ],
            capsys,
        )
        # the rows without their seconds (the last column)
        o["sweep"] = "\n".join(
            sorted(r.rsplit(",", 1)[0] for r in (d / "sweep" / "results.csv").read_text().splitlines())
        )
    assert_same_outputs(out["store"], out["endpoint"], tmp_path / "store", tmp_path / "endpoint")
    assert len(out["store"]["sweep"].splitlines()) == 17  # the header and the 16 configurations of the quick grid

    def lines(p):
        return sorted(p.read_text().splitlines())

    assert lines(tmp_path / "store" / "cl.nq") == lines(tmp_path / "endpoint" / "cl.nq")
    # through the Graph Store Protocol, a whole graph comes in one GET: the same dump
    _run(
        [
            "-q",
            "export",
            "--endpoint",
            endpoint,
            "--graph-store",
            gsp,
            "--set",
            "CL_EXT",
            "--format",
            "nquads",
            "--out",
            str(tmp_path / "gsp.nq"),
        ],
        capsys,
    )
    assert lines(tmp_path / "gsp.nq") == lines(tmp_path / "store" / "cl.nq")


def test_read_only_remote_cannot_write(built: tuple[Path, str, str]) -> None:
    _, endpoint, _ = built
    with pytest.raises(StoreError, match="read-only"):
        RemoteStore(endpoint).load_batch("https://example.org/g", [], digest="x")


def test_graph_store_replaces_and_removes_a_batch(built: tuple[Path, str, str]) -> None:
    _, endpoint, gsp = built
    remote = RemoteStore(endpoint, graph_store=gsp)
    g = "https://example.org/test-batch"
    line = f'<https://example.org/s> <https://example.org/p> "{{}}" <{g}> .'
    try:
        assert remote.load_batch(g, [line.format("one"), line.format("two")], digest="d1") == 3
        assert remote.load_batch(g, [line.format("one")], digest="d1") == 0  # same digest: skipped
        assert remote.load_batch(g, [line.format("three")], digest="d2") == 2
        objects = sorted(q.object.value for q in remote.quads_for_pattern(None, None, None, ox.NamedNode(g)))
        assert objects == ["d2", "three"]  # replaced whole: "one" and "two" are gone
        assert remote.batches()[g].digest == "d2"
    finally:
        assert remote.remove_batch(g)
    assert not remote.remove_batch(g)
    assert g not in remote.batches()


@pytest.mark.parametrize("through", ["update", "graph store"])
def test_removing_a_batch_removes_its_companion_graphs(built: tuple[Path, str, str], through: str) -> None:
    """Regression: RemoteStore.remove_batch left an ontology's relations graph behind (the
    embedded store drops the companions its manifest lists with the batch)."""
    _, endpoint, gsp = built
    remote = RemoteStore(endpoint, graph_store=gsp)
    if through == "graph store":
        remote.update_endpoint = None  # a server without SPARQL update: DELETEs only
    tail = through.replace(" ", "-")
    g, c = f"https://example.org/with-companion/{tail}", f"https://example.org/companion/{tail}"
    lines = [
        f'<https://example.org/s> <https://example.org/p> "main" <{g}> .',
        f'<https://example.org/s> <https://example.org/p> "derived" <{c}> .',
    ]
    remote.load_batch(g, lines, digest="d", companions=[c])
    assert remote.contains_named_graph(g) and remote.contains_named_graph(c)
    assert remote.remove_batch(g)
    assert not remote.contains_named_graph(g) and not remote.contains_named_graph(c)
    assert not remote.remove_batch(g)
    # the embedded store, for the same batch, agrees
    embedded = AnnotationStore.memory()
    embedded.load_batch(g, lines, digest="d", companions=[c])
    assert embedded.remove_batch(g)
    assert not embedded.contains_named_graph(c)


def test_bad_batch_writes_nothing(built: tuple[Path, str, str]) -> None:
    _, endpoint, gsp = built
    remote = RemoteStore(endpoint, graph_store=gsp)

    def lines() -> Iterator[str]:
        yield '<https://example.org/s> <https://example.org/p> "ok" <https://example.org/bad> .'
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        remote.load_batch("https://example.org/bad", lines(), digest="x")
    assert not remote.contains_named_graph("https://example.org/bad")


def test_dead_and_refusing_endpoints_give_clear_errors(
    built: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, endpoint, _ = built
    dead = f"http://127.0.0.1:{free_port()}/query"
    with pytest.raises(StoreError, match=f"cannot reach endpoint {dead}"):
        RemoteStore(dead, timeout=5).batches()
    wrong = endpoint.rsplit("/", 1)[0] + "/nothere"
    with pytest.raises(StoreError, match=rf"{wrong} failed \(HTTP 404\)"):
        RemoteStore(wrong).batches()
    with pytest.raises(QueryError, match=r"HTTP 400"):
        RemoteStore(endpoint).query("SELECT ?s WHERE { ?s ?p }")
    assert main(["-q", "query", "sets", "--endpoint", dead]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and dead in err[0]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteStore]:
    """A second, empty server for the property test (it writes graphs the comparisons above must not see)."""
    with oxigraph_server(tmp_path_factory.mktemp("scratch")) as base:
        yield RemoteStore(f"{base}/query", graph_store=f"{base}/store")


# 10 examples (0.7 s each over HTTP): the binding itself is checked on 150 in tests/core/test_bindings.py
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=ADVERSARIAL, tail=IRI_TAIL)
def test_adversarial_values_same_results_remote(scratch: RemoteStore, value: str, tail: str) -> None:
    data = check_adversarial(scratch, value, tail)
    # nothing but the three batches and their manifests is there: no value changed the store
    assert len(scratch) == sum(len(q) + 1 for q in data.values())


def test_a_replacement_is_one_update_request_with_the_difference(
    built: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17: replacing goes through /update in one request (one server transaction), not a PUT."""
    _, endpoint, gsp = built
    remote = RemoteStore(endpoint, graph_store=gsp)
    assert remote.update_endpoint == endpoint[: -len("query")] + "update"
    g = "https://example.org/replaced"
    s = "<https://example.org/s{}> <https://example.org/p> "
    old = [f'{s.format(i)}"{i}" <{g}> .' for i in range(100)] + [f'_:b <https://example.org/p> "old" <{g}> .']
    new = (
        old[:90]
        + [f'{s.format(i)}"{i}!" <{g}> .' for i in range(90, 100)]
        + [f'_:c <https://example.org/p> "new" <{g}> .']
    )
    sent: list[bytes] = []
    real_request = httpx.request

    def spy(method: str, url: str, **kw: object) -> httpx.Response:
        if url == remote.update_endpoint:  # queries are POSTed too (form bodies): count the updates
            sent.append(kw["content"])  # type: ignore[arg-type]
        return real_request(method, url, **kw)  # type: ignore[arg-type]

    try:
        remote.load_batch(g, old, digest="v1")
        monkeypatch.setattr(RemoteStore, "_put", lambda *a: pytest.fail("a replacement must not PUT"))
        monkeypatch.setattr(httpx, "request", spy)  # writes go through send_write, on httpx.request
        remote.load_batch(g, new, digest="v2")
        # by hand: out go 10 old values and manifest v1 (the old blank node by pattern); in come
        # 10 new values, the new blank node's triple and manifest v2
        assert len(sent) == 1 and sent[0].count(b'!" .') == 10 and sent[0].count(b'" . }\n') == (10 + 1) + (10 + 1 + 1)
        objects = sorted(q.object.value for q in remote.quads_for_pattern(None, None, None, ox.NamedNode(g)))
        # by hand: 90 unchanged, 10 changed, the new blank node's "new", the manifest "v2"
        assert objects == sorted([str(i) for i in range(90)] + [f"{i}!" for i in range(90, 100)] + ["new", "v2"])
    finally:
        monkeypatch.undo()
        remote.remove_batch(g)


#: Virtuoso 7's answer to a Graph Store Protocol PUT it rolled back for a deadlock (a full-corpus build, as received)
DEADLOCKED = (
    b'<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN"> <html> <head> <title>SPARQL Graph Protocol request failed'
    b"</title> </head> <body> <h1>HTTP/1.1 500 Request Failed</h1> <h3>Error 40001</h3> "
    b"<xmp>SR172: Transaction deadlocked</xmp></body></html>"
)


@pytest.mark.parametrize(
    ("answers", "sent", "status"),
    [
        ([(500, DEADLOCKED), (201, b"")], 2, 201),  # rolled back, sent again: written
        ([(500, DEADLOCKED)] * 3, 3, 500),  # the tries run out: the last answer, for the caller's one-line error
        ([(500, b"Error 42000: SR185: Undefined procedure"), (201, b"")], 1, 500),  # any other failure: at once
        ([(400, b"Error 40001")], 1, 400),
    ],
)
def test_a_write_the_server_rolled_back_for_a_deadlock_is_sent_again(
    monkeypatch: pytest.MonkeyPatch, answers: list[tuple[int, bytes]], sent: int, status: int
) -> None:
    from craftrdf.store import remote_protocol

    requests: list[tuple[str, str, bytes]] = []
    replies = iter(answers)

    def request(method: str, url: str, **kw: object) -> httpx.Response:
        requests.append((method, url, kw["content"]))  # type: ignore[arg-type]
        code, body = next(replies)
        return httpx.Response(code, content=body)

    monkeypatch.setattr(remote_protocol.httpx, "request", request)
    r = remote_protocol.send_write("PUT", "http://127.0.0.1:1/crud", retries=2, pause=0.001, content=b"<a> <b> <c> .")
    assert r.status_code == status
    assert requests == [("PUT", "http://127.0.0.1:1/crud", b"<a> <b> <c> .")] * sent
