"""Train on some splits, score on others: the trained matcher's row in ``craftrdf reproduce`` section 4.

The score is the Shared Task's slot error rate as ``craftrdf evaluate`` computes it
(official pairing, Jaccard boundaries, Wang over the ontology's OWL graph: :mod:`.scoring`),
or with exact class matches only for a set the store has no ontology for. The false
positives and negatives that cost most are counted by text and class, to say where a set
falls short.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.context import RunContext
from ...core.model import Annotation
from ...querying.sets import SetRef
from ...querying.webanno import document_texts
from ...runtime.executors import InlineExecutor, SweepExecutor, installed
from ...store.local import ReadableStore
from ..matcher.annotate import MatchingSession
from ..matcher.config import Synonyms, TextNormalization
from ..matcher.dictionary import Dictionary, load_dictionary
from .data import Corpus, SetData, parse_on, read_corpora, read_set, split_documents
from .select import OntologySource, comparer
from .train import TrainOptions, TrainReport, score_read, train_read

logger = logging.getLogger(__name__)

#: (text as written, class, count)
Costly = tuple[tuple[str, str, int], ...]


@dataclass(frozen=True, slots=True)
class TestScore:
    """A set trained on some splits and scored on others."""

    set_key: str
    ser: float
    exact_only: bool
    train: TrainReport
    false_positives: Costly
    false_negatives: Costly
    seconds: float


def costly(
    corpus: Corpus, predictions: Mapping[str, Sequence[Annotation]], set_key: str, top: int = 5
) -> tuple[Costly, Costly]:
    """The most frequent false positives and negatives (exact spans, class as the scorer compares it)."""
    compare = comparer(set_key)
    fp: Counter[tuple[str, str]] = Counter()
    fn: Counter[tuple[str, str]] = Counter()
    for doc, gold_anns in corpus.gold.items():
        text = corpus.texts[doc]
        gold = {(tuple(sorted(a.spans)), compare(a.class_id)) for a in gold_anns}
        pred = {(tuple(sorted(a.spans)), compare(a.class_id)) for a in predictions.get(doc, ())}
        for side, counter in ((pred - gold, fp), (gold - pred, fn)):
            for spans, cls in side:
                counter[(" ... ".join(text[s.start : s.end] for s in spans), cls)] += 1
    # ties by text and class: set order depends on the process's string hashing
    return (
        tuple((t, c, n) for (t, c), n in sorted(fp.items(), key=lambda x: (-x[1], x[0]))[:top]),
        tuple((t, c, n) for (t, c), n in sorted(fn.items(), key=lambda x: (-x[1], x[0]))[:top]),
    )


class _StoreDictionaries(Mapping[tuple[TextNormalization, Synonyms], Dictionary]):
    """A set's dictionaries read from the store on each use (none kept): training in this process.

    The full selection tries several normalizations on big ontologies; reading all of them
    up front would keep them all in memory at once.
    """

    def __init__(
        self,
        store: ReadableStore,
        ref: SetRef,
        ctx: RunContext,
        keys: frozenset[tuple[TextNormalization, Synonyms]],
    ) -> None:
        self._read = (store, ref, ctx)
        self._keys = keys

    def __getitem__(self, key: tuple[TextNormalization, Synonyms]) -> Dictionary:
        store, ref, ctx = self._read
        return load_dictionary(store, ref, key[0], key[1], ctx)

    def __iter__(self) -> Iterator[tuple[TextNormalization, Synonyms]]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


@dataclass(frozen=True, slots=True, eq=False)
class _SetInputs:
    """One set as its training task needs it: read from the store beforehand."""

    data: SetData
    train: Corpus
    test: Corpus
    #: The set's ontology dictionary per (normalization, synonyms) of the selection's configurations.
    dictionaries: Mapping[tuple[TextNormalization, Synonyms], Dictionary]


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """Train on the documents of ``on``, score on those of ``test``; models in ``out_dir/<KEY>`` when given."""

    on: str = "train,dev"
    test: str = "test"
    options: TrainOptions = field(default_factory=TrainOptions)
    out_dir: Path | None = None


@dataclass(frozen=True, slots=True, eq=False)
class TrainInputs:
    """Everything the sets' training and scoring need, read from the store once (an executor's payload).

    The texts are shared by every set's corpora (pickled once). ``sessions`` starts empty and
    is filled in the process that runs the tasks: a worker keeps one matching session for all
    the sets it trains, so each text is split and normalized once per process, not once per set.
    """

    token: str
    texts: Mapping[str, str]
    sets: Mapping[str, _SetInputs]
    train_splits: tuple[str, ...]
    options: TrainOptions
    cache_dir: Path | None
    out_dir: Path | None
    sessions: dict[str, MatchingSession] = field(default_factory=dict)

    def session(self) -> MatchingSession:
        """This process's matching session over the texts (made on first use)."""
        hit = self.sessions.get("s")
        if hit is None:  # setdefault: two threads of a Dask worker asking at once get one session
            hit = self.sessions.setdefault("s", MatchingSession(self.texts, {}, cache_dir=self.cache_dir))
        return hit


