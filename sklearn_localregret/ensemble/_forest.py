"""LocalRegretForestClassifier: online bagging of local-regret trees.

The estimator: its parameters and their constraints, the first call's set-up
(subspaces, members, bagging generators, detectors, the hedge), persistence,
the rounds (members learn, then the combination scores them) and the
combination's attributes. Its parts, one concern each: the docstring
(``_forest_docstring.py``), the members' plumbing (``_members.py``:
making, feeding and replacing a member) and prediction (``_prediction.py``).
"""

from __future__ import annotations

from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import BaseOnlineClassifier
from .._base.rounds import round_slices
from .._column_reading import ReadsColumns
from .._hedge import PLAY_HANDICAP, AdaHedge
from .._random import check_generator, generator_key
from .._tree.wide_input import is_wide
from .._tree_classifier import LocalRegretTreeClassifier
from ..merging import merge_into
from ..thresholds.columns import ColumnEncoder
from ._bagging import draw_subspaces, subspace_size
from ._combination import combination_prior, expert_losses
from ._drift import DRIFT_DETECTORS, make_detector
from ._forest_docstring import FOREST_CLASSIFIER_DOCSTRING
from ._members import TREE_PARAMS, ForestMembers
from ._prediction import ForestPrediction
from ._root_models import ForestRootModels

__all__ = ["LocalRegretForestClassifier"]


