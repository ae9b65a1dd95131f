"""The learned per-candidate decision: a logistic regression over each (candidate, class) option's features.

Today's decision (:class:`~.engine.Decision`) keeps or drops a term as a whole, by its
training precision. The learned one judges each find with its context (:mod:`.features`):
the word before and after it, its written form's record, capitals, overlapping
candidates, abbreviations defined in the document, how often the document already has
the class. For each candidate the class of highest probability is kept when its
probability reaches a threshold; that probability is the annotation's *confidence*.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.bulk import no_cycle_collection
from ...core.errors import ConfigError
from ...core.model import Annotation, Span
from .data import Corpus, SetData
from .engine import Candidate, Term, add_counts, count_terms, resolve
from .features import FEATURES, Rows, option_rows
from .rules import RuleContext, Rules, apply_rules, crosses_parenthesis
from .select import (
    ExactGold,
    FoldView,
    Pairs,
    Prepared,
    Selection,
    comparer,
    exact_error,
    folds_of,
    shared_task_ser,
    to_predictions,
)
from .window import Windows, count_name_windows, count_windows

logger = logging.getLogger(__name__)

#: Thresholds on the probability tried by the cross-validation.
THRESHOLDS = tuple(round(0.05 + 0.05 * i, 2) for i in range(14))
#: Inverse regularization strengths tried. 0.01 was added on 2026-11-29 by the cross-validation on train+dev
#: (docs/training.md, "Fourth round"): the small sets' windows (MOP_EXT: 0.1780 to 0.1728) need the stronger
#: regularization, and five of the large sets chose it too.
STRENGTHS = (0.01, 0.1, 1.0)
#: Windows tried: (span, names): tokens each side of a find (:mod:`.window`; 0: no window), and whether each
#: name's own lifts are read. Each costs one more nested cross-validation of the learned decision. The learned
#: decision's cross-validated SER on MOP (train+dev) with a span of 0, 10, 25, 60: 0.2779, 0.2613, 0.2571,
#: 0.2654; on GO_MF_EXT 0.2275, 0.2269, 0.2263, 0.2282. The names' lifts lowered it on seven sets and raised
#: it on UBERON (docs/training.md, "Seventh round"), so the cross-validation chooses them per set.
WINDOWS = ((0, False), (25, False), (25, True))
#: Points (strength, threshold) scored with the slot error rate after ranking by exact error.
LEARNED_FINALISTS = 4

Counts = Mapping[str, Counter[tuple[Term, bool]]]
#: (spans, class, confidence) kept per document
Scored = dict[str, list[tuple[tuple[Span, ...], str, float]]]
#: The file of confidences beside the BioNLP files of ``annotate --model``.
CONFIDENCES = "confidence.tsv"


@dataclass(frozen=True, slots=True)
class Learned:
    """A fitted logistic regression over :data:`~.features.FEATURES` (standardized), and the threshold chosen."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    strength: float
    #: tokens each side of a find whose window terms the features read (0: none)
    span: int = 0
    #: whether the features read each name's own lifts of its window's tokens
    names: bool = False

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
            "window_span": self.span,
            "window_names": self.names,
            "threshold": self.threshold,
            "intercept": self.intercept,
            "features": {
                name: {"mean": m, "scale": s, "weight": w}
                for name, m, s, w in zip(FEATURES, self.mean, self.scale, self.coef)
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Learned:
        """Read model.json's ``learned`` entry back; ConfigError when its features are not this version's."""
        feats = data["features"]
        if list(feats) != list(FEATURES):
            raise ConfigError("the learned decision's features are not this craftrdf's: train again")
        return cls(
            tuple(float(feats[n]["mean"]) for n in FEATURES),
            tuple(float(feats[n]["scale"]) for n in FEATURES),
            tuple(float(feats[n]["weight"]) for n in FEATURES),
            float(data["intercept"]),
            float(data["threshold"]),
            float(data["strength_C"]),
            int(data["window_span"]),
            bool(data["window_names"]),
        )


def fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.bool_],
    strength: float,
    threshold: float = 0.5,
    window: tuple[int, bool] = (0, False),
) -> Learned:
    """Fit the logistic regression on rows ``x`` (made with ``window``: span, names), labels ``y`` (both must occur)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    model = LogisticRegression(C=strength, max_iter=2000).fit((x - scaler.mean_) / scale, y)
    return Learned(
        tuple(float(v) for v in scaler.mean_),
        tuple(float(v) for v in scale),
        tuple(float(v) for v in model.coef_[0]),
        float(model.intercept_[0]),
        threshold,
        strength,
        *window,
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


def choose_learned(
    rows: Rows, p: npt.NDArray[np.float64], threshold: float
) -> dict[str, list[tuple[Candidate, str, float]]]:
    """Per document: each candidate's class of highest probability reaching ``threshold``; overlaps resolved."""
    best: dict[int, tuple[float, Candidate, str]] = {}
    for i, (c, cls) in enumerate(zip(rows.candidates, rows.classes)):
        v = float(p[i])
        hit = best.get(id(c))
        if v >= threshold and (hit is None or (v, cls) > (hit[0], hit[2])):
            best[id(c)] = (v, c, cls)
    by_doc: dict[str, list[tuple[Candidate, str, float]]] = {}
    for v, c, cls in best.values():
        by_doc.setdefault(c.document, []).append((c, cls, v))
    return {d: resolve(kept) for d, kept in by_doc.items()}


