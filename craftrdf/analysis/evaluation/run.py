"""Scoring a prediction against gold, set by set: inputs, the scores, the report files.

The data path: :func:`~.inputs.load_side` reads annotations (store set keys, a Shared Task
directory: one subdirectory per set key holding ``<PMID>.bionlp`` files, or one folder of
them); :func:`evaluate_sets` pairs the sets and documents and scores them with the official
scorer (:mod:`.official`, over each set's graph passed in) and the criteria of
:mod:`.criteria`; :func:`write_report` writes ``<key>_results.tsv``, ``<key>_criteria.tsv`` and
``summary.json``, and :func:`format_table` the terminal table, all from one
:class:`~.scores.Scores` per document and set (the TSV and the table its official rates,
summary.json its float values, unrounded). :func:`evaluate_store` wires these to a store (each set's official
graph, :func:`~.official_graph.set_scorers`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...building.builder import build_store
from ...core.context import RunContext
from ...core.errors import ConfigError
from ...core.model import Annotation
from ...core.registry import Registry
from ...ingest.ids import only_documents
from ...querying.webanno import document_texts
from ...store.local import AnnotationStore, ReadableStore
from ..rules import Mappings, RuleReport, apply_rules, craft_rules, set_mappings
from .criteria import (
    CRITERIA,
    ClassMode,
    CriterionScores,
    criteria_scores,
    total_criteria,
)
from .inputs import Side, check_against_texts, load_side, set_keys
from .official import Boundary, official_class, official_row, score_official
from .official_graph import OfficialWang, official_related, set_scorers
from .scores import Scores, total, written

logger = logging.getLogger(__name__)

RESULTS_HEADER = (
    "#document-id\tsubstitutions\tinsertions\tdeletions\tmatches\tref-count\t"
    "prediction-count\tSER\tprecision\trecall\tF1-score"
)


@dataclass(frozen=True, slots=True)
class SetReport:
    """The scores of one set: per document (sorted by id), the total, the criteria totals.

    ``rules`` holds what CRAFT's post-processing rules changed in the prediction before
    scoring (empty when they were not applied); ``text_mismatches`` how many predicted
    annotations have a text column that differs from the article (scored by their offsets).
    """

    key: str
    documents: tuple[tuple[str, Scores], ...]
    total: Scores
    criteria: tuple[CriterionScores, ...]
    rules: tuple[RuleReport, ...] = ()
    text_mismatches: int = 0


@dataclass(frozen=True, slots=True)
class EvaluateOptions:
    """How :func:`evaluate_store` scores: the ``craftrdf evaluate`` options of the same names.

    ``boundary`` and ``criteria`` as for :func:`evaluate_sets`; ``apply_craft_rules`` runs CRAFT's
    post-processing rules on the prediction first; ``ids`` (a file of document ids): only those
    predicted documents are scored.
    """

    boundary: Boundary = "jaccard"
    criteria: Sequence[str] = CRITERIA
    apply_craft_rules: bool = False
    ids: Path | None = None


def parse_criteria(spec: str) -> tuple[str, ...]:
    """``all`` or a comma-separated list of criteria; ConfigError naming an unknown one.

    >>> parse_criteria("exact, left")
    ('exact', 'left')
    """
    if spec.strip().lower() == "all":
        return CRITERIA
    names = tuple(c.strip().lower().replace("-", "_") for c in spec.split(",") if c.strip())
    for c in names:
        if c not in CRITERIA:
            raise ConfigError(f"unknown criterion {c!r}: use all or some of {', '.join(CRITERIA)}")
    return names


def _pair_sets(gold: Side, pred: Side) -> list[tuple[str, str, str]]:
    """(report key, gold key, pred key): keys equal ignoring case, else the only set of each side."""
    by_upper = {k.upper(): k for k in gold}
    pairs = []
    for pk in pred:
        gk = by_upper.get(pk.upper())
        if gk is None and len(gold) == 1 and len(pred) == 1:
            gk = next(iter(gold))
        if gk is None:
            raise ConfigError(f"prediction set {pk} has no gold set (gold sets: {', '.join(sorted(gold))})")
        pairs.append((gk, gk, pk))
    return pairs


def evaluate_sets(
    gold: Side,
    pred: Side,
    official: Callable[[str], OfficialWang],
    *,
    boundary: Boundary = "jaccard",
    criteria: Sequence[str] = CRITERIA,
    texts: Mapping[str, str] | None = None,
    rules: Callable[[str], Mappings] | None = None,
    articles: Mapping[str, str] | None = None,
) -> list[SetReport]:
    """Score every prediction set against its gold set, only on the documents of the prediction.

    ``official`` maps a set key to its official scorer's graph
    (:func:`~craftrdf.analysis.evaluation.official_graph.set_scorers`; ``exact_wang`` for exact
    classes only) and the Shared Task score is the official one
    (:func:`~craftrdf.analysis.evaluation.official.score_official`: that graph's similarity and
    declared classes, the official renaming). ``rules``, when given, maps a gold set key to
    its mapping data, and CRAFT's post-processing rules (:func:`craft_rules`) run on the
    prediction before scoring.

    ``articles`` (PMID -> text) holds the prediction against the articles first
    (:func:`~.inputs.check_against_texts`; the count goes to ``SetReport.text_mismatches``).

    A predicted document with no gold document raises ConfigError naming it. Criteria are
    computed for class modes ``exact``, ``ignore`` and ``hierarchy`` (ancestor or descendant
    in the official graph); ``fragment`` only for documents whose text is in ``texts``. For
    the criteria, classes get the same renaming and ontology filter as the Shared Task score.
    """
    modes: list[ClassMode] = ["exact", "ignore", "hierarchy"]
    reports = []
    for key, gk, pk in _pair_sets(gold, pred):
        gdocs, pdocs = gold[gk], pred[pk]
        wang = official(key)
        related = official_related(wang)
        mismatches = check_against_texts({key: pdocs}, articles)[key] if articles is not None else 0
        applied: tuple[RuleReport, ...] = ()
        if rules is not None:
            pdocs, applied = _postprocess(pdocs, gk, rules(gk))
        missing = sorted(d for d in pdocs if d not in gdocs)
        if missing:
            raise ConfigError(f"set {pk}: predicted document(s) with no gold document: {', '.join(missing)}")
        per_doc = []
        crit: list[CriterionScores] = []
        for doc in sorted(pdocs):
            refs, preds = gdocs[doc], pdocs[doc]
            per_doc.append((doc, score_official(refs, preds, wang, boundary=boundary, set_key=key)))
            r, p = _for_criteria(refs, key, wang), _for_criteria(preds, key, wang)
            text = texts.get(doc) if texts else None
            for mode in modes:
                crit.extend(
                    criteria_scores(
                        r,
                        p,
                        criteria=criteria,
                        classes=mode,
                        related=related if mode == "hierarchy" else None,
                        text=text,
                    )
                )
        scores = total(s for _, s in per_doc)
        reports.append(SetReport(key, tuple(per_doc), scores, tuple(total_criteria(crit)), applied, mismatches))
    return reports


def _postprocess(
    docs: Mapping[str, list[Annotation]], key: str, mappings: Mappings
) -> tuple[dict[str, list[Annotation]], tuple[RuleReport, ...]]:
    flat = [a for d in sorted(docs) for a in docs[d]]
    result, reports = apply_rules(flat, craft_rules(key), mappings)
    out: dict[str, list[Annotation]] = {d: [] for d in docs}  # a document emptied by the rules is still scored
    for a in result:
        out[a.document].append(a)
    for r in reports:
        logger.info(
            "set %s: rule %s: %d -> %d annotations (%d dropped, %d replaced, %d duplicates removed)",
            key,
            r.rule,
            r.before,
            r.after,
            r.dropped,
            r.replaced,
            r.duplicates,
        )
    return out, tuple(reports)


def _for_criteria(anns: Sequence[Annotation], key: str, wang: OfficialWang) -> list[Annotation]:
    """The annotations the official scorer keeps, under the classes it compares (renamed, declared)."""
    out = []
    for a in anns:
        c = official_class(a.class_id, key)
        if c in wang.graph:
            out.append(a if c == a.class_id else Annotation(a.id, a.document, c, a.spans, a.text, a.annotator))
    return out


# -- output -----------------------------------------------------------------------------


def _num(x: float) -> str:
    return f"{x:.4f}"


def _scores_json(s: Scores) -> dict[str, float]:
    """The float values (:mod:`.scores`): M, S and the rates unrounded, as JSON numbers."""
    return {
        "substitutions": s.substitutions,
        "insertions": s.insertions,
        "deletions": s.deletions,
        "matches": s.matches,
        "ref_count": s.ref_count,
        "pred_count": s.pred_count,
        "SER": s.ser,
        "precision": s.precision,
        "recall": s.recall,
        "F1": s.f1,
    }


def write_report(reports: Iterable[SetReport], out: str | Path, *, boundary: str = "jaccard") -> list[Path]:
    """Write ``<key>_results.tsv`` and ``<key>_criteria.tsv`` per set and ``summary.json``; the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    sets: dict[str, object] = {}
    summary: dict[str, object] = {"boundary": boundary, "sets": sets}
    for r in reports:
        lines = [RESULTS_HEADER] + [official_row(d, s) for d, s in r.documents] + [official_row("TOTAL", r.total)]
        p = out / f"{r.key}_results.tsv"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(p)
        lines = ["#criterion\tclasses\ttrue-positives\tref-count\tprediction-count\tprecision\trecall\tF1-score"]
        lines += [
            f"{c.criterion}\t{c.classes}\t{c.tp}\t{c.ref_count}\t{c.pred_count}\t{_num(c.precision)}\t"
            f"{_num(c.recall)}\t{_num(c.f1)}"
            for c in r.criteria
        ]
        p = out / f"{r.key}_criteria.tsv"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(p)
        sets[r.key] = {
            "total": _scores_json(r.total),
            "documents": {d: _scores_json(s) for d, s in r.documents},
            "criteria": [
                {
                    "criterion": c.criterion,
                    "classes": c.classes,
                    "tp": c.tp,
                    "ref_count": c.ref_count,
                    "pred_count": c.pred_count,
                    "precision": c.precision,
                    "recall": c.recall,
                    "F1": c.f1,
                }
                for c in r.criteria
            ],
            "craft_rules": [
                {
                    "rule": x.rule,
                    "before": x.before,
                    "after": x.after,
                    "dropped": x.dropped,
                    "replaced": x.replaced,
                    "duplicates": x.duplicates,
                }
                for x in r.rules
            ],
            "text_mismatches": r.text_mismatches,
        }
    p = out / "summary.json"
    p.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    paths.append(p)
    return paths


