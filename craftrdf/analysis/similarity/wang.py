"""Wang et al. (2007) semantic similarity over a weighted DAG: pure functions, no store.

A DAG is a mapping ``child -> {parent: weight}`` (:data:`WeightedDag`); terms are opaque
strings (craftrdf uses CURIEs). For a term A, ``DAG(A)`` is A and every term reachable
from it over the edges; the *S-value* of a term t in DAG(A) is::

    S_A(A) = 1
    S_A(t) = max over children t' of t within DAG(A) of  w(t' -> t) * S_A(t')

which is the largest product of edge weights over the paths from A to t. The semantic
value of A is ``SV(A) = sum of S_A(t)`` and the similarity of A and B is::

    Sim(A, B) = sum over t in DAG(A) & DAG(B) of (S_A(t) + S_B(t))  /  (SV(A) + SV(B))

:func:`semantic_values` and :func:`wang_similarity` follow that text literally for one
term or pair. :class:`WangIndex` precomputes every term's S-values once (by a different
recursion, ``S_A = max over parents p of w(A -> p) * S_p``) as rows of a sparse matrix,
so that many pairs come out of one compiled loop (numba, :mod:`._kernels`; a numpy/scipy
path when numba is unavailable) and a matrix or the k most similar terms out of a few
sparse products. They agree; the tests check them against hand-computed values, a
brute-force path enumeration and the definition as written.

Behaviour at the edges, chosen and tested:

- a term that is not in the DAG raises :class:`UnknownTermError` (``missing="nan"``
  in the batch methods gives NaN instead);
- two terms that share no ancestor (in practice: terms of different ontologies) have
  similarity 0, as the definition gives; :meth:`WangIndex.similarity` and
  :meth:`WangIndex.pairs` say so with a :class:`SimilarityWarning`;
- a term compared with itself, or with an alias of itself, has similarity exactly 1.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from types import ModuleType
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ...core.errors import CraftrdfError
from ._svalues import compact_rows, kernels_failed, load_kernels
from .definition import (
    Combine,
    Engine,
    Missing,
    SimilarityWarning,
    UnknownTermError,
    WeightedDag,
    combine_scores,
    known_terms,
)

if TYPE_CHECKING:
    import scipy.sparse as sp

#: Up to this many pairs, :meth:`WangIndex.pairs_by_row` merges the two rows in Python, as the compiled
#: kernel does for few pairs (same order of additions, same floats), without loading the kernels:
#: a command that scores one pair does not pay numba's import (docs/similarity.md, "Kept on disk").
_FEW_PAIRS = 8

logger = logging.getLogger(__name__)


class WangIndex:
    """Every term's S-values, precomputed, for fast Wang similarity of many pairs.

    Build it once from a :data:`WeightedDag` (weights in (0, 1]); it holds, for each
    term, its S-values as one row of a sparse matrix (columns: the ancestors, itself
    included) and its semantic value SV. ``aliases`` maps extra names to terms of the
    DAG (craftrdf maps parallel extension classes to their base classes this way);
    ``excluded`` terms (craftrdf: deprecated classes) stay comparable but are not offered
    by :meth:`top_k` unless asked; ``labels`` is kept for display only. Raises
    InputError for a weight outside (0, 1], CycleError when the edges form a cycle.

    ``engine`` chooses how :meth:`pairs` computes: ``"auto"`` (default) uses compiled
    numba kernels when numba is installed and works, and otherwise the numpy/scipy
    path with one logged warning; ``"numba"`` insists (ConfigError without it);
    ``"numpy"`` never imports numba. Both give the same values (to the last bit or
    two of a float). The first index built with numba in a process pays numba's
    import, and the very first on a machine its compilation (a few seconds, then
    cached on disk); :attr:`engine` says which path is in use.

    >>> idx = WangIndex({"b": {"a": 0.8}, "c": {"a": 0.8}, "a": {}})
    >>> round(idx.similarity("b", "c"), 6)
    0.444444
    >>> [(t, round(s, 6)) for t, s in idx.top_k("b", 1)]  # (0.8 + 1) / (1.8 + 1)
    [('a', 0.642857)]
    """

    def __init__(
        self,
        dag: WeightedDag,
        *,
        aliases: Mapping[str, str] | None = None,
        labels: Mapping[str, str] | None = None,
        excluded: Iterable[str] = (),
        engine: Engine = "auto",
    ) -> None:
        kernels = load_kernels(engine)
        rows = None
        if kernels is not None:
            try:
                rows = compact_rows(dag, kernels)
            except CraftrdfError:
                raise
            except Exception as exc:
                kernels_failed(engine, exc)
                kernels = None
        order, self._indptr, self._cols, self._vid, self._table, self.sv = (
            rows if rows is not None else compact_rows(dag, None)
        )
        self.terms: tuple[str, ...] = tuple(order)
        self.index: dict[str, int] = {t: i for i, t in enumerate(order)}
        for alias, target in (aliases or {}).items():
            if target not in self.index:
                raise UnknownTermError(target, f"the DAG (target of alias {alias})")
            self.index.setdefault(alias, self.index[target])
        self.labels: Mapping[str, str] = dict(labels or {})
        #: rows never offered by top_k unless asked for (obsolete classes, by default)
        self._excluded = np.zeros(len(order), dtype=bool)
        for t in excluded:
            if t in self.index:
                self._excluded[self.index[t]] = True
        self._kernels = kernels
        #: which path :meth:`pairs` takes: "numba" or "numpy"
        self.engine: Literal["numba", "numpy"] = "numpy" if self._kernels is None else "numba"

    def __getstate__(self) -> dict[str, object]:
        # a module does not pickle: send the index without its kernels, load them again on arrival
        state = dict(self.__dict__)
        state["_kernels"] = None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)  # the kernels are loaded when first needed (_compiled)

    def _compiled(self) -> ModuleType | None:
        """The compiled kernels of engine numba, loaded on first use (an index that arrived pickled has none yet)."""
        if self._kernels is None and self.engine == "numba":
            self._kernels = load_kernels("auto", warn=False)
            if self._kernels is None:  # numba missing where the index arrived: same values, numpy path
                self.engine = "numpy"
        return self._kernels

    @cached_property
    def _s(self) -> sp.csr_matrix:
        """The S-values as a scipy CSR matrix (rows: terms, columns: their ancestors)."""
        import scipy.sparse as sp  # here: a process that scores a few pairs never needs scipy

        n = len(self.terms)
        return sp.csr_matrix((self._table[self._vid], self._cols.astype(np.int32), self._indptr), shape=(n, n))

    @cached_property
    def _z(self) -> sp.csr_matrix:
        """Each S-value s as the complex number s + 1i, for the numerators of many pairs at once.

        For two rows, the product (s_a + 1i)(s_b + 1i) = (s_a s_b - 1) + (s_a + s_b)i exists
        exactly where both rows have an entry, so the imaginary part of a row-by-row product
        sums S_A(t) + S_B(t) over the common ancestors: the numerator of Sim, in one sparse
        operation, exactly (the imaginary part is one rounded float addition).
        """
        import scipy.sparse as sp

        s = self._s
        return sp.csr_matrix((s.data + 1j, s.indices, s.indptr), shape=s.shape)

    def __len__(self) -> int:
        return len(self.terms)

    def __contains__(self, term: object) -> bool:
        return term in self.index

    @property
    def nnz(self) -> int:
        """How many S-values the index holds (the sum of every term's DAG size)."""
        return int(self._indptr[-1])

    # -- lookups --------------------------------------------------------------------

    def rows(self, terms: Iterable[str], *, missing: Missing = "raise") -> npt.NDArray[np.int64]:
        """Row numbers of ``terms`` (aliases resolved); -1 for unknown ones when ``missing="nan"``."""
        seq = terms if isinstance(terms, Sequence) else list(terms)
        if len(seq) > 1:
            # itemgetter looks every term up in one C loop (about twice as fast as a
            # map over dict.get); a KeyError sends the batch through the loop below.
            try:
                return np.fromiter(itemgetter(*seq)(self.index), dtype=np.int64, count=len(seq))
            except KeyError:
                pass
        out = np.fromiter(map(self.index.get, seq, repeat(-1)), dtype=np.int64, count=len(seq))
        if missing == "raise" and (out < 0).any():
            raise UnknownTermError(str(seq[int(np.flatnonzero(out < 0)[0])]))
        return out

    def ancestry(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Every term's ancestors (itself included) as CSR ``(indptr, cols)``.

        Row r's are ``cols[indptr[r]:indptr[r + 1]]``, sorted: the columns of the S-value rows,
        whatever the weights: what IC measures
        (:class:`~craftrdf.analysis.similarity.ic.ICIndex`) need of the graph.
        """
        return self._indptr, self._cols.astype(np.int64)

    def semantic_values(self, term: str) -> dict[str, float]:
        """S-values of DAG(term), by term (from the index; equal to :func:`semantic_values`)."""
        r = self.rows([term])[0]
        lo, hi = self._indptr[r], self._indptr[r + 1]
        return {self.terms[c]: float(self._table[v]) for c, v in zip(self._cols[lo:hi], self._vid[lo:hi])}

    def semantic_value(self, term: str) -> float:
        """SV(term)."""
        return float(self.sv[self.rows([term])[0]])

    # -- similarity -----------------------------------------------------------------

    def similarity(self, a: str, b: str) -> float:
        """Sim(a, b); SimilarityWarning when they share no ancestor (then 0)."""
        return float(self.pairs([a], [b])[0])

    def pairs(
        self, a: Sequence[str], b: Sequence[str], *, missing: Missing = "raise", chunk: int = 32_768
    ) -> npt.NDArray[np.float64]:
        """Sim(a[i], b[i]) for every i, as a float array.

        Unknown terms raise UnknownTermError, or give NaN with ``missing="nan"``. One
        SimilarityWarning counts the pairs that share no ancestor (similarity 0).
        ``chunk`` bounds the pairs per sparse operation on the numpy path.
        """
        if len(a) != len(b):
            raise ValueError(f"pairs need two sequences of one length, got {len(a)} and {len(b)}")
        ra, rb = self.rows(a, missing=missing), self.rows(b, missing=missing)
        return self.pairs_by_row(ra, rb, chunk=chunk)

    def pairs_by_row(self, ra: npt.ArrayLike, rb: npt.ArrayLike, *, chunk: int = 32_768) -> npt.NDArray[np.float64]:
        """:meth:`pairs` on row numbers (``index[term]``; -1 gives NaN); for callers that reuse rows.

        Saves the name lookups, about a third of the time of :meth:`pairs` with the
        compiled kernels. IndexError for a row number past the index.
        """
        xa = np.ascontiguousarray(ra, dtype=np.int64)
        xb = np.ascontiguousarray(rb, dtype=np.int64)
        if xa.shape != xb.shape or xa.ndim != 1:
            raise ValueError(f"pairs need two 1-D row arrays of one length, got shapes {xa.shape} and {xb.shape}")
        n = len(self.terms)
        if xa.size and (max(int(xa.max()), int(xb.max())) >= n):
            raise IndexError(f"row number past the index ({n} terms)")
        kernels = None if self.engine == "numba" and len(xa) <= _FEW_PAIRS else self._compiled()
        if self.engine == "numba" and kernels is None:
            out, disjoint = self._pairs_merged(xa, xb)
        elif kernels is not None:
            out = np.empty(len(xa), dtype=np.float64)
            disjoint = int(
                kernels.pair_similarities(self._indptr, self._cols, self._vid, self._table, self.sv, xa, xb, out)
            )
        else:
            out, disjoint = self._pairs_numpy(xa, xb, chunk)
        if disjoint:
            warnings.warn(
                f"{disjoint} pair(s) share no ancestor (terms of different ontologies?); their similarity is 0",
                SimilarityWarning,
                stacklevel=3,
            )
        return out

    def _pairs_merged(
        self, ra: npt.NDArray[np.int64], rb: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float64], int]:
        """A few pairs by merging the sorted rows, adding in increasing column order as the kernel does."""
        out = np.full(len(ra), np.nan)
        disjoint = 0
        for k, (x, y) in enumerate(zip(ra.tolist(), rb.tolist())):
            if x < 0 or y < 0:
                continue
            if x == y:
                out[k] = 1.0
                continue
            ax, bx, ay, by = self._indptr[x], self._indptr[x + 1], self._indptr[y], self._indptr[y + 1]
            _, ix, iy = np.intersect1d(self._cols[ax:bx], self._cols[ay:by], assume_unique=True, return_indices=True)
            vx, vy = self._table[self._vid[ax:bx][ix]].tolist(), self._table[self._vid[ay:by][iy]].tolist()
            num = 0.0
            for a, b in zip(vx, vy):  # one by one, in column order: the kernel's sum, float for float
                num += a + b
            disjoint += num == 0.0
            out[k] = num / (self.sv[x] + self.sv[y])
        return out, disjoint

    def _pairs_numpy(
        self, ra: npt.NDArray[np.int64], rb: npt.NDArray[np.int64], chunk: int
    ) -> tuple[npt.NDArray[np.float64], int]:
        """The pairs by sparse gather-and-multiply (see :attr:`_z`), and how many share nothing."""
        out = np.full(len(ra), np.nan)
        ok = np.flatnonzero((ra >= 0) & (rb >= 0))
        disjoint = 0
        for lo in range(0, len(ok), chunk):
            sel = ok[lo : lo + chunk]
            xa, xb = ra[sel], rb[sel]
            num = np.asarray(self._z[xa].multiply(self._z[xb]).sum(axis=1)).ravel().imag
            sim = num / (self.sv[xa] + self.sv[xb])
            same = xa == xb
            sim[same] = 1.0
            disjoint += int(np.count_nonzero((num == 0) & ~same))
            out[sel] = sim
        return out, disjoint

    def matrix(
        self, rows: Sequence[str], cols: Sequence[str] | None = None, *, missing: Missing = "raise"
    ) -> npt.NDArray[np.float64]:
        """The similarity of every term of ``rows`` with every term of ``cols`` (default: ``rows``).

        A dense ``len(rows) x len(cols)`` array; rows or columns of unknown terms are NaN
        with ``missing="nan"``.
        """
        ra = self.rows(rows, missing=missing)
        rb = ra if cols is None else self.rows(cols, missing=missing)
        out = np.full((len(ra), len(rb)), np.nan)
        ka, kb = np.flatnonzero(ra >= 0), np.flatnonzero(rb >= 0)
        xa, xb = ra[ka], rb[kb]
        num = (self._z[xa] @ self._z[xb].T).toarray().imag
        sim = num / (self.sv[xa][:, None] + self.sv[xb][None, :])
        sim[xa[:, None] == xb[None, :]] = 1.0
        out[np.ix_(ka, kb)] = sim
        return out

    def top_k(
        self, term: str, k: int, *, candidates: Iterable[str] | None = None, include_excluded: bool = False
    ) -> list[tuple[str, float]]:
        """The ``k`` terms most similar to ``term``, best first (ties by term order).

        Candidates are every term of the index (not ``term`` itself nor its aliases,
        nor excluded terms unless ``include_excluded``), or the given ones.
        """
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        r = self.rows([term])[0]
        if candidates is None:
            pool = np.flatnonzero(~self._excluded) if not include_excluded else np.arange(len(self.terms))
        else:
            pool = np.unique(self.rows(list(candidates)))
        pool = pool[pool != r]
        if len(pool) == 0:
            return []
        z_row = self._z[[r]].toarray().ravel()
        num = (self._z[pool] @ z_row).imag
        sim = num / (self.sv[r] + self.sv[pool])
        k = min(k, len(pool))
        # best first; among equals, the term that comes first in the index
        order = np.lexsort((pool, -sim))[:k]
        return [(self.terms[pool[i]], float(sim[i])) for i in order]

    def group(self, a: Iterable[str], b: Iterable[str], *, combine: Combine = "bma") -> float:
        """Similarity of two term sets (e.g. two documents' annotations), as GOSemSim's mgoSim.

        Terms not in the index are left out with a SimilarityWarning (GOSemSim drops
        them too); NaN if either set is then empty. See :func:`combine_scores`.
        """
        ga, gb = known_terms(a, b, self.index)
        if not ga or not gb:
            return math.nan
        return combine_scores(self.matrix(ga, gb), combine)
