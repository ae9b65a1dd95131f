"""Binding values into query text for remote stores (craftrdf.core.bindings.bind_values), without a server.

The reference is pyoxigraph's own ``substitutions``: the rewritten query, run without
substitutions on the same embedded store, must give the same rows as the original query
run with them. Every parameterised library query is checked on the bundled sample, and
adversarial strings are pushed through by Hypothesis.
"""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings

from craftrdf.analysis.similarity.sparql import functions_for
from craftrdf.core.bindings import bind_values, same_term
from craftrdf.core.errors import QueryError
from craftrdf.core.lexer import tokenize
from craftrdf.querying.library import resolve_query, run_query
from tests.helpers.queries import (
    ADVERSARIAL,
    EMPTY_IN_SAMPLE,
    IRI_TAIL,
    LIBRARY_PARAMS,
    PARAMETERISED,
    adversarial_cases,
    assert_same_rows,
    params_of,
    required,
    rows_of,
    tiny_quads,
    with_svalues,
)
from tests.helpers.sample import sample_store


class _Rewriting:
    """The embedded store, but values bound by rewriting the text as RemoteStore does."""

    def __init__(self, store: object) -> None:
        self.store = store

    def query(self, sparql: str, *, substitutions=None, named_graphs=None, prefixes=None, custom_functions=None):  # type: ignore[no-untyped-def]
        return self.store.query(  # type: ignore[attr-defined]
            bind_values(sparql, substitutions or {}),
            named_graphs=named_graphs,
            prefixes=prefixes,
            custom_functions=custom_functions,
        )


@pytest.fixture(scope="module")
def store():  # type: ignore[no-untyped-def]
    from craftrdf.querying.indexes import ensure_containment

    s = sample_store()
    ensure_containment(s)
    return with_svalues(s)


def test_the_listed_queries_exist() -> None:
    assert set(LIBRARY_PARAMS) <= set(PARAMETERISED)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.long("craftrdf:wang on every pair of two sets, bound three ways: 40 s"))
        if n == "similarity-pairs"
        else n
        for n in PARAMETERISED
    ],
)
def test_library_query_same_rows_as_pyoxigraph_substitutions(store, name: str) -> None:  # type: ignore[no-untyped-def]
    q = resolve_query(name)
    params = params_of(name)
    graphs = None
    if name in ("view", "nested-pairs"):
        from craftrdf.analysis.views import _graphs

        graphs = _graphs(store, ["UBERON_EXT", "CL_EXT", "UBERON"])
    # every parameter alone (when the query can run without the others), and all of them together
    alone = [{k: v} for k, v in params.items() if required(name) <= {k}]
    for chosen in [*alone, params]:
        expected = run_query(store, q, chosen, named_graphs=graphs, functions=functions_for(store).session())
        got = run_query(_Rewriting(store), q, chosen, named_graphs=graphs, functions=functions_for(store).session())  # type: ignore[arg-type]
        # a SUM of doubles (wang-svalues) may add in another order under another plan: its last bit may differ
        assert_same_rows(expected, got, tolerance=1e-12, what=(name, chosen))
    # the chosen values select something in the sample, so the comparison is not vacuous
    rows = run_query(store, q, params, named_graphs=graphs, functions=functions_for(store).session()).rows
    assert bool(rows) != (name in EMPTY_IN_SAMPLE), name


def test_values_block_placement() -> None:
    q = "SELECT ?x ?y WHERE { ?x <http://p> ?y }"
    assert bind_values(q, {"x": ox.NamedNode("http://e/a")}) == (
        "SELECT ?x ?y WHERE { VALUES (?x) { (<http://e/a>) } <http://e/a> <http://p> ?y }"
    )
    nested = "SELECT ?x WHERE { OPTIONAL { ?x ?p ?o } FILTER NOT EXISTS { ?x ?q ?r } VALUES ?z { 1 } }"
    out = bind_values(nested, {"x": ox.Literal("v")})
    assert out.count('VALUES (?x) { ("v") }') == 3  # every group, not the VALUES data block
    assert "VALUES ?z { 1 }" in out


def test_subquery_gets_the_value_only_when_it_projects_the_variable() -> None:
    q = "SELECT ?a ?b WHERE { { SELECT ?a WHERE { ?a ?p ?o } } { SELECT ?c WHERE { ?c ?p ?a } } ?a ?q ?b }"
    out = bind_values(q, {"a": ox.Literal("v")})
    assert out.count('VALUES (?a) { ("v") }') == 2
    assert "{ SELECT ?c WHERE { ?c ?p ?a } }" in out


def test_bind_of_a_bound_variable_becomes_a_compatibility_filter() -> None:
    q = "SELECT ?s ?v WHERE { ?s ?p ?o BIND(STR(?o) AS ?v) }"
    out = bind_values(q, {"v": ox.Literal("x")})
    assert "BIND" not in out
    assert f"FILTER(COALESCE({same_term('(STR(?o))', ox.Literal('x'))}, true))" in out


