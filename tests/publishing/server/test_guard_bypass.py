"""The guard against the bypasses of issue 17, and against an independent SPARQL parser (rdflib) as oracle.

Each bypass class is shown twice: pyoxigraph itself, given the text directly, really does what
the guard must stop (contacts a local listener, or reads the keyword), so the case is not
imagined; and the guard refuses it. The property test generates queries and updates mixing
escaped prefixed names, numbers before keywords, strings, IRIs, comments, codepoint escapes,
SERVICE, LOAD and nested groups; whenever rdflib's parser finds SERVICE or LOAD, or nests
groups deeper than the limit, the guard must refuse.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from craftrdf.publishing.server.guard import Limits, RequestRefused, check_request, with_using
from tests.helpers.server import listener as counting_listener

rdflib_parser = pytest.importorskip("rdflib.plugins.sparql.parser")
from pyparsing import ParseResults  # noqa: E402  (rdflib's dependency)
from rdflib.plugins.sparql.parserutils import CompValue  # noqa: E402


@pytest.fixture(scope="module")
def listener() -> Iterator[tuple[str, list[int]]]:
    """A TCP listener on loopback counting the connections it gets: (URL, hits)."""
    with counting_listener() as it:
        yield it


def refused(text: str, limits: Limits | None = None) -> int | None:
    """The status the guard refuses ``text`` with, or None when it lets it through."""
    try:
        check_request(text, limits or Limits())
    except RequestRefused as exc:
        return exc.status
    return None


SERVICE_BYPASSES = [
    # an escaped character in a local name: a tokenizer that stops at the backslash reads
    # "#q ..." as a comment or "'q ..." as a string and misses what follows
    "PREFIX ex: <http://e/> SELECT * {{ ?s ex:p\\#q ?o . SERVICE <{u}> {{ ?a ?b ?c }} }}",
    "PREFIX ex: <http://e/> SELECT * {{ ?s ex:p\\'q ?o . SERVICE <{u}> {{ ?a ?b ?c }} }} # '",
    # a number, a dot and a keyword: 1 . SERVICE
    "SELECT * {{ ?s ?p 1.SERVICE <{u}> {{ ?a ?b ?c }} }}",
    # keywords glued to a bracket, to another keyword, to a prefixed name
    "SELECT * {{ ?s ?p ?o OPTIONAL {{}}SERVICE <{u}> {{ ?a ?b ?c }} }}",
    "SELECT * {{ ?s ?p trueSERVICE <{u}> {{ ?a ?b ?c }} }}",
    "PREFIX ex: <{u}> SELECT * {{ ?s ?p ?o . SERVICEex:x {{ ?a ?b ?c }} }}",
    "SELECT * {{ ?s ?p ?o . sErViCeSiLeNt<{u}> {{ ?a ?b ?c }} }}",
]


@pytest.mark.parametrize("template", SERVICE_BYPASSES)
def test_service_bypasses_reach_the_engine_and_are_refused(template: str, listener: Any) -> None:
    url, hits = listener
    text = template.format(u=url)
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://p"), ox.Literal(True)))
    store.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://p"), ox.Literal(1)))
    store.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://e/p#q"), ox.NamedNode("http://o")))
    store.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://e/p'q"), ox.NamedNode("http://o")))
    before = len(hits)
    with contextlib.suppress(OSError):  # the listener hangs up: the engine did connect
        list(store.query(text))
    assert len(hits) > before, "pyoxigraph did not run SERVICE: the case shows nothing"
    assert refused(text) == 403


def test_codepoint_escapes_are_read_both_ways() -> None:
    r"""SPARQL expands \u escapes before lexing (rdflib does); oxigraph does not: the guard refuses either reading."""
    assert refused("SELECT * { \\u0053ERVICE <http://x/> { } }") in (400, 403)
    # raw: one string; expanded: an empty string, SERVICE, and an open string
    assert refused('SELECT * { ?s ?p "\\u0022 . SERVICE <http://x/> { } . ?s ?p \\u0022" }') == 403
    assert refused("SELECT * { ?s ?p ?o } # \\u000aSERVICE <http://x/> {}") == 403
    assert refused('SELECT * { ?s ?p "caf\\u00e9" }') is None


def test_a_hidden_3000_deep_group_is_refused() -> None:
    deep = "{" * 3000 + "}" * 3000
    for hide in ("?s ex:p\\#q ?o .", "?s ex:p\\'q ?o .", "?s ?p 1.", '?s ?p "\\"" .'):
        assert refused(f"PREFIX ex: <http://e/> SELECT * {{ {hide} {deep} }}") == 400, hide
    # bracketless nesting and long chains crash the engine too (see the guard's docstring)
    assert refused("SELECT * { FILTER(" + "!" * 20_000 + "true) }") == 400
    assert refused("SELECT * { FILTER(" + "1+" * 40_000 + "1) }") == 400
    assert refused("SELECT * { " + "{} UNION " * 10_000 + "{} }") == 400
    assert refused("SELECT * { " + "?s ?p ?o . " * 9_000 + "}") == 400
    # but a big INSERT DATA is data, not a tree
    assert refused("INSERT DATA { " + "<http://a> <http://b> 1 . " * 3_000 + "}", Limits(max_length=10**6)) is None


def test_load_is_refused_in_every_spelling() -> None:
    for text in ("LOAD <http://x/>", "load<http://x/>", "CLEAR ALL;LOAD <http://x/>", "LOADSILENT<http://x/>"):
        assert refused(text) == 403, text
    assert refused("LOAD <http://x/>", Limits(allow_load=True)) is None


def test_using_graph_uri_is_applied_or_refused_never_ignored() -> None:
    g = ["http://g/1"]
    out = with_using("PREFIX ex: <http://e/> INSERT { ?s ex:p\\#q 1 } WHERE { ?s ?p ?o }", g, [])
    assert "USING <http://g/1> WHERE" in out
    for update in (
        "DELETE WHERE { ?s ?p ?o }",
        "INSERT DATA { <http://s> <http://p> 1 }",
        "CLEAR ALL",
    ):
        with pytest.raises(RequestRefused) as err:
            with_using(update, g, [])
        assert err.value.status == 400, update


# -- the oracle ---------------------------------------------------------------------------

LIMIT = 5


def oracle(text: str, update: bool) -> tuple[set[str], int] | None:
    """rdflib's reading: the names of the parse tree's nodes and the deepest group nesting, or None."""
    try:
        tree = (rdflib_parser.parseUpdate if update else rdflib_parser.parseQuery)(text)
    except Exception:
        return None
    names: set[str] = set()
    deepest = 0
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, CompValue):
            names.add(node.name)
            if node.name == "GroupGraphPatternSub":
                depth += 1
                deepest = max(deepest, depth)
            stack.extend((v, depth) for v in node.values())
        elif isinstance(node, ParseResults | list | tuple):
            stack.extend((v, depth) for v in node)
    return names, deepest


ATOMS = [
    "?s ?p ?o .",
    "?s ex:p\\#q ?o .",
    "?s ex:p\\'q ?o .",
    "?s ex:a\\.b ?o .",
    "?s ?p 1.",
    "?s ?p 1.5e3 .",
    '?s ?p "a { # \\" \' }" .',
    "?s ?p '''x } ''' .",
    "?s <http://e/a(b)[c]#d> ?o .",
    "# { SERVICE <http://x/> {\n",
    "FILTER(!true)",
    "\\u0053ERVICE <http://x/> { }",
]


WRAPPERS = ["", "OPTIONAL", "MINUS", "SERVICE <http://x/>", "SERVICE SILENT <http://x/>", "GRAPH ?g", "{} UNION"]


@st.composite
def nest(draw: st.DrawFn, depth: int) -> str:
    """A group ``depth`` deep, each level wrapped by a keyword (or nothing) and padded with atoms."""
    atoms = st.lists(st.sampled_from(ATOMS), max_size=2).map(" ".join)
    text = draw(atoms)
    for _ in range(depth):
        sep = draw(st.sampled_from([" ", "", "\n"]))
        text = f"{draw(st.sampled_from(WRAPPERS))}{sep}{{ {draw(atoms)} {text} {draw(atoms)} }}"
    return text


PROLOGUE = "PREFIX ex: <http://e/> "


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, bool]:
    body = draw(st.lists(st.integers(0, LIMIT + 2).flatmap(nest), min_size=1, max_size=3).map(" ".join))
    if draw(st.booleans()):
        return PROLOGUE + "SELECT * { " + body + " }", False
    ops = [f"INSERT {{ ?s ?p ?o }} WHERE {{ {body} }}"]
    if draw(st.booleans()):
        ops.insert(
            draw(st.integers(0, 1)), draw(st.sampled_from(["LOAD <http://x/>", "load<http://x/> INTO GRAPH <g:x>"]))
        )
    return PROLOGUE + " ; ".join(ops), True


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_the_guard_refuses_whatever_rdflib_finds(request: tuple[str, bool]) -> None:
    text, update = request
    read = oracle(text, update)
    event("parsed by rdflib" if read is not None else "not SPARQL to rdflib")
    if read is None:
        return
    names, deepest = read
    status = refused(text, Limits(max_depth=LIMIT))
    if "ServiceGraphPattern" in names or "Load" in names:
        event("oracle: SERVICE or LOAD")
        assert status is not None
    if deepest > LIMIT:
        event("oracle: too deep")
        assert status is not None
