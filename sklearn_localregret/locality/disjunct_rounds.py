"""The utilities of disjunct learning on the hypercube, vectorised with numpy.

For a disjunction ``a`` (``a[k] = 1``: feature ``k`` is a literal) and a round
of labelled 0/1 rows, the gain of every flip ``u(flip_k a) - u(a)``, ``u`` the
weight of the rows it classifies right (paper, Example "Online Disjunct
Learning"), and :func:`play_disjunction_rounds`, which plays many rounds of the
exact product sampler at once.
"""

from __future__ import annotations

import numpy as np

from .bulk_windows import (
    applied_rounds,
    bit_gains_by_row,
    bit_moves,
    stored_units,
    sum_by_round,
    window_activity,
)
from .disjunct_kernels import (
    check_bulk_rounds,
    check_compiled_round,
    play_compiled_round,
    round_activity,
)
from .hypercube import HypercubeColoring

__all__ = [
    "disjunction_gains",
    "disjunction_round",
    "hypercube_round",
    "play_disjunction_rounds",
]


def disjunction_round(a, X, y, w):
    """Gains of every flip and the weight misclassified by disjunction ``a``.

    Parameters
    ----------
    a : ndarray of shape (n,)
        The disjunction (0/1).
    X : ndarray of shape (m, n)
        0/1 rows.
    y : ndarray of shape (m,)
        1 for the positive class, 0 for the negative one.
    w : ndarray of shape (m,)
        Row weights.

    Returns
    -------
    gains : ndarray of shape (n,)
        ``u(flip_k a) - u(a)`` with ``u`` the weight classified correctly.
    wrong : float
        Weight of the rows ``a`` gets wrong.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    positive = np.asarray(y) == 1
    active = X @ np.asarray(a, dtype=np.float64)
    return _disjunction_round(a, X, positive, w, np.where(positive, w, -w), active)


def _disjunction_round(a, X, positive, w, signed, active):
    """:func:`disjunction_round` with ``signed = +-w`` and ``active = X @ a`` given."""
    wrong = float(w @ ((active > 0) != positive))
    # Adding k flips the rows where the disjunction is false and x_k = 1 to
    # positive; removing k flips to negative the rows where k is the sole
    # active literal (active == 1 and x_k = 1).
    add = (signed * (active == 0)) @ X
    remove = (signed * (active == 1)) @ X
    # (+ 0.0 turns the -0.0 of an unchanged removal into 0.0.)
    return np.where(np.asarray(a) > 0, -remove, add) + 0.0, wrong


def hypercube_round(cube: HypercubeColoring, a, X, y, w, bias: float = 0.0) -> float:
    """Play disjunction ``a`` on one round's rows and update ``cube``.

    ``disjunction_round`` then ``cube.update(a, gains, bias)``; a round of
    one row (a streaming call) is compiled
    (:mod:`~sklearn_localregret.locality.disjunct_kernels`), with the same
    regrets: every gain is one term. Returns the weight of the rows ``a`` got
    wrong.

    Examples
    --------
    >>> import numpy as np
    >>> cube = HypercubeColoring(3)
    >>> X = np.array([[1, 0, 1]], dtype=np.uint8)
    >>> hypercube_round(cube, np.array([1, 0, 0], dtype=np.uint8), X, [0], [1.0])
    1.0
    >>> cube.table.biased.tolist()
    [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    """
    if np.shape(X)[0] != 1:
        # Several rows: numpy's sums (their order decides the last bit).
        gains, wrong = disjunction_round(a, X, y, w)
        cube.update(a, gains, bias)
        return wrong
    X = np.asarray(X, dtype=np.uint8)
    positive = np.asarray(y) == 1
    w = np.asarray(w, dtype=np.float64)
    a = np.asarray(a, dtype=np.uint8)
    check_compiled_round(cube, a, X, positive, w)
    active = np.empty(1, dtype=np.int64)
    round_activity(X, positive, w, a, active)
    no_sets = np.zeros((0, cube.n_vars), dtype=np.uint8)
    return play_compiled_round(
        cube, a, X, positive, w, active, no_sets, np.zeros(0, dtype=bool), bias
    )


def play_disjunction_rounds(
    cube: HypercubeColoring, X, y, w, batch_size: int, biases, rng
) -> float:
    """Play consecutive disjunction rounds with the exact product sampler.

    Equivalent, state for state, to running for each round of ``batch_size``
    rows ``a = cube.sample(rng)``, ``gains, wrong = disjunction_round(a, ...)``
    and ``cube.update(a, gains, bias)``: the rounds' uniforms are drawn in one
    call (the same random stream) and go through :meth:`HypercubeColoring.draw`.
    With a zero bias it is faster: rounds are drawn in windows under the current
    ``pi`` and all rounds up to the first one whose update changes a positive
    regret ``R+`` (hence ``pi``) are scored and applied in bulk. Once the
    learner has settled most updates only push non-positive regrets further
    down (or are zero: every row with two active literals), so windows grow
    long.

    Parameters
    ----------
    cube : HypercubeColoring
        With an exact sampler (``L >= n`` or None).
    X : ndarray of shape (m, n)
        0/1 rows, starting on a round boundary.
    y : ndarray of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : ndarray of shape (m,)
        Row weights.
    batch_size : int
        Rows per round (the last round may be shorter).
    biases : float or ndarray of shape (n_rounds,)
        The bias ``b`` of every round.
    rng : numpy RandomState or Generator

    Returns
    -------
    float
        Weight of the rows the played disjunctions got wrong.

    Examples
    --------
    >>> import numpy as np
    >>> cube = HypercubeColoring(2)
    >>> X = np.array([[1, 0], [0, 1], [1, 1]])
    >>> play_disjunction_rounds(cube, X, np.array([1, 1, 0]), np.ones(3), 1, 0.0,
    ...                         np.random.RandomState(0))
    3.0
    >>> cube.n_updates, cube.table.biased.tolist()
    (3, [[0.0, 1.0], [0.0, 1.0]])
    """
    check_bulk_rounds(cube, X, batch_size)
    m, n = X.shape
    n_rounds = -(-m // batch_size)
    uniforms = rng.random((n_rounds, n))
    X = np.asarray(X, dtype=np.float64)
    positive = np.asarray(y) == 1
    w = np.asarray(w, dtype=np.float64)
    signed = np.where(positive, w, -w)
    biases = np.broadcast_to(np.asarray(biases, dtype=np.float64), (n_rounds,))
    wrong = 0.0
    if np.any(biases != 0):
        for t in range(n_rounds):
            lo, hi = t * batch_size, min((t + 1) * batch_size, m)
            a = cube.draw(uniforms[t]).astype(np.uint8)
            active = X[lo:hi] @ a.astype(np.float64)
            gains, wr = _disjunction_round(
                a, X[lo:hi], positive[lo:hi], w[lo:hi], signed[lo:hi], active
            )
            cube.update(a, gains, biases[t])
            wrong += wr
        return wrong
    table, cap = cube.table, max(1, (1 << 20) // (batch_size * n))
    has_ones = X.any(axis=1)
    t, window = 0, 4
    while t < n_rounds:
        stop = min(n_rounds, t + window)
        r0, r1 = t * batch_size, min(stop * batch_size, m)
        drawn = cube.draw(uniforms[t:stop])
        per_row, _, active = window_activity(drawn, batch_size, X[r0:r1])
        # Only rows with 0 or 1 active literals (and weight, and a one) have
        # non-zero gains.
        live = np.flatnonzero(
            (signed[r0:r1] != 0) & ((active == 1) | ((active == 0) & has_ones[r0:r1]))
        )
        used = stop - t
        if len(live):
            row_gains = bit_gains_by_row(
                per_row[live], X[r0 + live], signed[r0 + live], active[live]
            )
            rounds, (gains,) = sum_by_round(live, batch_size, row_gains)
            acts = drawn[rounds]
            (scaled,) = stored_units(table, used, rounds, gains)
            n_live, used, _ = applied_rounds(
                bit_moves(table, n, acts, scaled), rounds, used
            )
            cube.update_rounds(
                acts[:n_live], gains[:n_live], played=rounds[:n_live], n_rounds=used
            )
        else:
            cube.pass_rounds(used)
        end = min((t + used) * batch_size, m)
        wrong += float(w[r0:end] @ ((active[: end - r0] > 0) != positive[r0:end]))
        window = min(2 * window, cap) if t + used == stop else max(1, 2 * used)
        t += used
    return wrong


def disjunction_gains(a, X, y, w=None) -> np.ndarray:
    """``u(flip_k a) - u(a)`` for every feature ``k``; ``u`` = weight correct.

    Parameters
    ----------
    a : array-like of shape (n,)
        The disjunction: ``a[k] = 1`` when feature ``k`` is one of its literals.
    X : array-like of shape (m, n)
        0/1 rows.
    y : array-like of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : array-like of shape (m,), default=None
        Row weights (ones when None).

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    ``x0 OR x1`` on three rows: adding ``x2`` fixes the last row; removing
    ``x0`` breaks the first row (it is its only active literal) but fixes the
    second (negative) one.

    >>> import numpy as np
    >>> X = np.array([[1, 0, 0], [1, 0, 1], [0, 0, 1]])
    >>> disjunction_gains([1, 1, 0], X, [1, 0, 1])
    array([0., 0., 1.])
    >>> disjunction_gains([1, 0, 0], X, [1, 0, 1])
    array([0., 0., 1.])
    >>> disjunction_gains([1, 0, 0], X, [0, 0, 1])
    array([2., 0., 1.])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    return disjunction_round(a, X, y, w)[0]
