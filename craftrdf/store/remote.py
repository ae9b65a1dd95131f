"""A store someone else runs: the remote twin of :class:`craftrdf.store.local.AnnotationStore`.

:class:`RemoteStore` satisfies :class:`~craftrdf.store.local.ReadableStore` (and, with a Graph Store
URL, :class:`~craftrdf.store.local.WritableStore`) over the SPARQL 1.1 Protocol, through SPARQLWrapper;
results come back as SPARQL JSON and are
parsed by pyoxigraph, so rows are the same ``QuerySolutions`` of real terms the
embedded store gives and every library function works unchanged. With a Graph Store
Protocol URL it also writes batches (``load_batch``, ``remove_batch``): a new batch is
one HTTP ``PUT`` of N-Triples to ``?graph=<batch graph>``, with the batch manifest
(``<g> craft:digest "..."``) as its last triple. A batch that is already there is replaced
through the SPARQL update endpoint in one request, one update carrying only the difference
(:mod:`craftrdf.store.replace`), which the server applies as one transaction: readers see the old
version or the new one, never neither.

Values are bound by :func:`craftrdf.core.bindings.bind_values`, which rewrites the query text
with the SPARQL lexer, since the protocol has no way to send bindings.
"""

from __future__ import annotations

import itertools
import logging
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import IO, Literal

import httpx
import pyoxigraph as ox

from ..core.bindings import bind_values, query_form
from ..core.errors import QueryError, StoreError
from ..core.vocab import CRAFT
from .local import CustomFunctions, DerivedCache, QueryAnswer, Substitutions, solutions
from .remote_dialect import GraphLister, is_virtuoso, rewrite, unstorable_triple
from .remote_protocol import send_query, send_write, server_message
from .remote_results import standard_json, truncated_at
from .replace import nquads_file, replacement_update
from .sparql_reads import SparqlReads

logger = logging.getLogger(__name__)


_PREFIX_NAME = re.compile(r"^(?:[A-Za-z][\w\-.]*)?$")
#: How a server departs from SPARQL 1.1: ``standard``, or ``virtuoso`` (:mod:`craftrdf.store.remote_dialect`).
Dialect = Literal["standard", "virtuoso"]


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


def default_update_endpoint(endpoint: str, graph_store: str | None = None) -> str | None:
    """The SPARQL update URL beside a query endpoint or graph store, when the server's layout is known.

    Oxigraph serves updates at ``/update``, beside ``/query`` and ``/store``.

    >>> default_update_endpoint("http://127.0.0.1:7878/query")
    'http://127.0.0.1:7878/update'
    >>> default_update_endpoint("http://example.org/sparql", "http://example.org/rdf-graph-store") is None
    True
    """
    for url, tail in ((endpoint, "query"), (graph_store or "", "store")):
        if url.rstrip("/").endswith("/" + tail):
            return url.rstrip("/")[: -len(tail)] + "update"
    return None


