"""Online decision trees with local regret guarantees."""

from __future__ import annotations

import copy
from collections import Counter
from contextlib import nullcontext
from numbers import Integral, Real
from typing import cast

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import _REMEMBERED_ROWS, BaseLocalRegretClassifier, same_rows
from ._column_reading import ReadsColumns
from ._discount_players import DiscountPlayers, resolve_discounts
from ._tree.docstring import TREE_CLASSIFIER_DOCSTRING
from ._tree.views import TreeViews
from .engine import (
    FiniteChainSampler,
    HierarchicalLabels,
    HierarchicalSampler,
    StumpRegretTable,
    UniformizedChainSampler,
    forget_tolerance,
)
from .engine.compiled.tree_draw import NEED_UNIFORMS, draw_tree
from .locality.decision_tree import (
    Leaf,
    Split,
    Tree,
    compile_tree,
    predict_tree,
    tree_level,
)
from .locality.flat_tree import FlatTree
from .locality.recent_rows import RecentRows
from .locality.tree_coloring import TreeColoring
from .locality.tree_rate_graph import TreeRateGraph
from .locality.tree_round_kernels import update_played_sites
from .merging import merge_into
from .thresholds import (
    ColumnEncoder,
    FixedThresholds,
    QuantileThresholds,
    ThresholdSource,
    ThresholdTests,
)

__all__ = ["LocalRegretTreeClassifier"]

# Rows whose test outcomes are computed at once (bounds the memory).
_OUTCOME_BLOCK_ROWS = 250

# Seed of the trees drawn by predict_proba: a fitted model predicts the same
# way every time, and predicting never touches the training random state.
_PREDICT_SEED = 0


