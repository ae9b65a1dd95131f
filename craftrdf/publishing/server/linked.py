"""Linked data over the store: describing a resource, the VoID description, per-set dumps.

The functions taking a ``store`` first run inside a query worker
(:meth:`craftrdf.publishing.server.workers.WorkerPool.call`), so the server's time limit covers them.

- :func:`describe` gives a resource's *concise bounded description*: its triples in every
  graph, plus those of the blank nodes and ``#fragment`` resources it points to (an
  annotation's target and selectors are fragments of its IRI, see docs/rdf-model.md).
- :func:`void_triples` builds the VoID description (one ``void:subset`` per annotation set
  and ontology graph, with triple counts from ``querying/queries/graph-sizes.rq``).
- :func:`dump_set` writes a set with :func:`craftrdf.publishing.exports.sets.export_set` into the
  server's dump cache; the set key is checked against the key grammar first, so no request
  path can name a file outside the cache.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.iris import check_set_key, ontology_graph, set_iri
from ...core.vocab import BASE, DCTERMS, RDF, RDFS, XSD, prefixes
from ...querying.library import resolve_query
from ...store.local import ReadableStore
from ..exports._base import ExportFormat
from ..exports.sets import export_set
from .guard import RequestRefused

VOID = "http://rdfs.org/ns/void#"
#: The SPARQL 1.1 Service Description vocabulary (W3C Recommendation, 21 March 2013).
SD = "http://www.w3.org/ns/sparql-service-description#"

#: Dump file extensions, their export format and media type.
DUMP_FORMATS: dict[str, tuple[ExportFormat, str]] = {
    "ttl": (ExportFormat.TURTLE, "text/turtle"),
    "trig": (ExportFormat.TRIG, "application/trig"),
    "nq": (ExportFormat.NQUADS, "application/n-quads"),
    "jsonld": (ExportFormat.JSONLD, "application/ld+json"),
}

_MAX_DESCRIPTION = 50_000


def resource_iri(kind: str, rest: str, curies: CurieMap) -> str:
    """The store IRI a dereferenced path names: ``class/CURIE`` → OBO PURL, else ``BASE + kind/rest``.

    Raises RequestRefused 404 for a malformed CURIE or a path that cannot be an IRI.

    >>> resource_iri("class", "UBERON:0000955", CurieMap())
    'http://purl.obolibrary.org/obo/UBERON_0000955'
    >>> resource_iri("set", "UBERON_EXT", CurieMap())
    'https://w3id.org/craftrdf/set/UBERON_EXT'
    """
    if kind == "class":
        try:
            value = str(curies.expand(rest))
        except ValueError:
            raise RequestRefused(404, f"{rest!r} is not a class id (expected PREFIX:ID, e.g. UBERON:0000955)") from None
    else:
        value = f"{BASE}{kind}/{rest}"
    try:
        ox.NamedNode(value)
    except ValueError:
        raise RequestRefused(404, f"no resource at {kind}/{rest}") from None
    return value


def describe(store: ReadableStore, iri: str) -> bytes:
    """The resource's concise bounded description as N-Triples (empty when the store has nothing on it)."""
    root = ox.NamedNode(iri)
    seen: set[ox.NamedNode | ox.BlankNode] = {root}
    todo: list[ox.NamedNode | ox.BlankNode] = [root]
    out: dict[ox.Triple, None] = {}
    while todo and len(out) < _MAX_DESCRIPTION:
        subject = todo.pop()
        for q in store.quads_for_pattern(subject, None, None, None):
            out[ox.Triple(q.subject, q.predicate, q.object)] = None
            o = q.object
            follow = isinstance(o, ox.BlankNode) or (isinstance(o, ox.NamedNode) and o.value.startswith(iri + "#"))
            if follow and isinstance(o, ox.BlankNode | ox.NamedNode) and o not in seen:
                seen.add(o)
                todo.append(o)
    data = ox.serialize(list(out), format=ox.RdfFormat.N_TRIPLES)
    assert data is not None
    return data


@cache
def _text(name: str) -> str:
    return str(resolve_query(name).text)


@dataclass(frozen=True, slots=True)
class GraphSize:
    """A named graph of the store and its number of triples."""

    graph: str
    triples: int


@dataclass(frozen=True, slots=True)
class DatasetSizes:
    """The store's triple counts: its default graph (empty in a store craftrdf built) and each named graph."""

    default_graph: int
    graphs: tuple[GraphSize, ...]


