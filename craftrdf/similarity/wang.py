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

import importlib
import logging
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import chain, repeat
from operator import itemgetter
from types import ModuleType
from typing import Literal

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ..errors import ConfigError, CraftrdfError, DataWarning, InputError

__all__ = [
    "BOSSY_WEIGHTS",
    "DEFAULT_RELATION_WEIGHT",
    "DEFAULT_WEIGHTS",
    "CycleError",
    "Engine",
    "SimilarityWarning",
    "UnknownTermError",
    "WangIndex",
    "WeightedDag",
    "combine_scores",
    "load_kernels",
    "semantic_value",
    "semantic_values",
    "wang_similarity",
    "weighted_dag",
]

logger = logging.getLogger(__name__)

#: child -> {parent: weight of the edge child -> parent}
WeightedDag = Mapping[str, Mapping[str, float]]

#: The paper's weights (Wang et al. 2007, section 2.2): is_a 0.8, part_of 0.6.
DEFAULT_WEIGHTS: Mapping[str, float] = {"is_a": 0.8, "part_of": 0.6}
#: The weight of a relation that is followed but given no weight of its own: the
#: paper's only non-is_a weight (part_of), which goatools also uses for ``regulates``.
DEFAULT_RELATION_WEIGHT = 0.6
#: The CRAFT Shared Task variant (Bossy et al. 2013, as in the CRAFT evaluation):
#: is_a only, one weight 0.65, so S_A(t) = 0.65 ** (shortest is_a distance from A to t).
BOSSY_WEIGHTS: Mapping[str, float] = {"is_a": 0.65}

Combine = Literal["max", "avg", "rcmax", "bma"]
Missing = Literal["raise", "nan"]
#: How :meth:`WangIndex.pairs` computes: compiled kernels if possible, always, or never.
Engine = Literal["auto", "numba", "numpy"]


class UnknownTermError(CraftrdfError, LookupError):
    """A term that is not in the ontology graph similarity is computed on."""

    def __init__(self, term: str, where: str = "the ontology graph") -> None:
        self.term = term
        super().__init__(f"unknown term {term!r}: not in {where}")


class CycleError(InputError):
    """The chosen relations form a cycle, so there is no DAG to compute S-values on."""


class SimilarityWarning(DataWarning):
    """A similarity that is defined but probably not what the caller meant (no common ancestor)."""


def weighted_dag(
    edges: Iterable[tuple[str, str, str]],
    weights: Mapping[str, float],
    *,
    nodes: Iterable[str] = (),
) -> dict[str, dict[str, float]]:
    """A :data:`WeightedDag` from ``(child, relation, parent)`` triples.

    Only relations named in ``weights`` are kept; when two relations join the same
    child and parent, the larger weight wins (it gives the larger S-values). Every
    term of ``nodes`` is present, with no parents if it has none.

    >>> weighted_dag([("b", "is_a", "a"), ("b", "part_of", "a"), ("c", "has_part", "b")],
    ...              {"is_a": 0.8, "part_of": 0.6}, nodes=["c"])
    {'c': {}, 'b': {'a': 0.8}, 'a': {}}
    """
    dag: dict[str, dict[str, float]] = {n: {} for n in nodes}
    for child, rel, parent in edges:
        w = weights.get(rel)
        if w is None:
            continue
        parents = dag.setdefault(child, {})
        dag.setdefault(parent, {})
        if child == parent:
            continue
        if w > parents.get(parent, -1.0):
            parents[parent] = w
    return dag


