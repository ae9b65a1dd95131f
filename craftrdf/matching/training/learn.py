"""The learned per-candidate decision: a logistic regression over each (candidate, class) option's features.

Today's decision (:class:`~.engine.Decision`) keeps or drops a term as a whole, by its
training precision. The learned one judges each find with its context (:mod:`.features`):
the word before and after it, its written form's record, capitals, overlapping
candidates, abbreviations defined in the document, how often the document already has
the class. For each candidate the class of highest probability is kept when its
probability reaches a threshold (:mod:`.decide`); that probability is the annotation's *confidence*.

Why scikit-learn's :class:`~sklearn.linear_model.LogisticRegression` (on standardized
features): its probabilities are calibrated well enough to be a confidence a user picks
an operating point on; the fitted model is a few dozen numbers written as plain JSON in
model.json (no pickle, nothing version-bound to read back, byte-identical from the same
data since L-BFGS is deterministic), and applying it needs numpy only.

The discipline is the selection's (:mod:`.select`): folds of documents, no document's
row ever carrying counts it contributed. For the cross-validated score of fold ``f``,
the model is fitted on the rows of every other fold ``g`` whose counts leave out both
``g`` and ``f`` (nested), then applied to ``f``'s rows, whose counts leave out ``f``.
The model kept is fitted on every fold's rows (each leaving out its own fold): what a
new document sees, counts of all training documents and none of its own.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.bulk import no_cycle_collection
from ...core.errors import ConfigError
from ...core.model import Annotation
from .data import Corpus, SetData
from .decide import Best, Memo, Scored, best_options, decide_folds, pairs_of, with_confidence
from .engine import Term, add_counts, count_terms
from .features import FEATURES, NO_WINDOW, Rows, Window, option_rows
from .select import (
    ExactGold,
    Prepared,
    Selection,
    comparer,
    exact_error,
    folds_of,
    shared_task_ser,
)
from .window import ANY, WINDOW, Windows, count_name_windows, count_windows

logger = logging.getLogger(__name__)

#: Thresholds on the probability tried by the cross-validation.
THRESHOLDS = tuple(round(0.05 + 0.05 * i, 2) for i in range(14))
#: Inverse regularization strengths tried. 0.01 was added on 2026-11-29 by the cross-validation on train+dev
#: (docs/training.md, "Fourth round"): the small sets' windows (MOP_EXT: 0.1780 to 0.1728) need the stronger
#: regularization, and five of the large sets chose it too.
STRENGTHS = (0.01, 0.1, 1.0)
#: Stronger regularizations, each tried for the window kept when the one before it is its best: on MOP (train+dev)
#: 0.01 was chosen, 0.003 lowered the cross-validated SER from 0.2446 to 0.2363 and 0.001 to 0.2279
#: (docs/training.md, "Ninth round").
STRONGER = (0.003, 0.001)
#: Tokens each side of a find the passage reads (:mod:`.window`). The learned decision's cross-validated SER on
#: MOP (train+dev) with a span of 0, 10, 25, 60: 0.2779, 0.2613, 0.2571, 0.2654; on GO_MF_EXT 0.2275, 0.2269,
#: 0.2263, 0.2282.
SPAN = 25
#: Windows tried (:class:`~.features.Window`), one span: the rows are made once with all of the passage's
#: columns and each window leaves out those it does not read, so each costs the fits and the decisions, not
#: the rows. Each adds one reading to the one before. The names' lifts lowered the cross-validated SER on seven
#: sets and raised it on UBERON (docs/training.md, "Seventh round"); their discourse lowered it on MOP by 0.0125
#: and raised it on SO ("Eighth round"; the discourse without the names' lifts was never better than both
#: neighbours, so it is not tried): the cross-validation chooses per set.
WINDOWS = (NO_WINDOW, Window(SPAN), Window(SPAN, names=True), Window(SPAN, names=True, discourse=True))
#: Points (strength, threshold) scored with the slot error rate after ranking by exact error.
LEARNED_FINALISTS = 4

Counts = Mapping[str, Counter[tuple[Term, bool]]]


@dataclass(frozen=True, slots=True)
class Learned:
    """A fitted logistic regression over :data:`~.features.FEATURES` (standardized), and the threshold chosen."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    strength: float
    #: what of a find's passage the features read (the columns it does not read have weight 0)
    window: Window = NO_WINDOW

    def probabilities(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The probability that each row is a gold annotation."""
        if len(x) == 0:
            return np.zeros(0)
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        logit = z @ np.asarray(self.coef) + self.intercept
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-logit))
        return out

    def to_json(self) -> dict[str, Any]:
        """model.json's ``learned`` entry: the features by name, with their mean, scale and weight."""
        return {
            "model": "scikit-learn LogisticRegression (L2, lbfgs) on standardized features",
            "strength_C": self.strength,
            "window_span": self.window.span,
            "window_names": self.window.names,
            "window_discourse": self.window.discourse,
            "threshold": self.threshold,
            "intercept": self.intercept,
            "features": {
                name: {"mean": m, "scale": s, "weight": w}
                for name, m, s, w in zip(FEATURES, self.mean, self.scale, self.coef)
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Learned:
        """Read model.json's ``learned`` entry back.

        ConfigError when its features are not this version's, or a number is not finite (JSON's
        ``NaN`` would make every probability NaN, and every annotation silently dropped).
        """
        feats = data["features"]
        if list(feats) != list(FEATURES):
            raise ConfigError("the learned decision's features are not this craftrdf's: train again")
        learned = cls(
            tuple(float(feats[n]["mean"]) for n in FEATURES),
            tuple(float(feats[n]["scale"]) for n in FEATURES),
            tuple(float(feats[n]["weight"]) for n in FEATURES),
            float(data["intercept"]),
            float(data["threshold"]),
            float(data["strength_C"]),
            Window(int(data["window_span"]), bool(data["window_names"]), bool(data["window_discourse"])),
        )
        numbers = (*learned.mean, *learned.scale, *learned.coef, learned.intercept, learned.threshold)
        if not _finite((*numbers, learned.strength)) or 0.0 in learned.scale:
            raise ConfigError("the learned decision has a number that is not finite, or a scale of 0: train again")
        return learned


def fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.bool_],
    strength: float,
    threshold: float = 0.5,
    window: Window = NO_WINDOW,
) -> Learned:
    """Fit the logistic regression on rows ``x``, labels ``y`` (both must occur), reading what ``window`` reads.

    The columns ``window`` does not read are left out of the fit: weight 0, mean 0, scale 1.
    """
    return _Standardized.of(x, window).fit(y, strength, threshold)


@dataclass(frozen=True, slots=True, eq=False)
class _Standardized:
    """The columns of rows a window reads, standardized once, to be fitted at each strength."""

    window: Window
    width: int
    read: npt.NDArray[np.intp]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    z: npt.NDArray[np.float64]

    @classmethod
    def of(cls, x: npt.NDArray[np.float64], window: Window) -> _Standardized:
        """Rows ``x`` (every feature) as ``window`` reads them."""
        from sklearn.preprocessing import StandardScaler

        read = np.setdiff1d(np.arange(x.shape[1]), window.unread())
        part = x[:, read]
        scaler = StandardScaler().fit(part)
        scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
        return cls(window, x.shape[1], read, scaler.mean_, scale, (part - scaler.mean_) / scale)

    def fit(self, y: npt.NDArray[np.bool_], strength: float, threshold: float = 0.5) -> Learned:
        """The logistic regression of labels ``y`` at inverse regularization ``strength``."""
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=strength, max_iter=2000).fit(self.z, y)
        mean, scales, coef = np.zeros(self.width), np.ones(self.width), np.zeros(self.width)
        mean[self.read], scales[self.read], coef[self.read] = self.mean, self.scale, model.coef_[0]
        return Learned(
            tuple(float(v) for v in mean),
            tuple(float(v) for v in scales),
            tuple(float(v) for v in coef),
            float(model.intercept_[0]),
            threshold,
            strength,
            self.window,
        )


