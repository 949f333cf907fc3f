"""The removal clocks' exact draw and averaged probabilities, compiled.

:mod:`~sklearn_localregret.engine.removal_clocks` states the construction
(:ref:`exact sampling with removal sets <removal-sets-sampler>`): binary
sites with a Poisson clock each, plus groups of sites whose clock clears
them all. The kernels here read it straight from a regret table's stored
rates (rows ``0 .. n - 1`` the sites, column ``x`` "set bit ``k`` to ``x``";
rows ``n + j`` the groups, column 0), for one draw of a streaming round and
for the probabilities of a few rows given many draws of the group clocks,
where numpy's per-call cost on arrays of ``n`` numbers was the time:

* :func:`draw_clocked_bits` --
  :func:`~sklearn_localregret.engine.removal_clocks.draw` of one action, with
  the same arithmetic (the same bits from the same uniforms: its ``log1p`` and
  ``expm1`` are the C library's, which differ from numpy's in the last bit for
  a few percent of arguments, so a bit could differ only where its uniform lies
  within rounding of its threshold; the recorded rounds and the tests' random
  draws agree bit for bit);
* :func:`mean_fire_probabilities` -- the mean over draws of the group clocks
  of ``P(some site of the row is 1 | the clocks)`` (the disjunct learner's
  prediction), reading only the sites set in the rows and the groups that
  hold them.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["draw_clocked_bits", "mean_fire_probabilities", "needed_groups"]


@kernel
def draw_clocked_bits(rates, group_rates, sets, uniforms, out):
    """One exact draw of ``n = out.shape[0]`` bits into ``out`` (0/1).

    ``rates`` are the sites' stored rates (``n x 2``), ``group_rates`` the
    groups' (``m``; not positive: the group never rings), ``sets`` their
    0/1 members (``m x n``) and ``uniforms`` the draw's ``n + m`` uniforms:
    the sites' first, then the groups'. Bit ``k`` is 1
    iff ``u_k W_k < w[k, 1] (1 - exp(-W_k G_k))``, ``G_k`` the time since the
    last ring of a group holding ``k`` (infinite if none rings); the product
    draw ``u_k W_k < w[k, 1]`` decides first, since a ring only clears bits.
    """
    n = out.shape[0]
    m = sets.shape[0]
    any_on = False
    for k in range(n):
        off = rates[k, 0] if rates[k, 0] > 0.0 else 0.0
        on = rates[k, 1] if rates[k, 1] > 0.0 else 0.0
        if uniforms[k] * (off + on) < on:
            out[k] = 1
            any_on = True
        else:
            out[k] = 0
    if not any_on:
        return
    for k in range(n):
        if out[k] == 0:
            continue
        latest = np.inf
        for j in range(m):
            rate = group_rates[j]
            if rate > 0.0 and sets[j, k] != 0:
                time = -math.log1p(-uniforms[n + j]) / rate
                if time < latest:
                    latest = time
        if latest == np.inf:
            continue
        off = rates[k, 0] if rates[k, 0] > 0.0 else 0.0
        on = rates[k, 1] if rates[k, 1] > 0.0 else 0.0
        total = off + on
        fresh = -math.expm1(-total * latest)
        if not uniforms[k] * total < on * fresh:
            out[k] = 0


@kernel
def needed_groups(X, rates, group_rates, sets, live, groups):
    """Which sites and groups the probabilities of rows ``X`` read.

    ``live[k]`` (out) is whether site ``k`` is set in some row and can be 1
    (``w[k, 1] > 0``); ``groups[j]`` (out) whether group ``j`` rings
    (positive rate) and holds a live site. Returns the number of such groups:
    none means the rows' probabilities are the product formula's, whatever
    the clocks.
    """
    n = live.shape[0]
    m = sets.shape[0]
    for k in range(n):
        live[k] = False
    for i in range(X.shape[0]):
        for k in range(n):
            if X[i, k] != 0 and rates[k, 1] > 0.0:
                live[k] = True
    count = 0
    for j in range(m):
        groups[j] = False
        if group_rates[j] > 0.0:
            for k in range(n):
                if live[k] and sets[j, k] != 0:
                    groups[j] = True
                    count += 1
                    break
    return count


# Rows are grouped by their live sites while there are at most this many of
# them (a table of 2**16 probabilities): rows with the same live sites have
# the same probability, computed once.
_MEMO_SITES = 16


@kernel
def mean_fire_probabilities(X, rates, group_rates, sets, live, groups, uniforms, out):
    """``out[i]``: the mean over the draws of ``P(a site set in row i is 1)``.

    Given the group clocks of a draw (``uniforms[d, r]``, inverted into the
    time since the ``r``-th needed group last rang), the sites are
    independent with ``P(bit k = 1) = (w[k, 1] / W_k) (1 - exp(-W_k G_k))``,
    so a row fires with probability ``1 - prod (1 - p_k)`` over its live
    sites: the product itself given the clocks (1 exactly when some ``p_k``
    is 1), and ``-expm1(sum log1p(-p_k))`` for a row that no needed group
    touches, as
    :func:`~sklearn_localregret.locality.removal_sets.disjunction_fire_probabilities`
    computes it (the two agree to 1e-15). ``live`` and ``groups`` come from
    :func:`needed_groups`; only they are read. ``uniforms`` has one column per
    needed group, in order, and no row when none is needed. A row's probability
    depends on its live sites alone and is computed the same way whatever the
    other rows (rows with the same live sites share one computation).
    """
    n = live.shape[0]
    m = sets.shape[0]
    n_draws = uniforms.shape[0]
    # Per live site: P(bit = 1) without the clocks and its bit in the memo's
    # key; the needed groups, and for each grouped live site the groups
    # that hold it (flat lists).
    pi = np.zeros(n)
    total = np.zeros(n)
    key_bit = np.full(n, -1, dtype=np.int64)
    group_of = np.full(n, -1, dtype=np.int64)
    ringing = np.empty(m, dtype=np.int64)
    n_ringing = 0
    for j in range(m):
        if groups[j]:
            ringing[n_ringing] = j
            n_ringing += 1
    sites = np.empty(n, dtype=np.int64)
    holders = np.empty(n * max(n_ringing, 1), dtype=np.int64)
    holder_end = np.zeros(n + 1, dtype=np.int64)
    n_live = n_grouped = n_holders = 0
    for k in range(n):
        if not live[k]:
            continue
        off = rates[k, 0] if rates[k, 0] > 0.0 else 0.0
        on = rates[k, 1]
        total[k] = off + on
        pi[k] = on / total[k]
        key_bit[k] = n_live
        n_live += 1
        start = n_holders
        for r in range(n_ringing):
            if sets[ringing[r], k] != 0:
                holders[n_holders] = ringing[r]
                n_holders += 1
        if n_holders > start:
            group_of[k] = n_grouped
            sites[n_grouped] = k
            n_grouped += 1
            holder_end[n_grouped] = n_holders
    # 1 - p of every grouped live site (its index g) in every draw.
    keep = np.empty((n_draws, n_grouped))
    times = np.empty(m)
    for d in range(n_draws):
        for r in range(n_ringing):
            j = ringing[r]
            times[j] = -math.log1p(-uniforms[d, r]) / group_rates[j]
        for g in range(n_grouped):
            k = sites[g]
            latest = np.inf
            for h in range(holder_end[g], holder_end[g + 1]):
                if times[holders[h]] < latest:
                    latest = times[holders[h]]
            keep[d, g] = 1.0 - pi[k] * -math.expm1(-total[k] * latest)
    memo_size = 1 << n_live if X.shape[0] > 1 and n_live <= _MEMO_SITES else 0
    memo = np.full(memo_size, np.nan)
    row_sites = np.empty(n, dtype=np.int64)
    for i in range(X.shape[0]):
        key = 0
        fixed = 0.0
        certain = False
        n_row = 0
        for k in range(n):
            if live[k] and X[i, k] != 0:
                if memo_size:
                    key |= 1 << key_bit[k]
                if group_of[k] >= 0:
                    row_sites[n_row] = group_of[k]
                    n_row += 1
                elif pi[k] >= 1.0:
                    certain = True
                else:
                    fixed += math.log1p(-pi[k])
        if memo_size and not np.isnan(memo[key]):
            out[i] = memo[key]
            continue
        if certain:
            out[i] = 1.0
        elif n_row == 0:
            out[i] = -math.expm1(fixed) + 0.0
        else:
            # Given the clocks, 1 - prod (1 - p): the grouped sites' product
            # times the others' (the same to 1e-15 as the log sum).
            others = math.exp(fixed)
            acc = 0.0
            for d in range(n_draws):
                none = others
                for r in range(n_row):
                    none *= keep[d, row_sites[r]]
                acc += 1.0 - none
            out[i] = acc / n_draws
        if memo_size:
            memo[key] = out[i]