def semantic_values(dag: WeightedDag, term: str) -> dict[str, float]:
    """The S-values of every term in DAG(term), computed as the definition reads.

    Walks DAG(term) from ``term`` towards the roots, giving each ancestor the maximum,
    over its children within DAG(term), of weight times the child's S-value.
    Raises UnknownTermError if ``term`` is not in ``dag``, CycleError on a cycle.

    >>> dag = {"b": {"a": 0.8}, "c": {"a": 0.6, "b": 0.8}, "a": {}}
    >>> semantic_values(dag, "c")
    {'c': 1.0, 'b': 0.8, 'a': 0.6400000000000001}
    """
    if term not in dag:
        raise UnknownTermError(term)
    # DAG(term): everything reachable over parent edges; and the children within it.
    members = {term}
    stack = [term]
    while stack:
        for parent in dag.get(stack.pop(), {}):
            if parent not in members:
                members.add(parent)
                stack.append(parent)
    children: dict[str, list[str]] = {t: [] for t in members}
    for t in members:
        for parent in dag.get(t, {}):
            children[parent].append(t)
    # Kahn's algorithm from ``term`` upwards: a term is ready once all its children are done.
    waiting = {t: len(children[t]) for t in members}
    if waiting[term]:
        raise CycleError(f"the relations followed from {term} lead back to it")
    s: dict[str, float] = {}
    ready = [term]
    while ready:
        t = ready.pop()
        s[t] = 1.0 if t == term else max(dag[c][t] * s[c] for c in children[t])
        for parent in dag.get(t, {}):
            waiting[parent] -= 1
            if waiting[parent] == 0:
                ready.append(parent)
    if len(s) != len(members):
        raise CycleError(f"the relations followed from {term} form a cycle among {sorted(set(members) - set(s))[:5]}")
    return s


def semantic_value(dag: WeightedDag, term: str) -> float:
    """SV(term): the sum of the S-values of DAG(term).

    >>> semantic_value({"b": {"a": 0.8}, "a": {}}, "b")
    1.8
    """
    return math.fsum(semantic_values(dag, term).values())


def wang_similarity(dag: WeightedDag, a: str, b: str) -> float:
    """Sim(a, b) by the definition, for one pair (use :class:`WangIndex` for many).

    >>> dag = {"b": {"a": 0.8}, "c": {"a": 0.8}, "a": {}}
    >>> round(wang_similarity(dag, "b", "c"), 6)  # (0.8 + 0.8) / (1.8 + 1.8)
    0.444444
    """
    if a == b:
        if a not in dag:
            raise UnknownTermError(a)
        return 1.0
    sa, sb = semantic_values(dag, a), semantic_values(dag, b)
    common = sa.keys() & sb.keys()
    num = math.fsum(sa[t] + sb[t] for t in common)
    return num / (math.fsum(sa.values()) + math.fsum(sb.values()))


def combine_scores(scores: npt.ArrayLike, how: Combine = "bma") -> float:
    """Combine a term-by-term similarity matrix of two term sets into one score.

    As GOSemSim's ``mgoSim`` (``combine=``): ``max`` of all scores, ``avg`` of all
    scores, ``rcmax`` the larger of the mean row maximum and mean column maximum, and
    ``bma`` (best-match average) the sum of row maxima and column maxima divided by
    the number of rows plus columns. NaN when either set is empty. (GOSemSim rounds
    to 3 decimals; this does not.)

    >>> combine_scores([[1.0, 0.2], [0.4, 0.6]], "bma")  # (1 + .6 + 1 + .6) / 4
    0.8
    >>> combine_scores([[1.0, 0.2], [0.4, 0.6]], "avg")
    0.55
    """
    m = np.asarray(scores, dtype=float)
    if m.ndim != 2:
        raise ValueError("scores must be a 2-D matrix")
    if m.size == 0:
        return math.nan
    if how == "max":
        return float(m.max())
    if how == "avg":
        return float(m.mean())
    rows, cols = m.max(axis=1), m.max(axis=0)
    if how == "rcmax":
        return float(max(rows.mean(), cols.mean()))
    if how == "bma":
        return float((rows.sum() + cols.sum()) / (m.shape[0] + m.shape[1]))
    raise ValueError(f"unknown combine method {how!r}: use max, avg, rcmax or bma")


