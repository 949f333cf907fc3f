"""Progressive validation of any scikit-learn estimator with ``partial_fit``.

Progressive validation (also called prequential or test-then-train
evaluation) measures an online learner the way it is used: the stream is cut
into rounds of ``batch_size`` rows, and every round is first predicted by the
current model and only then learned with ``partial_fit``. Every prediction is
therefore made before the learner has seen that row's label, and the error
curve shows how the learner does *along* the stream, drift included.

:func:`progressive_score` works for any estimator with ``partial_fit`` and
``predict`` (the learners of this package, ``SGDClassifier``, ``GaussianNB``,
...). The stream leaderboard (``python -m sklearn_localregret streams``) runs
it over many streams and learners.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, column_or_1d

from ._checks import check_positive_int

__all__ = ["ProgressiveScore", "progressive_score"]


@dataclass
class ProgressiveScore:
    """Result of :func:`progressive_score`: the curves and their summary.

    Attributes
    ----------
    mistakes : ndarray of shape (n_rows,), dtype bool
        Whether the prediction made for each row, before it was learned, was
        wrong. Rows predicted before the estimator had learned anything count
        as mistakes.
    rows : ndarray of shape (n_rounds,)
        Rows seen at the end of each round (the x axis of the curves).
    windowed_error : ndarray of shape (n_rounds,)
        Error over the last ``window`` rows at the end of each round (over all
        rows so far while fewer than ``window`` have been seen).
    cumulative_error : ndarray of shape (n_rounds,)
        Error over all rows so far at the end of each round.
    batch_size : int
        Rows per round.
    window : int
        Rows in the window of ``windowed_error``.
    seconds : float
        Wall time spent in ``predict`` and ``partial_fit``.
    n_unpredicted : int
        Rows predicted before the estimator could predict (counted as
        mistakes).
    estimator : object
        The estimator, which has now learned the whole stream.
    """

    mistakes: np.ndarray
    rows: np.ndarray
    windowed_error: np.ndarray
    cumulative_error: np.ndarray
    batch_size: int
    window: int
    seconds: float
    n_unpredicted: int
    estimator: object = field(repr=False)

    @property
    def n_rows(self) -> int:
        """Rows in the stream."""
        return int(self.mistakes.shape[0])

    @property
    def error(self) -> float:
        """Error over the whole stream."""
        return float(np.mean(self.mistakes))

    @property
    def window_error(self) -> float:
        """Error over the last ``window`` rows of the stream."""
        return float(self.windowed_error[-1])

    @property
    def rows_per_second(self) -> float:
        """Rows predicted and learned per second of ``predict`` + ``partial_fit``."""
        return self.n_rows / self.seconds if self.seconds > 0 else float("inf")

    def summary(self) -> dict:
        """The scalar results, as a dict (e.g. one row of a table).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.naive_bayes import GaussianNB
        >>> X = np.random.default_rng(0).normal(size=(1000, 2))
        >>> result = progressive_score(GaussianNB(), X, (X[:, 0] > 0).astype(int),
        ...                            batch_size=10, window=200)
        >>> {k: v for k, v in result.summary().items() if "second" not in k}
        {'n_rows': 1000, 'error': 0.025, 'window_error': 0.01, 'n_unpredicted': 10}
        """
        return {
            "n_rows": self.n_rows,
            "error": self.error,
            "window_error": self.window_error,
            "n_unpredicted": self.n_unpredicted,
            "seconds": self.seconds,
            "rows_per_second": self.rows_per_second,
        }


def progressive_score(
    estimator,
    X,
    y,
    *,
    batch_size: int = 1,
    classes=None,
    window: int = 100,
) -> ProgressiveScore:
    """Test-then-train evaluation of an estimator over a stream, round by round.

    The rows are taken in order, ``batch_size`` at a time. Each round is
    predicted with ``estimator.predict`` and then learned with
    ``estimator.partial_fit`` (``classes`` is passed on the first call, as
    scikit-learn requires), so no row's label is seen before the row is
    predicted. The estimator is updated in place: afterwards it has learned
    the whole stream, as it would have in use.

    Parameters
    ----------
    estimator : object
        A classifier with ``partial_fit(X, y, classes=...)`` and ``predict``,
        fitted or not. Until it has learned something, ``predict`` raises
        :class:`~sklearn.exceptions.NotFittedError`, and those rows count as
        mistakes (the estimator had no prediction).
    X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_features)
        The stream's rows, in order. DataFrames keep their column names in
        every round.
    y : array-like of shape (n_rows,)
        Labels.
    batch_size : int, default=1
        Rows per round: predicted together, then learned together.
    classes : array-like, default=None
        Every label the stream can have, passed to the first ``partial_fit``;
        None means the estimator's ``classes_`` if it has learnt already,
        else the labels present in ``y``.
    window : int, default=100
        Rows in the moving window of ``windowed_error`` and ``window_error``.

    Returns
    -------
    ProgressiveScore
        The per-row mistakes, the windowed and cumulative error curves at the
        end of every round, the time spent, and the estimator.

    Raises
    ------
    TypeError
        If ``estimator`` has no ``partial_fit`` or ``predict``, or is a class.
    ValueError
        If the stream is empty, ``X`` and ``y`` differ in length, ``predict``
        returns the wrong number of labels, or ``batch_size`` or ``window`` is
        not a positive integer.

    See Also
    --------
    sklearn.model_selection.learning_curve : The offline counterpart.

    Notes
    -----
    River users evaluating row by row with dicts already have
    :func:`river.evaluate.progressive_val_score`; wrap our learners for it with
    :class:`~sklearn_localregret.river.RiverAdapter` (every ``learn_one`` is
    then exactly a ``partial_fit`` of one row, see the gallery example on
    River). Use this
    function for scikit-learn estimators on arrays, where predicting and
    learning a batch of rows per call is far cheaper than one call per row.

    ``seconds`` counts only the time inside ``predict`` and ``partial_fit``,
    so that learners compare on their own cost.

    Examples
    --------
    A stream whose concept flips halfway: the windowed error shows the
    learner recovering.

    >>> import numpy as np
    >>> from sklearn.linear_model import SGDClassifier
    >>> from sklearn_localregret.evaluate import progressive_score
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> y[1000:] = 1 - y[1000:]
    >>> result = progressive_score(SGDClassifier(random_state=0), X, y,
    ...                            batch_size=10, window=200)
    >>> round(result.error, 4), result.n_unpredicted  # the first round: unfitted
    (0.0555, 10)
    >>> result.rows[[99, 109, 119, 199]]
    array([1000, 1100, 1200, 2000])
    >>> result.windowed_error[[99, 109, 119, 199]].round(3)
    array([0.02, 0.11, 0.12, 0.02])
    """
    if isinstance(estimator, type):  # (its methods unbound: "missing self")
        raise TypeError(
            f"progressive_score needs an estimator, not the class "
            f"{estimator.__name__}: pass {estimator.__name__}()."
        )
    for method in ("partial_fit", "predict"):
        if not callable(getattr(estimator, method, None)):
            raise TypeError(
                f"progressive_score needs an estimator with partial_fit and "
                f"predict; {type(estimator).__name__} has no {method}."
            )
    batch_size = check_positive_int(batch_size, "batch_size")
    window = check_positive_int(window, "window")
    y = column_or_1d(y, warn=True)
    n_rows = _num_samples(X)
    if n_rows != y.shape[0]:
        raise ValueError(
            f"X and y have different numbers of rows: {n_rows} and {y.shape[0]}."
        )
    if n_rows == 0:
        raise ValueError("The stream is empty: X and y have no rows.")
    if classes is None:  # a fitted model's (a stretch may lack a class)
        classes = getattr(estimator, "classes_", None)
    if classes is None:
        classes = np.unique(y)

    if sp.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()  # COO, DIA, ...: no row slices
    mistakes = np.zeros(n_rows, dtype=bool)
    seconds = 0.0
    n_unpredicted = 0
    first_call = True
    for lo in range(0, n_rows, batch_size):
        hi = min(lo + batch_size, n_rows)
        X_round, y_round = _safe_indexing(X, slice(lo, hi)), y[lo:hi]
        start = time.perf_counter()
        try:
            predicted = estimator.predict(X_round)
        except NotFittedError:
            predicted = None
        seconds += time.perf_counter() - start
        if predicted is None:
            mistakes[lo:hi] = True
            n_unpredicted += hi - lo
        else:
            predicted = np.asarray(predicted)
            if predicted.shape != (hi - lo,):
                raise ValueError(
                    f"{type(estimator).__name__}.predict returned an array of "
                    f"shape {predicted.shape} for {hi - lo} rows: one label a "
                    "row is needed."
                )
            mistakes[lo:hi] = predicted != y_round
        start = time.perf_counter()
        if first_call:
            estimator.partial_fit(X_round, y_round, classes=classes)
            first_call = False
        else:
            estimator.partial_fit(X_round, y_round)
        seconds += time.perf_counter() - start

    rows = np.minimum(np.arange(batch_size, n_rows + batch_size, batch_size), n_rows)
    wrong_so_far = np.concatenate(([0], np.cumsum(mistakes)))
    first_in_window = np.maximum(rows - window, 0)
    windowed = (wrong_so_far[rows] - wrong_so_far[first_in_window]) / (
        rows - first_in_window
    )
    return ProgressiveScore(
        mistakes=mistakes,
        rows=rows,
        windowed_error=windowed,
        cumulative_error=wrong_so_far[rows] / rows,
        batch_size=batch_size,
        window=window,
        seconds=seconds,
        n_unpredicted=n_unpredicted,
        estimator=estimator,
    )
