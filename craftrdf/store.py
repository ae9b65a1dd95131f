"""The annotation store: one class owning a pyoxigraph ``Store``.

Writes come in *batches*, one per named graph (an ontology file, an annotation set,
a set's mapping files, the documents). A batch is written with one
``Store.bulk_load`` call, which is atomic in pyoxigraph 0.5: after a crash, even
``kill -9``, a batch is wholly present or wholly absent. Each batch carries its own
manifest inside its graph (``<g> craft:digest "..."``), so the store
itself says which batches it holds and from which input (no quad count: duplicate
lines in a batch collapse in the store, so only the store can count); a batch whose digest is
already there is skipped, which is why re-running ``build`` duplicates nothing.

Replacing a batch whose input changed is two atomic steps (drop the graph, then load
the new one); a crash between them leaves the batch absent, never mixed, and the next
build loads it. Input is parsed and validated before either step, so bad input never
removes anything.

One writer at a time: a writer takes an exclusive ``flock`` on ``craftrdf.lock`` in
the store directory and records its pid there; a second writer fails at once naming
that process. Readers take a shared lock, so they cannot open beside a live writer
(pyoxigraph calls that undefined behaviour). A killed bulk load leaves orphan
``bulk-*.sst`` files that survive reopening; the writer removes them once it holds the
exclusive lock, when no bulk load can be in flight.
"""

from __future__ import annotations

import fcntl
import io
import logging
import os
import queue
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Literal, Protocol, runtime_checkable

import pyoxigraph as ox

from .errors import ConfigError, StoreError, StoreLockedError
from .rdf import iri, literal, quad
from .vocab import CRAFT

__all__ = [
    "AnnotationStore",
    "BatchInfo",
    "QueryAnswer",
    "ReadableStore",
    "SparqlReads",
    "Substitutions",
    "WritableStore",
    "require_writable",
]

logger = logging.getLogger(__name__)

LOCK_FILE = "craftrdf.lock"
Mode = Literal["write", "read"]

_BATCHES = f"""
SELECT ?g ?digest WHERE {{ GRAPH ?g {{ ?g <{CRAFT.digest}> ?digest }} }}"""


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """A batch present in the store: its graph and the digest of the input it was loaded from."""

    graph: str
    digest: str


#: What ``query`` returns: solutions (SELECT), a boolean (ASK), or triples (CONSTRUCT, DESCRIBE).
QueryAnswer = ox.QuerySolutions | ox.QueryBoolean | Iterable[ox.Triple]
#: Values bound to query variables by name: IRIs and literals only.
Substitutions = Mapping[str, ox.NamedNode | ox.Literal]
Subject = ox.NamedNode | ox.BlankNode
Object = ox.NamedNode | ox.BlankNode | ox.Literal


