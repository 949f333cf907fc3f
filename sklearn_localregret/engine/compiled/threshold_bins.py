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

In the cache of
:func:`~sklearn_localregret.engine.compiled.leaf_model.refresh_leaf_model` (a
row's score is ``base`` plus the ``odds`` of the tests it passes), the column
contributes ``log P(bin 0 | c)`` to ``base`` and
``log P(bin i | c) - log P(bin i-1 | c)`` as the odds of ``t_i``: a row in bin
``b`` sums them to ``log P(bin b | c)``. On a column with missing values the
bins are those of the known values, and a missing value leaves the column
out (:func:`read_chains`).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["decreasing_fit", "find_chains", "read_chains"]


@kernel
def decreasing_fit(values, weights, m, out, level, weight, length) -> None:
    """The weighted least-squares non-increasing fit of ``values[:m]`` into
    ``out[:m]`` (pool adjacent violators; ``level``, ``weight`` and
    ``length`` are scratch space of ``m`` numbers each). Zero weights are
    allowed: such a value takes the fit of its neighbours where it would
    violate the order.
    """
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
def _chain_members(counted, head, n, partner, next_threshold, chain) -> int:
    """The counted tests (``counted``) of the chain from ``head`` into
    ``chain``; their number, or -1 where the chain cannot be read as bins: on
    a column with missing values (tests with a partner), a counted test whose
    partner the site has not counted, or tests with and without a partner
    (the pairs are then read as pairs)."""
    m = 0
    v = head
    paired = head < partner.shape[0] and 0 <= partner[head] < n
    for _ in range(n):  # (a chain has at most n tests: never a cycle's loop)
        if v < 0:
            break
        u = partner[v] if v < partner.shape[0] else -1
        if (0 <= u < n) != paired:
            return -1
        if counted[v]:
            if paired and not counted[u]:
                return -1
            chain[m] = v
            m += 1
        v = next_threshold[v] if next_threshold[v] < n else -1
    return m


@kernel
def _chain_heads(n, next_threshold):
    """Per test, whether a chain starts there (it names a next threshold and
    no test names it)."""
    heads = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        heads[v] = 0 <= next_threshold[v] < n
    for v in range(n):
        if 0 <= next_threshold[v] < n:
            heads[next_threshold[v]] = False
    return heads


@kernel
def find_chains(counted, n, partner, next_threshold, members, starts, binned) -> int:
    """The chains of a table row that :func:`read_chains` reads as bins, once
    for both: the counted tests (``counted``, one flag per test) of the
    chains with two or more, in ``members``, chain ``j`` at
    ``members[starts[j]:starts[j + 1]]`` (chains in the order of their
    first test); their number. Each member and its missing-value variant
    is marked in ``binned``: the model's other terms leave them out.
    ``n`` is at most the tests of ``next_threshold`` and ``counted``;
    ``members`` and ``starts`` hold ``n`` and ``n + 1`` numbers."""
    n = min(n, next_threshold.shape[0], counted.shape[0])
    starts[0] = 0
    if n <= 0:
        return 0
    heads = _chain_heads(n, next_threshold)
    n_chains = used = 0
    for head in range(n):
        if not heads[head]:
            continue
        m = _chain_members(counted, head, n, partner, next_threshold, members[used:])
        if m < 2:
            continue
        for i in range(m):
            v = members[used + i]
            binned[v] = True
            u = partner[v] if v < partner.shape[0] else -1
            if 0 <= u < binned.shape[0]:
                binned[u] = True
        used += m
        n_chains += 1
        starts[n_chains] = used
    return n_chains


@kernel
def read_chains(
    true, false, r, n, a, odds, base, partner, members, starts, n_chains
) -> None:
    """Make each chain of thresholds of table row ``r`` one binned feature of
    its naive Bayes cache (``odds``, ``base``): the chains of
    :func:`find_chains` (``members``, ``starts``, ``n_chains``; ``n`` as
    given to it), whose tests the model's other terms left out.

    ``next_threshold[v]`` is the test with the next larger threshold of
    ``v``'s column (-1: none); a chain starts at a test no other names.
    Tests never counted at the site are left out of their chain (their odds
    stay 0: a row passing them is read as in the bin below); a chain of fewer
    than two counted tests stays as it was (the same model). ``a`` is the
    smoothing in the table's units.

    On a column with missing values (``partner[v] = u``: ``x > t or
    missing``), the bins are those of the known values: the pass rate of
    ``t`` among them is ``p / (p + f)``, ``p`` the rate at which ``v`` passes
    and ``f`` the rate at which ``u`` fails
    (:func:`~sklearn_localregret.engine.compiled.leaf_model._pair_variants`),
    weighed by the known rows ``S_true[v] + S_false[u]``. A known value in bin
    ``b`` passes ``v_1 .. v_b`` and ``u_1 .. u_b``, a missing one every ``u``
    and no ``v``: the ``u`` share ``-log P(bin 0 | c)`` equally and the ``v``
    hold the rest of the bins' log ratios, so a known value scores
    ``log P(bin b | c)`` and a missing one leaves the column out, as the pairs
    do.
    """
    if n_chains <= 0:
        return
    k = true.shape[2]
    rates = np.empty(n)
    counts = np.empty(n)
    passing = np.empty(n)
    # Scratch space of the fit, once per call (a site refresh reads every
    # chain for every label).
    level = np.empty(n)
    weight = np.empty(n)
    length = np.empty(n, dtype=np.int64)
    for j in range(n_chains):
        lo = starts[j]
        m = starts[j + 1] - lo
        chain = members[lo : lo + m]
        paired = chain[0] < partner.shape[0] and 0 <= partner[chain[0]] < n
        for c in range(k):
            largest = 0.0  # the label's (known) rows over the chain's tests
            ordered = True
            for i in range(m):
                v = chain[i]
                if paired:
                    rates[i], counts[i] = _known_rate(true, false, r, v, partner[v], c)
                else:
                    counts[i] = true[r, v, c] + false[r, v, c]
                    rates[i] = true[r, v, c] / counts[i] if counts[i] > 0.0 else 0.0
                largest = max(largest, counts[i])
                ordered = ordered and (i == 0 or rates[i] <= rates[i - 1])
            if ordered:  # the fit of rates already in order is the rates
                for i in range(m):
                    passing[i] = rates[i]
            else:
                decreasing_fit(rates, counts, m, passing, level, weight, length)
            smoothing = a / (m + 1)
            denominator = largest + a
            below = math.log(((1.0 - passing[0]) * largest + smoothing) / denominator)
            base[r, c] += below
            # What the missing value's tests take: the column's base, shared.
            missing_share = -below / m if paired else 0.0
            for i in range(m):
                above = passing[i + 1] if i + 1 < m else 0.0
                share = (passing[i] - above) * largest + smoothing
                here = math.log(share / denominator)
                odds[r, chain[i], c] = here - below - missing_share
                if paired:
                    odds[r, partner[chain[i]], c] = missing_share
                below = here


@kernel
def _known_rate(true, false, r, v, u, c):
    """Label ``c``'s pass rate of the threshold among the known values, and
    their weight: ``v`` passes the known values above it, ``u`` fails those
    at or below it (each over its own rounds)."""
    n_v = true[r, v, c] + false[r, v, c]
    n_u = true[r, u, c] + false[r, u, c]
    p = true[r, v, c] / n_v if n_v > 0.0 else 0.0
    f = false[r, u, c] / n_u if n_u > 0.0 else 0.0
    rate = p / (p + f) if p + f > 0.0 else 0.0
    return rate, true[r, v, c] + false[r, u, c]
