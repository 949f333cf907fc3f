"""Online decision trees with local regret guarantees."""

from __future__ import annotations

import copy
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import BaseLocalRegretClassifier
from ._base.hedged_prediction import REMEMBERED_ROWS
from ._column_reading import ReadsColumns
from ._discount_players import DiscountPlayers, resolve_discounts
from ._tree import PLAYERS, TreePlayer
from ._tree.call_predictions import CallPredictions
from ._tree.docstring import TREE_CLASSIFIER_DOCSTRING
from ._tree.persistence import take_players_of_old_layout
from ._tree.refining import FeatureRefining
from ._tree.root_model import RootModelExpert
from ._tree.views import TreeViews
from ._tree.wide_input import WideInput
from .engine.bias import short_round_bias
from .locality.recent_rows import RecentRows
from .merging import merge_into
from .thresholds import ColumnEncoder, ThresholdTests

__all__ = ["LocalRegretTreeClassifier"]

# Rows whose test outcomes are computed at once (bounds the memory).
_OUTCOME_BLOCK_ROWS = 250


class LocalRegretTreeClassifier(
    WideInput,
    CallPredictions,
    RootModelExpert,
    FeatureRefining,
    TreeViews,
    ReadsColumns,
    BaseLocalRegretClassifier,
):
    __doc__ = TREE_CLASSIFIER_DOCSTRING
    _BUILT_FROM: tuple[str, ...] = ("regret", "binarize", "max_thresholds", "L")
    _BUILT_FROM += ("refined_features", "max_categories", "warm_start", "max_depth")
    _BUILT_FROM += ("discount", "leaf_model", "n_mcmc_steps", "leaf_prediction")
    # (adaptive reads need the sites' scores kept from the first round)
    _BUILT_CHANGES_ALLOWED = {"leaf_prediction": {("adaptive", "label")}}

    _parameter_constraints: dict = {
        **BaseLocalRegretClassifier._parameter_constraints,
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "n_mcmc_steps": [Interval(Integral, 1, None, closed="left")],
        "n_predict_trees": [Interval(Integral, 1, None, closed="left"), None],
        "predict_tolerance": [Interval(Real, 0, 1, closed="left")],
        "max_thresholds": [Interval(Integral, 1, None, closed="left")],
        "refined_features": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"auto"}),
            None,
        ],
        "max_categories": [Interval(Integral, 1, 2**20, closed="both")],  # codes
        "warm_start": [Interval(Integral, 0, None, closed="left")],
        "leaf_model": [StrOptions({"auto", "naive_bayes"}), None],
        "leaf_prediction": [StrOptions({"adaptive", "label"})],
        "discount": [
            *BaseLocalRegretClassifier._parameter_constraints["discount"],
            StrOptions({"auto"}),
            "array-like",
        ],
    }

    # The rounds read real values: the tests x_j > t are evaluated on them.
    _block_dtype = np.float64
    # Missing values and categories: ReadsColumns (see Notes).

    def __init__(
        self,
        regret="external",
        *,
        L=100,
        bias=None,
        batch_size=5,
        binarize=None,
        max_thresholds=7,
        refined_features="auto",
        max_categories=16,
        warm_start=500,
        max_depth=None,
        n_mcmc_steps=200,
        n_predict_trees=None,
        predict_tolerance=0.0,
        random_state=None,
        discount=0.99,
        prediction="auto",
        leaf_model="auto",
        leaf_prediction="adaptive",
    ):
        self.regret = regret
        self.L = L
        self.bias = bias
        self.batch_size = batch_size
        self.binarize = binarize
        self.max_thresholds = max_thresholds
        self.refined_features = refined_features
        self.max_categories = max_categories
        self.warm_start = warm_start
        self.max_depth = max_depth
        self.n_mcmc_steps = n_mcmc_steps
        self.n_predict_trees = n_predict_trees
        self.predict_tolerance = predict_tolerance
        self.random_state = random_state
        self.discount = discount
        self.prediction = prediction
        self.leaf_model = leaf_model
        self.leaf_prediction = leaf_prediction

    # -- model ------------------------------------------------------------
    def _encode_features(self, X):
        # Real values are kept: the threshold tests read them (validation has
        # already rejected infinities and non-numeric input).
        return X

    def _model_leaves(self, n_classes: int) -> bool:
        """Whether leaves may be naive Bayes models (see ``leaf_model``)."""
        computes_models = PLAYERS[self.regret].computes_models
        if self.leaf_model == "auto":
            return computes_models and n_classes >= 3
        if self.leaf_model == "naive_bayes" and not computes_models:
            raise ValueError(
                "leaf_model='naive_bayes' needs regret='external': the swap "
                "rounds do not compute models; use leaf_model=None or 'auto'."
            )
        return self.leaf_model == "naive_bayes"

    def _init_model(self, n_features: int, n_classes: int) -> None:
        discounts = resolve_discounts(self.discount)
        # A wide input is read through its admitted columns (WideInput).
        source, n_features = self._threshold_source(n_features, n_classes)
        self._tests = ThresholdTests(source, n_features)
        self._window = RecentRows(self.warm_start, n_features)
        # One player per discount (_discount_players): the same tests and
        # recent rows, each its own table and samplers.
        names = self._PLAYER_STATE
        states = []
        rng, start = self._rng, copy.deepcopy(self._rng)
        for j, discount in enumerate(discounts):
            # Each player draws from its own copy of the seeded generator:
            # player j plays the trees the learner at discount j alone would.
            self._rng = rng if j == 0 else copy.deepcopy(start)
            self._player = self._new_player(n_classes, discount)
            states.append({name: self.__dict__[name] for name in names})
        self.__dict__.update(states[0])
        self._players = (
            DiscountPlayers(discounts, names, states) if len(discounts) > 1 else None
        )
        self._start_model_expert(n_features, n_classes)

    # What one player (one discount) owns; the estimator holds the active
    # one's: the player of the regret mode (_tree/players.py) and its draws.
    _PLAYER_STATE = ("_player", "_rng")

    def _new_player(self, n_classes: int, discount: float) -> TreePlayer:
        """A player of the ``regret`` mode (:data:`PLAYERS`) at ``discount``."""
        return PLAYERS[self.regret](
            self._tests,
            n_classes,
            discount,
            leaf_model=self._model_leaves(n_classes),
            model_reads=self.leaf_prediction == "adaptive",
            max_depth=self.max_depth,
            L=self.L,
            n_mcmc_steps=self.n_mcmc_steps,
            lock=self._model_lock(),  # one lock for the model
        )

    # -- persistence (a player rebuilds its samplers on load) ---------------
    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: never the live __dict__
        players = state.get("_players")
        if players is not None:
            players.sync(self)
            state["_players"] = players.saved(())
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "predict_tolerance" not in state:  # saved before the parameter
            self.predict_tolerance = 0.0
        if "leaf_model" not in state:  # saved before model leaves: labels only
            self.leaf_model = None
        if "leaf_prediction" not in state:  # saved before adaptive reads
            self.leaf_prediction = "label"
        if "refined_features" not in state:  # saved before: every feature
            self.refined_features = None
        if "max_categories" not in state:  # saved before categories
            self.max_categories = 16
            if "_tests" in state:
                self._columns = ColumnEncoder.numeric(self._tests.n_features)
        if "_tests" in state and "_players" not in state:  # saved before them
            self._players = None
        if "_coloring" in state:  # saved before the players (issue 30)
            take_players_of_old_layout(self)
        if "_player" not in self.__dict__:
            return  # not fitted
        lock, players = self._model_lock(), self._players
        self._player.rebuild(lock)
        if players is None:
            return
        # The estimator holds the active player's state; rebuild the others'.
        active = {name: self.__dict__[name] for name in players.names}
        for j, saved in enumerate(players.states):
            if j != players.active:
                saved["_player"].rebuild(lock)
        players.states[players.active] = active

    def _blas_context(self):
        # External regret learns and predicts in compiled kernels: no BLAS.
        if PLAYERS[self.regret].compiled:
            return nullcontext()
        return super()._blas_context()

    # -- rounds -----------------------------------------------------------
    def _play_block_rounds(self, X, y, weight) -> None:
        # The base's rounds (_play_rounds: WideInput); the threshold source
        # sees a round's features (not its labels) first; test outcomes are
        # computed for many rounds at once.
        batch, tests = self.batch_size, self._tests
        reads_rows = PLAYERS[self.regret].reads_rows
        outcomes: np.ndarray | None = None
        rows: list = []  # these three are set in the first round
        linear: tuple | None = None
        start = end = watched = 0
        # Readers (predict_proba in other threads) see complete rounds.
        lock = self._model_lock()
        hedging = self._hedging()
        expert = hedging and self._scores_root_models()  # the root models
        # Tests enter before a round (thresholds, missing-value variants, new
        # categories); blocks and rounds that can bring none are not watched.
        columns, watch = self._columns, False
        categorical = columns.categorical if columns.has_categories else None
        # A streaming call is scored as the one prediction a caller makes of it.
        given, given_losses = self._call_predictions(X, y, weight)
        try:
            for at_round, lo in enumerate(range(0, X.shape[0], batch)):
                with lock:
                    hi = lo + batch
                    if lo >= watched:  # the next block
                        watched = lo + batch * max(1, _OUTCOME_BLOCK_ROWS // batch)
                        watch = tests.may_grow(X[lo:watched], categorical)
                    if watch and tests.may_grow(X[lo:hi], categorical):
                        added = tests.observe(X[lo:hi], categorical, self._shares)
                        if added:
                            self._each_player(lambda: self._player.add_tests(added))
                            self._window.follow(tests)
                            outcomes = None
                    if outcomes is None or lo >= end:
                        start = lo
                        end = lo + batch * max(1, _OUTCOME_BLOCK_ROWS // batch)
                        outcomes = tests.outcomes(X[start:end])
                        if reads_rows:  # routing reads lists faster
                            rows = outcomes.tolist()
                        # The linear model's rows, shared by its two reads.
                        linear = self._linear_inputs(X[start:end])
                    at = slice(lo - start, hi - start)
                    # The root models' losses, before the round is learnt.
                    extra = None
                    linear_at = None if linear is None else (linear[0][at], linear[1])
                    if given is not None:
                        extra = given_losses[at_round]
                    elif expert:
                        extra = self._round_expert_losses(
                            X[lo:hi], outcomes[at], y[lo:hi], weight[lo:hi], linear_at
                        )
                    if self._players is not None:
                        proba, wrong = self._play_players_round(
                            X[lo:hi], outcomes[at], rows[at], y[lo:hi], weight[lo:hi]
                        )
                    else:
                        if hedging and given is None:  # pi's, before it is learnt
                            proba = self._round_proba_from(X[lo:hi], outcomes[at])
                        wrong = self._play_round_on(
                            outcomes[at], rows[at], y[lo:hi], weight[lo:hi]
                        )
                    if given is not None:  # what the call's caller was given
                        proba = given[lo:hi]
                    self._window.add(X[lo:hi], y[lo:hi], weight[lo:hi], outcomes[at])
                    if hedging:
                        self._score_predictions(proba, y[lo:hi], weight[lo:hi], extra)
                    self._learn_root_models(
                        X[lo:hi], y[lo:hi], weight[lo:hi], linear_at
                    )
                    self._count_rounds(weight[lo:hi], wrong)
        except KeyboardInterrupt:  # a Ctrl-C after a complete round
            self._finish_call()
            raise
        self._finish_call()

    def _play_round_on(self, outcomes, rows, y, weight) -> float:
        """One round of the active player; its weight of mistakes."""
        span = y.shape[0] / self.batch_size  # decay and bias in proportion
        bias = short_round_bias(self.bias, self.L, weight.sum(), span)
        return self._player.play_round(
            self._rng,
            outcomes,
            rows,
            y,
            weight,
            bias,
            self._window,
            self.warm_start,
            span,
        )

    def _each_player(self, step) -> list:
        """``step()`` with each player active in turn (once with one player)."""
        players = self._players
        if players is None:
            return [step()]
        start = players.active
        try:
            out = []
            for j in range(len(players)):
                players.activate(self, j)
                out.append(step())
            return out
        finally:
            players.activate(self, start)

    def _play_players_round(self, X, outcomes, rows, y, weight):
        """A round of every player: the mixture's probabilities of the rows
        before it is learnt, and its expected weight of mistakes in its plays
        (the players are scored on those: the discounts' hedge is the plays')."""
        players = self._players
        probas = self._remembered_player_probas(X)
        if probas is None:
            probas = np.stack(self._each_player(lambda: self._player_proba(outcomes)))
        weights = players.weights()
        wrongs = self._each_player(
            lambda: self._play_round_on(outcomes, rows, y, weight)
        )
        players.score(probas, y, weight)
        return players.mix(probas, weights), float(weights @ np.asarray(wrongs))

    def _finish_call(self) -> None:
        """What a call does once after its rounds (also when Ctrl-C stops it)."""
        # Once a call, so that predicting (from other threads) only reads; under
        # the model lock, as a reader's _each_player swaps the players too.
        with self._model_lock():
            if self._tests.complete:
                self._window.forget_features(self._tests)
            self._each_player(lambda: self._player.finish_call())
            if self._players is not None:  # inspection shows the leader
                self._players.activate(self, self._players.leader())

    # -- prediction -------------------------------------------------------
    def _proba_version(self) -> tuple:
        return (
            *super()._proba_version(),
            self.predict_tolerance,
            self.n_predict_trees,
            self.leaf_prediction,
        )

    def _round_proba_from(self, X, outcomes) -> np.ndarray:
        """``pi``'s class probabilities of a round's rows (their test outcomes
        given), as :meth:`predict_proba` gives them (remembered if just
        predicted)."""
        proba = self._remembered_proba(X)
        if proba is not None:
            return proba
        if self._player.walks(self.n_predict_trees):
            return self._player_proba(outcomes)
        return self._predict_proba_now(X)

    def _predict_proba_encoded(self, X: np.ndarray) -> np.ndarray:
        # Its callers hold the model lock (HedgedPrediction._block_proba, the
        # rounds): a reader predicts between two rounds of a learning thread.
        return self._predict_proba_now(X)

    def _predict_proba_now(self, X: np.ndarray) -> np.ndarray:
        outcomes = self._tests.outcomes(X)
        players = self._players
        if players is None:
            return self._player_proba(outcomes)
        probas = np.stack(self._each_player(lambda: self._player_proba(outcomes)))
        if X.shape[0] <= REMEMBERED_ROWS:  # for the round that learns them
            players.last = (self._proba_version(), X.copy(), probas)
        return players.mix(probas)

    def _player_proba(self, outcomes: np.ndarray) -> np.ndarray:
        """The active player's class probabilities of rows with these test
        outcomes."""
        return self._player.probabilities(
            outcomes,
            self.n_predict_trees,
            self.predict_tolerance,
            self.leaf_prediction == "adaptive",
        )

    # -- merging ----------------------------------------------------------
    def merge(self, other: LocalRegretTreeClassifier) -> LocalRegretTreeClassifier:
        """Absorb the state of ``other``, learnt on a disjoint stream of the task.

        Afterwards this learner is the learner of both streams' rounds: its
        regret table (external or swap) is the sum of the two, row by path,
        and so are the rounds, rows, mistakes and the hedge's losses. The sum
        is exact: it equals one learner given both streams' rounds with the
        same plays. With ``discount < 1`` each side's regrets enter as
        discounted at its own last round (the two streams run side by side,
        ending together). The sites' read scores (adaptive leaf reads) add up
        too, but each side's are its own models' scores on its own stream,
        not what one learner's models, having seen both, would have scored.
        With several discounts, each player's table is added to the same
        player's at its own discount, the hedge over the players adds up as
        the vote/play hedge does, and the active player stays.
        Both must have the same parameters (but ``random_state``), classes,
        features and tests; this learner's warm start window, last tree and
        random state are kept (:mod:`sklearn_localregret.merging`).

        Parameters
        ----------
        other : LocalRegretTreeClassifier
            A fitted learner of the same task; it is not changed.

        Returns
        -------
        self : LocalRegretTreeClassifier

        Raises
        ------
        ValueError
            If the two differ in parameters, classes, features or tests
            (thresholds come from a stream's first rows: binarised learners,
            0/1 features, or learners grown from one model have the same);
            this learner is then unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.integers(0, 2, size=(1000, 4))
        >>> y = X[:, 0] ^ X[:, 1]
        >>> a = LocalRegretTreeClassifier(random_state=0).fit(X[:500], y[:500])
        >>> b = LocalRegretTreeClassifier(random_state=1).fit(X[500:], y[500:])
        >>> a.merge(b).n_rounds_
        200
        """
        return merge_into(self, other)
