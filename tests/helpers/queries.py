"""Library queries with the values the tests bind, and adversarial values for binding tests.

Shared by the binding tests (rewriting query text) and the remote-store tests (a real server).
"""

from __future__ import annotations

import hashlib
import re

import pyoxigraph as ox
from hypothesis import strategies as st

from craftrdf.analysis.similarity.svalue_graph import svalue_graph
from craftrdf.core.vocab import CRAFT, FN
from craftrdf.querying.library import library, resolve_query

SET_GRAPH = "https://w3id.org/craftrdf/set/UBERON_EXT"
DOC = "https://w3id.org/craftrdf/doc/11319941"
UBERON = "https://w3id.org/craftrdf/ontology/UBERON+extensions"
BRAIN = "http://purl.obolibrary.org/obo/UBERON_0000955"
#: The S-value graph the tests materialize (:func:`with_svalues`) for the library query wang-svalues.
SVALUES = svalue_graph("UBERON+extensions", {"is_a": 0.8, "part_of": 0.6})

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
    "similar-annotations": {"set": "UBERON_EXT", "cls": "UBERON:0000955"},
    "similarity-pairs": {"gold": "UBERON_EXT", "pred": "UBERON", "document": "11319941"},
    "document-similarity": {"first": "UBERON_EXT", "second": "UBERON"},
    "wang-svalues": {"a": "UBERON:0000955", "b": "UBERON:0002435", "svalues": SVALUES},
}


def uses_functions(name: str) -> bool:
    """True for a library query calling craftrdf's SPARQL functions: only craftrdf runs it (not a plain server)."""
    return FN.NS in library()[name].text


def with_svalues(store: object) -> object:
    """``store`` with the S-values of UBERON+extensions (default weights) written, for wang-svalues; returns it."""
    from craftrdf.analysis.similarity.svalue_graph import materialize_svalues

    materialize_svalues(store, ontology="UBERON+extensions")  # type: ignore[arg-type]
    return store


def rows_of(result: object) -> list[tuple[str, ...]]:
    """Rows as sorted tuples of N-Triples strings ("UNDEF" for unbound)."""
    assert isinstance(result, ox.QuerySolutions)
    names = [v.value for v in result.variables]
    return sorted(tuple("UNDEF" if s[n] is None else str(s[n]) for n in names) for s in result)


#: Queries with no rows in the sample: its ontology excerpts define every class it uses.
EMPTY_IN_SAMPLE = {"missing-classes"}

#: Values for the parameters of library queries not listed above (queries added later), by name.
DEFAULTS = {
    "cls": "UBERON:0000955",
    "set": "UBERON_EXT",
    "doc": DOC,
    "document": "11319941",
    "setGraph": SET_GRAPH,
    "graph": UBERON,
    "source": UBERON,
    "split": "test",
    "svalues": SVALUES,
}


def params_of(name: str) -> dict[str, str]:
    """The values a test binds for a library query's documented parameters."""
    q = library()[name]
    if name in LIBRARY_PARAMS:
        assert set(LIBRARY_PARAMS[name]) <= set(q.params), name
        return LIBRARY_PARAMS[name]
    missing = [p for p in q.params if p not in DEFAULTS]
    assert not missing, f"{name}: give test values for {missing}"
    return {p: DEFAULTS[p] for p in q.params}


PARAMETERISED = sorted(name for name, q in library().items() if q.params)


def required(name: str) -> set[str]:
    """The parameters a library query's header marks "(required)": unbound, it walks the whole store."""
    return {m.group(1) for m in re.finditer(r"^#\s+\?(\w+)\s.*\(required\)", library()[name].text, re.MULTILINE)}


ADVERSARIAL = st.one_of(
    st.sampled_from(
        [
            '"',
            "'",
            "\\",
            "}",
            "{",
            "#",
            "\n",
            "\r\n",
            "> . } DROP ALL {",
            '" } ; DROP ALL ; #',
            "\\u0022 } #",
            "\\\\u0022",
            '"""',
            "'''",
            "é\u0301\U0001f600",
            "\u2028",
            "\x00",
            "?x",
            "$x",
            ") } } SELECT * WHERE { ?s ?p ?o",
            "BIND(1 AS ?set)",
            "<http://evil/>",
        ]
    ),
    st.text(min_size=0, max_size=30),
    st.text(alphabet="\"'\\{}#<>?$.;()\n\r \tuU0123456789abcdef", max_size=30),
)
IRI_TAIL = st.text(
    alphabet=st.characters(
        blacklist_characters='<>"{}|^`\\ \x7f',
        min_codepoint=0x21,
        max_codepoint=0x10FFFF,
        blacklist_categories=("Cs", "Cc", "Zs"),
    ),
    max_size=25,
)

