"""The sweep: every configuration of a grid run on fixed texts and scored against gold, work shared.

Data path: :func:`prepare_inputs` reads from the store, once, everything a worker needs
(texts and their sentence spans, the dictionary's names, gold, the Wang index, CRAFT's
mapping data) into one picklable :class:`SweepInputs`; :func:`run_sweep` ships it to
the workers once (:meth:`SweepExecutor.share`), submits one task per dictionary
(:class:`~craftrdf.matching.sweeps.grid.RunGroup`: the distinct searches of one
normalization and synonym policy), and appends each task's rows to ``results.csv``
as it finishes. On a worker, a :class:`~craftrdf.matching.matcher.annotate.MatchingSession`
keeps tokens, normalized texts and dictionaries between tasks, so each normalization
is computed once per worker and each dictionary once.

The executor is passed in (:mod:`craftrdf.runtime.executors`: this process, a local process
pool, or a Dask cluster).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...analysis.evaluation.official_graph import OfficialWang
from ...analysis.rules import Mappings, apply_rules
from ...core.errors import ConfigError
from ...core.model import Annotation
from ...runtime.executors import InlineExecutor, SweepExecutor, installed
from ..matcher.annotate import MATCHER_VERSION, MatchingSession
from ..matcher.config import MatcherConfig, Synonyms, TextNormalization, grid
from ..matcher.dictionary import CACHE_VERSION, Dictionary, DictionaryTerm
from ..matcher.normalize import Normalizer
from .grid import RunGroup, plan
from .results import ResultsFile, SweepRow
from .score import GoldStandard

logger = logging.getLogger(__name__)

#: ``progress(done, total, label)``: configurations done (resumed ones included) of the grid's.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True, eq=False)
class SweepInputs:
    """Everything a worker needs to run and score configurations; picklable, shipped once.

    ``texts``/``sentences``/``gold`` are keyed by document id (every document scored is
    a key of ``gold``, possibly with no annotations); ``terms`` are the dictionary's
    names (:func:`~craftrdf.matching.matcher.dictionary.fetch_terms`); ``similarity`` the official
    scorer's Wang similarity over the set's ontology, which also decides ontology membership
    (None: exact classes only; see :class:`~craftrdf.matching.sweeps.score.GoldStandard`);
    ``rules`` CRAFT's post-processing rules applied to predictions with ``mappings``.
    ``documents`` says in words which documents these are (for reports); ``prefer_labels``
    builds dictionaries with :meth:`Dictionary.build`'s ``prefer_labels`` (not ConceptMapper's
    behaviour: a name that labels some of its classes keeps only those).
    """

    set_key: str
    texts: Mapping[str, str]
    sentences: Mapping[str, tuple[tuple[int, int], ...]]
    terms: tuple[DictionaryTerm, ...]
    gold: Mapping[str, tuple[Annotation, ...]]
    similarity: OfficialWang | None
    rules: tuple[str, ...] = ()
    mappings: Mappings | None = None
    documents: str = ""
    prefer_labels: bool = False
    token: str = ""

    def __post_init__(self) -> None:
        if set(self.texts) != set(self.gold):
            raise ConfigError("sweep inputs: texts and gold must cover the same documents")
        if not self.token:
            object.__setattr__(self, "token", _token(self))


def _token(inputs: SweepInputs) -> str:
    """A digest of what decides the rows (texts, names, gold, rules, matcher version)."""
    h = hashlib.sha256(MATCHER_VERSION.encode())
    # "official": rows scored by the official scorer; a results.csv of the older is_a-only SER is not resumed
    h.update(json.dumps([inputs.set_key, list(inputs.rules), inputs.prefer_labels, CACHE_VERSION, "official"]).encode())
    for d in sorted(inputs.texts):
        h.update(d.encode() + b"\0" + hashlib.sha256(inputs.texts[d].encode("utf-8")).digest())
        for a in sorted(inputs.gold[d], key=lambda a: (a.spans, a.class_id)):
            h.update(f"{a.class_id}|{[(s.start, s.end) for s in a.spans]}\n".encode())
    for t in inputs.terms:
        h.update(f"{t.class_id}\t{t.name}\t{t.scope}\n".encode())
    if inputs.mappings is not None:
        m = inputs.mappings
        h.update(json.dumps([sorted(m.unused), sorted(m.substitutes.items()), sorted(m.related.items())]).encode())
    return h.hexdigest()[:24]


# -- the worker side ----------------------------------------------------------------------


class WorkerState:
    """One worker's shared work for one :class:`SweepInputs`: the session and the gold standard."""

    def __init__(self, inputs: SweepInputs) -> None:
        self.inputs = inputs
        terms = list(inputs.terms)

        def build(normalization: TextNormalization, synonyms: Synonyms, normalizer: Normalizer) -> Dictionary:
            return Dictionary.build(
                terms, normalization, synonyms, normalizer=normalizer, prefer_labels=inputs.prefer_labels
            )

        self.session = MatchingSession(inputs.texts, build)
        self.session.use_sentences(inputs.sentences)
        self.gold = GoldStandard(inputs.set_key, inputs.gold, inputs.similarity)
        self.recent: list[TextNormalization] = []
        self.lock = threading.Lock()

    def keep_only_recent(self, normalization: TextNormalization, keep: int = 2) -> None:
        """Remember ``normalization`` as in use; free the normalized texts of older ones."""
        if normalization in self.recent:
            self.recent.remove(normalization)
        self.recent.append(normalization)
        while len(self.recent) > keep:
            self.session.release(self.recent.pop(0))


