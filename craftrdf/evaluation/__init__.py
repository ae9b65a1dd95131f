"""Scoring predicted annotations against a reference.

:mod:`craftrdf.evaluation.bossy` is the CRAFT Shared Task metric (slot error rate with
Jaccard or exact boundaries and a class similarity); see ``docs/evaluation.md``.
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

__all__ = [
    "Pair",
    "Scores",
    "boundary_score",
    "comparison_class",
    "exclude_unknown",
    "jaccard",
    "pair_annotations",
    "score_document",
    "total",
    "uses_parallel_ids",
]
