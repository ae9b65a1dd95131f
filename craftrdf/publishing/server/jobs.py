"""What a query worker runs: SPARQL queries and updates, serialized completely, with a row limit.

Each job is a module-level function ``fn(store, *args)`` (pickled by name, run in a worker
process of :class:`~craftrdf.publishing.server.workers.WorkerPool` with the worker's store): :func:`run_sparql`
for the protocol's queries, :func:`run_update` for updates, and the proxy used by
:class:`~craftrdf.publishing.server.pooled.PooledStore`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from ...analysis.similarity.sparql import functions_for
from ...core.errors import QueryError
from ...querying.library import query_prefixes
from ...store.local import AnnotationStore
from .guard import RequestRefused
from .protocol import names_dataset


@dataclass(frozen=True, slots=True)
class QueryJob:
    """A SPARQL query to run: its dataset, the formats negotiated for each result kind, a row limit.

    ``results_format`` / ``graph_format`` are pyoxigraph format names (``JSON``, ``TURTLE``...)
    for SELECT/ASK and CONSTRUCT/DESCRIBE answers; None means the client accepts none (406).
    ``union_default_graph`` makes the union of the named graphs the default graph when neither
    the request (``default_graphs``, ``named_graphs``) nor the query (``FROM``) names a dataset.
    ``max_bytes`` bounds the serialized answer (RequestRefused 422 past it).
    """

    text: str
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    results_format: str | None = "JSON"
    graph_format: str | None = "TURTLE"
    max_results: int = 100_000
    base_iri: str | None = None
    union_default_graph: bool = False
    max_bytes: int = 50_000_000


@dataclass(frozen=True, slots=True)
class Answer:
    """A complete response body: media type, bytes, and the rows or triples it holds."""

    media_type: str
    body: bytes
    count: int


class _TooMany(Exception):
    pass


class _CountingSink(io.RawIOBase):
    """Collects TSV results and stops the serializer once it holds more than ``limit`` rows."""

    def __init__(self, limit: int) -> None:
        self.buffer = io.BytesIO()
        self.limit = limit
        self.lines = 0
        self.exceeded = False

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        data = bytes(b)
        self.lines += data.count(b"\n")
        if self.lines - 1 > self.limit:  # the first line is the header
            self.exceeded = True
            raise _TooMany()
        self.buffer.write(data)
        return len(data)


def _bytes(data: bytes | None) -> bytes:
    """Serializers called without an output return bytes (their stubs say ``bytes | None``)."""
    assert data is not None
    return data


def _too_many(limit: int) -> RequestRefused:
    return RequestRefused(
        422,
        f"the result has more than {limit:,} rows, the server's limit; "
        "add LIMIT/OFFSET to page through it, or download a dump",
    )


def _dataset(job: QueryJob) -> dict[str, Any]:
    """The dataset arguments of ``Store.query``: the request's graphs, else the union if the server offers it.

    pyoxigraph's union flag replaces a query's own ``FROM`` (and cannot go with ``default_graph``),
    while the SPARQL 1.1 Protocol and Query give the request's and then the query's dataset
    precedence over the service's default; so the union is asked for only when neither names one.
    """
    kw: dict[str, Any] = {}
    if job.default_graphs:
        kw["default_graph"] = [ox.NamedNode(g) for g in job.default_graphs]
    if job.named_graphs:
        kw["named_graphs"] = [ox.NamedNode(g) for g in job.named_graphs]
    if job.union_default_graph and not kw and not names_dataset(job.text):
        kw["use_default_graph_as_union"] = True
    return kw


def _answer(store: AnnotationStore, job: QueryJob) -> Answer:
    """The query's answer, row-limited, with the CRAFT functions and prefixes (see :func:`run_sparql`)."""
    functions = functions_for(store).session()
    result = store.raw.query(
        job.text,
        base_iri=job.base_iri,
        prefixes=query_prefixes(),
        custom_functions=dict(functions.functions),
        **_dataset(job),
    )
    answer = _serialize(result, job)
    try:
        functions.check()
    except QueryError as exc:
        raise RequestRefused(400, str(exc)) from None
    return answer


