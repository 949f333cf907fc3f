"""Whether a block of rows holds values that validation refuses, compiled.

A streaming call validates a row or a small chunk: numpy's ``isfinite`` and
``any`` cost a microsecond each there, most of a one-row prediction's budget.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = ["finite_enough"]


@kernel
def finite_enough(X, allow_nan):
    """Whether 2-D float ``X`` holds no infinity, nor any NaN unless
    ``allow_nan``: ``np.isfinite(X).all()`` (``~np.isinf(X).any()`` with
    ``allow_nan``) in one pass that stops at the first refused value."""
    n_rows, width = X.shape
    for i in range(n_rows):
        for j in range(width):
            value = X[i, j]
            if np.isinf(value) or (np.isnan(value) and not allow_nan):
                return False
    return True
