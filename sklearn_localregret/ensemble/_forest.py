"""LocalRegretForestClassifier: online bagging of local-regret trees."""

from __future__ import annotations

from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import BaseOnlineClassifier, rounds
from .._column_reading import ReadsColumns
from .._hedge import PLAY_HANDICAP, AdaHedge
from .._random import check_generator, generator_key
from .._tree_classifier import LocalRegretTreeClassifier
from .._weights import MAX_WEIGHT
from ..engine.compiled.row_uniforms import row_uniforms
from ..thresholds.columns import ColumnEncoder
from ._bagging import draw_subspaces, poisson_weights, subspace_encoder, subspace_size
from ._combination import (
    draw_classes,
    expert_losses,
    mixture_proba,
    prediction_distribution,
)
from ._drift import DRIFT_DETECTORS, make_detector, next_seed, round_of_drift
from ._threads import map_in_threads, n_threads

__all__ = ["LocalRegretForestClassifier"]

# The tree parameters a forest passes to its members, as they are.
_TREE_PARAMS = (
    "L",
    "bias",
    "max_thresholds",
    "warm_start",
    "max_depth",
    "n_mcmc_steps",
    "predict_tolerance",
    "discount",
    "max_categories",
)


def _coded_by(member, encoder: ColumnEncoder):
    """A member's ``_encode_columns`` for rows the forest has coded: they are
    read as they are, and the member keeps ``encoder`` as its own."""

    def encode_columns(X, *, learning: bool, first_call: bool = False, names=None):
        if learning:
            member._columns = encoder
        return X

    return encode_columns


# Rows below which a prediction asks the members one after the other: a
# thread pool's hand-over costs more than a few rows' walks.
_PARALLEL_PREDICT_ROWS = 256