@runtime_checkable
class ReadableStore(Protocol):
    """What reading code needs of a store; every part of craftrdf that only reads takes this.

    Implemented by :class:`AnnotationStore` (embedded), :class:`craftrdf.remote.RemoteStore`
    (a SPARQL endpoint) and :class:`craftrdf.server.workers.PooledStore` (the server's query
    processes). ``query`` binds ``substitutions`` by variable name (never by pasting text)
    and restricts ``GRAPH ?g`` to ``named_graphs`` when given; SPARQL syntax errors raise
    ``SyntaxError``, other failures :class:`~craftrdf.errors.QueryError` or
    :class:`~craftrdf.errors.StoreError`.
    """

    @property
    def writable(self) -> bool:
        """True when the store can take batches (:class:`WritableStore`)."""
        ...

    def query(
        self,
        sparql: str,
        *,
        substitutions: Substitutions | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
    ) -> QueryAnswer:
        """Run a SPARQL query with values bound by name."""
        ...

    def quads_for_pattern(
        self,
        subject: Subject | None,
        predicate: ox.NamedNode | None,
        object: Object | None,
        graph_name: ox.NamedNode | ox.DefaultGraph | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern; None is a wildcard."""
        ...

    def contains_named_graph(self, graph: str) -> bool:
        """True when the store has the named graph ``graph`` (an IRI)."""
        ...

    def batches(self) -> dict[str, BatchInfo]:
        """Every batch of the store, by graph IRI."""
        ...

    def has_batch(self, graph: str, digest: str) -> bool:
        """True when ``graph`` was loaded from input with this digest."""
        ...

    def __len__(self) -> int:
        """The number of quads."""
        ...


@runtime_checkable
class WritableStore(ReadableStore, Protocol):
    """A store that also takes batches: each one written whole or not at all (see the module docstring)."""

    def load_batch(self, graph: str, lines: Iterable[str], *, digest: str) -> int:
        """Write N-Quads ``lines`` as the batch ``graph``, replacing an older version; returns lines written."""
        ...

    def remove_batch(self, graph: str) -> bool:
        """Remove a batch's graph; True if it was there."""
        ...


def require_writable(store: ReadableStore, what: str) -> WritableStore:
    """``store`` as a :class:`WritableStore`; ConfigError saying ``what`` needs writing when it is read-only."""
    if store.writable and isinstance(store, WritableStore):
        return store
    raise ConfigError(f"{what} needs a store open for writing; this one is read-only")


_PATTERN = "SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
_DEFAULT_PATTERN = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
_GRAPH_EXISTS = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 1"
_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"


class SparqlReads:
    """The reads of :class:`ReadableStore` answered with SPARQL through the class's own ``query``; a mixin.

    For stores that can only be queried (a remote endpoint, the server's worker pool), so
    library code that reads by pattern or lists batches works on them unchanged.
    """

    __slots__ = ()

    def query(
        self,
        sparql: str,
        *,
        substitutions: Substitutions | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
    ) -> QueryAnswer:
        raise NotImplementedError

    def _select(self, sparql: str, **bindings: ox.NamedNode | ox.Literal) -> ox.QuerySolutions:
        result = self.query(sparql, substitutions=bindings)
        if not isinstance(result, ox.QuerySolutions):  # pragma: no cover - the queries here are SELECTs
            raise StoreError("expected SELECT solutions from the store")
        return result

    def quads_for_pattern(
        self,
        subject: Subject | None,
        predicate: ox.NamedNode | None,
        object: Object | None,
        graph_name: ox.NamedNode | ox.DefaultGraph | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None is a wildcard), by a SELECT with the pattern's terms bound."""
        bindings: dict[str, ox.NamedNode | ox.Literal] = {}
        for name, term in (("s", subject), ("p", predicate), ("o", object)):
            if isinstance(term, ox.BlankNode):
                raise StoreError("blank nodes cannot be sent in a query to this store")
            if term is not None:
                bindings[name] = term
        if isinstance(graph_name, ox.DefaultGraph):
            return (
                ox.Quad(_subject(r["s"]), _predicate(r["p"]), _object(r["o"]), ox.DefaultGraph())
                for r in self._select(_DEFAULT_PATTERN, **bindings)
            )
        if graph_name is not None:
            bindings["g"] = graph_name
        return (
            ox.Quad(_subject(r["s"]), _predicate(r["p"]), _object(r["o"]), _predicate(r["g"]))
            for r in self._select(_PATTERN, **bindings)
        )

    def contains_named_graph(self, graph: str) -> bool:
        """True when the named graph holds at least one triple."""
        return any(True for _ in self._select(_GRAPH_EXISTS, g=ox.NamedNode(graph)))

    def __len__(self) -> int:
        rows = list(self._select(_COUNT))
        n = rows[0]["n"] if rows else None
        return int(n.value) if isinstance(n, ox.Literal) else 0

    def batches(self) -> dict[str, BatchInfo]:
        """Every batch, by graph IRI (read from the manifests, as the embedded store does)."""
        return _batches(self._select(_BATCHES))

    def has_batch(self, graph: str, digest: str) -> bool:
        """True when ``graph`` holds the manifest of input ``digest``."""
        return any(b.digest == digest for b in _batches(self._select(_BATCHES, g=ox.NamedNode(graph))).values())


def _subject(term: object) -> Subject:
    if isinstance(term, (ox.NamedNode, ox.BlankNode)):
        return term
    raise StoreError(f"the store answered a subject that is not an IRI or blank node: {term!r}")


def _predicate(term: object) -> ox.NamedNode:
    if isinstance(term, ox.NamedNode):
        return term
    raise StoreError(f"the store answered a predicate or graph that is not an IRI: {term!r}")


def _object(term: object) -> Object:
    if isinstance(term, (ox.NamedNode, ox.BlankNode, ox.Literal)):
        return term
    raise StoreError(f"the store answered an object that is not an IRI, blank node or literal: {term!r}")


def _batches(rows: ox.QuerySolutions) -> dict[str, BatchInfo]:
    out: dict[str, BatchInfo] = {}
    for row in rows:
        g, digest = row["g"], row["digest"]
        if isinstance(g, ox.NamedNode) and isinstance(digest, ox.Literal):
            out[g.value] = BatchInfo(g.value, digest.value)
    return out


class _Lock:
    """An flock on the store's lock file, holding our pid while we hold the lock."""

    def __init__(self, directory: Path, mode: Mode) -> None:
        self.path = directory / LOCK_FILE
        self._fh: IO[str] | None = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115  # held until release()
        op = fcntl.LOCK_EX if mode == "write" else fcntl.LOCK_SH
        try:
            fcntl.flock(self._fh.fileno(), op | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self._holder()
            self._fh.close()
            self._fh = None
            what = "write to" if mode == "write" else "read"
            raise StoreLockedError(
                f"cannot {what} store {directory}: it is open for writing by {holder}; "
                "wait for it to finish (one writer at a time, no reader beside a writer)"
            ) from None
        if mode == "write":
            self._fh.seek(0)
            self._fh.truncate()
            self._fh.write(f"{os.getpid()} {' '.join(sys.argv)[:200]}\n")
            self._fh.flush()

    def _holder(self) -> str:
        try:
            content = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            content = ""
        if not content:
            return "another process (readers hold it; pid unknown)"
        pid, _, cmd = content.partition(" ")
        return f"process {pid} ({cmd})" if cmd else f"process {pid}"

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def _remove_orphans(directory: Path) -> int:
    """Delete ``bulk-*.sst`` files left by a killed bulk load; returns bytes freed."""
    freed = 0
    for p in directory.glob("bulk-*.sst"):
        try:
            freed += p.stat().st_size
            p.unlink()
        except FileNotFoundError:
            pass
    if freed:
        logger.warning(
            "removed %.1f MB of orphan bulk-load files left by an interrupted load in %s", freed / 1e6, directory
        )
    return freed


class _NQuadsStream(io.RawIOBase):
    """A binary stream over N-Quads lines, with the batch manifest appended at the end.

    A producer thread turns the lines into UTF-8 chunks while the bulk loader, which
    releases the GIL, stores the previous ones: the Python work of a batch overlaps
    Oxigraph's. An exception raised while producing lines is kept in ``error``; the
    loader then sees a read error and abandons the batch, and the caller re-raises
    the original.
    """

    _CHUNK_LINES = 4096

    def __init__(self, lines: Iterable[str], graph: str, digest: str) -> None:
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=16)
        self._stop = threading.Event()
        self._buf = memoryview(b"")
        self._eof = False
        self.count = 0
        self.error: BaseException | None = None
        g = iri(graph)
        manifest = quad(g, iri(CRAFT.digest), literal(digest), g)
        self._thread = threading.Thread(target=self._produce, args=(lines, manifest), daemon=True)
        self._thread.start()

    def _put(self, item: bytes | None) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self, lines: Iterable[str], manifest: str) -> None:
        chunk: list[str] = []
        try:
            for line in lines:
                chunk.append(line)
                if len(chunk) >= self._CHUNK_LINES:
                    self.count += len(chunk)
                    if not self._put(("\n".join(chunk) + "\n").encode("utf-8")):
                        return
                    chunk = []
            chunk.append(manifest)
            self.count += len(chunk)
            self._put(("\n".join(chunk) + "\n").encode("utf-8"))
        except BaseException as exc:  # handed to the consumer, re-raised by load_batch
            self.error = exc
        finally:
            self._put(None)

    def close(self) -> None:
        self._stop.set()
        super().close()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._buf and not self._eof:
            item = self._queue.get()
            if item is None:
                self._eof = True
                if self.error is not None:
                    raise OSError(f"input failed: {self.error}")
            else:
                self._buf = memoryview(item)
        n = min(len(buffer), len(self._buf))
        buffer[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


class AnnotationStore:
    """An Oxigraph store holding ontologies and annotation sets as batches of named graphs.

    Open with :meth:`open` (on disk) or :meth:`memory`; use as a context manager so the
    lock is released. ``raw`` is the underlying ``pyoxigraph.Store`` for queries.
    """

    def __init__(
        self, store: ox.Store, *, path: Path | None = None, lock: _Lock | None = None, writable: bool = True
    ) -> None:
        self.raw = store
        self.path = path
        self.writable = writable
        self._lock = lock

    @classmethod
    def memory(cls) -> AnnotationStore:
        """A new in-memory store (for tests and the demo)."""
        return cls(ox.Store())

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, mode: Mode = "write") -> AnnotationStore:
        """Open (creating if needed, in write mode) the on-disk store at ``path``.

        Raises StoreLockedError when another process writes it, StoreError when the
        directory is not a store or cannot be opened.
        """
        directory = Path(path)
        if mode == "read" and not directory.is_dir():
            raise StoreError(f"no store at {directory}: build one with `craftrdf build`")
        if mode == "write":
            if directory.exists() and not directory.is_dir():
                raise StoreError(f"{directory} exists and is not a directory")
            if directory.is_dir() and any(directory.iterdir()) and not (directory / "CURRENT").exists():
                raise StoreError(f"{directory} is a non-empty directory that is not an Oxigraph store")
            directory.mkdir(parents=True, exist_ok=True)
        lock = _Lock(directory, mode)
        try:
            if mode == "write":
                _remove_orphans(directory)
                store = ox.Store(str(directory))
            else:
                store = ox.Store.read_only(str(directory))
        except OSError as exc:
            lock.release()
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"store {directory} is locked by another (non-craftrdf?) process: {exc}"
                ) from None
            raise StoreError(f"cannot open store {directory}: {exc}") from None
        return cls(store, path=directory, lock=lock, writable=mode == "write")

    def close(self) -> None:
        """Flush (when writable) and release the lock; the object is unusable afterwards."""
        if self.writable and self.path is not None:
            try:
                self.raw.flush()
            except OSError as exc:  # pragma: no cover - disk failure
                logger.error("flush failed: %s", exc)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> AnnotationStore:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self.raw)

    # -- batches ---------------------------------------------------------------------

    def batches(self) -> dict[str, BatchInfo]:
        """Every batch in the store, by graph IRI."""
        rows = self.raw.query(_BATCHES)
        assert isinstance(rows, ox.QuerySolutions)
        return _batches(rows)

    def has_batch(self, graph: str, digest: str) -> bool:
        """True when ``graph`` is loaded from input with this digest."""
        g = ox.NamedNode(graph)
        return any(q.object.value == digest for q in self.raw.quads_for_pattern(g, ox.NamedNode(CRAFT.digest), None, g))

    def load_batch(self, graph: str, lines: Iterable[str], *, digest: str) -> int:
        """Write one batch atomically into ``graph``, replacing an older version; returns quads written.

        ``lines`` are N-Quads lines whose graph is ``graph``; the manifest is added here.
        They are streamed into the bulk loader, so a batch need not fit in memory. If
        producing them raises (bad input), nothing is written: for a new graph the bulk
        load is abandoned; an existing graph is only dropped once its replacement has
        been produced completely (spooled to a temporary file first).
        Returns the number of lines written (duplicates among them are stored once),
        0 without writing when the same digest is already loaded.
        """
        if not self.writable:
            raise StoreError("store is open read-only")
        if self.has_batch(graph, digest):
            logger.info("batch %s already loaded, skipped", graph)
            return 0
        stream = _NQuadsStream(lines, graph, digest)
        node = ox.NamedNode(graph)
        with stream:
            self._bulk_load(stream, node, graph)
        if stream.error is not None:  # pragma: no cover - the loader swallowed a reader error
            raise stream.error
        return stream.count

    def _bulk_load(self, stream: _NQuadsStream, node: ox.NamedNode, graph: str) -> None:
        try:
            if self.raw.contains_named_graph(node):
                logger.info("replacing batch %s (input changed)", graph)
                with tempfile.TemporaryFile() as spool:
                    shutil.copyfileobj(stream, spool, 1 << 20)
                    spool.seek(0)
                    self.raw.remove_graph(node)
                    self.raw.bulk_load(spool, ox.RdfFormat.N_QUADS)
            else:
                self.raw.bulk_load(stream, ox.RdfFormat.N_QUADS)
        except SyntaxError as exc:
            # Our own serialization is wrong: a bug, but say where.
            raise StoreError(f"internal error serializing batch {graph}: {exc}") from exc
        except OSError as exc:
            if stream.error is not None:
                raise stream.error from None
            raise StoreError(f"writing batch {graph} failed: {exc}") from exc

    def append_batch(self, graph: str, lines: Iterable[str]) -> int:
        """Add N-Quads ``lines`` to batch ``graph`` in one bulk load (all or nothing); returns lines given.

        For a streamed run's small batches (docs/scale.md: a transaction per batch was slower, larger).
        """
        if not self.writable:
            raise StoreError("store is open read-only")
        buf = list(lines)
        try:
            self.raw.bulk_load(("\n".join(buf) + "\n").encode("utf-8"), ox.RdfFormat.N_QUADS)
        except SyntaxError as exc:
            raise StoreError(f"internal error serializing lines for {graph}: {exc}") from exc
        return len(buf)

    def optimize(self) -> None:
        """Compact the store (``Store.optimize``); reads after many batches are slow until then."""
        if self.writable:
            self.raw.optimize()

    def remove_batch(self, graph: str) -> bool:
        """Remove a batch's graph; True if it was there."""
        node = ox.NamedNode(graph)
        if not self.raw.contains_named_graph(node):
            return False
        self.raw.remove_graph(node)
        return True

    # -- queries ---------------------------------------------------------------------

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | None,
        graph_name: ox.NamedNode | ox.DefaultGraph | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None is a wildcard), as ``pyoxigraph.Store.quads_for_pattern``.

        The same call on a :class:`~craftrdf.remote.RemoteStore` is answered over SPARQL, so
        library code that reads by pattern works on both.
        """
        return iter(self.raw.quads_for_pattern(subject, predicate, object, graph_name))

    def contains_named_graph(self, graph: str) -> bool:
        """True when the store has the named graph ``graph`` (an IRI)."""
        return self.raw.contains_named_graph(ox.NamedNode(graph))

    def query(
        self,
        sparql: str,
        *,
        substitutions: Mapping[str, ox.NamedNode | ox.Literal] | None = None,
        prefixes: Mapping[str, str] | None = None,
        named_graphs: Sequence[str] | None = None,
    ) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        """Run SPARQL with values bound by name (never pasted into the text).

        ``named_graphs`` restricts the dataset ``GRAPH ?g`` ranges over (as the SPARQL
        protocol's ``named-graph-uri`` does); by default every graph of the store.
        """
        subs = {ox.Variable(k): v for k, v in (substitutions or {}).items()}
        graphs = [ox.NamedNode(g) for g in named_graphs] if named_graphs is not None else None
        return self.raw.query(
            sparql, substitutions=subs or None, prefixes=dict(prefixes) if prefixes else None, named_graphs=graphs
        )
