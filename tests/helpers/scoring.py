"""The official scorer with an identity similarity, for tests that score hand-written sets."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from craftrdf.analysis.evaluation.official import exact_wang
from craftrdf.analysis.evaluation.official_graph import OfficialWang
from craftrdf.core.model import Annotation

Side = Mapping[str, Mapping[str, Sequence[Annotation]]]


def exact_scorers(*sides: Side) -> Callable[[str], OfficialWang]:
    """For a set key, a scorer that declares every class of ``sides`` and has no edge: similarity 1 or 0."""
    classes = {a.class_id for side in sides for docs in side.values() for anns in docs.values() for a in anns}
    return lambda key: exact_wang(classes, key)
