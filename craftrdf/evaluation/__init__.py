"""Scoring predicted annotations against a reference.

:mod:`craftrdf.evaluation.official` is the CRAFT Shared Task metric as the official
scorer computes it, rule for rule (slot error rate with Jaccard or exact boundaries and the
Wang similarity), over the class graph of
:mod:`craftrdf.evaluation.official_graph` (:mod:`~craftrdf.evaluation.official_index` offers
that similarity as an index); :mod:`craftrdf.evaluation.criteria` the classic NER matching
criteria (Tsai et al. 2006); :mod:`craftrdf.evaluation.metrics` precision, recall and F1,
written once, and :mod:`craftrdf.evaluation.scores` the one record of counts and rates every
output reads; :mod:`craftrdf.evaluation.inputs` reads gold and predictions
and holds them against the article texts; :mod:`craftrdf.evaluation.run` scores them set
by set and writes the report files (the ``craftrdf evaluate`` command). See ``docs/evaluation.md``.
"""

from __future__ import annotations

from .criteria import (
    CRITERIA,
    CriterionScores,
    criteria_scores,
    related_by_ancestors,
    tokens,
    total_criteria,
)
from .inputs import load_directory, load_side
from .official import official_class, official_row, score_official
from .official_graph import OfficialGraph, OfficialWang, read_official_graph, set_scorers, store_official_graph
from .run import (
    RESULTS_HEADER,
    SetReport,
    evaluate_sets,
    evaluate_store,
    format_table,
    parse_criteria,
    write_report,
)
from .scores import Scores, total

__all__ = [
    "CRITERIA",
    "RESULTS_HEADER",
    "CriterionScores",
    "OfficialGraph",
    "OfficialWang",
    "Scores",
    "SetReport",
    "criteria_scores",
    "evaluate_sets",
    "evaluate_store",
    "format_table",
    "load_directory",
    "load_side",
    "official_class",
    "official_row",
    "parse_criteria",
    "read_official_graph",
    "related_by_ancestors",
    "score_official",
    "set_scorers",
    "store_official_graph",
    "tokens",
    "total",
    "total_criteria",
    "write_report",
]
