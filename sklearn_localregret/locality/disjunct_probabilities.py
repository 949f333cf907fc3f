"""What a disjunction drawn from ``pi`` predicts: P(it fires on each row).

A row is predicted positive when one of its true features is a literal of the
played disjunction. With independent literals (the hypercube's product
distribution, or the removal-set graph given its sets' clocks) that is
``1 - prod_{k : x_k = 1} (1 - p_k)``; the removal-set graph's ``pi`` is a
mixture over its clocks, and its prediction averages the exact probability
over :data:`N_CLOCK_DRAWS` seeded draws of them
(:ref:`exact sampling with removal sets <removal-sets-sampler>`).

* :func:`disjunction_fire_probabilities` -- the product formula with numpy,
  for sparse rows and for several draws at once;
* :func:`dense_fire_probabilities` -- either graph on dense rows, compiled
  (:mod:`~sklearn_localregret.engine.compiled.clock_draw`): only the live
  features and the ringing sets that hold them are read, and only their
  clocks' uniforms drawn.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._random import seeded_uniform_columns
from ..engine.compiled.clock_draw import mean_fire_probabilities, needed_groups

__all__ = [
    "N_CLOCK_DRAWS",
    "dense_fire_probabilities",
    "disjunction_fire_probabilities",
]

# Draws of the removal clocks behind a prediction (exact given each draw).
N_CLOCK_DRAWS = 512


def disjunction_fire_probabilities(X: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``P(the disjunction fires on each row)`` for independent literals.

    ``1 - prod_{k : x_k = 1} (1 - p_k)``, computed in log space, with literals
    of probability 1 handled exactly.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_rows, n)
        0/1 rows.
    p : ndarray of shape (n,) or (n_draws, n)
        Probability that each feature is a literal (one row per draw).

    Returns
    -------
    ndarray of shape (n_rows,) or (n_rows, n_draws)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 0]])
    >>> disjunction_fire_probabilities(X, np.array([0.5, 1.0]))
    array([0.5, 1. , 0. ])
    """
    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    certain = p >= 1.0
    log_off = np.log1p(-np.where(certain, 0.0, p))
    positive = -np.expm1(X @ log_off.T) + 0.0  # + 0.0: no -0. for x = 0
    positive[X @ certain.T.astype(np.float64) > 0] = 1.0
    return positive


def dense_fire_probabilities(X, bit_rates, set_rates, sets, seed) -> np.ndarray:
    """``P(a disjunction drawn from pi fires)`` on dense rows, compiled.

    :meth:`fire_probabilities()
    <sklearn_localregret.locality.removal_sets.RemovalSetColoring.fire_probabilities>`
    of dense rows, and the hypercube's product formula.

    ``bit_rates`` are the stored rates of the rows' features (``n x 2``),
    ``set_rates`` and ``sets`` the pool's (a pool of no slot: the
    hypercube's product formula). Only the clocks of ringing slots that hold
    a live feature of the rows are drawn (the uniforms of the whole pool's
    draws, :func:`~sklearn_localregret._random.seeded_uniform_columns`), and
    each row's probability is computed the same whatever the other rows
    (:func:`~sklearn_localregret.engine.compiled.clock_draw.mean_fire_probabilities`).

    Examples
    --------
    >>> import numpy as np
    >>> rates = np.array([[1.0, 3.0], [0.0, 0.0]])
    >>> dense_fire_probabilities(np.array([[1, 1], [0, 1]]), rates,
    ...                          np.zeros(0), np.zeros((0, 2)), [0, 0])
    array([0.75, 0.  ])
    """
    n, m = bit_rates.shape[0], sets.shape[0]
    if np.ndim(X) != 2 or np.shape(X)[1] != n or (m and sets.shape[1] != n):
        raise ValueError(
            f"rows of shape {np.shape(X)} for {n} features (and sets of shape "
            f"{sets.shape}): a column per feature"
        )
    live = np.empty(n, dtype=bool)
    ringing = np.empty(m, dtype=bool)
    if needed_groups(X, bit_rates, set_rates, sets, live, ringing):
        uniforms = seeded_uniform_columns(
            seed, N_CLOCK_DRAWS, m, np.flatnonzero(ringing)
        )
    else:
        uniforms = np.empty((0, 0))
    out = np.empty(X.shape[0])
    mean_fire_probabilities(X, bit_rates, set_rates, sets, live, ringing, uniforms, out)
    return out
