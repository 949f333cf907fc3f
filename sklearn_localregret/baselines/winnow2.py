"""Winnow2 (Littlestone, 1988): the classical online learner of disjunctions."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from .._base import BaseOnlineClassifier
from .._base.concurrency import reads_model

__all__ = ["Winnow2Classifier"]

# The range of a feature's weight (LARGEST_WEIGHT shared by the features).
SMALLEST_WEIGHT = 1e-300
LARGEST_WEIGHT = 1e300


class Winnow2Classifier(BaseOnlineClassifier):
    """Winnow2: multiplicative weights over boolean features, online.

    Keeps a weight ``w_i`` per feature (all 1 at first) and predicts the
    positive class ``classes_[1]`` when ``sum_i w_i x_i > threshold``. After a
    mistake on a positive row the weights of its active features are multiplied
    by ``alpha`` (promotion); after a mistake on a negative row they are divided
    by ``alpha`` (demotion). Rows are learned one at a time, in order.

    It is the disjunction baseline of the paper's section "Online Disjunct
    Learning": if some disjunction of ``k`` of the ``n`` features labels the
    stream, Winnow2 makes ``O(k log n)`` mistakes; otherwise its mistakes are
    bounded by the number of attribute errors of the best disjunction, which
    a stream like the "Winnow killer" makes large.

    Parameters
    ----------
    alpha : float, default=2.0
        Promotion / demotion factor, greater than 1. A mistake on a row of
        ``sample_weight`` ``w`` multiplies or divides by ``alpha**w``; the
        weights are kept within ``[1e-300, 1e300 / n_features]`` (reached
        only by weights in the hundreds or more), where a weight saturates.
    threshold : float or None, default=None
        The threshold ``theta`` (> 0); None means ``n_features / 2``.
    binarize : float or None, default=0.0
        Threshold for binarising the features (``x > binarize`` counts as 1),
        like :class:`~sklearn.naive_bayes.BernoulliNB`; None means the input
        must already be 0/1.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels; ``classes_[1]`` is the positive class.
    coef_ : ndarray of shape (n_features,)
        The feature weights ``w``.
    threshold_ : float
        The threshold in use.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during fit; only when ``X`` has string feature
        names.
    n_rounds_ : int
        Rows learned (one round per row).
    n_samples_seen_ : int
        Rows learned.
    n_online_mistakes_ : float
        Weight of the rows predicted wrongly before learning from them.
    online_error_ : float
        ``n_online_mistakes_`` divided by the rows seen.

    See Also
    --------
    sklearn_localregret.LocalRegretDisjunctClassifier : Local regret
        disjunction learner.
    sklearn.linear_model.Perceptron : Additive mistake-driven updates.

    Notes
    -----
    Deterministic. A row of weight ``s`` counts ``s`` mistakes and promotes or
    demotes by ``alpha ** s`` (zero weight: no update), so integer weights act
    like repeated rows when the prediction would not change in between. With
    ``alpha = 2`` and ``theta = n / 2`` on a stream labelled by a disjunction of
    ``k`` features: a relevant weight is never demoted and is no longer
    promoted once above ``theta`` (``k (log2 theta + 1)`` promotions at most),
    and every demotion removes more than ``theta / 2`` of the total weight that
    promotions add at most ``theta`` to, so the mistakes are fewer than
    ``3 k (log2 theta + 1) + 4``.

    References
    ----------
    N. Littlestone, "Learning quickly when irrelevant attributes abound: a new
    linear-threshold algorithm", Machine Learning 2(4), 1988.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.baselines.winnow2 import Winnow2Classifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(500, 8))
    >>> y = X[:, 2] | X[:, 5]
    >>> clf = Winnow2Classifier().fit(X, y)
    >>> bool(clf.n_online_mistakes_ < 20), clf.score(X, y)
    (True, 1.0)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 1, None, closed="neither")],
        "threshold": [Interval(Real, 0, None, closed="neither"), None],
        "binarize": [Interval(Real, None, None, closed="neither"), None],
    }

    # Winnow2 learns one row at a time: the shared plumbing's round size.
    batch_size = 1

    # A round reads the row's active features only: sparse input comes as CSR
    # blocks (never densified), so a pass costs the nonzeros, not the width.
    _accepts_sparse_blocks = True

    def __init__(self, *, alpha=2.0, threshold=None, binarize=0.0):
        self.alpha = alpha
        self.threshold = threshold
        self.binarize = binarize

    def _check_classes(self, classes: np.ndarray) -> None:
        self._require_binary(classes, "a threshold over boolean features")

    def _init_model(self, n_features: int, n_classes: int) -> None:
        self.coef_ = np.ones(n_features)
        self.threshold_ = (
            n_features / 2 if self.threshold is None else float(self.threshold)
        )

    def _play_rounds(self, X, y, weight) -> None:
        # A block of rows at a time (microseconds a row): readers in other
        # threads wait for it and see the weights of complete rounds.
        with self._model_lock():
            if len(self.classes_) == 1:
                self._count_rounds(weight, 0.0)
                return
            coef, threshold = self.coef_, self.threshold_
            alpha = float(self.alpha)
            # The weights stay within [SMALLEST_WEIGHT, LARGEST_WEIGHT / n]:
            # their sum finite, and never 0, where no promotion could lift a
            # weight again (alpha**w overflows past w ~ 1024 at alpha=2).
            low, high = SMALLEST_WEIGHT, LARGEST_WEIGHT / max(len(coef), 1)
            wrong = 0.0
            for active, label, w in zip(_active_features(X), y, weight):
                positive = coef[active].sum() > threshold
                if positive != (label == 1) and w > 0:
                    wrong += w
                    power = w if label == 1 else -w
                    with np.errstate(over="ignore", under="ignore"):
                        step = coef[active] * np.power(alpha, power)
                    if not (
                        step.min(initial=low) >= low and step.max(initial=0) <= high
                    ):
                        logs = np.log(coef[active]) + power * np.log(alpha)
                        step = np.exp(np.clip(logs, np.log(low), np.log(high)))
                    coef[active] = step
            self._count_rounds(weight, float(wrong))

    @reads_model
    def decision_function(self, X):
        """``coef_ @ x - threshold_``: positive means ``classes_[1]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Zeros when only one class was given.
        """
        X = self._validate_for_predict(X)
        if len(self.classes_) == 1:
            return np.zeros(X.shape[0])
        with self._model_lock():  # the weights of complete rounds
            scores = np.asarray(X @ self.coef_, dtype=np.float64).ravel()
            return scores - self.threshold_

    @reads_model
    def predict(self, X):
        """The class of each row: ``classes_[decision_function(X) > 0]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A linear threshold on one side: two classes (more raise a ValueError).
        tags.classifier_tags.multi_class = False
        # Winnow2 learns monotone threshold functions of the features: the
        # checks' binarised blobs, labelled "x1 <= 0", are not one, so it
        # cannot reach check_classifiers_train's 0.83 without this tag.
        tags.classifier_tags.poor_score = True
        return tags


def _active_features(X):
    """Each row's active features, in increasing order: its nonzero columns
    (a dense 0/1 block, or a canonical CSR one: sorted, distinct indices, so
    the sums run over the same weights in the same order either way)."""
    if not sp.issparse(X):
        yield from (np.flatnonzero(row) for row in X)
        return
    indptr, indices, data = X.indptr, X.indices, X.data
    for i in range(X.shape[0]):
        lo, hi = indptr[i], indptr[i + 1]
        yield indices[lo:hi][data[lo:hi] != 0]