class RemoteStore(SparqlReads):
    """A store behind a SPARQL 1.1 endpoint, read (and, with a Graph Store URL, written) over HTTP.

    ``endpoint`` is the query URL (Oxigraph: ``http://host:port/query``); ``graph_store``
    the SPARQL 1.1 Graph Store Protocol URL batches are written to (Oxigraph:
    ``http://host:port/store``; None: read-only); ``update_endpoint`` the SPARQL update URL
    replacements go through (default: :func:`default_update_endpoint`; without one, a
    replacement is a PUT, as atomic as the server makes it); ``timeout`` bounds every
    request, in seconds; ``dialect`` how the server departs from SPARQL 1.1 (None: read from its
    ``Server`` header; ``virtuoso`` rewrites what Virtuoso 7 gets wrong, :mod:`craftrdf.store.remote_dialect`,
    and reads only the named graphs, as its default graph is their union). Errors: StoreError
    naming the URL (and HTTP status) when the endpoint is
    unreachable, refuses or fails; QueryError when it rejects a query (HTTP 400).
    Use as a context manager like :class:`~craftrdf.store.local.AnnotationStore`.
    """

    def __init__(
        self,
        endpoint: str,
        *,
        graph_store: str | None = None,
        update_endpoint: str | None = None,
        timeout: float = 60.0,
        user_agent: str = "craftrdf",
        dialect: Dialect | None = None,
    ) -> None:
        if not endpoint.startswith(("http://", "https://")):
            raise StoreError(f"endpoint {endpoint!r} is not an http(s) URL")
        self._dialect = dialect
        self._graphs = GraphLister(self._select_as_is)
        self.endpoint = endpoint
        self.graph_store = graph_store
        self.update_endpoint = update_endpoint or default_update_endpoint(endpoint, graph_store)
        self.timeout = timeout
        self.user_agent = user_agent
        self.path = None
        self.writable = graph_store is not None
        self.derived = DerivedCache()

    def __repr__(self) -> str:
        return f"RemoteStore({self.endpoint!r}, graph_store={self.graph_store!r})"

    def close(self) -> None:
        """Nothing to release (every request is its own connection); kept for the store interface."""

    def __enter__(self) -> RemoteStore:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- queries -----------------------------------------------------------------------------

    def query(
        self,
        sparql: str,
        *,
        substitutions: Substitutions | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
        custom_functions: CustomFunctions | None = None,
    ) -> QueryAnswer:
        """Run SPARQL on the endpoint with values bound by name (see :func:`bind_values`).

        Returns what ``AnnotationStore.query`` returns: QuerySolutions for SELECT,
        QueryBoolean for ASK, and for CONSTRUCT/DESCRIBE an iterator of Triples.
        ``named_graphs`` become the protocol's ``named-graph-uri`` parameters.
        ``custom_functions`` are not sent (they cannot be): the server runs the functions it
        has, as ``craftrdf serve`` runs ``craftrdf:wang``.
        """
        if prefixes:
            bad = [p for p in prefixes if not _PREFIX_NAME.match(p)]
            if bad:
                raise QueryError(f"invalid prefix name {bad[0]!r}")
            sparql = "".join(f"PREFIX {p}: {ox.NamedNode(iri)}\n" for p, iri in prefixes.items()) + sparql
        text = bind_values(sparql, substitutions or {})
        if self.dialect == "virtuoso":
            text = rewrite(text, self._graphs)
        return self._ask(text, named_graphs)

    def _ask(self, text: str, named_graphs: Sequence[str] | None = None) -> QueryAnswer:
        """Send ``text`` as it is and read the answer (see :meth:`query`)."""
        form = query_form(text)
        logger.debug("remote query to %s: %s", self.endpoint, text)
        answer = send_query(
            self.endpoint, text, form=form, named_graphs=named_graphs, timeout=self.timeout, user_agent=self.user_agent
        )
        try:
            if form in ("CONSTRUCT", "DESCRIBE"):
                return (q.triple for q in ox.parse(answer.body, ox.RdfFormat.N_TRIPLES))
            body = standard_json(answer.body, ask=form == "ASK")
            truncated_at(answer.headers, body, self.endpoint)
            return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        except SyntaxError as exc:
            raise StoreError(f"endpoint {self.endpoint} sent results that cannot be read: {exc}") from None

    @property
    def dialect(self) -> Dialect:
        """``virtuoso`` or ``standard``: told, or read once from the server's ``Server`` header."""
        if self._dialect is None:
            try:
                r = httpx.get(
                    self.endpoint,
                    params={"query": "ASK {}"},
                    headers={"Accept": "application/sparql-results+json", "User-Agent": self.user_agent},
                    timeout=self.timeout,
                )
                server = r.headers.get("server", "")
            except httpx.HTTPError:  # the query itself will say what is wrong with the endpoint
                server = ""
            self._dialect = "virtuoso" if is_virtuoso(server) else "standard"
            logger.info("endpoint %s: %s SPARQL (server %r)", self.endpoint, self._dialect, server)
        return self._dialect

    def _select_as_is(self, text: str) -> ox.QuerySolutions:
        return solutions(self._ask(text))

    def __len__(self) -> int:
        """The number of quads; on Virtuoso, of the named graphs' quads (its default graph is their union)."""
        if self.dialect != "virtuoso":
            return super().__len__()
        rows = list(solutions(self.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")))
        n = rows[0]["n"] if rows else None
        return int(n.value) if isinstance(n, ox.Literal) else 0

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | None,
        graph_name: ox.NamedNode | ox.DefaultGraph | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None is a wildcard); a whole named graph is fetched
        through the Graph Store Protocol when one is configured (no result-size limit applies).
        On Virtuoso the default graph is the union of the named graphs: it reads as empty."""
        if isinstance(graph_name, ox.DefaultGraph) and self.dialect == "virtuoso":
            return iter(())
        if (
            isinstance(graph_name, ox.NamedNode)
            and subject is None
            and predicate is None
            and object is None
            and self.graph_store is not None
        ):
            return self._graph_quads(graph_name)
        return super().quads_for_pattern(subject, predicate, object, graph_name)

    def _graph_quads(self, graph: ox.NamedNode) -> Iterator[ox.Quad]:
        body = self._graph_bytes(graph)
        if body is None:
            return iter(())
        return (ox.Quad(q.subject, q.predicate, q.object, graph) for q in ox.parse(body, ox.RdfFormat.N_TRIPLES))

    def load_batch(self, graph: str, lines: Iterable[str], *, digest: str, companions: Sequence[str] = ()) -> int:
        """Write one batch into ``graph`` with a Graph Store Protocol PUT, replacing an older version.

        ``lines`` are N-Quads lines whose graph is ``graph``. They are read and checked
        completely (spooled to a temporary file) before anything is sent, so bad input
        writes nothing; the manifest triple comes last, so a load the server leaves
        half-done is not taken for a loaded batch and is replaced on the next build.
        A batch that is already there is replaced, with its ``companions`` graphs, by one
        update request carrying the difference (old or new, never neither). A new one is
        written with PUTs: the ``companions`` first, each replacing its graph, and the batch
        graph last (``<graph> craft:companion <c>`` listing them).
        Returns the lines written, 0 without writing when the same digest is there.
        """
        self._graphs.forget()  # the graphs a rewritten query ranges over may change
        if self.graph_store is None:
            raise StoreError(
                f"{self.endpoint} is open read-only: give a Graph Store Protocol URL (--graph-store) to write to it"
            )
        if self.has_batch(graph, digest):
            logger.info("batch %s already loaded, skipped", graph)
            return 0
        node = ox.NamedNode(graph)
        manifest = [ox.Triple(node, ox.NamedNode(CRAFT.companion), ox.NamedNode(c)) for c in companions]
        manifest.append(ox.Triple(node, ox.NamedNode(CRAFT.digest), ox.Literal(digest)))
        with tempfile.TemporaryFile() as nq:
            count = _spool(lines, nq)
            self._refuse_unstorable(graph, nq)
            old = self._graph_bytes(node) if self.update_endpoint is not None else None
            if old:
                self._replace(node, old, nq, manifest, companions)
                return count + len(manifest)
            for target in [*companions, graph]:
                nq.seek(0)
                with tempfile.TemporaryFile() as nt:
                    try:
                        triples = _triples_of(
                            ox.parse(nq, ox.RdfFormat.N_QUADS), ox.NamedNode(target), [*companions, graph]
                        )
                        tail = manifest if target == graph else []
                        ox.serialize(itertools.chain(triples, tail), nt, ox.RdfFormat.N_TRIPLES)
                    except SyntaxError as exc:
                        raise StoreError(f"internal error serializing batch {graph}: {exc}") from exc
                    size = nt.tell()
                    nt.seek(0)
                    self._put(target, nt, size)
        return count + len(manifest)

    def _refuse_unstorable(self, graph: str, nq: IO[bytes]) -> None:
        """StoreError, before anything is sent, for a batch Virtuoso would store changed (``unstorable_triple``)."""
        if self.dialect != "virtuoso":
            return
        where = unstorable_triple(nq)
        if where is not None:
            raise StoreError(
                f"batch {graph}: the literal of {where} holds U+0000 (NUL), which Virtuoso does not store as"
                " sent: remove the character from the input; nothing was written"
            )

    def append_batch(self, graph: str, lines: Iterable[str]) -> int:
        """Add N-Quads ``lines`` (all in ``graph``) to the graph with one Graph Store Protocol ``POST``.

        An Oxigraph server applies a POST in one transaction (all or nothing); returns lines sent.
        """
        self._graphs.forget()  # the graphs a rewritten query ranges over may change
        if self.graph_store is None:
            raise StoreError(f"{self.endpoint} is open read-only: give a Graph Store Protocol URL to write to it")
        node = ox.NamedNode(graph)
        with tempfile.TemporaryFile() as nq, tempfile.TemporaryFile() as nt:
            count = _spool(lines, nq)
            self._refuse_unstorable(graph, nq)
            nq.seek(0)
            try:
                ox.serialize(_triples_of(ox.parse(nq, ox.RdfFormat.N_QUADS), node, ()), nt, ox.RdfFormat.N_TRIPLES)
            except SyntaxError as exc:
                raise StoreError(f"internal error serializing lines for {graph}: {exc}") from exc
            size = nt.tell()
            nt.seek(0)
            self._put(graph, nt, size, method="POST")
        return count

    def _graph_bytes(self, graph: ox.NamedNode) -> bytes | None:
        """The graph as N-Triples through the Graph Store Protocol; None when there is no such graph."""
        assert self.graph_store is not None
        try:
            r = httpx.get(
                self.graph_store,
                params={"graph": graph.value},
                headers={"Accept": "application/n-triples", "User-Agent": self.user_agent},
                timeout=self.timeout,
            )
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach graph store {self.graph_store}: {exc}") from None
        if r.status_code == 404:
            return None
        if r.status_code != 200:
            raise StoreError(
                f"graph store {self.graph_store} failed reading {graph.value} "
                f"(HTTP {r.status_code}): {server_message(r.content)}"
            )
        return r.content

    def _replace(
        self, node: ox.NamedNode, old: bytes, new: IO[bytes], manifest: Sequence[ox.Triple], companions: Sequence[str]
    ) -> None:
        """Turn batch ``node`` and its companion graphs from ``old`` into ``new`` with one update request.

        ``old`` is the batch graph as N-Triples (its manifest names its old companions, read
        here too); ``new`` the batch's N-Quads, followed by ``manifest``.
        """
        old_triples = list(ox.parse(old, ox.RdfFormat.N_TRIPLES))
        before = [t.object.value for t in old_triples if t.predicate.value == CRAFT.companion]
        graphs = list(dict.fromkeys([node.value, *companions, *before]))
        parts = {g: self._graph_bytes(ox.NamedNode(g)) for g in graphs[1:]}

        def old_quads() -> Iterator[ox.Quad]:
            yield from (ox.Quad(t.subject, t.predicate, t.object, node) for t in old_triples)
            for g, body in parts.items():
                if body is not None:
                    n = ox.NamedNode(g)
                    yield from (
                        ox.Quad(t.subject, t.predicate, t.object, n) for t in ox.parse(body, ox.RdfFormat.N_TRIPLES)
                    )

        def new_quads() -> Iterator[ox.Quad]:
            new.seek(0)
            yield from ox.parse(new, ox.RdfFormat.N_QUADS)
            yield from (ox.Quad(t.subject, t.predicate, t.object, node) for t in manifest)

        with nquads_file(old_quads()) as old_nq, nquads_file(new_quads()) as new_nq:
            diff = replacement_update(graphs, old_nq, new_nq)
        logger.info(
            "replacing %s at %s in one update: %d quads out, %d in",
            node.value,
            self.update_endpoint,
            diff.removed,
            diff.added,
        )
        try:
            r = send_write(
                "POST",
                str(self.update_endpoint),
                content=diff.update.encode("utf-8"),
                headers={"Content-Type": "application/sparql-update", "User-Agent": self.user_agent},
                timeout=httpx.Timeout(self.timeout, write=max(self.timeout, 600.0), read=max(self.timeout, 600.0)),
            )
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot replace batch {node.value} at {self.update_endpoint}: {exc}") from None
        if r.status_code not in (200, 204):
            raise StoreError(
                f"update endpoint {self.update_endpoint} refused to replace {node.value} (HTTP {r.status_code}): "
                f"{server_message(r.content)}"
            )

    def optimize(self) -> None:
        """Nothing to do from here: a server compacts its own store (for Oxigraph: ``oxigraph optimize``)."""

    def _put(self, graph: str, body: IO[bytes], size: int, *, method: str = "PUT") -> None:
        assert self.graph_store is not None
        logger.info("%s %s bytes into %s at %s", method, size, graph, self.graph_store)
        try:
            r = send_write(
                method,
                self.graph_store,
                params={"graph": graph},
                content=body.read(),
                headers={"Content-Type": "application/n-triples", "User-Agent": self.user_agent},
                timeout=httpx.Timeout(self.timeout, write=max(self.timeout, 600.0), read=max(self.timeout, 600.0)),
            )
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot write batch {graph} to graph store {self.graph_store}: {exc}") from None
        if r.status_code not in (200, 201, 204):
            raise StoreError(
                f"graph store {self.graph_store} refused batch {graph} (HTTP {r.status_code}): "
                f"{server_message(r.content)}"
            )

    def remove_batch(self, graph: str) -> bool:
        """Remove a batch's graph and the companion graphs its manifest lists; True if it was there.

        With an update endpoint, one ``DROP`` request removes them together (one server
        transaction); without one, Graph Store Protocol DELETEs remove the companions first
        and the batch graph last, so an interrupted removal leaves the batch listed and a
        second call finishes it.
        """
        self._graphs.forget()  # the graphs a rewritten query ranges over may change
        if self.graph_store is None:
            raise StoreError(f"{self.endpoint} is open read-only: give a Graph Store Protocol URL to write to it")
        node = ox.NamedNode(graph)
        pattern = self.quads_for_pattern(node, ox.NamedNode(CRAFT.companion), None, node)
        companions = [q.object.value for q in pattern if isinstance(q.object, ox.NamedNode)]
        if self.update_endpoint is not None:
            if not self.contains_named_graph(graph):
                return False
            drops = " ;\n".join(f"DROP SILENT GRAPH {ox.NamedNode(g)}" for g in [graph, *companions])
            try:
                r = httpx.post(
                    self.update_endpoint,
                    content=drops.encode("utf-8"),
                    headers={"Content-Type": "application/sparql-update", "User-Agent": self.user_agent},
                    timeout=self.timeout,
                )
            except httpx.HTTPError as exc:
                raise StoreError(f"cannot remove batch {graph} at {self.update_endpoint}: {exc}") from None
            if r.status_code not in (200, 204):
                raise StoreError(
                    f"update endpoint {self.update_endpoint} refused to remove {graph} (HTTP {r.status_code}): "
                    f"{server_message(r.content)}"
                )
            return True
        for companion in companions:
            self._delete(companion)
        return self._delete(graph)

    def _delete(self, graph: str) -> bool:
        """A Graph Store Protocol DELETE of one graph; False when the server has no such graph."""
        assert self.graph_store is not None
        try:
            r = httpx.delete(
                self.graph_store, params={"graph": graph}, headers={"User-Agent": self.user_agent}, timeout=self.timeout
            )
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


def _triples_of(quads: Iterable[ox.Quad], graph: ox.NamedNode, owned: Sequence[str]) -> Iterator[ox.Triple]:
    """The triples of ``graph`` among a batch's quads; StoreError for a graph not ``owned`` by the batch."""
    for q in quads:
        if q.graph_name == graph:
            yield q.triple
        elif not isinstance(q.graph_name, ox.NamedNode) or q.graph_name.value not in owned:
            raise StoreError(f"internal error: a quad of a batch names graph {q.graph_name}")