# Per-process cache of worker states, keyed by SweepInputs.token. A process-pool or Dask
# worker outlives a task, and keeping its session between tasks is the point of the
# sharing; only the newest inputs are kept so a long-lived worker does not accumulate them.
_STATES: dict[str, WorkerState] = {}
_STATES_LOCK = threading.Lock()


def _state(shared: SweepInputs | str) -> WorkerState:
    inputs = installed(shared) if isinstance(shared, str) else shared
    with _STATES_LOCK:
        hit = _STATES.get(inputs.token)
        if hit is None:
            _STATES.clear()
            hit = _STATES[inputs.token] = WorkerState(inputs)
        return hit


def worker_state(inputs: SweepInputs) -> WorkerState:
    """The worker state of ``inputs`` in this process: the one a sweep left behind, or a new one."""
    return _state(inputs)


def _forget(token: str) -> None:
    with _STATES_LOCK:
        _STATES.pop(token, None)


def config_predictions(state: WorkerState, config: MatcherConfig) -> dict[str, list[Annotation]]:
    out = state.session.annotate(config)
    inputs = state.inputs
    if inputs.rules and inputs.mappings is not None:
        flat = [a for d in sorted(out) for a in out[d]]
        kept, _ = apply_rules(flat, inputs.rules, inputs.mappings)
        out = {d: [] for d in out}
        for a in kept:
            out[a.document].append(a)
    return out


def run_group(shared: SweepInputs | str, group: RunGroup) -> list[SweepRow]:
    """Run and score each configuration of ``group.runs``; one row per run (a task of the sweep).

    ``shared`` is the :class:`SweepInputs` (or, in a :class:`LocalPool` worker, its
    token). ``seconds`` of a row is its search plus scoring; the group's one-time work
    (normalizing texts, building the dictionary) is logged, not charged to a row.
    """
    state = _state(shared)
    with state.lock:
        t = time.perf_counter()
        state.keep_only_recent(group.normalization)
        for d in state.inputs.texts:
            state.session.normalized(d, group.normalization)
        state.session.dictionary_for(group.normalization, group.synonyms)
        logger.info(
            "sweep %s: normalization and dictionary %s %s in %.2f s",
            state.inputs.set_key,
            group.normalization,
            group.synonyms.value,
            time.perf_counter() - t,
        )
        rows: list[SweepRow] = []
        for config in group.runs:
            t, cpu = time.perf_counter(), time.process_time()
            predictions = config_predictions(state, config)
            exact = state.gold.exact(predictions)
            ser = state.gold.ser(predictions).ser
            rows.append(
                SweepRow(config, exact.tp, exact.fp, exact.fn, ser, time.perf_counter() - t, time.process_time() - cpu)
            )
        return rows


