"""Compiled (numba) kernel for :class:`~craftrdf.analysis.similarity.ic.ICIndex`: the most informative common ancestor.

Imported only when an index is built with ``engine="auto"`` or ``"numba"``, as
:mod:`._kernels` is. Each term's ancestors (itself included) are one CSR row whose columns
are sorted by information content, highest first, so the first ancestor of the second
term that is also an ancestor of the first is the most informative common one: the scan
stops there (on UBERON, after a few ancestors instead of the 30 or so of a whole row).
"""

from __future__ import annotations

import numpy as np

from ._kernels import jit


# untyped on purpose: numba infers and specializes the argument types at the first call
@jit
def mica_pairs(indptr, cols, ic, ra, rb, out):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """``out[k]``: the largest ``ic`` among the common ancestors of rows ``ra[k]`` and ``rb[k]`` (0 if none).

    ``cols`` of each row are sorted by ``ic``, highest first. Rows of -1 give NaN.
    """
    n = ic.shape[0]
    stamp = np.full(n, -1, np.int64)
    for k in range(ra.shape[0]):
        x = ra[k]
        y = rb[k]
        if x < 0 or y < 0:
            out[k] = np.nan
            continue
        for i in range(indptr[x], indptr[x + 1]):
            stamp[cols[i]] = k
        best = 0.0
        for j in range(indptr[y], indptr[y + 1]):
            if stamp[cols[j]] == k:
                best = ic[cols[j]]
                break
        out[k] = best


# untyped on purpose: numba infers and specializes the argument types at the first call
@jit
def mica_matrix(indptr, cols, ic, ra, rb, out):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """``out[i, j]``: as :func:`mica_pairs` for rows ``ra[i]`` and ``rb[j]``, every pair (no -1 rows)."""
    n = ic.shape[0]
    stamp = np.full(n, -1, np.int64)
    for i in range(ra.shape[0]):
        x = ra[i]
        for p in range(indptr[x], indptr[x + 1]):
            stamp[cols[p]] = i
        for j in range(rb.shape[0]):
            y = rb[j]
            best = 0.0
            for q in range(indptr[y], indptr[y + 1]):
                if stamp[cols[q]] == i:
                    best = ic[cols[q]]
                    break
            out[i, j] = best