@pytest.mark.parametrize(
    "value",
    [
        ox.Literal("x"),
        ox.Literal("x", language="en"),
        ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
        ox.Literal('a "quoted" \\ value'),
        ox.NamedNode("http://e/x"),
    ],
)
def test_same_term_spelt_out_agrees_with_sameterm(value: ox.NamedNode | ox.Literal) -> None:
    # Virtuoso answers sameTerm(stored "x", "x") false; the spelt-out test must mean what sameTerm means
    candidates = [
        '"x"',
        '"x"@en',
        '"x"@de',
        "1",
        '"1"',
        "1.0",
        '"a \\"quoted\\" \\\\ value"',
        "<http://e/x>",
        "<http://e/y>",
        "UNDEF",
    ]
    store = ox.Store()
    q = (
        f"SELECT ?c (sameTerm(?c, {value}) AS ?reference) ({same_term('?c', value)} AS ?spelt) "
        f"WHERE {{ VALUES ?c {{ {' '.join(candidates)} }} }}"
    )
    rows = list(store.query(q))
    assert len(rows) == len(candidates)
    assert any(r["reference"] is not None and r["reference"].value == "true" for r in rows)
    for r in rows:
        assert (r["reference"] and r["reference"].value) == (r["spelt"] and r["spelt"].value), r


def test_strings_iris_and_comments_are_not_taken_for_structure() -> None:
    q = (
        "# SELECT ?x WHERE { BIND(1 AS ?x) }\n"
        'SELECT ?x ?l WHERE { ?x <http://e/a#b> "SELECT { BIND(1 AS ?x) }" . '
        "?x <http://e/l> ?l FILTER(?l != '''# }''') }"
    )
    out = bind_values(q, {"x": ox.NamedNode("http://e/s")})
    assert out.startswith("# SELECT ?x WHERE { BIND(1 AS ?x) }\nSELECT ?x ?l WHERE { VALUES (?x)")
    assert '"SELECT { BIND(1 AS ?x) }"' in out and "'''# }'''" in out


def test_construct_template_is_skipped() -> None:
    q = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
    out = bind_values(q, {"s": ox.NamedNode("http://e/s")})
    assert out == "CONSTRUCT { ?s ?p ?o } WHERE { VALUES (?s) { (<http://e/s>) } <http://e/s> ?p ?o }"


def test_refusals_match_pyoxigraph() -> None:
    q = "SELECT ?x WHERE { ?x ?p ?o }"
    with pytest.raises(RuntimeError, match=r"\?o in its SELECT projection"):
        bind_values(q, {"o": ox.Literal("v")})
    with pytest.raises(RuntimeError, match="SELECT projection"):
        ox.Store().query(q, substitutions={ox.Variable("o"): ox.Literal("v")})
    with pytest.raises(QueryError, match="only IRIs and literals"):
        bind_values(q, {"x": ox.BlankNode("b")})  # type: ignore[dict-item]
    with pytest.raises(QueryError, match="computed in a SELECT list"):
        bind_values("SELECT (1 AS ?n) WHERE { }", {"n": ox.Literal("1")})


def test_run_query_reports_an_unknown_parameter_the_same_way(store) -> None:  # type: ignore[no-untyped-def]
    for s in (store, _Rewriting(store)):
        with pytest.raises(QueryError, match=r"has no parameter \?nope"):
            run_query(s, resolve_query("sets"), {"nope": "x"})  # type: ignore[arg-type]


# -- adversarial values --------------------------------------------------------------------------


def check_structure(sparql: str, subs: dict[str, ox.NamedNode | ox.Literal]) -> None:
    """Binding the adversarial values gives the same token structure as binding plain ones.

    A value beyond ASCII is compared as a plain one beyond ASCII is (bindings._bind_filter).
    """
    plain = {
        k: ox.NamedNode("http://example.org/plain")
        if isinstance(v, ox.NamedNode)
        else ox.Literal("plain" if v.value.isascii() else "pl\u00e4in")
        for k, v in subs.items()
    }
    got = [(t.kind, t.text) for t in tokenize(bind_values(sparql, subs))]
    ref = [(t.kind, t.text) for t in tokenize(bind_values(sparql, plain))]
    assert [k for k, _ in got] == [k for k, _ in ref]
    serialized = {str(v) for v in subs.values()}
    for (kind, text), (_, ref_text) in zip(got, ref):
        if text != ref_text:
            assert kind in ("string", "iri") and text in serialized, (text, ref_text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=ADVERSARIAL, tail=IRI_TAIL)
def test_adversarial_values_bind_like_pyoxigraph(value: str, tail: str) -> None:
    try:
        cls = ox.NamedNode("http://example.org/c/" + tail).value
    except ValueError:
        cls = "http://example.org/c/plain"
    embedded = ox.Store()
    for quads in tiny_quads(value, cls).values():
        embedded.extend(quads)
    for sparql, subs, graphs in adversarial_cases(value, cls):
        check_structure(sparql, subs)
        named = [ox.NamedNode(g) for g in graphs] if graphs else None
        expected = rows_of(
            embedded.query(sparql, substitutions={ox.Variable(k): v for k, v in subs.items()}, named_graphs=named)
        )
        got = rows_of(embedded.query(bind_values(sparql, subs), named_graphs=named))
        assert got == expected
        assert len(expected) == 1, (sparql, expected)
    assert len(embedded) == sum(len(q) for q in tiny_quads(value, cls).values())
