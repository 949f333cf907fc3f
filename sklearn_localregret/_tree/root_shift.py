"""Where a root model's sums are taken from: each column's first value.

The Gaussian and linear root models keep, per column, the weight, sum and
sum of squares of the values they learnt, and read a variance as ``Q / N -
(S / N)**2``. On a column far from 0 for its spread (a time in
milliseconds: 1.7e12 give or take a minute) both terms are ~1e24 and their
difference, ~1e8, is lost to rounding: the models' posteriors became noise
and the hedge's best expert its worst (the tree's error on the stream of
``tests/test_root_shift.py``: 0.076 against 0.032 with the column near 0).
Sums of ``x - a``, ``a`` the column's first value, keep the variance as
exact as the data (the "shifted data" algorithm); every model reads ``x -
a`` and nothing else changes, as a Gaussian and a standardised linear
model do not move with their columns. ``a`` is set by the first rows a
model learns and stays; a model saved before has none (``a = 0``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["first_values", "recentred", "sums_at"]


def first_values(X: np.ndarray, fixed: np.ndarray | None = None) -> np.ndarray:
    """Each column's first value in ``X`` that is not NaN (0 where there is
    none, and in the columns ``fixed`` marks: category codes, whose values
    index one-hot slots)."""
    known = ~np.isnan(X)
    first = X[known.argmax(axis=0), np.arange(X.shape[1])]
    first = np.where(known.any(axis=0), first, 0.0)
    if fixed is not None:
        first = np.where(fixed, 0.0, first)
    return first


def recentred(count, total, squares, moved: np.ndarray) -> tuple:
    """Sums of ``x - a`` as sums of ``x - b``, ``moved = a - b`` per column
    (``count`` the weight of the values): ``S + N d`` and ``Q + 2 d S + N
    d**2``."""
    return (
        total + count * moved,
        squares + 2.0 * moved * total + count * moved * moved,
    )


def sums_at(model, dst, names, mine: np.ndarray, theirs: np.ndarray) -> dict:
    """``model``'s sums ``names`` (a merge adds them to ``dst``'s), moved
    from its first values ``mine`` to ``dst``'s ``theirs`` (the columns
    beyond them, one-hot slots, stay). ``dst`` takes ``model``'s first
    values if it has none yet (it has learnt nothing)."""
    if dst.__dict__.get("shift", 0) is None and model.__dict__.get("shift") is not None:
        dst.shift = mine.copy()
        theirs = mine
    values = {name: getattr(model, name) for name in names}
    if "total" in values and not np.array_equal(mine, theirs):
        moved = np.zeros(model.total.shape[-1])
        moved[: mine.shape[0]] = mine - theirs
        values["total"], values["squares"] = recentred(
            model.count, model.total, model.squares, moved
        )
    return values
