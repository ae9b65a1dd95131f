"""Binding values into query text for remote stores (craftrdf.remote.bind_values), without a server.

The reference is pyoxigraph's own ``substitutions``: the rewritten query, run without
substitutions on the same embedded store, must give the same rows as the original query
run with them. Every parameterised library query is checked on the bundled sample, and
adversarial strings are pushed through by Hypothesis.
"""

from __future__ import annotations

import hashlib
import re

import pyoxigraph as ox
import pytest
from _sample import sample_store_factory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftrdf.errors import QueryError
from craftrdf.query import library, resolve_query, run_query
from craftrdf.remote import _tokens, bind_values
from craftrdf.vocab import CRAFT

SET_GRAPH = "https://w3id.org/craftrdf/set/UBERON_EXT"
DOC = "https://w3id.org/craftrdf/doc/11319941"
UBERON = "https://w3id.org/craftrdf/ontology/UBERON+extensions"
BRAIN = "http://purl.obolibrary.org/obo/UBERON_0000955"

#: The documented parameters of each library query, with values the sample holds.
LIBRARY_PARAMS: dict[str, dict[str, str]] = {
    "annotation-counts": {"set": "UBERON_EXT", "split": "test"},
    "annotations": {"set": "UBERON_EXT", "document": "11319941"},
    "annotations-of-class": {"cls": "UBERON:0000955", "set": "UBERON_EXT"},
    "export-annotations": {"setGraph": SET_GRAPH, "doc": DOC},
    "export-class-graphs": {"setGraph": SET_GRAPH},
    "export-classes": {"setGraph": SET_GRAPH, "source": UBERON, "doc": DOC},
    "export-documents": {"setGraph": SET_GRAPH, "doc": DOC},
    "export-set-annotations": {"setGraph": SET_GRAPH, "doc": DOC},
    "export-sets": {"setGraph": SET_GRAPH},
    "matcher-names": {"set": "CL_EXT"},
    "matcher-subtree": {"set": "UBERON_EXT", "root": "UBERON:0000955"},
    "missing-classes": {"set": "SO_EXT"},
    "nested-pairs": {"document": "11319941"},
    "per-document-stats": {"set": "SO_EXT"},
    "set-mappings": {"set": "UBERON_EXT"},
    "sets": {"set": "CL"},
    "similarity-graph": {"graph": UBERON},
    "spans": {"set": "MOP_EXT"},
    "top-classes": {"set": "UBERON_EXT"},
    "unique-concepts": {"set": "SO_EXT"},
    "view": {"classes": "proper", "nesting": "outermost", "split": "test"},
}


def rows_of(result: object) -> list[tuple[str, ...]]:
    """Rows as sorted tuples of N-Triples strings ("UNDEF" for unbound)."""
    assert isinstance(result, ox.QuerySolutions)
    names = [v.value for v in result.variables]
    return sorted(tuple("UNDEF" if s[n] is None else str(s[n]) for n in names) for s in result)


class _Rewriting:
    """The embedded store, but values bound by rewriting the text as RemoteStore does."""

    def __init__(self, store: object) -> None:
        self.store = store

    def query(self, sparql: str, *, substitutions=None, named_graphs=None):  # type: ignore[no-untyped-def]
        return self.store.query(bind_values(sparql, substitutions or {}), named_graphs=named_graphs)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def store():  # type: ignore[no-untyped-def]
    from craftrdf.views import ensure_containment

    s = sample_store_factory()
    ensure_containment(s)
    return s


#: Queries with no rows in the sample: its ontology excerpts define every class it uses.
EMPTY_IN_SAMPLE = {"missing-classes"}

#: Values for the parameters of library queries not listed above (queries added later), by name.
DEFAULTS = {"cls": "UBERON:0000955", "set": "UBERON_EXT", "doc": DOC, "document": "11319941",
            "setGraph": SET_GRAPH, "graph": UBERON, "source": UBERON, "split": "test"}


def params_of(name: str) -> dict[str, str]:
    """The values a test binds for a library query's documented parameters."""
    q = library()[name]
    if name in LIBRARY_PARAMS:
        assert set(LIBRARY_PARAMS[name]) <= set(q.params), name
        return LIBRARY_PARAMS[name]
    missing = [p for p in q.params if p not in DEFAULTS]
    assert not missing, f"{name}: give test values for {missing}"
    return {p: DEFAULTS[p] for p in q.params}


def required(name: str) -> set[str]:
    """The parameters a library query's header marks "(required)": unbound, it walks the whole store."""
    return {m.group(1) for m in re.finditer(r"^#\s+\?(\w+)\s.*\(required\)", library()[name].text,
                                                     re.MULTILINE)}


