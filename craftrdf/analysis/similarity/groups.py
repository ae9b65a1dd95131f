"""Similarity of class sets (two documents, a gold and a predicted set), by any term measure.

A :class:`Scorer` binds a term measure to an index: ``wang`` to a
:class:`~craftrdf.analysis.similarity.wang.WangIndex`, ``resnik``, ``lin``, ``jiang`` or ``rel`` to an
:class:`~craftrdf.analysis.similarity.ic.ICIndex`. Two sets combine as GOSemSim's ``mgoSim``
(:func:`~craftrdf.analysis.similarity.definition.combine_scores`: ``max``, ``avg``, ``rcmax``, ``bma``);
:meth:`Scorer.group_matrix` scores many sets against each other at once: one term matrix over
every class of every set, then row maxima per set by ``numpy.maximum.reduceat``, so 97
documents against each other cost one term matrix, not 9,409 of them.

>>> from craftrdf.analysis.similarity.wang import WangIndex
>>> s = Scorer(WangIndex({"b": {"a": 0.8}, "c": {"a": 0.8}, "a": {}}))
>>> round(s.group(["b"], ["b", "c"], combine="avg"), 6)  # (1 + (0.8 + 0.8) / (1.8 + 1.8)) / 2
0.722222
>>> round(float(s.group_matrix([["b"], ["b", "c"]], combine="avg")[0, 1]), 6)
0.722222
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from ...core.errors import ConfigError
from .definition import Combine, Missing, combine_scores, known_terms
from .ic import IC_MEASURES, ICIndex, ICMeasure
from .wang import WangIndex

Measure = Literal["wang", "resnik", "lin", "jiang", "rel"]
#: Every term measure, Wang's first (the default).
MEASURES: tuple[Measure, ...] = ("wang", *IC_MEASURES)
#: GOSemSim's combine methods, by their names here.
COMBINES: tuple[Combine, ...] = ("max", "avg", "rcmax", "bma")


@dataclass(frozen=True, slots=True)
class Scorer:
    """A term measure over an index: pairs, matrices and group scores of one measure.

    ``measure`` ``wang`` needs a :class:`WangIndex`, the IC measures an :class:`ICIndex`
    (ConfigError otherwise). Every measure here is symmetric, which :meth:`group_matrix` uses.
    """

    index: WangIndex | ICIndex
    measure: Measure = "wang"

    def __post_init__(self) -> None:
        if self.measure not in MEASURES:
            raise ConfigError(f"unknown measure {self.measure!r}: use {', '.join(MEASURES)}")
        if (self.measure == "wang") != isinstance(self.index, WangIndex):
            need = "a WangIndex" if self.measure == "wang" else "an ICIndex"
            raise ConfigError(f"measure {self.measure} needs {need}")

    @property
    def _ic(self) -> tuple[ICIndex, ICMeasure] | None:
        if isinstance(self.index, ICIndex):
            return self.index, cast(ICMeasure, self.measure)
        return None

    @property
    def labels(self) -> dict[str, str]:
        """Class labels, by CURIE."""
        return dict(self.index.labels)

    def check(self, terms: Iterable[str]) -> None:
        """UnknownTermError for the first of ``terms`` that is not in the graph."""
        (self.index.ancestry if isinstance(self.index, ICIndex) else self.index).rows(terms)

    def similarity(self, a: str, b: str) -> float:
        """The similarity of two classes; UnknownTermError for one not in the graph."""
        ic = self._ic
        return ic[0].similarity(a, b, ic[1]) if ic else cast(WangIndex, self.index).similarity(a, b)

    def pairs(self, a: Sequence[str], b: Sequence[str], *, missing: Missing = "raise") -> npt.NDArray[np.float64]:
        """``a[i]`` against ``b[i]`` for every i (NaN where a class has no similarity)."""
        ic = self._ic
        if ic:
            return ic[0].pairs(a, b, ic[1], missing=missing)
        return cast(WangIndex, self.index).pairs(a, b, missing=missing)

    def matrix(
        self, rows: Sequence[str], cols: Sequence[str] | None = None, *, missing: Missing = "raise"
    ) -> npt.NDArray[np.float64]:
        """Every class of ``rows`` against every class of ``cols`` (default ``rows``), dense."""
        ic = self._ic
        if ic:
            return ic[0].matrix(rows, cols, ic[1], missing=missing)
        return cast(WangIndex, self.index).matrix(rows, cols, missing=missing)

    def _usable(self, terms: Sequence[str]) -> list[str]:
        """The classes that score: in the graph and, for an IC measure, with an IC above 0."""
        if isinstance(self.index, ICIndex):
            return self.index.usable(terms)
        return list(terms)

    def group(self, a: Iterable[str], b: Iterable[str], *, combine: Combine = "bma") -> float:
        """Two class sets combined as GOSemSim's ``mgoSim``; NaN when a set has no class that scores.

        Classes not in the graph are left out with a SimilarityWarning, and for an IC measure
        classes without an IC as well (GOSemSim drops their all-NA rows and columns).
        """
        ga, gb = known_terms(a, b, self.index.index)
        ua, ub = self._usable(ga), self._usable(gb)
        if not ua or not ub:
            return math.nan
        return combine_scores(self.matrix(ua, ub), combine)

    def group_matrix(self, groups: Sequence[Iterable[str]], *, combine: Combine = "bma") -> npt.NDArray[np.float64]:
        """Every set of ``groups`` against every other: a square matrix equal to :meth:`group` on each pair.

        One SimilarityWarning for all the classes not in the graph; NaN rows and columns
        for sets left empty.
        """
        if combine not in COMBINES:
            raise ConfigError(f"unknown combine method {combine!r}: use {', '.join(COMBINES)}")
        index = self.index.index
        known_terms([t for g in groups for t in g], [], index)
        sets = [self._usable([t for t in dict.fromkeys(g) if t in index]) for g in groups]
        terms = list(dict.fromkeys(t for s in sets for t in s))
        n = len(sets)
        out = np.full((n, n), np.nan)
        full = [i for i, s in enumerate(sets) if s]
        if not full:
            return out
        at = {t: i for i, t in enumerate(terms)}
        members = [np.array([at[t] for t in sets[i]], dtype=np.int64) for i in full]
        sizes = np.array([len(m) for m in members], dtype=np.float64)
        starts = np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(np.int64)
        flat = np.concatenate(members)
        m = self.matrix(terms)
        k = len(full)
        # per set a and set b: sum over a's classes of their best match in b (row maxima),
        # the largest score, and the sum of all scores
        best_sum, top, total = np.empty((k, k)), np.empty((k, k)), np.empty((k, k))
        for i, rows in enumerate(members):
            block = m[rows][:, flat]
            best = np.maximum.reduceat(block, starts, axis=1)
            best_sum[i], top[i] = best.sum(axis=0), best.max(axis=0)
            if combine == "avg":
                total[i] = np.add.reduceat(block, starts, axis=1).sum(axis=0)
        ka, kb = sizes[:, None], sizes[None, :]
        if combine == "max":
            scores = top
        elif combine == "avg":
            scores = total / (ka * kb)
        else:
            # the column maxima of (a, b) are the row maxima of (b, a): the measures are symmetric
            if combine == "bma":
                scores = (best_sum + best_sum.T) / (ka + kb)
            else:
                scores = np.maximum(best_sum / ka, best_sum.T / kb)
            # GOSemSim's combineScores: a one-row or one-column matrix is a vector, whose bma and rcmax is its max
            single = (ka == 1) | (kb == 1)
            scores = np.where(single, top, scores)
        out[np.ix_(full, full)] = scores
        return out
