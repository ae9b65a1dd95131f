"""The annotation store: one class owning a pyoxigraph ``Store``.

Writes come in *batches*, one per named graph (an ontology file, an annotation set,
a set's mapping files, the documents). A batch is written with one
``Store.bulk_load`` call, which is atomic in pyoxigraph 0.5: after a crash, even
``kill -9``, a batch is wholly present or wholly absent. Each batch carries its own
manifest inside its graph (``<g> craft:digest "..."``), so the store
itself says which batches it holds and from which input (no quad count: duplicate
lines in a batch collapse in the store, so only the store can count); a batch whose digest is
already there is skipped, which is why re-running ``build`` duplicates nothing.

Replacing a batch whose input changed is one transaction: the new version is produced
whole (spooled to a temporary file), compared with the old one, and the difference is
applied as a single ``Store.update`` (:mod:`craftrdf.store.replace`), which pyoxigraph commits
whole or not at all. Readers and a ``kill -9`` at any moment see the old version or the
new one, never neither and never a mix (tests/store/test_replace.py kills replacements at a dozen
points). Input is parsed and validated before anything is written, so bad input never
removes anything.

One writer at a time: a writer takes an exclusive ``flock`` on ``craftrdf.lock`` in
the store directory; readers take a shared lock, so they cannot open beside a live writer
(pyoxigraph calls that undefined behaviour). A refused opener fails at once, naming the
processes that hold the lock now (:mod:`craftrdf.store._storelock`). Opening for reading never
writes: a path that holds no store is one error, and nothing is created there. A killed bulk load leaves orphan
``bulk-*.sst`` files that survive reopening; the writer removes them once it holds the
exclusive lock, when no bulk load can be in flight.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import pyoxigraph as ox

from ..core.errors import ConfigError, StoreError, StoreLockedError
from ..core.rdf import iri, quad
from ..core.vocab import CRAFT
from ._nquads_stream import NQuadsStream
from ._storelock import Mode, StoreLock, describe_holders, lock_holders, remove_orphans
from .rdflib_view import read_only_dataset
from .replace import replace_in_store

if TYPE_CHECKING:
    import rdflib

logger = logging.getLogger(__name__)


BATCHES_QUERY = f"""
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
#: SPARQL extension functions by IRI, as pyoxigraph's ``custom_functions`` takes them.
CustomFunctions = Mapping[ox.NamedNode, Callable[..., Any]]
Subject = ox.NamedNode | ox.BlankNode
Object = ox.NamedNode | ox.BlankNode | ox.Literal


