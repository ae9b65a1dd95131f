"""A store someone else runs: the remote twin of :class:`craftrdf.store.AnnotationStore`.

:class:`RemoteStore` answers the same read interface (``query``, ``batches``,
``has_batch``, ``__len__`` and the few ``raw`` calls library code makes) over the
SPARQL 1.1 Protocol, through SPARQLWrapper; results come back as SPARQL JSON and are
parsed by pyoxigraph, so rows are the same ``QuerySolutions`` of real terms the
embedded store gives and every library function works unchanged. With a Graph Store
Protocol URL it also writes batches (``load_batch``, ``remove_batch``): each batch is
one HTTP ``PUT`` of N-Triples to ``?graph=<batch graph>``, which replaces the graph
whole, with the batch manifest (``<g> craft:digest "..."``) as its last triple.

The protocol has no way to bind values, so :func:`bind_values` rewrites the query:
each value is serialized by pyoxigraph (N-Triples syntax, escaped) and enters the
query as one token of a ``VALUES`` block at the start of the query's outermost
``WHERE`` group (and of every subquery that projects the variable, as pyoxigraph
passes bound values into those); a ``BIND(expr AS ?v)`` of a bound variable becomes
the compatibility test pyoxigraph applies to it. The query text is cut at positions
found by a small SPARQL tokenizer that skips strings, IRIs and comments; user values
are never tokenized or pasted anywhere else.
"""

from __future__ import annotations

import logging
import re
import tempfile
import urllib.error
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import IO

import pyoxigraph as ox

from .errors import QueryError, StoreError
from .store import BatchInfo
from .vocab import CRAFT

__all__ = ["RemoteStore", "bind_values", "default_graph_store"]

logger = logging.getLogger(__name__)

Term = ox.NamedNode | ox.Literal
Result = ox.QuerySolutions | ox.QueryBoolean | Iterator[ox.Triple]

_BATCHES = f"SELECT ?g ?digest WHERE {{ GRAPH ?g {{ ?g <{CRAFT.digest}> ?digest }} }}"
_PATTERN = "SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
_DEFAULT_PATTERN = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
_GRAPH_EXISTS = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 1"
_PREFIX_NAME = re.compile(r"^(?:[A-Za-z][\w\-.]*)?$")
_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"