def _serialize(result: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples, job: QueryJob) -> Answer:
    """The whole answer of ``result`` in the format ``job`` negotiated (see :func:`run_sparql`)."""
    if isinstance(result, ox.QueryBoolean):
        if job.results_format is None:
            raise RequestRefused(406, "no acceptable format for an ASK result: accept SPARQL JSON or XML")
        fmt = getattr(ox.QueryResultsFormat, job.results_format)
        if fmt in (ox.QueryResultsFormat.CSV, ox.QueryResultsFormat.TSV):
            fmt = ox.QueryResultsFormat.JSON  # CSV/TSV cannot carry a boolean
        return Answer(fmt.media_type, _bytes(result.serialize(format=fmt)), 1)
    if isinstance(result, ox.QuerySolutions):
        if job.results_format is None:
            raise RequestRefused(406, "no acceptable format for a SELECT result: accept SPARQL JSON, XML, CSV or TSV")
        fmt = getattr(ox.QueryResultsFormat, job.results_format)
        sink = _CountingSink(job.max_results)
        try:
            result.serialize(sink, format=ox.QueryResultsFormat.TSV)  # type: ignore[arg-type]
        except Exception:
            if sink.exceeded:
                raise _too_many(job.max_results) from None
            raise
        tsv = sink.buffer.getvalue()
        rows = max(tsv.count(b"\n") - 1, 0)
        if fmt == ox.QueryResultsFormat.TSV:
            return Answer(fmt.media_type, tsv, rows)
        parsed = ox.parse_query_results(tsv, ox.QueryResultsFormat.TSV)
        return Answer(fmt.media_type, _bytes(parsed.serialize(format=fmt)), rows)
    if job.graph_format is None:
        raise RequestRefused(
            406, "no acceptable format for a CONSTRUCT/DESCRIBE result: accept Turtle, N-Triples, JSON-LD or RDF/XML"
        )
    fmt = getattr(ox.RdfFormat, job.graph_format)
    triples = []
    for t in result:
        triples.append(t)
        if len(triples) > job.max_results:
            raise _too_many(job.max_results)
    return Answer(fmt.media_type, _bytes(ox.serialize(triples, format=fmt)), len(triples))


def run_sparql(store: AnnotationStore, job: QueryJob) -> Answer:
    """Run a query in this process and serialize its whole result (in a worker).

    SELECT rows are written as TSV first, counting rows as the serializer streams, so a result
    past ``max_results`` stops early (RequestRefused 422); TSV keeps every term exactly, so it is
    then re-serialized by pyoxigraph in the negotiated format. An answer longer than ``max_bytes``
    is refused with 422 too. Raises RequestRefused 406 when the client accepts no format for this
    kind of result, SyntaxError for a bad query. The query may call ``craftrdf:wang`` and its kin
    (each worker builds an index once; their limits: :mod:`craftrdf.analysis.similarity.sparql`; a
    limit reached is a 400) and use the CRAFT prefixes undeclared (:func:`craftrdf.querying.query_prefixes`).
    """
    answer = _answer(store, job)
    if len(answer.body) > job.max_bytes:
        raise RequestRefused(
            422,
            f"the answer is {len(answer.body):,} bytes, more than the server's limit of {job.max_bytes:,}; "
            "add LIMIT/OFFSET to page through it, or download a dump",
        )
    return answer


def run_update(store: AnnotationStore, text: str, base_iri: str | None) -> Answer:
    """Apply a SPARQL update in this process (the writer worker); pyoxigraph applies it atomically."""
    if not store.writable:
        raise RequestRefused(403, "this server is read-only: start it with --allow-update to accept updates")
    store.raw.update(text, base_iri=base_iri)
    return Answer("text/plain; charset=utf-8", b"update applied\n", 0)


def query_for_proxy(
    store: AnnotationStore,
    sparql: str,
    subs: Sequence[tuple[str, Any]],
    prefixes: Mapping[str, str] | None,
    named_graphs: Sequence[str] | None,
    default_graph: Sequence[str] | None,
) -> tuple[str, bytes]:
    kw: dict[str, Any] = {}
    if named_graphs is not None:
        kw["named_graphs"] = [ox.NamedNode(g) for g in named_graphs]
    if default_graph is not None:
        kw["default_graph"] = [ox.NamedNode(g) for g in default_graph]
    result = store.raw.query(
        sparql,
        substitutions={ox.Variable(k): v for k, v in subs} or None,
        prefixes=dict(prefixes) if prefixes else None,
        **kw,
    )
    if isinstance(result, ox.QueryBoolean):
        return "boolean", _bytes(result.serialize(format=ox.QueryResultsFormat.JSON))
    if isinstance(result, ox.QuerySolutions):
        return "solutions", _bytes(result.serialize(format=ox.QueryResultsFormat.TSV))
    return "triples", _bytes(ox.serialize(result, format=ox.RdfFormat.N_TRIPLES))