def graph_sizes(store: ReadableStore) -> DatasetSizes:
    """Every named graph with its triple count (``querying/queries/graph-sizes.rq``; a few seconds on the corpus), and
    the default graph's."""
    rows = store.query(_text("graph-sizes"))
    assert isinstance(rows, ox.QuerySolutions)
    graphs = tuple(GraphSize(r["graph"].value, int(r["triples"].value)) for r in rows)
    # the store's own default graph, never the union (the worker's store is queried without it)
    default = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert isinstance(default, ox.QuerySolutions)
    return DatasetSizes(sum(int(r["n"].value) for r in default), graphs)


def default_graph_note(union: bool) -> str:
    """One sentence saying what the endpoint's default graph holds (the index page and VoID say it)."""
    if union:
        return (
            "The default graph is the union of all named graphs (the server runs with --union-default-graph): "
            "a query that names no graph (no GRAPH, FROM, default-graph-uri) sees every triple, once per graph "
            "holding it; a query or request that names its dataset gets that dataset."
        )
    return (
        "craftrdf keeps every triple in a named graph, so the default graph is empty (unless an update wrote to "
        "it): name the graphs with GRAPH, FROM or the protocol's default-graph-uri, or start the server with "
        "--union-default-graph."
    )


def void_triples(
    sizes: DatasetSizes, *, base_url: str, dump_keys: Iterable[str] = (), union_default_graph: bool = False
) -> list[ox.Triple]:
    """The VoID description of the store: the dataset, its endpoint, one subset per set and ontology graph.

    ``base_url`` is where the server is reached (ends with ``/``); dump links are given for the
    keys in ``dump_keys`` (the annotation sets). Where the data is follows the SPARQL 1.1
    Service Description vocabulary: the endpoint's ``sd:Service`` with its ``sd:defaultDataset``
    (this dataset), whose ``sd:defaultGraph`` has its size and whose ``sd:namedGraph`` entries
    name every named graph; ``sd:feature sd:UnionDefaultGraph`` when ``union_default_graph``.
    """

    def n(x: str) -> ox.NamedNode:
        return ox.NamedNode(x)

    def count(value: int) -> ox.Literal:
        return ox.Literal(str(value), datatype=n(XSD.integer))

    ds = n(base_url + ".well-known/void#dataset")
    a = n(RDF.type)
    total = sizes.default_graph + sum(s.triples for s in sizes.graphs)
    out = [
        ox.Triple(ds, a, n(VOID + "Dataset")),
        ox.Triple(ds, n(DCTERMS.title), ox.Literal("CRAFT corpus ontologies and concept annotations (craftrdf)")),
        ox.Triple(ds, n(RDFS.comment), ox.Literal(default_graph_note(union_default_graph))),
        ox.Triple(ds, n(VOID + "sparqlEndpoint"), n(base_url + "sparql")),
        ox.Triple(ds, n(VOID + "uriSpace"), ox.Literal(BASE)),
        ox.Triple(ds, n(VOID + "triples"), count(total)),
    ]
    out += _service_description(ds, sizes, base_url=base_url, union_default_graph=union_default_graph)
    keys = set(dump_keys)
    set_prefix, onto_prefix = set_iri(""), ontology_graph("")
    for s in sizes.graphs:
        if not s.graph.startswith((set_prefix, onto_prefix)):
            continue
        sub = n(s.graph)
        out += [
            ox.Triple(ds, n(VOID + "subset"), sub),
            ox.Triple(sub, a, n(VOID + "Dataset")),
            ox.Triple(sub, n(VOID + "triples"), count(s.triples)),
            ox.Triple(sub, n(RDFS.label), ox.Literal(s.graph.rsplit("/", 1)[-1])),
        ]
        key = s.graph[len(set_prefix) :] if s.graph.startswith(set_prefix) else None
        if key in keys:
            for ext in DUMP_FORMATS:
                out.append(ox.Triple(sub, n(VOID + "dataDump"), n(f"{base_url}dump/{key}.{ext}")))
    return out


