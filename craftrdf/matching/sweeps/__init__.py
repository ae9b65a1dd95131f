"""Matcher parameter sweeps against gold (docs/sweep.md).

The stages: :mod:`.grid` (which configurations; which of them behave alike),
:mod:`.inputs` (what the store gives, read once), :mod:`.run` (the sweep: shared work,
injected executor, resumable results), :mod:`.score` (exact spans and the Shared Task
SER), :mod:`.results` (``results.csv``, best rows, Pareto front), :mod:`.report`
(``best.md``), :mod:`.plot` (``pr.png``) and :mod:`.executors` (where tasks run) and
:mod:`.entry` (:func:`sweep_store`, what ``craftrdf sweep`` calls).

>>> from craftrdf.matching.sweeps.grid import load_grid, plan
>>> len(load_grid("all")), sum(len(g.runs) for g in plan(load_grid("all")))
(576, 432)
"""
