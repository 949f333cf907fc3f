"""The uniformised chain of the hypercube colourings with ``L < n``, compiled.

:func:`chain_draws` runs
:class:`~sklearn_localregret.engine.UniformizedChainSampler` on a hypercube
colouring (bit flips, and removals of the ringing removal sets that share a
literal with the vertex): the same out-edges in the same order, the same
geometric skip of the self-loops and the same pick from the same generator, so
that a draw is the Python sampler's draw
(``tests/locality/test_hypercube_chain.py`` checks both graphs step for step).
The out-rate is summed as ``numpy.sum`` sums (pairwise), the pick's cumulative
rates as ``numpy.cumsum`` does. In Python a step was several numpy calls on a
handful of elements, and an estimate of ``pi`` (read every round by the hedged
prediction) runs ``512 x n_mcmc_steps`` steps.
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.jit import kernel

__all__ = ["chain_draws"]


@kernel
def _block_sum(a, lo, n):
    """numpy's pairwise sum of ``a[lo:lo + n]`` for ``n <= 128`` (one block:
    eight running sums, combined as a tree, then the rest in order)."""
    if n < 8:
        total = -0.0
        for i in range(lo, lo + n):
            total += a[i]
        return total
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += a[lo + i]
        i += 1
    return total


@kernel
def _pairwise_sum(a, lo, n):
    """``numpy.sum(a[lo:lo + n])`` for float64, in numpy's pairwise order.

    Above 128 numpy halves the range (at a multiple of 8) and adds the two
    halves' sums; that recursion runs here on an explicit stack (a cached
    recursive kernel crashes when numba loads it back).
    """
    if n <= 128:
        return _block_sum(a, lo, n)
    # Frames: range, split, the left half's sum; stage 0 new, 1 left pending,
    # 2 right pending. 64 levels halve any length numpy can hold.
    f_lo = np.empty(64, dtype=np.int64)
    f_n = np.empty(64, dtype=np.int64)
    f_half = np.empty(64, dtype=np.int64)
    f_stage = np.zeros(64, dtype=np.int64)
    f_left = np.empty(64)
    f_lo[0], f_n[0], top, value = lo, n, 1, 0.0
    while True:
        i = top - 1
        if f_n[i] > 128:
            half = f_n[i] // 2
            f_half[i] = half - half % 8
            f_stage[i] = 1
            f_lo[top], f_n[top], f_stage[top] = f_lo[i], f_half[i], 0
            top += 1
            continue
        value = _block_sum(a, f_lo[i], f_n[i])
        top -= 1
        while top > 0:  # hand the sum up
            p = top - 1
            if f_stage[p] == 1:
                f_left[p], f_stage[p] = value, 2
                f_lo[top] = f_lo[p] + f_half[p]
                f_n[top], f_stage[top] = f_n[p] - f_half[p], 0
                top += 1
                break
            value = f_left[p] + value
            top -= 1
        if top == 0:
            return value


@kernel
def chain_draws(
    bits, rng, n_draws, n_steps, bound, max_level, bit_rates, set_rates, sets, out
):
    """``n_draws`` successive draws of ``n_steps`` uniformised steps each.

    Parameters
    ----------
    bits : ndarray of uint8 of shape (n,)
        The start; left at the last draw.
    rng : numpy.random.Generator
    n_draws, n_steps : int
    bound : float
        Bounds every vertex's out-rate (the sum of all positive rates).
    max_level : int
        ``L``: a move above level ``L`` goes to the root; -1 for none.
    bit_rates : ndarray of float64 of shape (n, 2)
        The rate of setting bit ``k`` to ``v`` at ``[k, v]``.
    set_rates : ndarray of float64 of shape (n_sets,)
        Each removal set's rate (0 when not ringing); empty for the plain
        hypercube.
    sets : ndarray of uint8 of shape (n_sets, n)
        The removal sets' literals.
    out : ndarray of uint8 of shape (n_draws, n)
        Each draw's vertex.
    """
    n, n_sets = bits.shape[0], set_rates.shape[0]
    rate = np.empty(n + n_sets)
    target = np.empty(n + n_sets, dtype=np.int64)  # bit k, or n + set j
    cdf = np.empty(n + n_sets)
    for d in range(n_draws):
        remaining = n_steps if bound > 0 else 0
        while remaining > 0:
            m = 0
            for k in range(n):
                r = bit_rates[k, 1 - bits[k]]
                if r > 0:
                    rate[m], target[m] = r, k
                    m += 1
            for j in range(n_sets):
                if set_rates[j] > 0:
                    for k in range(n):
                        if bits[k] & sets[j, k]:
                            rate[m], target[m] = set_rates[j], n + j
                            m += 1
                            break
            out_rate = _pairwise_sum(rate, 0, m)
            if out_rate <= 0:
                break
            # Steps up to and including the first move away from the vertex.
            steps = rng.geometric(min(out_rate / bound, 1.0))
            if steps > remaining:
                break
            remaining -= steps
            total = 0.0
            for i in range(m):
                total += rate[i]
                cdf[i] = total
            x = rng.random() * cdf[m - 1]
            pick = m - 1
            for i in range(m):
                if cdf[i] > x:
                    pick = i
                    break
            move = target[pick]
            if move < n:
                bits[move] ^= 1
            else:
                for k in range(n):
                    if sets[move - n, k]:
                        bits[k] = 0
            if max_level >= 0:
                level = 0
                for k in range(n):
                    level += bits[k]
                if level > max_level:
                    for k in range(n):
                        bits[k] = 0
        for k in range(n):
            out[d, k] = bits[k]
