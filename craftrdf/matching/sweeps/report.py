"""``best.md``: the best configurations in the layout of the Uberon paper's Tables 6-7.

Bada et al. (Database 2017), Tables 6 and 7, give for each set the configurations with
the best precision, the best recall and the best F-measure: one column per
configuration, the seven parameter values as rows, then P, R, F1 and TP, FP, FN.
craftrdf adds a column for the lowest Shared Task SER and a SER row. Every table
says which documents its numbers came from; with a report split, a second table gives
the same configurations' numbers on those documents.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..matcher.config import PARAMETERS
from .results import SweepRow
from .run import SweepInputs
from .termfilter import FilteredRows

#: The paper's ConceptMapper results on the 67 public documents (issue 7): best-F1 (P, R, F1),
#: best precision and best recall (only that rate is given).
PAPER: Mapping[str, Mapping[str, float]] = {
    "UBERON": {"f1_p": 0.65, "f1_r": 0.66, "f1": 0.66, "precision": 0.71, "recall": 0.74},
    "UBERON_EXT": {"f1_p": 0.69, "f1_r": 0.71, "f1": 0.70, "precision": 0.74, "recall": 0.77},
}

_HEADS = {"precision": "best precision", "recall": "best recall", "f1": "best F1", "ser": "lowest SER"}


def _table(best: Mapping[str, SweepRow], numbers: Mapping[str, SweepRow]) -> list[str]:
    keys = list(_HEADS)
    lines = ["| parameter | " + " | ".join(_HEADS[k] for k in keys) + " |", "|---|" + "---|" * len(keys)]
    for name in PARAMETERS:
        lines.append(f"| {name} | " + " | ".join(best[k].config.params()[name] for k in keys) + " |")
    for label, attr, fmt in (
        ("P", "precision", "{:.3f}"),
        ("R", "recall", "{:.3f}"),
        ("F1", "f1", "{:.3f}"),
        ("TP", "tp", "{:d}"),
        ("FP", "fp", "{:d}"),
        ("FN", "fn", "{:d}"),
        ("SER", "ser", "{:.3f}"),
    ):
        cells = [fmt.format(getattr(numbers[k], attr)) for k in keys]
        lines.append(f"| **{label}** | " + " | ".join(cells) + " |")
    return lines


def best_markdown(
    inputs: SweepInputs,
    best: Mapping[str, SweepRow],
    *,
    configurations: int,
    report: Mapping[str, SweepRow] | None = None,
    report_on: SweepInputs | None = None,
    filtered: Mapping[str, FilteredRows] | None = None,
) -> str:
    """The text of ``best.md``: the selection table, then (with ``report``) the same configurations on other documents.

    ``best`` maps ``precision``, ``recall``, ``f1``, ``ser`` to the selected rows;
    ``report`` maps the same keys to those configurations' rows on the report documents;
    ``filtered`` maps ``f1`` and ``ser`` to those configurations scored with a term filter.
    ``inputs`` (``report_on``) are the selection (report) documents' inputs: their set, documents and rules.
    """
    set_key, documents, document_ids = inputs.set_key, inputs.documents, sorted(inputs.texts)
    rules, prefer_labels = inputs.rules, inputs.prefer_labels
    report_documents = report_on.documents if report_on is not None else ""
    report_ids = sorted(report_on.texts) if report_on is not None else []
    out = [f"# Matcher sweep, {set_key}: best configurations", ""]
    out.append(
        f"{configurations} configurations; exact spans and classes for P/R/F1 and TP/FP/FN (as Bada et al. "
        "2017), the CRAFT Shared Task 2019 slot error rate (Jaccard boundaries, Wang similarity) for SER."
        + (f" CRAFT's post-processing rules applied to predictions: {', '.join(rules)}." if rules else "")
        + (
            " Dictionaries prefer labels (a name that labels some of its classes keeps only those)."
            if prefer_labels
            else ""
        )
    )
    out += [
        "",
        f"## Selected on {documents}",
        "",
        f"Every number in this table comes from these documents: {', '.join(document_ids)}.",
        "",
    ]
    out += _table(best, best)
    if report is not None:
        out += [
            "",
            f"## The same configurations reported on {report_documents}",
            "",
            f"Configurations chosen on {documents} (above); every number in this table comes from these "
            f"documents: {', '.join(report_ids)}.",
            "",
        ]
        out += _table(best, report)
    if filtered is not None:
        out += _filter_section(filtered, documents, report_documents if report else None)
    paper = PAPER.get(set_key.upper())
    if paper is not None:
        out += [
            "",
            "## The paper (ConceptMapper, 67 public documents)",
            "",
            f"Best F1 {paper['f1']:.2f} (P {paper['f1_p']:.2f}, R {paper['f1_r']:.2f}); best precision "
            f"{paper['precision']:.2f}; best recall {paper['recall']:.2f} (Bada et al. 2017, Tables 6-7).",
        ]
    return "\n".join(out) + "\n"


def _filter_section(filtered: Mapping[str, FilteredRows], documents: str, report_documents: str | None) -> list[str]:
    """``best.md``'s term-filter section: the best-F1 and lowest-SER configurations scored with the filter."""
    flt = filtered["f1"].filter
    out = [
        "",
        "## With the term filter",
        "",
        f"The matches of a term (matched text and class) are dropped when it was seen at least "
        f"{flt.min_count} times and right less than {flt.threshold:.0%} of the time: on {documents}, each "
        "fifth of the documents filtered by what the other four fifths taught (5-fold cross-validation)"
        + (
            f"; on {report_documents}, filtered by what all of {documents} taught."
            if report_documents is not None
            else "."
        ),
        "",
        "| | best F1 | lowest SER |",
        "|---|---|---|",
    ]

    def cells(row: SweepRow | None) -> list[str]:
        if row is None:
            return ["—"] * 3
        return [
            f"P {row.precision:.3f} R {row.recall:.3f} F1 {row.f1:.3f}",
            f"{row.ser:.3f}",
            f"{row.tp} / {row.fp} / {row.fn}",
        ]

    for label, rows in (
        (f"{documents}, cross-validated", [filtered[k].selection for k in ("f1", "ser")]),
        *(((report_documents, [filtered[k].report for k in ("f1", "ser")]),) if report_documents is not None else ()),
    ):
        c = [cells(r) for r in rows]
        out.append(f"| **P / R / F1**, {label} | {c[0][0]} | {c[1][0]} |")
        out.append(f"| **SER**, {label} | {c[0][1]} | {c[1][1]} |")
        out.append(f"| **TP / FP / FN**, {label} | {c[0][2]} | {c[1][2]} |")
    out.append(
        f"| terms dropped (learned on all of {documents}) | {filtered['f1'].dropped} | {filtered['ser'].dropped} |"
    )
    return out
