"""A small merge sort and binary search for the kernels, instead of
``np.sort``/``np.argsort`` and ``np.searchsorted``.

numba's own sort is a generic quicksort whose first compile costs 1-2 s per
key type, and its ``searchsorted`` overload compiles string handling for
``side``; the few sorts and searches of the kernels (a row's class sums
beyond ``DIRECT_PAIR_CLASSES``, the label pool's slots when it is compacted,
the tree draw's choice) need only these loops.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = ["search_right", "sorted_order"]


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


@kernel
def search_right(values, key):
    """``np.searchsorted(values, key, side="right")`` for a scalar ``key``:
    numba's binary search, written out (a NaN key goes after everything)."""
    lo, hi = 0, values.shape[0]
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if key != key or values[mid] <= key:
            lo = mid + 1
        else:
            hi = mid
    return lo
