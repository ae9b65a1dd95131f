"""Annotating a corpus of any size: documents streamed through an executor in batches, results written as they come.

The job (:func:`annotate_stream`) reads documents lazily (:func:`~.stream_io.iter_sources`),
groups them in batches of ``batch_size`` and submits each batch to an executor of
:mod:`craftrdf.runtime.executors` (this process, a :class:`~craftrdf.runtime.executors.LocalPool`, or a
Dask cluster through :class:`~craftrdf.runtime.executors.DaskExecutor`), never more than ``in_flight``
at a time. The annotator is shared with the workers once (``executor.share``: installed in
each pool worker, broadcast to each Dask worker); a task receives a batch's texts and returns,
per document, its BioNLP text and its N-Quads, rendered on the worker. As each batch
completes the client appends its quads to the store (one transaction), writes its BioNLP
files, then records it in ``progress.jsonl``: memory on both sides is bounded by the batches
in flight, whatever the corpus size (the client also keeps the finished document ids).

A document that cannot be read (missing file, not UTF-8) or that makes the annotator raise
is written to ``failures.tsv`` with a log line, and the others go on; a batch whose task
dies (a worker lost) is retried one document at a time. A rerun with the same output folder
resumes: documents listed in the progress file are skipped, and a batch cut short by a kill
is redone (its files and quads are the same again: annotation IRIs depend on set, document
and annotation number only).

The annotator is pluggable: anything picklable with a ``token`` and a
``__call__(document, text) -> list[Annotation]`` (:class:`DocumentAnnotator`);
:class:`MatcherAnnotator` is the dictionary matcher's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...core.context import RunContext
from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.iris import mapping_graph, set_iri
from ...core.model import Annotation
from ...ingest.bionlp import write_bionlp
from ...querying.indexes import update_indexes
from ...querying.sets import SetRef, resolve_set
from ...querying.webanno import annotation_nquads
from ...runtime.executors import InlineExecutor, SweepExecutor, installed
from ...store.local import ReadableStore
from .annotate import MATCHER_VERSION, Matcher
from .config import MatcherConfig
from .dictionary import Dictionary, load_dictionary
from .run import check_run_name, run_nquads
from .stream_io import (
    AppendableStore,
    DocumentFailure,
    ProgressFile,
    Source,
    StoreTarget,
    iter_sources,
    read_source,
    write_batch_files,
)

logger = logging.getLogger(__name__)


class DocumentAnnotator(Protocol):
    """Annotates one document: picklable (it is shipped to the workers once), named by ``token``.

    ``token`` must change whenever the output for a given text would (it names the run in
    the progress file and the store); the call must be safe from several threads.
    """

    @property
    def token(self) -> str: ...

    def __call__(self, document: str, text: str) -> list[Annotation]: ...


class MatcherAnnotator:
    """The dictionary matcher as a :class:`DocumentAnnotator`: one dictionary, one configuration.

    Pickles as the dictionary and the configuration; each process builds its search
    structures (:class:`~craftrdf.matching.matcher.annotate.Matcher`) on its first document.

    >>> from craftrdf.matching.matcher.dictionary import terms_from_names
    >>> from craftrdf.matching.matcher.config import MatcherConfig
    >>> c = MatcherConfig()
    >>> d = Dictionary.build(terms_from_names({"UBERON:0000955": "brain"}), c.normalization, c.synonyms)
    >>> [(a.class_id, a.text) for a in MatcherAnnotator(d, c)("d1", "The brain.")]
    [('UBERON:0000955', 'brain')]
    """

    def __init__(self, dictionary: Dictionary, config: MatcherConfig) -> None:
        self.dictionary = dictionary
        self.config = config
        h = hashlib.sha256(json.dumps([MATCHER_VERSION, config.label()]).encode())
        for key in sorted(dictionary.entries):
            h.update(json.dumps([list(key), sorted(dictionary.entries[key])]).encode())
        self.token = "matcher-" + h.hexdigest()[:24]
        self._matcher: Matcher | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"dictionary": self.dictionary, "config": self.config, "token": self.token}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.dictionary = state["dictionary"]
        self.config = state["config"]
        self.token = state["token"]
        self._matcher = None
        self._lock = threading.Lock()

    def matcher(self) -> Matcher:
        """The matcher of this process, built on first use."""
        with self._lock:
            if self._matcher is None:
                self._matcher = Matcher(self.dictionary, self.config)
            return self._matcher

    def __call__(self, document: str, text: str) -> list[Annotation]:
        """The annotations of one text (ids ``M1``, ``M2``... in text order)."""
        return self.matcher().annotate(text, document=document)


@dataclass(frozen=True, slots=True)
class StreamPayload:
    """What the workers receive once: the annotator, and the set key its quads are written for (or None)."""

    annotator: DocumentAnnotator
    set_key: str | None
    token: str


@dataclass(frozen=True, slots=True)
class Batch:
    """One task: numbered, with its documents as (id, source file, text)."""

    number: int
    documents: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class DocumentOutput:
    """One annotated document: its annotation count, its BioNLP text, its N-Quads (one string) and their count."""

    document: str
    annotations: int
    bionlp: str
    nquads: str
    quads: int


@dataclass(frozen=True, slots=True)
class BatchResult:
    """What a task returns: the documents annotated and those that failed."""

    number: int
    outputs: tuple[DocumentOutput, ...]
    failures: tuple[DocumentFailure, ...]


def annotate_batch(shared: StreamPayload | str, batch: Batch) -> BatchResult:
    """Annotate a batch and render its outputs (a task; runs on a worker).

    ``shared`` is the payload, or in a :class:`~craftrdf.runtime.executors.LocalPool` worker its token.
    An exception while annotating or rendering one document becomes a failure of that
    document only.
    """
    payload: StreamPayload = installed(shared) if isinstance(shared, str) else shared
    curies = CurieMap()
    outputs: list[DocumentOutput] = []
    failures: list[DocumentFailure] = []
    for doc, source, text in batch.documents:
        try:
            anns = payload.annotator(doc, text)
            bionlp = write_bionlp(anns, text=text)
            lines: list[str] = []
            if payload.set_key is not None:
                lines = list(annotation_nquads(anns, set_key=payload.set_key, curies=curies))
        except Exception as exc:  # one document's failure must not lose the others
            failures.append(DocumentFailure(doc, source, "annotate", f"{type(exc).__name__}: {exc}"))
            continue
        outputs.append(DocumentOutput(doc, len(anns), bionlp, "\n".join(lines), len(lines)))
    return BatchResult(batch.number, tuple(outputs), tuple(failures))


@dataclass(frozen=True, slots=True)
class Batching:
    """How a stream is cut: ``batch_size`` documents a task, at most ``in_flight`` tasks not yet written.

    ``restart`` starts afresh instead of resuming the output folder's run.
    """

    batch_size: int = 32
    in_flight: int = 4
    restart: bool = False


@dataclass(frozen=True, slots=True)
class StreamPlan:
    """What a streamed run reads and where it writes.

    ``inputs``: files or folders of texts (``split``: only the documents of that CRAFT split);
    ``out_dir``: the BioNLP folder (and the run's journal, to resume); ``into_store``: the set graph
    the annotations are appended to, batch by batch (None: the folder only); ``batching``: how the
    stream is cut.
    """

    inputs: Sequence[Path]
    out_dir: Path
    split: str | None = None
    into_store: str | None = None
    batching: Batching = Batching()


@dataclass(frozen=True, slots=True)
class StreamReport:
    """What :func:`annotate_stream` did in this call (``resumed``: documents a previous call had finished)."""

    documents: int
    failed: int
    resumed: int
    annotations: int
    quads: int
    batches: int
    seconds: float
    out_dir: Path
    graph: str | None
    store_seconds: float = 0.0
    files_seconds: float = 0.0


@dataclass
class _Tally:
    documents: int = 0
    failed: int = 0
    annotations: int = 0
    quads: int = 0
    batches: int = 0
    succeeded: bool = False
    store_seconds: float = 0.0
    files_seconds: float = 0.0
    appends: int = 0
    compacted_at: int = 0


#: Appends before the first compaction of the store; each later one waits for twice as many, so
#: compacting costs at most about twice the final compaction over the whole run (it grows with the
#: store), while the files of uncompacted appends, which every read must visit, stay few.
FIRST_COMPACTION = 16


def _batches(
    sources: Iterable[Source], finished: set[str], batch_size: int, start: int
) -> Iterator[tuple[Batch, list[DocumentFailure]]]:
    """Batches of readable documents not finished yet, each with the read failures met while filling it."""
    seen: set[str] = set()
    docs: list[tuple[str, str, str]] = []
    failed: list[DocumentFailure] = []
    number = start
    for s in sources:
        if s.document in finished:
            continue
        if s.document in seen:
            failed.append(
                DocumentFailure(s.document, str(s.path), "input", "document id given twice; this one skipped")
            )
            continue
        seen.add(s.document)
        text = read_source(s)
        if isinstance(text, DocumentFailure):
            failed.append(text)
            continue
        docs.append((s.document, str(s.path), text))
        if len(docs) >= batch_size:
            yield Batch(number, tuple(docs)), failed
            number += 1
            docs, failed = [], []
    if docs or failed:
        yield Batch(number, tuple(docs)), failed


class _Job:
    """The client side of one streamed run: submits, collects, writes, commits."""

    def __init__(
        self, executor: SweepExecutor, shared: object, progress: ProgressFile, out_dir: Path, target: StoreTarget | None
    ) -> None:
        self.executor = executor
        self.shared = shared
        self.progress = progress
        self.out_dir = out_dir
        self.target = target
        self.tally = _Tally()

    def result_of(self, future: Any, batch: Batch) -> BatchResult:
        """The batch's result; when its task died, the batch again one document at a time."""
        try:
            result: BatchResult = future.result()
            return result
        except Exception as exc:  # a lost worker or a task that could not run: retry each document alone
            if len(batch.documents) == 1:
                if not self.tally.succeeded:  # nothing has worked yet: a systemic error, not one document's
                    raise
                doc, source, _ = batch.documents[0]
                return BatchResult(batch.number, (), (DocumentFailure(doc, source, "worker", repr(exc)),))
            logger.warning("batch %d failed (%r); retrying its documents one at a time", batch.number, exc)
        outputs: list[DocumentOutput] = []
        failures: list[DocumentFailure] = []
        for d in batch.documents:
            single = Batch(batch.number, (d,))
            r = self.result_of(self.executor.submit(annotate_batch, self.shared, single), single)
            outputs.extend(r.outputs)
            failures.extend(r.failures)
        return BatchResult(batch.number, tuple(outputs), tuple(failures))

    def compact(self) -> None:
        """Compact the store now (reads over many appended batches are slow until then)."""
        if self.target is not None and self.tally.appends > self.tally.compacted_at:
            logger.info("compacting the store after %d appended batches", self.tally.appends)
            self.target.optimize()
            self.tally.compacted_at = self.tally.appends

    def finish(self, result: BatchResult, read_failures: Sequence[DocumentFailure]) -> None:
        """Write a batch's outputs (store, then files), then commit it in the progress file."""
        failures = [*read_failures, *result.failures]
        for f in failures:
            logger.warning("document %s (%s) skipped, %s failed: %s", f.document, f.source, f.stage, f.message)
        if self.target is not None:
            lines = [o.nquads for o in result.outputs if o.nquads]
            if lines:
                started = time.perf_counter()
                self.target.append(lines)
                self.tally.appends += 1
                if self.tally.appends >= max(FIRST_COMPACTION, 2 * self.tally.compacted_at):
                    self.compact()
                self.tally.store_seconds += time.perf_counter() - started
                self.tally.quads += sum(o.quads for o in result.outputs)
        started = time.perf_counter()
        write_batch_files(self.out_dir, ((o.document, o.bionlp) for o in result.outputs))
        self.progress.commit([o.document for o in result.outputs], failures)
        t = self.tally
        t.files_seconds += time.perf_counter() - started
        t.documents += len(result.outputs)
        t.failed += len(failures)
        t.annotations += sum(o.annotations for o in result.outputs)
        t.batches += 1
        t.succeeded = t.succeeded or bool(result.outputs)
        logger.info("batch %d: %d documents, %d failed", result.number, len(result.outputs), len(failures))


def annotate_stream(
    sources: Iterable[Source],
    annotator: DocumentAnnotator,
    out_dir: Path,
    *,
    executor: SweepExecutor | None = None,
    target: StoreTarget | None = None,
    batching: Batching = Batching(),
) -> StreamReport:
    """Annotate ``sources`` with ``annotator`` in batches on ``executor``; BioNLP files (and quads) as they come.

    ``out_dir`` gets ``<document>.bionlp``, ``progress.jsonl`` and ``failures.tsv``; rerun
    with the same folder to resume (``batching.restart``: start afresh). ``target`` appends each
    batch's quads to its set graph. ``batching.in_flight`` bounds the batches submitted and not yet
    written. ConfigError when the folder holds another
    run's progress; a task error before any document succeeded is raised as is.
    """
    batch_size, in_flight, restart = batching.batch_size, batching.in_flight, batching.restart
    if batch_size < 1 or in_flight < 1:
        raise ConfigError(f"batch size and batches in flight must be positive (got {batch_size}, {in_flight})")
    executor = executor or InlineExecutor()
    t0 = time.perf_counter()
    run = hashlib.sha256(json.dumps([annotator.token, target.digest if target else None]).encode()).hexdigest()
    progress = ProgressFile(out_dir, run[:32], restart=restart)
    resumed = len(progress.finished)
    try:
        if target is not None:
            target.start(resume=progress.resumed)
        shared = executor.share(StreamPayload(annotator, target.key if target else None, "stream-" + run[:24]))
        job = _Job(executor, shared, progress, out_dir, target)
        pending: list[tuple[Any, Batch, list[DocumentFailure]]] = []
        for batch, read_failures in _batches(sources, progress.finished, batch_size, 0):
            pending.append((executor.submit(annotate_batch, shared, batch), batch, read_failures))
            if len(pending) >= in_flight:
                _finish_first(job, pending)
        while pending:
            _finish_first(job, pending)
        started = time.perf_counter()
        job.compact()
        job.tally.store_seconds += time.perf_counter() - started
    finally:
        progress.close()
    t = job.tally
    return StreamReport(
        t.documents,
        t.failed,
        resumed,
        t.annotations,
        t.quads,
        t.batches,
        time.perf_counter() - t0,
        out_dir,
        target.graph if target else None,
        t.store_seconds,
        t.files_seconds,
    )


def _finish_first(job: _Job, pending: list[tuple[Any, Batch, list[DocumentFailure]]]) -> None:
    """Wait for the first of ``pending`` to complete, write it and drop it (its future released)."""
    futures = [p[0] for p in pending]
    first = next(iter(job.executor.as_completed(futures)))
    i = next(i for i, f in enumerate(futures) if f is first)
    _, batch, read_failures = pending.pop(i)
    job.finish(job.result_of(first, batch), read_failures)


def _store_target(
    store: AppendableStore, ref: SetRef, name: str, config: MatcherConfig, token: str, curies: CurieMap
) -> StoreTarget:
    """Where a streamed run named ``name`` goes in ``store``: its set graph, header and digest."""
    ontology = ref.require_ontology()
    batch = store.batches().get(ontology)
    mgraph = mapping_graph(ref.key)
    header = run_nquads(
        name,
        config=config,
        dictionary=ref,
        mappings=mgraph if mgraph in store.batches() else None,
        annotations=(),
        curies=curies,
    )
    digest = hashlib.sha256(
        json.dumps(["stream", name, ref.key, token, ontology, batch.digest if batch else ""]).encode()
    ).hexdigest()
    return StoreTarget(store, set_iri(name), tuple(header), digest, name)


def run_annotation_stream(
    store: ReadableStore,
    set_key: str,
    config: MatcherConfig,
    plan: StreamPlan,
    ctx: RunContext,
    *,
    annotator: DocumentAnnotator | None = None,
) -> StreamReport:
    """``craftrdf annotate --stream/--scheduler``: the matcher (or ``annotator``) over ``plan.inputs``, streamed.

    The batches run on ``ctx.executor`` (None: this process). The dictionary of set ``set_key``'s
    ontology is read once on the client (``ctx.cache_dir`` as for
    :func:`~craftrdf.matching.matcher.annotate.run_annotation`) unless ``annotator`` is given (a trained
    model, say). ``plan.into_store`` names the set graph the annotations are appended to, batch by batch (the
    store must be an :class:`~craftrdf.matching.matcher.stream_io.AppendableStore`: a local store open for
    writing or a remote one with a Graph Store URL); the view indexes are made again at the end (reporting
    to ``ctx.progress``). Raises ConfigError
    as ``run_annotation`` does.
    """
    registry, curies = ctx.registry, ctx.curies
    into_store = plan.into_store
    ref = resolve_set(store, set_key)
    if into_store is not None:
        check_run_name(store, into_store, registry)
        if not (store.writable and isinstance(store, AppendableStore)):
            raise ConfigError(
                f"--into-store {into_store}: streaming needs a local store open for writing, "
                "or an endpoint with its Graph Store Protocol URL"
            )
    sources = iter_sources(plan.inputs, split=plan.split)
    if annotator is None:
        dictionary = load_dictionary(store, ref, config.normalization, config.synonyms, ctx)
        annotator = MatcherAnnotator(dictionary, config)
    target = None
    if into_store is not None:
        assert isinstance(store, AppendableStore)
        target = _store_target(store, ref, into_store, config, annotator.token, curies)
    report = annotate_stream(
        sources, annotator, plan.out_dir, executor=ctx.executor, target=target, batching=plan.batching
    )
    if into_store is not None:
        # the run's set grew batch by batch under one digest, which cannot tell its indexes are stale
        update_indexes(store, changed=[into_store], progress=ctx.progress)
    return report