def with_rules(
    view: FoldView, kept: Mapping[str, Sequence[tuple[Candidate, str, float]]], rules: Rules, selection_decision: Any
) -> Scored:
    """The rules applied after the learned choices (with the selected threshold decision, as today); confidences kept.

    An annotation a rule adds takes the confidence of the kept annotation that licensed it: for an
    abbreviation, the long form's; for an elided head or a stacked modifier, the highest of its
    document's class; for a part split at a parenthesis (and its long form), the annotation split.
    """
    prepared = view.prepared
    normalization = prepared.config.normalization
    normalizer = prepared.session.normalizer(normalization)
    out: Scored = {}
    for doc in view.documents:
        chosen = list(kept.get(doc, ()))
        conf = {(tuple(c.spans), cls): v for c, cls, v in chosen}
        if rules.rewrites:
            normalized = prepared.session.normalized(doc, normalization)
            sf = prepared.short_forms(doc) if rules.abbreviations or rules.parentheses else ()
            ctx = RuleContext(doc, normalized, normalizer, view.stats, view.classes_of, selection_decision, sf)
            pairs = apply_rules(ctx, chosen, rules)
            by_end = {c.end: v for c, _, v in chosen}
            by_class: dict[str, float] = {}
            for _, cls, v in chosen:
                by_class[cls] = max(v, by_class.get(cls, 0.0))
            long_end = {(s, e): f.long_end for f in sf for s, e in f.occurrences}
            out[doc] = []
            for spans, cls in pairs:
                hit = conf.get((tuple(spans), cls))
                if hit is None:
                    end = long_end.get((spans[0].start, spans[-1].end))
                    if end is None and rules.parentheses and crosses_parenthesis(normalized.tokenized.text, spans):
                        end = spans[-1].end
                    hit = by_end.get(end, 0.0) if end is not None else by_class.get(cls, 0.0)
                out[doc].append((tuple(spans), cls, hit))
        else:
            out[doc] = [(tuple(c.spans), cls, v) for c, cls, v in chosen]
    return out


def pairs_of(scored: Scored) -> Pairs:
    """(spans, class) per document, confidences dropped."""
    return {d: [(s, c) for s, c, _ in kept] for d, kept in scored.items()}


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
    #: each window tried (:func:`window_label`), with its cross-validated slot error rate
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
class _WindowFit:
    """The nested cross-validation of the learned decision with one window: its best point."""

    window: tuple[int, bool]
    ser: float
    strength: float
    threshold: float
    scored: Scored
    outer: list[Rows]
    probs: list[npt.NDArray[np.float64]]
    totals: dict[Term, list[int]]
    y: npt.NDArray[np.bool_]


def select_learned(
    prepared: Prepared, corpus: Corpus, data: SetData, selection: Selection, folds: int = 5
) -> LearnedSelection | None:
    """Fit and cross-validate the learned decision on the selected configuration; None when it cannot be fitted.

    Each window of :data:`WINDOWS` is cross-validated (:func:`_cross_validate`); the one of
    lowest slot error rate is kept, the first on ties (0, no window, first). ``chosen`` says
    whether its cross-validated slot error rate is below the selected threshold decision's
    (then the model uses it).
    """
    fits = [f for w in WINDOWS if (f := _cross_validate(prepared, corpus, data, selection, folds, w)) is not None]
    if not fits:
        return None
    best = min(fits, key=lambda f: f.ser)  # the first of equals: the narrower window
    compare = comparer(data.key)
    learned = fit(np.concatenate([r.x for r in best.outer]), best.y, best.strength, best.threshold, best.window)
    chosen = best.ser < selection.cv_ser
    logger.info(
        "learned decision %s: cv SER %.4f (threshold decision %.4f), window %s, C=%s threshold %.2f: %s",
        data.key,
        best.ser,
        selection.cv_ser,
        window_label(best.window),
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
        _curve(_decide_folds(views, best.outer, best.probs, 0.0, selection), corpus, compare),
        best.totals,
        len(best.y),
        best.scored,
        {window_label(f.window): round(f.ser, 4) for f in fits},
    )


