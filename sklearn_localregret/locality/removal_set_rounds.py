"""Rounds of disjunction learning on the removal-set graph: gains and play.

One round plays a disjunction ``a`` on ``batch_size`` rows and updates every
colour with an edge out of ``a`` (:class:`RemovalSetColoring`):

* bit colours, as on the hypercube: adding ``k`` turns positive the rows ``a``
  leaves negative that have ``x_k = 1``; removing ``k`` turns negative the rows
  where ``k`` is the only active literal;
* removal sets: dropping ``S`` changes exactly the rows whose active literals
  ``A = a & x`` are non-empty and all in ``S``, which become negative.

Before the gains are computed, every negative row that ``a`` fires through two
or more literals lets its true features enter the pool as a removal set
(:meth:`RemovalSetColoring.track`); an entering colour is updated from this
round on, which keeps the guarantee (its regret before was zero,
:ref:`the guarantee with removal sets <removal-sets-guarantee>`).

:func:`removal_set_round` is the definition; :func:`play_removal_set_rounds`
plays a block of rounds state for state as it would, faster.
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
from .removal_sets import RemovalSetColoring

__all__ = ["play_removal_set_rounds", "removal_set_gains", "removal_set_round"]


def _covered(active_rows, active, sets):
    """``covered[i, j]``: row ``i`` fires, its active literals all in set ``j``."""
    return ((active_rows @ sets.T.astype(np.float64)) == active[:, None]) & (
        active > 0
    )[:, None]


def removal_set_gains(a, X, y, w, sets):
    """Gains of every bit colour and every removal set for disjunction ``a``.

    Parameters
    ----------
    a : ndarray of shape (n,)
        The disjunction (0/1).
    X : ndarray of shape (m, n)
        0/1 rows.
    y : ndarray of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : ndarray of shape (m,)
        Row weights.
    sets : ndarray of shape (n_sets, n)
        Removal sets (0/1 rows).

    Returns
    -------
    gains : ndarray of shape (n,)
        ``u(flip_k a) - u(a)``.
    set_gains : ndarray of shape (n_sets,)
        ``u(a minus S_j) - u(a)`` (0 for a set sharing no literal with ``a``).
    wrong : float
        Weight of the rows ``a`` gets wrong.

    Examples
    --------
    ``x0 OR x1`` fires on a negative row through both literals: no single
    removal fixes it, dropping the row's true features ``{x0, x1}`` does.
    Adding ``x2`` fixes the positive row it misses.

    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [0, 0, 1]])
    >>> removal_set_gains([1, 1, 0], X, [0, 1], np.ones(2), np.array([[1, 1, 0]]))
    (array([0., 0., 1.]), array([1.]), 2.0)
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    positive = np.asarray(y) == 1
    signed = np.where(positive, w, -w)
    a = np.asarray(a, dtype=np.uint8)
    active_rows = X * a
    active = active_rows.sum(axis=1)
    # Summed row by row in order, as play_removal_set_rounds sums them.
    row_gains = bit_gains_by_row(a.astype(bool)[None, :], X, signed, active)
    gains = np.add.reduceat(row_gains, [0], axis=0)[0] + 0.0
    covered = _covered(active_rows, active, np.asarray(sets))
    set_gains = np.add.reduceat(covered * -signed[:, None], [0], axis=0)[0] + 0.0
    wrong = float(w @ ((active > 0) != positive))
    return gains, set_gains, wrong


