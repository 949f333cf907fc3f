"""A small merge sort for the kernels, instead of ``np.sort``/``np.argsort``.

numba's own sort is a generic quicksort whose first compile costs 1-2 s per
key type; the few sorts of the kernels (a row's class sums beyond
``DIRECT_PAIR_CLASSES``, the label pool's slots when it is compacted) need
only this one loop.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = ["sorted_order"]


@kernel
def sorted_order(keys):
    """Indices that sort ``keys`` in increasing order, NaN last (as
    ``np.sort``); a stable bottom-up merge sort, ``O(n log n)``."""
    n = keys.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = i
    work = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for t in range(lo, hi):
                if i < mid and j < hi:
                    x, y = keys[order[i]], keys[order[j]]
                    # y first only if strictly before x: equal keys keep
                    # their order; a NaN is before nothing, all else before it.
                    take_j = y < x or (x != x and y == y)
                else:
                    take_j = i >= mid
                if take_j:
                    work[t] = order[j]
                    j += 1
                else:
                    work[t] = order[i]
                    i += 1
        order, work = work, order
        width *= 2
    return order