PARAMETERISED = sorted(name for name, q in library().items() if q.params)


def test_the_listed_queries_exist() -> None:
    assert set(LIBRARY_PARAMS) <= set(PARAMETERISED)


@pytest.mark.parametrize("name", PARAMETERISED)
def test_library_query_same_rows_as_pyoxigraph_substitutions(store, name: str) -> None:  # type: ignore[no-untyped-def]
    q = resolve_query(name)
    params = params_of(name)
    graphs = None
    if name in ("view", "nested-pairs"):
        from craftrdf.views import _graphs

        graphs = _graphs(store, ["UBERON_EXT", "CL_EXT", "UBERON"])
    # every parameter alone (when the query can run without the others), and all of them together
    alone = [{k: v} for k, v in params.items() if required(name) <= {k}]
    for chosen in alone + [params]:
        expected = run_query(store, q, chosen, named_graphs=graphs)
        got = run_query(_Rewriting(store), q, chosen, named_graphs=graphs)  # type: ignore[arg-type]
        assert got.columns == expected.columns
        assert sorted(map(str, got.rows)) == sorted(map(str, expected.rows)), (name, chosen)
    # the chosen values select something in the sample, so the comparison is not vacuous
    assert bool(run_query(store, q, params, named_graphs=graphs).rows) != (name in EMPTY_IN_SAMPLE), name


def test_values_block_placement() -> None:
    q = "SELECT ?x ?y WHERE { ?x <http://p> ?y }"
    assert bind_values(q, {"x": ox.NamedNode("http://e/a")}) == (
        "SELECT ?x ?y WHERE { VALUES (?x) { (<http://e/a>) } <http://e/a> <http://p> ?y }")
    nested = "SELECT ?x WHERE { OPTIONAL { ?x ?p ?o } FILTER NOT EXISTS { ?x ?q ?r } VALUES ?z { 1 } }"
    out = bind_values(nested, {"x": ox.Literal("v")})
    assert out.count('VALUES (?x) { ("v") }') == 3  # every group, not the VALUES data block
    assert "VALUES ?z { 1 }" in out


def test_subquery_gets_the_value_only_when_it_projects_the_variable() -> None:
    q = ("SELECT ?a ?b WHERE { { SELECT ?a WHERE { ?a ?p ?o } } "
         "{ SELECT ?c WHERE { ?c ?p ?a } } ?a ?q ?b }")
    out = bind_values(q, {"a": ox.Literal("v")})
    assert out.count('VALUES (?a) { ("v") }') == 2
    assert "{ SELECT ?c WHERE { ?c ?p ?a } }" in out


def test_bind_of_a_bound_variable_becomes_a_compatibility_filter() -> None:
    q = 'SELECT ?s ?v WHERE { ?s ?p ?o BIND(STR(?o) AS ?v) }'
    out = bind_values(q, {"v": ox.Literal("x")})
    assert "BIND" not in out
    assert 'FILTER(COALESCE(sameTerm((STR(?o)), "x"), true))' in out


def test_strings_iris_and_comments_are_not_taken_for_structure() -> None:
    q = ('# SELECT ?x WHERE { BIND(1 AS ?x) }\n'
         'SELECT ?x ?l WHERE { ?x <http://e/a#b> "SELECT { BIND(1 AS ?x) }" . '
         "?x <http://e/l> ?l FILTER(?l != '''# }''') }")
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

ADVERSARIAL = st.one_of(
    st.sampled_from(['"', "'", '\\', '}', '{', '#', '\n', '\r\n', '> . } DROP ALL {', '" } ; DROP ALL ; #',
                     '\\u0022 } #', '\\\\u0022', '"""', "'''", 'é\u0301\U0001f600', '\u2028', '\x00', '?x', '$x',
                     ') } } SELECT * WHERE { ?s ?p ?o', 'BIND(1 AS ?set)', '<http://evil/>']),
    st.text(min_size=0, max_size=30),
    st.text(alphabet='"\'\\{}#<>?$.;()\n\r \tuU0123456789abcdef', max_size=30),
)
IRI_TAIL = st.text(alphabet=st.characters(blacklist_characters='<>"{}|^`\\ \x7f', min_codepoint=0x21,
                                          max_codepoint=0x10FFFF, blacklist_categories=("Cs", "Cc", "Zs")),
                   max_size=25)

PREFIXES = ("PREFIX oa: <http://www.w3.org/ns/oa#>\nPREFIX craft: <https://w3id.org/craftrdf/vocab#>\n"
            "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nPREFIX owl: <http://www.w3.org/2002/07/owl#>\n")
