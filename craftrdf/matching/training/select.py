"""Choosing the configuration and the decision threshold together, by cross-validation over documents.

For each matcher configuration of the selection (:data:`FULL` or :data:`QUICK`), the
training documents are matched once with the union of the ontology's names and every
gold name (:class:`Prepared`); per document, the terms' counts are kept. A fold's
documents are then decided with what the *other* folds teach: counts summed over the
other documents only, and gold names written only in the fold left out of the
dictionary (:func:`cross_validated`). Because the contiguous search with every match
at every position finds a name's matches independently of the other names, this is
exactly matching each fold with a dictionary built without it, done once.

Every (configuration, decision, rules) point is ranked by the cross-validated exact
error ``(FP + FN) / gold``; the best few are then scored with the Shared Task's slot
error rate (Wang similarity, or exact classes for a set without ontology), and the
lowest wins. No document is ever decided by counts or names it contributed.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ...analysis.evaluation.official import official_class, official_scores, renames_parallel
from ...core.model import Annotation, Span
from ..matcher.annotate import MatchingSession
from ..matcher.config import FindAllMatches, MatcherConfig, Synonyms, TextNormalization
from ..matcher.dictionary import Dictionary
from ..matcher.search import SearchIndex
from .data import Corpus, SetData
from .engine import (
    Candidate,
    Decision,
    Key,
    Term,
    add_counts,
    choose_options,
    count_terms,
    find_candidates,
    resolve,
    surface_term,
    to_annotations,
)
from .family import family_candidates, family_index, is_family, with_families
from .names import GoldNames, gold_names
from .rules import RuleContext, Rules, ShortForm, apply_rules, short_forms
from .symbols import symbol_candidates

logger = logging.getLogger(__name__)

ANNOTATOR = "craftrdf trained matcher"


def _configs(cases: Sequence[str], stemmers: Sequence[str], synonyms: Sequence[str]) -> tuple[MatcherConfig, ...]:
    return tuple(
        MatcherConfig(caseMatch=c, stemmer=s, synonyms=y, findAllMatches=FindAllMatches.YES)  # type: ignore[arg-type]
        for c in cases
        for s in stemmers
        for y in synonyms
    )


#: The selection's configurations: two case policies by two stemmers, and no stemmer, with exact
#: synonyms. A wider grid (CASE_SENSITIVE, all synonyms; 12 configurations) was never chosen by the
#: cross-validation on any of the ten Shared Task sets and took 2.4 times as long.
FULL = _configs(("CASE_INSENSITIVE", "CASE_IGNORE"), ("PORTER", "BIOLEMMATIZER"), ("EXACT_ONLY",)) + _configs(
    ("CASE_INSENSITIVE",), ("NONE",), ("EXACT_ONLY",)
)
#: ``--quick``: one configuration (the normalization of the Uberon paper's best F1 on UBERON).
#: Every configuration finds all matches (``findAllMatches=YES``); the decisions resolve overlaps.
QUICK = (MatcherConfig(findAllMatches=FindAllMatches.YES),)
#: Decision points tried with every configuration.
DECISIONS = tuple(Decision(threshold=t, prior=p) for t in (0.3, 0.4, 0.5, 0.6) for p in (0.1, 0.5))
QUICK_DECISIONS = tuple(Decision(threshold=t, prior=p) for t in (0.4, 0.5) for p in (0.1, 0.5))
#: Every combination of the rules; those with ``modifiers``, then ``parentheses``, last, so that on a tie the
#: earlier wins.
RULES = tuple(
    Rules(a, c, f, p, m)
    for m in (False, True)
    for p in (False, True)
    for f in (False, True)
    for a in (False, True)
    for c in (False, True)
)
#: How many of the best points by exact error are scored with the slot error rate (the lowest wins).
#: Scoring only the best one saves 1-2 s a set and cost UBERON's --quick 0.198 -> 0.274 on test.
FINALISTS = 4

OntologySource = Callable[[TextNormalization, Synonyms], Dictionary]
Pairs = dict[str, list[tuple[tuple[Span, ...], str]]]


@dataclass(frozen=True, slots=True)
class Grid:
    """What the selection tries (configurations, decisions, rules), over how many folds, and how many finalists."""

    configs: tuple[MatcherConfig, ...] = FULL
    decisions: tuple[Decision, ...] = DECISIONS
    rules: tuple[Rules, ...] = RULES
    folds: int = 5
    finalists: int = FINALISTS

    @classmethod
    def of(cls, quick: bool, folds: int = 5) -> Grid:
        """The full grid, or ``--quick``'s (one configuration, four decisions)."""
        return cls(QUICK, QUICK_DECISIONS, RULES, folds) if quick else cls(folds=folds)


