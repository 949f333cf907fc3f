"""WalkSAT's flip loop, compiled.

:func:`walk_flips` makes the flips of :class:`~.walksat.Walk` over flat
arrays: the same uniforms, picks, ties and swap-removals as the Python loop it
replaced, flip for flip (``tests/baselines/test_walk_kernel.py`` replays that
loop), about 20 times faster on random 3-SAT (``benchmarks/bench_solve.py``).
Floating sums run in the order the Python loop summed, so weighted picks and
break weights are bit for bit the same.
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.jit import kernel

__all__ = ["walk_flips"]


@kernel
def _cost(unsat, n_unsat, w, uniform):
    if uniform:
        return n_unsat * w[0]
    total = 0.0
    for i in range(n_unsat):
        total += w[unsat[i]]
    return total


@kernel
def walk_flips(
    u,
    first,
    n,
    noise,
    uniform,
    w,
    occ_ptr,
    occ,
    var_ptr,
    clause_vars,
    a,
    count,
    unsat,
    where,
    n_unsat,
    best,
    best_cost,
    breaks,
):
    """Up to ``n`` flips with the uniforms ``u[first:first + n]``.

    Parameters
    ----------
    u : ndarray of float64 of shape (n_u, 3)
        Per flip: the clause's, the noise's and the variable's uniform.
    first, n : int
        The first row of ``u`` to use and the flips to make at most.
    noise : float
        Probability of a random move when no variable breaks nothing.
    uniform : bool
        Every clause weighs ``w[0]``.
    w : ndarray of float64 of shape (n_clauses,)
    occ_ptr, occ : ndarray of int64
        Clauses of literal ``2 v + s`` (``s = 1`` positive): ``occ[occ_ptr[l]:
        occ_ptr[l + 1]]``.
    var_ptr, clause_vars : ndarray of int64
        Variables of clause ``c``: ``clause_vars[var_ptr[c]:var_ptr[c + 1]]``.
    a, count, unsat, where, best : ndarray of int64
        The walk's state, updated in place: the assignment (0/1), true
        literals per clause, the unsatisfied clauses (the first ``n_unsat``),
        each clause's place in ``unsat`` (-1 when satisfied) and the best
        assignment seen.
    n_unsat : int
    best_cost : float
    breaks : ndarray of float64
        Scratch of at least the widest clause's length.

    Returns
    -------
    flips : int
    n_unsat : int
    best_cost : float
    """
    cost = _cost(unsat, n_unsat, w, uniform)
    flips = 0
    while n_unsat > 0 and flips < n:
        row = first + flips
        u_clause, u_noise, u_var = u[row, 0], u[row, 1], u[row, 2]
        if uniform:
            c = unsat[int(u_clause * n_unsat)]
        else:
            # The first clause whose running weight passes the target (the
            # last one if rounding leaves the target unreached).
            target, total = u_clause * cost, 0.0
            c = unsat[n_unsat - 1]
            for i in range(n_unsat):
                total += w[unsat[i]]
                if total > target:
                    c = unsat[i]
                    break
        lo, hi = var_ptr[c], var_ptr[c + 1]
        least = np.inf
        for j in range(lo, hi):
            v = clause_vars[j]
            lit = 2 * v + a[v]
            b = 0.0
            for p in range(occ_ptr[lit], occ_ptr[lit + 1]):
                k = occ[p]
                if count[k] == 1:
                    b += 1.0 if uniform else w[k]
            breaks[j - lo] = b
            least = min(least, b)
        if least > 0 and u_noise < noise:
            v = clause_vars[lo + int(u_var * (hi - lo))]
        else:
            n_ties = 0
            for j in range(hi - lo):
                n_ties += breaks[j] == least
            pick = int(u_var * n_ties)
            for j in range(hi - lo):
                if breaks[j] == least:
                    if pick == 0:
                        v = clause_vars[lo + j]
                        break
                    pick -= 1
        was = a[v]
        a[v] = 1 - was
        made_true = 2 * v + 1 - was
        for p in range(occ_ptr[made_true], occ_ptr[made_true + 1]):
            k = occ[p]
            count[k] += 1
            if count[k] == 1:
                # Swap-remove keeps the unsatisfied clauses dense for O(1) picks.
                i = where[k]
                where[k] = -1
                n_unsat -= 1
                last = unsat[n_unsat]
                if last != k:
                    unsat[i] = last
                    where[last] = i
        made_false = 2 * v + was
        for p in range(occ_ptr[made_false], occ_ptr[made_false + 1]):
            k = occ[p]
            count[k] -= 1
            if count[k] == 0:
                where[k] = n_unsat
                unsat[n_unsat] = k
                n_unsat += 1
        flips += 1
        cost = _cost(unsat, n_unsat, w, uniform)
        if cost < best_cost:
            best_cost = cost
            for i in range(len(a)):
                best[i] = a[i]
    return flips, n_unsat, best_cost