TINY_SET = "https://w3id.org/craftrdf/set/TINY"
TINY_ONTO = "https://w3id.org/craftrdf/ontology/TINY"
DOCS = "https://w3id.org/craftrdf/documents"


def tiny_quads(value: str, cls: str) -> dict[str, list[ox.Quad]]:
    """A one-annotation set whose key, split, label and text are ``value`` and whose class is ``cls``."""
    g, o, d = ox.NamedNode(TINY_SET), ox.NamedNode(TINY_ONTO), ox.NamedNode(DOCS)
    c, root = ox.NamedNode(cls), ox.NamedNode("http://example.org/root")
    a, t, doc = ox.NamedNode("http://example.org/a1"), ox.NamedNode("http://example.org/t1"), \
        ox.NamedNode("https://w3id.org/craftrdf/doc/1")
    oa, cr = "http://www.w3.org/ns/oa#", str(CRAFT.digest)[: -len("digest")]
    v = ox.Literal(value)
    return {
        TINY_SET: [ox.Quad(g, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                           ox.NamedNode(cr + "AnnotationSet"), g),
                   ox.Quad(g, ox.NamedNode(cr + "key"), v, g),
                   ox.Quad(a, ox.NamedNode(oa + "hasBody"), c, g), ox.Quad(a, ox.NamedNode(oa + "hasTarget"), t, g),
                   ox.Quad(a, ox.NamedNode(cr + "spanCount"), ox.Literal("1", datatype=ox.NamedNode(
                       "http://www.w3.org/2001/XMLSchema#integer")), g),
                   ox.Quad(t, ox.NamedNode(oa + "hasSource"), doc, g),
                   ox.Quad(t, ox.NamedNode(cr + "coveredText"), v, g)],
        TINY_ONTO: [ox.Quad(c, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf"), root, o),
                    ox.Quad(c, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), v, o)],
        DOCS: [ox.Quad(doc, ox.NamedNode(cr + "split"), v, d)],
    }


#: Library queries (and one ad hoc query) with the parameters bound to the adversarial value;
#: each must find the one annotation of the tiny store.
def adversarial_cases(value: str, cls: str) -> list[tuple[str, dict[str, ox.NamedNode | ox.Literal], list[str] | None]]:
    from craftrdf.views import CONTAINMENT_GRAPH

    lit, node = ox.Literal(value), ox.NamedNode(cls)
    return [
        (resolve_query("sets").text, {"set": lit}, None),
        (resolve_query("annotation-counts").text, {"set": lit, "split": lit}, None),
        (resolve_query("annotations").text, {"set": lit, "document": ox.Literal("1")}, None),
        (resolve_query("annotations-of-class").text, {"cls": node, "set": lit}, None),
        (resolve_query("annotations-of-class").text, {"cls": ox.NamedNode("http://example.org/root")}, None),
        (resolve_query("view").text, {"classes": ox.Literal("all"), "nesting": ox.Literal("all"), "split": lit},
         [TINY_SET, DOCS, CONTAINMENT_GRAPH]),
        (resolve_query("export-sets").text, {"setGraph": ox.NamedNode(TINY_SET)}, None),
        (PREFIXES + "SELECT ?v ?c WHERE { GRAPH ?o { ?c rdfs:label ?l } FILTER(?l = ?v) }", {"v": lit, "c": node},
         None),
    ]


def check_structure(sparql: str, subs: dict[str, ox.NamedNode | ox.Literal]) -> None:
    """Binding the adversarial values gives the same token structure as binding plain ones."""
    plain = {k: ox.NamedNode("http://example.org/plain") if isinstance(v, ox.NamedNode) else ox.Literal("plain")
             for k, v in subs.items()}
    got = [(t.kind, t.text) for t in _tokens(bind_values(sparql, subs))]
    ref = [(t.kind, t.text) for t in _tokens(bind_values(sparql, plain))]
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
        expected = rows_of(embedded.query(sparql, substitutions={ox.Variable(k): v for k, v in subs.items()},
                                          named_graphs=named))
        got = rows_of(embedded.query(bind_values(sparql, subs), named_graphs=named))
        assert got == expected
        assert len(expected) == 1, (sparql, expected)
    assert len(embedded) == sum(len(q) for q in tiny_quads(value, cls).values())


def digest_of(value: str, cls: str) -> str:
    """A batch digest for the tiny store's content."""
    return hashlib.sha256(f"{value}\0{cls}".encode()).hexdigest()