def window_label(window: tuple[int, bool]) -> str:
    """``0``, ``25``, ``25+names``: a window (span, names) as model.json and the report name it."""
    span, names = window
    return f"{span}+names" if names else str(span)


def _cross_validate(
    prepared: Prepared, corpus: Corpus, data: SetData, selection: Selection, folds: int, window: tuple[int, bool]
) -> _WindowFit | None:
    """The learned decision's nested cross-validation with ``window`` (span, names); None when it cannot be fitted."""
    compare = comparer(data.key)
    gold = ExactGold(corpus, compare)
    span, names = window
    windows = Windows(prepared.session, prepared.config.normalization, span, names=names) if span else None
    counts = context_counts(prepared, corpus, compare, windows)
    totals = totals_of(counts)
    groups = folds_of(list(corpus.texts), folds)
    fam = selection.rules.families
    outer = [option_rows(prepared, counts, totals, sorted(g), g, families=fam, windows=windows) for g in groups]
    ys = [labels(r, corpus, compare) for r in outer]
    y_all = np.concatenate(ys) if ys else np.zeros(0, dtype=bool)
    if len(y_all) == 0 or y_all.all() or not y_all.any():
        return None
    # nested: the rows fold f is decided with were fitted on rows that never saw f's counts
    probs: dict[float, list[npt.NDArray[np.float64]]] = {s: [] for s in STRENGTHS}
    for f, g_f in enumerate(groups):
        inner = [
            option_rows(prepared, counts, totals, sorted(g), g | g_f, families=fam, windows=windows)
            for i, g in enumerate(groups)
            if i != f
        ]
        x = np.concatenate([r.x for r in inner])
        y = np.concatenate([labels(r, corpus, compare) for r in inner])
        for s in STRENGTHS:
            if y.all() or not y.any():
                probs[s].append(np.full(len(outer[f]), float(y.mean()) if len(y) else 0.0))
                continue
            probs[s].append(fit(x, y, s).probabilities(outer[f].x))
    views = prepared.fold_views(folds)  # the selection's, made once
    ranked = []
    for s in STRENGTHS:
        for t in THRESHOLDS:
            scored = _decide_folds(views, outer, probs[s], t, selection)
            ranked.append((exact_error(pairs_of(scored), gold)[0], s, t))
    ranked.sort()
    best: _WindowFit | None = None
    for _, s, t in ranked[:LEARNED_FINALISTS]:
        scored = _decide_folds(views, outer, probs[s], t, selection)
        ser = shared_task_ser(data, corpus, _predictions(scored, corpus))
        if best is None or ser < best.ser:
            best = _WindowFit(window, ser, s, t, scored, outer, probs[s], totals, y_all)
    logger.info(
        "learned decision %s, window %s: cv SER %.4f",
        data.key,
        window_label(window),
        best.ser if best else float("nan"),
    )
    return best


def _decide_folds(
    views: Sequence[FoldView],
    rows: Sequence[Rows],
    probs: Sequence[npt.NDArray[np.float64]],
    threshold: float,
    selection: Selection,
) -> Scored:
    out: Scored = {}
    for view, r, p in zip(views, rows, probs):
        out |= with_rules(view, choose_learned(r, p, threshold), selection.rules, selection.decision)
    return out


def _predictions(scored: Scored, corpus: Corpus) -> dict[str, list[Annotation]]:
    return with_confidence(scored, corpus.texts)


def with_confidence(scored: Scored, texts: Mapping[str, str]) -> dict[str, list[Annotation]]:
    """Annotations ``M1``, ``M2``... per document (:func:`~.select.to_predictions`), each with its confidence."""
    out = {}
    for doc, pairs in to_predictions(pairs_of(scored), texts).items():
        conf: dict[tuple[tuple[Span, ...], str], float] = {}
        for spans, cls, v in scored[doc]:
            conf[(spans, cls)] = max(v, conf.get((spans, cls), 0.0))
        out[doc] = [replace(a, confidence=round(conf[(a.spans, a.class_id)], 4)) for a in pairs]
    return out


def write_confidences(predictions: Mapping[str, Sequence[Annotation]], path: Path) -> None:
    """``confidence.tsv``: document, class, spans (as BioNLP writes them: ``0 3;8 14``), confidence."""
    lines = ["document\tclass\tspans\tconfidence"]
    for doc in sorted(predictions):
        for a in predictions[doc]:
            spans = ";".join(f"{s.start} {s.end}" for s in a.spans)
            lines.append(f"{doc}\t{a.class_id}\t{spans}\t{'' if a.confidence is None else a.confidence}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def finite(values: Sequence[float]) -> bool:
    """Whether every value is a finite number (a model.json read back is checked so)."""
    return all(isinstance(v, float) and math.isfinite(v) for v in values)
