"""Sums over the label pairs of a factored stump regret, without forming them.

A stump colour ``(v, c1, c2)`` has the regret ``a[c1] + b[c2] - c`` with
``a = S_true[v]``, ``b = S_false[v]`` and ``c = B[v]``
(:ref:`engine-factored`, :class:`~sklearn_localregret.engine.StumpRegretTable`).
What a draw and the diagnostics need are sums of the positive parts of those
``K * K`` values: per test (the weight of "split on ``v``") and per label (the
start labels of the split's children). For large ``K`` they are computed by
sorting, in ``O(K log K)`` per test.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_values", "positive_pair_marginals", "positive_pair_sums"]

# Up to this many classes the K x K pairs are summed directly (vectorised);
# beyond, by sorting (O(K log K) per test).
_DIRECT_PAIR_CLASSES = 16


# A stump regret is the difference of sums of many terms; below this fraction
# of the terms' size it is rounding, and it is zero. (Undiscounted unit-weight
# counts are exact integers; discounted sums are not, and a stump that always
# equals the played leaf, whose regret is exactly 0, would otherwise keep a
# positive dust of 1e-16 that a draw could pick when nothing else is positive.)
_ROUNDING = 1e-12


def pair_values(a: np.ndarray, b: np.ndarray, c) -> np.ndarray:
    """``a[..., i] + b[..., j] - c``: the one formula of a stump regret."""
    a, b, c = a[..., :, None], b[..., None, :], np.asarray(c)[..., None, None]
    values = a + b - c
    values[np.abs(values) <= _ROUNDING * (np.abs(a) + np.abs(b) + np.abs(c))] = 0.0
    return values


def positive_pair_sums(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``sum_{i, j} max(a[n, i] + b[n, j] - c[n], 0)`` for every ``n``.

    The weight of "split on test v" at a site: the sum of the positive parts of
    its ``K * K`` stump regrets, computed from the factors without forming them
    (for large ``K``): sort ``b``; for each ``i`` the pairs with
    ``b[j] > c - a[i]`` contribute ``sum(b[j]) - count * (c - a[i])``.

    Parameters
    ----------
    a, b : ndarray of shape (n, K)
    c : ndarray of shape (n,)

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> positive_pair_sums(np.array([[3.0, 0.0]]), np.array([[1.0, 0.0]]),
    ...                    np.array([2.0]))
    array([3.])
    """
    n, k = a.shape
    out = np.zeros(n)
    if n == 0 or k == 0:
        return out
    # Most tests have no positive pair at all: skip them cheaply.
    live = np.flatnonzero(a.max(axis=1) + b.max(axis=1) - c > 0)
    if live.size == 0:
        return out
    a, b, c = a[live], b[live], c[live]
    if k <= _DIRECT_PAIR_CLASSES:
        values = pair_values(a, b, c)
        np.maximum(values, 0.0, out=values)
        out[live] = values.sum(axis=(1, 2))
        return out
    sums = _positive_row_sums_sorted(a, b, c).sum(axis=1)
    # Rounding, as in pair_values: a total that small is no positive regret.
    size = np.abs(a).max(axis=1) + np.abs(b).max(axis=1) + np.abs(c)
    sums[sums <= _ROUNDING * k * k * size] = 0.0
    out[live] = sums
    return out


def _positive_row_sums_sorted(a: np.ndarray, b: np.ndarray, c: np.ndarray):
    """``sum_j max(a[n, i] + b[n, j] - c[n], 0)`` for every ``(n, i)``, by sorting.

    Sort ``b``; for each ``i`` the pairs with ``b[j] > c - a[i]`` contribute
    ``sum(b[j]) - count * (c - a[i])``. O(K log K) per ``n``.
    """
    n, k = a.shape
    b_sorted = np.sort(b, axis=1)
    suffix = np.zeros((n, k + 1))
    suffix[:, :k] = np.cumsum(b_sorted[:, ::-1], axis=1)[:, ::-1]
    cut = c[:, None] - a  # pair (i, j) is positive when b[j] > cut[i]
    # Rank every cut among the sorted b (ties count as "not above": they add 0).
    merged = np.concatenate((b_sorted, cut), axis=1)
    order = np.argsort(merged, axis=1, kind="stable")
    b_so_far = np.cumsum(order < k, axis=1)
    position = np.empty_like(order)
    np.put_along_axis(position, order, np.arange(2 * k)[None, :], axis=1)
    at_or_below = np.take_along_axis(b_so_far, position[:, k:], axis=1)
    above = k - at_or_below
    sums = np.take_along_axis(suffix, at_or_below, axis=1) - above * cut
    return np.maximum(sums, 0.0)


def positive_pair_marginals(
    a: np.ndarray, b: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Both marginals of the positive parts ``max(a[n, i] + b[n, j] - c[n], 0)``.

    Row ``n`` is one test's stumps at a site: the first marginal (summed over
    ``j``) weighs the label of the "true" child, the second (summed over ``i``)
    that of the "false" child. Either marginal sums to
    :func:`positive_pair_sums` (up to rounding).

    Parameters
    ----------
    a, b : ndarray of shape (n, K)
    c : ndarray of shape (n,)

    Returns
    -------
    first, second : ndarray of shape (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> first, second = positive_pair_marginals(
    ...     np.array([[3.0, 0.0]]), np.array([[1.0, 0.0]]), np.array([2.0]))
    >>> first, second
    (array([[3., 0.]]), array([[2., 1.]]))
    """
    n, k = a.shape
    if k <= _DIRECT_PAIR_CLASSES:
        values = pair_values(a, b, c)
        np.maximum(values, 0.0, out=values)
        return values.sum(axis=2), values.sum(axis=1)
    return _positive_row_sums_sorted(a, b, c), _positive_row_sums_sorted(b, a, c)