class LocalRegretForestClassifier(
    ForestPrediction,
    ForestRootModels,
    ForestMembers,
    ReadsColumns,
    BaseOnlineClassifier,
):
    __doc__ = FOREST_CLASSIFIER_DOCSTRING

    # What the first call builds the forest from (members, subspaces, tests).
    _BUILT_FROM = (
        "n_estimators",
        "max_features",
        "binarize",
        "max_thresholds",
        "refined_features",
        "max_categories",
        "warm_start",
        "discount",
        "max_depth",
        "L",
        "n_mcmc_steps",
        # (the members' own copies: see TREE_PARAMS and _new_member)
        "batch_size",
        "bias",
        "predict_tolerance",
        "leaf_prediction",
    )

    _parameter_constraints: dict = {
        **BaseOnlineClassifier._parameter_constraints,
        **{
            name: LocalRegretTreeClassifier._parameter_constraints[name]
            for name in TREE_PARAMS
        },
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            StrOptions({"sqrt", "log2"}),
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            None,
        ],
        # (numpy's Poisson draws stop near 9e18; a million is far beyond use)
        "lambda_value": [Interval(Real, 0, 1e6, closed="right")],
        "drift_detector": [StrOptions(set(DRIFT_DETECTORS)), None],
        "n_jobs": [  # as joblib: 0 has no meaning
            Interval(Integral, None, -1, closed="right"),
            Interval(Integral, 1, None, closed="left"),
            None,
        ],
        "random_state": ["random_state", np.random.Generator],
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
        batch_size=10,
        binarize=None,
        L=100,
        bias=None,
        max_thresholds=7,
        refined_features="auto",
        warm_start=500,
        max_depth=None,
        n_mcmc_steps=200,
        predict_tolerance=0.0,
        discount=0.98,
        max_categories=16,
        leaf_prediction="adaptive",
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
        self.refined_features = refined_features
        self.warm_start = warm_start
        self.max_depth = max_depth
        self.n_mcmc_steps = n_mcmc_steps
        self.predict_tolerance = predict_tolerance
        self.discount = discount
        self.max_categories = max_categories
        self.leaf_prediction = leaf_prediction
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
        rng, k = self._rng, int(self.n_estimators)  # (True is 1)
        size = subspace_size(self.max_features, n_features)
        self.estimators_features_ = draw_subspaces(rng, n_features, size, k)
        seeds = rng.integers(2**32, size=(2, k))  # the trees' random_state range
        self.estimators_ = [self._new_member(int(seed)) for seed in seeds[0]]
        self._bagging_rngs = [np.random.default_rng(int(s)) for s in seeds[1]]
        self._detectors = [make_detector(self.drift_detector) for _ in range(k)]
        self.n_drifts_ = np.zeros(k, dtype=np.int64)
        # Experts: the vote, then each member (handicapped: see
        # _combination), then the root models (deterministic, level with
        # the vote; a private switch, as the tree's, leaves them out).
        roots = 0
        # A wide input (hashed text) reaches the members as CSR, read through
        # their admitted columns; no root models (dense in the columns).
        wide = self._accepts_sparse_blocks = is_wide(n_features, self._columns)
        if self.__dict__.get("_root_model_expert", True) and not wide:
            self._start_root_models(n_features, n_classes)
            roots = self._n_root_experts()
        self._hedge = AdaHedge(
            [0.0] + [PLAY_HANDICAP] * k + [0.0] * roots,
            prior=combination_prior(k, roots),
        )

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
        if "refined_features" not in state:  # saved before: every feature
            self.refined_features = None
        if "leaf_prediction" not in state:  # saved before adaptive leaf reads
            self.leaf_prediction = "label"
        if "drift_detector" not in state:  # saved before drift detection
            self.drift_detector = None
            if "estimators_" in state:
                self._detectors = [None] * len(self.estimators_)
                self.n_drifts_ = np.zeros(len(self.estimators_), dtype=np.int64)

    # -- learning -----------------------------------------------------------
    def _play_rounds(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> None:
        # The members learn the whole block (independently, so in any order
        # or thread); then the combination scores its rounds one by one, each
        # on what the members predicted before they learnt it (a streaming
        # call: before the call, what its caller was given).
        n_rows, batch = X.shape[0], self.batch_size
        with self._model_lock():  # readers see complete blocks
            self._member_columns()  # made here, read by the members' threads
            given = self._records_before_call(X) if self._streaming_call(X) else None
            given_roots = None
            if given is not None:  # the root models' losses, before learning
                given_roots = [
                    self._root_losses(X[r], y[r], weight[r])
                    for r in round_slices(n_rows, batch)
                ]
            records = self._map_members(
                lambda k: self._learn_member(k, X, y, weight), n_rows
            )
            records = records if given is None else given
            hedge = self._hedge
            start = hedge.hedge_loss
            # A streaming call's caller predicted all its rounds with the
            # weights from before it: its rounds are one update of the
            # hedge, their losses summed, so that the hedge's loss (and
            # n_online_mistakes_, and the bound) are what the caller got.
            call_losses: np.ndarray | float = 0.0
            for r, lo in enumerate(range(0, n_rows, batch)):
                rows = slice(lo, lo + batch)
                probas = np.stack([member[r][0] for member in records])
                votes = np.array([member[r][1] for member in records])
                losses = expert_losses(probas, votes, y[rows], weight[rows])
                if given_roots is None:
                    roots = self._root_losses(X[rows], y[rows], weight[rows])
                else:
                    roots = list(given_roots[r])
                roots += self._members_model_loss(
                    [member[r] for member in records], y[rows], weight[rows]
                )
                if given is None:
                    hedge.update(np.concatenate((losses, roots)))
                else:
                    call_losses = call_losses + np.concatenate((losses, roots))
                self._learn_root_models(X[rows], y[rows], weight[rows])
            if given is not None:
                hedge.update(call_losses)
            self._count_rounds(weight, hedge.hedge_loss - start)

    # -- merging ------------------------------------------------------------
    def merge(self, other: LocalRegretForestClassifier) -> LocalRegretForestClassifier:
        """Absorb the state of ``other``, learnt on a disjoint stream of the task.

        Afterwards this forest is the forest of both streams' rounds: member
        ``k`` is merged as a tree into member ``k`` (see
        :meth:`LocalRegretTreeClassifier.merge
        <sklearn_localregret.LocalRegretTreeClassifier.merge>`: its regret
        tables are the sums of the two, row by path), and the rounds, rows,
        expected mistakes, drift counts and the combination's losses add up.
        The sum is exact: it equals one forest given both streams' rounds
        with the same plays (each member's trees and bagging weights, and
        the hedges' weights and scores: each side scored its experts on its
        own stream, as a tree's hedge). With ``discount < 1`` each side's
        regrets enter as discounted at its own last round. This forest's bagging
        generators and random state are kept, and so are its members' drift
        detectors (:mod:`sklearn_localregret.merging._forest`).

        A member that is not the same tree on both sides is taken whole, not
        added: if member ``k`` was replaced after a detected drift more
        often on one side (``n_drifts_[k]``), that side's member ``k`` and
        its detector are kept (the drift said the other's concept is gone);
        with equal counts the two are merged as trees. A member unfitted on
        one side (its rows so far weighed 0) is the other side's.

        Parameters
        ----------
        other : LocalRegretForestClassifier
            A fitted forest of the same task; it is not changed.

        Returns
        -------
        self : LocalRegretForestClassifier

        Raises
        ------
        ValueError
            If the two differ in parameters (but ``random_state`` and
            ``n_jobs``), classes, features, the members' subspaces
            (``estimators_features_``: drawn from ``random_state`` when
            ``max_features`` is below all the columns) or the tests of two
            members to be merged as trees; this forest is then unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.integers(0, 2, size=(1000, 4))
        >>> y = X[:, 0] ^ X[:, 1]
        >>> a = LocalRegretForestClassifier(n_estimators=3, random_state=0)
        >>> b = LocalRegretForestClassifier(n_estimators=3, random_state=1)
        >>> a, b = a.fit(X[:500], y[:500]), b.fit(X[500:], y[500:])
        >>> merged = a.merge(b)
        >>> merged.n_rounds_, merged.estimators_[0].n_rounds_
        (100, 100)
        """
        return merge_into(self, other)

    # -- the combination -----------------------------------------------------
    @property
    def combination_weights_(self) -> np.ndarray:
        """The hedge's weights now: the vote's, then each member's, then the
        root experts' (the Gaussian and the linear model, then the members'
        root naive Bayes models; see ``combination_weights_`` in the class
        docstring for forests saved before them)."""
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
        """The forest's expected mistakes beyond any expert's are at most
        this: ``Delta (1 + ln(1 / pi_k) / ln N)`` over ``N`` experts, at the
        smallest prior share ``pi_k``, a member's (``2 Delta`` for a forest
        saved before the prior)."""
        check_is_fitted(self)
        return self._hedge.regret_bound
