"""Confidence intervals over trials that respect what they measure.

The experiments produce two kinds of numbers per trial:

* **rates** -- error rates, fractions of unsatisfied clauses: a trial's value
  is the fraction of ``m`` 0/1 outcomes (the instances or clauses of a window)
  that went wrong, so the quantity lives in [0, 1];
* **other averages** -- time-averaged regret, counts of non-zero regrets:
  non-negative and unbounded above.

Rates get the interval of Korn & Graubard (1998), made for proportions
estimated from clusters of correlated outcomes (here: the trials): a
Clopper-Pearson interval on the outcomes pooled over trials, computed with an
*effective* number of outcomes ``p (1 - p) / var`` (``var`` the estimated
variance of the mean over trials; at most the real number of outcomes), shrunk
by ``(z / t_{n-1})^2`` to pay for estimating that variance from ``n`` trials.
It lies in [0, 1] by construction, widens when trials disagree more than
independent outcomes would, stays asymmetric near 0 and 1, and is not empty
when every trial scored 0 (the Student-t interval is then ``0 ± 0``). A
clipped Student-t interval is not enough: clipping removes impossible values
but does not repair the coverage that the normal approximation loses for a
skewed, bounded quantity averaged over few trials (all trials at 0 give a
zero-width interval). On simulated Bernoulli trials the interval covers the
true rate at least at the nominal rate from 3 trials on
(``tests/experiments/test_intervals.py``).

Other averages get the Student-t interval over trials, intersected with the
quantity's support: a normal approximation that suits smooth averages such as
these, where clipping only drops values the quantity cannot take.

Both need at least :data:`MIN_TRIALS` trials: from 2 trials the variance has a
single degree of freedom, ``t_1 = 12.7``, and the interval spans most of what
the quantity can take; a table then says ``n/a (2 trials)`` instead.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "LEVEL",
    "MIN_TRIALS",
    "rate_interval",
    "mean_interval",
    "format_estimate",
]

LEVEL = 0.95
MIN_TRIALS = 3


def _check_level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}.")
    return float(level)


def _as_trials(values, name: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[0] == 0:
        raise ValueError(
            f"{name} must have shape (n_trials, n_points) with at "
            f"least one trial, got shape {values.shape}."
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite.")
    return values


def rate_interval(
    rates, n_outcomes, level: float = LEVEL, min_trials: int = MIN_TRIALS
) -> tuple[np.ndarray, np.ndarray]:
    """Korn-Graubard interval for a rate measured over trials, inside [0, 1].

    Parameters
    ----------
    rates : array-like of shape (n_trials, n_points) or (n_trials,)
        Each trial's rate at each point: a fraction of ``n_outcomes`` 0/1
        outcomes.
    n_outcomes : int or array-like of shape (n_points,)
        Outcomes behind each trial's rate (e.g. instances in the window).
    level : float, default=0.95
        Confidence level.
    min_trials : int, default=3
        Fewer trials give NaN bounds: no interval.

    Returns
    -------
    low, high : ndarray of shape (n_points,)
        Bounds with ``0 <= low <= mean <= high <= 1``, or NaN.

    Examples
    --------
    >>> low, high = rate_interval([[0.0], [0.0], [0.0]], n_outcomes=100)
    >>> float(low[0]), round(float(high[0]), 4)
    (0.0, 0.0575)
    >>> low, high = rate_interval([[0.1], [0.3], [0.2]], n_outcomes=100)
    >>> round(float(low[0]), 3), round(float(high[0]), 3)
    (0.025, 0.557)
    >>> rate_interval([[0.2], [0.3]], n_outcomes=100)
    (array([nan]), array([nan]))
    """
    level = _check_level(level)
    rates = _as_trials(rates, "rates")
    if np.any((rates < 0) | (rates > 1)):
        raise ValueError("rates must lie in [0, 1].")
    n, n_points = rates.shape
    m = np.broadcast_to(np.asarray(n_outcomes, dtype=float), (n_points,))
    if np.any(~(m > 0)):
        raise ValueError("n_outcomes must be positive.")
    low, high = np.full(n_points, np.nan), np.full(n_points, np.nan)
    if n < min_trials:
        return low, high
    p = rates.mean(axis=0)
    pooled = n * m
    variance = rates.var(axis=0, ddof=1) / n
    effective = pooled.copy()
    spread = variance > 0
    effective[spread] = np.minimum(
        p[spread] * (1 - p[spread]) / variance[spread], pooled[spread]
    )
    effective *= (
        stats.norm.ppf(0.5 + level / 2) / stats.t.ppf(0.5 + level / 2, n - 1)
    ) ** 2
    x = p * effective
    alpha = 1 - level
    low[:], high[:] = 0.0, 1.0
    above = x > 0
    low[above] = stats.beta.ppf(alpha / 2, x[above], effective[above] - x[above] + 1)
    below = x < effective
    high[below] = stats.beta.ppf(
        1 - alpha / 2, x[below] + 1, effective[below] - x[below]
    )
    # Guard the last bits of floating point: the mean is always inside.
    return np.minimum(low, p), np.maximum(high, p)


def mean_interval(
    values,
    level: float = LEVEL,
    min_trials: int = MIN_TRIALS,
    lower: float = -np.inf,
    upper: float = np.inf,
) -> tuple[np.ndarray, np.ndarray]:
    """Student-t interval of a mean over trials, intersected with its support.

    Parameters
    ----------
    values : array-like of shape (n_trials, n_points) or (n_trials,)
    level : float, default=0.95
    min_trials : int, default=3
        Fewer trials give NaN bounds.
    lower, upper : float
        What the quantity can take (e.g. ``lower=0`` for a count).

    Returns
    -------
    low, high : ndarray of shape (n_points,)

    Examples
    --------
    >>> low, high = mean_interval([1.0, 2.0, 4.0], lower=0)
    >>> round(float(low[0]), 2), round(float(high[0]), 2)
    (0.0, 6.13)
    """
    level = _check_level(level)
    values = _as_trials(values, "values")
    n = values.shape[0]
    if n < min_trials:
        nan = np.full(values.shape[1], np.nan)
        return nan, nan.copy()
    mean = values.mean(axis=0)
    half = stats.t.ppf(0.5 + level / 2, n - 1) * values.std(axis=0, ddof=1) / np.sqrt(n)
    return np.maximum(mean - half, lower), np.minimum(mean + half, upper)


def format_estimate(
    mean: float, low: float, high: float, n_trials: int | None, digits: int = 3
) -> str:
    """``mean [low, high]``, ``mean n/a (k trials)``, or the mean alone if exact.

    ``n_trials=None`` marks an exact value (an expectation known in closed
    form), printed without an interval.

    Examples
    --------
    >>> format_estimate(0.152, 0.13, 0.177, 8)
    '0.152 [0.130, 0.177]'
    >>> format_estimate(0.432, float("nan"), float("nan"), 2)
    '0.432 n/a (2 trials)'
    >>> format_estimate(0.5, 0.5, 0.5, None)
    '0.500'
    >>> format_estimate(34.2, 33.1, 35.3, 40, digits=0)
    '34 [33, 35]'
    """
    text = f"{mean:.{digits}f}"
    if n_trials is None:
        return text
    if np.isnan(low) or np.isnan(high):
        return f"{text} n/a ({n_trials} trial{'' if n_trials == 1 else 's'})"
    return f"{text} [{low:.{digits}f}, {high:.{digits}f}]"
