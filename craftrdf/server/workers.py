"""Worker processes that run queries and can be killed: the server's time limit and crash barrier.

pyoxigraph 0.5.13 cannot cancel a running query and a pathological query can crash the
process. So the server never runs the engine itself: a :class:`WorkerPool` keeps a few
processes, each with the store open (read-only, so they share it; or one writer when updates
are enabled), and sends them work over a pipe. A call that overruns its time limit gets its
worker killed (SIGKILL) and replaced, and the caller a 503; a worker that dies mid-call (a
segfault) is replaced too, and the caller gets a 500. The pool never returns a partial answer.

Work is a module-level function ``fn(store, *args)`` (pickled by name) run in the worker
with the worker's :class:`~craftrdf.store.AnnotationStore`; :func:`run_sparql` and
:func:`run_update` are the SPARQL ones. :class:`PooledStore` gives code written for an
``AnnotationStore`` (the article viewer) the same ``query`` interface, run in the pool.
"""

from __future__ import annotations

import contextlib
import io
import logging
import multiprocessing as mp
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Literal

import pyoxigraph as ox

from ..errors import CraftrdfError, QueryError, StoreError
from ..store import AnnotationStore, SparqlReads
from .guard import RequestRefused

__all__ = ["Answer", "PooledStore", "QueryJob", "StoreOpener", "WorkerPool", "run_sparql", "run_update"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoreOpener:
    """How a worker opens the store: a path and a mode ("read" for a pool, "write" for the one writer)."""

    path: str
    mode: Literal["read", "write"] = "read"

    def __call__(self) -> AnnotationStore:
        return AnnotationStore.open(self.path, mode=self.mode)


@dataclass(frozen=True, slots=True)
class QueryJob:
    """A SPARQL query to run: its dataset, the formats negotiated for each result kind, a row limit.

    ``results_format`` / ``graph_format`` are pyoxigraph format names (``JSON``, ``TURTLE``...)
    for SELECT/ASK and CONSTRUCT/DESCRIBE answers; None means the client accepts none (406).
    """

    text: str
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    results_format: str | None = "JSON"
    graph_format: str | None = "TURTLE"
    max_results: int = 100_000
    base_iri: str | None = None


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
    kw: dict[str, Any] = {}
    if job.default_graphs:
        kw["default_graph"] = [ox.NamedNode(g) for g in job.default_graphs]
    if job.named_graphs:
        kw["named_graphs"] = [ox.NamedNode(g) for g in job.named_graphs]
    return kw


def run_sparql(store: AnnotationStore, job: QueryJob) -> Answer:
    """Run a query in this process and serialize its whole result (in a worker).

    SELECT rows are written as TSV first, counting rows as the serializer streams, so a result
    past ``max_results`` stops early (RequestRefused 422); TSV keeps every term exactly, so it is
    then re-serialized by pyoxigraph in the negotiated format. Raises RequestRefused 406 when
    the client accepts no format for this kind of result, SyntaxError for a bad query.
    """
    result = store.raw.query(job.text, base_iri=job.base_iri, **_dataset(job))
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
            # the sink is an io.RawIOBase that counts rows; pyoxigraph's stub names only IO[bytes]
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


def run_update(store: AnnotationStore, text: str, base_iri: str | None) -> Answer:
    """Apply a SPARQL update in this process (the writer worker); pyoxigraph applies it atomically."""
    if not store.writable:
        raise RequestRefused(403, "this server is read-only: start it with --allow-update to accept updates")
    store.raw.update(text, base_iri=base_iri)
    return Answer("text/plain; charset=utf-8", b"update applied\n", 0)


def _query_for_proxy(
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


def _worker_main(conn: Connection, opener: Callable[[], AnnotationStore]) -> None:
    """A worker's loop: open the store, then run ``(fn, args)`` messages until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    try:
        store = opener()
    except Exception as exc:  # reported to the parent, which says it in one line
        conn.send(("fail", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", os.getpid()))
    try:
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                break
            if msg is None:
                break
            fn, args = msg
            try:
                reply: tuple[Any, ...] = ("ok", fn(store, *args))
            except RequestRefused as exc:
                reply = ("err", exc.status, exc.message)
            except SyntaxError as exc:
                reply = ("err", 400, f"SPARQL syntax error: {exc}")
            except CraftrdfError as exc:
                reply = ("err", 404 if "no annotation set" in str(exc) else 400, str(exc))
            except ValueError as exc:
                reply = ("err", 400, str(exc))
            except Exception as exc:  # the engine's own failures; the client needs the message
                reply = ("err", 500, f"query failed: {type(exc).__name__}: {exc}")
            conn.send(reply)
    finally:
        store.close()


@dataclass(slots=True)
class _Worker:
    process: mp.process.BaseProcess
    conn: Connection


class WorkerPool:
    """Processes holding the store open, each running one call at a time, killed when they overrun.

    ``size`` workers are started at once and the constructor waits until each has opened the
    store (StoreError naming the reason if one cannot, e.g. the store is locked by a writer).
    A writer pool (``opener.mode == "write"``) must have size 1. Use as a context manager or
    call :meth:`close`; :meth:`call` is thread-safe and blocking (run it off the event loop).
    """

    def __init__(self, opener: Callable[[], AnnotationStore], *, size: int = 2, start_timeout: float = 120.0) -> None:
        if size < 1:
            raise StoreError("a worker pool needs at least one worker")
        if getattr(opener, "mode", "read") == "write" and size != 1:
            raise StoreError("updates need a single writer: use one worker with --allow-update")
        self.size = size
        self._opener = opener
        self._ctx = mp.get_context("spawn")
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        self._workers: set[int] = set()
        self._all: dict[int, _Worker] = {}
        self._start_timeout = start_timeout
        self.restarts = 0
        started = [self._spawn() for _ in range(size)]
        try:
            for w in started:
                self._await_ready(w)
        except BaseException:
            for w in started:
                self._kill(w)
            raise
        for w in started:
            self._idle.put(w)

    # -- lifecycle -------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        p = self._ctx.Process(
            target=_worker_main, args=(child, self._opener), daemon=True, name="craftrdf-query-worker"
        )
        p.start()
        child.close()
        w = _Worker(p, parent)
        with self._lock:
            self._all[id(w)] = w
        return w

    def _await_ready(self, w: _Worker) -> None:
        if not w.conn.poll(self._start_timeout):
            raise StoreError(f"a query worker did not open the store within {self._start_timeout:g} s")
        try:
            msg = w.conn.recv()
        except EOFError:
            raise StoreError(f"a query worker died while opening the store (exit code {w.process.exitcode})") from None
        if msg[0] != "ready":
            raise StoreError(f"a query worker cannot open the store: {msg[1]}")

    def _kill(self, w: _Worker) -> None:
        with self._lock:
            self._all.pop(id(w), None)
        if w.process.is_alive():
            w.process.kill()
        w.process.join(5)
        w.conn.close()

    def _replace(self, w: _Worker, why: str) -> None:
        """Kill ``w`` and start its successor in the background (the pool is short one until then)."""
        self._kill(w)
        self.restarts += 1
        logger.warning("query worker %s %s; starting a new one", w.process.pid, why)

        def start() -> None:
            # a writer's successor can only open the store once the old one's lock is gone,
            # which _kill ensured by joining the killed process
            for attempt in range(3):
                if self._closed:
                    return
                try:
                    new = self._spawn()
                except OSError as exc:  # e.g. the interpreter is shutting down
                    logger.error("cannot start a query worker: %s", exc)
                    return
                try:
                    self._await_ready(new)
                except (StoreError, OSError) as exc:
                    self._kill(new)
                    logger.error("replacing a query worker failed (attempt %d): %s", attempt + 1, exc)
                    time.sleep(1.0)
                    continue
                if self._closed:
                    # close() may have run on another thread meanwhile; mypy kept the narrowing from above
                    self._kill(new)  # type: ignore[unreachable]
                else:
                    self._idle.put(new)
                return

        threading.Thread(target=start, name="craftrdf-worker-restart", daemon=True).start()

    def close(self) -> None:
        """Stop every worker (idle ones cleanly, busy ones killed)."""
        self._closed = True
        with self._lock:
            workers = list(self._all.values())
        for w in workers:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        deadline = time.monotonic() + 5
        for w in workers:
            w.process.join(max(deadline - time.monotonic(), 0.1))
            self._kill(w)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pids(self) -> list[int]:
        """Process ids of the live workers (for tests and diagnostics)."""
        with self._lock:
            return [w.process.pid for w in self._all.values() if w.process.pid is not None]

    # -- calls -----------------------------------------------------------------------

    def _take(self, wait: float) -> _Worker:
        deadline = time.monotonic() + wait
        while True:
            try:
                w = self._idle.get(timeout=max(deadline - time.monotonic(), 0.001))
            except queue.Empty:
                raise RequestRefused(
                    503, f"all {self.size} query workers stayed busy for {wait:g} s; try again later"
                ) from None
            if w.process.is_alive():
                return w
            self._replace(w, f"had died while idle (exit code {w.process.exitcode})")

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float, wait: float | None = None) -> Any:
        """Run ``fn(store, *args)`` in a worker and return its result; at most ``timeout`` seconds.

        Raises RequestRefused: 503 when the call overran (its worker is killed and replaced) or no
        worker became free within ``wait`` seconds (default: ``timeout``); 500 when the worker
        died during the call; the worker's own status for errors it reported (400 bad query,
        406, 422 too many rows, ...).
        """
        if self._closed:
            raise RequestRefused(503, "the server is shutting down")
        w = self._take(timeout if wait is None else wait)
        try:
            w.conn.send((fn, args))
            ready = w.conn.poll(timeout)
        except (OSError, EOFError):
            self._replace(w, "was gone when given work")
            raise RequestRefused(500, "the query worker failed; it has been replaced, try again") from None
        except BaseException:
            self._replace(w, "was interrupted")
            raise
        if not ready:
            self._replace(w, f"overran the {timeout:g} s time limit and was killed")
            raise RequestRefused(
                503,
                f"the query ran past the server's time limit of {timeout:g} s and was "
                "stopped; make it more selective or add LIMIT",
            )
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            w.process.join(1)
            code = w.process.exitcode
            self._replace(w, f"died during a call (exit code {code})")
            raise RequestRefused(
                500,
                f"the query crashed its worker process (exit code {code}); the server replaced it and keeps serving",
            ) from None
        self._idle.put(w)
        if msg[0] == "ok":
            return msg[1]
        raise RequestRefused(msg[1], msg[2])


class PooledStore(SparqlReads):
    """A :class:`~craftrdf.store.ReadableStore` whose queries run in a :class:`WorkerPool`.

    ``query`` returns what the embedded store returns (``QuerySolutions``, ``QueryBoolean``,
    or a list of triples for CONSTRUCT), parsed back from TSV / JSON / N-Triples, so library
    code (the article viewer) runs unchanged, with the server's time limit. Errors come back
    as :class:`~craftrdf.errors.QueryError`.
    """

    def __init__(self, pool: WorkerPool, *, timeout: float) -> None:
        self.pool = pool
        self.timeout = timeout
        self.path = None
        self.writable = False

    def query(
        self,
        sparql: str,
        *,
        substitutions: Mapping[str, ox.NamedNode | ox.Literal] | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
        default_graph: Sequence[str] | None = None,
    ) -> Any:
        """Run a query in a worker with values bound by name (see ``AnnotationStore.query``)."""
        subs = tuple((str(k), v) for k, v in (substitutions or {}).items())
        try:
            kind, body = self.pool.call(
                _query_for_proxy,
                sparql,
                subs,
                dict(prefixes or {}) or None,
                None if named_graphs is None else list(named_graphs),
                None if default_graph is None else list(default_graph),
                timeout=self.timeout,
            )
        except RequestRefused as exc:
            if exc.status == 400 and exc.message.startswith("SPARQL syntax error"):
                raise SyntaxError(exc.message) from None
            raise QueryError(exc.message) from None
        if kind == "solutions":
            return ox.parse_query_results(body, ox.QueryResultsFormat.TSV)
        if kind == "boolean":
            return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        return list(ox.parse(body, ox.RdfFormat.N_TRIPLES))