def labels(rows: Rows, corpus: Corpus, compare: Callable[[str], str]) -> npt.NDArray[np.bool_]:
    """Whether each row is a gold annotation: exactly its spans, its class as the scorer compares it."""
    gold = {
        (d, tuple(sorted(a.spans)), compare(a.class_id))
        for d in {c.document for c in rows.candidates}
        for a in corpus.gold[d]
    }
    return np.asarray(
        [(c.document, tuple(sorted(c.spans)), compare(k)) in gold for c, k in zip(rows.candidates, rows.classes)],
        dtype=bool,
    )


@no_cycle_collection()  # millions of small tuples, no cycles (core.bulk)
def context_counts(
    prepared: Prepared, corpus: Corpus, compare: Callable[[str], str], windows: Windows | None = None
) -> dict[str, Counter[tuple[Term, bool]]]:
    """Each training document's term counts, with the words before and after every find (:func:`.context_terms`).

    With ``windows``, also the tokens of every find's window, for any class
    (:func:`.window.count_windows`) and, with ``windows.names``, for each of its names found both
    right and wrong in these documents (:func:`.window.count_name_windows`).
    """
    out = {}
    named_by_doc: dict[str, list[list[tuple[Term, bool]]]] = {}
    names: dict[Term, list[int]] = {}
    for d in corpus.texts:
        gold = [(a.spans, a.class_id) for a in corpus.gold[d]]
        candidates = prepared.candidates[d]
        out[d] = count_terms(candidates, gold, compare, contexts=True)
        if windows is not None:
            exact = {(tuple(sorted(spans)), compare(cls)) for spans, cls in gold}
            # every find, also one inside a right annotation (a row the decision must reject), unlike count_terms
            named = [
                [((c.key, k), (tuple(sorted(c.spans)), compare(k)) in exact) for k in sorted(c.classes)]
                for c in candidates
            ]
            hits = np.asarray([any(hit for _, hit in options) for options in named], dtype=bool)
            out[d] += count_windows(windows.of(d, candidates), windows.tokens(), hits)
            if windows.names:
                named_by_doc[d] = named
                for options in named:
                    for term, hit in options:
                        c = names.setdefault(term, [0, 0])
                        c[0] += hit
                        c[1] += 1
    if windows is not None and named_by_doc:
        # a name only right (or only wrong) in all training has no lifts in any fold (window.name_window_features):
        # its window terms are not counted, which leaves the features as they are and most of the counts out
        mixed = {t for t, (tp, n) in names.items() if 0 < tp < n}
        tokens = windows.tokens()
        for d, named in named_by_doc.items():
            kept = [[(t, hit) for t, hit in options if t in mixed] for options in named]
            out[d] += count_name_windows(windows.of(d, prepared.candidates[d]), tokens, kept)
    return out