def _ragged(starts: npt.NDArray[np.int64], lens: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lens)])``, without the loop."""
    total = int(lens.sum())
    return np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)


def _s_value_rows(
    dag: WeightedDag, kernels: ModuleType | None = None
) -> tuple[list[str], npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """Every term's S-values as CSR rows (columns sorted), terms ordered by level.

    A term's level is one more than its parents' highest (roots: 0), found by Kahn's
    algorithm one level at a time; terms left without a level lie on or below a cycle
    (CycleError). Then ``S_A = {A: 1} + max over parents p of w(A -> p) * S_p``, one
    level at a time: each level only reads rows of earlier ones, and all of a level's
    rows come out of a few array operations (gather the parents' rows, scale by the
    edge weights, keep the maximum per ancestor). Rows are numbered by level, which
    is also a topological order. InputError for a weight outside (0, 1].

    With ``kernels`` (:mod:`craftrdf.similarity._kernels`) the rows come from a compiled
    loop over the terms instead of the per-level array operations: the same products,
    the same maxima, so the same floats.
    """
    pos: dict[str, int] = {t: i for i, t in enumerate(dag)}
    names = list(pos)
    groups = list(dag.values())
    # the edges as three arrays, built by C-level iteration (a per-edge Python loop
    # was a third of the index build); parents that are not keys get rows after the keys
    parent_names = [p for parents in groups for p in parents]
    for p in dict.fromkeys(parent_names):
        if p not in pos:
            pos[p] = len(names)
            names.append(p)
    n = len(names)
    child = np.repeat(
        np.arange(len(groups), dtype=np.int64), np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    )
    parent = np.fromiter(map(pos.__getitem__, parent_names), dtype=np.int64, count=len(parent_names))
    weight = np.fromiter(
        chain.from_iterable(parents.values() for parents in groups), dtype=np.float64, count=len(parent_names)
    )
    bad = np.flatnonzero(~((weight > 0.0) & (weight <= 1.0)))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"edge {names[child[i]]} -> {names[parent[i]]} has weight {weight[i]}: weights must be in (0, 1]"
        )
    # levels, by Kahn's algorithm over whole levels
    by_parent = np.argsort(parent, kind="stable")
    child_of = child[by_parent]
    eptr = np.searchsorted(parent[by_parent], np.arange(n + 1))
    waiting = np.bincount(child, minlength=n)
    level = np.full(n, -1, dtype=np.int64)
    frontier = np.flatnonzero(waiting == 0)
    depth = 0
    while frontier.size:
        level[frontier] = depth
        reached = child_of[_ragged(eptr[frontier], eptr[frontier + 1] - eptr[frontier])]
        done = np.bincount(reached, minlength=n)
        waiting -= done
        frontier = np.flatnonzero((waiting == 0) & (done > 0))
        depth += 1
    if (level < 0).any():
        stuck = sorted(names[i] for i in np.flatnonzero(level < 0))
        raise CycleError(f"the relations followed form a cycle; {len(stuck)} terms on or below it, e.g. {stuck[:5]}")
    # renumber by level (stable: within a level, first-seen order)
    order = np.argsort(level, kind="stable")
    new = np.empty(n, dtype=np.int64)
    new[order] = np.arange(n)
    lev = level[order]
    child, parent = new[child], new[parent]
    by_child = np.argsort(child, kind="stable")
    child, parent, weight = child[by_child], parent[by_child], weight[by_child]
    if kernels is not None:
        eptr = np.searchsorted(child, np.arange(n + 1))
        indptr, cols, vals = kernels.s_value_rows(eptr, parent, weight)
        return [names[i] for i in order], indptr, cols, vals
    start = np.zeros(n, dtype=np.int64)  # where each row begins in all_cols/all_vals
    length = np.zeros(n, dtype=np.int64)
    all_cols = np.empty(0, dtype=np.int64)
    all_vals = np.empty(0, dtype=np.float64)
    bounds = np.searchsorted(lev, np.arange(depth + 1))
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        rows = np.arange(lo, hi)
        e_lo, e_hi = np.searchsorted(child, [lo, hi])
        e_child, e_parent, e_w = child[e_lo:e_hi], parent[e_lo:e_hi], weight[e_lo:e_hi]
        lens = length[e_parent]
        offsets = _ragged(start[e_parent], lens)
        owner = np.concatenate([rows, np.repeat(e_child, lens)])
        col = np.concatenate([rows, all_cols[offsets]])
        val = np.concatenate([np.ones(len(rows)), all_vals[offsets] * np.repeat(e_w, lens)])
        key = owner * n + col
        srt = np.argsort(key, kind="stable")
        key, val = key[srt], val[srt]
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ukey = key[first]
        counts = np.bincount(ukey // n - lo, minlength=hi - lo)
        start[lo:hi] = len(all_cols) + np.cumsum(counts) - counts
        length[lo:hi] = counts
        all_cols = np.concatenate([all_cols, ukey % n])
        all_vals = np.concatenate([all_vals, np.maximum.reduceat(val, first)])
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=indptr[1:])
    return [names[i] for i in order], indptr, all_cols.astype(np.int32), all_vals


def _compact_rows(
    dag: WeightedDag, kernels: ModuleType | None
) -> tuple[
    list[str],
    npt.NDArray[np.int64],
    npt.NDArray[np.integer],
    npt.NDArray[np.integer],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """:func:`_s_value_rows` made compact: ``(terms, indptr, cols, vid, table, sv)``.

    Columns narrowed to uint16 when there are at most 65,536 terms, and each S-value
    replaced by its position ``vid`` in ``table``, the distinct S-values (few: products
    of a few weights), so that ``table[vid]`` gives back every float as computed; ``sv``
    is each row's sum. With ``kernels``, the compiled kernels compute, and are compiled
    (or loaded from numba's cache) for these arrays' types before this returns, so a
    compilation error shows here.
    """
    order, indptr, cols, vals = _s_value_rows(dag, kernels)
    if kernels is not None:
        table, inverse = kernels.value_ids(vals)
    else:
        table, inverse = np.unique(vals, return_inverse=True)
    vid = inverse.astype(np.uint16) if len(table) <= 1 << 16 else inverse.astype(np.int32)
    narrow = cols.astype(np.uint16) if len(order) <= 1 << 16 else cols.astype(np.int32)
    sv = np.add.reduceat(vals, indptr[:-1]) if len(order) else np.zeros(0, dtype=np.float64)
    if kernels is not None:
        kernels.warm_up(indptr, narrow, vid, table, sv)
    return order, indptr, narrow, vid, table, sv


def load_kernels(engine: Engine = "auto", *, warn: bool = True) -> ModuleType | None:
    """The compiled kernels module for ``engine``, or None for the numpy path.

    ``"numpy"`` gives None; ``"auto"`` imports :mod:`craftrdf.similarity._kernels` (and
    so numba) and gives None, with one logged warning, when numba is not installed or
    cannot load; ``"numba"`` raises ConfigError instead. Python's import system keeps
    the module, so only the first call pays numba's import (about 0.4 s).
    """
    if engine == "numpy":
        return None
    if engine not in ("auto", "numba"):
        raise ConfigError(f"unknown similarity engine {engine!r}: use auto, numba or numpy")
    try:
        return importlib.import_module(f"{__package__}._kernels")
    except Exception as exc:
        _kernels_failed(engine, exc, warn=warn)
        return None


def _kernels_failed(engine: Engine, exc: Exception, *, warn: bool = True) -> None:
    """Say that the compiled path failed: ConfigError for engine numba, else one log line (if ``warn``)."""
    reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")
    if engine == "numba":
        raise ConfigError(
            f"similarity engine numba is unavailable ({reason}); "
            "install numba (pip install numba) or use engine auto or numpy"
        ) from exc
    if warn:
        logger.warning(
            "Wang similarity: compiled kernels unavailable (%s); using the numpy path "
            "(same values, several times slower on many pairs)",
            reason,
        )


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
                rows = _compact_rows(dag, kernels)
            except CraftrdfError:
                raise
            except Exception as exc:
                _kernels_failed(engine, exc)
                kernels = None
        order, self._indptr, self._cols, self._vid, self._table, self.sv = (
            rows if rows is not None else _compact_rows(dag, None)
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
        self.__dict__.update(state)
        if self.engine == "numba":
            self._kernels = load_kernels("auto", warn=False)
            if self._kernels is None:  # numba missing where the index arrived: same values, numpy path
                self.engine = "numpy"

    @cached_property
    def _s(self) -> sp.csr_matrix:
        """The S-values as a scipy CSR matrix (rows: terms, columns: their ancestors)."""
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
        if self._kernels is not None:
            out = np.empty(len(xa), dtype=np.float64)
            disjoint = int(
                self._kernels.pair_similarities(self._indptr, self._cols, self._vid, self._table, self.sv, xa, xb, out)
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
        ga, gb = list(dict.fromkeys(a)), list(dict.fromkeys(b))
        unknown = [t for t in ga + gb if t not in self.index]
        if unknown:
            warnings.warn(
                f"{len(unknown)} term(s) not in the ontology graph left out, e.g. {unknown[:3]}",
                SimilarityWarning,
                stacklevel=2,
            )
        ga = [t for t in ga if t in self.index]
        gb = [t for t in gb if t in self.index]
        if not ga or not gb:
            return math.nan
        return combine_scores(self.matrix(ga, gb), combine)
