"""Positive sums of factored stump regrets, compiled (:ref:`engine-factored`).

A stump colour ``(v, c1, c2)`` at a site has the regret ``a[c1] + b[c2] - c``
(``a = S_true[v]``, ``b = S_false[v]``, ``c = B[v]``). The kernels here are the
compiled twins of :func:`~sklearn_localregret.engine.positive_pair_sums` and
:func:`~sklearn_localregret.engine.positive_pair_marginals`, with the same
rounding rule, the same direct sum up to ``DIRECT_PAIR_CLASSES`` classes and
the same sort beyond, for one test at a time; and :func:`refresh_content`,
which recomputes the cached content weights of stale table rows in one call.
"""

from __future__ import annotations

import numpy as np

from .jit import inline_kernel, kernel
from .leaf_model import refresh_leaf_model
from .sort_order import search_right, sorted_order

__all__ = [
    "DIRECT_PAIR_CLASSES",
    "ROUNDING",
    "pair_marginals",
    "positive_pair_sum",
    "refresh_content",
    "refresh_row",
]

# Up to this many classes the K x K pairs are summed directly; beyond, by
# sorting (O(K log K) per test). The same cut as stump_pairs.
DIRECT_PAIR_CLASSES = 16

# A pair value within this fraction of its terms' size is rounding: it is 0
# (stump_pairs._ROUNDING; a stump that always equals the played leaf has
# regret exactly 0, not a positive dust that a draw could pick).
ROUNDING = 1e-12


@kernel
def _positive(x: float, scale: float) -> float:
    """``x`` if it is positive beyond rounding at ``scale``, else 0."""
    if x > 0.0 and x > ROUNDING * scale:
        return x
    return 0.0


@kernel
def _largest(x):
    """``x.max()`` as numba computes it (the first NaN if any), without the
    reduction's overload (0.5 s to compile, for the large-``K`` path alone)."""
    best = x[0]
    for i in range(x.shape[0]):
        if x[i] != x[i]:
            return x[i]
        if x[i] > best:
            best = x[i]
    return best


@kernel
def _largest_magnitude(x):
    """``np.abs(x).max()``, as :func:`_largest`."""
    best = abs(x[0])
    for i in range(x.shape[0]):
        value = abs(x[i])
        if value != value:
            return value
        if value > best:
            best = value
    return best


@kernel
def _sorted_row_sums(a, b, c, out):
    """``out[i] = max(sum_j max(a[i] + b[j] - c, 0), 0)``, by sorting ``b``.

    The pairs with ``b[j] > c - a[i]`` contribute ``sum(b[j]) - count * (c -
    a[i])``; ties add 0. ``O(K log K)``.
    """
    k = a.shape[0]
    order = sorted_order(b)  # (the same sorted values as np.sort's)
    b_sorted = np.empty(k)
    for j in range(k):
        b_sorted[j] = b[order[j]]
    suffix = np.zeros(k + 1)
    for j in range(k - 1, -1, -1):
        suffix[j] = suffix[j + 1] + b_sorted[j]
    for i in range(k):
        cut = c - a[i]
        at_or_below = search_right(b_sorted, cut)
        value = suffix[at_or_below] - (k - at_or_below) * cut
        out[i] = value if value > 0.0 else 0.0


@kernel
def positive_pair_sum(a, b, c) -> float:
    """``sum_{i, j} max(a[i] + b[j] - c, 0)`` (rounding as in ``stump_pairs``).

    The weight of "split on this test" at a site. ``a``, ``b``: shape (K,).
    """
    k = a.shape[0]
    if k == 0 or _largest(a) + _largest(b) - c <= 0.0:
        return 0.0
    total = 0.0
    if k <= DIRECT_PAIR_CLASSES:
        for i in range(k):
            for j in range(k):
                total += _positive(a[i] + b[j] - c, abs(a[i]) + abs(b[j]) + abs(c))
        return total
    rows = np.empty(k)
    _sorted_row_sums(a, b, c, rows)
    total = 0.0
    for i in range(k):  # rows.sum(): numba's is this loop
        total += rows[i]
    size = _largest_magnitude(a) + _largest_magnitude(b) + abs(c)
    if total <= ROUNDING * k * k * size:
        return 0.0
    return total


@kernel
def pair_marginals(a, b, c, first, second) -> None:
    """Both marginals of the positive pair values, written into ``first``
    (summed over the false label: the true child's start label) and
    ``second`` (summed over the true label). Shape (K,) each."""
    k = a.shape[0]
    if k <= DIRECT_PAIR_CLASSES:
        first[:] = 0.0
        second[:] = 0.0
        for i in range(k):
            for j in range(k):
                value = _positive(a[i] + b[j] - c, abs(a[i]) + abs(b[j]) + abs(c))
                first[i] += value
                second[j] += value
        return
    _sorted_row_sums(a, b, c, first)
    _sorted_row_sums(b, a, c, second)


@kernel
def _kept(value, a, b, c) -> float:
    """A pair value, or 0 if it is not positive beyond rounding."""
    if value > ROUNDING * (abs(a) + abs(b) + abs(c)):
        return value
    return 0.0