# -- the sweep ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SweepResult:
    """What a sweep did: every row (grid order), how many were run now, resumed, distinct runs, seconds.

    ``seconds`` is the wall clock of the whole call; ``run_seconds``/``run_cpu_seconds`` add up
    the distinct runs made now (search and scoring, wall clock and processor time).
    """

    rows: tuple[SweepRow, ...]
    run_now: int
    resumed: int
    distinct_runs: int
    seconds: float
    results_path: Path | None
    run_seconds: float = 0.0
    run_cpu_seconds: float = 0.0


def _check_manifest(out_dir: Path, inputs: SweepInputs) -> None:
    path = out_dir / "sweep.json"
    info = {
        "set": inputs.set_key,
        "documents": inputs.documents,
        "token": inputs.token,
        "rules": list(inputs.rules),
        "prefer_labels": inputs.prefer_labels,
        "document_ids": sorted(inputs.texts),
    }
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        if old.get("token") != inputs.token:
            raise ConfigError(
                f"{out_dir} holds a sweep of other inputs (set {old.get('set')}, "
                f"{old.get('documents')}); give another --out or delete it"
            )
        return
    tmp = path.with_name(".sweep.json.tmp")
    tmp.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def run_sweep(
    inputs: SweepInputs,
    configs: Sequence[MatcherConfig] | None = None,
    *,
    executor: SweepExecutor | None = None,
    out_dir: Path | None = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Run every configuration of ``configs`` (default: the 576) on ``inputs``; rows in grid order.

    With ``out_dir``, rows are appended to ``out_dir/results.csv`` as tasks finish and a
    rerun skips configurations already there (``sweep.json`` records the inputs' digest:
    resuming with other inputs raises ConfigError). Configurations that behave alike are
    run once (:func:`~craftrdf.matching.sweeps.grid.plan`). ``executor`` defaults to
    :class:`InlineExecutor`; ``progress(done, total, label)`` is called as rows arrive.
    """
    configs = tuple(configs) if configs is not None else grid()
    executor = executor or InlineExecutor()
    start = time.perf_counter()
    results: ResultsFile | None = None
    done: dict[MatcherConfig, SweepRow] = {}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        _check_manifest(out_dir, inputs)
        results = ResultsFile(out_dir / "results.csv")
        wanted = set(configs)
        done = {c: r for c, r in results.rows.items() if c in wanted}
    resumed = len(done)
    todo = [c for c in configs if c not in done]
    groups = plan(todo)
    total = len(configs)
    if progress is not None:
        progress(len(done), total, inputs.set_key)
    run_now = 0
    run_seconds = run_cpu = 0.0
    try:
        if groups:
            shared = executor.share(inputs)
            futures = [executor.submit(run_group, shared, g) for g in groups]
            by_future = dict(zip(futures, groups, strict=True))
            for f in executor.as_completed(futures):
                group = by_future[f]
                rows: list[SweepRow] = []
                for row in f.result():
                    run_seconds += row.seconds
                    run_cpu += row.cpu_seconds
                    same = group.stands_for[group.runs.index(row.config)]
                    rows.extend(dataclasses.replace(row, config=c) for c in same)
                if results is not None:
                    results.append(rows)
                for r in rows:
                    done[r.config] = r
                run_now += len(rows)
                if progress is not None:
                    progress(len(done), total, inputs.set_key)
    finally:
        if results is not None:
            results.close()
        if not isinstance(executor, InlineExecutor):
            _forget(inputs.token)
        # in this process the state stays (only the newest is kept): a term filter or a report run
        # on the same documents reuses its tokens, normalized texts and dictionaries
    ordered = tuple(done[c] for c in configs)
    return SweepResult(
        ordered,
        run_now,
        resumed,
        sum(len(g.runs) for g in groups),
        time.perf_counter() - start,
        results.path if results is not None else None,
        run_seconds,
        run_cpu,
    )
