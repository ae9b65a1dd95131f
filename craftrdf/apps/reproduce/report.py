"""``report.md``: each section's table with the published value, craftrdf's value and the difference."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.model import Annotation
from ...matching.sweeps.entry import SweepReport
from .published import Published
from .sections import (
    EXPLAINED_CELLS,
    NESTED_PROJECT_PREFIX,
    CellCause,
    CountRow,
    NestingCounts,
    SimilarityDistribution,
    StatsRow,
)

if TYPE_CHECKING:
    from ...matching.training.evaluate import TestScore
    from ...matching.training.train import TrainReport


def _diff(ours: float, published: float | None, fmt: str = "{:+,}") -> str:
    return "—" if published is None else fmt.format(ours - published)


#: The public articles of CRAFT v2.1 the Uberon paper counted (train+dev of the current release).
PAPER_ARTICLES = 67

_COLUMNS = ("train+dev", "train+dev discontinuous", "test", "test discontinuous")


def _counts(rows: Sequence[CountRow], source: str, causes: Sequence[CellCause] = ()) -> list[str]:
    out = [
        "## 1. Annotation counts per set and split",
        "",
        f"Published: {source}. craftrdf: `craftrdf query annotation-counts` on the store.",
        "",
        "| set | train+dev (published / craftrdf / diff) | discontinuous | test | discontinuous |",
        "|---|---|---|---|---|",
    ]
    differing = []
    for r in rows:
        cells = []
        for i in range(4):
            pub = r.published[i] if r.published else None
            cells.append(f"{'—' if pub is None else f'{pub:,}'} / {r.ours[i]:,} / {_diff(r.ours[i], pub)}")
            if pub is not None and pub != r.ours[i]:
                differing.append((r.key, i, pub, r.ours[i]))
        out.append(f"| {r.key} | " + " | ".join(cells) + " |")
    out.append("")
    published_cells = sum(4 for r in rows if r.published)
    if not differing:
        out.append("Every published cell is reproduced exactly.")
    elif len(differing) <= EXPLAINED_CELLS:
        out += [
            "Cells that differ: "
            + "; ".join(f"{k} {_COLUMNS[i]} {p:,} → {o:,}" for k, i, p, o in differing)
            + ". The difference is, cell by cell:",
            "",
        ]
        found = {(c.key, c.column): c for c in causes}
        for k, i, p, o in differing:
            cause = found.get((k, i))
            out.append(
                f"- {k} {_COLUMNS[i]} ({o - p:+,}): "
                + (
                    _cause(cause)
                    if cause
                    else "no annotation without a span or with repeated spans accounts for it; cause not identified."
                )
            )
        out.append("")
    else:
        out.append(
            f"{len(differing)} of {published_cells} published cells differ: the store does not hold the whole "
            "corpus (a sample, or a subset of sets), so this table cannot match the paper."
        )
    out.append("Sets without a published value (—) were not part of the 2019 Shared Task (MONDO).")
    return out


def _cause(cause: CellCause) -> str:
    """One sentence naming the annotations (document, id, class, spans, text) behind a differing cell."""

    def describe(a: Annotation) -> str:
        spans = ", ".join(f"{s.start}–{s.end}" for s in a.spans) or "no span"
        text = f", “{a.text}”" if a.text else ""
        return f"{a.document} `{a.id}` ({a.class_id}, {spans}{text})"

    n = len(cause.annotations)
    names = "; ".join(describe(a) for a in cause.annotations[:5]) + ("; ..." if n > 5 else "")
    if cause.kind == "no span":
        return (
            f"{n} annotation{'s' if n > 1 else ''} without any span, which the build warns about and craftrdf "
            f"counts; without {'them' if n > 1 else 'it'} the count is the published one: {names}."
        )
    return (
        f"{n} annotation{'s' if n > 1 else ''} whose spans are all one and the same range: craftrdf keeps the "
        f"spans as the Knowtator file gives them, so it counts {'them' if n > 1 else 'it'} as discontinuous; "
        f"counted as contiguous (one range) the count is the published one: {names}."
    )


def _cell(ours: float, pub: float | None, kind: str) -> str:
    """``published / craftrdf / difference`` for a total or maximum (int), an average or a median."""
    if kind == "average":
        # rounded first, so that -0.04 reads +0.0 rather than -0.0
        o, d = f"{ours:,.1f}", "—" if pub is None else f"{round(ours - pub, 1) + 0.0:+,.1f}"
        p = "—" if pub is None else f"{pub:,.0f}"  # the paper rounds averages to integers
    elif kind == "median":
        o, d, p = f"{ours:g}", "—" if pub is None else f"{ours - pub:+g}", "—" if pub is None else f"{pub:g}"
    else:
        o, d, p = f"{ours:,.0f}", "—" if pub is None else f"{ours - pub:+,.0f}", "—" if pub is None else f"{pub:,.0f}"
    return f"{p} / {o} / {d}"


def _stats_tables(rows: Sequence[StatsRow], paper: Mapping[str, tuple[float, ...]]) -> list[str]:
    """The paper's Tables 3 and 4: one row per distributed set, each cell paper / craftrdf / difference."""
    out = []
    for table, what, offset in ((3, "annotations", 0), (4, "unique concepts", 4)):
        out += [
            f"Table {table}: {what}.",
            "",
            f"| distributed set (2017 paper) | craftrdf set, view | {what}: total | per article: average | "
            "median | maximum |",
            "|---|---|---|---|---|---|",
        ]
        for r in rows:
            s = r.stats
            ours = (
                (s.annotations, s.annotations_mean, s.annotations_median, s.annotations_max)
                if offset == 0
                else (s.concepts, s.concepts_mean, s.concepts_median, s.concepts_max)
            )
            pub = paper.get(r.paper_set)
            cells = [
                _cell(o, pub[offset + i] if pub else None, kind)
                for i, (o, kind) in enumerate(zip(ours, ("total", "average", "median", "maximum")))
            ]
            out.append(f"| {r.paper_set} | {r.key}, `--nesting {r.nesting}` | " + " | ".join(cells) + " |")
        out.append("")
    return out


