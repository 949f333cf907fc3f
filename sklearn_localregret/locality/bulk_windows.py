"""What the two bulk disjunction players share: windows of rounds under one ``pi``.

:func:`~sklearn_localregret.locality.disjunct_rounds.play_disjunction_rounds`
(the hypercube) and
:func:`~sklearn_localregret.locality.removal_set_rounds.play_removal_set_rounds`
(removal sets) play zero-bias rounds the same way: draw a window of rounds
under the current ``pi``, score its rows at once, and apply every round up to
the first one whose update changes a positive regret ``R+`` (hence ``pi``);
the rounds after it were drawn under a stale ``pi`` and are drawn again. These
are the steps of that loop; each player adds its own colours.
"""

from __future__ import annotations

import numpy as np

from ..engine import RegretTable

__all__ = [
    "applied_rounds",
    "bit_gains_by_row",
    "bit_moves",
    "stored_units",
    "sum_by_round",
    "window_activity",
]


def window_activity(drawn, batch_size: int, rows):
    """Each row's action, its active literals and their count.

    ``drawn[r]`` is round ``r``'s action (one row of bits); every round has
    ``batch_size`` rows (the last may have fewer), ``rows`` are the window's
    rows as floats.

    Returns
    -------
    per_row, active_rows, active : ndarrays
        The action each row meets, ``rows * per_row`` and its row sums.

    Examples
    --------
    >>> import numpy as np
    >>> drawn = np.array([[1, 0], [0, 1]], dtype=bool)
    >>> per_row, _, active = window_activity(drawn, 2, np.ones((3, 2)))
    >>> per_row.astype(int).tolist(), active.tolist()
    ([[1, 0], [1, 0], [0, 1]], [1.0, 1.0, 1.0])
    """
    per_row = drawn if batch_size == 1 else np.repeat(drawn, batch_size, axis=0)
    per_row = per_row[: len(rows)]
    active_rows = rows * per_row
    return per_row, active_rows, active_rows.sum(axis=1)


def bit_gains_by_row(per_row, rows, signed, active) -> np.ndarray:
    """Each row's gain for every bit colour of its round's action.

    Adding ``k`` turns positive a row the action leaves negative (no active
    literal) that has ``x_k = 1``; removing ``k`` turns negative a row where
    ``k`` is the only active literal. ``signed`` is ``+w`` for a positive row,
    ``-w`` for a negative one.
    """
    return np.where(
        per_row,
        -(signed * (active == 1))[:, None] * rows,
        (signed * (active == 0))[:, None] * rows,
    )


def sum_by_round(live, batch_size: int, *by_row):
    """The rounds that hold the ``live`` rows, and each array summed by round.

    ``live`` are increasing row indices in the window; ``by_row`` arrays have
    one row per live row. No live rows: no rounds, and each array as it is
    (empty).

    Examples
    --------
    >>> import numpy as np
    >>> rounds, (sums,) = sum_by_round(np.array([0, 1, 5]), 2, np.ones((3, 1)))
    >>> rounds.tolist(), sums.ravel().tolist()
    ([0, 2], [2.0, 1.0])
    >>> rounds, (sums,) = sum_by_round(np.array([], dtype=int), 2, np.ones((0, 3)))
    >>> rounds.shape, sums.shape
    ((0,), (0, 3))
    """
    round_of = live // batch_size
    # np.add.reduceat cannot start a sum in an empty array.
    if batch_size == 1 or round_of.size == 0:
        return round_of, by_row
    starts = np.flatnonzero(np.r_[True, round_of[1:] != round_of[:-1]])
    return round_of[starts], tuple(np.add.reduceat(v, starts, axis=0) for v in by_row)


def stored_units(table: RegretTable, n_window: int, rounds, *gains):
    """Each round's gains in the table's stored units (times the round's scale).

    ``pi`` reads the stored rates, which carry a common discount factor; the
    scale of the ``i``-th of the ``n_window`` rounds about to be played is
    ``table.round_scales(n_window)[i]``. Undiscounted tables store true units.
    """
    if table.discount == 1.0:
        return gains
    scales = table.round_scales(n_window)[rounds][:, None]
    return tuple(g * scales for g in gains)


def bit_moves(table: RegretTable, n_bits: int, acts, scaled) -> list:
    """The bit colours' ``(start, moves)``: stored rates and each round's additions.

    Round ``r`` with action ``acts[r]`` adds its gain of bit ``k`` to colour
    ``(k, 1 - acts[r, k])``: column 1 where the bit is off, column 0 where on.
    """
    rates = table.rates
    return [
        (rates[:n_bits, 1], np.where(acts, 0.0, scaled)),
        (rates[:n_bits, 0], np.where(acts, scaled, 0.0)),
    ]


def applied_rounds(moves, rounds, n_window: int) -> tuple[int, int, bool]:
    """How many scored rounds to apply before ``pi`` moves.

    ``moves`` are ``(start, additions)`` pairs: colours' stored rates and the
    scored rounds' additions to them, one row per round of ``rounds`` (the
    window's rounds with a non-zero gain). A round changes ``pi`` when it
    changes a positive part ``max(R, 0)``.

    Returns
    -------
    n_scored : int
        Scored rounds to apply: up to and including the first that moves
        ``pi`` (all of them if none does).
    n_rounds : int
        Window rounds they span (every round of the window if none moves).
    moved : bool
        Whether the last applied round moved ``pi``.

    Examples
    --------
    >>> import numpy as np
    >>> start = np.array([0.0])
    >>> adds = np.array([[-1.0], [2.0], [1.0]])  # the second round crosses 0
    >>> applied_rounds([(start, adds)], np.array([1, 4, 6]), 8)
    (2, 5, True)
    """
    changed = np.zeros(len(rounds), dtype=bool)
    for start, additions in moves:
        path = np.maximum(np.cumsum(np.vstack([start, additions]), axis=0), 0.0)
        changed |= (path[1:] != path[:-1]).any(axis=1)
    if not changed.any():
        return len(rounds), n_window, False
    first = int(np.argmax(changed))
    return first + 1, int(rounds[first]) + 1, True
