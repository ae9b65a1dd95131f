"""``report.md``: each section's table with the published value, craftrdf's value and the difference."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from ..sweeps import SweepReport
from .published import Published
from .sections import CountRow, SimilarityDistribution, StatsRow

__all__ = ["render_report"]


def _diff(ours: float, published: float | None, fmt: str = "{:+,}") -> str:
    return "—" if published is None else fmt.format(ours - published)


def _counts(rows: Sequence[CountRow], source: str) -> list[str]:
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
    cells = sum(4 for r in rows if r.published)
    if not differing:
        out.append("Every published cell is reproduced exactly.")
    elif len(differing) <= 8:
        names = ("train+dev", "train+dev discontinuous", "test", "test discontinuous")
        out.append(
            "Cells that differ: "
            + "; ".join(f"{k} {names[i]} {p:,} → {o:,}" for k, i, p, o in differing)
            + ". The paper's table predates corrections in later corpus releases; the store counts "
            "the files of the release it was built from."
        )
    else:
        out.append(
            f"{len(differing)} of {cells} published cells differ: the store does not hold the whole "
            "corpus (a sample, or a subset of sets), so this table cannot match the paper."
        )
    out.append("Sets without a published value (—) were not part of the 2019 Shared Task (MONDO).")
    return out


def _stat_cells(values: Sequence[float]) -> str:
    a, am, amed, amax, c, cm, cmed, cmax = values
    return f"{a:,.0f} | {am:.1f} | {amed:g} | {amax:,.0f} | {c:,.0f} | {cm:.1f} | {cmed:g} | {cmax:,.0f}"


def _stats(rows: Sequence[StatsRow], documents: int, published: Published) -> list[str]:
    paper = published.uberon_stats
    out = [
        "## 2. Uberon annotation statistics (the Uberon paper's Tables 3–4, on the current release)",
        "",
        f"Over the {documents} public articles (train+dev). Views: *core* = proper OBO classes, outermost "
        "annotations; *+extensions* adds extension classes; *+nested* keeps nested annotations. An annotation "
        "is nested when an annotation of any loaded set covers all its characters and more."
        + (f" Published: {published.uberon_stats_source}." if paper else ""),
        "",
        "| set | view | source | annotations | per article: mean | median | max | unique concepts | "
        "per article: mean | median | max |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s = r.stats
        ours = (
            s.annotations,
            s.annotations_mean,
            s.annotations_median,
            s.annotations_max,
            s.concepts,
            s.concepts_mean,
            s.concepts_median,
            s.concepts_max,
        )
        pub = paper.get((r.key, r.view))
        if pub is not None:
            out.append(f"| {r.key} | {r.view} | 2017 paper | {_stat_cells(pub)} |")
        out.append(f"| {r.key} | {r.view} | craftrdf | {_stat_cells(ours)} |")
        if pub is not None:
            diff = [o - p for o, p in zip(ours, pub)]
            out.append(
                f"| {r.key} | {r.view} | diff | "
                + " | ".join(f"{d:+,.1f}" if i in (1, 2, 5, 6) else f"{d:+,.0f}" for i, d in enumerate(diff))
                + " |"
            )
    out += [
        "",
        "These differ from the 2017 paper's tables by design: the paper counted CRAFT v2.1, where nested "
        "Uberon annotations sat inside the Uberon set itself, while in the current release no annotation of "
        "one set lies inside another of the same set (nesting appears only across sets, e.g. an Uberon "
        "annotation inside a CL one), and the Uberon annotations and the extension classes have been revised "
        "since.",
    ]
    if not paper:
        out[-1] += (
            " The published values of those tables are not shipped with craftrdf (they were not available "
            "where it was built; `[uberon_paper.stats]` in craftrdf/reproduce/published.toml takes them), "
            "so this section shows craftrdf's figures only."
        )
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
                published = pub.best_precision if what == "precision" else pub.best_recall
                d = f"{getattr(row, what) - published:+.3f} ({label})"
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
        "fifth of the articles is filtered by what the other four fifths taught (`craftrdf.sweeps.TermFilter`). "
        "Precision–recall figures: "
        + ", ".join(f"[{k}](sweeps/{k}/pr.png)" for k in sweeps if k in published.conceptmapper)
        + ".",
    ]
    return out


def _ser(sweeps: Mapping[str, SweepReport], published: Published, grid: str, test: int, quick: bool) -> list[str]:
    chosen = (
        f"the default configuration for the sets other than UBERON and UBERON_EXT (`--quick`), and for "
        f"those two the configuration with the lowest SER on train+dev ({grid})"
        if quick
        else f"the matcher configuration with the lowest SER on train+dev ({grid})"
    )
    out = [
        "## 4. Test-set slot error rate against the CRAFT Shared Task 2019",
        "",
        f"Published: {published.ser_source}. craftrdf: {chosen}, run on the {test} test articles (the Shared "
        "Task's 30) and scored as the Shared Task did (Jaccard boundaries, Wang similarity, `craftrdf evaluate`). "
        "*+ term filter*: the same configuration, dropping the terms (matched text and class) that were right "
        "less than half the time, at least twice, on train+dev (learned there, applied to test). "
        "Lower is better.",
        "",
        "| set | CRAFT-ST 2019 best | craftrdf | diff | craftrdf + term filter | diff | terms dropped "
        "| configuration |",
        "|---|---|---|---|---|---|---|---|",
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
        out.append(
            f"| {key} | {pub_s} | {row.ser:.3f} | {_diff(row.ser, pub, '{:+.3f}')} | {f_cells} | "
            f"{', '.join(row.config.params().values())} |"
        )
    out += ["", "![SER per set](ser.png)"]
    return out


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


def render_report(
    *,
    counts: Sequence[CountRow],
    stats: Sequence[StatsRow],
    stats_documents: int,
    test_documents: int,
    sweeps: Mapping[str, SweepReport],
    ser_sweeps: Mapping[str, SweepReport],
    quick: bool,
    similarity: SimilarityDistribution | None,
    published: Published,
    grid: str,
    header: str,
) -> str:
    """The whole ``report.md``; ``ser_sweeps`` are every set's sweeps (section 4), ``sweeps`` the paper's."""
    lines = ["# craftrdf reproduce", "", header, ""]
    for part in (
        _counts(counts, published.counts_source),
        _stats(stats, stats_documents, published),
        _sweeps(sweeps, published, grid, stats_documents),
        _ser(ser_sweeps, published, grid, test_documents, quick),
    ):
        lines += [*part, ""]
    if similarity is not None:
        lines += [*_similarity(similarity), ""]
    return "\n".join(lines)