@dataclass(eq=False)
class Prepared:
    """One configuration's matches and term counts on every training document."""

    config: MatcherConfig
    session: MatchingSession
    names: GoldNames
    ontology: Mapping[Key, frozenset[str]]
    candidates: dict[str, list[Candidate]]
    counts: dict[str, Counter[tuple[Term, bool]]]
    total: dict[Term, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for c in self.counts.values():
            add_counts(self.total, c)
        self.names_by_key: dict[Key, list[tuple[str, frozenset[str]]]] = {}
        for (key, cls), docs in self.names.documents.items():
            self.names_by_key.setdefault(key, []).append((cls, docs))
        self._short_forms: dict[str, tuple[ShortForm, ...]] = {}
        self._views: dict[int, list[FoldView]] = {}

    def fold_views(self, folds: int) -> list[FoldView]:
        """One :class:`FoldView` per fold of the documents (:func:`folds_of`), made once.

        The selection and the learned decision decide the same folds with the same views.
        """
        hit = self._views.get(folds)
        if hit is None:
            hit = self._views[folds] = [FoldView(self, f) for f in folds_of(list(self.candidates), folds)]
        return hit

    def short_forms(self, document: str) -> tuple[ShortForm, ...]:
        """The document's defined short forms under this configuration's normalization (computed once)."""
        hit = self._short_forms.get(document)
        if hit is None:
            normalization = self.config.normalization
            text = self.session.normalized(document, normalization).tokenized.text
            hit = self._short_forms[document] = short_forms(text, self.session.normalizer(normalization))
        return hit


def prepare(
    session: MatchingSession,
    corpus: Corpus,
    config: MatcherConfig,
    ontology: Dictionary | None,
    compare: Callable[[str], str] = str,
) -> Prepared:
    """Match every training document with the ontology's names and all gold names; count the terms."""
    normalization = config.normalization
    names = gold_names(corpus.gold, corpus.texts, session.normalizer(normalization))
    names = with_families(names, corpus.gold, corpus.texts, session, normalization)
    family = family_index(names, normalization, config.synonyms)
    indexes = [SearchIndex(names.dictionary(normalization, config.synonyms), False)]
    if ontology is not None:
        indexes.append(SearchIndex(ontology, False))
    candidates: dict[str, list[Candidate]] = {}
    counts: dict[str, Counter[tuple[Term, bool]]] = {}
    symbols = names.symbols()
    for doc in corpus.texts:
        candidates[doc] = find_candidates(doc, session.normalized(doc, normalization), indexes)
        candidates[doc] += family_candidates(doc, session, family, normalization, candidates[doc])
        candidates[doc] += symbol_candidates(doc, corpus.texts[doc], symbols)
        counts[doc] = count_terms(candidates[doc], ((a.spans, a.class_id) for a in corpus.gold[doc]), compare)
    entries = ontology.entries if ontology is not None else {}
    return Prepared(config, session, names, entries, candidates, counts)


def folds_of(documents: Sequence[str], folds: int) -> list[frozenset[str]]:
    """Documents dealt into folds in sorted order (document i to fold i mod ``folds``)."""
    docs = sorted(documents)
    k = min(folds, len(docs))
    return [frozenset(d for i, d in enumerate(docs) if i % k == f) for f in range(k)]


class FoldView:
    """What the documents of ``leave_out`` may use: counts and names of the other documents only.

    The allowed classes of every candidate of the left-out documents, with their counts, are
    computed once, so many decisions can be tried cheaply.
    """

    def __init__(
        self, prepared: Prepared, leave_out: frozenset[str] = frozenset(), documents: Sequence[str] = ()
    ) -> None:
        self.prepared = prepared
        self.leave_out = leave_out
        self.documents = sorted(documents or leave_out)
        own: dict[Term, list[int]] = {}
        for d in leave_out:
            add_counts(own, prepared.counts[d])
        self._own = own
        zero = [0, 0]
        total, onto, name_docs = prepared.total, prepared.ontology, prepared.names.documents
        self.options: dict[str, list[tuple[Candidate, list[tuple[str, int, int, int, int]]]]] = {}
        for doc in self.documents:
            rows = []
            for c in prepared.candidates[doc]:
                opts = []
                family = is_family(c.key)
                on = onto.get(c.key, ())
                for cls in c.classes:
                    if cls not in on:
                        docs = name_docs.get((c.key, cls))
                        if docs is None or not docs - leave_out:
                            continue
                    t, o = total.get((c.key, cls), zero), own.get((c.key, cls), zero)
                    if family and t[0] == o[0]:  # a family term is decided only where training found it right
                        continue
                    st = surface_term(c.surface, cls)
                    ts, os_ = total.get(st, zero), own.get(st, zero)
                    opts.append((cls, t[0] - o[0], t[1] - o[1], ts[0] - os_[0], ts[1] - os_[1]))
                if opts:
                    rows.append((c, opts))
            self.options[doc] = rows

    def stats(self, term: Term) -> tuple[int, int]:
        """A term's (true positives, finds) on the documents not left out."""
        t = self.prepared.total.get(term, [0, 0])
        o = self._own.get(term, [0, 0])
        return t[0] - o[0], t[1] - o[1]

    def classes_of(self, key: Key) -> list[str]:
        """The classes a key may have: the ontology's, and gold names' written outside the left-out documents."""
        found = set(self.prepared.ontology.get(key, ()))
        found.update(cls for cls, docs in self.prepared.names_by_key.get(key, ()) if docs - self.leave_out)
        return sorted(found)

    def decide(self, decision: Decision, rules: Rules) -> Pairs:
        """(spans, class) kept per document under ``decision`` and ``rules``."""
        prepared = self.prepared
        normalization = prepared.config.normalization
        normalizer = prepared.session.normalizer(normalization)
        out: Pairs = {}
        for doc in self.documents:
            options = self.options[doc]
            if not rules.families:
                options = [o for o in options if not is_family(o[0].key)]
            kept = resolve(choose_options(options, decision))
            if rules.rewrites:
                normalized = prepared.session.normalized(doc, normalization)
                sf = prepared.short_forms(doc) if rules.abbreviations or rules.parentheses else ()
                ctx = RuleContext(doc, normalized, normalizer, self.stats, self.classes_of, decision, sf)
                out[doc] = apply_rules(ctx, kept, rules)
            else:
                out[doc] = [(c.spans, cls) for c, cls, _ in kept]
        return out


def decide(
    prepared: Prepared,
    documents: Sequence[str],
    decision: Decision,
    rules: Rules,
    leave_out: frozenset[str] = frozenset(),
) -> Pairs:
    """(spans, class) kept per document, with counts and names of the documents not in ``leave_out``."""
    return FoldView(prepared, leave_out, documents).decide(decision, rules)


def cross_validated(prepared: Prepared, corpus: Corpus, decision: Decision, rules: Rules, folds: int = 5) -> Pairs:
    """Every training document decided by what the other folds taught."""
    return _cv([FoldView(prepared, f) for f in folds_of(list(corpus.texts), folds)], decision, rules)


def _cv(views: Sequence[FoldView], decision: Decision, rules: Rules) -> Pairs:
    out: Pairs = {}
    for view in views:
        out |= view.decide(decision, rules)
    return out


def comparer(set_key: str) -> Callable[[str], str]:
    """The class an exact match compares a class under (:func:`~craftrdf.analysis.evaluation.official.official_class`).

    Memoized: the selection compares millions of classes of a few hundred ids (a regex match each
    was a tenth of an _EXT set's training).
    """
    if not renames_parallel(set_key):
        return str
    return functools.cache(functools.partial(official_class, set_key=set_key))


class ExactGold:
    """A corpus's gold as exact matches compare it, per document: (sorted spans, class as ``compare`` maps it).

    Built once for the many points the selection scores (each :func:`exact_error` rebuilt it).
    """

    def __init__(self, corpus: Corpus, compare: Callable[[str], str] = str) -> None:
        self.compare = compare
        self.annotations = corpus.annotations
        self.documents = {
            d: frozenset((tuple(sorted(a.spans)), compare(a.class_id)) for a in anns) for d, anns in corpus.gold.items()
        }


def exact_error(pairs: Pairs, gold: ExactGold) -> tuple[float, int, int, int]:
    """``((FP + FN) / gold, TP, FP, FN)`` of kept pairs, exact spans and class (as ``gold.compare`` maps it)."""
    tp = fp = 0
    compare = gold.compare
    for doc, kept in pairs.items():
        right = gold.documents[doc]
        for spans, cls in {(tuple(sorted(sp)), compare(c)) for sp, c in kept}:
            if (spans, cls) in right:
                tp += 1
            else:
                fp += 1
    n = gold.annotations
    fn = n - tp
    return (fp + fn) / max(n, 1), tp, fp, fn


def to_predictions(pairs: Pairs, texts: Mapping[str, str]) -> dict[str, list[Annotation]]:
    """Kept pairs as annotations, per document."""
    return {doc: to_annotations(doc, texts[doc], kept, ANNOTATOR) for doc, kept in pairs.items()}


def shared_task_ser(data: SetData, corpus: Corpus, predictions: Mapping[str, Sequence[Annotation]]) -> float:
    """The official Shared Task slot error rate of predictions on the corpus's documents (:mod:`.scoring`)."""
    return official_scores(data.key, corpus.gold, predictions, data.wang).ser


@dataclass(frozen=True, slots=True)
class Selection:
    """The point chosen, its cross-validated scores, and every point's exact error (for the report)."""

    config: MatcherConfig
    decision: Decision
    rules: Rules
    cv_ser: float
    cv_exact: tuple[float, int, int, int]
    tried: tuple[tuple[MatcherConfig, Decision, Rules, float], ...]
    seconds: float


def select(
    session: MatchingSession, corpus: Corpus, data: SetData, ontology: OntologySource | None, grid: Grid = Grid()
) -> tuple[Selection, Prepared]:
    """Choose configuration, decision and rules together by ``grid.folds``-fold cross-validation on ``corpus``."""
    t0 = time.perf_counter()
    compare = comparer(data.key)
    gold = ExactGold(corpus, compare)
    finalists, rules = grid.finalists, grid.rules
    ranked: list[tuple[float, int, MatcherConfig, Decision, Rules]] = []
    prepared: dict[MatcherConfig, tuple[Prepared, list[FoldView]]] = {}
    for n, config in enumerate(grid.configs):
        dictionary = ontology(config.normalization, config.synonyms) if ontology is not None else None
        p = prepare(session, corpus, config, dictionary, compare)
        views = p.fold_views(grid.folds)
        plain = rules[0]
        scored = []
        for decision in grid.decisions:
            err = exact_error(_cv(views, decision, plain), gold)[0]
            scored.append((err, decision))
            ranked.append((err, len(ranked), config, decision, plain))
        best_decision = min(scored, key=lambda x: x[0])[1]
        for r in rules[1:]:  # the rules are tried with the configuration's best decision
            err = exact_error(_cv(views, best_decision, r), gold)[0]
            ranked.append((err, len(ranked), config, best_decision, r))
        prepared[config] = p, views  # the finalists are decided again with the same views
        best_cfg = {c for _, _, c, _, _ in sorted(ranked)[:finalists]}
        for c in list(prepared):  # keep only what may still be a finalist
            if c not in best_cfg:
                del prepared[c]
        logger.info("selection %s: %d/%d %s", data.key, n + 1, len(grid.configs), config.label())
    ranked.sort()
    best: tuple[float, MatcherConfig, Decision, Rules, tuple[float, int, int, int]] | None = None
    for _, _, config, decision, r in ranked[:finalists]:
        pairs = _cv(prepared[config][1], decision, r)
        ser = shared_task_ser(data, corpus, to_predictions(pairs, corpus.texts))
        if best is None or ser < best[0]:
            best = (ser, config, decision, r, exact_error(pairs, gold))
    assert best is not None
    ser, config, decision, r, exact = best
    tried = tuple((c, d, rr, e) for e, _, c, d, rr in ranked)
    return Selection(config, decision, r, ser, exact, tried, time.perf_counter() - t0), prepared[config][0]
