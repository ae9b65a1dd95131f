"""Matcher parameter sweeps against gold (docs/sweep.md).

The stages: :mod:`.grid` (which configurations; which of them behave alike),
:mod:`.inputs` (what the store gives, read once), :mod:`.run` (the sweep: shared work,
injected executor, resumable results), :mod:`.score` (exact spans and the Shared Task
SER), :mod:`.results` (``results.csv``, best rows, Pareto front), :mod:`.report`
(``best.md``), :mod:`.plot` (``pr.png``) and :mod:`.executors` (where tasks run) and
:mod:`.entry` (:func:`sweep_store`, what ``craftrdf sweep`` calls).

>>> from craftrdf.matching.sweeps import load_grid, plan
>>> len(load_grid("all")), sum(len(g.runs) for g in plan(load_grid("all")))
(576, 432)
"""

from __future__ import annotations

from ...runtime.executors import DaskExecutor, InlineExecutor, LocalPool, SweepExecutor
from .entry import SweepReport, sweep_store
from .grid import QUICK, RunGroup, load_grid, plan, product_grid
from .inputs import prepare_inputs, prepare_split_inputs
from .results import COLUMNS, ResultsFile, SweepRow, best_rows, pareto_front, read_results
from .run import (
    Progress,
    SweepInputs,
    SweepResult,
    run_group,
    run_sweep,
)
from .score import ExactCounts, GoldStandard
from .termfilter import FilteredRows, FilterScorer, TermFilter, cross_validated

__all__ = [
    "COLUMNS",
    "QUICK",
    "DaskExecutor",
    "ExactCounts",
    "FilterScorer",
    "FilteredRows",
    "GoldStandard",
    "InlineExecutor",
    "LocalPool",
    "Progress",
    "ResultsFile",
    "RunGroup",
    "SweepExecutor",
    "SweepInputs",
    "SweepReport",
    "SweepResult",
    "SweepRow",
    "TermFilter",
    "best_rows",
    "cross_validated",
    "load_grid",
    "pareto_front",
    "plan",
    "prepare_inputs",
    "prepare_split_inputs",
    "product_grid",
    "read_results",
    "run_group",
    "run_sweep",
    "sweep_store",
]
