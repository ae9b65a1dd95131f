"""A sweep from the store to its report files: select on some documents, report on others.

:func:`sweep_store` is what ``craftrdf sweep`` calls: read the inputs for the selection
documents, run the grid (resumable ``results.csv``), pick the configurations with the
best P, R, F1 and the lowest SER, optionally run exactly those on the report documents
(``report.csv``), then write ``best.md`` and ``pr.png``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.model import Annotation
from ...core.registry import Registry
from ...runtime.executors import SweepExecutor
from ...store.local import ReadableStore
from ..matcher.config import MatcherConfig
from .inputs import prepare_split_inputs
from .plot import plot_pr
from .report import best_markdown
from .results import COLUMNS, SweepRow, best_rows, csv_line
from .run import Progress, SweepResult, run_sweep
from .termfilter import FilteredRows, FilterScorer, TermFilter

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SweepReport:
    """A finished sweep: the selection result, the best rows, their rows on the report documents, the files."""

    set_key: str
    result: SweepResult
    best: dict[str, SweepRow]
    report: dict[str, SweepRow] | None
    documents: str
    report_documents: str | None
    files: tuple[Path, ...]
    #: with a term filter: the best-F1 and lowest-SER configurations (``"f1"``, ``"ser"``) scored with it
    filtered: dict[str, FilteredRows] | None = None


def sweep_store(
    store: ReadableStore,
    set_key: str,
    configs: Sequence[MatcherConfig],
    *,
    registry: Registry,
    out_dir: Path,
    split: str | None = "train,dev",
    report_on: str | None = None,
    executor: SweepExecutor | None = None,
    apply_craft_rules: bool = False,
    prefer_labels: bool = False,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    plot: bool = True,
    term_filter: TermFilter | None = None,
    annotations: Sequence[Annotation] | None = None,
) -> SweepReport:
    """Sweep ``configs`` for set ``set_key`` on the documents of ``split``; write the files in ``out_dir``.

    Writes ``results.csv`` (resumable: rerunning with the same ``out_dir`` skips
    finished configurations), ``best.md``, ``pr.png`` (unless ``plot`` is False) and,
    with ``report_on`` (a split), ``report.csv``: the best configurations run on those
    documents. ConfigError for an unknown set or split, or an ``out_dir`` holding a
    sweep of other inputs. With ``term_filter``, the best-F1 and lowest-SER configurations
    are also scored with it (:class:`~craftrdf.matching.sweeps.termfilter.FilterScorer`:
    cross-validated on the selection documents, learned there and applied to the report
    documents) into the report's ``filtered``; the report documents' rows are then computed
    in this process, once for the plain and the filtered scores. ``annotations``: the set's
    annotations read beforehand (see :func:`~craftrdf.matching.sweeps.inputs.prepare_split_inputs`).
    """
    inputs, *others = prepare_split_inputs(
        store,
        set_key,
        splits=[split] if report_on is None else [split, report_on],
        registry=registry,
        apply_craft_rules=apply_craft_rules,
        prefer_labels=prefer_labels,
        cache_dir=cache_dir,
        annotations=annotations,
    )
    out_dir.mkdir(parents=True, exist_ok=True)  # only once the inputs are known good: a bad set leaves nothing
    result = run_sweep(inputs, configs, executor=executor, out_dir=out_dir, progress=progress)
    best = best_rows(result.rows, list(configs))
    files = [out_dir / "results.csv"]
    report, report_label, report_ids = None, None, list[str]()
    scorer = FilterScorer(inputs, others[0] if others else None, term_filter) if term_filter is not None else None
    if others:
        other = others[0]
        chosen = list(dict.fromkeys(r.config for r in best.values()))
        if scorer is not None:  # the filter needs the same predictions: one run each, in this process
            rows = {c: scorer.plain_report(c) for c in chosen}
        else:
            rows = {r.config: r for r in run_sweep(other, chosen, executor=executor).rows}
        report = {k: rows[r.config] for k, r in best.items()}
        report_label = other.documents
        report_ids = sorted(other.texts)
        path = out_dir / "report.csv"
        path.write_text(csv_line(COLUMNS) + "".join(csv_line(r.values()) for r in rows.values()), encoding="utf-8")
        files.append(path)
    filtered = _filtered(scorer, best) if scorer is not None else None
    md = best_markdown(
        inputs.set_key,
        best,
        documents=inputs.documents,
        document_ids=sorted(inputs.texts),
        configurations=len(result.rows),
        report=report,
        report_documents=report_label or "",
        report_ids=report_ids,
        rules=inputs.rules,
        prefer_labels=inputs.prefer_labels,
        filtered=filtered,
    )
    (out_dir / "best.md").write_text(md, encoding="utf-8")
    files.append(out_dir / "best.md")
    if plot:
        files.append(plot_pr(result.rows, out_dir / "pr.png", set_key=inputs.set_key, documents=inputs.documents))
    return SweepReport(inputs.set_key, result, best, report, inputs.documents, report_label, tuple(files), filtered)


def _filtered(scorer: FilterScorer, best: Mapping[str, SweepRow]) -> dict[str, FilteredRows]:
    """The best-F1 and lowest-SER configurations scored with the term filter (one run per distinct config)."""
    by_config: dict[MatcherConfig, FilteredRows] = {}
    for what in ("f1", "ser"):
        config = best[what].config
        if config not in by_config:
            by_config[config] = scorer.rows(config)
    return {what: by_config[best[what].config] for what in ("f1", "ser")}
