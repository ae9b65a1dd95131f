"""Turning the learned decision's probabilities into annotations, with their confidences.

Each candidate keeps its class of highest probability when that probability reaches the
threshold (:func:`choose_learned`); overlaps are resolved as the threshold decision resolves
them; the rules (:mod:`.rules`) then add what they add, each added annotation taking the
confidence of the one that licensed it (:func:`with_rules`). The same steps decide the
cross-validation's folds (:mod:`.learn`) and a new document (``annotate --model``,
:mod:`.train`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.model import Annotation, Span
from .engine import Candidate, resolve
from .features import Rows
from .rules import RuleContext, Rules, apply_rules, crosses_parenthesis
from .select import FoldView, Pairs, Selection, to_predictions

#: (spans, class, confidence) kept per document
Scored = dict[str, list[tuple[tuple[Span, ...], str, float]]]
#: The file of confidences beside the BioNLP files of ``annotate --model``.
CONFIDENCES = "confidence.tsv"


Best = list[tuple[float, Candidate, str]]
#: :func:`decide_folds`' annotations of a document, by (its ``tops`` list, the document, how many candidates it keeps).
Memo = dict[tuple[int, str, int], list[tuple[tuple[Span, ...], str, float]]]


def best_options(rows: Rows, p: npt.NDArray[np.float64]) -> Best:
    """Each candidate's class of highest probability (the greater class on ties), in candidate order.

    Whatever the threshold, a candidate keeps this class or nothing: the thresholds tried
    share one pass over the rows.
    """
    best: dict[int, tuple[float, Candidate, str]] = {}
    for c, cls, v in zip(rows.candidates, rows.classes, p.tolist()):
        hit = best.get(id(c))
        if hit is None or (v, cls) > (hit[0], hit[2]):
            best[id(c)] = (v, c, cls)
    return list(best.values())


def choose_learned(
    rows: Rows, p: npt.NDArray[np.float64], threshold: float, best: Best | None = None
) -> dict[str, list[tuple[Candidate, str, float]]]:
    """Per document: each candidate's class of highest probability reaching ``threshold``; overlaps resolved.

    ``best``: :func:`best_options` of the same rows and probabilities, when already made.
    """
    by_doc: dict[str, list[tuple[Candidate, str, float]]] = {}
    for v, c, cls in best if best is not None else best_options(rows, p):
        if v >= threshold:
            by_doc.setdefault(c.document, []).append((c, cls, v))
    return {d: resolve(kept) for d, kept in by_doc.items()}


def with_rules(
    view: FoldView,
    kept: Mapping[str, Sequence[tuple[Candidate, str, float]]],
    rules: Rules,
    selection_decision: Any,
    documents: Sequence[str] | None = None,
) -> Scored:
    """The rules applied after the learned choices (with the selected threshold decision, as today); confidences kept.

    An annotation a rule adds takes the confidence of the kept annotation that licensed it: for an
    abbreviation, the long form's; for an elided head or a stacked modifier, the highest of its
    document's class; for a part split at a parenthesis (and its long form), the annotation split.
    ``documents``: those of the view to decide (default: all of them).
    """
    prepared = view.prepared
    normalization = prepared.config.normalization
    normalizer = prepared.session.normalizer(normalization)
    out: Scored = {}
    for doc in view.documents if documents is None else documents:
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


def decide_folds(
    views: Sequence[FoldView],
    rows: Sequence[Rows],
    probs: Sequence[npt.NDArray[np.float64]],
    threshold: float,
    selection: Selection,
    tops: Sequence[Best] | None = None,
    memo: Memo | None = None,
) -> Scored:
    """Each fold's annotations at ``threshold``: its candidates' best classes reaching it, overlaps resolved, rules.

    ``memo`` (with ``tops``) keeps each document's annotations by how many of its candidates reach the
    threshold: a document's kept candidates at a threshold are those of ``tops`` reaching it, so their
    number names them, and most documents keep the same ones at neighbouring thresholds.
    """
    out: Scored = {}
    for i, (view, r, p) in enumerate(zip(views, rows, probs)):
        if tops is None or memo is None:
            kept = choose_learned(r, p, threshold, tops[i] if tops is not None else None)
            out |= with_rules(view, kept, selection.rules, selection.decision)
            continue
        by_doc: dict[str, list[tuple[Candidate, str, float]]] = {}
        for v, c, cls in tops[i]:
            if v >= threshold:
                by_doc.setdefault(c.document, []).append((c, cls, v))
        keys = {doc: (id(tops[i]), doc, len(by_doc.get(doc, ()))) for doc in view.documents}
        todo = [doc for doc in view.documents if keys[doc] not in memo]
        new = with_rules(view, {d: resolve(by_doc.get(d, [])) for d in todo}, selection.rules, selection.decision, todo)
        for doc in view.documents:
            out[doc] = new[doc] if doc in new else memo[keys[doc]]
            memo[keys[doc]] = out[doc]
    return out


def pairs_of(scored: Scored) -> Pairs:
    """(spans, class) per document, confidences dropped."""
    return {d: [(s, c) for s, c, _ in kept] for d, kept in scored.items()}


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