def format_table(reports: Iterable[SetReport]) -> str:
    """A short terminal table: one line per set with its totals, the numbers its TSV's TOTAL row has.

    M to 2 decimals, the rates to 4, rounded half-up from the official values (:attr:`.Scores.rates`):
    the float values rounded by Python's formatting could differ from the TSV in the fourth decimal
    (3/20,000 = 0.00015 prints as 0.0001 from a float, 0.0002 half-up).
    """
    lines = [f"{'set':<14}{'docs':>5}{'ref':>7}{'pred':>7}{'M':>9}{'SER':>8}{'P':>8}{'R':>8}{'F1':>8}"]
    for r in reports:
        t, rates = r.total, r.total.rates
        lines.append(
            f"{r.key:<14}{len(r.documents):>5}{t.ref_count:>7}{t.pred_count:>7}{written(t.exact, 2)!s:>9}"
            + "".join(f"{written(v)!s:>8}" for v in (rates.ser, rates.precision, rates.recall, rates.f1))
        )
    return "\n".join(lines) + "\n"


# -- from a store ---------------------------------------------------------------------------


def _texts(craft: str | Path | None, documents: Iterable[str]) -> dict[str, str]:
    if craft is None:
        return {}
    out = {}
    for d in documents:
        p = Path(craft) / "articles" / "txt" / f"{d}.txt"
        if p.is_file():
            out[d] = p.read_text(encoding="utf-8")
    return out