def _stats_why(rows: Sequence[StatsRow], nesting: Mapping[str, NestingCounts]) -> list[str]:
    """Per row: the craftrdf set and view it is compared with, and why that is the closest analogue."""
    out = ["Why each row is compared with that set and view:", ""]
    for r in rows:
        n = nesting.get(r.key)
        inside = f"{n.same_set:,} of its {n.annotations:,}" if n else "the"
        classes = (
            "the release's set with proper Uberon classes only, as the paper's core set"
            if not r.key.endswith("_EXT")
            else "the release's set with proper and extension Uberon classes, as the paper's +extensions set"
        )
        if r.nesting == "outermost":
            how = (
                f"`craftrdf view --sets {r.key} --nesting outermost` drops each annotation lying wholly within "
                f"another annotation of {r.key} itself, the paper's nested annotation: {inside} annotations "
                "on these articles"
            )
        else:
            how = (
                f"the release distributes no separate nested set, so the nearest is {r.key} with every "
                f"annotation kept (`--nesting all`); {inside} annotations lie within another of {r.key}, "
                "so this row differs from the one without nesting by that many"
            )
        out.append(f"- **{r.paper_set}**: {r.key}, {classes}; {how}.")
    return [*out, ""]


def _stats(
    rows: Sequence[StatsRow], documents: int, published: Published, nesting: Sequence[NestingCounts] = ()
) -> list[str]:
    paper = published.uberon_stats
    by_key = {n.key: n for n in nesting}
    out = [
        "## 2. Uberon annotation statistics: the Uberon paper's Tables 3–4 beside the current release",
        "",
        (f"Published: {published.uberon_stats_source}. " if paper else "")
        + f"craftrdf: the same figures over the {documents} public articles (train+dev; the paper's 67) of the "
        "release the store was built from, one row per distributed set of the paper. Each cell is "
        "paper / craftrdf / difference.",
        "",
    ]
    out += _stats_tables(rows, paper)
    out += _stats_why(rows, by_key)
    if nesting:
        out += _stats_nesting(rows, by_key, paper, documents)
    if not paper:
        out += [
            "The paper's values are not in craftrdf/apps/reproduce/published.toml (`[uberon_paper.stats]`), so "
            "this section shows craftrdf's figures only."
        ]
    return out