class LocalRegretTreeClassifier(TreeViews, ReadsColumns, BaseLocalRegretClassifier):
    __doc__ = TREE_CLASSIFIER_DOCSTRING

    _parameter_constraints: dict = {
        **BaseLocalRegretClassifier._parameter_constraints,
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "n_mcmc_steps": [Interval(Integral, 1, None, closed="left")],
        "n_predict_trees": [Interval(Integral, 1, None, closed="left"), None],
        "predict_tolerance": [Interval(Real, 0, 1, closed="left")],
        "max_thresholds": [Interval(Integral, 1, None, closed="left")],
        "max_categories": [Interval(Integral, 1, None, closed="left")],
        "warm_start": [Interval(Integral, 0, None, closed="left")],
        "leaf_model": [StrOptions({"auto", "naive_bayes"}), None],
        "discount": [
            Interval(Real, 0, 1, closed="right"),
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
    ):
        self.regret = regret
        self.L = L
        self.bias = bias
        self.batch_size = batch_size
        self.binarize = binarize
        self.max_thresholds = max_thresholds
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

    # -- model ------------------------------------------------------------
    def _encode_features(self, X):
        # Real values are kept: the threshold tests read them (validation has
        # already rejected infinities and non-numeric input).
        return X

    def _model_leaves(self, n_classes: int) -> bool:
        """Whether leaves may be naive Bayes models (see ``leaf_model``)."""
        if self.leaf_model == "auto":
            return self.regret == "external" and n_classes >= 3
        if self.leaf_model == "naive_bayes" and self.regret == "swap":
            raise ValueError(
                "leaf_model='naive_bayes' needs regret='external': the swap "
                "rounds do not compute models; use leaf_model=None or 'auto'."
            )
        return self.leaf_model == "naive_bayes"

    def _init_model(self, n_features: int, n_classes: int) -> None:
        discounts = resolve_discounts(self.discount)
        source: ThresholdSource
        if self.binarize is None:
            source = QuantileThresholds(self.max_thresholds)
        else:
            source = FixedThresholds(self.binarize)
        self._tests = ThresholdTests(source, n_features)
        self._window = RecentRows(self.warm_start, n_features)
        # One player per discount (_discount_players): the same tests and
        # recent rows, each its own table and samplers.
        names = self._PLAYER_STATE[self.regret]
        states = []
        rng, start = self._rng, copy.deepcopy(self._rng)
        for j, discount in enumerate(discounts):
            # Each player draws from its own copy of the seeded generator:
            # player j plays the trees the learner at discount j alone would.
            self._rng = rng if j == 0 else copy.deepcopy(start)
            self._init_player(n_classes, discount)
            states.append({name: self.__dict__[name] for name in names})
        self.__dict__.update(states[0])
        self._players = (
            DiscountPlayers(discounts, names, states) if len(discounts) > 1 else None
        )

    # What one player (one discount) owns; the estimator holds the active one's.
    _PLAYER_STATE = {
        "external": (
            "_table", "_coloring", "_graph", "_sampler", "_chain", "_labels",
            "_flat", "last_tree_", "n_mcmc_draws_", "_largest_round", "_rng",
        ),
        "swap": (
            "_table", "_coloring", "_graph", "_sampler", "last_tree_",
            "n_mcmc_draws_", "_largest_round", "_rng",
        ),
    }  # fmt: skip

    def _init_player(self, n_classes: int, discount: float) -> None:
        """A new player's state, made the estimator's: its regret table at
        ``discount``, colouring, rate graph and samplers."""
        model = self._model_leaves(n_classes)
        self._table = StumpRegretTable(n_classes, discount=discount, leaf_model=model)
        self._coloring = TreeColoring(
            self._tests, n_classes, self.max_depth, leaf_model=model
        )
        swap = self.regret == "swap"
        self._graph = TreeRateGraph(self._table, self._coloring, per_tree=swap)
        # Swap: the exact sampler of the solved chain; external: hierarchical.
        self._sampler: FiniteChainSampler | HierarchicalSampler
        if swap:
            self._sampler = FiniteChainSampler(self._graph, self.L)
        else:
            self._sampler = HierarchicalSampler(
                self._table, make_leaf=Leaf, make_split=Split
            )
            self._chain = UniformizedChainSampler(
                self._graph, self.L, self.n_mcmc_steps
            )
            self._labels = HierarchicalLabels(self._table)
            self._labels.lock = self._model_lock()  # one lock for the model
            self._flat = FlatTree(16)
        self.last_tree_: Tree = Leaf(0)
        self.n_mcmc_draws_ = 0
        self._largest_round = 0.0  # Delta so far, the scale of forgetting

    # -- persistence ------------------------------------------------------
    # The samplers and the rate graph only refer to the table and colouring
    # (swap: the sampler also owns the solved chain). A saved model stores each
    # object once; they are rebuilt around it on load.
    _REBUILT = {
        "external": ("_graph", "_sampler", "_chain", "_labels", "_flat"),
        "swap": ("_graph", "_table"),
    }

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: never the live __dict__
        if "_table" in state:
            rebuilt = self._REBUILT[self.regret]
            for name in rebuilt:
                state.pop(name, None)
            players = state.get("_players")
            if players is not None:
                players.sync(self)
                state["_players"] = players.saved(rebuilt)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "predict_tolerance" not in state:  # saved before the parameter
            self.predict_tolerance = 0.0
        if "leaf_model" not in state:  # saved before model leaves: labels only
            self.leaf_model = None
        if "max_categories" not in state:  # saved before categories
            self.max_categories = 16
            if "_tests" in state:
                self._columns = ColumnEncoder.numeric(self._tests.n_features)
        if "_tests" in state and "_players" not in state:  # saved before them
            self._players = None
        if "_coloring" not in state or "_graph" in state:
            return  # not fitted, or saved before this layout
        self._rebuild_player()
        players = self._players
        if players is None:
            return
        # The estimator held the active player's state; rebuild the others'.
        active = {name: self.__dict__[name] for name in players.names}
        for j, saved in enumerate(players.states):
            if j != players.active:
                self.__dict__.update(saved)
                self._rebuild_player()
                players.states[j] = {n: self.__dict__[n] for n in players.names}
        self.__dict__.update(active)
        players.states[players.active] = active

    def _rebuild_player(self) -> None:
        """Rebuild the active player's samplers around its saved table and
        colouring (:attr:`_REBUILT`)."""
        if self.regret == "swap":
            sampler = cast(FiniteChainSampler, self._sampler)
            self._graph = cast(TreeRateGraph, sampler.graph)
            self._table = self._graph.table
            return
        self._rebuild_samplers()
        self._labels = HierarchicalLabels(self._table)
        self._labels.lock = self._model_lock()  # one lock for the model
        self._group_label_tests()

    def _rebuild_samplers(self) -> None:
        """External regret: the rate graph, the samplers and the played tree's
        arrays, made anew around the active player's table."""
        self._graph = TreeRateGraph(self._table, self._coloring, per_tree=False)
        self._sampler = HierarchicalSampler(
            self._table, make_leaf=Leaf, make_split=Split
        )
        self._chain = UniformizedChainSampler(self._graph, self.L, self.n_mcmc_steps)
        self._flat = FlatTree(16)

    def _blas_context(self):
        # External regret learns and predicts in compiled kernels: no BLAS.
        if self.regret == "external":
            return nullcontext()
        return super()._blas_context()

    def _group_label_tests(self) -> None:
        """Tell the prediction walk that the thresholds of a feature are
        passed in increasing order (one bisection per feature and site)."""
        if self.regret == "external":
            self._labels.group_tests(*self._tests.label_groups())

    def _warm_start_sites(self, layout, rows, new) -> None:
        """Start new sites from the recent rows that reach them (see Notes)."""
        if not new:
            return
        y, w = self._window.contents()
        if y.size == 0:
            return
        stats = self._coloring.node_statistics(
            layout, new, self._window.outcomes(self._tests), y, w
        )
        leaf_mask, test_mask = self._coloring.edge_masks(layout)
        self._table.update(
            [rows[i] for i in new],
            stats.leaf_gains,
            leaf_mask[new],
            stats.true_counts,
            stats.class_counts,
            stats.correct,
            test_mask[new],
        )

    def _draw_tree(self, rng: np.random.Generator) -> tuple[Tree, bool]:
        """A tree from pi; also whether the approximate chain sampler drew it.

        External regret: the compiled draw of the rounds
        (:meth:`_draw_flat_tree`), as a tree.
        """
        if self.regret == "swap":
            # The chain's vertices are trees (FiniteChainSampler is not generic).
            return cast(Tree, self._sampler.sample(rng)), False
        by_chain = self._draw_flat_tree(rng)
        return self._flat.to_tree(), by_chain

    def _play_rounds(self, X, y, weight) -> None:
        # The same rounds as the base's loop. Before each round the threshold
        # source sees the round's features (never its labels) and may add
        # tests; the rows' test outcomes are computed for many rounds at once.
        batch, tests = self.batch_size, self._tests
        outcomes: np.ndarray | None = None
        rows: list = []  # both are set in the first round
        start = end = 0
        # Readers of the model (predict_proba in other threads) wait for the
        # round under way: they see complete rounds.
        lock = self._model_lock()
        hedging = self._hedging()
        # Tests enter before a round (thresholds, missing-value variants, new
        # categories); a block that can bring none is not looked at per round.
        categorical = self._columns.categorical
        watch = tests.may_grow(X, categorical)
        try:
            for lo in range(0, X.shape[0], batch):
                with lock:
                    hi = lo + batch
                    if watch:
                        added = tests.observe(X[lo:hi], categorical)
                        if added:
                            self._each_player(lambda: self._add_tests(added))
                            self._window.follow(tests)
                            outcomes = None
                    if outcomes is None or lo >= end:
                        start = lo
                        end = lo + batch * max(1, _OUTCOME_BLOCK_ROWS // batch)
                        outcomes = tests.outcomes(X[start:end])
                        if self.regret == "swap":  # routing reads lists faster
                            rows = outcomes.tolist()
                    at = slice(lo - start, hi - start)
                    if self._players is not None:
                        proba, wrong = self._play_players_round(
                            X[lo:hi], outcomes[at], rows[at], y[lo:hi], weight[lo:hi]
                        )
                    else:
                        if hedging:  # pi's predictions, before the round is learnt
                            proba = self._round_proba_from(X[lo:hi], outcomes[at])
                        wrong = self._play_round_on(
                            outcomes[at], rows[at], y[lo:hi], weight[lo:hi]
                        )
                    self._window.add(X[lo:hi], y[lo:hi], weight[lo:hi], outcomes[at])
                    if hedging:
                        self._score_predictions(proba, y[lo:hi], weight[lo:hi])
                    self._count_rounds(weight[lo:hi], wrong)
        except KeyboardInterrupt:  # a Ctrl-C after a complete round
            self._finish_call()
            raise
        self._finish_call()

    def _play_round_on(self, outcomes, rows, y, weight) -> float:
        """One round of the active player; its weight of mistakes."""
        if self.regret == "external":
            return self._play_external_round(outcomes, y, weight)
        return self._play_tree_round(outcomes, rows, y, weight)

    def _add_tests(self, added) -> None:
        """Give the active player's table the tests that entered."""
        self._table.add_tests(added)
        self._group_label_tests()

    def _each_player(self, step) -> list:
        """``step()`` with each player active in turn (one call without
        several discounts); the active player is the same afterwards."""
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
        """A round of every player (several discounts): the mixture's
        probabilities of the round's rows before it is learnt, and the
        mixture's expected weight of mistakes in its plays."""
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

    def _remembered_player_probas(self, X) -> np.ndarray | None:
        """The players' probabilities of rows ``X`` if the last prediction was
        of these rows (its first ones) under this very model."""
        assert self._players is not None  # several discounts
        last = self._players.last
        if last is None:
            return None
        version, block, probas = last
        if same_rows(block, X) and version == self._proba_version():
            return probas[:, : X.shape[0]]
        return None

    def _finish_call(self) -> None:
        """What a call does once after its rounds (also when Ctrl-C stops it)."""
        if self._tests.complete:
            self._window.forget_features(self._tests)
        if self.regret == "external":
            # Once a call, so that predicting (from other threads) only reads.
            self._each_player(lambda: self._labels.refresh())
        if self._players is not None:  # inspection shows the leading player
            self._players.activate(self, self._players.leader())

    def _proba_version(self) -> tuple:
        return (*super()._proba_version(), self.predict_tolerance, self.n_predict_trees)

    def _round_proba_from(self, X, outcomes) -> np.ndarray:
        """``pi``'s class probabilities of a round's rows (their test outcomes
        given), as :meth:`predict_proba` gives them (remembered if just
        predicted)."""
        proba = self._remembered_proba(X)
        if proba is not None:
            return proba
        if self.regret == "external" and self.n_predict_trees is None:
            return self._labels.probabilities(
                outcomes, tolerance=self.predict_tolerance
            )
        return self._predict_proba_now(X)

    def _play_external_round(self, outcomes, y, weight) -> float:
        """A round of colored regret matching on the compiled kernels.

        The same round as :meth:`_play_tree_round` (the same uniforms, the same
        sums): the tree is drawn into :class:`FlatTree` arrays, its new sites
        get rows (and their warm start), and every site of the played tree
        is updated, its content weights recomputed with it.
        """
        table = self._table
        by_chain = self._draw_flat_tree(self._rng)
        table.advance()
        flat = self._flat
        new = self._create_sites(flat)
        if self.warm_start and new.size:
            passes, y_window, w_window, order = self._window.ring(self._tests)
            if order.size:
                self._update_sites(new, passes, y_window, w_window, order, 0.0)
        wrong = self._update_sites(
            np.arange(flat.n_nodes),
            outcomes,
            y,
            weight,
            np.arange(y.shape[0]),
            self.round_bias(weight.sum()),
        )
        self.last_tree_ = flat.to_tree()
        self.n_mcmc_draws_ += int(by_chain)
        self._forget_quiet_sites(weight.sum() + self.round_bias(weight.sum()))
        return wrong

    def _forget_quiet_sites(self, round_range: float) -> None:
        """External regret: drop the sites whose regrets have decayed to nothing.

        As :meth:`_forget_quiet_trees` for swap regret: every ``FORGET_EVERY``
        rounds of a discounted table, a site none of whose regrets exceeds
        ``FORGET_TOLERANCE * Delta`` in absolute value is forgotten (the root
        never is), so that memory follows the sites in play, not every path
        ever played. A forgotten path that is played again enters as a new
        site (warm start included). The samplers and the label cache are
        rebuilt around the compacted table.
        """
        self._largest_round = max(self._largest_round, float(round_range))
        table = self._table
        tolerance = forget_tolerance(table, self._largest_round)
        if tolerance is None:
            return
        quiet = table.row_magnitudes() <= tolerance
        root = table.find(())
        if root >= 0:
            quiet[root] = False
        if quiet.any():
            table.forget(np.flatnonzero(quiet))
            self._rebuild_samplers()
            self._labels.reset()  # in place: whoever holds it stays in step

    def _draw_flat_tree(self, rng: np.random.Generator) -> bool:
        """Draw the round's tree into ``self._flat``; whether the chain drew it.

        As :meth:`_draw_tree`: the exact ``L = inf`` draw (compiled), replaced
        by the chain sampler's when it leaves level ``L``.
        """
        table, paths = self._table, self._labels.paths
        table.refresh()
        paths.update()
        flat = self._flat
        flat.ensure_capacity(2 * table.n_rows + 1)
        # The Python draw read uniforms in blocks of 32 as it needed them: the
        # same blocks, so that a seed plays the same trees.
        uniforms = np.zeros(0)
        while True:
            n_nodes = draw_tree(
                paths.root,
                0,
                table._content,
                table._cdf,
                table._total,
                paths.child,
                table._true,
                table._false,
                table._cost,
                table.n_tests,
                table.n_leaves,
                uniforms,
                *flat.arrays(),
            )
            if n_nodes != NEED_UNIFORMS:
                break
            uniforms = np.concatenate((uniforms, rng.random(32)))
        flat.n_nodes = n_nodes
        if self.L is None or flat.level() <= self.L:
            return False
        # The exact draw left level L: the redirect matters (see Notes).
        bound = self._graph.out_rate_bound(2 * self.L + 1)
        self._play_next(self._chain.sample(self.last_tree_, bound, rng))
        return True

    def _play_next(self, tree: Tree) -> None:
        """Make ``tree`` the tree the round plays (the draw's place)."""
        self._flat = FlatTree.from_tree(tree, self._table.find)

    def _create_sites(self, flat: FlatTree) -> np.ndarray:
        """Give the played tree's sites without a row one; those nodes."""
        new = np.flatnonzero(flat.row[: flat.n_nodes] < 0)
        if new.size:
            table = self._table
            keys = table._keys
            parent, test, branch = flat.parent, flat.test, flat.branch
            for i in new.tolist():  # pre-order: a parent has its row already
                p = int(parent[i])
                path = (
                    ()
                    if p < 0
                    else keys[flat.row[p]] + ((int(test[p]), int(branch[i])),)
                )
                flat.row[i] = table.row(path)
            self._labels.paths.update()
        return new

    def _update_sites(self, nodes, outcomes, y, weight, order, bias: float) -> float:
        """One update of the played tree's sites at ``nodes`` by the rows
        ``order`` of ``outcomes``, ``y`` and ``weight``."""
        table, flat, tests = self._table, self._flat, self._tests
        return update_played_sites(
            nodes,
            flat.n_nodes,
            *flat.arrays(),
            outcomes,
            y,
            weight,
            order,
            tests.feature_kind,
            tests.threshold,
            -1 if self.max_depth is None else self.max_depth,
            table.clock.scale,
            bias,
            table.n_tests,
            table._leaf,
            table._true,
            table._false,
            table._cost,
            table._versions,
            table._seen,
            table._content,
            table._cdf,
            table._total,
            table._odds,
            table._base,
            table._model_scale,
        )

    def _play_tree_round(self, outcomes, rows, y, weight) -> float:
        tree, by_chain = self._draw_tree(self._rng)
        layout = compile_tree(tree)
        resets = self._table.clock.n_resets
        self._table.advance()
        if self.regret == "swap" and self._table.clock.n_resets != resets:
            assert isinstance(self._sampler, FiniteChainSampler)  # swap
            self._sampler.invalidate()  # every stored rate changed
        new = self._graph.new_nodes(layout) if self.warm_start else []
        table_rows = self._graph.rows(layout)
        self._warm_start_sites(layout, table_rows, new)
        stats = self._coloring.round_statistics(layout, outcomes, y, weight, rows)
        self._coloring.update(
            self._table, table_rows, layout, stats, self.round_bias(weight.sum())
        )
        # Bring the samplers' caches up to date now, so that reading the model
        # (predict, inspection) never writes to it.
        if self.regret == "swap":
            # Only the edges out of the played tree changed.
            assert isinstance(self._sampler, FiniteChainSampler)  # swap
            self._sampler.invalidate(tree)
            self._forget_quiet_trees(weight.sum() + self.round_bias(weight.sum()))
        self._sampler.refresh()
        self.last_tree_ = tree
        self.n_mcmc_draws_ += int(by_chain)
        return float(weight[stats.prediction != y].sum())

    def _forget_quiet_trees(self, round_range: float) -> None:
        """Swap regret: drop the trees whose regrets have decayed to nothing.

        Every ``FORGET_EVERY`` rounds, a played tree none of whose regrets
        exceeds ``FORGET_TOLERANCE * Delta`` in absolute value is forgotten,
        ``Delta`` being the largest range of a round's utilities so far (its
        weight plus the bias). Undiscounted regrets never decay: nothing is
        forgotten (see Notes).
        """
        self._largest_round = max(self._largest_round, float(round_range))
        tolerance = forget_tolerance(self._table, self._largest_round)
        if tolerance is None:
            return
        assert isinstance(self._sampler, FiniteChainSampler)  # swap regret only
        for tree in self._graph.forget_quiet_trees(tolerance):
            self._sampler.invalidate(tree)

    # -- prediction -------------------------------------------------------
    def _tree_distribution(self) -> tuple[list, np.ndarray]:
        """Trees and their weights under pi (exact, or a fixed-seed sample)."""
        if self.regret == "swap":
            assert isinstance(self._sampler, FiniteChainSampler)
            return self._sampler.distribution()
        assert isinstance(self._sampler, HierarchicalSampler)  # external regret
        # Drawing reads the model only: the samplers' caches are up to date.
        rng = np.random.default_rng(_PREDICT_SEED)
        trees = self._sampler.sample_many(self.n_predict_trees, rng)
        if self.L is not None:
            # As in _draw_tree: a draw beyond level L comes from the chain.
            bound = None
            for i, tree in enumerate(trees):
                if tree_level(tree) > self.L:
                    if bound is None:
                        bound = self._graph.out_rate_bound(2 * self.L + 1)
                    trees[i] = self._chain.sample(self.last_tree_, bound, rng)
        draws = Counter(trees)
        trees = list(draws)
        return trees, np.array([draws[t] for t in trees], float) / self.n_predict_trees

    def _predict_proba_encoded(self, X: np.ndarray) -> np.ndarray:
        with self._model_lock():  # between two rounds of a learning thread
            return self._predict_proba_now(X)

    def _predict_proba_now(self, X: np.ndarray) -> np.ndarray:
        outcomes = self._tests.outcomes(X)
        players = self._players
        if players is None:
            return self._player_proba(outcomes)
        probas = np.stack(self._each_player(lambda: self._player_proba(outcomes)))
        if X.shape[0] <= _REMEMBERED_ROWS:  # for the round that learns them
            players.last = (self._proba_version(), X.copy(), probas)
        return players.mix(probas)

    def _player_proba(self, outcomes: np.ndarray) -> np.ndarray:
        """The active player's class probabilities of rows with these test
        outcomes."""
        if self.regret == "external" and self.n_predict_trees is None:
            return self._labels.probabilities(
                outcomes, tolerance=self.predict_tolerance
            )
        trees, probs = self._tree_distribution()
        proba = np.zeros((outcomes.shape[0], len(self.classes_)))
        rows = np.arange(outcomes.shape[0])
        for tree, p in zip(trees, probs):
            proba[rows, self._tree_labels(tree, outcomes)] += p
        return proba

    def _tree_labels(self, tree: Tree, outcomes: np.ndarray) -> np.ndarray:
        """Class indices a tree gives the rows (a model leaf: its model's)."""
        labels = predict_tree(tree, outcomes)
        table = self._table
        model = labels == table.n_classes
        if model.any():
            flat = FlatTree.from_tree(tree, table.find)
            leaves = flat.leaves_of(outcomes[model])
            labels[model] = table.model_labels(flat.row[leaves], outcomes[model])
        return labels

    # -- merging ----------------------------------------------------------
    def merge(self, other: LocalRegretTreeClassifier) -> LocalRegretTreeClassifier:
        """Absorb the state of ``other``, learnt on a disjoint stream of the task.

        Afterwards this learner is the learner of both streams' rounds: its
        regret table (external or swap) is the sum of the two, row by path,
        and so are the rounds, rows, mistakes and the hedge's losses. The sum
        is exact: it equals one learner given both streams' rounds with the
        same plays. With ``discount < 1`` each side's regrets enter as
        discounted at its own last round (the two streams run side by side,
        ending together). Both must have the same parameters (but
        ``random_state``), classes, features and tests; this learner's warm
        start window, last tree and random state are kept
        (:mod:`sklearn_localregret.merging`).

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
