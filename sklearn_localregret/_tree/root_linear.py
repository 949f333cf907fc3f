"""A passive-aggressive linear model of every row learnt: a root model.

Where the concept is linear in the columns, or changes abruptly, an online
linear model that steps as far as each mistake needs beats a tree that must
regrow its splits: on the leaderboard's STAGGER and inverted streams
scikit-learn's passive-aggressive classifier on standardised features is
the best of every learner. :class:`RootLinear` keeps that model (PA-I, one
class against the rest; :mod:`~sklearn_localregret.engine.compiled.passive_aggressive`)
over the numeric columns of every row learnt, and the categorical ones read
one-hot, for the hedge to weigh.
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.passive_aggressive import (
    one_hot_columns,
    pa_learn,
    pa_posteriors,
)
from .root_shift import first_values, sums_at

__all__ = ["RootLinear"]


class RootLinear:
    """PA-I one-vs-rest on online-standardised columns.

    Parameters
    ----------
    n_classes, n_features : int
    C : float, default=1.0
        The largest step (scikit-learn's ``eta0`` for ``"pa1"``).
    categorical : array-like of bool of shape (n_features,), default=None
        The columns that hold category codes (``0, 1, ...``; NaN for a
        category unseen or past the bound). Each is read one-hot, over
        ``max_categories`` slots after the columns, as a ``OneHotEncoder``
        would give it; a code read as a number means nothing.
    max_categories : int, default=16
        Slots per categorical column (the learner's bound on its categories).

    Examples
    --------
    >>> import numpy as np
    >>> model = RootLinear(2, 2)
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0]] * 5)
    >>> model.learn(X, np.array([0, 1] * 5), np.ones(10))
    >>> model.labels(np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [0, 1]

    A column of codes: category 1 is the positive class, 0 and 2 are not
    (no order of the codes could say so).

    >>> model = RootLinear(2, 1, categorical=[True], max_categories=3)
    >>> codes = np.array([[0.0], [1.0], [2.0]] * 5)
    >>> model.learn(codes, np.array([0, 1, 0] * 5), np.ones(15))
    >>> model.labels(np.array([[0.0], [1.0], [2.0]])).tolist()
    [0, 1, 0]
    """

    def __init__(
        self,
        n_classes: int,
        n_features: int,
        C: float = 1.0,
        categorical=None,
        max_categories: int = 16,
    ):
        self.C = float(C)
        kinds = np.zeros(n_features, dtype=bool)
        if categorical is not None:
            kinds = np.asarray(categorical, dtype=bool)
        self.n_slots = int(max_categories)
        self.slot_start = np.where(
            kinds, (np.cumsum(kinds) - 1) * self.n_slots, -1
        ).astype(np.int64)
        width = n_features + int(kinds.sum()) * self.n_slots
        self.coef = np.zeros((n_classes, width))
        self.intercept = np.zeros(n_classes)
        # The inputs' known values (columns, then one-hot slots): weight,
        # sum, sum of squares.
        self.count = np.zeros(width)
        self.total = np.zeros(width)
        self.squares = np.zeros(width)
        # Each column's first value learnt, which the sums are taken from
        # (:mod:`.root_shift`; None until the first rows; absent in models
        # saved before: 0). Category codes stay as they are.
        self.shift: np.ndarray | None = None

    @classmethod
    def of_columns(cls, n_classes: int, columns) -> RootLinear:
        """The model of a learner's columns (its
        :class:`~sklearn_localregret.thresholds.columns.ColumnEncoder`):
        the columns categorical so far read one-hot."""
        return cls(
            n_classes,
            columns.n_features,
            categorical=columns.categorical,
            max_categories=columns.max_categories,
        )

    @property
    def n_features(self) -> int:
        """Columns of the rows it reads (before the one-hot slots)."""
        slots = self.__dict__.get("slot_start")  # (models saved before: none)
        return self.coef.shape[1] if slots is None else len(slots)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_last_mask", None)  # a cache (see _mask)
        return state

    def shift_array(self) -> np.ndarray:
        shift = self.__dict__.get("shift")
        return np.zeros(self.n_features) if shift is None else shift

    def sums_for(self, dst, names) -> dict:
        """This model's sums ``names`` taken from ``dst``'s first values (a
        merge adds them to ``dst``'s); ``dst`` takes this model's if it has
        none yet (it has learnt nothing)."""
        return sums_at(self, dst, names, self.shift_array(), dst.shift_array())

    def inputs(self, X, columns=None, learning: bool = False) -> tuple:
        """The rows and the mask of inputs the model reads: ``X`` and
        ``columns`` (default all), less each column's first value learnt,
        and for categorical columns their one-hot slots instead of the
        codes. ``learning``: rows it learns next (the first set its first
        values)."""
        X = np.asarray(X, dtype=np.float64)
        slots = self.__dict__.get("slot_start")
        if learning and "shift" in self.__dict__ and self.shift is None and len(X):
            codes = None if slots is None else slots >= 0
            self.shift = first_values(X, codes)
        shift = self.__dict__.get("shift")
        if shift is not None:
            X = X - shift
        one_hot = slots is not None and self.coef.shape[1] != self.n_features
        mask = self._mask(columns, slots if one_hot else None)
        if not one_hot:
            return X, mask
        rows = np.empty((X.shape[0], self.coef.shape[1]))
        one_hot_columns(X, slots, self.n_slots, rows)
        return rows, mask

    def _mask(self, columns, slots) -> np.ndarray:
        """:meth:`inputs`' mask of ``columns`` (one-hot ``slots`` after them
        if not None). The last one is kept for the next call with equal
        ``columns``: every round and prediction asks, with the same few."""
        mask = None if columns is None else np.ascontiguousarray(columns, dtype=bool)
        key = None if mask is None else mask.tobytes()
        last = self.__dict__.get("_last_mask")
        if last is not None and last[0] == key and last[2] is slots:
            return last[1]
        n = self.n_features
        if mask is None:
            mask = np.ones(n, dtype=bool)
        if slots is not None:
            full = np.ones(self.coef.shape[1], dtype=bool)
            full[:n] = mask & (slots < 0)
            mask = full
        self._last_mask = (key, mask, slots)
        return mask

    def learn(self, X, y, weight, columns=None, inputs=None) -> None:
        """Learn rows ``X`` (NaN where missing) of class indices ``y`` at
        ``weight``, from the columns where ``columns`` is true (default all);
        ``inputs``: :meth:`inputs` of ``X`` and ``columns``, if known."""
        rows, mask = self.inputs(X, columns, True) if inputs is None else inputs
        pa_learn(
            self.coef,
            self.intercept,
            self.count,
            self.total,
            self.squares,
            rows,
            np.asarray(y, dtype=np.int64),
            np.asarray(weight, dtype=np.float64),
            mask,
            self.C,
        )

    def proba(self, X, columns=None) -> np.ndarray:
        """Each class's probability, shape (n, K): ``expit`` of its score,
        normalised."""
        rows, mask = self.inputs(X, columns)
        out = np.empty((rows.shape[0], self.coef.shape[0]))
        pa_posteriors(
            self.coef,
            self.intercept,
            self.count,
            self.total,
            self.squares,
            rows,
            mask,
            out,
        )
        return out

    def labels(self, X, columns=None) -> np.ndarray:
        """The first most probable class of each row (from :meth:`proba`)."""
        return np.argmax(self.proba(X, columns), axis=1)

    def shape_error(self, n_classes: int, n_features: int) -> str | None:
        """What is wrong with its arrays for ``n_classes`` and ``n_features``
        (a loaded file's check), or None."""
        width = self.coef.shape[1] if self.coef.ndim == 2 else -1
        slots = np.asarray(self.__dict__.get("slot_start", np.full(width, -1)))
        n_cat = int((slots >= 0).sum())
        expected = n_features + n_cat * int(self.__dict__.get("n_slots", 0))
        sums = (self.count, self.total, self.squares)
        last_slot = slots.max(initial=-1) + self.__dict__.get("n_slots", 0)
        shift = self.__dict__.get("shift")
        if (
            self.coef.shape != (n_classes, expected)
            or slots.shape != (n_features,)
            or (shift is not None and np.shape(shift) != (n_features,))
            or self.intercept.shape != (n_classes,)
            or any(a.shape != (expected,) for a in sums)
            or (n_cat and last_slot > expected - n_features)
        ):
            return (
                f"the linear model's weights have shape {self.coef.shape} for "
                f"{n_classes} classes and {n_features} columns"
            )
        return None