@inline_kernel
def _stored_pair_sum(true, false, cost, r, v, k) -> float:
    """:func:`positive_pair_sum` of test ``v`` of table row ``r``, read in
    place: the innermost loop of every refresh (no views, no builtin ``max``,
    two classes written out; each is several times faster here)."""
    c = cost[r, 0, v]
    if k == 2:
        a0, a1 = true[r, v, 0], true[r, v, 1]
        b0, b1 = false[r, v, 0], false[r, v, 1]
        if (a0 if a0 > a1 else a1) + (b0 if b0 > b1 else b1) - c <= 0.0:
            return 0.0
        return (
            _kept(a0 + b0 - c, a0, b0, c)
            + _kept(a0 + b1 - c, a0, b1, c)
            + _kept(a1 + b0 - c, a1, b0, c)
            + _kept(a1 + b1 - c, a1, b1, c)
        )
    a_max = true[r, v, 0]
    b_max = false[r, v, 0]
    for i in range(1, k):
        if true[r, v, i] > a_max:
            a_max = true[r, v, i]
        if false[r, v, i] > b_max:
            b_max = false[r, v, i]
    if a_max + b_max - c <= 0.0:
        return 0.0
    if k > DIRECT_PAIR_CLASSES:
        return positive_pair_sum(true[r, v], false[r, v], c)
    total = 0.0
    for i in range(k):
        a = true[r, v, i]
        for j in range(k):
            b = false[r, v, j]
            total += _kept(a + b - c, a, b, c)
    return total


@kernel
def refresh_row(
    leaf, true, false, cost, versions, seen, content, cdf, total, r, n_tests,
    model_scale, odds, base, partner, next_threshold, model_fresh=False,
):  # fmt: skip
    """Recompute the content weights of table row ``r`` (see
    :func:`refresh_content`); an update calls it while the row is in cache.
    ``model_fresh``: the row's naive Bayes cache is known to be that of its
    counts and ``model_scale`` (an update that counted no row), and is kept.
    ``partner``, ``next_threshold``: the table's pairs of missing-value
    variants and chains of thresholds."""
    n_leaves = leaf.shape[2]
    k = true.shape[2]
    running = 0.0
    for c in range(n_leaves):
        value = leaf[r, 0, c]
        value = value if value > 0.0 else 0.0
        content[r, c] = value
        running += value
        cdf[r, c] = running
    for v in range(n_tests):
        value = _stored_pair_sum(true, false, cost, r, v, k)
        content[r, n_leaves + v] = value
        running += value
        cdf[r, n_leaves + v] = running
    total[r] = running
    if odds.shape[1] > 0 and r < odds.shape[0] and not model_fresh:  # its NB cache
        refresh_leaf_model(
            true, false, r, n_tests, model_scale[r], odds, base, partner,
            next_threshold,
        )  # fmt: skip
    seen[r] = versions[r]


@kernel
def refresh_content(
    leaf, true, false, cost, versions, seen, content, cdf, total, n_rows, n_tests,
    model_scale, odds, base, partner, next_threshold,
) -> None:  # fmt: skip
    """Recompute the content weights of every table row whose version moved.

    For row ``r``: ``content[r, c] = max(leaf[r, 0, c], 0)`` (leaf colour
    ``c``: the ``K`` labels, then the model leaf if the table has one),
    ``content[r, n_leaves + v]`` the positive pair sum of test ``v`` (split
    on ``v``), ``cdf`` their running sums and ``total`` their sum; with a
    naive Bayes cache (model leaves or model reads), ``odds``, ``base``
    (:func:`~sklearn_localregret.engine.compiled.leaf_model.refresh_leaf_model`,
    at the scale ``model_scale[r]`` of the row's last update, with the pairs of
    missing-value variants ``partner`` and the chains of thresholds
    ``next_threshold``); then ``seen[r] = versions[r]``. The arrays are
    :class:`~sklearn_localregret.engine.StumpRegretTable`'s own; ``n_rows`` and
    ``n_tests`` are clamped to their sizes, and arrays whose colour or class
    axes disagree raise ``ValueError`` (never a write outside them, whatever
    the caller passes).
    """
    n_leaves = leaf.shape[2]
    k = true.shape[2]
    # The colour and class axes are the table's own: arrays that disagree on
    # them are refused (a clamp could not say which is right).
    if (
        content.shape[1] < n_leaves
        or cdf.shape[1] < n_leaves
        or false.shape[2] != k
        or leaf.shape[1] < 1
        or cost.shape[1] < 1
        or (odds.shape[1] > 0 and (odds.shape[2] != k or base.shape[1] != k))
    ):
        raise ValueError("refresh_content: the arrays' colour or class axes differ")
    n_rows = min(
        n_rows, leaf.shape[0], true.shape[0], false.shape[0], cost.shape[0],
        versions.shape[0], seen.shape[0], content.shape[0], cdf.shape[0],
        total.shape[0],
    )  # fmt: skip
    n_tests = min(
        n_tests, true.shape[1], false.shape[1], cost.shape[2],
        content.shape[1] - n_leaves, cdf.shape[1] - n_leaves,
    )  # fmt: skip
    if odds.shape[1] > 0:  # a naive Bayes cache (model leaves or reads)
        n_rows = min(n_rows, odds.shape[0], base.shape[0], model_scale.shape[0])
        n_tests = min(n_tests, odds.shape[1])
    for r in range(n_rows):
        if seen[r] != versions[r]:
            # model_fresh False, typed as the update's (a plain bool, not the
            # omitted default): one compiled refresh_row for both callers.
            refresh_row(
                leaf, true, false, cost, versions, seen, content, cdf, total, r,
                n_tests, model_scale, odds, base, partner, next_threshold,
                seen[r] == versions[r],
            )  # fmt: skip