def _stats_nesting(
    rows: Sequence[StatsRow],
    nesting: Mapping[str, NestingCounts],
    paper: Mapping[str, tuple[float, ...]],
    documents: int,
) -> list[str]:
    """Nesting counted three ways on the release, against the paper's nested annotations, and what moved."""
    keys = list(nesting)
    pairs: dict[str, dict[str, StatsRow]] = {}  # set key -> nesting filter -> its row
    for r in rows:
        pairs.setdefault(r.key, {})[r.nesting] = r
    out = [
        "Where the numbers differ, in counts (the same articles):",
        "",
        "| craftrdf set | annotations | unique concepts | within another annotation of the same set (the "
        f"paper's nesting) | within an annotation of {' or '.join(keys)} | within an annotation of any set "
        "(the cross-set nesting) | ids of the nested-annotation project (of them, nested) | 2017 paper: nested "
        "annotations (+nested − core) | 2017 paper: unique concepts added by nesting |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, n in nesting.items():
        base, full = pairs.get(key, {}).get("outermost"), pairs.get(key, {}).get("all")
        pb, pf = (paper.get(base.paper_set), paper.get(full.paper_set)) if base and full else (None, None)
        extra = f"{pf[0] - pb[0]:,.0f} | {pf[4] - pb[4]:,.0f}" if pb and pf else "— | —"
        out.append(
            f"| {key} | {n.annotations:,} | {n.concepts:,} | {n.same_set:,} | {n.uberon_sets:,} | "
            f"{n.any_set:,} | {n.nested_project:,} ({n.nested_project_within:,}) | {extra} |"
        )
    out.append("")
    if documents != PAPER_ARTICLES:
        return [
            *out,
            f"The store holds {documents} of the paper's {PAPER_ARTICLES} articles, so the differences "
            "above measure the articles it lacks, not what changed between the releases.",
            "",
        ]
    for key, n in nesting.items():
        base, full = pairs.get(key, {}).get("outermost"), pairs.get(key, {}).get("all")
        pb, pf = (paper.get(base.paper_set), paper.get(full.paper_set)) if base and full else (None, None)
        if not (base and full and pb and pf):
            continue
        b, f = base.stats, full.stats
        out.append(
            f"- {key} against {base.paper_set}: {b.annotations - pb[0]:+,.0f} annotations and "
            f"{b.concepts - pb[4]:+,.0f} unique concepts, net, between CRAFT v2.1 and this release; the article with "
            f"the most annotations has {pb[3]:,.0f} in the paper and {b.annotations_max:,} here, the median "
            f"article {pb[2]:g} and {b.annotations_median:g}. Against {full.paper_set}: the paper counted "
            f"{pf[0] - pb[0]:,.0f} nested annotations (bringing {pf[4] - pb[4]:,.0f} concepts used nowhere else "
            f"in the set), and its definition finds {n.same_set:,} in this release's {key}, so that row differs by "
            f"{f.annotations - pf[0]:+,.0f} annotations. {n.nested_project:,} annotations of {key} carry ids of the "
            f"nested-annotation project (`{NESTED_PROJECT_PREFIX}…`): {n.nested_project_within:,} of them lie "
            f"within another annotation of {key}, {n.nested_project_anywhere:,} within an annotation of any set, "
            f"and {n.nested_project - n.nested_project_anywhere:,} within none, so this release holds them as "
            f"ordinary annotations of {key}; {n.nested_project_concepts:,} of its {n.concepts:,} concepts are used "
            "by these annotations alone."
        )
    out += [
        "",
        "The cross-set nesting reads “another annotation” as one of any set of the store (an Uberon "
        "annotation within a CL or GO one, say); earlier versions of this section dropped those from the "
        "core rows, which the paper does not: "
        + "; ".join(
            f"{n.any_set:,} of {key}'s annotations would go, leaving {n.annotations - n.any_set:,}"
            for key, n in nesting.items()
        )
        + ". The files of CRAFT v2.1 are not part of the current release, so which concepts were gained or "
        "lost between the releases is measured only where the ids tell it: the annotations made in the "
        "nested-annotation project and the concepts they alone bring, above; the rest of the net changes "
        "cannot be attributed from these files.",
        "",
    ]
    return out


def _sweeps(sweeps: Mapping[str, SweepReport], published: Published, grid: str, public: int) -> list[str]:
    out = [
        "## 3. Dictionary-matcher sweeps against the ConceptMapper tables",
        "",
        f"Published: {published.conceptmapper_source}. craftrdf: `craftrdf sweep` ({grid}) on the {public} "
        "public articles (train+dev; the paper's 67), exact span and class matching.",
        "",
        "| set | best | published P / R / F1 | craftrdf P / R / F1 | F1 diff | configuration |",
        "|---|---|---|---|---|---|",
    ]
    for key, rep in sweeps.items():
        pub = published.conceptmapper.get(key)
        if pub is None:
            continue
        for what, label in (("f1", "F1"), ("precision", "precision"), ("recall", "recall")):
            row = rep.best[what]
            if what == "f1":
                p = f"{pub.precision:.2f} / {pub.recall:.2f} / {pub.f1:.2f}"
                d = f"{row.f1 - pub.f1:+.3f}"
            else:
                p = f"{pub.best_precision:.2f} (P)" if what == "precision" else f"{pub.best_recall:.2f} (R)"
                best = pub.best_precision if what == "precision" else pub.best_recall
                d = f"{getattr(row, what) - best:+.3f} ({label})"
            conf = ", ".join(f"{v}" for v in row.config.params().values())
            out.append(
                f"| {key} | {label} | {p} | {row.precision:.3f} / {row.recall:.3f} / {row.f1:.3f} | {d} | {conf} |"
            )
        f1 = rep.best["f1"]
        out.append(
            f"| {key} | best-F1 TP / FP / FN | {pub.tp:,} / {pub.fp:,} / {pub.fn:,} | "
            f"{f1.tp:,} / {f1.fp:,} / {f1.fn:,} | | |"
        )
        if rep.filtered is not None:
            cv = rep.filtered["f1"].selection
            out.append(
                f"| {key} | best F1 + term filter (5-fold cross-validated) | "
                f"{pub.precision:.2f} / {pub.recall:.2f} / {pub.f1:.2f} | "
                f"{cv.precision:.3f} / {cv.recall:.3f} / {cv.f1:.3f} | {cv.f1 - pub.f1:+.3f} | "
                f"TP / FP / FN {cv.tp:,} / {cv.fp:,} / {cv.fn:,} |"
            )
    out += [
        "",
        "Configurations list caseMatch, findAllMatches, orderIndependentLookup, searchStrategy, stemmer, "
        "stopWords, synonyms. *Term filter*: the matches of a term (matched text and class) are dropped when "
        "that term was seen at least twice and right less than half the time on other documents; here each "
        "fifth of the articles is filtered by what the other four fifths taught "
        "(`craftrdf.matching.sweeps.termfilter.TermFilter`). "
        "Precision–recall figures: "
        + ", ".join(f"[{k}](sweeps/{k}/pr.png)" for k in sweeps if k in published.conceptmapper)
        + ".",
    ]
    return out


def _ser(
    sweeps: Mapping[str, SweepReport],
    published: Published,
    grid: str,
    test: int,
    quick: bool,
    trained: Mapping[str, TestScore] | None = None,
) -> list[str]:
    chosen = (
        f"the default configuration for the sets other than UBERON and UBERON_EXT (`--quick`), and for "
        f"those two the configuration with the lowest SER on train+dev ({grid})"
        if quick
        else f"the matcher configuration with the lowest SER on train+dev ({grid})"
    )
    trained = trained or {}
    out = [
        "## 4. Test-set slot error rate against the CRAFT Shared Task 2019",
        "",
        f"Published: {published.ser_source}. craftrdf: {chosen}, run on the {test} test articles (the Shared "
        "Task's 30) and scored as the Shared Task did (Jaccard boundaries, Wang similarity, `craftrdf evaluate`). "
        "*+ term filter*: the same configuration, dropping the terms (matched text and class) that were right "
        "less than half the time, at least twice, on train+dev (learned there, applied to test). "
        "*trained*: `craftrdf train --on train,dev` (names from gold, term precision, abbreviations, "
        "coordination, parentheses, stacked modifiers; configuration and threshold chosen together by 5-fold "
        "cross-validation over the "
        "train+dev documents" + (", the reduced `--quick` selection" if quick else "") + "), applied to test. "
        "Lower is better.",
        "",
        "| set | CRAFT-ST 2019 best | craftrdf | diff | craftrdf + term filter | diff | terms dropped "
        "| trained | diff | configuration |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, rep in sweeps.items():
        if rep.report is None:
            continue
        row = rep.report["ser"]
        pub = published.ser.get(key)
        pub_s = "—" if pub is None else f"{pub:.2f}"
        filtered = rep.filtered["ser"] if rep.filtered is not None else None
        if filtered is not None and filtered.report is not None:
            f_cells = f"{filtered.report.ser:.3f} | {_diff(filtered.report.ser, pub, '{:+.3f}')} | {filtered.dropped:,}"
        else:
            f_cells = "— | — | —"
        t = trained.get(key)
        t_cells = f"**{t.ser:.3f}** | {_diff(t.ser, pub, '{:+.3f}')}" if t is not None else "— | —"
        out.append(
            f"| {key} | {pub_s} | {row.ser:.3f} | {_diff(row.ser, pub, '{:+.3f}')} | {f_cells} | {t_cells} | "
            f"{', '.join(row.config.params().values())} |"
        )
    out += ["", "![SER per set](ser.png)", ""]
    out += _trained(trained, published)
    return out


def _trained(trained: Mapping[str, TestScore], published: Published) -> list[str]:
    if not trained:
        return []
    pairs = [(t.ser, published.ser[k]) for k, t in trained.items() if k in published.ser]
    wins = sum(ours < theirs for ours, theirs in pairs)
    out = ["### The trained matcher, set by set", ""]
    if pairs:
        out += [
            f"Against the 2019 best: lower SER on {wins} of {len(pairs)} sets; mean "
            f"{statistics.fmean(o for o, _ in pairs):.3f} against {statistics.fmean(p for _, p in pairs):.3f}.",
            "",
        ]
    out += [
        "Cross-validated and test SER are the official scorer's, as `craftrdf evaluate` computes them (its "
        "pairing, Wang over the ontology's OWL graph). Sets without an ontology in the store learn from gold "
        "names alone, and their SER counts exact class matches only (no Wang credit for a related class): they "
        "are marked *exact*.",
        "",
        "| set | test SER | cross-validated SER | configuration (case, stemmer, synonyms) | decision | rules "
        "| discontinuous recovered on train+dev | costliest false positives | costliest false negatives | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, t in trained.items():
        s, c = t.train.selection, t.train.selection.config
        fp = "; ".join(f"{x} {cls} ({n})" for x, cls, n in t.false_positives[:3]) or "—"
        fn = "; ".join(f"{x} {cls} ({n})" for x, cls, n in t.false_negatives[:3]) or "—"
        out.append(
            f"| {key}{' (exact)' if t.exact_only else ''} | {t.ser:.3f} | {t.train.cv_ser:.3f} | "
            f"{c.caseMatch.value}, {c.stemmer.value}, {c.synonyms.value} | {_decision(t.train)} "
            f"| {s.rules.label()} | {t.train.discontinuous_recovered} of {t.train.discontinuous_gold} | {fp} | {fn} "
            f"| {t.seconds:.0f} |"
        )
    return out


def _decision(report: TrainReport) -> str:
    """The decision a model uses: the learned one (C, threshold) or the term threshold (threshold, prior)."""
    learned = report.learned
    if learned is not None and learned.chosen:
        return f"learned (C {learned.learned.strength}, threshold {learned.learned.threshold})"
    d = report.selection.decision
    return f"threshold {d.threshold}, prior {d.prior}"


def _similarity(dist: SimilarityDistribution) -> list[str]:
    def describe(values: tuple[float, ...]) -> str:
        if not values:
            return "no pairs"
        return (
            f"mean {statistics.fmean(values):.3f}, median {statistics.median(values):.3f}, "
            f"{sum(1 for v in values if v < 0.2):,} below 0.2"
        )

    return [
        "## 5. Semantic similarity of the matcher's classes to gold",
        "",
        f"{dist.key}, {dist.documents} test articles: of {dist.gold:,} gold annotations, {dist.paired:,} have a "
        f"prediction of the default matcher configuration on exactly the same spans; {dist.identical:,} of those "
        "have the gold class itself (similarity 1). Wang similarity (is_a 0.8, part_of 0.6) of the rest shows how "
        "far off a wrong class is.",
        "",
        f"- extension classes as shipped (no parents), pairs with different classes: "
        f"{describe(tuple(v for v, same in zip(dist.plain, dist.same) if not same))}",
        f"- with `--classify-extensions` (union-defined extension classes placed in the hierarchy), the same "
        f"pairs: {describe(tuple(v for v, same in zip(dist.classified, dist.same) if not same))}",
        "",
        "![Wang similarity histogram](similarity.png)",
    ]


@dataclass(frozen=True, slots=True)
class Measured:
    """What the report is made of, read and computed from the store.

    ``public`` and ``test`` are the documents of train+dev and of test; ``sweeps`` every set's sweep
    (section 4); ``causes`` explain section 1's differing cells; ``nesting`` gives section 2 its counts
    of nesting; ``trained`` gives section 4 its trained-matcher column
    (:func:`craftrdf.matching.training.evaluate.train_and_test`); ``skipped`` the sets without ontology.
    """

    counts: list[CountRow]
    public: list[str]
    test: list[str]
    causes: list[CellCause]
    stats: list[StatsRow]
    nesting: list[NestingCounts]
    sweeps: dict[str, SweepReport]
    skipped: list[str]
    similarity: SimilarityDistribution | None
    trained: dict[str, TestScore] | None


def render_report(
    m: Measured,
    *,
    sweeps: Mapping[str, SweepReport],
    quick: bool,
    published: Published,
    grid: str,
    header: str,
) -> str:
    """The whole ``report.md`` of what was measured, ``m``; ``sweeps`` are the paper's sets' (section 3)."""
    counts, stats, causes, nesting, similarity = m.counts, m.stats, m.causes, m.nesting, m.similarity
    stats_documents, test_documents, ser_sweeps, trained = len(m.public), len(m.test), m.sweeps, m.trained
    lines = ["# craftrdf reproduce", "", header, ""]
    for part in (
        _counts(counts, published.counts_source, causes),
        _stats(stats, stats_documents, published, nesting),
        _sweeps(sweeps, published, grid, stats_documents),
        _ser(ser_sweeps, published, grid, test_documents, quick, trained),
    ):
        lines += [*part, ""]
    if similarity is not None:
        lines += [*_similarity(similarity), ""]
    return "\n".join(lines)