def totals_of(counts: Counts) -> dict[Term, list[int]]:
    """``term -> [true positives, finds]`` summed over documents."""
    total: dict[Term, list[int]] = {}
    for c in counts.values():
        add_counts(total, c)
    return total


@dataclass(frozen=True, slots=True)
class LearnedSelection:
    """The learned decision fitted on every training document, its cross-validated scores, and the PR curve."""

    learned: Learned
    cv_ser: float
    cv_exact: tuple[float, int, int, int]
    chosen: bool
    #: (confidence at least, precision, recall) of exact matches on the cross-validation folds
    curve: tuple[tuple[float, float, float], ...]
    counts: dict[Term, list[int]]
    rows: int
    #: every training document decided by the other folds (the chosen strength and threshold), for error analysis
    cv_scored: Scored = field(default_factory=dict)
    #: each window tried (:attr:`~.features.Window.label`), with its cross-validated slot error rate
    spans: dict[str, float] = field(default_factory=dict)


def _curve(scored: Scored, corpus: Corpus, compare: Callable[[str], str]) -> tuple[tuple[float, float, float], ...]:
    gold = {(d, tuple(sorted(a.spans)), compare(a.class_id)) for d in corpus.gold for a in corpus.gold[d]}
    preds = sorted(
        {(d, tuple(sorted(s)), compare(c)): v for d, kept in scored.items() for s, c, v in kept}.items(),
        key=lambda x: -x[1],
    )
    out = []
    for t in (0.0, *THRESHOLDS, 0.75, 0.8, 0.85, 0.9, 0.95):
        kept = [k for k, v in preds if v >= t]
        tp = sum(1 for k in kept if k in gold)
        out.append((t, tp / max(len(kept), 1), tp / max(len(gold), 1)))
    return tuple((t, round(p, 4), round(r, 4)) for t, p, r in out)


@dataclass(frozen=True, slots=True, eq=False)
class _Nested:
    """The nested cross-validation's rows, made once with every column of the passage (all windows share them)."""

    outer: list[Rows]
    #: per fold f: the other folds' rows (their counts leaving out f too) and labels
    inner: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]]
    totals: dict[Term, list[int]]
    y: npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True, eq=False)