class LocalRegretForestClassifier(ReadsColumns, BaseOnlineClassifier):
    """Online bagging of local-regret trees, combined with a regret guarantee.

    ``n_estimators`` :class:`~sklearn_localregret.LocalRegretTreeClassifier`
    members learn the stream, each on its own random subset of the columns
    (chosen at the first fit, ``max_features``) and with each row weighted by
    its ``sample_weight`` times a Poisson(``lambda_value``) draw (online
    bagging, as River's adaptive random forest does). Each member forgets as
    the tree does (``discount``) and is replaced by a fresh tree when a drift
    detector on its own mistakes fires (``drift_detector``). Missing values
    and categorical columns are read as the tree reads them. The forest
    predicts with AdaHedge over ``n_estimators + 1`` experts: its *vote* (the
    class the members' mean probability favours) and each member's own
    hedged prediction, all scored on each round's rows before the members
    learn it (test-then-train). Its
    expected mistakes exceed the best expert's by at most
    :attr:`combination_regret_bound_` (plus a handicap of 10 rows against
    the members; the user guide, "The forest").

    Parameters
    ----------
    n_estimators : int, default=10
        Number of member trees.
    max_features : {"sqrt", "log2"}, int, float or None, default=None
        Columns each member sees, counted as scikit-learn's forests count
        them for a split: ``"sqrt"`` and ``"log2"`` of the number of
        features, an int as is, a float in (0, 1] as that fraction, None all
        of them; at least one. Here they are fixed per member for the whole
        stream (the random subspace method), not drawn at each split as in
        ARF, so a member without an informative column never sees it. The
        default, all columns, was chosen by ``benchmarks/bench_forest.py``:
        ``"sqrt"`` and ``0.5`` lost by 0.06 to 0.13 on the streams of 2 to 9
        features (Bananas, SEA, STAGGER, Agrawal) and won by at most 0.02 on
        Phishing and ImageSegments.
    lambda_value : float, default=6.0
        Rate of the Poisson draws that weigh each row for each member (ARF's
        and leveraging bagging's 6; 1 is Oza's online bagging, whose members
        skip a third of the rows). 6 was lower than or level with 1 on 5 of
        6 streams of ``benchmarks/bench_forest.py``.
    drift_detector : {"adwin"} or None, default="adwin"
        A detector per member, fed with the member's 0/1 loss on each row
        (of positive weight) before it learnt it: ``"adwin"`` is ADWIN with
        ``delta=0.001`` (ARF's), acting only when the error rises. When it
        fires, the member is replaced, after that round, by a fresh tree.
        None: the members only forget (``discount``). Changed between calls
        (``set_params``), it starts the detection (with empty windows) or
        stops it. On
        ``benchmarks/bench_forest.py`` the detectors lowered the error on
        STAGGER, ``inverted``, LED with drift and Agrawal and changed nothing
        on the stationary streams, where they never fired (the user guide,
        "The forest").
    batch_size : int, default=5
        Rows per round, of the forest and of every member.
    binarize, L, bias, max_thresholds, warm_start, max_depth, n_mcmc_steps, \
predict_tolerance, discount, max_categories
        Passed to every member: see
        :class:`~sklearn_localregret.LocalRegretTreeClassifier`. The members
        learn local external regret and predict with their hedge.
    n_jobs : int or None, default=None
        Threads the members learn (and predict large inputs) in; None is 1,
        -1 all cores. The members' kernels release the GIL. The model is the
        same for every ``n_jobs``.
    random_state : int, Generator, RandomState instance or None, default=None
        Seeds the subspaces, each member's seed and bagging draws, and the
        forest's randomised predictions.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features, when ``X`` had string column names.
    estimators_ : list of LocalRegretTreeClassifier
        The members, each fitted on its columns ``estimators_features_[k]``.
    estimators_features_ : list of ndarray of int
        The columns each member reads, sorted.
    n_drifts_ : ndarray of int of shape (n_estimators,)
        How many times each member was replaced on a detected drift.
    categories_ : list of length ``n_features_in_``
        For a categorical column, its categories in the order of their codes
        (None for the missing value); None for a numeric column.
    n_rounds_ : int
        Rounds learnt.
    n_samples_seen_ : int
        Rows seen.
    n_online_mistakes_ : float
        The forest's expected mistakes (sample weight) over the rounds
        learnt, each round predicted before it was learnt.
    combination_weights_ : ndarray of shape (n_estimators + 1,)
        The hedge's weights: the vote's first, then each member's.
    combination_losses_ : ndarray of shape (n_estimators + 1,)
        The experts' cumulative losses, the members' handicap included.
    combination_regret_bound_ : float
        ``2 Delta``: the forest's expected mistakes minus any expert's
        loss (:attr:`combination_losses_`) are at most this.

    See Also
    --------
    LocalRegretTreeClassifier : One member.
    river.forest.ARFClassifier : Adaptive random forest of Hoeffding trees.

    Notes
    -----
    **Prediction.** :meth:`predict` draws each row's class from the mixture of
    the experts' predictions, with a uniform that is a function of the row,
    ``random_state`` and ``n_rounds_`` (the same answer every time, alone or
    in a batch). While the vote carries all the weight (from the start, and
    on stationary streams) it is the vote, the argmax of
    :meth:`predict_proba`. :meth:`predict_proba` mixes the members'
    probabilities by the hedge's weights, the vote's weight spread evenly
    over the members.

    **Cost.** A round costs about ``n_estimators`` member rounds (each on
    its columns). The members learn each call's rows in one pass each, in
    ``n_jobs`` threads; the combination then scores the recorded rounds.

    **Drift.** A replaced member is a new expert in its slot of the
    combination: the slot's loss goes on with the new tree's predictions,
    and the combination's bound holds against each slot's actual sequence of
    predictions (a replacement decided in a round first predicts in the
    next). The fresh tree's own local-regret guarantee starts from its first
    round.

    **Zero weights.** A row whose Poisson draw is 0 is learnt by that member
    with weight 0: it changes no regret, so the member's rounds stay aligned
    with the forest's (and it still counts for the member's thresholds).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret import LocalRegretForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 4))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> forest = LocalRegretForestClassifier(n_estimators=5, random_state=0)
    >>> forest = forest.fit(X, y)
    >>> forest.n_rounds_, len(forest.estimators_)
    (200, 5)
    >>> round(forest.online_error_, 3)
    0.129

    The vote has led all along: ``predict`` is the argmax of ``predict_proba``.

    >>> forest.combination_weights_.tolist()
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    >>> forest.predict_proba(X[:2]).round(2)
    array([[0.75, 0.25],
           [0.27, 0.73]])
    >>> forest.predict(X[:2])
    array([0, 1])

    When the concept inverts, each member's detector sees its error rise and
    the member is replaced by a fresh tree, which learns the new concept.

    >>> forest.n_drifts_.tolist()
    [0, 0, 0, 0, 0]
    >>> forest = forest.partial_fit(X, 1 - y)
    >>> forest.n_drifts_.tolist(), forest.estimators_[0].n_samples_seen_
    ([1, 1, 1, 1, 1], 975)
    """

    _parameter_constraints: dict = {
        **BaseOnlineClassifier._parameter_constraints,
        **{
            name: LocalRegretTreeClassifier._parameter_constraints[name]
            for name in _TREE_PARAMS
        },
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            StrOptions({"sqrt", "log2"}),
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            None,
        ],
        "lambda_value": [Interval(Real, 0, None, closed="neither")],
        "drift_detector": [StrOptions(set(DRIFT_DETECTORS)), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    # The members read real values (their threshold tests).
    _block_dtype = np.float64
    # Missing values and categories as the tree reads them (ReadsColumns);
    # each member gets its columns' part of the forest's encoder.

    def __init__(
        self,
        n_estimators=10,
        *,
        max_features=None,
        lambda_value=6.0,
        drift_detector="adwin",
        batch_size=5,
        binarize=None,
        L=100,
        bias=None,
        max_thresholds=7,
        warm_start=500,
        max_depth=None,
        n_mcmc_steps=200,
        predict_tolerance=0.0,
        discount=0.99,
        max_categories=16,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.lambda_value = lambda_value
        self.drift_detector = drift_detector
        self.batch_size = batch_size
        self.binarize = binarize
        self.L = L
        self.bias = bias
        self.max_thresholds = max_thresholds
        self.warm_start = warm_start
        self.max_depth = max_depth
        self.n_mcmc_steps = n_mcmc_steps
        self.predict_tolerance = predict_tolerance
        self.discount = discount
        self.max_categories = max_categories
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- model ------------------------------------------------------------
    def _encode_features(self, X):
        # Real values are kept: the members' threshold tests read them.
        return X

    def _blas_context(self):
        # The members learn and predict in compiled kernels: no BLAS.
        return nullcontext()

    def _start_stream(self) -> None:
        self._rng = check_generator(self.random_state)
        # Keys the uniforms of predict, read without drawing.
        self._prediction_key = generator_key(self._rng)

    def _init_model(self, n_features: int, n_classes: int) -> None:
        rng, k = self._rng, self.n_estimators
        size = subspace_size(self.max_features, n_features)
        self.estimators_features_ = draw_subspaces(rng, n_features, size, k)
        seeds = rng.integers(2**32, size=(2, k))  # the trees' random_state range
        self.estimators_ = [self._new_member(int(seed)) for seed in seeds[0]]
        self._bagging_rngs = [np.random.default_rng(int(s)) for s in seeds[1]]
        self._detectors = [make_detector(self.drift_detector) for _ in range(k)]
        self.n_drifts_ = np.zeros(k, dtype=np.int64)
        # Experts: the vote, then each member (handicapped: see _combination).
        self._hedge = AdaHedge([0.0] + [PLAY_HANDICAP] * k)

    def _new_member(self, seed: int) -> LocalRegretTreeClassifier:
        params = {name: getattr(self, name) for name in _TREE_PARAMS}
        return LocalRegretTreeClassifier(
            "external",
            batch_size=self.batch_size,
            binarize=self.binarize,
            prediction="hedge",
            random_state=seed,
            **params,
        )

    def _member_columns(self) -> list[ColumnEncoder]:
        """Each member's part of the forest's encoder (remade when it changes:
        a column typed, a category coded; read by the learning thread)."""
        if self.__dict__.get("_member_columns_of") is not self._columns:
            self._member_encoders = [
                subspace_encoder(self._columns, columns)
                for columns in self.estimators_features_
            ]
            self._member_columns_of = self._columns
        return self._member_encoders

    # -- persistence ------------------------------------------------------
    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: never the live __dict__
        state.pop("_member_encoders", None)  # remade from _columns
        state.pop("_member_columns_of", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "max_categories" not in state:  # saved before categories
            self.max_categories = 16
            if "n_features_in_" in state:
                self._columns = ColumnEncoder.numeric(self.n_features_in_)
        if "drift_detector" not in state:  # saved before drift detection
            self.drift_detector = None
            if "estimators_" in state:
                self._detectors = [None] * len(self.estimators_)
                self.n_drifts_ = np.zeros(len(self.estimators_), dtype=np.int64)

    # -- learning -----------------------------------------------------------
    def _map_members(self, task, n_rows: int) -> list:
        """``[task(k) for k in members]``, in threads when it pays."""
        size = n_threads(self.n_jobs, self.n_estimators) if n_rows > 1 else 1
        return map_in_threads(task, self.n_estimators, size)

    def _learn_member(self, k: int, X, y, weight) -> list:
        """Member ``k`` learns the block; its rounds' ``(proba, vote weight)``
        before each was learnt (the recorder in ``_score_predictions``).

        With a drift detector, the member's rounds feed it; if it fires in a
        round, the member is replaced after that round by a fresh one, which
        learns the block's later rounds (the old member's learning of them
        is dropped: a detection costs at most one block of extra learning).
        """
        columns = self._columns_of(X, k)
        bagged = poisson_weights(
            self._bagging_rngs[k], float(self.lambda_value), weight, MAX_WEIGHT
        )
        batch, start = self.batch_size, 0
        records: list = []
        while True:
            part = self._learn_rows(k, columns[start:], y[start:], bagged[start:])
            detector = self._detector(k)
            drift = None
            if detector is not None:
                drift = round_of_drift(detector, part, y[start:], weight[start:], batch)
            if drift is None:
                return records + part
            records += part[: drift + 1]
            start += (drift + 1) * batch
            self._replace_member(k)
            if start >= len(y):
                return records

    def _columns_of(self, X: np.ndarray, k: int) -> np.ndarray:
        """Member ``k``'s columns of ``X`` (``X`` itself when it has them all,
        the default: no copy per member)."""
        features = self.estimators_features_[k]
        if len(features) == X.shape[1]:  # sorted and distinct: all, in order
            return np.ascontiguousarray(X)
        return np.ascontiguousarray(X[:, features])

    def _detector(self, k: int):
        """Member ``k``'s detector as ``drift_detector`` now says (set_params
        between calls starts or stops the detection; a new one starts empty)."""
        if self.drift_detector is None:
            self._detectors[k] = None
        elif self._detectors[k] is None:
            self._detectors[k] = make_detector(self.drift_detector)
        return self._detectors[k]

    def _replace_member(self, k: int) -> None:
        """A fresh member and detector in slot ``k`` (a detected drift)."""
        self.estimators_[k] = self._new_member(
            next_seed(self.estimators_[k].random_state)
        )
        self._detectors[k] = make_detector(self.drift_detector)
        self.n_drifts_[k] += 1

    def _learn_rows(self, k: int, columns, y, bagged) -> list:
        """Member ``k`` learns rows of its columns weighted ``bagged``; its
        rounds' records."""
        member = self.estimators_[k]
        encoder = self._member_columns()[k]
        records: list = []
        member._round_recorder = lambda proba, vote: records.append((proba, vote))
        try:
            if not self._fitted(k):
                # Its first call (the rows validated here already). scikit-learn
                # refuses weights that are all 0, so the rounds before its first
                # weighed row are skipped: an unfitted member predicts what a
                # fresh one does in its first round, classes_[0] by its vote.
                weighed = np.flatnonzero(bagged)
                if not weighed.size:
                    batch = self.batch_size
                    return [
                        self._fresh_record(min(batch, len(y) - lo))
                        for lo in range(0, len(y), batch)
                    ]
                start = weighed[0] - weighed[0] % self.batch_size
                records += [self._fresh_record(self.batch_size)] * (
                    start // self.batch_size
                )
                # The rows are coded already: the member takes its part of the
                # forest's encoder instead of typing the columns itself.
                member._encode_columns = _coded_by(member, encoder)  # type: ignore[method-assign]
                member.partial_fit(
                    columns[start:],
                    self.classes_[y[start:]],
                    self.classes_,
                    sample_weight=bagged[start:],
                )
            else:
                member._columns = encoder  # a column typed, a category coded
                # Rows validated by the forest (skips ~0.6 ms of checks a call).
                member._learn(columns, y, bagged)
        finally:
            del member._round_recorder
            member.__dict__.pop("_encode_columns", None)
        return records

    def _fitted(self, k: int) -> bool:
        """Whether member ``k`` has had a row of positive weight."""
        return getattr(self.estimators_[k], "classes_", None) is not None

    def _fresh_record(self, n_rows: int) -> tuple:
        """A fresh member's round: its vote, classes_[0], for every row."""
        proba = np.zeros((n_rows, len(self.classes_)))
        proba[:, 0] = 1.0
        return proba, 1.0

    def _play_rounds(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> None:
        # The members learn the whole block (independently, so in any order
        # or thread); then the combination scores its rounds one by one, each
        # on what the members predicted before they learnt it.
        n_rows, batch = X.shape[0], self.batch_size
        with self._model_lock():  # readers see complete blocks
            self._member_columns()  # made here, read by the members' threads
            records = self._map_members(
                lambda k: self._learn_member(k, X, y, weight), n_rows
            )
            hedge = self._hedge
            start = hedge.hedge_loss
            for r, lo in enumerate(range(0, n_rows, batch)):
                rows = slice(lo, lo + batch)
                probas = np.stack([member[r][0] for member in records])
                votes = np.array([member[r][1] for member in records])
                hedge.update(expert_losses(probas, votes, y[rows], weight[rows]))
            self._count_rounds(weight, hedge.hedge_loss - start)

    # -- prediction ----------------------------------------------------------
    def _dense_blocks(self, X):
        chunk = rounds.DENSE_CHUNK_ROWS  # read here: tests shrink it
        for lo in range(0, X.shape[0], chunk):
            block = X[lo : lo + chunk]
            if sp.issparse(block):
                block = block.toarray()
            yield np.ascontiguousarray(block, dtype=np.float64)

    def _member_probas(self, block: np.ndarray) -> np.ndarray:
        """The members' probabilities of the rows: (n_members, n_rows, n_classes)."""

        def proba(k: int) -> np.ndarray:
            if not self._fitted(k):
                return self._fresh_record(block.shape[0])[0]
            columns = self._columns_of(block, k)
            # Validated by the forest: the members' own walk, no checks.
            return self.estimators_[k]._predict_proba_checked(columns)

        n = block.shape[0] if block.shape[0] >= _PARALLEL_PREDICT_ROWS else 1
        return np.stack(self._map_members(proba, n))

    def predict_proba(self, X):
        """The members' class probabilities, mixed by the combination's weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return self._predict_proba_checked(self._validate_for_predict(X))

    def _predict_proba_checked(self, X) -> np.ndarray:
        out = []
        for block in self._dense_blocks(X):
            with self._model_lock():
                probas = self._member_probas(block)
                weights = self._hedge.weights()
            out.append(mixture_proba(probas, weights))
        return out[0] if len(out) == 1 else np.vstack(out)

    def predict(self, X):
        """Classes drawn from the combination: the vote while it leads.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        return self.classes_[self._predicted_indices(X)]

    def _predicted_indices(self, X) -> np.ndarray:
        check_is_fitted(self)
        out = []
        for block in self._dense_blocks(X):
            with self._model_lock():
                probas = self._member_probas(block)
                weights = self._hedge.weights()
                votes = np.array(
                    [
                        m._vote_weight() if self._fitted(k) else 1.0
                        for k, m in enumerate(self.estimators_)
                    ]
                )
                key = self._prediction_key ^ (self.n_rounds_ * 0x9E3779B97F4A7C15)
            if weights[0] >= 1.0:
                out.append(np.argmax(probas.mean(axis=0), axis=1))
                continue
            q = prediction_distribution(probas, votes, weights)
            out.append(draw_classes(q, row_uniforms(block, key)))
        return out[0] if len(out) == 1 else np.concatenate(out)

    # -- the combination -----------------------------------------------------
    @property
    def combination_weights_(self) -> np.ndarray:
        """The hedge's weights now: the vote's, then each member's."""
        check_is_fitted(self)
        return self._hedge.weights()

    @property
    def combination_losses_(self) -> np.ndarray:
        """The experts' cumulative losses (the members' handicap included)."""
        check_is_fitted(self)
        return self._hedge.losses

    @property
    def categories_(self) -> list:
        """Categories of each categorical column in code order (None: the
        missing value); None for a numeric column. A member's
        ``categories_`` are those of its columns, in the same codes."""
        check_is_fitted(self)
        return [None if c is None else list(c) for c in self._columns.categories]

    @property
    def combination_regret_bound_(self) -> float:
        """``2 Delta``: the forest's expected mistakes beyond any expert's."""
        check_is_fitted(self)
        return self._hedge.regret_bound
