"""Every term's S-values as rows of a sparse matrix, level by level (numpy) or compiled (numba).

What :class:`~craftrdf.analysis.similarity.wang.WangIndex` is built from; see its module for the recursion.
"""

from __future__ import annotations

import importlib
import logging
from itertools import chain
from types import ModuleType

import numpy as np
import numpy.typing as npt

from ...core.errors import ConfigError, InputError
from .definition import CycleError, Engine, WeightedDag

logger = logging.getLogger(__name__)


def _ragged(starts: npt.NDArray[np.int64], lens: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lens)])``, without the loop."""
    total = int(lens.sum())
    return np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)


def s_value_rows(
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

    With ``kernels`` (:mod:`craftrdf.analysis.similarity._kernels`) the rows come from a compiled
    loop over the terms instead of the per-level array operations: the same products,
    the same maxima, so the same floats.
    """
    names, child, parent, weight = _edges(dag)
    n = len(names)
    level, depth = _levels(names, child, parent)
    # renumber by level (stable: within a level, first-seen order)
    order = np.argsort(level, kind="stable")
    new = np.empty(n, dtype=np.int64)
    new[order] = np.arange(n)
    child, parent = new[child], new[parent]
    by_child = np.argsort(child, kind="stable")
    child, parent, weight = child[by_child], parent[by_child], weight[by_child]
    if kernels is not None:
        eptr = np.searchsorted(child, np.arange(n + 1))
        indptr, cols, vals = kernels.s_value_rows(eptr, parent, weight)
        return [names[i] for i in order], indptr, cols, vals
    indptr, cols, vals = _rows_by_level(level[order], depth, child, parent, weight)
    return [names[i] for i in order], indptr, cols, vals


def _edges(
    dag: WeightedDag,
) -> tuple[list[str], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``(names, child, parent, weight)``: the terms, then the edges as three arrays of positions and weights.

    Built by C-level iteration (a per-edge Python loop was a third of the index build);
    parents that are not keys get positions after the keys. InputError for a weight
    outside (0, 1].
    """
    pos: dict[str, int] = {t: i for i, t in enumerate(dag)}
    names = list(pos)
    groups = list(dag.values())
    parent_names = [p for parents in groups for p in parents]
    for p in dict.fromkeys(parent_names):
        if p not in pos:
            pos[p] = len(names)
            names.append(p)
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
    return names, child, parent, weight


def _levels(
    names: list[str], child: npt.NDArray[np.int64], parent: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], int]:
    """Each term's level (roots 0) and the number of levels, by Kahn's algorithm over whole levels.

    CycleError naming a few terms when some are left without a level.
    """
    n = len(names)
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
    return level, depth


def _rows_by_level(
    lev: npt.NDArray[np.int64],
    depth: int,
    child: npt.NDArray[np.int64],
    parent: npt.NDArray[np.int64],
    weight: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """The CSR rows ``(indptr, cols, vals)`` by array operations, one level at a time.

    Terms are numbered by level (``lev`` sorted) and the edges sorted by child.
    """
    n = len(lev)
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
    return indptr, all_cols.astype(np.int32), all_vals


def compact_rows(
    dag: WeightedDag, kernels: ModuleType | None
) -> tuple[
    list[str],
    npt.NDArray[np.int64],
    npt.NDArray[np.integer],
    npt.NDArray[np.integer],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """:func:`s_value_rows` made compact: ``(terms, indptr, cols, vid, table, sv)``.

    Columns narrowed to uint16 when there are at most 65,536 terms, and each S-value
    replaced by its position ``vid`` in ``table``, the distinct S-values (few: products
    of a few weights), so that ``table[vid]`` gives back every float as computed; ``sv``
    is each row's sum. With ``kernels``, the compiled kernels compute, and are compiled
    (or loaded from numba's cache) for these arrays' types before this returns, so a
    compilation error shows here.
    """
    order, indptr, cols, vals = s_value_rows(dag, kernels)
    if kernels is not None:
        table, inverse = kernels.value_ids(vals)
    else:
        table, inverse = np.unique(vals, return_inverse=True)
    vid = inverse.astype(_index_type(len(table)))
    narrow = cols.astype(_index_type(len(order)))
    sv = np.add.reduceat(vals, indptr[:-1]) if len(order) else np.zeros(0, dtype=np.float64)
    if kernels is not None:
        kernels.warm_up(indptr, narrow, vid, table, sv)
    return order, indptr, narrow, vid, table, sv


def _index_type(n: int) -> type[np.unsignedinteger] | type[np.signedinteger]:
    """The narrowest type :func:`compact_rows` gives positions among ``n`` items: uint16, else int32."""
    return np.uint16 if n <= 1 << 16 else np.int32


def compile_kernels(terms: int, values: int = 1) -> bool:
    """Compile the kernels for an index of ``terms`` terms and ``values`` distinct S-values, now.

    What a :class:`~craftrdf.analysis.similarity.wang.WangIndex` of that size would compile at its
    build, done ahead (in a worker process, say) so that the build only loads the result
    from numba's on-disk cache; a process without a writable cache gains nothing. False when
    the compiled kernels are unavailable (nothing is logged: the index says so when built).
    """
    kernels = load_kernels("auto", warn=False)
    if kernels is None:
        return False
    cols, vid = np.empty(0, dtype=_index_type(terms)), np.empty(0, dtype=_index_type(values))
    try:
        kernels.warm_up(np.zeros(1, dtype=np.int64), cols, vid, np.zeros(1), np.empty(0))
    except Exception:  # numba's errors have no common base; the index's own build reports them
        return False
    logger.debug("similarity kernels compiled for %d terms (%s columns)", terms, cols.dtype)
    return True


def load_kernels(engine: Engine = "auto", *, warn: bool = True, module: str = "_kernels") -> ModuleType | None:
    """The compiled kernels module for ``engine``, or None for the numpy path.

    ``module``: which kernels of this package (``_kernels``, Wang's; ``_ic_kernels``, the IC measures').

    ``"numpy"`` gives None; ``"auto"`` imports :mod:`craftrdf.analysis.similarity._kernels` (and
    so numba) and gives None, with one logged warning, when numba is not installed or
    cannot load; ``"numba"`` raises ConfigError instead. Python's import system keeps
    the module, so only the first call pays numba's import (about 0.4 s).
    """
    if engine == "numpy":
        return None
    if engine not in ("auto", "numba"):
        raise ConfigError(f"unknown similarity engine {engine!r}: use auto, numba or numpy")
    try:
        return importlib.import_module(f"{__package__}.{module}")
    except Exception as exc:
        kernels_failed(engine, exc, warn=warn)
        return None


def kernels_failed(engine: Engine, exc: Exception, *, warn: bool = True) -> None:
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
