"""Scoring predicted annotations against a reference.

:mod:`craftrdf.analysis.evaluation.bossy` is the CRAFT Shared Task metric (slot error rate with
Jaccard or exact boundaries and a class similarity); :mod:`craftrdf.analysis.evaluation.criteria`
the classic NER matching criteria (Tsai et al. 2006); :mod:`craftrdf.analysis.evaluation.official`
and :mod:`craftrdf.analysis.evaluation.official_graph` the official CRAFT-ST scorer's rules and
class graph, rule for rule; :mod:`craftrdf.analysis.evaluation.inputs` reads gold and predictions
and holds them against the article texts; :mod:`craftrdf.analysis.evaluation.run` scores them set
by set and writes the report files (the ``craftrdf evaluate`` command). See ``docs/evaluation.md``.
"""

from __future__ import annotations

from .bossy import (
    Pair,
    Scores,
    boundary_score,
    comparison_class,
    exclude_unknown,
    jaccard,
    pair_annotations,
    score_document,
    total,
    uses_parallel_ids,
)
from .criteria import (
    CRITERIA,
    CriterionScores,
    criteria_scores,
    related_by_ancestors,
    tokens,
    total_criteria,
)
from .inputs import load_directory, load_side
from .official import official_class, official_rates, official_row, score_official
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

__all__ = [
    "CRITERIA",
    "RESULTS_HEADER",
    "CriterionScores",
    "OfficialGraph",
    "OfficialWang",
    "Pair",
    "Scores",
    "SetReport",
    "boundary_score",
    "comparison_class",
    "criteria_scores",
    "evaluate_sets",
    "evaluate_store",
    "exclude_unknown",
    "format_table",
    "jaccard",
    "load_directory",
    "load_side",
    "official_class",
    "official_rates",
    "official_row",
    "pair_annotations",
    "parse_criteria",
    "read_official_graph",
    "related_by_ancestors",
    "score_document",
    "score_official",
    "set_scorers",
    "store_official_graph",
    "tokens",
    "total",
    "total_criteria",
    "uses_parallel_ids",
    "write_report",
]
