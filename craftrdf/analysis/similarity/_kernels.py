"""Compiled (numba) kernels for :class:`~craftrdf.analysis.similarity.wang.WangIndex`.

Imported only when an index is built with ``engine="auto"`` or ``"numba"``, never by
``import craftrdf``: numba's import and its first compilation cost about a second.
Compiled code is cached on disk (``cache=True``), so later processes only load it.

The index keeps each term's S-values as one CSR row: ``indptr`` (int64), the sorted
ancestor rows ``cols`` (uint16 when the graph has at most 65,536 terms, else int32)
and ``vid``, the position of each S-value in ``table`` (uint16 or int32), the distinct
S-values. Two bytes a column and two a value keep the whole ontology in the
CPU's caches (UBERON: 409,176 S-values, 169 distinct ones); the values read through
``table`` are the very floats computed, so nothing is rounded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np


def jit(fn: Callable[..., Any]) -> Any:
    """``numba.njit`` with an on-disk cache, or without one where no cache directory can be had."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(fn)


# untyped on purpose: numba infers and specializes the argument types at the first call
@jit
def pair_similarities(indptr, cols, vid, table, sv, ra, rb, out):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """Sim(ra[k], rb[k]) into ``out[k]`` (NaN where a row is -1); returns how many pairs share nothing.

    A large batch marks the first term's ancestors in a scratch vector (the pair's
    number and the value's position, in one int64, so the vector is never cleared),
    then walks the second term's ancestors and reads the marks, adding 0.0 where a
    mark is not this pair's (which leaves the sum as it is): no unpredictable branch,
    neither on the order of two columns, as a merge has, nor on each match. A small
    batch (fewer pairs than terms / 64) merges the two sorted rows instead, so it
    does not pay for the scratch vector.
    Common ancestors are visited in increasing column order either way, so
    Sim(a, b) and Sim(b, a) are the same float.
    """
    n = sv.shape[0]
    m = ra.shape[0]
    disjoint = 0
    if m * 64 < n:
        for k in range(m):
            x = ra[k]
            y = rb[k]
            if x < 0 or y < 0:
                out[k] = np.nan
                continue
            if x == y:
                out[k] = 1.0
                continue
            i = indptr[x]
            ie = indptr[x + 1]
            j = indptr[y]
            je = indptr[y + 1]
            num = 0.0
            while i < ie and j < je:
                ci = cols[i]
                cj = cols[j]
                if ci == cj:
                    num += table[vid[i]] + table[vid[j]]
                    i += 1
                    j += 1
                elif ci < cj:
                    i += 1
                else:
                    j += 1
            if num == 0.0:
                disjoint += 1
            out[k] = num / (sv[x] + sv[y])
        return disjoint
    # mark = pair number << 32 | value position; the initial mark (-1, 0) matches no pair
    # and still points into ``table``, so the loop below can read it unconditionally
    scratch = np.full(n, np.int64(-1) << 32, np.int64)
    for k in range(m):
        x = ra[k]
        y = rb[k]
        if x < 0 or y < 0:
            out[k] = np.nan
            continue
        if x == y:
            out[k] = 1.0
            continue
        tag = np.int64(k) << 32
        for i in range(indptr[x], indptr[x + 1]):
            scratch[cols[i]] = tag | np.int64(vid[i])
        num = 0.0
        for j in range(indptr[y], indptr[y + 1]):
            mark = scratch[cols[j]]
            # a select, not a branch: whether an ancestor is shared is too random to predict
            both = table[mark & 0xFFFFFFFF] + table[vid[j]]
            num += both if (mark >> 32) == k else 0.0
        if num == 0.0:
            disjoint += 1
        out[k] = num / (sv[x] + sv[y])
    return disjoint