class _WindowFit:
    """The nested cross-validation of the learned decision with one window: its best point."""

    window: Window
    ser: float
    strength: float
    threshold: float
    scored: Scored
    probs: list[npt.NDArray[np.float64]]


def select_learned(
    prepared: Prepared, corpus: Corpus, data: SetData, selection: Selection, folds: int = 5
) -> LearnedSelection | None:
    """Fit and cross-validate the learned decision on the selected configuration; None when it cannot be fitted.

    Each window of :data:`WINDOWS` is cross-validated on the same nested rows
    (:class:`_WindowGrid`); the one of lowest slot error rate is kept, the first on ties
    (the narrower). When its best strength is the smallest of :data:`STRENGTHS`, that window is
    cross-validated again with the strengths widened (:data:`STRONGER`). ``chosen`` says whether
    its cross-validated slot error rate is below the selected threshold decision's (then the
    model uses it).
    """
    nested = _nested_rows(prepared, corpus, data, selection, folds)
    if nested is None:
        return None
    grids = [_WindowGrid(prepared, corpus, data, selection, folds, nested, w) for w in WINDOWS]
    kept = min(grids, key=lambda g: g.best.ser)  # the first of equals: the narrower window
    if widen(STRENGTHS, kept.best.strength) is not None:
        kept.widen()  # only the window kept: each widening costs its fits and decisions
    fits = [g.best for g in grids]
    # new finalists can score worse than the old: the windows are compared again
    best = min(fits, key=lambda f: f.ser)
    compare = comparer(data.key)
    x = np.concatenate([r.x for r in nested.outer])
    learned = fit(x, nested.y, best.strength, best.threshold, best.window)
    chosen = best.ser < selection.cv_ser
    logger.info(
        "learned decision %s: cv SER %.4f (threshold decision %.4f), window %s, C=%s threshold %.2f: %s",
        data.key,
        best.ser,
        selection.cv_ser,
        best.window.label,
        best.strength,
        best.threshold,
        "chosen" if chosen else "not chosen",
    )
    views = prepared.fold_views(folds)
    return LearnedSelection(
        learned,
        best.ser,
        exact_error(pairs_of(best.scored), ExactGold(corpus, compare)),
        chosen,
        _curve(decide_folds(views, nested.outer, best.probs, 0.0, selection), corpus, compare),
        read_counts(nested.totals, best.window),
        len(nested.y),
        best.scored,
        {f.window.label: round(f.ser, 4) for f in fits},
    )


def read_counts(totals: Mapping[Term, list[int]], window: Window) -> dict[Term, list[int]]:
    """The counts ``window`` reads: without the passage's tokens (span 0), or without the names' (no ``names``)."""
    out = {}
    for term, c in totals.items():
        key, cls = term
        if key[:1] == (WINDOW,) and (not window.span or (cls != ANY and not window.names)):
            continue
        out[term] = c
    return out


def _nested_rows(prepared: Prepared, corpus: Corpus, data: SetData, selection: Selection, folds: int) -> _Nested | None:
    """Every fold's rows, and the rows its nested fit is made on; None when the labels are all one way."""
    compare = comparer(data.key)
    # every window of the grid reads SPAN tokens or none: the widest rows serve them all
    widest = Window(SPAN, names=any(w.names for w in WINDOWS), discourse=True)
    windows = widest.windows(prepared.session, prepared.config.normalization)
    counts = context_counts(prepared, corpus, compare, windows)
    totals = totals_of(counts)
    groups = folds_of(list(corpus.texts), folds)
    fam = selection.rules.families
    outer = [option_rows(prepared, counts, totals, sorted(g), g, families=fam, windows=windows) for g in groups]
    ys = [labels(r, corpus, compare) for r in outer]
    y_all = np.concatenate(ys) if ys else np.zeros(0, dtype=bool)
    if len(y_all) == 0 or y_all.all() or not y_all.any():
        return None
    inner = []
    for f, g_f in enumerate(groups):
        rows = [
            option_rows(prepared, counts, totals, sorted(g), g | g_f, families=fam, windows=windows)
            for i, g in enumerate(groups)
            if i != f
        ]
        inner.append((np.concatenate([r.x for r in rows]), np.concatenate([labels(r, corpus, compare) for r in rows])))
    return _Nested(outer, inner, totals, y_all)


