"""A passive-aggressive linear model of every row learnt: a root model.

Where the concept is linear in the columns, or changes abruptly, an online
linear model that steps as far as each mistake needs beats a tree that must
regrow its splits: on the leaderboard's STAGGER and inverted streams
scikit-learn's passive-aggressive classifier on standardised features is
the best of every learner. :class:`RootLinear` keeps that model (PA-I, one
class against the rest; :mod:`~sklearn_localregret.engine.compiled.passive_aggressive`)
over the numeric columns of every row learnt, for the hedge to weigh.
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.passive_aggressive import pa_learn, pa_posteriors

__all__ = ["RootLinear"]


class RootLinear:
    """PA-I one-vs-rest on online-standardised columns.

    Parameters
    ----------
    n_classes, n_features : int
    C : float, default=1.0
        The largest step (scikit-learn's ``eta0`` for ``"pa1"``).

    Examples
    --------
    >>> import numpy as np
    >>> model = RootLinear(2, 2)
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0]] * 5)
    >>> model.learn(X, np.array([0, 1] * 5), np.ones(10))
    >>> model.labels(np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [0, 1]
    """

    def __init__(self, n_classes: int, n_features: int, C: float = 1.0):
        self.C = float(C)
        self.coef = np.zeros((n_classes, n_features))
        self.intercept = np.zeros(n_classes)
        # The columns' known values: weight, sum, sum of squares.
        self.count = np.zeros(n_features)
        self.total = np.zeros(n_features)
        self.squares = np.zeros(n_features)

    def _columns(self, columns) -> np.ndarray:
        if columns is None:
            return np.ones(self.coef.shape[1], dtype=bool)
        return np.ascontiguousarray(columns, dtype=bool)

    def learn(self, X, y, weight, columns=None) -> None:
        """Learn rows ``X`` (NaN where missing) of class indices ``y`` at
        ``weight``, from the columns where ``columns`` is true (default all)."""
        pa_learn(
            self.coef,
            self.intercept,
            self.count,
            self.total,
            self.squares,
            np.asarray(X, dtype=np.float64),
            np.asarray(y, dtype=np.int64),
            np.asarray(weight, dtype=np.float64),
            self._columns(columns),
            self.C,
        )

    def proba(self, X, columns=None) -> np.ndarray:
        """Each class's probability, shape (n, K): ``expit`` of its score,
        normalised."""
        X = np.asarray(X, dtype=np.float64)
        out = np.empty((X.shape[0], self.coef.shape[0]))
        pa_posteriors(
            self.coef,
            self.intercept,
            self.count,
            self.total,
            self.squares,
            X,
            self._columns(columns),
            out,
        )
        return out

    def labels(self, X, columns=None) -> np.ndarray:
        """The first most probable class of each row (from :meth:`proba`)."""
        return np.argmax(self.proba(X, columns), axis=1)
