"""The SPARQL 1.1 Protocol's request forms and content negotiation, as pure functions.

:func:`parse_sparql_request` turns the method, query string, content type and body of a
request to ``/sparql`` into a :class:`SparqlRequest` or raises
:class:`~craftrdf.publishing.server.guard.RequestRefused` with the status the protocol asks for
(400 for malformed requests, 405 for a method other than GET/POST, 415 for a body media type
that is neither form-encoded nor SPARQL). :func:`negotiate` picks a response format from an
Accept header; the formats themselves are pyoxigraph's ``QueryResultsFormat`` / ``RdfFormat``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl

import pyoxigraph as ox

from ...core.errors import QueryError
from ...core.lexer import tokenize
from .guard import RequestRefused

HTML = "text/html"

#: Media types of SELECT/ASK results (first is the default) to ``pyoxigraph.QueryResultsFormat`` attribute names.
RESULT_TYPES: Mapping[str, str] = {
    "application/sparql-results+json": "JSON",
    "application/sparql-results+xml": "XML",
    "text/csv": "CSV",
    "text/tab-separated-values": "TSV",
    "application/json": "JSON",
    "application/xml": "XML",
    "text/xml": "XML",
}

#: Media types of CONSTRUCT/DESCRIBE results and described resources to ``pyoxigraph.RdfFormat`` names.
GRAPH_TYPES: Mapping[str, str] = {
    "text/turtle": "TURTLE",
    "application/n-triples": "N_TRIPLES",
    "application/ld+json": "JSON_LD",
    "application/rdf+xml": "RDF_XML",
    "application/x-turtle": "TURTLE",
    "text/plain": "N_TRIPLES",
    "application/json": "JSON_LD",
    "application/xml": "RDF_XML",
}

_FORM = "application/x-www-form-urlencoded"
_QUERY = "application/sparql-query"
_UPDATE = "application/sparql-update"


@dataclass(frozen=True, slots=True)
class SparqlRequest:
    """A query or an update with its protocol dataset (graph IRIs as given)."""

    kind: Literal["query", "update"]
    text: str
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()


def parse_accept(header: str | None) -> list[tuple[str, float]]:
    """An Accept header as (media type, q) pairs, best first; order of appearance breaks ties.

    A ``q`` that is not a number counts as 1 (the parameter is ignored), so ``*/*;q=abc`` still accepts.

    >>> parse_accept("text/html;q=0.5, text/turtle, */*;q=0.1")
    [('text/turtle', 1.0), ('text/html', 0.5), ('*/*', 0.1)]
    >>> parse_accept("*/*;q=abc")
    [('*/*', 1.0)]
    """
    if not header or not header.strip():
        return [("*/*", 1.0)]
    out = []
    for i, part in enumerate(header.split(",")):
        pieces = [p.strip() for p in part.split(";")]
        mtype = pieces[0].lower()
        if not mtype:
            continue
        q = 1.0
        for p in pieces[1:]:
            k, _, v = p.partition("=")
            if k.strip().lower() == "q":
                try:
                    q = max(0.0, min(1.0, float(v)))
                except ValueError:
                    q = 1.0  # a malformed weight (q=abc) is ignored, as browsers and curl users expect
                if q != q:  # NaN
                    q = 1.0
        out.append((i, mtype, q))
    out.sort(key=lambda t: (-t[2], t[0]))
    return [(m, q) for _, m, q in out]


def negotiate(accept: str | None, offered: Sequence[str]) -> str | None:
    """The offered media type the client prefers most (``offered[0]`` wins ties), or None.

    Wildcards ``*/*`` and ``type/*`` match; q=0 excludes.

    >>> negotiate("text/turtle;q=0.9, application/ld+json", ["text/turtle", "application/ld+json"])
    'application/ld+json'
    >>> negotiate("image/png", ["text/turtle"]) is None
    True
    """
    best: tuple[float, int, str] | None = None
    prefs = parse_accept(accept)
    for rank, mtype in enumerate(offered):
        q = None
        specificity = -1
        for pattern, pq in prefs:
            if pattern == mtype:
                s = 2
            elif pattern.endswith("/*") and (pattern == "*/*" or mtype.startswith(pattern[:-1])):
                s = 0 if pattern == "*/*" else 1
            else:
                continue
            if s > specificity:  # the most specific pattern decides a type's q
                specificity, q = s, pq
        if q is None or q <= 0:
            continue
        if best is None or q > best[0] or (q == best[0] and rank < best[1]):
            best = (q, rank, mtype)
    return best[2] if best else None


def _media_type(content_type: str | None) -> tuple[str, str | None]:
    if not content_type:
        return "", None
    pieces = [p.strip() for p in content_type.split(";")]
    charset = None
    for p in pieces[1:]:
        k, _, v = p.partition("=")
        if k.strip().lower() == "charset":
            charset = v.strip().strip('"').lower()
    return pieces[0].lower(), charset