PREFIXES = (
    "PREFIX oa: <http://www.w3.org/ns/oa#>\nPREFIX craft: <https://w3id.org/craftrdf/vocab#>\n"
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nPREFIX owl: <http://www.w3.org/2002/07/owl#>\n"
)
TINY_SET = "https://w3id.org/craftrdf/set/TINY"
TINY_ONTO = "https://w3id.org/craftrdf/ontology/TINY"
TINY_RELATIONS = "https://w3id.org/craftrdf/relations/TINY"
DOCS = "https://w3id.org/craftrdf/documents"


def tiny_quads(value: str, cls: str) -> dict[str, list[ox.Quad]]:
    """A one-annotation set whose key, split, label and text are ``value`` and whose class is ``cls``."""
    g, o, d = ox.NamedNode(TINY_SET), ox.NamedNode(TINY_ONTO), ox.NamedNode(DOCS)
    r = ox.NamedNode(TINY_RELATIONS)
    c, root = ox.NamedNode(cls), ox.NamedNode("http://example.org/root")
    a, t, doc = (
        ox.NamedNode("http://example.org/a1"),
        ox.NamedNode("http://example.org/t1"),
        ox.NamedNode("https://w3id.org/craftrdf/doc/1"),
    )
    oa, cr = "http://www.w3.org/ns/oa#", str(CRAFT.digest)[: -len("digest")]
    v = ox.Literal(value)
    return {
        TINY_SET: [
            ox.Quad(
                g,
                ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                ox.NamedNode(cr + "AnnotationSet"),
                g,
            ),
            ox.Quad(g, ox.NamedNode(cr + "key"), v, g),
            ox.Quad(a, ox.NamedNode(oa + "hasBody"), c, g),
            ox.Quad(a, ox.NamedNode(oa + "hasTarget"), t, g),
            ox.Quad(
                a,
                ox.NamedNode(cr + "spanCount"),
                ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
                g,
            ),
            ox.Quad(t, ox.NamedNode(oa + "hasSource"), doc, g),
            ox.Quad(t, ox.NamedNode(cr + "coveredText"), v, g),
        ],
        TINY_ONTO: [
            # hierarchy queries walk relations graphs (docs/rdf-model.md): this one is its own
            ox.Quad(
                o,
                ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                ox.NamedNode(cr + "RelationsGraph"),
                o,
            ),
            ox.Quad(c, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf"), root, o),
            ox.Quad(c, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), v, o),
        ],
        # the derived relations graph a build writes beside the ontology (the hierarchy queries walk it)
        TINY_RELATIONS: [
            ox.Quad(
                r,
                ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                ox.NamedNode(cr + "RelationsGraph"),
                r,
            ),
            ox.Quad(c, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf"), root, r),
        ],
        DOCS: [ox.Quad(doc, ox.NamedNode(cr + "split"), v, d)],
    }


#: Library queries (and one ad hoc query) with the parameters bound to the adversarial value;
#: each must find the one annotation of the tiny store.
def adversarial_cases(value: str, cls: str) -> list[tuple[str, dict[str, ox.NamedNode | ox.Literal], list[str] | None]]:
    from craftrdf.core.iris import CONTAINMENT_GRAPH

    lit, node = ox.Literal(value), ox.NamedNode(cls)
    return [
        (resolve_query("sets").text, {"set": lit}, None),
        (resolve_query("annotation-counts").text, {"set": lit, "split": lit}, None),
        (resolve_query("annotations").text, {"set": lit, "document": ox.Literal("1")}, None),
        (resolve_query("annotations-of-class").text, {"cls": node, "set": lit}, None),
        (resolve_query("annotations-of-class").text, {"cls": ox.NamedNode("http://example.org/root")}, None),
        (
            resolve_query("view").text,
            {"classes": ox.Literal("all"), "nesting": ox.Literal("all"), "split": lit},
            [TINY_SET, DOCS, CONTAINMENT_GRAPH],
        ),
        (resolve_query("export-sets").text, {"setGraph": ox.NamedNode(TINY_SET)}, None),
        (
            PREFIXES + "SELECT ?v ?c WHERE { GRAPH ?o { ?c rdfs:label ?l } FILTER(?l = ?v) }",
            {"v": lit, "c": node},
            None,
        ),
    ]


def digest_of(value: str, cls: str) -> str:
    """A batch digest for the tiny store's content."""
    return hashlib.sha256(f"{value}\0{cls}".encode()).hexdigest()


_DOUBLE = "http://www.w3.org/2001/XMLSchema#double"


def _blank_labels(rows: list[tuple[object, ...]]) -> dict[str, str]:
    """Each blank node of ``rows`` -> a label that its store's naming cannot change.

    A blank node is labelled by the rows that have it as their first cell (a triple-shaped answer,
    such as ``ontology-axioms``, describes it there), the blank nodes in them labelled in turn: two
    results then agree whatever names each server gave its blank nodes. A blank node met again
    while its own label is being made (a cycle) is labelled by that fact alone.
    """
    described: dict[str, list[tuple[object, ...]]] = {}
    for row in rows:
        if isinstance(row[0], ox.BlankNode):
            described.setdefault(str(row[0]), []).append(row[1:])
    labels: dict[str, str] = {}

    def label(node: ox.BlankNode, seen: frozenset[str]) -> str:
        key = str(node)
        if key in labels:
            return labels[key]
        if key in seen:
            return "_:cycle"
        rest = sorted(
            tuple(
                label(t, seen | {key}) if isinstance(t, ox.BlankNode) else "UNDEF" if t is None else str(t) for t in r
            )
            for r in described.get(key, [])
        )
        labels[key] = "_:" + hashlib.sha256(repr(rest).encode()).hexdigest()[:16]
        return labels[key]

    for row in rows:
        for t in row:
            if isinstance(t, ox.BlankNode):
                label(t, frozenset())
    return labels


def _cells(row: tuple[object, ...], blanks: dict[str, str]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """A row as (its cells as N-Triples text, doubles left out, blank nodes by ``blanks``) and (its doubles)."""
    text: list[str] = []
    doubles: list[float] = []
    for t in row:
        if isinstance(t, ox.Literal) and t.datatype.value == _DOUBLE:
            text.append("double")
            doubles.append(float(t.value))
        elif isinstance(t, ox.BlankNode):
            text.append(blanks[str(t)])
        else:
            text.append("UNDEF" if t is None else str(t))
    return tuple(text), tuple(doubles)


def assert_same_rows(expected: object, got: object, *, tolerance: float = 1e-6, what: object = "") -> int:
    """The rows of two QueryResults are the same, xsd:double cells within ``tolerance``; returns their number.

    Virtuoso 7 writes a double with 6 significant digits in its answers (openlink/virtuoso-opensource#1006),
    so doubles are compared as numbers; blank nodes by what the rows say of them (each server names
    its own); every other cell as its N-Triples text.
    """
    assert got.columns == expected.columns, what  # type: ignore[attr-defined]
    rows_a, rows_b = list(expected.rows), list(got.rows)  # type: ignore[attr-defined]
    la, lb = _blank_labels(rows_a), _blank_labels(rows_b)
    a = sorted(_cells(r, la) for r in rows_a)
    b = sorted(_cells(r, lb) for r in rows_b)
    assert [t for t, _ in b] == [t for t, _ in a], what
    for (_, da), (_, db) in zip(a, b):
        assert all(abs(x - y) <= tolerance for x, y in zip(da, db)), (what, da, db)
    return len(a)


def check_adversarial(remote: object, value: str, tail: str) -> dict[str, list[ox.Quad]]:
    """The tiny store with ``value`` written into ``remote``: each adversarial case finds its one row, as embedded.

    Returns the tiny store's quads by graph.
    """
    try:
        cls = ox.NamedNode("http://example.org/c/" + tail).value
    except ValueError:
        cls = "http://example.org/c/plain"
    embedded = ox.Store()
    data = tiny_quads(value, cls)
    for graph, quads in data.items():
        embedded.extend(quads)
        remote.load_batch(graph, [f"{q} ." for q in quads], digest=digest_of(value, cls))  # type: ignore[attr-defined]
    for sparql, subs, graphs in adversarial_cases(value, cls):
        expected = rows_of(
            embedded.query(
                sparql,
                substitutions={ox.Variable(k): v for k, v in subs.items()},
                named_graphs=[ox.NamedNode(g) for g in graphs] if graphs else None,
            )
        )
        got = rows_of(remote.query(sparql, substitutions=subs, named_graphs=graphs))  # type: ignore[attr-defined]
        assert got == expected, (value, sparql[:60])
        assert len(got) == 1
    return data


#: Library queries whose transitive path needs a bound end on Virtuoso, with that parameter: without it
#: Virtuoso refuses the query ("neither end of it is bound"), loudly (docs/remote.md). Their callers bind it.
BOUND_END = {"matcher-subtree": "root"}
#: Library queries run on a dataset of named graphs, as their callers run them (``named_graphs``): unrestricted,
#: ``ontology-axioms`` would read every graph of the server, Virtuoso's own system graphs included.
DATASET = {"ontology-axioms": [UBERON], "ontology-names": [UBERON], "ontology-definitions": [UBERON]}


def compare_library_query(
    store: object, remote: object, name: str, params: dict[str, str], *, virtuoso: bool = True
) -> int:
    """Library query ``name`` gives the same rows on ``remote`` (a RemoteStore) as on ``store``; their number.

    ``view`` and ``nested-pairs`` read the sets UBERON_EXT, CL_EXT and UBERON with the documents and
    containment links (named graphs, as a view chooses them); a query of :data:`DATASET` its graphs. On Virtuoso (``virtuoso``), a query of
    :data:`BOUND_END` without its bound end must be refused, and gives 0, and doubles are compared
    to 1e-6 (its 6 digits); elsewhere to 1e-12 (a SUM of doubles in another order: 0.466087070990931
    from `oxigraph serve` for 0.46608707099093116 embedded, measured), every other cell as text.
    """
    import pytest

    from craftrdf.analysis.views import _graphs
    from craftrdf.core.errors import StoreError
    from craftrdf.querying.library import run_query

    q = resolve_query(name)
    if virtuoso and name in BOUND_END and BOUND_END[name] not in params:
        with pytest.raises(StoreError, match="neither end of it is bound"):
            run_query(remote, q, params)  # type: ignore[arg-type]
        return 0
    graphs = (
        _graphs(store, ["UBERON_EXT", "CL_EXT", "UBERON"]) if name in ("view", "nested-pairs") else DATASET.get(name)
    )  # type: ignore[arg-type]
    expected = run_query(store, q, params, named_graphs=graphs)  # type: ignore[arg-type]
    got = run_query(remote, q, params, named_graphs=graphs)  # type: ignore[arg-type]
    return assert_same_rows(expected, got, tolerance=1e-6 if virtuoso else 1e-12, what=(name, params))


def compare_library_query_ways(
    store: object, remote: object, name: str, *, empty: set[str], virtuoso: bool = True, unbound: bool = True
) -> None:
    """``name`` gives the same rows on ``remote`` as on ``store``, bound every way the tests bind it.

    With the values of :func:`params_of`; each required parameter alone (unbound, the query
    walks the whole store); and unbound when nothing is required (a query with parameters only
    with ``unbound``: on the corpus, an unbound export is the whole corpus). The bound comparison must
    have rows unless ``name`` is in ``empty`` (a vacuous comparison fails). ``virtuoso``: as for
    :func:`compare_library_query`.
    """
    has_params = bool(library()[name].params)
    if has_params:
        params = params_of(name)
        for k, v in params.items():
            if unbound and required(name) <= {k}:  # a query that needs a parameter walks the whole store without it
                compare_library_query(store, remote, name, {k: v}, virtuoso=virtuoso)
        rows = compare_library_query(store, remote, name, params, virtuoso=virtuoso)
        assert (rows > 0) != (name in empty), "the test values select nothing: a vacuous comparison"
    if not required(name) and (unbound or not has_params):
        compare_library_query(store, remote, name, {}, virtuoso=virtuoso)
