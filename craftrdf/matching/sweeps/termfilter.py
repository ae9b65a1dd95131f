"""A learned term filter: drop the matches of names that were mostly wrong on training documents.

A dictionary matcher cannot tell senses apart: "reduction" (chemical reduction, MOP) in
articles that mean "decrease", the letter "A" (alanine in SO) in the strain name A/J.
The filter counts, on documents with gold, how often each *term* (the matched text as
written, with the class it was given) was an exact true positive, and drops a term's
matches elsewhere when it was seen at least ``min_count`` times and was right less
often than ``threshold``. Below a precision of one half, a match costs the slot error
rate more than it brings (an insertion costs 1, a match saves at most 1); the same
term-by-term reasoning is what an annotator's stop list encodes by hand.

It is learned on one set of documents and applied to another (:meth:`TermFilter.learn`,
:meth:`TermFilter.apply`), or cross-validated over the documents of one set
(:func:`cross_validated`: each fold filtered by what the other folds taught), so that
no document is filtered by its own gold.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...core.errors import ConfigError
from ...core.model import Annotation
from ..matcher.config import MatcherConfig
from .results import SweepRow
from .run import SweepInputs, WorkerState, config_predictions, worker_state

#: ``(matched text, class)``: the text of the annotation's spans as written, joined by one space.
TermKey = tuple[str, str]
#: Whether a prediction is an exact true positive (the scorer's exact test).
IsCorrect = Callable[[Annotation], bool]


def term_key(a: Annotation, text: str) -> TermKey:
    """The term of a prediction: its covered text as written (spans joined by a space) and its class.

    >>> from craftrdf.core.model import Span
    >>> term_key(Annotation("1", "d", "MOP:0000569", (Span(4, 13),)), "the reduction of")
    ('reduction', 'MOP:0000569')
    """
    return " ".join(text[s.start : s.end] for s in a.spans), a.class_id


@dataclass(frozen=True, slots=True)
class TermFilter:
    """Drop a term seen at least ``min_count`` times whose share of true positives is below ``threshold``."""

    threshold: float = 0.5
    min_count: int = 2

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ConfigError(f"term filter threshold must be in [0, 1], got {self.threshold}")
        if self.min_count < 1:
            raise ConfigError(f"term filter min_count must be at least 1, got {self.min_count}")

    def counts(
        self, predictions: Mapping[str, Sequence[Annotation]], texts: Mapping[str, str], correct: IsCorrect
    ) -> dict[TermKey, tuple[int, int]]:
        """Per term: (true positives, predictions) over ``predictions``."""
        out: dict[TermKey, list[int]] = defaultdict(lambda: [0, 0])
        for doc, anns in predictions.items():
            for a in anns:
                c = out[term_key(a, texts[doc])]
                c[0] += correct(a)
                c[1] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}

    def dropped(self, counts: Mapping[TermKey, tuple[int, int]]) -> frozenset[TermKey]:
        """The terms this filter drops, given their (true positives, predictions) counts."""
        return frozenset(k for k, (tp, n) in counts.items() if n >= self.min_count and tp < self.threshold * n)

    def learn(
        self, predictions: Mapping[str, Sequence[Annotation]], texts: Mapping[str, str], correct: IsCorrect
    ) -> frozenset[TermKey]:
        """The terms to drop, learned from predictions on documents with gold."""
        return self.dropped(self.counts(predictions, texts, correct))

    @staticmethod
    def apply(
        predictions: Mapping[str, Sequence[Annotation]], texts: Mapping[str, str], dropped: frozenset[TermKey]
    ) -> dict[str, list[Annotation]]:
        """``predictions`` without the matches of the dropped terms (nothing else changes)."""
        return {doc: [a for a in anns if term_key(a, texts[doc]) not in dropped] for doc, anns in predictions.items()}


def cross_validated(
    flt: TermFilter,
    predictions: Mapping[str, Sequence[Annotation]],
    texts: Mapping[str, str],
    correct: IsCorrect,
    *,
    folds: int = 5,
) -> dict[str, list[Annotation]]:
    """``predictions`` with each document filtered by what the other documents taught.

    Documents are dealt into ``folds`` folds in sorted order (document i to fold i mod
    ``folds``); the terms dropped in a fold are learned from the counts of all other
    folds. With one document per fold this is leave-one-out.
    """
    if folds < 2:
        raise ConfigError(f"cross-validation needs at least 2 folds, got {folds}")
    docs = sorted(predictions)
    fold_of = {d: i % folds for i, d in enumerate(docs)}
    per_fold = [flt.counts({d: predictions[d] for d in docs if fold_of[d] == f}, texts, correct) for f in range(folds)]
    total: dict[TermKey, list[int]] = defaultdict(lambda: [0, 0])
    for counts in per_fold:
        for k, (tp, n) in counts.items():
            total[k][0] += tp
            total[k][1] += n
    out: dict[str, list[Annotation]] = {}
    for f in range(folds):
        own = per_fold[f]
        others = {k: (t[0] - own.get(k, (0, 0))[0], t[1] - own.get(k, (0, 0))[1]) for k, t in total.items()}
        dropped = flt.dropped(others)
        out |= TermFilter.apply({d: predictions[d] for d in docs if fold_of[d] == f}, texts, dropped)
    return out


@dataclass(frozen=True, slots=True)
class FilteredRows:
    """One configuration with the term filter: cross-validated on the selection documents, and on the report ones.

    ``selection`` is scored on the selection documents, each filtered by the other folds;
    ``report`` (when there are report documents) is scored there after dropping the
    ``dropped`` terms, learned on all selection documents.
    """

    filter: TermFilter
    selection: SweepRow
    report: SweepRow | None
    dropped: int


class FilterScorer:
    """Scores configurations with a term filter on fixed selection (and report) documents, in this process.

    The documents are normalized and each dictionary built once for every configuration
    scored, in the worker state a sweep run in this process left behind when there is
    one (:func:`~craftrdf.matching.sweeps.run.run_sweep` keeps the last). :meth:`rows` runs a
    configuration exactly as a sweep runs it (CRAFT's rules included when the inputs
    carry them); :meth:`plain_report` gives its unfiltered row on the report documents
    from the same predictions.
    """

    def __init__(
        self, select: SweepInputs, report: SweepInputs | None, flt: TermFilter | None = None, folds: int = 5
    ) -> None:
        self.filter = flt or TermFilter()
        self.folds = folds
        self._select = worker_state(select)
        self._report = worker_state(report) if report is not None else None
        self._report_predictions: dict[MatcherConfig, tuple[dict[str, list[Annotation]], float]] = {}

    def _on_report(self, config: MatcherConfig) -> tuple[dict[str, list[Annotation]], float]:
        hit = self._report_predictions.get(config)
        if hit is None:
            assert self._report is not None
            t = time.perf_counter()
            hit = self._report_predictions[config] = (config_predictions(self._report, config), time.perf_counter() - t)
        return hit

    def plain_report(self, config: MatcherConfig) -> SweepRow:
        """``config`` on the report documents without the filter (as a sweep would score it)."""
        if self._report is None:
            raise ConfigError("no report documents were given")
        predictions, seconds = self._on_report(config)
        return _row(self._report, config, predictions, seconds)

    def rows(self, config: MatcherConfig) -> FilteredRows:
        """``config`` cross-validated on the selection documents, and learned there for the report documents."""
        flt, state = self.filter, self._select
        texts = state.inputs.texts
        t = time.perf_counter()
        predictions = config_predictions(state, config)
        correct = state.gold.is_exact
        cv = cross_validated(flt, predictions, texts, correct, folds=self.folds)
        selection = _row(state, config, cv, time.perf_counter() - t)
        dropped = flt.learn(predictions, texts, correct)
        report_row = None
        if self._report is not None:
            on_report, seconds = self._on_report(config)
            kept = TermFilter.apply(on_report, self._report.inputs.texts, dropped)
            report_row = _row(self._report, config, kept, seconds)
        return FilteredRows(flt, selection, report_row, len(dropped))


def _row(
    state: WorkerState, config: MatcherConfig, predictions: Mapping[str, Sequence[Annotation]], seconds: float
) -> SweepRow:
    exact = state.gold.exact(predictions)
    return SweepRow(config, exact.tp, exact.fp, exact.fn, state.gold.ser(predictions).ser, seconds)