def removal_set_round(
    graph: RemovalSetColoring, a, X, y, w, bias: float = 0.0
) -> float:
    """Play disjunction ``a`` on one round's rows: track new sets, update.

    Parameters
    ----------
    graph : RemovalSetColoring
    a : ndarray of uint8 of shape (n,)
        The played disjunction.
    X : ndarray of uint8 of shape (m, n)
        The round's 0/1 rows.
    y : ndarray of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : ndarray of shape (m,)
        Row weights.
    bias : float, default=0.0

    Returns
    -------
    float
        Weight of the rows ``a`` got wrong.

    Examples
    --------
    >>> import numpy as np
    >>> graph = RemovalSetColoring(3)
    >>> X = np.array([[1, 1, 0]], dtype=np.uint8)
    >>> removal_set_round(graph, np.array([1, 1, 1], dtype=np.uint8), X, [0], [1.0])
    1.0
    >>> graph.sets[graph.occupied], graph.set_regrets()[graph.occupied]
    (array([[1, 1, 0]], dtype=uint8), array([1.]))
    """
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y)
    w = np.asarray(w, dtype=np.float64)
    a = np.asarray(a, dtype=np.uint8)
    if X.shape[0] == 1:
        # A streaming round, compiled (disjunct_kernels): one row, so every
        # gain is one term and the regrets are those of the numpy round.
        positive = y == 1
        check_compiled_round(graph, a, X, positive, w)
        active = np.empty(1, dtype=np.int64)
        if round_activity(X, positive, w, a, active):
            graph.track(X)
        return play_compiled_round(
            graph, a, X, positive, w, active, graph.sets, graph.occupied, bias
        )
    # Several rows: numpy's sums (their order decides the last bit, and a
    # regret that cancels to exactly 0 must stay 0).
    active = X.astype(np.int64) @ a
    spawning = (y != 1) & (w > 0) & (active >= 2)
    if spawning.any():
        graph.track(X[spawning])
    gains, set_gains, wrong = removal_set_gains(a, X, y, w, graph.sets)
    graph.update(a, gains, np.where(graph.occupied, set_gains, 0.0), bias)
    return wrong


