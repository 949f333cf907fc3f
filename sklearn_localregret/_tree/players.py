"""The tree learner's regret modes as players, behind one small base.

A *player* is the tree learner of one notion of regret at one discount. It
owns its regret table and what plays from it -- the colouring, the rate
graph, the samplers and the tree it played last -- and does what a round,
a prediction and a saved model ask of them: draw a tree, play a round,
refresh, give the class probabilities of its distribution, forget what has
decayed, take in a merged table, rebuild what a saved model leaves out.

:class:`~sklearn_localregret.LocalRegretTreeClassifier` picks the player's
class from :data:`~sklearn_localregret._tree.PLAYERS` by its ``regret``
parameter, as scikit-learn's tree picks a splitter from ``DENSE_SPLITTERS``,
and makes one player per discount (:mod:`sklearn_localregret._discount_players`
swaps them). A player takes arrays, the tests and the window of recent rows,
never the estimator; the estimator keeps the parameters, the validation, the
loop over rounds and the public views.
"""

from __future__ import annotations

import threading

import numpy as np

from ..engine import StumpRegretTable
from ..locality.decision_tree import Leaf, Tree, TreeLayout, compile_tree, predict_tree
from ..locality.flat_tree import FlatTree, PlayedTree
from ..locality.recent_rows import RecentRows
from ..locality.tree_coloring import TreeColoring
from ..thresholds import ThresholdTests

__all__ = ["TreePlayer"]

# Compiled trees a player keeps (tree_labels); all are dropped past it.
_LAYOUTS_KEPT = 4096