def _service_description(
    ds: ox.NamedNode, sizes: DatasetSizes, *, base_url: str, union_default_graph: bool
) -> list[ox.Triple]:
    """The endpoint as an ``sd:Service`` whose default dataset is ``ds``: its default graph and named graphs."""
    a = ox.NamedNode(RDF.type)
    service = ox.NamedNode(base_url + "sparql")
    default = ox.NamedNode(base_url + ".well-known/void#default-graph")
    triples = sizes.default_graph + sum(s.triples for s in sizes.graphs) if union_default_graph else sizes.default_graph
    out = [
        ox.Triple(service, a, ox.NamedNode(SD + "Service")),
        ox.Triple(service, ox.NamedNode(SD + "endpoint"), service),
        ox.Triple(service, ox.NamedNode(SD + "supportedLanguage"), ox.NamedNode(SD + "SPARQL11Query")),
        ox.Triple(service, ox.NamedNode(SD + "defaultDataset"), ds),
        ox.Triple(ds, a, ox.NamedNode(SD + "Dataset")),
        ox.Triple(ds, ox.NamedNode(SD + "defaultGraph"), default),
        ox.Triple(default, a, ox.NamedNode(SD + "Graph")),
        ox.Triple(
            default, ox.NamedNode(VOID + "triples"), ox.Literal(str(triples), datatype=ox.NamedNode(XSD.integer))
        ),
    ]
    if union_default_graph:
        out.append(ox.Triple(service, ox.NamedNode(SD + "feature"), ox.NamedNode(SD + "UnionDefaultGraph")))
    for s in sizes.graphs:
        entry = ox.BlankNode()
        out += [
            ox.Triple(ds, ox.NamedNode(SD + "namedGraph"), entry),
            ox.Triple(entry, a, ox.NamedNode(SD + "NamedGraph")),
            ox.Triple(entry, ox.NamedNode(SD + "name"), ox.NamedNode(s.graph)),
        ]
    return out


def dump_set(store: ReadableStore, key: str, ext: str, cache_dir: str) -> str:
    """Export set ``key`` as ``ext`` into ``cache_dir`` once; the file's path.

    RequestRefused 404 for a malformed key, an unknown extension or a set the store lacks.
    """
    try:
        check_set_key(key)
    except ConfigError:
        raise RequestRefused(404, f"no annotation set {key!r}") from None
    if ext not in DUMP_FORMATS:
        raise RequestRefused(404, f"no dump format .{ext}: use one of {', '.join('.' + e for e in DUMP_FORMATS)}")
    target = Path(cache_dir) / f"{key}.{ext}"
    if target.resolve().parent != Path(cache_dir).resolve():  # belt and braces: the key grammar forbids it
        raise RequestRefused(404, f"no annotation set {key!r}")
    if not target.is_file():
        # written aside and renamed: a killed export never leaves a partial file to be served as the dump
        part = target.with_name(f".{target.name}.{os.getpid()}.part")
        try:
            export_set(store, key, part, format=DUMP_FORMATS[ext][0])
            os.replace(part, target)
        except ConfigError as exc:
            raise RequestRefused(404, str(exc)) from None
        finally:
            part.unlink(missing_ok=True)
    return os.fspath(target)


def term_html(t: object, *, local_url: Callable[[str], str | None], curies: CurieMap) -> str:
    """One RDF term as HTML: an IRI as a link (to its page here when ``local_url`` gives one), a literal as text.

    Everything is escaped; a literal longer than 2,000 characters is cut with "…".
    """
    if isinstance(t, ox.NamedNode):
        label = html.escape(curies.compress(t.value))
        href = local_url(t.value) or t.value
        return f'<a href="{html.escape(href, quote=True)}">{label}</a>'
    if isinstance(t, ox.Literal):
        v = t.value if len(t.value) <= 2000 else t.value[:2000] + "…"
        return f"<span class=lit>{html.escape(v)}</span>"
    return html.escape(str(t))


def render_html(
    iri: str, triples: Sequence[ox.Triple], *, local_url: Callable[[str], str | None], curies: CurieMap
) -> str:
    """A plain HTML page listing a resource's triples; IRIs with a local page become links.

    ``local_url(iri)`` gives the server URL of a store IRI or None. Everything from the data
    is HTML-escaped.
    """

    def term(t: object) -> str:
        return term_html(t, local_url=local_url, curies=curies)

    rows = "\n".join(
        f"<tr><td>{term(t.subject)}</td><td>{term(t.predicate)}</td><td>{term(t.object)}</td></tr>"
        for t in sorted(
            triples, key=lambda t: (t.subject != ox.NamedNode(iri), str(t.subject), str(t.predicate), str(t.object))
        )
    )
    title = html.escape(curies.compress(iri))
    return (
        f"<!DOCTYPE html><html><head><meta charset=utf-8><title>{title}</title>"
        "<style>body{font-family:sans-serif;margin:2em}td{padding:2px 8px;vertical-align:top}"
        "tr:nth-child(even){background:#f4f4f4}</style></head><body>"
        f"<h1>{title}</h1><p>{html.escape(iri)} — {len(triples)} triples; also as "
        '<a href="?format=ttl">Turtle</a>, <a href="?format=jsonld">JSON-LD</a>, '
        '<a href="?format=nt">N-Triples</a></p>'
        f"<table>{rows}</table></body></html>"
    )


def rdf_prefixes() -> dict[str, str]:
    """Prefixes for serialized descriptions: the library's plus the OBO PURL namespace."""
    return {**prefixes(), "void": VOID, "sd": SD}
