"""The catalogue of the tests that have entered, numbered in order of entry."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..engine.saved_arrays import pack, unpack
from ._base import ThresholdSource
from .category_codes import check_codes
from .growth_kernel import may_bring_tests
from .outcome_kernel import test_outcomes

__all__ = [
    "EQUALS",
    "GREATER",
    "GREATER_OR_MISSING",
    "N_KINDS",
    "ThresholdTests",
]

#: ``x_j > t``; a missing ``x_j`` fails it.
GREATER = 0
#: ``x_j > t or x_j is missing``: the same threshold, missing rows passing.
GREATER_OR_MISSING = 1
#: ``x_j == c`` on the code ``c`` of a category (categorical columns).
EQUALS = 2
#: Kinds of test: the compiled kernels take ``N_KINDS * feature + kind``.
N_KINDS = 3

# Rows up to which a column's new codes are found with a set (a streaming
# round's few rows), not numpy's sort.
_FEW_ROWS = 64


class ThresholdTests:
    """Tests on the columns of a row, numbered ``0, 1, ...`` in order of entry.

    Three kinds of test (:attr:`kind`):

    * ``GREATER``, ``x_j > t`` for the thresholds ``t`` a
      :class:`ThresholdSource` proposes on numeric columns; a missing value
      (NaN) fails it.
    * ``GREATER_OR_MISSING``, ``x_j > t or x_j is missing``: once column ``j``
      has shown a missing value, every threshold of ``j`` comes in both
      variants, so where missing rows go is chosen like any other split.
    * ``EQUALS``, ``x_j == c`` on categorical columns, whose values arrive as
      category codes (:class:`~sklearn_localregret.thresholds.ColumnEncoder`;
      NaN for a value without a code, which passes no such test): one test per
      code, entering in the round the code is first met.

    :meth:`observe` sees each round's rows before the round is played and
    appends what enters. A test's number never changes, so regrets, paths and
    trees refer to tests by number while more arrive.

    Parameters
    ----------
    source : ThresholdSource
        Proposes the thresholds of the numeric columns (it never sees the
        categorical ones).
    n_features : int

    Attributes
    ----------
    feature : ndarray of int of shape (n_tests,)
        Column of each test.
    threshold : ndarray of float of shape (n_tests,)
        Threshold ``t`` of each test, or the category code ``c`` of an
        ``EQUALS`` test.
    kind : ndarray of int8 of shape (n_tests,)
        ``GREATER``, ``GREATER_OR_MISSING`` or ``EQUALS``.

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

    A missing value in column 0 brings the variant of its test in which
    missing rows pass:

    >>> tests.observe(np.array([[np.nan, 1.0]]))
    1
    >>> tests.outcomes(np.array([[np.nan, 1.0]]))
    array([[False,  True,  True]])
    >>> tests.description(2)
    (0, 0.5, 'missing_passes')
    """

    def __init__(self, source: ThresholdSource, n_features: int):
        self.source = source
        self.n_features = int(n_features)
        source.start(self.n_features)
        self.feature = np.zeros(0, dtype=np.intp)
        self.threshold = np.zeros(0)
        self.kind = np.zeros(0, dtype=np.int8)
        # Columns that have shown a missing value (their thresholds are doubled).
        self.missing = np.zeros(self.n_features, dtype=bool)
        self._rebuild_index()

    def _rebuild_index(self) -> None:
        """The tests of each column, and which (column, code) have a test."""
        self._by_feature: list[list[int]] = [[] for _ in range(self.n_features)]
        for test, j in enumerate(self.feature.tolist()):
            self._by_feature[j].append(test)
        # _coded[j, c]: whether code c of column j has its equality test.
        self._coded = np.zeros((self.n_features, 0), dtype=bool)
        self._mark_coded(self.kind == EQUALS)
        self._feature_kind = N_KINDS * self.feature + self.kind
        self._thresholds_only = not self.kind.any()  # outcomes' common case

    def _mark_coded(self, tests: np.ndarray) -> None:
        """Record the equality tests among ``tests`` (a mask) in ``_coded``."""
        features = self.feature[tests]
        codes = self.threshold[tests].astype(np.intp)
        if codes.size and codes.max() >= self._coded.shape[1]:
            grown = np.zeros((self.n_features, 2 * codes.max() + 2), dtype=bool)
            grown[:, : self._coded.shape[1]] = self._coded
            self._coded = grown
        self._coded[features, codes] = True

    # Saved packed; the indexes are rebuilt from the arrays.
    def __getstate__(self):
        state = self.__dict__.copy()
        for name in ("feature", "threshold", "kind", "missing"):
            state[name] = pack(state[name])
        for name in (
            "_by_feature",
            "_coded",
            "_feature_kind",
            "_thresholds_only",
        ):
            del state[name]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.feature, self.threshold = unpack(self.feature), unpack(self.threshold)
        if "kind" in state:
            self.kind, self.missing = unpack(self.kind), unpack(self.missing)
        else:  # saved before missing values and categories
            self.kind = np.zeros(self.feature.shape[0], dtype=np.int8)
            self.missing = np.zeros(self.n_features, dtype=bool)
        self._rebuild_index()

    @property
    def n_tests(self) -> int:
        return self.feature.shape[0]

    @property
    def complete(self) -> bool:
        """Whether no threshold will be proposed again.

        Tests may still enter after: the missing-value variants of a column's
        thresholds (the round it first shows a missing value) and the tests of
        new categories. Their outcomes on the rows seen before they entered
        follow from the tests already there (:meth:`extend_outcomes`).
        """
        return self.source.complete

    @property
    def feature_kind(self) -> np.ndarray:
        """``N_KINDS * feature + kind`` of every test, as the kernels take it
        (read it only)."""
        return self._feature_kind

    # -- entering -----------------------------------------------------------
    def may_grow(self, X: np.ndarray, categorical: np.ndarray | None = None) -> bool:
        """Whether :meth:`observe` could add a test on some rows of ``X``.

        False only when it surely would not: the source is complete, and no
        row shows a numeric column's first missing value or a new category
        code (what a learner checks once per block of rounds).
        """
        if not self.source.complete:
            return True
        return self._brings_tests(X, categorical, self.missing)

    def _brings_tests(self, X, categorical, missing) -> bool:
        """:func:`may_bring_tests` on ``X``, its widths checked (the kernel
        reads ``categorical`` and ``missing`` by ``X``'s columns)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if categorical is None:
            categorical = np.zeros(self.n_features, dtype=bool)
        categorical = np.ascontiguousarray(categorical, dtype=bool)
        width = self.n_features
        if X.ndim != 2 or X.shape[1] != width or categorical.shape != (width,):
            raise ValueError(
                f"X has shape {X.shape} and the categorical mask "
                f"{categorical.shape}; the tests read {width} columns."
            )
        return may_bring_tests(X, categorical, missing, self._coded)

    def _new_codes(self, j: int, column: np.ndarray) -> list[float]:
        """The codes in ``column`` (column ``j``'s values) that have no
        equality test yet, increasing."""
        if column.shape[0] <= _FEW_ROWS:  # a round's: a set beats np.unique's sort
            coded = self._coded[j]
            width = coded.shape[0]
            fresh = {
                c
                for c in column.tolist()
                if c == c and (c >= width or not coded[int(c)])  # (c == c: not NaN)
            }
            return sorted(fresh)
        codes = np.unique(column[~np.isnan(column)])
        known = codes < self._coded.shape[1]
        known[known] = self._coded[j, codes[known].astype(np.intp)]
        return codes[~known].tolist()

    def observe(
        self, X: np.ndarray, categorical: np.ndarray | None = None, test_scores=None
    ) -> int:
        """Let one round's rows bring in tests; returns how many entered.

        In order: the missing-value variants of the thresholds of columns
        showing their first missing value, the source's new thresholds (both
        variants on a column that has shown a missing value), then the
        ``EQUALS`` tests of new category codes, in increasing code.

        Parameters
        ----------
        X : ndarray of shape (n_rows, n_features)
            The round's rows: numbers, NaN where missing, category codes in
            the categorical columns.
        categorical : ndarray of bool of shape (n_features,), default=None
            Which columns are categorical (none if None).
        test_scores : callable, default=None
            ``test_scores()`` scores every test (shape ``(n_tests,)``); a
            feature's score, the sum of its tests', ranks the features a
            source refines (``QuantileThresholds(refined_features=...)``).
            Called only when the source ranks.
        """
        if np.ndim(X) != 2 or np.shape(X)[1] != self.n_features:
            raise ValueError(
                f"X has shape {np.shape(X)}; the tests read {self.n_features} columns"
            )
        new: list[tuple[int, float, int]] = []
        if categorical is not None and not categorical.any():
            categorical = None
        if categorical is not None:
            check_codes(X[:, categorical])
        numeric = np.ones(self.n_features, dtype=bool)
        if categorical is not None:
            numeric &= ~categorical
        first_missing = numeric & ~self.missing & np.isnan(X).any(axis=0)
        for j in np.flatnonzero(first_missing).tolist():
            self.missing[j] = True
            for test in self._by_feature[j]:
                if self.kind[test] == GREATER:
                    new.append((j, float(self.threshold[test]), GREATER_OR_MISSING))
        if not self.source.complete:
            seen = X
            if not numeric.all():  # the source reads numeric columns only
                seen = np.where(numeric, X, np.nan)
            mask = None if categorical is None else numeric
            ranking = self._ranking(test_scores)
            for j, t in self.source.observe(seen, ranking, numeric=mask):
                if numeric[j]:
                    new.append((j, t, GREATER))
                    if self.missing[j]:
                        new.append((j, t, GREATER_OR_MISSING))
        if categorical is not None and self._brings_tests(
            X,
            categorical,
            np.ones(self.n_features, dtype=bool),  # codes only
        ):
            for j in np.flatnonzero(categorical).tolist():
                new.extend((j, c, EQUALS) for c in self._new_codes(j, X[:, j]))
        if not new:
            return 0
        start = self.n_tests
        features, thresholds, kinds = zip(*new)
        self.feature = np.concatenate((self.feature, np.array(features, np.intp)))
        self.threshold = np.concatenate((self.threshold, np.array(thresholds, float)))
        self.kind = np.concatenate((self.kind, np.array(kinds, np.int8)))
        for i, j in enumerate(features):
            self._by_feature[j].append(start + i)
        entered = np.zeros(self.n_tests, dtype=bool)
        entered[start:] = self.kind[start:] == EQUALS
        self._mark_coded(entered)
        self._feature_kind = N_KINDS * self.feature + self.kind
        self._thresholds_only = not self.kind.any()  # outcomes' common case
        return len(new)

    # -- reading -----------------------------------------------------------
    def _ranking(self, test_scores):
        """Feature scores from test scores, made only when called."""
        if test_scores is None:
            return None
        return lambda: np.bincount(
            self.feature, weights=test_scores(), minlength=self.n_features
        )

    def outcomes(self, X: np.ndarray) -> np.ndarray:
        """``out[r, v]``: whether row ``r`` passes test ``v``."""
        if sp.issparse(X):
            raise TypeError("outcomes reads dense rows (toarray() a sparse block)")
        X = np.asarray(X)
        if (
            X.dtype == np.float64
            and X.flags.c_contiguous
            and X.ndim == 2
            and X.shape[1] == self.n_features
        ):  # the rows rounds and predictions read: compiled, one pass
            out = np.empty((X.shape[0], self.n_tests), dtype=bool)
            test_outcomes(X, self._feature_kind, self.threshold, out)
            return out
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X has shape {X.shape}; the tests read {self.n_features} columns"
            )
        values = X[:, self.feature]
        out = values > self.threshold
        if not self._thresholds_only:
            equals = self.kind == EQUALS
            if equals.any():
                out[:, equals] = values[:, equals] == self.threshold[equals]
            passes = self.kind == GREATER_OR_MISSING
            if passes.any():
                out[:, passes] |= np.isnan(values[:, passes])
        return out

    def extend_outcomes(self, passes: np.ndarray) -> np.ndarray:
        """Outcomes of every test on rows of which ``passes`` has the first.

        The rows must have been seen before the tests beyond
        ``passes.shape[1]`` entered, and those tests must have entered after
        the source was complete: a missing-value variant entered in the round
        its column first showed a missing value, so on earlier rows it agrees
        with its threshold's ``GREATER`` test; an ``EQUALS`` test entered in
        the round its category was first met, so earlier rows fail it.

        Raises
        ------
        ValueError
            If a later test is a threshold, whose outcomes need the rows.
        """
        known = passes.shape[1]
        out = np.zeros((passes.shape[0], self.n_tests), dtype=bool)
        out[:, :known] = passes
        first = {}
        for test in range(known):
            if self.kind[test] == GREATER:
                first[(int(self.feature[test]), float(self.threshold[test]))] = test
        for test in range(known, self.n_tests):
            if self.kind[test] == EQUALS:
                continue
            key = (int(self.feature[test]), float(self.threshold[test]))
            if self.kind[test] != GREATER_OR_MISSING or key not in first:
                raise ValueError(
                    f"test {test} needs the rows' features: it entered as a "
                    "threshold, not as a variant or a category."
                )
            out[:, test] = passes[:, first[key]]
        return out

    def describe(self, test: int) -> tuple[int, float]:
        """``(feature, threshold)`` of a test (the code, for ``EQUALS``)."""
        return int(self.feature[test]), float(self.threshold[test])

    def description(self, test: int, category=None) -> tuple:
        """How :func:`~sklearn_localregret.locality.decision_tree.export_text`
        prints a test.

        ``(feature, threshold)`` for ``x_j > t`` on a column that never showed
        a missing value; else ``(feature, threshold, how)`` with ``how`` one
        of ``"missing_fails"``, ``"missing_passes"``, or ``(feature,
        category, "equals")`` with ``category`` as given (the value the code
        stands for; None for the missing category).
        """
        j, t = self.describe(test)
        kind = int(self.kind[test])
        if kind == EQUALS:
            return j, category, "equals"
        if kind == GREATER_OR_MISSING:
            return j, t, "missing_passes"
        return (j, t, "missing_fails") if self.missing[j] else (j, t)

    def tests_of(self, feature: int) -> list[int]:
        """Numbers of the tests on ``feature``, in order of entry."""
        return list(self._by_feature[feature])

    def missing_partners(self) -> np.ndarray:
        """``out[v]``: for a ``GREATER`` test ``v`` whose threshold also has its
        ``GREATER_OR_MISSING`` variant, that variant's number; -1 for every other test.
        What :meth:`~sklearn_localregret.engine.StumpRegretTable.pair_missing_variants`
        takes."""
        out = np.full(self.n_tests, -1, dtype=np.int64)
        variant = {}
        for test in np.flatnonzero(self.kind == GREATER_OR_MISSING).tolist():
            variant[(int(self.feature[test]), float(self.threshold[test]))] = test
        for test in np.flatnonzero(self.kind == GREATER).tolist():
            key = (int(self.feature[test]), float(self.threshold[test]))
            out[test] = variant.get(key, -1)
        return out

    def next_thresholds(self) -> np.ndarray:
        """``out[v]``: for a ``GREATER`` test ``v``, the ``GREATER`` test of
        the same column with the next larger threshold; -1 for every other
        test (and the largest threshold). The chains a column's thresholds
        make, read as one feature by the sites' naive Bayes models (what
        :meth:`~sklearn_localregret.engine.StumpRegretTable.chain_thresholds`
        takes; on a column with missing values, with the thresholds' pairs
        of variants, :meth:`missing_partners`).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret.thresholds import QuantileThresholds
        >>> source = QuantileThresholds(max_thresholds=3, first_checkpoint=4)
        >>> tests = ThresholdTests(source, n_features=1)
        >>> X = np.arange(16.0)[::-1, None]
        >>> for lo in range(0, 16, 4):
        ...     _ = tests.observe(X[lo : lo + 4])
        >>> tests.threshold, tests.next_thresholds()
        (array([13.5,  3.5, 11.5]), array([-1,  2,  0]))
        """
        out = np.full(self.n_tests, -1, dtype=np.int64)
        for j in range(len(self._by_feature)):
            chain = [v for v in self._by_feature[j] if self.kind[v] == GREATER]
            chain.sort(key=lambda v: float(self.threshold[v]))
            for lower, upper in zip(chain, chain[1:]):
                out[lower] = upper
        return out

    def label_groups(self) -> tuple[np.ndarray, np.ndarray]:
        """Groups of tests that every row passes as a prefix, and the ranks.

        The ``GREATER`` tests of a column in increasing threshold are passed as a
        prefix by every row (none by a missing value), and so are its
        ``GREATER_OR_MISSING`` tests (all of them by a missing value): one group
        each. An ``EQUALS`` test is a group of its own (a negative id). What
        :meth:`~sklearn_localregret.engine.HierarchicalLabels.group_tests` takes.
        """
        group = 2 * self.feature + (self.kind == GREATER_OR_MISSING)
        alone = self.kind == EQUALS
        group[alone] = -1 - np.flatnonzero(alone)
        return group.astype(np.int64), self.threshold.copy()