# untyped on purpose: numba infers and specializes the argument types at the first call
@jit
def s_value_rows(eptr, eparent, eweight):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """Every term's S-values as CSR rows ``(indptr, cols, vals)``, columns sorted.

    Terms are numbered in a topological order, parents first; ``eparent[eptr[r]:eptr[r + 1]]``
    are the parents of term ``r`` and ``eweight`` the edges' weights. Row r is {r: 1}
    and, for each ancestor t reached through a parent p, the largest ``S_p(t) * w(r -> p)``:
    the recursion ``S_A = max over parents p of w(A -> p) * S_p``, written as the numpy
    path computes it (value times weight, then the maximum), so the floats are equal.
    """
    n = eptr.shape[0] - 1
    cap = max(16, 8 * n)
    cols = np.empty(cap, np.int32)
    vals = np.empty(cap, np.float64)
    indptr = np.zeros(n + 1, np.int64)
    mark = np.full(n, -1, np.int64)
    best = np.empty(n, np.float64)
    found = np.empty(n, np.int32)
    pos = 0
    for r in range(n):
        if eptr[r + 1] - eptr[r] == 1:
            # one parent p: the row is p's, scaled, then r itself (numbered after all its
            # ancestors, so last in column order); no maximum to take, nothing to sort
            p = eparent[eptr[r]]
            w = eweight[eptr[r]]
            lo = indptr[p]
            cnt = indptr[p + 1] - lo + 1
            if pos + cnt > cap:
                cap = max(2 * cap, pos + cnt)
                grown_cols = np.empty(cap, np.int32)
                grown_cols[:pos] = cols[:pos]
                cols = grown_cols
                grown_vals = np.empty(cap, np.float64)
                grown_vals[:pos] = vals[:pos]
                vals = grown_vals
            for q in range(cnt - 1):
                cols[pos + q] = cols[lo + q]
                vals[pos + q] = vals[lo + q] * w
            cols[pos + cnt - 1] = r
            vals[pos + cnt - 1] = 1.0
            pos += cnt
            indptr[r + 1] = pos
            continue
        mark[r] = r
        best[r] = 1.0
        found[0] = r
        cnt = 1
        for e in range(eptr[r], eptr[r + 1]):
            p = eparent[e]
            w = eweight[e]
            for i in range(indptr[p], indptr[p + 1]):
                c = cols[i]
                v = vals[i] * w
                if mark[c] != r:
                    mark[c] = r
                    best[c] = v
                    found[cnt] = c
                    cnt += 1
                elif v > best[c]:
                    best[c] = v
        if pos + cnt > cap:
            cap = max(2 * cap, pos + cnt)
            grown_cols = np.empty(cap, np.int32)
            grown_cols[:pos] = cols[:pos]
            cols = grown_cols
            grown_vals = np.empty(cap, np.float64)
            grown_vals[:pos] = vals[:pos]
            vals = grown_vals
        row = np.sort(found[:cnt])
        for q in range(cnt):
            c = row[q]
            cols[pos + q] = c
            vals[pos + q] = best[c]
        pos += cnt
        indptr[r + 1] = pos
    return indptr, cols[:pos].copy(), vals[:pos].copy()


# untyped on purpose: numba infers and specializes the argument types at the first call
@jit
def value_ids(vals):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """``(table, ids)``: the distinct values (first seen first) and each value's position in it.

    ``table[ids]`` equals ``vals`` bit for bit: values are told apart by their bits,
    in an open-addressing hash table (what ``np.unique`` does by sorting, in one pass).
    """
    m = vals.shape[0]
    bits = vals.view(np.uint64)
    log_size = 10
    slots = np.full(1 << log_size, -1, np.int64)
    table = np.empty(m, np.float64)
    table_bits = table.view(np.uint64)
    ids = np.empty(m, np.int32)
    count = 0
    for i in range(m):
        b = bits[i]
        mask = (1 << log_size) - 1
        h = np.int64((b * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - log_size))
        while True:
            s = slots[h]
            if s < 0:
                slots[h] = count
                table[count] = vals[i]
                ids[i] = count
                count += 1
                break
            if table_bits[s] == b:
                ids[i] = s
                break
            h = (h + 1) & mask
        if 2 * count >= (1 << log_size):
            # more than half full: twice the slots, every distinct value placed again
            log_size += 1
            mask = (1 << log_size) - 1
            slots = np.full(1 << log_size, -1, np.int64)
            for t in range(count):
                h = np.int64((table_bits[t] * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - log_size))
                while slots[h] >= 0:
                    h = (h + 1) & mask
                slots[h] = t
    return table[:count].copy(), ids


def warm_up(indptr: np.ndarray, cols: np.ndarray, vid: np.ndarray, table: np.ndarray, sv: np.ndarray) -> None:
    """Compile (or load from the disk cache) the kernels for these arrays' types, now.

    Numba compiles on the first call for each combination of argument types; calling
    here, on no pairs, moves that one-time cost (and any compilation error) to the
    index build instead of the first query.
    """
    none = np.empty(0, dtype=np.int64)
    s_value_rows(np.zeros(1, dtype=np.int64), none, np.empty(0, dtype=np.float64))
    value_ids(np.empty(0, dtype=np.float64))
    pair_similarities(indptr, cols, vid, table, sv, none, none, np.empty(0, dtype=np.float64))