def evaluate_store(
    store: ReadableStore,
    gold: str,
    pred: str,
    registry: Registry,
    *,
    options: EvaluateOptions = EvaluateOptions(),
    craft: str | Path | None = None,
) -> list[SetReport]:
    """:func:`evaluate_sets` with the official scorer's graph of each set's ontology
    (:func:`~craftrdf.analysis.evaluation.official_graph.set_scorers` of ``registry``: the set's OBO file
    in ``craft`` when given and there, else the store's ontology graph); ``craft`` (a CRAFT
    directory) also supplies document texts for the fragment criterion.

    With ``options.apply_craft_rules`` the prediction goes through :func:`craft_rules` first, with
    the mapping files the store holds for the gold set key. ``options.ids``: a file of document ids
    (:mod:`craftrdf.ingest.ids`): only those predicted documents are scored.
    """
    articles = document_texts(store)
    g = load_side(gold, store, texts=articles)
    p = g if pred == gold else load_side(pred, store, texts=articles)
    if options.ids is not None:
        p = only_documents(p, options.ids)
    docs = {d for side in p.values() for d in side}

    def mappings(key: str) -> Mappings:
        found = set_mappings(store, key)
        if not (found.unused or found.substitutes):
            logger.warning("set %s: the store holds no mapping files for it; the CRAFT rules change nothing", key)
        return found

    return evaluate_sets(
        g,
        p,
        official=set_scorers(store, craft, registry),
        boundary=options.boundary,
        criteria=options.criteria,
        texts=_texts(craft, docs),
        rules=mappings if options.apply_craft_rules else None,
        articles=articles,
    )


def evaluate_craft(
    craft: str | Path,
    gold: str,
    pred: str,
    registry: Registry,
    *,
    options: EvaluateOptions = EvaluateOptions(),
) -> list[SetReport]:
    """:func:`evaluate_store` without a store: the sets named are read from a CRAFT directory.

    Builds an in-memory store of the sets the two sides name (their annotations,
    ontologies and mapping files; a few seconds a set), then scores as
    :func:`evaluate_store` does. Sets whose ontology file is absent score nothing: every
    class is then outside the ontology, which is logged.
    """
    keys = {registry.set(k).key for side in (gold, pred) for k in set_keys(side, registry.sets)}
    if not keys:
        raise ConfigError(
            "neither side names a set: a folder of .bionlp files does not say which set it is; "
            "give the gold set by its key (--gold UBERON_EXT)"
        )
    store = AnnotationStore.memory()
    build_store(Path(craft), store, RunContext(registry), sets=sorted(keys))
    return evaluate_store(store, gold, pred, registry, options=options, craft=craft)