class TreePlayer:
    """Base of the tree learner's players (one regret mode, one discount).

    Parameters
    ----------
    tests : ThresholdTests
        The learner's tests, shared by its players.
    n_classes : int
    discount : float
        The regret table's discount.
    leaf_model : bool
        Whether leaves may be naive Bayes models.
    model_reads : bool
        Whether every site keeps a naive Bayes model and its read scores, so
        that a prediction may let its leaves read the model (adaptive leaf
        reads; external regret: players that compute models).
    max_depth : int or None
        Depth limit of the locality graph (the colouring's).
    L : int or None
        Levels of the locality graph in play (the redirect to the root).
    n_mcmc_steps : int
        Steps of the uniformised chain (external regret's fallback draw).
    lock : threading.RLock, optional
        The estimator's model lock, for a player whose prediction caches
        take it (external regret's label walk).

    Attributes
    ----------
    table : StumpRegretTable
        The regrets: rows keyed by path (external) or ``(tree, path)`` (swap).
    coloring : TreeColoring
        The colours out of a played tree and a round's statistics.
    last_tree : Leaf or Split
        The tree played in the last round.
    n_mcmc_draws : int
        Rounds whose tree came from the approximate chain sampler.
    largest_round : float
        The largest range of a round's utilities so far (weight plus bias):
        the scale below which regrets are forgotten.
    """

    #: Whether a round reads the rows' test outcomes as lists (routing in Python).
    reads_rows: bool = False
    #: Whether rounds and predictions run in compiled kernels (they call no BLAS).
    compiled: bool = False
    #: Whether the rounds compute model leaves (``leaf_model="naive_bayes"``).
    computes_models: bool = False
    #: Attributes a saved player leaves out: :meth:`rebuild` makes them anew.
    rebuilt: tuple[str, ...] = ()
    #: The share of a whole round that short rounds have played on the last
    #: tree drawn (0: the next round draws; players saved before it: 0).
    open_round = 0.0

    def __init__(
        self,
        tests: ThresholdTests,
        n_classes: int,
        discount: float,
        *,
        leaf_model: bool,
        max_depth: int | None,
        L: int | None,
        n_mcmc_steps: int,
        model_reads: bool = False,
        lock: threading.RLock | None = None,
    ):
        self.table = StumpRegretTable(
            n_classes,
            discount=discount,
            leaf_model=leaf_model,
            model_reads=model_reads and self.computes_models,
        )
        self.coloring = TreeColoring(tests, n_classes, max_depth, leaf_model=leaf_model)
        self.L = L
        self.n_mcmc_steps = n_mcmc_steps
        self.last_tree = Leaf(0)
        self.n_mcmc_draws = 0
        self.largest_round = 0.0  # Delta so far, the scale of forgetting

    @classmethod
    def saved_before_players(cls, state: dict, L, n_mcmc_steps) -> TreePlayer:
        """A player from an estimator's state saved before the players (its
        attributes ``_table``, ``_coloring``, ``_sampler``, ``last_tree_``,
        ``n_mcmc_draws_``, ``_largest_round``), ready for :meth:`rebuild`."""
        player = cls.__new__(cls)
        player.__dict__.update(
            coloring=state["_coloring"],
            L=L,
            n_mcmc_steps=n_mcmc_steps,
            last_tree=state["last_tree_"],
            n_mcmc_draws=state["n_mcmc_draws_"],
            largest_round=state.get("_largest_round", 0.0),
        )
        player._take_saved(state)
        return player

    def _take_saved(self, state: dict) -> None:
        """What else :meth:`saved_before_players` takes from the old state."""
        raise NotImplementedError

    @property
    def last_tree(self) -> Tree:
        """The tree played in the last round (a round may keep it as a
        :class:`~sklearn_localregret.locality.flat_tree.PlayedTree`, built
        when read)."""
        played = self.__dict__["last_tree"]
        return played.tree if isinstance(played, PlayedTree) else played

    @last_tree.setter
    def last_tree(self, tree: Tree) -> None:
        self.__dict__["last_tree"] = tree

    def _keep_played(self, flat: FlatTree) -> None:
        """Keep the tree in ``flat`` as the last one played, unbuilt."""
        self.__dict__["last_tree"] = flat.played()

    # -- persistence ------------------------------------------------------
    def __getstate__(self):
        state = {
            k: v
            for k, v in self.__dict__.items()
            if k not in self.rebuilt and k != "_layouts"
        }
        if "last_tree" in state:  # saved as nodes, as before
            state["last_tree"] = self.last_tree
        return state

    def rebuild(self, lock: threading.RLock) -> None:
        """Make the attributes of :attr:`rebuilt` around the saved state
        (after loading); ``lock`` is the estimator's model lock."""
        raise NotImplementedError

    # -- rounds -----------------------------------------------------------
    @property
    def tests(self) -> ThresholdTests:
        return self.coloring.tests

    def draw(self, rng: np.random.Generator) -> tuple[Tree, bool]:
        """A tree from pi; also whether the approximate chain sampler drew it."""
        raise NotImplementedError

    def play_round(
        self,
        rng: np.random.Generator,
        outcomes: np.ndarray,
        rows: list,
        y: np.ndarray,
        weight: np.ndarray,
        bias: float,
        window: RecentRows,
        warm_start: int,
        span: float = 1.0,
    ) -> float:
        """One round: draw a tree, learn the rows, refresh; its weight of
        mistakes. ``outcomes`` are the rows' test outcomes (``rows`` the same
        as lists when :attr:`reads_rows`), ``bias`` the round's bias,
        ``window`` the recent rows that new sites warm-start from, ``span``
        the rounds it counts for in the discount (its rows over the
        learner's ``batch_size``: a short round forgets less)."""
        raise NotImplementedError

    def goes_on(self, span: float) -> bool:
        """Whether a round of ``span`` rounds plays the last tree drawn: a
        short round (a call of fewer than ``batch_size`` rows) after short
        rounds that have not made a whole round yet: rows that come in
        calls of fewer than ``batch_size`` rows get one draw per
        ``batch_size`` rows (a call of more starts its own rounds)."""
        return span < 1.0 and self.open_round > 0.0

    def played(self, span: float, went_on: bool) -> None:
        """Count a round of ``span`` into the open round (closed once whole)."""
        opened = (self.open_round if went_on else 0.0) + span
        self.open_round = opened if opened < 1.0 - 1e-9 else 0.0

    def add_tests(self, added) -> None:
        """Give the table the tests that entered (and their missing-value
        variants' pairs and their columns' chains of thresholds, which its
        models read as one feature each)."""
        self.table.add_tests(added)
        self.table.pair_missing_variants(self.tests.missing_partners())
        self.table.chain_thresholds(self.tests.next_thresholds())

    def finish_call(self) -> None:
        """Once after a call's rounds: bring the prediction's caches up to date,
        so that predicting (from other threads) only reads."""

    def absorbed(self) -> None:
        """Renew what is derived from the table after rows were added to it
        (a merge)."""
        raise NotImplementedError

    # -- prediction -------------------------------------------------------
    def walks(self, n_predict_trees) -> bool:
        """Whether :meth:`probabilities` walks the table (no list of trees)."""
        return False

    def distribution(self, n_predict_trees) -> tuple[list, np.ndarray]:
        """Trees and their weights under pi (exact, or a fixed-seed sample)."""
        raise NotImplementedError

    def probabilities(
        self, outcomes: np.ndarray, n_predict_trees, tolerance: float, reads=False
    ) -> np.ndarray:
        """Class probabilities of rows with these test outcomes (``reads``:
        leaves read their sites' models where those lead, see
        :meth:`tree_labels`)."""
        trees, probs = self.distribution(n_predict_trees)
        proba = np.zeros((outcomes.shape[0], self.table.n_classes))
        rows = np.arange(outcomes.shape[0])
        for tree, p in zip(trees, probs):
            proba[rows, self.tree_labels(tree, outcomes, reads)] += p
        return proba

    def tree_labels(self, tree: Tree, outcomes: np.ndarray, reads=False) -> np.ndarray:
        """Class indices a tree gives the rows: a model leaf its model's; with
        ``reads`` (and a table with model reads), any leaf whose site's model
        has got more weight right than its majority label, that model's."""
        labels = predict_tree(self._layout_of(tree), outcomes)
        table = self.table
        model = labels == table.n_classes
        reads = bool(reads) and table.model_reads
        if model.any() or reads:
            flat = FlatTree.from_tree(tree, table.find)
            sites = flat.row[flat.leaves_of(outcomes)]
            if reads:
                scores = table.read_scores
                has = sites >= 0
                model[has] |= scores[sites[has], 0] > scores[sites[has], 1]
            if model.any():
                labels[model] = table.model_labels(sites[model], outcomes[model])
        return labels

    def _layout_of(self, tree: Tree) -> TreeLayout:
        """``tree`` compiled, kept for the next rounds: a distribution's trees
        come back every round (several swap players score each round with
        every tree of theirs; compiling was a third of that time)."""
        layouts = self.__dict__.setdefault("_layouts", {})
        layout = layouts.get(tree)
        if layout is None:
            if len(layouts) >= _LAYOUTS_KEPT:
                layouts.clear()
            layout = layouts[tree] = compile_tree(tree)
        return layout

    def representative_tree(self) -> Tree:
        """One tree that summarises pi (see the estimator's method)."""
        raise NotImplementedError

    def regret_sum(self) -> float:
        """The regret ``local_regret_`` averages over the rounds."""
        raise NotImplementedError
