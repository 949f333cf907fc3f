"""Gaussian naive Bayes over every row learnt: a root model of the hedge.

River's Hoeffding tree predicts at a leaf with Gaussian naive Bayes over the
numeric features; on a linear concept (SEA) that model beats any small tree.
:class:`RootGaussian` keeps its statistics for the root (every row): per
class its weight, and per numeric column the weight, sum and sum of squares
of the known values, all discounted as the regret tables are (the model:
:mod:`~sklearn_localregret.engine.compiled.gaussian_nb`), each column's
values taken from its first value learnt (:mod:`.root_shift`).
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.gaussian_nb import gaussian_learn, gaussian_posteriors
from .root_shift import first_values, sums_at

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
        # Each column's first value learnt, which the sums are taken from
        # (None until the first rows; absent in models saved before: 0).
        self.shift: np.ndarray | None = None

    def shifted(self, X) -> np.ndarray:
        """Rows ``X`` as the model reads them: less each column's first
        value learnt."""
        X = np.asarray(X, dtype=np.float64)
        shift = self.__dict__.get("shift")
        return X if shift is None else X - shift

    def sums_for(self, dst, names) -> dict:
        """This model's sums ``names`` taken from ``dst``'s first values (a
        merge adds them to ``dst``'s); ``dst`` takes this model's if it has
        none yet (it has learnt nothing)."""
        return sums_at(self, dst, names, self.shift_array(), dst.shift_array())

    def shift_array(self) -> np.ndarray:
        shift = self.__dict__.get("shift")
        return np.zeros(self.count.shape[1]) if shift is None else shift

    def learn(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray, decay: float):
        """Decay the statistics by ``decay``, then add rows ``X`` (NaN where
        missing) of classes ``y`` (indices) weighted ``weight``."""
        X = np.asarray(X, dtype=np.float64)
        if "shift" in self.__dict__ and self.shift is None and len(X):
            self.shift = first_values(X)
        gaussian_learn(
            self.weight,
            self.count,
            self.total,
            self.squares,
            self.shifted(X),
            np.asarray(y, dtype=np.int64),
            np.asarray(weight, dtype=np.float64),
            float(decay),
        )

    def proba(self, X: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        """The model's posterior of each class, shape (n, K) (the same for
        every class before any row). Missing values, columns outside
        ``columns`` (a bool mask; default all) and columns some class has no
        value of are left out."""
        X = self.shifted(X)
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
