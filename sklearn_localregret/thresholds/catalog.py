"""The catalogue of threshold tests that have entered, numbered in order of entry."""

from __future__ import annotations

import numpy as np

from ..engine.saved_arrays import pack, unpack
from ._base import ThresholdSource

__all__ = ["ThresholdTests"]


class ThresholdTests:
    """Tests ``x_j > t`` numbered ``0, 1, ...`` in the order they entered.

    Wraps a :class:`ThresholdSource`: :meth:`observe` gives it each round's
    rows and appends what it proposes. A test's number never changes, so
    regrets, paths and trees can refer to tests by number while more arrive.

    Parameters
    ----------
    source : ThresholdSource
    n_features : int

    Attributes
    ----------
    feature : ndarray of int of shape (n_tests,)
        Feature of each test.
    threshold : ndarray of float of shape (n_tests,)
        Threshold of each test: the test is true when ``x[feature] > threshold``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.thresholds import FixedThresholds
    >>> tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    >>> tests.observe(np.array([[1.0, 0.0]]))
    2
    >>> tests.outcomes(np.array([[1.0, 0.0], [0.2, 3.0]]))
    array([[ True, False],
           [False,  True]])
    >>> tests.describe(1)
    (1, 0.5)
    """

    def __init__(self, source: ThresholdSource, n_features: int):
        self.source = source
        self.n_features = int(n_features)
        source.start(self.n_features)
        self.feature = np.zeros(0, dtype=np.intp)
        self.threshold = np.zeros(0)
        self._by_feature: list[list[int]] = [[] for _ in range(self.n_features)]

    # Saved packed; the tests of each feature are rebuilt from ``feature``.
    def __getstate__(self):
        state = self.__dict__.copy()
        state["feature"], state["threshold"] = pack(self.feature), pack(self.threshold)
        del state["_by_feature"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.feature, self.threshold = unpack(self.feature), unpack(self.threshold)
        if "_by_feature" not in state:
            self._by_feature = [[] for _ in range(self.n_features)]
            for test, j in enumerate(self.feature.tolist()):
                self._by_feature[j].append(test)

    @property
    def n_tests(self) -> int:
        return self.feature.shape[0]

    @property
    def complete(self) -> bool:
        """Whether no test will ever enter again."""
        return self.source.complete

    def observe(self, X: np.ndarray) -> int:
        """Let the source see one round's rows; returns how many tests entered."""
        if self.source.complete:
            return 0
        new = self.source.observe(X)
        if not new:
            return 0
        start = self.n_tests
        features, thresholds = zip(*new)
        self.feature = np.concatenate((self.feature, np.array(features, np.intp)))
        self.threshold = np.concatenate((self.threshold, np.array(thresholds, float)))
        for i, j in enumerate(features):
            self._by_feature[j].append(start + i)
        return len(new)

    def outcomes(self, X: np.ndarray) -> np.ndarray:
        """``out[r, v]``: whether row ``r`` passes test ``v`` (``x_j > t``)."""
        return np.asarray(X)[:, self.feature] > self.threshold

    def describe(self, test: int) -> tuple[int, float]:
        """``(feature, threshold)`` of a test."""
        return int(self.feature[test]), float(self.threshold[test])

    def tests_of(self, feature: int) -> list[int]:
        """Numbers of the tests on ``feature``, in order of entry."""
        return list(self._by_feature[feature])