def _decode(body: bytes, charset: str | None) -> str:
    if charset not in (None, "utf-8", "utf8"):
        raise RequestRefused(415, f"the body must be UTF-8 (the SPARQL Protocol requires it), not {charset}")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestRefused(400, f"the body is not valid UTF-8: {exc}") from None


def _params(pairs: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return out


def _one(params: Mapping[str, list[str]], name: str) -> str | None:
    values = params.get(name, [])
    if len(values) > 1:
        raise RequestRefused(400, f"the request has {len(values)} '{name}' parameters; send exactly one")
    return values[0] if values else None


def parse_sparql_request(method: str, query_string: str, content_type: str | None, body: bytes) -> SparqlRequest:
    """The query or update a ``/sparql`` request carries; RequestRefused names what is wrong.

    GET takes ``query`` from the URL; POST takes a form-encoded ``query`` or ``update``, or a
    direct ``application/sparql-query`` / ``application/sparql-update`` body (dataset
    parameters then come from the URL). An update by GET, two ``query`` values, both a query
    and an update, and a body that is not UTF-8 are all refused.
    """
    try:
        url = _params(parse_qsl(query_string, keep_blank_values=True, strict_parsing=False, errors="strict"))
    except UnicodeDecodeError:
        raise RequestRefused(400, "the query string is not valid UTF-8") from None
    method = method.upper()
    if method == "GET":
        if "update" in url:
            raise RequestRefused(400, "updates must be sent by POST, not GET")
        params = url
        text = _one(params, "query")
        if text is None:
            raise RequestRefused(400, "missing 'query' parameter (GET /sparql?query=...)")
        kind: Literal["query", "update"] = "query"
    elif method == "POST":
        mtype, charset = _media_type(content_type)
        if mtype == _FORM:
            form = _decode(body, charset)
            try:
                params = _params(parse_qsl(form, keep_blank_values=True, errors="strict"))
            except UnicodeDecodeError:
                raise RequestRefused(400, "the form body is not valid UTF-8") from None
            for k, v in url.items():  # dataset parameters may also be in the URL
                if k not in ("query", "update"):
                    params.setdefault(k, []).extend(v)
            q, u = _one(params, "query"), _one(params, "update")
            if q is not None and u is not None:
                raise RequestRefused(400, "the request has both 'query' and 'update'; send one")
            if q is None and u is None:
                raise RequestRefused(400, "the form has neither 'query' nor 'update'")
            kind, text = ("query", q) if q is not None else ("update", u)
        elif mtype in (_QUERY, _UPDATE):
            if "query" in url or "update" in url:
                raise RequestRefused(400, f"a {mtype} body and a query/update URL parameter; send one")
            params = url
            kind = "query" if mtype == _QUERY else "update"
            text = _decode(body, charset)
        elif not mtype:
            raise RequestRefused(415, f"POST needs a Content-Type: {_FORM}, {_QUERY} or {_UPDATE}")
        else:
            raise RequestRefused(415, f"unsupported Content-Type {mtype}: use {_FORM}, {_QUERY} or {_UPDATE}")
    else:
        raise RequestRefused(405, f"method {method} is not allowed on /sparql: use GET or POST")
    assert text is not None
    stray: list[str]
    if kind == "query":
        defaults, named = params.get("default-graph-uri", []), params.get("named-graph-uri", [])
        stray = [k for k in ("using-graph-uri", "using-named-graph-uri") if k in params]
    else:
        defaults, named = params.get("using-graph-uri", []), params.get("using-named-graph-uri", [])
        stray = [k for k in ("default-graph-uri", "named-graph-uri") if k in params]
    if stray:
        raise RequestRefused(400, f"'{stray[0]}' does not apply to a {kind}")
    for g in (*defaults, *named):
        try:
            ox.NamedNode(g)
        except ValueError:
            raise RequestRefused(400, f"graph parameter {g!r} is not an absolute IRI") from None
    return SparqlRequest(kind, text, tuple(defaults), tuple(named))


def names_dataset(query: str) -> bool:
    """True when a query has a dataset clause (``FROM <g>`` or ``FROM NAMED <g>``).

    A SPARQL 1.1 query names its own dataset only with ``FROM``, a keyword that cannot occur
    anywhere else in a query (a subquery has no dataset clause), so one keyword token decides
    it; ``?from``, ``ex:from`` and ``"FROM"`` are other tokens. Text the lexer cannot read
    answers False: the engine then reports its syntax error.

    >>> names_dataset("SELECT * FROM <http://e/g> { ?s ?p ?o }"), names_dataset('SELECT ?from { ?from ?p "FROM" }')
    (True, False)
    """
    try:
        return any(t.kw("FROM") for t in tokenize(query))
    except QueryError:
        return False