class _WindowGrid:
    """The learned decision's nested cross-validation reading what ``window`` reads: its best point (:attr:`best`).

    The strengths of :data:`STRENGTHS` are tried when it is made; :meth:`widen` goes on with those
    of :data:`STRONGER` without trying any point twice.
    """

    def __init__(
        self,
        prepared: Prepared,
        corpus: Corpus,
        data: SetData,
        selection: Selection,
        folds: int,
        nested: _Nested,
        window: Window,
    ) -> None:
        self._corpus, self._data, self._selection, self._nested, self._window = corpus, data, selection, nested, window
        self._gold = ExactGold(corpus, comparer(data.key))
        self._views = prepared.fold_views(folds)  # the selection's, made once
        self._probs: dict[float, list[npt.NDArray[np.float64]]] = {}
        self._tops: dict[float, list[Best]] = {}
        self._ranked: list[tuple[float, float, float]] = []
        self._finalists: dict[tuple[float, float], _WindowFit] = {}
        memo: Memo = {}  # decide_folds': only while a strength's thresholds are tried, not kept with the grid
        standardized = self._standardized()
        for s in STRENGTHS:
            self._add(s, standardized, memo)
        self.best = self._best_point(memo)
        logger.info("learned decision %s, window %s: cv SER %.4f", data.key, window.label, self.best.ser)

    def widen(self) -> _WindowFit:
        """Each of :data:`STRONGER` in turn while the best point is at the smallest strength tried (:func:`widen`)."""
        standardized: list[_Standardized | None] | None = None
        memo: Memo = {}
        while (stronger := widen(tuple(self._probs), self.best.strength)) is not None:
            standardized = self._standardized() if standardized is None else standardized
            self._add(stronger, standardized, memo)
            self.best = self._best_point(memo)
        logger.info(
            "learned decision %s, window %s widened: C %g", self._data.key, self._window.label, self.best.strength
        )
        return self.best

    def _standardized(self) -> list[_Standardized | None]:
        # nested: the rows fold f is decided with were fitted on rows that never saw f's counts
        return [_Standardized.of(x, self._window) if y.any() and not y.all() else None for x, y in self._nested.inner]

    def _add(self, s: float, standardized: Sequence[_Standardized | None], memo: Memo) -> None:
        nested = self._nested
        self._probs[s] = [
            rows.fit(y, s).probabilities(outer.x) if rows is not None else np.full(len(outer), _rate(y))
            for rows, (_, y), outer in zip(standardized, nested.inner, nested.outer)
        ]
        self._tops[s] = [best_options(r, p) for r, p in zip(nested.outer, self._probs[s])]
        for t in THRESHOLDS:
            scored = decide_folds(self._views, nested.outer, self._probs[s], t, self._selection, self._tops[s], memo)
            self._ranked.append((exact_error(pairs_of(scored), self._gold)[0], s, t))

    def _best_point(self, memo: Memo) -> _WindowFit:
        self._ranked.sort()
        top = self._ranked[:LEARNED_FINALISTS]
        for _, s, t in top:
            if (s, t) not in self._finalists:
                probs, nested = self._probs[s], self._nested
                scored = decide_folds(self._views, nested.outer, probs, t, self._selection, self._tops[s], memo)
                ser = shared_task_ser(self._data, self._corpus, _predictions(scored, self._corpus))
                self._finalists[(s, t)] = _WindowFit(self._window, ser, s, t, scored, probs)
        # the first of equals: the better exact error
        return min((self._finalists[(s, t)] for _, s, t in top), key=lambda f: f.ser)


def widen(tried: Sequence[float], best: float) -> float | None:
    """The strength to try next: the first of :data:`STRONGER` not tried when ``best`` is the smallest tried.

    None when a larger strength is best (the grid brackets the best) or :data:`STRONGER` is spent.
    """
    if best != min(tried):
        return None
    return next((s for s in STRONGER if s < best), None)


def _rate(y: npt.NDArray[np.bool_]) -> float:
    """The share of true labels (0 for none): every probability of a fold whose training rows are all one way."""
    return float(y.mean()) if len(y) else 0.0


def _predictions(scored: Scored, corpus: Corpus) -> dict[str, list[Annotation]]:
    return with_confidence(scored, corpus.texts)


def _finite(values: Sequence[float]) -> bool:
    """Whether every value is a finite number."""
    return all(math.isfinite(v) for v in values)