def _read_inputs(
    store: ReadableStore,
    keys: Sequence[str],
    ctx: RunContext,
    plan: SplitPlan,
    *,
    ship: bool,
    fetched: Mapping[str, Sequence[Annotation]] | None = None,
) -> TrainInputs:
    """Read every set's names, scorer, corpora and dictionaries from the store (sets without gold left out).

    ``ship``: the inputs go to other processes, so the dictionaries are read now (else on use).
    ``fetched``: sets' annotations read beforehand, by set key as stored (the others are read here).
    """
    cache_dir = ctx.cache_dir
    train_splits, test_splits = parse_on(plan.on), parse_on(plan.test)
    train_docs, test_docs = split_documents(store, train_splits), split_documents(store, test_splits)
    texts = document_texts(store, train_docs + test_docs)
    wanted = {(c.normalization, c.synonyms) for c in plan.options.grid.configs}
    sets: dict[str, _SetInputs] = {}
    for key in keys:
        data = read_set(store, key, ctx)
        read = fetched.get(data.key) if fetched is not None else None
        train, test = read_corpora(
            store, data.key, [train_docs, test_docs], curies=ctx.curies, texts=texts, annotations=read
        )
        if train.annotations == 0:
            logger.warning("not trained: set %s has no gold annotations in split %s", data.key, ",".join(train_splits))
            continue
        dictionaries: Mapping[tuple[TextNormalization, Synonyms], Dictionary] = {}
        if data.terms and ship:
            dictionaries = {(n, s): load_dictionary(store, data.ref, n, s, ctx) for n, s in sorted(wanted, key=str)}
        elif data.terms:  # in this process: loaded when the selection asks, as many alive as it keeps
            dictionaries = _StoreDictionaries(store, data.ref, ctx, frozenset(wanted))
        # the corpora point at the shared texts, so a payload carries each text once
        sets[data.key] = _SetInputs(data, train, test, dictionaries)
    quick = plan.options.quick
    digest = hashlib.sha256(repr((sorted(texts), sorted(sets), train_splits, quick)).encode()).hexdigest()[:16]
    return TrainInputs(f"train-{digest}", texts, sets, train_splits, plan.options, cache_dir, plan.out_dir)


def _source_of(
    dictionaries: Mapping[tuple[TextNormalization, Synonyms], Dictionary],
) -> OntologySource | None:
    """The ontology source of a set read beforehand (None: the set has no ontology)."""
    if not dictionaries:
        return None

    def source(normalization: TextNormalization, synonyms: Synonyms) -> Dictionary:
        return dictionaries[(normalization, synonyms)]

    return source


def train_one(shared: TrainInputs | str, key: str) -> TestScore:
    """(A task) train set ``key`` of the shared inputs and score it on its test corpus."""
    inputs: TrainInputs = installed(shared) if isinstance(shared, str) else shared
    t = time.perf_counter()
    s = inputs.sets[key]
    source = _source_of(s.dictionaries)
    session = inputs.session()
    report, model = train_read(
        s.data,
        s.train,
        source,
        session,
        splits=inputs.train_splits,
        out=inputs.out_dir / key if inputs.out_dir is not None else None,
        options=inputs.options,
    )
    ser, predictions = score_read(s.data, model, s.test, source, session)
    fp, fn = costly(s.test, predictions, key)
    logger.info("trained %s: test SER %.3f in %.1f s", key, ser, time.perf_counter() - t)
    return TestScore(key, ser, s.data.exact_only, report, fp, fn, time.perf_counter() - t)


def train_and_test(
    store: ReadableStore, keys: Sequence[str], ctx: RunContext, plan: SplitPlan = SplitPlan()
) -> dict[str, TestScore]:
    """Train each set on ``plan.on`` and score it on ``plan.test``; models in ``plan.out_dir/<KEY>`` when given.

    Everything is read from the store first, in this process; the sets are then trained on
    ``ctx.executor`` (None: one at a time in this process), one task per set, with the same
    results either way. A set with no gold annotations in ``plan.on`` is left out (logged).
    """
    return collect_trained(start_training(store, keys, ctx, plan))


@dataclass(frozen=True, slots=True, eq=False)
class Training:
    """Training tasks started on an executor (:func:`start_training`); :func:`collect_trained` waits for them."""

    executor: SweepExecutor
    futures: tuple[tuple[str, Any], ...]


def start_training(
    store: ReadableStore,
    keys: Sequence[str],
    ctx: RunContext,
    plan: SplitPlan = SplitPlan(),
    *,
    fetched: Mapping[str, Sequence[Annotation]] | None = None,
) -> Training:
    """Read the sets from the store and submit one training task per set to ``ctx.executor``.

    The caller may do other work (in this process) before :func:`collect_trained`; with no
    executor the tasks run, one at a time, when collected. Tasks are submitted largest set
    first (most gold annotations in ``plan.on``); the results keep the order of ``keys``. ``fetched``: sets'
    annotations already read (:func:`~craftrdf.querying.webanno.fetch_annotations`), by set key as stored; the
    others are read from the store.
    """
    inputs = _read_inputs(store, keys, ctx, plan, ship=ctx.executor is not None, fetched=fetched)
    executor: SweepExecutor = ctx.executor or InlineExecutor()
    shared = executor.share(inputs)
    # the sets with the most gold first (their training takes longest): on a pool, the last task to start is
    # then a short one, so the workers finish close together instead of one training a large set alone
    biggest = sorted(inputs.sets, key=lambda k: -inputs.sets[k].train.annotations)
    started = {k: executor.submit(train_one, shared, k) for k in biggest}
    return Training(executor, tuple((k, started[k]) for k in inputs.sets))


def collect_trained(training: Training) -> dict[str, TestScore]:
    """Wait for the tasks of :func:`start_training`; the scores in the order the sets were given."""
    futures = [f for _, f in training.futures]
    for _ in training.executor.as_completed(futures):
        pass
    return {k: f.result() for k, f in training.futures}
