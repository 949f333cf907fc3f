"""Gaussian naive Bayes over every row learnt: a root model of the hedge.

River's Hoeffding tree predicts at a leaf with Gaussian naive Bayes over the
numeric features; on a linear concept (SEA) that model beats any small tree.
:class:`RootGaussian` keeps its statistics for the root (every row): per
class its weight, and per numeric column the weight, sum and sum of squares
of the known values, all discounted as the regret tables are (the model:
:mod:`~sklearn_localregret.engine.compiled.gaussian_nb`).
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.gaussian_nb import gaussian_learn, gaussian_posteriors

__all__ = ["RootGaussian"]


class RootGaussian:
    """Discounted Gaussian naive Bayes statistics of every row learnt.

    Parameters
    ----------
    n_classes, n_features : int
    discount : float
        Applied per ``batch_size`` rows (:meth:`learn` takes the factor).

    Examples
    --------
    >>> import numpy as np
    >>> model = RootGaussian(2, 1, 1.0)
    >>> model.learn(np.array([[0.0], [0.2], [5.0], [5.2]]), np.array([0, 0, 1, 1]),
    ...             np.ones(4), 1.0)
    >>> model.labels(np.array([[0.1], [4.9], [np.nan]])).tolist()
    [0, 1, 0]
    """

    def __init__(self, n_classes: int, n_features: int, discount: float):
        self.discount = float(discount)
        self.weight = np.zeros(n_classes)
        self.count = np.zeros((n_classes, n_features))
        self.total = np.zeros((n_classes, n_features))
        self.squares = np.zeros((n_classes, n_features))

    def learn(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray, decay: float):
        """Decay the statistics by ``decay``, then add rows ``X`` (NaN where
        missing) of classes ``y`` (indices) weighted ``weight``."""
        gaussian_learn(
            self.weight,
            self.count,
            self.total,
            self.squares,
            np.asarray(X, dtype=np.float64),
            np.asarray(y, dtype=np.int64),
            np.asarray(weight, dtype=np.float64),
            float(decay),
        )

    def proba(self, X: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        """The model's posterior of each class, shape (n, K) (the same for
        every class before any row). Missing values, columns outside
        ``columns`` (a bool mask; default all) and columns some class has no
        value of are left out."""
        X = np.asarray(X, dtype=np.float64)
        if columns is None:
            columns = np.ones(X.shape[1], dtype=bool)
        out = np.empty((X.shape[0], self.weight.shape[0]))
        gaussian_posteriors(
            self.weight, self.count, self.total, self.squares, X, columns, out
        )
        return out

    def labels(self, X: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        """The first most probable class of each row of ``X`` (indices; class
        0 before any row), from :meth:`proba`."""
        return np.argmax(self.proba(X, columns), axis=1)