@runtime_checkable
class ReadableStore(Protocol):
    """What reading code needs of a store; every part of craftrdf that only reads takes this.

    Implemented by :class:`AnnotationStore` (embedded), :class:`craftrdf.store.remote.RemoteStore`
    (a SPARQL endpoint) and :class:`craftrdf.publishing.server.pooled.PooledStore` (the server's query
    processes). ``query`` binds ``substitutions`` by variable name (never by pasting text)
    and restricts ``GRAPH ?g`` to ``named_graphs`` when given; SPARQL syntax errors raise
    ``SyntaxError``, other failures :class:`~craftrdf.core.errors.QueryError` or
    :class:`~craftrdf.core.errors.StoreError`.
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
        custom_functions: CustomFunctions | None = None,
    ) -> QueryAnswer:
        """Run a SPARQL query with values bound by name (and, on an embedded store, extension functions)."""
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

    def load_batch(self, graph: str, lines: Iterable[str], *, digest: str, companions: Sequence[str] = ()) -> int:
        """Write N-Quads ``lines`` as the batch ``graph``, replacing an older version; returns lines written.

        ``lines`` may also fill the ``companions`` graphs (derived from the same input, such
        as an ontology's relations graph): they are replaced and removed with the batch.
        """
        ...

    def remove_batch(self, graph: str) -> bool:
        """Remove a batch's graph; True if it was there."""
        ...


def is_store(directory: Path) -> bool:
    """True when ``directory`` holds an on-disk store (Oxigraph's RocksDB files: a ``CURRENT`` file)."""
    return (directory / "CURRENT").is_file()


def no_store_message(location: str | os.PathLike[str]) -> str:
    """The one line for a path where a store was expected and none is."""
    where = os.fspath(location)
    return f"{where}: no craftrdf store here; build one with `craftrdf build --craft CRAFT_DIR --store {where}`"


def require_writable(store: ReadableStore, what: str) -> WritableStore:
    """``store`` as a :class:`WritableStore`; ConfigError saying ``what`` needs writing when it is read-only."""
    if store.writable and isinstance(store, WritableStore):
        return store
    raise ConfigError(f"{what} needs a store open for writing; this one is read-only")


def solutions(answer: QueryAnswer) -> ox.QuerySolutions:
    """The solutions of a SELECT query's answer; StoreError when the query was an ASK or CONSTRUCT.

    >>> solutions(AnnotationStore.memory().query("SELECT ?x WHERE { VALUES ?x { 1 } }")).variables
    [<Variable value=x>]
    """
    if not isinstance(answer, ox.QuerySolutions):
        raise StoreError("expected SELECT solutions from the store (the query is an ASK, CONSTRUCT or DESCRIBE)")
    return answer


def batches_of(rows: ox.QuerySolutions) -> dict[str, BatchInfo]:
    """Batches by graph IRI, from the rows of :data:`BATCHES_QUERY`."""
    out: dict[str, BatchInfo] = {}
    for row in rows:
        g, digest = row["g"], row["digest"]
        if isinstance(g, ox.NamedNode) and isinstance(digest, ox.Literal):
            out[g.value] = BatchInfo(g.value, digest.value)
    return out


class DerivedCache:
    """What is derived from one store object's graphs (ontology models, graphs, indexes), kept with it.

    Every store of craftrdf carries one as ``derived``: the ontology layer's default cache
    (:data:`craftrdf.ontology.cache.DEFAULT_CACHE`) keeps its entries there, so they live exactly as
    long as the store object and no module holds them. :meth:`entries` empties the dictionary first
    when the store's batches changed (their digests are the fingerprint), so it never serves what the
    store no longer holds. Thread-safe.
    """

    def __init__(self) -> None:
        self._held: tuple[frozenset[tuple[str, str]], dict[object, object]] | None = None
        self._lock = threading.Lock()

    def entries(self, store: ReadableStore) -> dict[object, object]:
        """The entries derived from ``store`` (the store that owns this cache), emptied if its batches changed."""
        fingerprint = frozenset((b.graph, b.digest) for b in store.batches().values())
        with self._lock:
            if self._held is None or self._held[0] != fingerprint:
                self._held = (fingerprint, {})
            return self._held[1]


class AnnotationStore:
    """An Oxigraph store holding ontologies and annotation sets as batches of named graphs.

    Open with :meth:`open` (on disk) or :meth:`memory`; use as a context manager so the
    lock is released. ``raw`` is the underlying ``pyoxigraph.Store`` for queries.
    """

    def __init__(
        self, store: ox.Store, *, path: Path | None = None, lock: StoreLock | None = None, writable: bool = True
    ) -> None:
        self.raw = store
        self.path = path
        self.writable = writable
        self.derived = DerivedCache()
        self._lock = lock

    @classmethod
    def memory(cls) -> AnnotationStore:
        """A new in-memory store (for tests and the demo)."""
        return cls(ox.Store())

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, mode: Mode = "write", create: bool = True) -> AnnotationStore:
        """Open the on-disk store at ``path``: for writing (``mode="write"``, creating it unless ``create`` is
        False) or for reading.

        Opening for reading never writes (an absent or foreign directory is not created or
        touched), nor does a writer that may not ``create``. Raises StoreLockedError naming the
        processes that use the store when the lock is refused, StoreError (one line) when
        ``path`` holds no store and none may be made there, or it cannot be opened.
        """
        directory = Path(path)
        if mode == "read" or not create:
            if not is_store(directory):
                raise StoreError(no_store_message(directory))
        else:
            if directory.exists() and not directory.is_dir():
                raise StoreError(f"{directory} exists and is not a directory")
            if directory.is_dir() and any(directory.iterdir()) and not is_store(directory):
                raise StoreError(f"{directory} is a non-empty directory that is not an Oxigraph store")
            directory.mkdir(parents=True, exist_ok=True)
        lock = StoreLock(directory, mode)
        try:
            if mode == "write":
                remove_orphans(directory)
                store = ox.Store(str(directory))
            else:
                store = ox.Store.read_only(str(directory))
        except OSError as exc:
            lock.release()
            if "lock" in str(exc).lower():
                holders = lock_holders(directory / "LOCK")  # RocksDB's own lock file
                raise StoreLockedError(
                    f"store {directory} is locked by {describe_holders(holders or [])}, "
                    f"which did not open it through craftrdf: {exc}"
                ) from None
            raise StoreError(f"cannot open store {directory}: {exc}") from None
        return cls(store, path=directory, lock=lock, writable=mode == "write")

    def close(self) -> None:
        """Flush (when writable), close the files and release the lock; the object is unusable afterwards."""
        if not hasattr(self, "raw"):  # closed already
            return
        if self.writable and self.path is not None:
            try:
                self.raw.flush()
            except OSError as exc:  # pragma: no cover - disk failure
                logger.error("flush failed: %s", exc)
        if self.path is not None:
            # RocksDB closes only when the last reference to the Oxigraph store goes; a caller's
            # variable outliving the `with` kept it open, its background threads still writing
            # files while the directory was removed ("Directory not empty"). Dropped before the
            # lock is released, so the next opener finds it closed.
            del self.raw
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> AnnotationStore:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self.raw)

    def to_rdflib(self) -> rdflib.Dataset:
        """A read-only ``rdflib.Dataset`` over this store's Oxigraph store (oxrdflib; no copy, no lock taken).

        For rdflib-based tools such as pySHACL; writes through it raise StoreError. Needs
        the ``rdflib`` extra; see :mod:`craftrdf.store.rdflib_view`.
        """

        return read_only_dataset(self.raw)

    # -- batches ---------------------------------------------------------------------

    def batches(self) -> dict[str, BatchInfo]:
        """Every batch in the store, by graph IRI."""
        return batches_of(solutions(self.raw.query(BATCHES_QUERY)))

    def has_batch(self, graph: str, digest: str) -> bool:
        """True when ``graph`` is loaded from input with this digest."""
        g = ox.NamedNode(graph)
        return any(
            isinstance(q.object, ox.Literal) and q.object.value == digest
            for q in self.raw.quads_for_pattern(g, ox.NamedNode(CRAFT.digest), None, g)
        )

    def load_batch(self, graph: str, lines: Iterable[str], *, digest: str, companions: Sequence[str] = ()) -> int:
        """Write one batch atomically into ``graph``, replacing an older version; returns quads written.

        ``companions`` are graphs the same lines also fill (an ontology's derived relations
        graph): listed in the batch's manifest (``<graph> craft:companion <c>``), emptied
        before the load and removed with the batch, so they never outlive or mix with it.

        ``lines`` are N-Quads lines whose graph is ``graph``; the manifest is added here.
        A new graph is streamed into the bulk loader, so a batch need not fit in memory.
        An existing graph is replaced in one transaction once its replacement has been
        produced completely (spooled to a temporary file first): only the triples that
        differ are written, and at every moment the graph holds the old version or the
        new one. If producing the lines raises (bad input), nothing is written.
        Returns the number of lines written (duplicates among them are stored once),
        0 without writing when the same digest is already loaded.
        """
        if not self.writable:
            raise StoreError("store is open read-only")
        if self.has_batch(graph, digest):
            logger.info("batch %s already loaded, skipped", graph)
            return 0
        g = iri(graph)
        marks = [quad(g, iri(CRAFT.companion), iri(c), g) for c in companions]
        stream = NQuadsStream(itertools.chain(lines, marks), graph, digest)
        node = ox.NamedNode(graph)
        with stream:
            self._bulk_load(stream, node, graph, [*companions, *self._companions(node)])
        if stream.error is not None:  # pragma: no cover - the loader swallowed a reader error
            raise stream.error
        return stream.count

    def _companions(self, node: ox.NamedNode) -> list[str]:
        """The companion graphs a batch's manifest lists."""
        pattern = self.raw.quads_for_pattern(node, ox.NamedNode(CRAFT.companion), None, node)
        return [q.object.value for q in pattern if isinstance(q.object, ox.NamedNode)]

    def _drop(self, graphs: Iterable[str]) -> None:
        for graph in dict.fromkeys(graphs):
            node = ox.NamedNode(graph)
            if self.raw.contains_named_graph(node):
                self.raw.remove_graph(node)

    def _bulk_load(self, stream: NQuadsStream, node: ox.NamedNode, graph: str, companions: list[str]) -> None:
        try:
            if self.raw.contains_named_graph(node):
                with tempfile.TemporaryFile() as spool:
                    shutil.copyfileobj(stream, spool, 1 << 20)
                    self._replace(node, spool, companions)
            else:
                self._drop(companions)  # left over by a crash between two drops
                # a raw binary stream is what bulk_load reads; typeshed's IO[bytes] is the nominal type it names
                self.raw.bulk_load(cast(IO[bytes], stream), ox.RdfFormat.N_QUADS)
        except SyntaxError as exc:
            # Our own serialization is wrong: a bug, but say where.
            raise StoreError(f"internal error serializing batch {graph}: {exc}") from exc
        except MemoryError as exc:
            # the bulk loader refuses a line over its buffer (16 MiB) and leaves the store as it was
            if stream.error is not None:
                raise stream.error from None
            raise StoreError(f"batch {graph} not written, too large to load: {exc or 'out of memory'}") from None
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

    def _replace(self, node: ox.NamedNode, spool: IO[bytes], companions: Sequence[str]) -> None:
        """Turn graph ``node`` and its companions into the N-Quads in ``spool`` with one update (one transaction)."""
        try:
            replace_in_store(self.raw, node, spool, companions)
        except ValueError as exc:
            raise StoreError(f"internal error: {exc}") from None

    def remove_batch(self, graph: str) -> bool:
        """Remove a batch's graph in one transaction; True if it was there."""
        node = ox.NamedNode(graph)
        if not self.raw.contains_named_graph(node):
            return False
        drops = " ;\n".join(f"DROP SILENT GRAPH {ox.NamedNode(g)}" for g in [graph, *self._companions(node)])
        self.raw.update(drops)  # one update: the batch and its companions go together
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

        The same call on a :class:`~craftrdf.store.remote.RemoteStore` is answered over SPARQL, so
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
        custom_functions: CustomFunctions | None = None,
    ) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        """Run SPARQL with values bound by name (never pasted into the text).

        ``named_graphs`` restricts the dataset ``GRAPH ?g`` ranges over (as the SPARQL
        protocol's ``named-graph-uri`` does); by default every graph of the store.
        ``custom_functions`` are extension functions the query may call (pyoxigraph's).
        """
        subs: dict[ox.Variable, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple] = {
            ox.Variable(k): v for k, v in (substitutions or {}).items()
        }
        graphs: list[ox.NamedNode | ox.BlankNode] | None = (
            [ox.NamedNode(g) for g in named_graphs] if named_graphs is not None else None
        )
        return self.raw.query(
            sparql,
            substitutions=subs or None,
            prefixes=dict(prefixes) if prefixes else None,
            named_graphs=graphs,
            custom_functions=dict(custom_functions) if custom_functions else None,
        )