def play_removal_set_rounds(
    graph: RemovalSetColoring, X, y, w, batch_size: int, biases, rng
) -> float:
    """Play consecutive rounds with the exact sampler, as :func:`removal_set_round`.

    Equivalent, state for state, to running for each round of ``batch_size``
    rows ``a = graph.sample(rng)`` and ``removal_set_round(graph, a, ...)``:
    the rounds' uniforms are drawn in one call (the same random stream) and go
    through :meth:`RemovalSetColoring.draw`. With a zero bias it is faster:
    rounds are drawn in windows under the current ``pi``, and all rounds up to
    the first one that changes a positive regret (hence ``pi``) or lets a set
    enter the pool are scored and applied in bulk.

    Parameters
    ----------
    graph : RemovalSetColoring
        With an exact sampler (``L >= n`` or None).
    X : ndarray of uint8 of shape (m, n)
        0/1 rows, starting on a round boundary.
    y : ndarray of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : ndarray of shape (m,)
        Row weights.
    batch_size : int
        Rows per round (the last round may be shorter).
    biases : float or ndarray of shape (n_rounds,)
        The bias ``b`` of every round.
    rng : numpy Generator or RandomState

    Returns
    -------
    float
        Weight of the rows the played disjunctions got wrong.

    Examples
    --------
    >>> import numpy as np
    >>> graph = RemovalSetColoring(2)
    >>> X = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)
    >>> play_removal_set_rounds(graph, X, np.array([1, 1, 0]), np.ones(3), 1, 0.0,
    ...                         np.random.default_rng(0))
    3.0
    >>> graph.n_updates, graph.table.biased[:2].tolist()
    (3, [[0.0, 1.0], [0.0, 1.0]])
    """
    X = np.asarray(X, dtype=np.uint8)
    check_bulk_rounds(graph, X, batch_size)
    m, n = X.shape
    n_rounds = -(-m // batch_size)
    uniforms = rng.random((n_rounds, graph.uniforms_per_round))
    y = np.asarray(y)
    w = np.asarray(w, dtype=np.float64)
    biases = np.broadcast_to(np.asarray(biases, dtype=np.float64), (n_rounds,))
    wrong = 0.0
    if np.any(biases != 0) or n_rounds == 1:
        for t in range(n_rounds):
            lo, hi = t * batch_size, min((t + 1) * batch_size, m)
            a = graph.draw(uniforms[t]).astype(np.uint8)
            wrong += removal_set_round(
                graph, a, X[lo:hi], y[lo:hi], w[lo:hi], biases[t]
            )
        return wrong
    return _play_windows(graph, X, y, w, batch_size, uniforms)


def _play_windows(graph, X, y, w, batch_size, uniforms) -> float:
    """The zero-bias block loop of :func:`play_removal_set_rounds`."""
    m, n = X.shape
    n_rounds = len(uniforms)
    Xf = X.astype(np.float64)
    positive = y == 1
    signed = np.where(positive, w, -w)
    has_ones = X.any(axis=1)
    cap = max(1, (1 << 20) // (batch_size * max(n, graph.max_sets)))
    wrong, t, window = 0.0, 0, 4
    while t < n_rounds:
        stop = min(n_rounds, t + window)
        drawn = graph.draw(uniforms[t:stop])
        r0, r1 = t * batch_size, min(stop * batch_size, m)
        rows = Xf[r0:r1]
        per_row, active_rows, active = window_activity(drawn, batch_size, rows)
        # The first round in which a set would enter the pool ends the window;
        # it is played by removal_set_round (the pool changes there). A full
        # pool whose slots all ring takes no set (and a slot stops ringing
        # only through a change of pi, which ends the bulk rounds anyway).
        entering = stop
        if graph.can_take_a_set():
            for i in np.flatnonzero(~positive[r0:r1] & (w[r0:r1] > 0) & (active >= 2)):
                if not graph.is_tracked(X[r0 + i]):
                    entering = t + i // batch_size
                    break
        used, moved = _bulk_rounds(
            graph,
            t,
            entering,
            drawn,
            batch_size,
            rows,
            per_row,
            active_rows,
            active,
            signed[r0:r1],
            has_ones[r0:r1],
        )
        # The entering round's action was drawn under the window's pi: valid
        # only if no bulk round before it moved pi.
        if not moved and t + used == entering < stop:
            lo, hi = entering * batch_size, min((entering + 1) * batch_size, m)
            removal_set_round(
                graph,
                drawn[entering - t].astype(np.uint8),
                X[lo:hi],
                y[lo:hi],
                w[lo:hi],
            )
            used += 1
        end = min((t + used) * batch_size, m)
        wrong += float(w[r0:end] @ ((active[: end - r0] > 0) != positive[r0:end]))
        window = min(2 * window, cap) if t + used == stop else max(1, 2 * used)
        t += used
    return wrong


def _bulk_rounds(
    graph,
    t,
    end,
    drawn,
    batch_size,
    rows,
    per_row,
    active_rows,
    active,
    signed,
    has_ones,
) -> tuple[int, bool]:
    """Apply rounds ``t .. end - 1`` (drawn under the current ``pi``) in bulk.

    Stops after the first round whose update changes a positive regret.
    Returns the number of rounds applied (all rounds count as updates) and
    whether the last of them changed ``pi``.
    """
    if end <= t:
        return 0, False
    n_rows = min((end - t) * batch_size, len(rows))
    occupied = np.flatnonzero(graph.occupied)
    sets = graph.sets[occupied]
    firing = np.flatnonzero((active[:n_rows] > 0) & (signed[:n_rows] != 0))
    covered = np.zeros((n_rows, len(occupied)), dtype=bool)
    if len(occupied) and len(firing):
        covered[firing] = _covered(active_rows[firing], active[firing], sets)
    # Only rows with 0 or 1 active literals (and weight, and a one) move a
    # bit colour; only covered rows move a set colour.
    live = np.flatnonzero(
        (signed[:n_rows] != 0)
        & (
            (active[:n_rows] == 1)
            | ((active[:n_rows] == 0) & has_ones[:n_rows])
            | covered.any(axis=1)
        )
    )
    if not len(live):
        graph.pass_rounds(end - t)
        return end - t, False
    row_gains = bit_gains_by_row(per_row[live], rows[live], signed[live], active[live])
    row_set_gains = covered[live] * -signed[live][:, None]
    rounds, sums = sum_by_round(live, batch_size, row_gains, row_set_gains)
    gains, set_gains = (total + 0.0 for total in sums)  # no -0.0
    acts = drawn[rounds]
    table, n = graph.table, graph.n_vars
    scaled, set_scaled = stored_units(table, end - t, rounds, gains, set_gains)
    moves = bit_moves(table, n, acts, scaled)
    moves.append((table.rates[n + occupied, 0], set_scaled))
    n_live, used, moved = applied_rounds(moves, rounds, end - t)
    full_set_gains = np.zeros((n_live, graph.max_sets))
    full_set_gains[:, occupied] = set_gains[:n_live]
    graph.update_rounds(
        acts[:n_live],
        gains[:n_live],
        full_set_gains,
        played=rounds[:n_live],
        n_rounds=used,
    )
    return used, moved
