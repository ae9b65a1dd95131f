"""The official scorer's Wang similarity as a similarity index (``craftrdf similarity --method bossy``).

:class:`OfficialIndex` answers what the similarity command asks a
:class:`~craftrdf.analysis.similarity.wang.WangIndex` (one pair, pairs, a matrix, the top k) from an
:class:`~craftrdf.analysis.evaluation.official_graph.OfficialWang`, so the command and
``craftrdf evaluate`` share one graph and one arithmetic (values rounded half-up to 10
decimals, then given as floats). Unlike a WangIndex it accepts cycles (equivalent classes
are each other's parents in the scorer's graph).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ...core.curie import CurieMap
from ..similarity.definition import UnknownTermError
from ..similarity.graph import load_term_graph
from .official_graph import OfficialWang, store_official_graph

if TYPE_CHECKING:
    from ...store.local import ReadableStore

Missing = Literal["raise", "nan"]


class OfficialIndex:
    """Pairs, matrices and top-k lists of the official Wang similarity; terms are CURIEs or IRIs."""

    def __init__(
        self,
        wang: OfficialWang,
        *,
        curies: CurieMap,
        labels: Mapping[str, str] | None = None,
        excluded: Iterable[str] = (),
    ) -> None:
        self.wang = wang
        self.terms: tuple[str, ...] = tuple(sorted(curies.compress(c) for c in wang.graph.declared))
        self.labels: Mapping[str, str] = dict(labels or {})
        self._excluded = frozenset(excluded)

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and term in self.wang.graph

    def _value(self, a: str, b: str, missing: Missing) -> float:
        for t in (a, b):
            if t not in self:
                if missing == "nan":
                    return math.nan
                raise UnknownTermError(t, "the official scorer's graph")
        return float(self.wang.similarity(a, b))

    def similarity(self, a: str, b: str) -> float:
        """Sim(a, b); UnknownTermError for a class the graph does not declare."""
        return self._value(a, b, "raise")

    def pairs(self, a: Sequence[str], b: Sequence[str], *, missing: Missing = "raise") -> npt.NDArray[np.float64]:
        """Sim(a[i], b[i]) for every i; unknown terms raise, or give NaN with ``missing="nan"``."""
        if len(a) != len(b):
            raise ValueError(f"pairs need two sequences of one length, got {len(a)} and {len(b)}")
        return np.array([self._value(x, y, missing) for x, y in zip(a, b)], dtype=np.float64)

    def matrix(
        self, rows: Sequence[str], cols: Sequence[str] | None = None, *, missing: Missing = "raise"
    ) -> npt.NDArray[np.float64]:
        """Every term of ``rows`` against every term of ``cols`` (default ``rows``)."""
        cs = rows if cols is None else cols
        return np.array([[self._value(r, c, missing) for c in cs] for r in rows], dtype=np.float64).reshape(
            len(rows), len(cs)
        )

    def top_k(self, term: str, k: int, *, candidates: Iterable[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` classes most similar to ``term``, best first (ties by term); deprecated ones left out."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.similarity(term, term)  # UnknownTermError before any work
        own = self.wang.graph.lookup(term)
        pool = list(candidates) if candidates is not None else [t for t in self.terms if t not in self._excluded]
        scored = [(t, self._value(term, t, "nan")) for t in pool if self.wang.graph.lookup(t) != own]
        scored = [x for x in scored if not math.isnan(x[1])]
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]


def store_official_index(
    store: ReadableStore, *, ontology: str | None = None, curies: CurieMap | None = None
) -> OfficialIndex:
    """The :class:`OfficialIndex` of the store's ontology graph (every ontology graph, merged, by default).

    The graph is :func:`~craftrdf.analysis.evaluation.official_graph.store_official_graph`'s; labels
    and deprecated classes come from the store's term graph. ``curies``: the caller's map (None: a new one,
    which answers as any other: the :class:`~craftrdf.core.curie.CurieMap` contract).
    """
    cm = curies or CurieMap()
    terms = load_term_graph(store, ontology=ontology, curies=cm)
    return OfficialIndex(
        OfficialWang(store_official_graph(store, ontology)), curies=cm, labels=terms.labels, excluded=terms.deprecated
    )
