"""A column's thresholds as one feature of a site's naive Bayes model.

The tests ``x > t_1``, ..., ``x > t_m`` of a numeric column (thresholds in
increasing order) are nested: a row passes a prefix of them. Read as ``m``
Bernoulli features, naive Bayes would count the column ``m`` times and take
evidence that is one value's for ``m`` independent findings. Read as one
feature, the value's *bin* ``b`` (the row passes ``t_1 .. t_b`` and fails
the rest; ``b = 0``: below ``t_1``) has, for label ``c``,

    P(bin b | c) = p_b - p_{b+1}      (p_0 = 1, p_{m+1} = 0)

where ``p_i`` is the rate at which rows of label ``c`` pass ``t_i``. Each
test's counts at a site come from its own rounds (those where its stumps
were edges there), so the raw rates ``S_true / (S_true + S_false)`` need not
fall with the threshold; ``p`` is their count-weighted decreasing fit (pool
adjacent violators, :func:`decreasing_fit`), so that a test counted over few
rows cannot distort the column. Each bin is smoothed by ``a / (m + 1)``
rows: the column's smoothing is that of one test, ``a`` in all.

In the cache of :func:`~sklearn_localregret.engine.compiled.leaf_model.
refresh_leaf_model` (a row's score is ``base`` plus the ``odds`` of the tests
it passes), the column contributes ``log P(bin 0 | c)`` to ``base`` and
``log P(bin i | c) - log P(bin i-1 | c)`` as the odds of ``t_i``: a row in bin
``b`` sums them to ``log P(bin b | c)``.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["decreasing_fit", "read_threshold_chains"]


@kernel
def decreasing_fit(values, weights, m, out) -> None:
    """The weighted least-squares non-increasing fit of ``values[:m]`` into
    ``out[:m]`` (pool adjacent violators). Zero weights are allowed: such a
    value takes the fit of its neighbours where it would violate the order.
    """
    level = np.empty(m)
    weight = np.empty(m)
    length = np.empty(m, dtype=np.int64)
    n_blocks = 0
    for i in range(m):
        value, w, size = values[i], weights[i], 1
        while n_blocks > 0 and level[n_blocks - 1] < value:
            n_blocks -= 1
            pooled = weight[n_blocks] + w
            if pooled > 0.0:
                value = (level[n_blocks] * weight[n_blocks] + value * w) / pooled
            else:
                value = level[n_blocks]
            w = pooled
            size += length[n_blocks]
        level[n_blocks], weight[n_blocks], length[n_blocks] = value, w, size
        n_blocks += 1
    i = 0
    for block in range(n_blocks):
        for _ in range(length[block]):
            out[i] = level[block]
            i += 1


@kernel
def read_threshold_chains(true, false, r, n_tests, a, odds, base, next_threshold):
    """Make each chain of thresholds of table row ``r`` one binned feature of
    its naive Bayes cache (``odds``, ``base``, as Bernoulli features before).

    ``next_threshold[v]`` is the test with the next larger threshold of
    ``v``'s column (-1: none); a chain starts at a test no other names.
    Tests never counted at the site are left out of their chain (their odds
    stay 0: a row passing them is read as in the bin below); a chain of fewer
    than two counted tests stays a Bernoulli feature (the same model).
    ``a`` is the smoothing in the table's units.
    """
    k = true.shape[2]
    n = min(n_tests, next_threshold.shape[0])
    named = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        if 0 <= next_threshold[v] < n:
            named[next_threshold[v]] = True
    chain = np.empty(n, dtype=np.int64)
    rates = np.empty(n)
    counts = np.empty(n)
    passing = np.empty(n)
    for head in range(n):
        if named[head] or not 0 <= next_threshold[head] < n:
            continue  # inside a chain, or no chain
        m = 0
        v = head
        while v >= 0:
            for c in range(k):
                if true[r, v, c] + false[r, v, c] > 0.0:
                    chain[m] = v
                    m += 1
                    break
            v = next_threshold[v] if next_threshold[v] < n else -1
        if m < 2:
            continue
        for c in range(k):
            largest = 0.0  # the label's rows over the chain's best-counted test
            for i in range(m):
                t = chain[i]
                seen = true[r, t, c] + false[r, t, c]
                largest = max(largest, seen)
                counts[i] = seen
                rates[i] = true[r, t, c] / seen if seen > 0.0 else 0.0
                # Out with the test's Bernoulli term.
                base[r, c] -= math.log((false[r, t, c] + a) / (seen + 2.0 * a))
            decreasing_fit(rates, counts, m, passing)
            smoothing = a / (m + 1)
            denominator = largest + a
            below = math.log(((1.0 - passing[0]) * largest + smoothing) / denominator)
            base[r, c] += below
            for i in range(m):
                above = passing[i + 1] if i + 1 < m else 0.0
                share = (passing[i] - above) * largest + smoothing
                here = math.log(share / denominator)
                odds[r, chain[i], c] = here - below
                below = here
