"""The last rows learnt: what a new site of the tree learner starts from."""

from __future__ import annotations

import numpy as np

__all__ = ["RecentRows"]


class RecentRows:
    """The last ``size`` rows learnt (features, labels, weights), a ring buffer.

    The tree learner's warm start reads it when a site is played for the first
    time (:class:`~sklearn_localregret.LocalRegretTreeClassifier`,
    ``warm_start``). Adding a row costs O(n_features); the memory is fixed.

    Parameters
    ----------
    size : int
        Rows kept (0 keeps none).
    n_features : int

    Examples
    --------
    >>> import numpy as np
    >>> window = RecentRows(3, n_features=1)
    >>> window.add(np.array([[1.0], [2.0]]), np.array([0, 1]), np.ones(2))
    >>> window.add(np.array([[3.0], [4.0]]), np.array([1, 0]), np.ones(2))
    >>> X, y, w = window.contents()
    >>> X.ravel(), y
    (array([2., 3., 4.]), array([1, 1, 0]))
    """

    def __init__(self, size: int, n_features: int):
        self.size = int(size)
        self._X = np.zeros((self.size, n_features))
        self._y = np.zeros(self.size, dtype=np.intp)
        self._w = np.zeros(self.size)
        self._count = 0  # rows ever added

    def add(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        """Append rows (the oldest drop out)."""
        if self.size == 0:
            return
        X, y, w = X[-self.size:], y[-self.size:], w[-self.size:]
        at = (self._count + np.arange(X.shape[0])) % self.size
        self._X[at], self._y[at], self._w[at] = X, y, w
        self._count += X.shape[0]

    def contents(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X, y, weight)`` of the rows kept, oldest first."""
        if self._count <= self.size:
            order = np.arange(self._count)
        else:
            order = (self._count + np.arange(self.size)) % self.size
        return self._X[order], self._y[order], self._w[order]
