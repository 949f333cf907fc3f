"""Sparse row blocks for the learners that read them without densifying.

A learner with ``_accepts_sparse_blocks`` receives CSR blocks (canonical:
sorted, distinct indices) instead of dense ones; these are the helpers the
base class needs for them: the canonical form, and the per-row uniforms of the
randomised predictions, equal to those of the dense rows
(:func:`~sklearn_localregret.engine.compiled.row_uniforms.row_uniforms`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .engine.compiled.jit import kernel
from .engine.compiled.row_uniforms import GOLDEN, mix_bits

__all__ = ["canonical_csr", "nonzero_row_uniforms", "sparse_row_uniforms"]


def canonical_csr(X, dtype) -> sp.csr_matrix:
    """``X`` as a CSR matrix of ``dtype`` with sorted, distinct indices.

    Duplicate entries are summed, as ``toarray`` would; ``X`` is copied only
    when a conversion needs it.
    """
    X = sp.csr_matrix(X, dtype=dtype)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


@kernel
def _hash_sparse_rows(indptr, indices, data, width, key, out):
    # row_uniforms' hash of the dense uint8 rows, read from the nonzeros: the
    # words between them are 0. O(width / 8) a row, no dense row.
    for i in range(indptr.shape[0] - 1):
        h = mix_bits(key ^ np.uint64(width))
        p, end = indptr[i], indptr[i + 1]
        for start in range(0, width, 8):
            word = np.uint64(0)
            while p < end and indices[p] < start + 8:
                word |= np.uint64(data[p]) << np.uint64(8 * (indices[p] - start))
                p += 1
            h = mix_bits(h + GOLDEN + word)
        out[i] = np.float64(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def sparse_row_uniforms(X, key: int) -> np.ndarray:
    """:func:`row_uniforms` of the dense ``uint8`` rows of a canonical CSR ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.engine.compiled.row_uniforms import row_uniforms
    >>> X = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 0, 1], [0] * 10], dtype=np.uint8)
    >>> bool((sparse_row_uniforms(sp.csr_matrix(X), 7) == row_uniforms(X, 7)).all())
    True
    """
    if X.dtype != np.uint8:
        raise TypeError("sparse_row_uniforms hashes uint8 rows")
    out = np.empty(X.shape[0])
    _hash_sparse_rows(
        X.indptr, X.indices, X.data, X.shape[1], np.uint64(key % 2**64), out
    )
    return out


@kernel
def _hash_nonzeros(indptr, indices, data, width, key, out):
    # Each nonzero's column and value bits; zeros (stored or not) are skipped.
    for i in range(indptr.shape[0] - 1):
        h = mix_bits(key ^ np.uint64(width))
        for p in range(indptr[i], indptr[i + 1]):
            if data[p] != 0.0:
                h = mix_bits(h + GOLDEN + np.uint64(indices[p]))
                h = mix_bits(h + GOLDEN + data[p : p + 1].view(np.uint64)[0])
        out[i] = np.float64(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def nonzero_row_uniforms(X, key: int) -> np.ndarray:
    """One uniform in [0, 1) per row of a canonical float64 CSR ``X``, a
    function of the row's nonzeros (columns and values) and ``key``: the
    same row held dense or sparse, with or without stored zeros, gets the
    same uniform, in time of its nonzeros (what a forest reads wide rows
    with; not :func:`row_uniforms`' value).

    Examples
    --------
    >>> import numpy as np
    >>> X = sp.csr_matrix(np.array([[0.0, 2.5, 0.0], [0.0, 2.5, 0.0], [1.0, 0, 0]]))
    >>> u = nonzero_row_uniforms(X, 7)
    >>> bool(u[0] == u[1] != u[2]), bool(0 <= u.min() and u.max() < 1)
    (True, True)
    """
    if X.dtype != np.float64:
        raise TypeError("nonzero_row_uniforms hashes float64 rows")
    data = X.data
    if np.isnan(data).any():  # every NaN the same bits (as row_uniforms)
        data = np.where(np.isnan(data), np.nan, data)
    out = np.empty(X.shape[0])
    _hash_nonzeros(X.indptr, X.indices, data, X.shape[1], np.uint64(key % 2**64), out)
    return out
