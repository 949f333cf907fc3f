"""The last rows learnt: what a new site of the tree learner starts from."""

from __future__ import annotations

import numpy as np

from ..engine.saved_arrays import pack, unpack

__all__ = ["RecentRows"]


class RecentRows:
    """The last ``size`` rows learnt (features, labels, weights), a ring buffer.

    The features are kept until :meth:`forget_features` (no test will enter
    again): from then on only the rows' test outcomes are.

    The tree learner's warm start reads it when a site is played for the first
    time (:class:`~sklearn_localregret.LocalRegretTreeClassifier`,
    ``warm_start``). Adding a row costs O(n_features + n_tests); the memory is
    fixed. The rows' test outcomes are kept beside them, so that a warm start
    does not evaluate every test on every row again; they are recomputed only
    when tests enter (:meth:`outcomes`).

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
    >>> y, w = window.contents()
    >>> y
    array([1, 1, 0])
    >>> from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests
    >>> tests = ThresholdTests(FixedThresholds(2.5), n_features=1)
    >>> _ = tests.observe(np.array([[2.0], [3.0], [4.0]]))
    >>> window.outcomes(tests).ravel()
    array([False,  True,  True])
    >>> window.forget_features(tests)  # no test will enter: outcomes suffice
    >>> window.outcomes(tests).ravel()
    array([False,  True,  True])
    """

    def __init__(self, size: int, n_features: int):
        # The tree's warm_start=True, read as scikit-learn's flag (False, as
        # scikit-learn's checks set it, is 0 rows: no warm start).
        if size is True:
            raise ValueError(
                f"warm_start={size!r}: it is a number of rows (the recent rows "
                "a new site starts from, default 500), not scikit-learn's flag; "
                "partial_fit always learns on, and fit starts over."
            )
        self.size = int(size)
        # None once the features are forgotten (forget_features).
        self._X: np.ndarray | None = np.zeros((self.size, n_features))
        self._y = np.zeros(self.size, dtype=np.intp)
        self._w = np.zeros(self.size)
        self._passes = np.zeros((self.size, 0), dtype=bool)  # test outcomes
        self._count = 0  # rows ever added

    # Saved packed: outcomes as bits, labels in the smallest integer type.
    _PACKED = ("_X", "_y", "_w", "_passes")

    def __getstate__(self):
        state = self.__dict__.copy()
        for name in self._PACKED:
            if state[name] is not None:
                state[name] = pack(state[name])
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in self._PACKED:
            setattr(self, name, unpack(getattr(self, name)))

    def add(
        self,
        X: np.ndarray,
        y: np.ndarray,
        w: np.ndarray,
        passes: np.ndarray | None = None,
    ) -> None:
        """Append rows (the oldest drop out), with their test outcomes if known."""
        if self.size == 0:
            return
        # What would fail is refused before any slot is written.
        fits = passes is not None and passes.shape[1] == self._passes.shape[1]
        if not fits and self._X is None:
            raise ValueError(
                "rows without their outcomes once the features are forgotten "
                "(forget_features): give passes, after follow(tests) if tests "
                "entered"
            )
        if self._X is not None and X.shape[1:] != self._X.shape[1:]:
            raise ValueError(
                f"rows of {X.shape[1:]} features; the window keeps {self._X.shape[1:]}"
            )
        if not X.shape[0] == len(y) == len(w):
            raise ValueError(f"{X.shape[0]} rows, {len(y)} labels, {len(w)} weights")
        X, y, w = X[-self.size :], y[-self.size :], w[-self.size :]
        start = self._count % self.size
        if start + X.shape[0] <= self.size:  # no wrap: a slice (most rounds)
            at: slice | np.ndarray = slice(start, start + X.shape[0])
        else:
            at = (self._count + np.arange(X.shape[0])) % self.size
        self._y[at], self._w[at] = y, w
        if self._X is not None:
            self._X[at] = X
        if passes is not None and fits:
            self._passes[at] = passes[-self.size :]
        else:  # stale from now on: recomputed by the next outcomes()
            self._passes = np.zeros((self.size, 0), dtype=bool)
        self._count += X.shape[0]

    def forget_features(self, tests) -> None:
        """Keep only the test outcomes of the rows, not their features.

        Call it once no threshold will enter again (``tests.complete``): the
        features only serve to evaluate new tests, and the tests that may
        still enter (missing-value variants, categories) have outcomes on
        the rows kept that follow from the others' (:meth:`follow`). Saves
        the window's largest array (in memory and in a saved model).
        """
        if self._X is not None:
            self.outcomes(tests)
            self._X = None

    def follow(self, tests) -> None:
        """Take in the tests that just entered, before the round's rows are
        added: once the features are forgotten, their outcomes on the rows
        kept come from
        :meth:`~sklearn_localregret.thresholds.ThresholdTests.extend_outcomes`.
        (With the features kept, nothing to do: outcomes are recomputed when
        read.)"""
        if self._X is None and self._passes.shape[1] != tests.n_tests:
            self._passes = tests.extend_outcomes(self._passes)

    def _current(self, tests) -> np.ndarray:
        """The stored outcomes, brought up to ``tests``."""
        if self._passes.shape[1] != tests.n_tests:
            if self._X is None:
                self._passes = tests.extend_outcomes(self._passes)
            else:
                self._passes = tests.outcomes(self._X)
        return self._passes

    def _order(self) -> np.ndarray:
        if self._count <= self.size:
            return np.arange(self._count)
        return (self._count + np.arange(self.size)) % self.size

    def contents(self) -> tuple[np.ndarray, np.ndarray]:
        """``(y, weight)`` of the rows kept, oldest first."""
        order = self._order()
        return self._y[order], self._w[order]

    def ring(self, tests) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The buffers themselves and the order to read them in, oldest first.

        ``(outcomes, y, weight, order)``: row ``order[i]`` of each buffer is the
        ``i``-th row kept (what :meth:`contents` and :meth:`outcomes` return,
        without their copies). Read them only: the next :meth:`add` writes
        them.
        """
        return self._current(tests), self._y, self._w, self._order()

    def outcomes(self, tests) -> np.ndarray:
        """Outcomes of every test of ``tests`` on the rows kept, oldest first.

        ``tests`` is the :class:`~sklearn_localregret.thresholds.ThresholdTests`
        of the learner; after tests entered, all rows are evaluated again.
        """
        return self._current(tests)[self._order()]
