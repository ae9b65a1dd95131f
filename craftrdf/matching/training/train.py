"""Training a matcher from gold (:func:`train_set`) and annotating with it (:func:`annotate_with_model`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...core.bulk import no_cycle_collection
from ...core.context import RunContext
from ...core.errors import ConfigError
from ...core.model import Annotation
from ...ingest.ids import read_ids
from ...querying.sets import resolve_set
from ...querying.webanno import document_splits
from ...store.local import ReadableStore, require_writable
from ..matcher.annotate import MatchingSession
from ..matcher.config import Synonyms, TextNormalization
from ..matcher.dictionary import Dictionary, load_dictionary
from ..matcher.run import check_run_name, write_bionlp_files
from ..matcher.search import SearchIndex
from .data import Corpus, SetData, parse_on, read_corpus, read_set, split_documents
from .decide import CONFIDENCES, choose_learned, with_confidence, with_rules, write_confidences
from .engine import choose_options, find_candidates, resolve
from .family import family_candidates, family_index
from .features import option_rows
from .folder import FORMAT, VERSION, Model, NameRow, TermRow, read_model, write_model
from .learn import LearnedSelection, select_learned
from .names import GoldNames
from .rules import Rules
from .select import (
    FoldView,
    Grid,
    OntologySource,
    Prepared,
    Selection,
    decide,
    select,
    shared_task_ser,
)
from .stored import write_model_run
from .symbols import symbol_candidates

logger = logging.getLogger(__name__)


class NoGoldError(ConfigError):
    """The set has no gold annotations in the splits asked for: nothing to learn."""


@dataclass(frozen=True, slots=True)
class TrainOptions:
    """How a set is trained: ``quick`` selects among fewer configurations and decisions; ``folds`` of documents."""

    quick: bool = False
    folds: int = 5

    @property
    def grid(self) -> Grid:
        """What the selection tries."""
        return Grid.of(self.quick, self.folds)


@dataclass(frozen=True, slots=True)
class TrainReport:
    """What :func:`train_set` chose and wrote."""

    set_key: str
    out: Path | None
    documents: int
    gold: int
    names: int
    selection: Selection
    discontinuous_gold: int
    discontinuous_recovered: int
    discontinuous_predicted: int
    exact_only: bool
    seconds: float
    #: the learned decision and its cross-validated scores (None: it could not be fitted)
    learned: LearnedSelection | None = None

    @property
    def cv_ser(self) -> float:
        """The cross-validated slot error rate of the decision the model uses."""
        if self.learned is not None and self.learned.chosen:
            return self.learned.cv_ser
        return self.selection.cv_ser


def _ontology_source(store: ReadableStore, data: SetData, ctx: RunContext) -> OntologySource | None:
    if not data.terms:
        return None

    def source(normalization: TextNormalization, synonyms: Synonyms) -> Dictionary:
        return load_dictionary(store, data.ref, normalization, synonyms, ctx)

    return source


def _coordination_counts(prepared: Prepared, corpus: Corpus, selection: Selection) -> tuple[int, int, int]:
    """Gold discontinuous annotations, how many the coordination rule recovers, how many it predicts."""
    pairs = decide(prepared, sorted(corpus.texts), selection.decision, Rules(coordination=True))
    gold = {
        (d, tuple(sorted(a.spans)), a.class_id) for d, anns in corpus.gold.items() for a in anns if len(a.spans) > 1
    }
    predicted = {(d, tuple(sorted(s)), c) for d, kept in pairs.items() for s, c in kept if len(s) > 1}
    return len(gold), len(gold & predicted), len(predicted)


def _meta(
    data: SetData,
    splits: Sequence[str],
    corpus: Corpus,
    selection: Selection,
    options: TrainOptions,
    coordination: tuple[int, int, int],
    learned: LearnedSelection | None = None,
) -> dict[str, Any]:
    """model.json's content (without the tables' digests, which :func:`write_model` adds)."""
    dg, dr, dp = coordination
    return {
        "format": FORMAT,
        "version": VERSION,
        "set": data.key,
        "module": data.ref.module,
        "variant": data.ref.variant,
        "ontology": data.ref.ontology if data.terms else None,
        "ontology_terms_digest": data.terms_digest or None,
        "scoring": "exact classes only (no ontology in the store)"
        if data.exact_only
        else "official (Wang over the ontology's OWL graph)",
        "trained_on": {"splits": list(splits), "documents": sorted(corpus.texts)},
        "configuration": selection.config.params(),
        "decision": {
            "threshold": selection.decision.threshold,
            "prior": selection.decision.prior,
            "weight": selection.decision.weight,
            "backoff": selection.decision.backoff,
        },
        "rules": selection.rules.as_json(),
        "selection": {
            "folds": options.folds,
            "quick": options.quick,
            "points": len(selection.tried),
            "cv_ser": round(selection.cv_ser, 4),
            "cv_exact": {"tp": selection.cv_exact[1], "fp": selection.cv_exact[2], "fn": selection.cv_exact[3]},
        },
        "learned": None
        if learned is None
        else {
            "chosen": learned.chosen,
            "cv_ser": round(learned.cv_ser, 4),
            "cv_exact": {"tp": learned.cv_exact[1], "fp": learned.cv_exact[2], "fn": learned.cv_exact[3]},
            "rows": learned.rows,
            "pr_curve": [{"confidence": t, "precision": p, "recall": r} for t, p, r in learned.curve],
            "window_spans_cv_ser": {str(k): v for k, v in learned.spans.items()},
            **learned.learned.to_json(),
        },
        "coordination": {"gold_discontinuous": dg, "recovered": dr, "predicted": dp},
        "gold_annotations": corpus.annotations,
    }


def train_set(
    store: ReadableStore,
    set_key: str,
    ctx: RunContext,
    *,
    on: str | Sequence[str] = "train,dev",
    ids: Path | None = None,
    out: Path | None = None,
    options: TrainOptions = TrainOptions(),
) -> tuple[TrainReport, Model]:
    """Train a matcher for ``set_key`` on the documents of ``on``; write the model folder to ``out``.

    ``ids``: a file of document ids (:mod:`craftrdf.ingest.ids`) to train on instead of splits; an id the
    store does not have raises InputError before anything is read or written. ``ctx`` gives the
    registry, the CURIE map and the dictionary cache. Raises ConfigError for an unknown set, a split
    with no documents or no gold annotations of the set (nothing is written then).
    """
    t0 = time.perf_counter()
    splits = parse_on(on) if ids is None else ()
    documents = split_documents(store, splits) if ids is None else read_ids(ids, document_splits(store))
    data = read_set(store, set_key, ctx)
    corpus = read_corpus(store, data.key, documents, curies=ctx.curies)
    if corpus.annotations == 0:
        where = f"split {','.join(splits)}" if ids is None else f"the documents of {ids}"
        raise NoGoldError(f"set {data.key} has no gold annotations in {where}: nothing to learn")
    session = MatchingSession(corpus.texts, {}, cache_dir=ctx.cache_dir)
    source = _ontology_source(store, data, ctx)
    return train_read(data, corpus, source, session, splits=splits, out=out, options=options, t0=t0)


def train_read(
    data: SetData,
    corpus: Corpus,
    source: OntologySource | None,
    session: MatchingSession,
    *,
    splits: Sequence[str],
    out: Path | None = None,
    options: TrainOptions = TrainOptions(),
    t0: float | None = None,
) -> tuple[TrainReport, Model]:
    """:func:`train_set` once the store has been read: no store needed (an executor's worker runs it).

    ``source`` gives the set's ontology dictionary per normalization (None: gold names alone);
    ``corpus`` must hold gold annotations (the caller checks); ``session`` may be shared by several
    sets over the same texts (each text is then split and normalized once).
    """
    t0 = time.perf_counter() if t0 is None else t0
    selection, prepared = select(session, corpus, data, source, options.grid)
    dg, dr, dp = _coordination_counts(prepared, corpus, selection)
    learned = select_learned(prepared, corpus, data, selection, options.folds)
    meta = _meta(data, splits, corpus, selection, options, (dg, dr, dp), learned)
    names = [
        NameRow(t, prepared.names.count(t), len(docs), tuple(prepared.names.written[t].most_common()))
        for t, docs in sorted(prepared.names.documents.items())
    ]
    # the counts with each find's neighbouring words only when the learned decision reads them
    counts = learned.counts if learned is not None and learned.chosen else prepared.total
    terms = [TermRow(t, c[0], c[1]) for t, c in sorted(counts.items()) if c[1] > 0]
    model = Model(meta, tuple(names), tuple(terms))
    if out is not None:
        write_model(out, meta, names, terms, selection.decision)
    report = TrainReport(
        data.key,
        out,
        len(corpus.texts),
        corpus.annotations,
        len(names),
        selection,
        dg,
        dr,
        dp,
        data.exact_only,
        time.perf_counter() - t0,
        learned,
    )
    return report, model


@no_cycle_collection()  # the model's counts and every option's row: many small objects, no cycles
def predict(
    model: Model,
    texts: Mapping[str, str],
    *,
    ontology: Dictionary | None,
    session: MatchingSession | None = None,
    min_confidence: float | None = None,
) -> dict[str, list[Annotation]]:
    """Annotate ``texts`` with a model (``ontology``: the set's dictionary for the model's configuration).

    Every annotation has a ``confidence``: the learned decision's probability, or the threshold
    decision's precision estimate. ``min_confidence`` replaces the model's threshold (lower it
    for recall, raise it for precision); the rules then run as trained.
    """
    config = model.config
    normalization = config.normalization
    session = session or MatchingSession(texts, {})
    # each name's number of training documents, which the learned decision reads (ids are not kept)
    names = GoldNames({r.term: frozenset(str(i) for i in range(max(r.documents, 1))) for r in model.names})
    counts = {r.term: [r.tp, r.n] for r in model.terms}
    indexes = [SearchIndex(names.dictionary(normalization, config.synonyms), False)]
    if ontology is not None:
        indexes.append(SearchIndex(ontology, False))
    symbols = names.symbols()
    family = family_index(names, normalization, config.synonyms)
    candidates = {}
    for d in texts:
        candidates[d] = find_candidates(d, session.normalized(d, normalization), indexes)
        if model.rules.families:
            candidates[d] += family_candidates(d, session, family, normalization, candidates[d])
        candidates[d] += symbol_candidates(d, texts[d], symbols)
    prepared = Prepared(config, session, names, ontology.entries if ontology is not None else {}, candidates, {})
    prepared.total = counts
    docs = sorted(texts)
    view = FoldView(prepared, frozenset(), docs)
    learned, decision = model.learned, model.decision
    if learned is not None:
        windows = learned.window.windows(session, normalization)
        rows = option_rows(prepared, {}, counts, docs, frozenset(), families=model.rules.families, windows=windows)
        threshold = learned.threshold if min_confidence is None else min_confidence
        kept = choose_learned(rows, learned.probabilities(rows.x), threshold)
    else:
        if min_confidence is not None:
            decision = replace(decision, threshold=min_confidence)
        kept = {d: resolve(choose_options(view.options[d], decision)) for d in docs}
    return with_confidence(with_rules(view, kept, model.rules, model.decision), texts)


@dataclass(frozen=True, slots=True)
class ApplyReport:
    """What :func:`annotate_with_model` did."""

    documents: int
    annotations: int
    out_dir: Path | None
    seconds: float


def annotate_with_model(
    store: ReadableStore,
    set_key: str,
    model_dir: Path,
    texts: Mapping[str, str],
    ctx: RunContext,
    *,
    out_dir: Path | None = None,
    min_confidence: float | None = None,
    into_store: str | None = None,
) -> tuple[ApplyReport, dict[str, list[Annotation]]]:
    """Annotate ``texts`` with the model in ``model_dir`` (trained for ``set_key``); BioNLP files in ``out_dir``.

    The model is read and checked, and the set's ontology found, before anything is written.
    ``out_dir`` also gets ``confidence.tsv`` (document, class, spans, confidence);
    ``min_confidence``: see :func:`predict`. ``into_store`` names a new set graph for the
    annotations, each with its ``craft:confidence`` (:mod:`.stored`; the store must be writable).
    ``ctx`` gives the registry, the CURIE map and the dictionary cache.
    """
    t0 = time.perf_counter()
    model = read_model(model_dir, set_key=set_key)
    target = None
    if into_store is not None:
        check_run_name(store, into_store, ctx.registry)
        target = require_writable(store, f"--into-store {into_store}")
    data_ontology = model.meta.get("ontology")
    ontology = None
    ref = resolve_set(store, set_key)
    if data_ontology:
        if ref.ontology is None or ref.ontology not in store.batches():
            raise ConfigError(f"model {model_dir} uses the ontology of {set_key}, which this store does not hold")
        config = model.config
        ontology = load_dictionary(
            store,
            ref,
            config.normalization,
            config.synonyms,
            ctx,
        )
    session = MatchingSession(texts, {}, cache_dir=ctx.cache_dir)
    predictions = predict(model, texts, ontology=ontology, session=session, min_confidence=min_confidence)
    if out_dir is not None:
        write_bionlp_files(predictions, texts, out_dir)
        write_confidences(predictions, out_dir / CONFIDENCES)
    if target is not None and into_store is not None:
        write_model_run(target, into_store, ref, model, predictions, texts, ctx.curies)
    n = sum(len(v) for v in predictions.values())
    return ApplyReport(len(texts), n, out_dir, time.perf_counter() - t0), predictions


def score_on(
    store: ReadableStore,
    data: SetData,
    model: Model,
    splits: Sequence[str],
    ctx: RunContext,
    *,
    session: MatchingSession | None = None,
    corpus: Corpus | None = None,
) -> tuple[float, Corpus, dict[str, list[Annotation]]]:
    """The Shared Task slot error rate of a model on the documents of ``splits`` (with the corpus and predictions).

    ``corpus``, when given, must be the texts and gold of exactly the documents of ``splits``.
    """
    if corpus is None:
        corpus = read_corpus(store, data.key, split_documents(store, splits), curies=ctx.curies)
    source = _ontology_source(store, data, ctx)
    ser, predictions = score_read(data, model, corpus, source, session)
    return ser, corpus, predictions


def score_read(
    data: SetData,
    model: Model,
    corpus: Corpus,
    source: OntologySource | None,
    session: MatchingSession | None = None,
) -> tuple[float, dict[str, list[Annotation]]]:
    """:func:`score_on` once the store has been read (slot error rate and predictions); no store needed.

    Raises ConfigError when a document of ``corpus`` was used to train the model.
    """
    leaked = set(corpus.texts) & set(model.documents)
    if leaked:
        raise ConfigError(f"documents {', '.join(sorted(leaked)[:3])} were used to train this model")
    ontology = source(model.config.normalization, model.config.synonyms) if source is not None else None
    predictions = predict(model, corpus.texts, ontology=ontology, session=session)
    return shared_task_ser(data, corpus, predictions), predictions
