"""Online passive-aggressive linear classification, compiled.

PA-I (Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online
Passive-Aggressive Algorithms", JMLR 2006) one class against the rest, as
scikit-learn's ``SGDClassifier(loss="hinge", learning_rate="pa1")`` learns
it: for class ``c``, with ``s = +1`` if the row's label is ``c`` else
``-1``, the score ``p = w_c . x + b_c`` and the hinge loss ``l = max(0, 1 -
s p)``, the step is ``tau = min(C, l / |x|^2)`` times the row's weight, and
``w_c += s tau x``, ``b_c += s tau``. A row whose features are all 0 is
skipped (scikit-learn's rule). The features are standardised online from
the rows seen before and in the round (the mean and the standard deviation
of each column's known values, weighted; a column of no spread is
centred only), and a missing value (NaN) is the column's mean: 0 after
standardising. A class's probability is ``expit(p_c)`` normalised over the
classes, scikit-learn's ``_predict_proba_lr``.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["one_hot_columns", "pa_learn", "pa_posteriors"]


@kernel
def _scaling(count, total, squares, columns, mean, sd) -> None:
    """Each column's mean and standard deviation from its statistics
    (``sd`` 0 for a column not read: outside ``columns`` or never known; 1
    for a column of no spread, which is centred only)."""
    for j in range(mean.shape[0]):
        mean[j] = 0.0
        sd[j] = 0.0
        if columns[j] and count[j] > 0.0:
            m = total[j] / count[j]
            var = squares[j] / count[j] - m * m
            if not (math.isfinite(m) and math.isfinite(var)):
                continue  # sums overflowed (values beyond ~1e154): not read
            s = math.sqrt(var) if var > 0.0 else 0.0
            # No spread (relative to its mean: a column of small values may
            # have a small spread, and is read as it is): centre only.
            if s <= 1e-8 * abs(m) or s == 0.0:
                s = 1.0
            mean[j] = m
            sd[j] = s


@kernel
def _standardized(X, i, mean, sd, x, nonzero) -> tuple:
    """Row ``i`` of ``X`` standardised into ``x`` (0 where ``sd`` is 0 and
    where missing); returns its squared norm and how many entries are not
    0, whose indices go to ``nonzero`` (the others add nothing to a score
    or a step: a one-hot slot never met, a column at its mean)."""
    norm = 0.0
    n_nonzero = 0
    for j in range(x.shape[0]):
        v = X[i, j]
        x[j] = 0.0
        if sd[j] > 0.0 and not math.isnan(v):
            x[j] = (v - mean[j]) / sd[j]
            if not math.isfinite(x[j]):  # beyond 1e308 sd: read as the mean
                x[j] = 0.0
            if x[j] != 0.0:
                norm += x[j] * x[j]
                nonzero[n_nonzero] = j
                n_nonzero += 1
    return norm, n_nonzero


@kernel
def pa_learn(coef, intercept, count, total, squares, X, y, w, columns, C) -> None:
    """Add rows ``X`` (weights ``w``) to the columns' statistics, then take
    a PA-I step on each row in turn, label ``y[i]`` (a class index)."""
    d = coef.shape[1]
    for i in range(X.shape[0]):
        for j in range(d):
            v = X[i, j]
            if columns[j] and not math.isnan(v):
                count[j] += w[i]
                total[j] += w[i] * v
                squares[j] += w[i] * v * v
    mean = np.empty(d)
    sd = np.empty(d)
    _scaling(count, total, squares, columns, mean, sd)
    x = np.empty(d)
    nonzero = np.empty(d, dtype=np.int64)
    for i in range(X.shape[0]):
        norm, n_nonzero = _standardized(X, i, mean, sd, x, nonzero)
        if norm == 0.0 or not math.isfinite(norm):  # (x x past 1e308: no step)
            continue
        for c in range(coef.shape[0]):
            s = 1.0 if y[i] == c else -1.0
            p = intercept[c]
            for r in range(n_nonzero):
                j = nonzero[r]
                p += coef[c, j] * x[j]
            loss = 1.0 - s * p
            if loss > 0.0:
                step = s * min(C, loss / norm) * w[i]
                for r in range(n_nonzero):
                    j = nonzero[r]
                    coef[c, j] += step * x[j]
                intercept[c] += step


@kernel
def pa_posteriors(coef, intercept, count, total, squares, X, columns, out) -> None:
    """``out[i, c]``: ``expit`` of class ``c``'s score for row ``i``,
    normalised over the classes (the same for every class if all are 0)."""
    k, d = coef.shape
    mean = np.empty(d)
    sd = np.empty(d)
    _scaling(count, total, squares, columns, mean, sd)
    x = np.empty(d)
    nonzero = np.empty(d, dtype=np.int64)
    for i in range(min(X.shape[0], out.shape[0])):
        _, n_nonzero = _standardized(X, i, mean, sd, x, nonzero)
        norm = 0.0
        for c in range(k):
            p = intercept[c]
            for r in range(n_nonzero):
                j = nonzero[r]
                p += coef[c, j] * x[j]
            if p != p:  # inf - inf: scores past 1e308 either way
                p = 0.0
            out[i, c] = 1.0 / (1.0 + math.exp(-p)) if p > -700.0 else 0.0
            norm += out[i, c]
        for c in range(k):
            out[i, c] = out[i, c] / norm if norm > 0.0 else 1.0 / k


@kernel
def one_hot_columns(X, slot_start, n_slots, out) -> None:
    """Rows ``X`` with their categorical columns also read one-hot.

    ``out[:, :d]`` is ``X``; a column ``j`` with ``slot_start[j] >= 0``
    holds category codes, and ``out[i, d + slot_start[j] + c]`` is 1 where
    row ``i``'s code is ``c``, 0 for its other ``n_slots`` slots, and NaN in
    all of them where the code is NaN (a category unseen or past the bound:
    missing, so the column's mean).
    """
    n, d = X.shape
    for i in range(n):
        for j in range(d):
            out[i, j] = X[i, j]
            start = slot_start[j]
            if start < 0:
                continue
            v = X[i, j]
            known = not math.isnan(v) and 0.0 <= v < n_slots
            for c in range(n_slots):
                out[i, d + start + c] = 0.0 if known else math.nan
            if known:
                out[i, d + start + int(v)] = 1.0
