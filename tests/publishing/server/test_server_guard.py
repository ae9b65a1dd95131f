"""The request guard (length, nesting, LOAD/SERVICE, USING), content negotiation, and ``craftrdf serve`` itself."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.publishing.server.guard import (
    Limits,
    RequestRefused,
    check_request,
    with_using,
)
from craftrdf.publishing.server.protocol import negotiate, parse_sparql_request
from tests.helpers.server import free_port, wait_until_serving


def depth_of(text: str) -> int:
    """The deepest nesting the guard sees: the smallest depth limit it passes (binary search)."""
    lo, hi = 0, 10_000
    while lo < hi:  # smallest limit the text passes
        mid = (lo + hi) // 2
        try:
            check_request(text, Limits(max_depth=mid))
            hi = mid
        except RequestRefused:
            lo = mid + 1
    return lo


@given(st.lists(st.sampled_from("{}()[] ?x."), max_size=60))
def test_depth_of_plain_brackets(chars):
    """With no strings, IRIs or comments, the depth is the running maximum of opens minus closes."""
    text = "".join(chars)
    depth = deepest = 0
    for c in text:
        if c in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "})]":
            depth = max(depth - 1, 0)
    assert depth_of(text) == deepest


@pytest.mark.parametrize(
    "text",
    [
        'SELECT * { ?s ?p "{{{{{{" }',
        "SELECT * { ?s ?p '''{{{\n{{{''' }",
        "SELECT * { ?s ?p <http://e/((([[[> }",
        "SELECT * { ?s ?p ?o } # {{{{{{{{",
        'SELECT * { ?s ?p "a \\" {{{{" }',
    ],
)
def test_brackets_in_strings_iris_and_comments_do_not_count(text):
    assert depth_of(text) == 1


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_any_text_gets_an_answer_or_a_refusal(text):
    """The guard never fails on its own: any input passes or is refused with a status."""
    try:
        check_request(text, Limits(max_depth=8, max_length=200))
    except RequestRefused as exc:
        assert exc.status in (400, 403)


def test_load_service_as_keywords_only():
    for text in (
        "LOAD <http://x>",
        "load <http://x>",
        "SELECT * { SERVICE <http://x> { ?s ?p ?o } }",
        "SELECT * { service silent <http://x> { } }",
    ):
        with pytest.raises(RequestRefused) as err:
            check_request(text, Limits())
        assert err.value.status == 403
    for text in (
        'SELECT ("LOAD" AS ?x) {}',
        "SELECT ?load { ?service <http://e/LOAD> ex:SERVICE }",
        "SELECT * {} # LOAD <http://x>",
    ):
        check_request(text, Limits())
    check_request("LOAD <http://x>", Limits(allow_load=True))


def test_with_using_places_clauses_before_each_where():
    update = (
        "PREFIX ex: <http://e/> INSERT DATA { ex:a ex:b 1 } ; "
        "DELETE { ?s ?p ?o } WHERE { ?s ?p ?o } ; INSERT { ?s ex:w 1 } WHERE { ?s ?p ?o }"
    )
    out = with_using(update, ["http://g/1"], ["http://g/2"])
    assert out.count("USING <http://g/1> USING NAMED <http://g/2> WHERE") == 2
    assert "INSERT DATA { ex:a ex:b 1 }" in out
    assert with_using(update, [], []) == update
    with pytest.raises(RequestRefused):
        with_using("WITH <http://g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", ["http://g/1"], [])
    with pytest.raises(RequestRefused):
        with_using("DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", ["not an iri"], [])
    # a WHERE inside a string or a nested group is not the operation's WHERE
    tricky = 'INSERT { ?s <http://p> "WHERE" } WHERE { { SELECT * WHERE { ?s ?p ?o } } }'
    assert with_using(tricky, ["http://g/1"], []).count("USING") == 1


def test_negotiation():
    offered = ["application/sparql-results+json", "text/csv"]
    assert negotiate(None, offered) == offered[0]
    assert negotiate("text/*", offered) == "text/csv"
    assert negotiate("text/csv;q=0.5, application/*;q=0.4", offered) == "text/csv"
    assert negotiate("application/sparql-results+json;q=0, */*", offered) == "text/csv"
    assert negotiate("image/png", offered) is None


def test_protocol_request_forms():
    r = parse_sparql_request("GET", "query=ASK%7B%7D&default-graph-uri=http%3A%2F%2Fg", None, b"")
    assert (r.kind, r.text, r.default_graphs) == ("query", "ASK{}", ("http://g",))
    r = parse_sparql_request(
        "POST", "using-graph-uri=http%3A%2F%2Fg", "application/sparql-update; charset=UTF-8", b"CLEAR ALL"
    )
    assert (r.kind, r.default_graphs) == ("update", ("http://g",))
    for args, status in [
        (("GET", "update=CLEAR+ALL", None, b""), 400),
        (("POST", "", "application/sparql-query; charset=UTF-16", "ASK {}".encode("utf-16")), 415),
        (("POST", "", "application/sparql-query", b"\xff\xfe"), 400),
        (("POST", "", "application/x-www-form-urlencoded", b"query=a&query=b"), 400),
        (("POST", "default-graph-uri=http%3A%2F%2Fg", "application/sparql-update", b"CLEAR ALL"), 400),
        (("GET", "query=ASK%7B%7D&default-graph-uri=relative", None, b""), 400),
        (("DELETE", "", None, b""), 405),
    ]:
        with pytest.raises(RequestRefused) as err:
            parse_sparql_request(*args)
        assert err.value.status == status, args


def test_cli_serve_with_updates(tmp_path):
    """``craftrdf serve --allow-update --token-file`` end to end: queries, updates with and without the token."""
    token = tmp_path / "token"
    token.write_text("cli-serve-test-token-0123456789\n")
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "craftrdf",
            "serve",
            "--store",
            str(tmp_path / "s.store"),
            "--port",
            str(port),
            "--allow-update",
            "--create",
            "--token-file",
            str(token),
            "--timeout",
            "10",
        ]
    )
    try:
        url = f"http://127.0.0.1:{port}/sparql"
        wait_until_serving(proc, url)
        insert = {"update": "INSERT DATA { GRAPH <http://g> { <http://s> <http://p> 1 } }"}
        assert httpx.post(url, data=insert).status_code == 401
        ok = httpx.post(url, data=insert, headers={"Authorization": "Bearer cli-serve-test-token-0123456789"})
        assert ok.status_code == 200, ok.text
        r = httpx.get(url, params={"query": "ASK { GRAPH <http://g> { <http://s> <http://p> 1 } }"})
        assert r.json()["boolean"] is True
    finally:
        proc.terminate()
        proc.wait(30)
    assert proc.returncode in (0, -15)  # uvicorn re-raises SIGTERM after its graceful shutdown
    from craftrdf.store.local import AnnotationStore

    with AnnotationStore.open(tmp_path / "s.store"):  # the writer worker is gone: its lock is free
        pass


def test_cli_refuses_a_short_token(tmp_path):
    token = tmp_path / "token"
    token.write_text("short")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "craftrdf",
            "serve",
            "--store",
            str(tmp_path / "s.store"),
            "--allow-update",
            "--token-file",
            str(token),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "shorter than 16" in r.stderr


@pytest.mark.parametrize("updates", [False, True])
def test_cli_serve_on_a_missing_store_is_one_line_and_creates_nothing(tmp_path, capsys, updates):
    from craftrdf.apps.cli import main

    token = tmp_path / "token"
    token.write_text("cli-serve-test-token-0123456789\n")
    missing = tmp_path / "typo.store"
    extra = ["--allow-update", "--token-file", str(token)] if updates else []
    assert main(["serve", "--store", str(missing), "--port", str(free_port()), *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no craftrdf store here" in err[0] and str(missing) in err[0]
    assert ("--create" in err[0]) == updates
    assert not missing.exists()