# -- binding values into query text ----------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n\r]*)
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''
              |"(?:[^"\\\n\r]|\\.)*"|'(?:[^'\\\n\r]|\\.)*')
  | (?P<var>[?$][\w\u00b7\u0300-\u036f\u203f\u2040]+)
  | (?P<word>(?:[^\W\d]|_)?[\w\-.]*:(?:[\w\-.:%]|\\[_~.\-!$&'()*+,;=/?\#@%])*|[^\W\d][\w\-]*|\d[\w.]*)
  | (?P<punct>\^\^|\|\||&&|!=|<=|>=|[{}()\[\].,;*+\-/!=<>?|^@a-zA-Z])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str
    text: str
    start: int
    end: int

    def kw(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words


def _tokens(sparql: str) -> list[_Tok]:
    """The tokens of a query, without whitespace and comments."""
    out = []
    for m in _TOKEN.finditer(sparql):
        kind = m.lastgroup or "other"
        if kind not in ("ws", "comment"):
            out.append(_Tok(kind, m.group(), m.start(), m.end()))
    return out


@dataclass(slots=True)
class _Level:
    """A query or subquery: its projection and the token range of its WHERE group."""

    plain: set[str]
    assigned: set[str]
    star: bool
    open: int  # index of the group's "{"
    close: int  # index of its matching "}"
    parent: _Level | None
    select: int = -1  # index of a subquery's SELECT


def _match(toks: list[_Tok], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == "{":
            depth += 1
        elif toks[j].text == "}":
            depth -= 1
            if depth == 0:
                return j
    raise QueryError("unbalanced braces in the query")


def _select_level(toks: list[_Tok], i: int, parent: _Level | None) -> _Level:
    """The level of the SELECT at token ``i``."""
    plain: set[str] = set()
    assigned: set[str] = set()
    star = False
    depth = 0
    j = i + 1
    while j < len(toks):
        t = toks[j]
        if depth == 0 and (t.text == "{" or t.kw("WHERE", "FROM")):
            break
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif t.kind == "var":
            if depth == 0:
                plain.add(t.text[1:])
            elif toks[j - 1].kw("AS"):
                assigned.add(t.text[1:])
        elif t.text == "*" and depth == 0:
            star = True
        j += 1
    while j < len(toks) and toks[j].text != "{":
        j += 1
    if j == len(toks):
        raise QueryError("a SELECT without a WHERE group")
    return _Level(plain, assigned, star, j, _match(toks, j), parent, i)


def _outer_group(toks: list[_Tok]) -> int:
    """Index of the outermost query's WHERE ``{`` (CONSTRUCT templates are skipped)."""
    for i, t in enumerate(toks):
        if t.kw("SELECT", "ASK", "DESCRIBE", "CONSTRUCT"):
            j = i + 1
            if t.kw("CONSTRUCT") and j < len(toks) and toks[j].text == "{":
                j = _match(toks, j) + 1
            while j < len(toks) and toks[j].text != "{":
                j += 1
            if j < len(toks):
                return j
            break
    raise QueryError("cannot find the query's WHERE group to bind values into")


def query_form(sparql: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: the form of a query, read past prefixes and comments.

    >>> query_form("# a SELECT that LOADs nothing\\nPREFIX x: <http://e/#>\\nask { }")
    'ASK'
    """
    for t in _tokens(sparql):
        if t.kw("SELECT", "ASK", "DESCRIBE", "CONSTRUCT"):
            return t.text.upper()
        if t.kind == "word" and t.text.upper() not in ("PREFIX", "BASE") and not t.text.endswith(":"):
            break
    raise QueryError("not a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE); updates go elsewhere")


def _term_text(name: str, value: object) -> str:
    if isinstance(value, (ox.NamedNode, ox.Literal)):
        return str(value)  # pyoxigraph's N-Triples serialization, escaped
    raise QueryError(f"?{name}: only IRIs and literals can be bound in a remote query, not {value!r}")


def bind_values(sparql: str, substitutions: Mapping[str, Term]) -> str:
    """The query text with ``substitutions`` bound as pyoxigraph's ``substitutions`` would bind them.

    pyoxigraph binds a value throughout the query, except inside subqueries that do not
    project the variable. The rewrite does the same with standard SPARQL: a
    ``VALUES (?v) { (value) }`` block starts the query's ``WHERE`` group (and that of each
    subquery projecting ``?v``) and every group inside that uses ``?v``, so the variable is
    bound wherever it is used; an IRI also replaces the variable inside those groups, so the
    engine plans with a constant (a graph IRI after ``GRAPH``: one graph read instead of a
    join over all of them); and a
    ``BIND(expr AS ?v)`` becomes ``FILTER(COALESCE(sameTerm(expr, value), true))``, which keeps
    what pyoxigraph keeps (a row whose expression equals the value, or fails). Values are
    serialized by pyoxigraph (N-Triples syntax, escaped) and inserted as single tokens at
    positions found by :func:`_tokens`; nothing else of them reaches the text.

    Like pyoxigraph, a SELECT query must project every bound variable (RuntimeError
    otherwise). QueryError for a value that is neither an IRI nor a literal, or a variable
    the query computes in a SELECT list.

    >>> print(bind_values('SELECT ?x WHERE { ?x ?p ?o }', {"x": ox.NamedNode("http://e/a")}))
    SELECT ?x WHERE { VALUES (?x) { (<http://e/a>) } <http://e/a> ?p ?o }
    >>> print(bind_values('SELECT ?x WHERE { ?s ?p ?x }', {"x": ox.Literal('a "b"')}))
    SELECT ?x WHERE { VALUES (?x) { ("a \\"b\\"") } ?s ?p ?x }
    """
    if not substitutions:
        return sparql
    names = list(substitutions)
    values = {n: _term_text(n, substitutions[n]) for n in names}
    toks = _tokens(sparql)
    outer_open = _outer_group(toks)
    form = next(t for t in toks if t.kw("SELECT", "ASK", "DESCRIBE", "CONSTRUCT"))
    if form.kw("SELECT"):
        outer = _select_level(toks, toks.index(form), None)
    else:
        outer = _Level(set(names), set(), False, outer_open, _match(toks, outer_open), None)
    for n in names:
        if form.kw("SELECT") and not (outer.star or n in outer.plain or n in outer.assigned):
            # the same refusal, and message, as pyoxigraph's
            raise RuntimeError(f"The SPARQL query does not contains variable ?{n} in its SELECT projection")
    levels = [outer]
    for i in range(outer.open + 1, outer.close):
        if toks[i].kw("SELECT"):
            if toks[i - 1].text != "{":
                raise QueryError("a subquery must be alone in its group")
            parent = max((lv for lv in levels if lv.open < i < lv.close), key=lambda lv: lv.open)
            levels.append(_select_level(toks, i, parent))

    def bound(level: _Level) -> list[str]:
        """The bound variables visible inside ``level``'s group."""
        if level.parent is None:
            return names
        return [n for n in bound(level.parent) if n in level.plain or (level.star and _mentions(toks, level, n))]

    inserts: dict[int, str] = {}  # token index -> text inserted after it
    replaced: dict[int, tuple[int, str]] = {}  # first token index -> (last token index, new text)
    for level in levels:
        here = bound(level)
        clash = [n for n in here if n in level.assigned]
        if clash:
            raise QueryError(f"?{clash[0]} is computed in a SELECT list of the query and cannot be bound "
                             "on a remote store")
        if not here:
            continue
        iris = {n for n in here if isinstance(substitutions[n], ox.NamedNode)}
        # a subquery, from its SELECT to the end of its modifiers, is its own level
        skip = {lv.select: _match(toks, lv.select - 1) for lv in levels if lv.parent is level}
        mentions: dict[int, set[str]] = {level.open: set(here)}  # group -> variables to bind in it
        stack: list[int] = []
        i = level.open
        while i <= level.close:
            t = toks[i]
            if i in skip:
                i = skip[i]
                continue
            if t.kw("VALUES"):  # its variable list stays, its data block is not a group
                j = i
                while toks[j].text != "{":
                    j += 1
                i = _match(toks, j) + 1
                continue
            bind = _bind_at(toks, i)
            if bind is not None and bind[2] in here:
                expr_from, expr_to, var, last = bind
                expr = sparql[toks[expr_from].start:toks[expr_to].end]
                replaced[i] = (last, f"FILTER(COALESCE(sameTerm(({expr}), {values[var]}), true))")
                mentions.setdefault(stack[-1], set()).update(
                    u.text[1:] for u in toks[expr_from:expr_to + 1] if u.kind == "var" and u.text[1:] in here)
                i = last + 1
                continue
            if t.text == "{":
                stack.append(i)
                if toks[i + 1].kw("SELECT"):
                    mentions[i] = set()  # a subquery's wrapper: nothing may precede the SELECT
            elif t.text == "}":
                stack.pop()
            elif t.kind == "var" and t.text[1:] in here:
                n = t.text[1:]
                if n in iris and not toks[i - 1].kw("AS") and not (toks[i - 1].text == "(" and toks[i - 2].kw("BOUND")):
                    replaced[i] = (i, values[n])
                elif not toks[stack[-1] + 1].kw("SELECT"):
                    mentions.setdefault(stack[-1], set()).add(n)
            i += 1
        for g, ns in mentions.items():
            if ns:
                chosen = [n for n in here if n in ns]
                inserts[g] = (" VALUES (" + " ".join("?" + n for n in chosen) + ") { ("
                              + " ".join(values[n] for n in chosen) + ") }")
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        if i in replaced:
            last, text = replaced[i]
            out.append(sparql[pos:t.start])
            out.append(text)
            pos = toks[last].end
            i = last + 1
            continue
        if i in inserts:
            out.append(sparql[pos:t.end])
            out.append(inserts[i])
            pos = t.end
        i += 1
    out.append(sparql[pos:])
    return "".join(out)


def _mentions(toks: list[_Tok], level: _Level, name: str) -> bool:
    return any(t.kind == "var" and t.text[1:] == name for t in toks[level.open:level.close])


def _bind_at(toks: list[_Tok], i: int) -> tuple[int, int, str, int] | None:
    """For ``BIND ( expr AS ?v )`` starting at token ``i``: expr's token range, v, the ``)`` index."""
    if not (toks[i].kw("BIND") and i + 1 < len(toks) and toks[i + 1].text == "("):
        return None
    depth = 0
    for j in range(i + 1, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                if j >= i + 5 and toks[j - 2].kw("AS") and toks[j - 1].kind == "var":
                    return i + 2, j - 3, toks[j - 1].text[1:], j
                return None
    return None


# -- the store ---------------------------------------------------------------------------------


def default_graph_store(endpoint: str) -> str | None:
    """The Graph Store Protocol URL beside a query endpoint, when the server's layout is known.

    Oxigraph serves queries at ``/query`` and the graph store at ``/store``; for other
    servers pass the URL explicitly.

    >>> default_graph_store("http://127.0.0.1:7878/query")
    'http://127.0.0.1:7878/store'
    >>> default_graph_store("http://example.org/sparql") is None
    True
    """
    if endpoint.rstrip("/").endswith("/query"):
        return endpoint.rstrip("/")[: -len("query")] + "store"
    return None


class RemoteStore:
    """A store behind a SPARQL 1.1 endpoint, read (and, with a Graph Store URL, written) over HTTP.

    ``endpoint`` is the query URL (Oxigraph: ``http://host:port/query``); ``graph_store``
    the SPARQL 1.1 Graph Store Protocol URL batches are written to (Oxigraph:
    ``http://host:port/store``; None: read-only); ``timeout`` bounds every request, in
    seconds. Errors: StoreError naming the URL (and HTTP status) when the endpoint is
    unreachable, refuses or fails; QueryError when it rejects a query (HTTP 400).
    Use as a context manager like :class:`~craftrdf.store.AnnotationStore`.
    """

    def __init__(self, endpoint: str, *, graph_store: str | None = None, timeout: float = 60.0,
                 user_agent: str = "craftrdf") -> None:
        if not endpoint.startswith(("http://", "https://")):
            raise StoreError(f"endpoint {endpoint!r} is not an http(s) URL")
        self.endpoint = endpoint
        self.graph_store = graph_store
        self.timeout = timeout
        self.user_agent = user_agent
        self.path = None
        self.writable = graph_store is not None

    def __repr__(self) -> str:
        return f"RemoteStore({self.endpoint!r}, graph_store={self.graph_store!r})"

    def close(self) -> None:
        """Nothing to release (every request is its own connection); kept for the store interface."""

    def __enter__(self) -> RemoteStore:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- queries -----------------------------------------------------------------------------

    def query(self, sparql: str, *, substitutions: Mapping[str, Term] | None = None,
              prefixes: Mapping[str, str] | None = None,
              named_graphs: Sequence[str] | None = None) -> Result:
        """Run SPARQL on the endpoint with values bound by name (see :func:`bind_values`).

        Returns what ``AnnotationStore.query`` returns: QuerySolutions for SELECT,
        QueryBoolean for ASK, and for CONSTRUCT/DESCRIBE an iterator of Triples.
        ``named_graphs`` become the protocol's ``named-graph-uri`` parameters.
        """
        from SPARQLWrapper import JSON, N3, POST, URLENCODED, SPARQLWrapper

        if prefixes:
            bad = [p for p in prefixes if not _PREFIX_NAME.match(p)]
            if bad:
                raise QueryError(f"invalid prefix name {bad[0]!r}")
            sparql = "".join(f"PREFIX {p}: {ox.NamedNode(iri)}\n" for p, iri in prefixes.items()) + sparql
        text = bind_values(sparql, substitutions or {})
        wrapper = SPARQLWrapper(self.endpoint, agent=self.user_agent)
        wrapper.setMethod(POST)
        wrapper.setRequestMethod(URLENCODED)  # the query and the dataset go in a form body
        wrapper.setTimeout(int(max(1, self.timeout)))
        wrapper.setQuery(text)
        # SPARQLWrapper guesses the form with regular expressions that comments mislead (a
        # header comment can make a SELECT look like LOAD, sent as an update): say it ourselves
        form = query_form(text)
        wrapper.queryType = form
        graph_query = form in ("CONSTRUCT", "DESCRIBE")
        wrapper.setReturnFormat(N3 if graph_query else JSON)
        if graph_query:
            wrapper.addCustomHttpHeader("Accept", "application/n-triples")
        if named_graphs is not None:
            for g in named_graphs:
                wrapper.addParameter("named-graph-uri", g)
        logger.debug("remote query to %s: %s", self.endpoint, text)
        body = self._send(wrapper)
        try:
            if graph_query:
                return (q.triple for q in ox.parse(body, ox.RdfFormat.N_TRIPLES))
            return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        except SyntaxError as exc:
            raise StoreError(f"endpoint {self.endpoint} sent results that cannot be read: {exc}") from None

    def _send(self, wrapper: object) -> bytes:
        from SPARQLWrapper import SPARQLExceptions

        try:
            result = wrapper.query()  # type: ignore[attr-defined]
            return bytes(result.response.read())
        except SPARQLExceptions.QueryBadFormed as exc:
            raise QueryError(f"endpoint {self.endpoint} refused the query (HTTP 400): "
                             f"{_wrapper_message(exc)}") from None
        except SPARQLExceptions.SPARQLWrapperException as exc:
            status = {"EndPointNotFound": 404, "Unauthorized": 401, "URITooLong": 414,
                      "EndPointInternalError": 500}.get(type(exc).__name__, "error")
            raise StoreError(f"endpoint {self.endpoint} failed (HTTP {status}): "
                             f"{_wrapper_message(exc)}") from None
        except urllib.error.HTTPError as exc:
            raise StoreError(f"endpoint {self.endpoint} failed (HTTP {exc.code}): "
                             f"{_server_message(exc.read())}") from None
        except urllib.error.URLError as exc:
            raise StoreError(f"cannot reach endpoint {self.endpoint}: {exc.reason}") from None
        except TimeoutError:
            raise StoreError(f"endpoint {self.endpoint} did not answer within {self.timeout:g} s") from None
        except OSError as exc:
            raise StoreError(f"cannot reach endpoint {self.endpoint}: {exc}") from None

    def _select(self, sparql: str, **bindings: Term) -> ox.QuerySolutions:
        result = self.query(sparql, substitutions=bindings)
        assert isinstance(result, ox.QuerySolutions)
        return result

    def quads_for_pattern(self, subject: ox.NamedNode | ox.BlankNode | None, predicate: ox.NamedNode | None,
                          object: ox.NamedNode | ox.BlankNode | ox.Literal | None,
                          graph_name: ox.NamedNode | ox.DefaultGraph | None = None) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None is a wildcard); a whole named graph is fetched
        through the Graph Store Protocol when one is configured (no result-size limit applies)."""
        if any(isinstance(t, ox.BlankNode) for t in (subject, object)):
            raise QueryError("blank nodes cannot be sent to a remote store")
        bindings: dict[str, Term] = {k: v for k, v in (("s", subject), ("p", predicate), ("o", object))
                                     if v is not None}  # type: ignore[misc]
        if isinstance(graph_name, ox.DefaultGraph):
            return (ox.Quad(r["s"], r["p"], r["o"], ox.DefaultGraph())  # type: ignore[arg-type]
                    for r in self._select(_DEFAULT_PATTERN, **bindings))
        if graph_name is not None and not bindings and self.graph_store is not None:
            return self._graph_quads(graph_name)
        if graph_name is not None:
            bindings["g"] = graph_name
        return (ox.Quad(r["s"], r["p"], r["o"], r["g"])  # type: ignore[arg-type]
                for r in self._select(_PATTERN, **bindings))

    def _graph_quads(self, graph: ox.NamedNode) -> Iterator[ox.Quad]:
        import httpx

        assert self.graph_store is not None
        try:
            r = httpx.get(self.graph_store, params={"graph": graph.value},
                          headers={"Accept": "application/n-triples", "User-Agent": self.user_agent},
                          timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach graph store {self.graph_store}: {exc}") from None
        if r.status_code == 404:
            return iter(())
        if r.status_code != 200:
            raise StoreError(f"graph store {self.graph_store} failed reading {graph.value} "
                             f"(HTTP {r.status_code}): {_server_message(r.content)}")
        return (ox.Quad(q.subject, q.predicate, q.object, graph)
                for q in ox.parse(r.content, ox.RdfFormat.N_TRIPLES))

    def contains_named_graph(self, graph: str) -> bool:
        """True when the named graph holds at least one triple."""
        return any(True for _ in self._select(_GRAPH_EXISTS, g=ox.NamedNode(graph)))

    def __len__(self) -> int:
        rows = list(self._select(_COUNT))
        return int(rows[0]["n"].value) if rows and rows[0]["n"] is not None else 0

    # -- batches -------------------------------------------------------------------------------

    def batches(self) -> dict[str, BatchInfo]:
        """Every batch on the endpoint, by graph IRI (read from the manifests, as the embedded store does)."""
        out: dict[str, BatchInfo] = {}
        for row in self._select(_BATCHES):
            g = row["g"].value
            out[g] = BatchInfo(g, row["digest"].value)
        return out

    def has_batch(self, graph: str, digest: str) -> bool:
        """True when ``graph`` is loaded from input with this digest."""
        return any(r["digest"].value == digest for r in self._select(_BATCHES, g=ox.NamedNode(graph)))

    def load_batch(self, graph: str, lines: Iterable[str], *, digest: str) -> int:
        """Write one batch into ``graph`` with a Graph Store Protocol PUT, replacing an older version.

        ``lines`` are N-Quads lines whose graph is ``graph``. They are read and checked
        completely (spooled to a temporary file) before anything is sent, so bad input
        writes nothing; the manifest triple comes last, so a load the server leaves
        half-done is not taken for a loaded batch and is replaced on the next build.
        Returns the lines written, 0 without writing when the same digest is there.
        """
        if self.graph_store is None:
            raise StoreError(f"{self.endpoint} is open read-only: give a Graph Store Protocol URL "
                             "(--graph-store) to write to it")
        if self.has_batch(graph, digest):
            logger.info("batch %s already loaded, skipped", graph)
            return 0
        node = ox.NamedNode(graph)
        manifest = ox.Triple(node, ox.NamedNode(CRAFT.digest), ox.Literal(digest))
        with tempfile.TemporaryFile() as nq, tempfile.TemporaryFile() as nt:
            count = _spool(lines, nq)
            nq.seek(0)
            try:
                triples = _triples_of(ox.parse(nq, ox.RdfFormat.N_QUADS), node)
                ox.serialize(_then(triples, manifest), nt, ox.RdfFormat.N_TRIPLES)
            except SyntaxError as exc:
                raise StoreError(f"internal error serializing batch {graph}: {exc}") from exc
            size = nt.tell()
            nt.seek(0)
            self._put(graph, nt, size)
        return count + 1

    def _put(self, graph: str, body: IO[bytes], size: int) -> None:
        import httpx

        assert self.graph_store is not None
        logger.info("PUT %s bytes into %s at %s", size, graph, self.graph_store)
        try:
            r = httpx.put(self.graph_store, params={"graph": graph}, content=body.read(),
                          headers={"Content-Type": "application/n-triples", "User-Agent": self.user_agent},
                          timeout=httpx.Timeout(self.timeout, write=max(self.timeout, 600.0),
                                                read=max(self.timeout, 600.0)))
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot write batch {graph} to graph store {self.graph_store}: {exc}") from None
        if r.status_code not in (200, 201, 204):
            raise StoreError(f"graph store {self.graph_store} refused batch {graph} (HTTP {r.status_code}): "
                             f"{_server_message(r.content)}")

    def remove_batch(self, graph: str) -> bool:
        """Remove a batch's graph with a Graph Store Protocol DELETE; True if it was there."""
        import httpx

        if self.graph_store is None:
            raise StoreError(f"{self.endpoint} is open read-only: give a Graph Store Protocol URL to write to it")
        try:
            r = httpx.delete(self.graph_store, params={"graph": graph}, timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach graph store {self.graph_store}: {exc}") from None
        if r.status_code == 404:
            return False
        if r.status_code not in (200, 204):
            raise StoreError(f"graph store {self.graph_store} refused to remove {graph} (HTTP {r.status_code})")
        return True


def _spool(lines: Iterable[str], out: IO[bytes]) -> int:
    n = 0
    buf: list[str] = []
    for line in lines:
        buf.append(line)
        n += 1
        if len(buf) >= 4096:
            out.write(("\n".join(buf) + "\n").encode("utf-8"))
            buf = []
    if buf:
        out.write(("\n".join(buf) + "\n").encode("utf-8"))
    return n


def _triples_of(quads: Iterable[ox.Quad], graph: ox.NamedNode) -> Iterator[ox.Triple]:
    for q in quads:
        if q.graph_name != graph:
            raise StoreError(f"internal error: a quad of batch {graph.value} names graph {q.graph_name}")
        yield q.triple


def _then(triples: Iterable[ox.Triple], last: ox.Triple) -> Iterator[ox.Triple]:
    yield from triples
    yield last


def _wrapper_message(exc: Exception) -> str:
    """The server's message inside a SPARQLWrapper exception (it keeps only its own rendering)."""
    _, _, body = str(exc).partition("Response:")
    body = body.strip()
    if body.startswith(("b'", 'b"')) and body[-1:] == body[1]:
        body = body[2:-1].replace("\\n", " ")
    return _server_message(body)


def _server_message(body: object) -> str:
    """The first lines of an error body, for a one-line message."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    text = " ".join(str(body or "").split())
    return text[:300] or "(no message)"
