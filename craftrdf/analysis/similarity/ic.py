"""Information-content similarity: Resnik, Lin, Jiang–Conrath and Rel, as GOSemSim computes them.

The information content of a class t is ``IC(t) = -ln p(t)``, where p(t) is the share of
annotations made with t or any class below it (:func:`annotation_ic`: counts propagated to
every ancestor, each annotation counted once per ancestor), or comes from the ontology's
shape alone (:func:`intrinsic_ic`, Seco et al. 2004). The measures are those of
Bioconductor's GOSemSim (2.24, ``infoContentMethod_cpp``), which first divides every IC by the
largest finite one, so that ``ic(t) = IC(t) / max IC`` lies in [0, 1]; with ``mica`` the
largest ``ic`` among the common ancestors of a and b (each class its own ancestor)::

    Resnik(a, b) = mica
    Lin(a, b)    = 2 mica / (ic(a) + ic(b))
    Jiang(a, b)  = max(0, 1 - (ic(a) + ic(b) - 2 mica))
    Rel(a, b)    = Lin(a, b) * (1 - p(MICA))          p(MICA) = exp(-mica * max IC)

A class whose IC is 0 (a root every annotation falls under) or infinite (no annotation at
or below it) has no similarity: NaN, as GOSemSim's NA. Unknown classes raise
:class:`~craftrdf.analysis.similarity.definition.UnknownTermError` (or NaN with ``missing="nan"``).

:class:`ICIndex` works on the ancestor sets a :class:`~craftrdf.analysis.similarity.wang.WangIndex`
already holds (its S-value rows' columns; the weights play no part here), so one index
of the store's graph serves Wang and the IC measures; ``docs/similarity.md`` cites the
sources.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ...core.errors import ConfigError
from ._svalues import load_kernels
from .definition import Combine, Engine, Missing, combine_scores, known_terms
from .wang import WangIndex

if TYPE_CHECKING:
    import scipy.sparse as sp

logger = logging.getLogger(__name__)

#: Up to this many pairs, :meth:`ICIndex.pairs_by_row` intersects the two rows in numpy without loading the
#: kernels: a command that scores one pair does not pay numba's import and first call (about 1.5 s of CPU).
_FEW_PAIRS = 8

ICMeasure = Literal["resnik", "lin", "jiang", "rel"]
#: The measures :class:`ICIndex` computes, by their GOSemSim names in lower case.
IC_MEASURES: tuple[ICMeasure, ...] = ("resnik", "lin", "jiang", "rel")


def propagated_counts(ancestry: WangIndex, counts: Mapping[str, float]) -> npt.NDArray[np.float64]:
    """How many annotations fall at or below each class of ``ancestry``, by row.

    ``counts`` maps a class (or an alias of one: a parallel extension class counts for its
    base) to its number of annotations; each is added to the class and to every ancestor of
    it once. Classes not in the graph are left out, with one logged line.
    """
    indptr, cols = ancestry.ancestry()
    direct = np.zeros(len(ancestry), dtype=np.float64)
    unknown = 0
    for term, n in counts.items():
        r = ancestry.index.get(term)
        if r is None:
            unknown += 1
            continue
        direct[r] += n
    if unknown:
        logger.info("information content: %d annotated class(es) not in the ontology graph left out", unknown)
    # entry (row a, column t) says t is an ancestor of a: t collects a's annotations
    per_entry = np.repeat(direct, np.diff(indptr))
    return np.bincount(cols, weights=per_entry, minlength=len(ancestry)).astype(np.float64)


def annotation_ic(ancestry: WangIndex, counts: Mapping[str, float]) -> npt.NDArray[np.float64]:
    """``-ln p(t)`` for every class, p(t) its propagated count over all annotations; inf where none fall.

    As GOSemSim's ``computeIC``: p(t) = (annotations of t and of its descendants) / (all
    annotations counted). ConfigError when no annotation falls on a class of the graph.
    """
    cnt = propagated_counts(ancestry, counts)
    total = math.fsum(n for t, n in counts.items() if t in ancestry.index)
    if total <= 0:
        raise ConfigError("information content: no annotation falls on a class of the ontology graph")
    with np.errstate(divide="ignore"):
        # + 0.0: a root's -ln 1 is -0.0, which would print as such in every score built on it
        return np.asarray(-np.log(cnt / total) + 0.0, dtype=np.float64)


def intrinsic_ic(ancestry: WangIndex) -> npt.NDArray[np.float64]:
    """Seco et al. (2004)'s intrinsic IC, ``1 - ln(hypo(t) + 1) / ln(N)``, from the graph alone.

    hypo(t) is the number of t's descendants over the relations followed and N the number
    of classes of the graph (aliases not counted): a leaf has IC 1, a root above every
    other class 0.
    """
    _, cols = ancestry.ancestry()
    n = len(ancestry)
    below = np.bincount(cols, minlength=n).astype(np.float64)  # descendants, the class itself included
    if n < 2:
        return np.ones(n, dtype=np.float64)
    return np.asarray(1.0 - np.log(below) / math.log(n), dtype=np.float64)


class ICIndex:
    """Resnik, Lin, Jiang and Rel similarity of classes, for many pairs at once.

    ``ancestry`` gives the classes and their ancestor sets (a :class:`WangIndex` of the
    relations wanted: the IC measures use its rows' columns, not its weights); ``ic`` is
    one information content per row of it (:func:`annotation_ic`, :func:`intrinsic_ic`),
    inf for a class without annotations. ``engine`` as :class:`WangIndex`'s.

    >>> wang = WangIndex({"b": {"a": 0.8}, "c": {"a": 0.8}, "d": {"b": 0.8}, "a": {}})
    >>> idx = ICIndex(wang, annotation_ic(wang, {"b": 1, "c": 2, "d": 1}))
    >>> round(idx.similarity("d", "b", "resnik"), 6)   # ln 2 / ln 4: MICA b, p = 2/4; d has p = 1/4
    0.5
    >>> round(idx.similarity("b", "c", "lin"), 6)      # MICA a has p = 1: ic 0
    0.0
    """

    def __init__(self, ancestry: WangIndex, ic: npt.ArrayLike, *, engine: Engine = "auto") -> None:
        raw = np.asarray(ic, dtype=np.float64)
        if raw.shape != (len(ancestry),):
            raise ValueError(f"one information content per class expected ({len(ancestry)}), got shape {raw.shape}")
        finite = np.isfinite(raw)
        if not finite.any() or raw[finite].max() <= 0:
            raise ConfigError("information content: no class has a finite IC above 0")
        self.ancestry = ancestry
        self.terms = ancestry.terms
        self.index = ancestry.index
        self.labels = ancestry.labels
        #: IC as given (inf where no annotation falls)
        self.raw_ic = raw
        #: the largest finite IC, which GOSemSim divides every IC by
        self.max_ic = float(raw[finite].max())
        norm = np.where(finite, raw / self.max_ic, 0.0)
        #: IC / max IC, 0 where infinite (such a class is never a common ancestor of two scored ones)
        self.ic = norm
        #: classes with a similarity: IC finite and above 0 (GOSemSim's NA otherwise)
        self.scored = finite & (norm != 0)
        indptr, cols = ancestry.ancestry()
        rows = np.repeat(np.arange(len(ancestry)), np.diff(indptr))
        # each row's ancestors by IC, highest first: the first one shared is the most informative
        order = np.lexsort((-norm[cols], rows))
        self._indptr = indptr
        self._cols = np.ascontiguousarray(cols[order].astype(np.int32))
        # "numba" insists now; "auto" loads the kernels when many pairs first need them (_compiled), so a
        # command that scores a few pairs never imports numba
        if engine not in ("auto", "numba", "numpy"):
            raise ConfigError(f"unknown similarity engine {engine!r}: use auto, numba or numpy")
        self._kernels = load_kernels(engine, module="_ic_kernels") if engine == "numba" else None
        #: which path computes many pairs: "numba" or "numpy" (auto: numba unless it then fails to load)
        self.engine: Literal["numba", "numpy"] = "numpy" if engine == "numpy" else "numba"

    @classmethod
    def from_counts(cls, ancestry: WangIndex, counts: Mapping[str, float], *, engine: Engine = "auto") -> ICIndex:
        """An index whose IC comes from annotation counts by class (:func:`annotation_ic`)."""
        return cls(ancestry, annotation_ic(ancestry, counts), engine=engine)

    @classmethod
    def intrinsic(cls, ancestry: WangIndex, *, engine: Engine = "auto") -> ICIndex:
        """An index with Seco et al.'s intrinsic IC (:func:`intrinsic_ic`)."""
        return cls(ancestry, intrinsic_ic(ancestry), engine=engine)

    def __len__(self) -> int:
        return len(self.terms)

    def __contains__(self, term: object) -> bool:
        return term in self.index

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_kernels"] = None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)  # the kernels are loaded when first needed (_compiled)

    def _compiled(self) -> ModuleType | None:
        """The compiled kernels of engine numba, loaded on first use; None on the numpy path."""
        if self._kernels is None and self.engine == "numba":
            self._kernels = load_kernels("auto", module="_ic_kernels")
            if self._kernels is None:  # numba missing or broken: same values, numpy path (logged once)
                self.engine = "numpy"
        return self._kernels

    def detached(self) -> dict[str, object]:
        """The index's state without its Wang index (and what it shares with it), to keep on disk."""
        state = self.__getstate__()
        for shared in ("ancestry", "terms", "index", "labels", "_sparse"):
            state.pop(shared, None)
        return state

    @classmethod
    def over(cls, ancestry: WangIndex, state: Mapping[str, object]) -> ICIndex | None:
        """The index :meth:`detached` gave ``state`` for, over ``ancestry`` again; None when they do not fit."""
        ic = state.get("raw_ic")
        if not isinstance(ic, np.ndarray) or ic.shape != (len(ancestry),):
            return None
        index = cls.__new__(cls)
        index.__setstate__({**state, "ancestry": ancestry, "_kernels": None})
        index.terms, index.index, index.labels = ancestry.terms, ancestry.index, ancestry.labels
        return index

    def information_content(self, term: str) -> float:
        """IC(term) as given (not divided by the largest); UnknownTermError for a class not in the graph."""
        return float(self.raw_ic[self.ancestry.rows([term])[0]])

    # -- the most informative common ancestor ----------------------------------------

    def _mica_pairs(self, ra: npt.NDArray[np.int64], rb: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        if len(ra) <= _FEW_PAIRS:
            return self._mica_few(ra, rb)
        kernels = self._compiled()
        if kernels is not None:
            out = np.empty(len(ra), dtype=np.float64)
            kernels.mica_pairs(self._indptr, self._cols, self.ic, ra, rb, out)
            return out
        out = np.full(len(ra), np.nan)
        ok = np.flatnonzero((ra >= 0) & (rb >= 0))
        weighted, member = self._sparse
        for lo in range(0, len(ok), 32_768):
            sel = ok[lo : lo + 32_768]
            # ic where both rows have the ancestor, 0 elsewhere: the row maximum is the MICA's
            both = weighted[ra[sel]].multiply(member[rb[sel]])
            out[sel] = both.max(axis=1).toarray().ravel()
        return out

    def _mica_few(self, ra: npt.NDArray[np.int64], rb: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """:meth:`_mica_pairs` for a few pairs, row against row in numpy (the kernel's values: a maximum, exact)."""
        out = np.full(len(ra), np.nan)
        for k, (x, y) in enumerate(zip(ra.tolist(), rb.tolist())):
            if x >= 0 and y >= 0:
                shared = np.intersect1d(self._row(x), self._row(y), assume_unique=True)
                out[k] = float(self.ic[shared].max()) if len(shared) else 0.0
        return out

    def _row(self, r: int) -> npt.NDArray[np.int32]:
        return self._cols[self._indptr[r] : self._indptr[r + 1]]

    def _mica_matrix(self, ra: npt.NDArray[np.int64], rb: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        out = np.empty((len(ra), len(rb)), dtype=np.float64)
        kernels = self._compiled()
        if kernels is not None:
            kernels.mica_matrix(self._indptr, self._cols, self.ic, ra, rb, out)
            return out
        _, member = self._sparse
        by_col = member[rb].tocsc()
        for i, x in enumerate(ra):
            anc = self._cols[self._indptr[x] : self._indptr[x + 1]]
            sub = by_col[:, anc].multiply(self.ic[anc][None, :])
            out[i] = sub.max(axis=1).toarray().ravel()
        return out

    @functools.cached_property
    def _sparse(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """(ancestors weighted by ic, ancestors as 1), as CSR matrices; for the numpy path."""
        import scipy.sparse as sp  # here: a process that scores a few pairs never needs scipy

        n = len(self.terms)
        cols = self._cols
        weighted = sp.csr_matrix((self.ic[cols], cols, self._indptr), shape=(n, n))
        member = sp.csr_matrix((np.ones(len(cols)), cols, self._indptr), shape=(n, n))
        return weighted, member

    def _measure(
        self, mica: npt.NDArray[np.float64], ia: npt.NDArray[np.float64], ib: npt.NDArray[np.float64], measure: str
    ) -> npt.NDArray[np.float64]:
        """GOSemSim's formula for ``measure`` (``go_dist_*`` in ICmethod.cpp), elementwise."""
        if measure == "resnik":
            return mica
        with np.errstate(invalid="ignore", divide="ignore"):
            lin = 2 * mica / (ia + ib)
            if measure == "lin":
                return np.asarray(lin)
            if measure == "jiang":
                return np.asarray(np.maximum(0.0, 1.0 - (-2 * mica + ia + ib)))
            if measure == "rel":
                return np.asarray(lin * (1 - np.exp(-mica * self.max_ic)))
        raise ConfigError(f"unknown measure {measure!r}: use {', '.join(IC_MEASURES)}")

    # -- similarity -----------------------------------------------------------------

    def similarity(self, a: str, b: str, measure: ICMeasure = "resnik") -> float:
        """The similarity of two classes (NaN when either has no IC; UnknownTermError when not in the graph)."""
        return float(self.pairs([a], [b], measure)[0])

    def pairs(
        self, a: Sequence[str], b: Sequence[str], measure: ICMeasure = "resnik", *, missing: Missing = "raise"
    ) -> npt.NDArray[np.float64]:
        """The similarity of ``a[i]`` and ``b[i]`` for every i; NaN where a class has no IC, or is unknown
        with ``missing="nan"`` (else UnknownTermError)."""
        if len(a) != len(b):
            raise ValueError(f"pairs need two sequences of one length, got {len(a)} and {len(b)}")
        ra = self.ancestry.rows(a, missing=missing)
        rb = self.ancestry.rows(b, missing=missing)
        return self.pairs_by_row(ra, rb, measure)

    def pairs_by_row(
        self, ra: npt.ArrayLike, rb: npt.ArrayLike, measure: ICMeasure = "resnik"
    ) -> npt.NDArray[np.float64]:
        """:meth:`pairs` on row numbers (``index[term]``; -1 gives NaN)."""
        xa = np.ascontiguousarray(ra, dtype=np.int64)
        xb = np.ascontiguousarray(rb, dtype=np.int64)
        if xa.shape != xb.shape or xa.ndim != 1:
            raise ValueError(f"pairs need two 1-D row arrays of one length, got shapes {xa.shape} and {xb.shape}")
        mica = self._mica_pairs(xa, xb)
        sa, sb = np.where(xa >= 0, xa, 0), np.where(xb >= 0, xb, 0)
        out = self._measure(mica, self.ic[sa], self.ic[sb], measure)
        out[~((xa >= 0) & (xb >= 0) & self.scored[sa] & self.scored[sb])] = np.nan
        return out

    def matrix(
        self,
        rows: Sequence[str],
        cols: Sequence[str] | None = None,
        measure: ICMeasure = "resnik",
        *,
        missing: Missing = "raise",
    ) -> npt.NDArray[np.float64]:
        """Every class of ``rows`` against every class of ``cols`` (default ``rows``): a dense array,
        NaN in the rows and columns of classes without IC (or unknown, with ``missing="nan"``)."""
        ra = self.ancestry.rows(rows, missing=missing)
        rb = ra if cols is None else self.ancestry.rows(cols, missing=missing)
        return self.matrix_by_row(ra, rb, measure)

    def matrix_by_row(
        self, ra: npt.NDArray[np.int64], rb: npt.NDArray[np.int64], measure: ICMeasure = "resnik"
    ) -> npt.NDArray[np.float64]:
        """:meth:`matrix` on row numbers (-1: a NaN row or column)."""
        ka, kb = ra >= 0, rb >= 0
        ka[ka] = self.scored[ra[ka]]
        kb[kb] = self.scored[rb[kb]]
        out = np.full((len(ra), len(rb)), np.nan)
        xa, xb = ra[ka], rb[kb]
        mica = self._mica_matrix(np.ascontiguousarray(xa), np.ascontiguousarray(xb))
        out[np.ix_(ka, kb)] = self._measure(mica, self.ic[xa][:, None], self.ic[xb][None, :], measure)
        return out

    def usable(self, terms: Iterable[str]) -> list[str]:
        """The terms that have a similarity (in the graph, with an IC), once each, in order."""
        return [t for t in dict.fromkeys(terms) if t in self.index and self.scored[self.index[t]]]

    def group(
        self, a: Iterable[str], b: Iterable[str], measure: ICMeasure = "resnik", *, combine: Combine = "bma"
    ) -> float:
        """Similarity of two class sets, as GOSemSim's ``mgoSim``: classes without a similarity are left
        out (GOSemSim drops their all-NA rows and columns), with a SimilarityWarning for those not
        in the graph; NaN if a set is then empty. See
        :func:`~craftrdf.analysis.similarity.definition.combine_scores`."""
        ga, gb = known_terms(a, b, self.index)
        ua, ub = self.usable(ga), self.usable(gb)
        if not ua or not ub:
            return math.nan
        return combine_scores(self.matrix(ua, ub, measure), combine)
