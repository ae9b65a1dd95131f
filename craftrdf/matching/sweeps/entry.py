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

from ...core.context import RunContext
from ...core.model import Annotation
from ...runtime.executors import SweepExecutor
from ...store.local import ReadableStore
from ..matcher.config import MatcherConfig
from .inputs import prepare_split_inputs
from .plot import plot_pr
from .report import best_markdown
from .results import COLUMNS, SweepRow, best_rows, csv_line
from .run import SweepResult, run_sweep
from .termfilter import FilteredRows, FilterScorer, TermFilter

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SweepOptions:
    """What a sweep selects on and reports on, and how: see :func:`sweep_store`.

    ``split`` (selection) and ``report_on`` are splits (``train,dev``, ``test``, ``all``);
    ``apply_craft_rules`` and ``prefer_labels`` are as for
    :func:`~craftrdf.matching.sweeps.inputs.prepare_split_inputs`; ``plot`` writes ``pr.png``;
    ``term_filter`` also scores the best configurations with that filter.
    """

    split: str | None = "train,dev"
    report_on: str | None = None
    apply_craft_rules: bool = False
    prefer_labels: bool = False
    plot: bool = True
    term_filter: TermFilter | None = None


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
    ctx: RunContext,
    *,
    out_dir: Path,
    options: SweepOptions = SweepOptions(),
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
    The configurations run on ``ctx.executor`` (None: this process), reporting to ``ctx.progress``.
    """
    split, report_on, term_filter = options.split, options.report_on, options.term_filter
    executor: SweepExecutor | None = ctx.executor
    inputs, *others = prepare_split_inputs(
        store,
        set_key,
        ctx,
        splits=[split] if report_on is None else [split, report_on],
        apply_craft_rules=options.apply_craft_rules,
        prefer_labels=options.prefer_labels,
        annotations=annotations,
    )
    out_dir.mkdir(parents=True, exist_ok=True)  # only once the inputs are known good: a bad set leaves nothing
    result = run_sweep(inputs, configs, executor=executor, out_dir=out_dir, progress=ctx.progress)
    best = best_rows(result.rows, list(configs))
    files = [out_dir / "results.csv"]
    report, report_label = None, None
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
        path = out_dir / "report.csv"
        path.write_text(csv_line(COLUMNS) + "".join(csv_line(r.values()) for r in rows.values()), encoding="utf-8")
        files.append(path)
    filtered = _filtered(scorer, best) if scorer is not None else None
    md = best_markdown(
        inputs,
        best,
        configurations=len(result.rows),
        report=report,
        report_on=others[0] if others else None,
        filtered=filtered,
    )
    (out_dir / "best.md").write_text(md, encoding="utf-8")
    files.append(out_dir / "best.md")
    if options.plot:
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
