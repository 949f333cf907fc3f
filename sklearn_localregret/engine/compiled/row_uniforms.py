"""A uniform per data row that depends only on the row and a key.

A randomised prediction that is a function of the row (not of its position in
a batch) gives the same class to a row whether it is predicted alone, in a
subset or in another order, and a fitted model predicts the same on the same
rows every time. The uniform is a 64-bit hash of the row's bytes and the key
(splitmix64's finaliser over 8-byte words), read as a number in [0, 1).
"""

from __future__ import annotations

import numpy as np

from .jit import inline_kernel, kernel

__all__ = ["row_uniforms"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


@inline_kernel
def mix_bits(z):
    """splitmix64's finaliser: a bijection of 64-bit words that avalanches."""
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@kernel
def _hash_rows(data, key, out):
    n_rows, width = data.shape
    for i in range(n_rows):
        h = mix_bits(key ^ np.uint64(width))
        for start in range(0, width, 8):
            word = np.uint64(0)
            for b in range(start, min(start + 8, width)):
                word |= np.uint64(data[i, b]) << np.uint64(8 * (b - start))
            h = mix_bits(h + GOLDEN + word)
        # The top 53 bits as a double in [0, 1).
        out[i] = np.float64(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def row_uniforms(X: np.ndarray, key: int) -> np.ndarray:
    """One uniform in [0, 1) per row of ``X``, a function of its values and ``key``.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
        Rows of any numeric dtype. Equal rows of the same dtype get equal
        uniforms; ``-0.0`` and ``0.0`` count as equal, and so do all NaNs
        (missing values: ``np.nan`` and ``0/0`` differ in their bits).
    key : int
        A 64-bit key (any int; taken modulo 2**64). Different keys give
        independent-looking uniforms for the same rows.

    Returns
    -------
    ndarray of shape (n_rows,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.5, 1.0], [2.0, 3.0], [0.5, 1.0]])
    >>> u = row_uniforms(X, key=7)
    >>> bool(u[0] == u[2]), bool(u[0] != u[1]), bool(((u >= 0) & (u < 1)).all())
    (True, True, True)
    """
    X = np.asarray(X)
    if X.dtype.kind == "f":
        X = X + 0.0  # -0.0 + 0.0 is 0.0: equal values, equal bytes
        missing = np.isnan(X)
        if missing.any():  # every NaN the same bits (the sign and payload vary)
            X[missing] = np.nan
    data = np.ascontiguousarray(X).view(np.uint8).reshape(X.shape[0], -1)
    out = np.empty(X.shape[0])
    _hash_rows(data, np.uint64(key % 2**64), out)
    return out
