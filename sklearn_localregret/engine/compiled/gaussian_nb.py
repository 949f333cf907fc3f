"""Gaussian naive Bayes from discounted sums, compiled.

The statistics are, per class ``c``, its weight ``W[c]`` and per column
``j`` the weight ``N[c, j]``, sum ``S[c, j]`` and sum of squares ``Q[c, j]``
of its known values (a missing value, NaN, adds to none of them). The model
is scikit-learn's ``GaussianNB`` on those sums::

    mean = S / N,  var = Q / N - mean**2 + eps,
    log P(c | x) = log W[c] + sum_j log N(x_j; mean[c, j], var[c, j]) + const

with ``eps = VAR_SMOOTHING * (largest pooled variance of a column) +
VAR_FLOOR``, relative to the columns' scale. A column some class seen has
no value of, a column outside the mask,
a column whose sums overflowed (values beyond ~1e154) and a missing value
are left out of the sum; a class of no weight has
probability 0, and before any weight every class has the same. A row so far
from the means (~1e154 and beyond) that a class's ``sum_j z**2 / var``
overflows goes to the nearest class in that sense (compared by logarithms),
its limit: every class then scored -inf, read as uniform. Each round
costs a few array operations of a handful of elements in numpy, which a
one-row stream pays several times a row: hence these kernels.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel
from .softmax import softmax_row

__all__ = ["VAR_FLOOR", "VAR_SMOOTHING", "gaussian_learn", "gaussian_posteriors"]

# A class-column variance is at least this fraction of the largest pooled
# variance (scikit-learn's GaussianNB var_smoothing): relative, so that a
# model of columns of any scale is that of the columns scaled (an absolute
# floor of 1e-12 took columns of spread ~1e-6 out). The floor is for columns
# of no spread at all.
VAR_SMOOTHING = 1e-9
VAR_FLOOR = 1e-300


@kernel
def gaussian_learn(weight, count, total, squares, X, y, w, decay) -> None:
    """Decay every sum by ``decay``, then add rows ``X`` (NaN where missing)
    of class indices ``y`` at weights ``w``."""
    k, d = count.shape
    if decay != 1.0:
        for c in range(k):
            weight[c] *= decay
            for j in range(d):
                count[c, j] *= decay
                total[c, j] *= decay
                squares[c, j] *= decay
    for i in range(X.shape[0]):
        c = y[i]
        wi = w[i]
        weight[c] += wi
        for j in range(d):
            x = X[i, j]
            if not math.isnan(x):
                count[c, j] += wi
                total[c, j] += wi * x
                squares[c, j] += wi * x * x


@kernel
def _finite_moments(count, total, squares, c, j) -> bool:
    """Whether class ``c``'s mean and variance of column ``j`` are numbers:
    values beyond ~1e154 overflow the sums of squares, and the column is
    then left out (as it would be missing)."""
    if not (math.isfinite(total[c, j]) and math.isfinite(squares[c, j])):
        return False
    m = total[c, j] / count[c, j]
    return math.isfinite(squares[c, j] / count[c, j] - m * m)


@kernel
def gaussian_posteriors(weight, count, total, squares, X, columns, out) -> None:
    """``out[i, c]``: the posterior of class ``c`` for row ``i`` of ``X``,
    from the columns where ``columns`` is true (and every class seen has a
    value: a class of weight 0, given in ``classes`` but not met yet, has
    prior 0 and leaves every column in use)."""
    k, d = count.shape
    largest = 0.0  # the largest pooled variance of a column
    usable = np.zeros(d, dtype=np.bool_)
    for j in range(d):
        n = 0.0
        s = 0.0
        q = 0.0
        usable[j] = columns[j]
        for c in range(k):
            n += count[c, j]
            s += total[c, j]
            q += squares[c, j]
            if weight[c] <= 0.0:
                continue  # never seen: no value to have
            if count[c, j] <= 0.0 or not _finite_moments(count, total, squares, c, j):
                usable[j] = False  # (sums past 1e308: values beyond ~1e154)
        if n > 0.0:
            m = s / n
            pooled = q / n - m * m
            if math.isfinite(pooled):
                largest = max(largest, pooled)
    eps = VAR_SMOOTHING * largest + VAR_FLOOR
    mean = np.zeros((k, d))
    inverse = np.zeros((k, d))  # 1 / var
    log_var = np.zeros((k, d))
    log_prior = np.empty(k)
    for c in range(k):
        log_prior[c] = math.log(weight[c]) if weight[c] > 0.0 else -np.inf
        for j in range(d):
            if usable[j] and weight[c] > 0.0:
                m = total[c, j] / count[c, j]
                var = max(squares[c, j] / count[c, j] - m * m, 0.0) + eps
                mean[c, j] = m
                inverse[c, j] = 1.0 / var
                log_var[c, j] = math.log(var)
    for i in range(min(X.shape[0], out.shape[0])):
        overflowed = False
        for c in range(k):
            score = log_prior[c]
            for j in range(d):
                x = X[i, j]
                if usable[j] and not math.isnan(x):
                    z = x - mean[c, j]
                    score -= 0.5 * (z * z * inverse[c, j] + log_var[c, j])
            out[i, c] = score
            overflowed = overflowed or (weight[c] > 0.0 and not score > -np.inf)
        if overflowed:
            _far_row(X, i, usable, weight, mean, inverse, out)
        else:
            softmax_row(out, i, k)  # no weight yet (all -inf): every class the same


@kernel
def _far_row(X, i, usable, weight, mean, inverse, out) -> None:
    """Row ``i``'s posteriors where a class's squared distance overflowed
    (values beyond ~1e154 from its mean): in that limit every class but the
    nearest has posterior 0, so the nearest (least ``sum_j z**2 / var``,
    compared by logarithms, which stay finite) takes it all, ties shared.
    Else every class seen would score -inf, and the model read as uniform."""
    k, d = mean.shape
    log_far = np.full(k, np.inf)  # log of sum_j z**2 / var, per class seen
    for c in range(k):
        if weight[c] <= 0.0:
            continue
        top = -np.inf  # a log-sum-exp over the columns, in one pass
        acc = 0.0
        for j in range(d):
            x = X[i, j]
            if not usable[j] or math.isnan(x):
                continue
            z = abs(x - mean[c, j])
            if z == 0.0:
                continue
            if math.isinf(z):  # the difference of two values near 1e308
                log_z = math.log(abs(0.5 * x - 0.5 * mean[c, j])) + math.log(2.0)
            else:
                log_z = math.log(z)
            term = 2.0 * log_z + math.log(inverse[c, j])
            if term > top:
                acc = acc * math.exp(top - term) + 1.0
                top = term
            else:
                acc += math.exp(term - top)
        log_far[c] = top + math.log(acc) if acc > 0.0 else -np.inf
    nearest = np.inf
    for c in range(k):
        nearest = min(nearest, log_far[c])
    ties = 0
    for c in range(k):
        ties += log_far[c] == nearest
    for c in range(k):
        out[i, c] = 1.0 / ties if log_far[c] == nearest else 0.0
