"""The external-regret player: colored regret matching on a factored table.

One regret per *(path, replacement)*, shared by every tree that contains
the path (the paper's admissible colouring), kept as
:class:`~sklearn_localregret.engine.StumpRegretTable` sums. A round runs in
compiled kernels: the exact ``L = inf`` draw into
:class:`~sklearn_localregret.locality.flat_tree.FlatTree` arrays
(``draw_tree``), replaced by the uniformised chain's draw when it leaves
level ``L``, then the update of every site of the played tree
(``update_played_sites``). Prediction walks the table
(:class:`~sklearn_localregret.engine.HierarchicalLabels`).
"""

from __future__ import annotations

import threading
from collections import Counter

import numpy as np

from ..engine import (
    FORGET_TOLERANCE,
    HierarchicalLabels,
    HierarchicalSampler,
    UniformizedChainSampler,
    forget_tolerance,
)
from ..engine.compiled.tree_draw import NEED_UNIFORMS, draw_tree
from ..locality.decision_tree import Leaf, Split, Tree, tree_level
from ..locality.flat_tree import FlatTree
from ..locality.tree_rate_graph import TreeRateGraph
from ..locality.tree_round_kernels import update_played_sites
from .players import TreePlayer

__all__ = ["ExternalPlayer"]

# Seed of the trees drawn by predict_proba: a fitted model predicts the same
# way every time, and predicting never touches the training random state.
PREDICT_SEED = 0


class ExternalPlayer(TreePlayer):
    """Local external regret: ``(b, L, C)``-colored regret matching.

    Owns, besides the table and colouring (:class:`TreePlayer`), the rate
    graph and the samplers made around the table: the hierarchical sampler
    (the exact ``L = inf`` draw), the uniformised chain (the redirect at
    level ``L``), the label walk of prediction and the played tree's arrays.
    """

    compiled = True
    computes_models = True
    rebuilt = ("graph", "sampler", "chain", "labels", "flat")

    def __init__(self, tests, n_classes, discount, *, lock=None, **graph):
        super().__init__(tests, n_classes, discount, lock=lock, **graph)
        self._build_samplers()
        self.labels = HierarchicalLabels(self.table)
        if lock is not None:
            self.labels.lock = lock  # one lock for the model

    def _take_saved(self, state: dict) -> None:
        self.table = state["_table"]

    def rebuild(self, lock: threading.RLock) -> None:
        self._build_samplers()
        self.labels = HierarchicalLabels(self.table)
        self.labels.lock = lock  # one lock for the model
        self._group_label_tests()
        if self.open_round > 0.0:  # short rounds go on with the tree they played
            self.play_next(self.last_tree)

    def _build_samplers(self) -> None:
        """The rate graph, the samplers and the played tree's arrays, made
        anew around the table."""
        self.graph = TreeRateGraph(self.table, self.coloring, per_tree=False)
        self.sampler = HierarchicalSampler(self.table, make_leaf=Leaf, make_split=Split)
        self.chain = UniformizedChainSampler(self.graph, self.L, self.n_mcmc_steps)
        self.flat = FlatTree(16)

    def _group_label_tests(self) -> None:
        """Tell the prediction walk that the thresholds of a feature are
        passed in increasing order (one bisection per feature and site)."""
        self.labels.group_tests(*self.tests.label_groups())

    def add_tests(self, added) -> None:
        super().add_tests(added)
        self._group_label_tests()

    def finish_call(self) -> None:
        self.labels.refresh()

    def absorbed(self) -> None:
        self.open_round = 0.0  # the next round draws from the summed table
        self.labels.paths.update()
        self.table.refresh()
        self.labels.refresh()

    # -- rounds -----------------------------------------------------------
    def draw(self, rng: np.random.Generator) -> tuple[Tree, bool]:
        """The compiled draw of the rounds (:meth:`draw_flat`), as a tree."""
        by_chain = self.draw_flat(rng)
        return self.flat.to_tree(), by_chain

    def play_round(
        self, rng, outcomes, rows, y, weight, bias, window, warm_start, span=1.0
    ):
        """A round of colored regret matching on the compiled kernels.

        The tree is drawn into :class:`FlatTree` arrays, its new sites get
        rows (and their warm start), and every site of the played tree is
        updated, its content weights recomputed with it.

        Short rounds (``span < 1``: calls of fewer than ``batch_size`` rows)
        go on playing the tree drawn for the short rounds before them until
        they add up to a whole round: one draw per ``batch_size`` rows of
        such calls, and the updates those rows would have made
        as one round, in parts (each pays its rows' bias, and decays by its
        span).
        """
        table = self.table
        flat = self.flat
        go_on = self.goes_on(span) and flat.n_nodes > 0
        by_chain = False if go_on else self.draw_flat(rng)
        table.advance(span)
        flat = self.flat
        new = np.zeros(0, dtype=np.intp) if go_on else self._create_sites(flat)
        if warm_start and new.size:
            passes, y_window, w_window, order = window.ring(self.tests)
            if order.size:
                # A warm start fills the new sites' counts; their models
                # score from the round on (before it they had no counts).
                self._update_sites(
                    new, passes, y_window, w_window, order, 0.0, score_reads=False
                )
        wrong = self._update_sites(
            np.arange(flat.n_nodes),
            outcomes,
            y,
            weight,
            np.arange(y.shape[0]),
            bias,
        )
        if not go_on:
            self._keep_played(flat)
        self.n_mcmc_draws += int(by_chain)
        self.played(span, go_on)
        self._forget_quiet_sites(weight.sum() + bias)  # rebuilt: draws next
        return wrong

    def _forget_quiet_sites(self, round_range: float) -> None:
        """Drop the sites whose regrets have decayed to nothing.

        As the swap player's trees: every ``FORGET_EVERY`` rounds of a
        discounted table, a site none of whose regrets exceeds
        ``FORGET_TOLERANCE * Delta`` in absolute value is forgotten (the root
        never is), so that memory follows the sites in play, not every path
        ever played. A forgotten path that is played again enters as a new
        site (warm start included). The samplers and the label cache are
        rebuilt around the compacted table.
        """
        self.largest_round = max(self.largest_round, float(round_range))
        if forget_tolerance(self.table, self.largest_round) is not None:
            self.forget_quiet_sites()

    def forget_quiet_sites(self) -> None:
        """Forget now the sites the rounds forget every ``FORGET_EVERY``
        rounds (a discounted table; see :meth:`_forget_quiet_sites`): after
        a sync of sharded learning, which decays the table by the other
        shards' rounds at once."""
        table = self.table
        if table.discount == 1.0:
            return
        quiet = table.row_magnitudes() <= FORGET_TOLERANCE * self.largest_round
        root = table.find(())
        if root >= 0:
            quiet[root] = False
        if quiet.any():
            table.forget(np.flatnonzero(quiet))
            self._build_samplers()
            self.labels.reset()  # in place: whoever holds it stays in step
            # The played tree's arrays are gone (and its sites may be): the
            # next round draws, here and in a copy saved now (which would
            # otherwise go on with the last tree).
            self.open_round = 0.0

    def draw_flat(self, rng: np.random.Generator) -> bool:
        """Draw the round's tree into :attr:`flat`; whether the chain drew it.

        The exact ``L = inf`` draw (compiled), replaced by the chain
        sampler's when it leaves level ``L``.
        """
        table, paths = self.table, self.labels.paths
        table.refresh()
        paths.update()
        flat = self.flat
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
        bound = self.graph.out_rate_bound(2 * self.L + 1)
        self.play_next(self.chain.sample(self.last_tree, bound, rng))
        return True

    def play_next(self, tree: Tree) -> None:
        """Make ``tree`` the tree the round plays (the draw's place)."""
        self.flat = FlatTree.from_tree(tree, self.table.find)

    def _create_sites(self, flat: FlatTree) -> np.ndarray:
        """Give the played tree's sites without a row one; those nodes."""
        new = np.flatnonzero(flat.row[: flat.n_nodes] < 0)
        if new.size:
            table = self.table
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
            self.labels.paths.update()
        return new

    def _update_sites(
        self, nodes, outcomes, y, weight, order, bias: float, score_reads=True
    ) -> float:
        """One update of the played tree's sites at ``nodes`` by the rows
        ``order`` of ``outcomes``, ``y`` and ``weight`` (``score_reads``: and
        the read scores of a table with model reads)."""
        table, flat, tests = self.table, self.flat, self.tests
        max_depth = self.coloring.max_depth
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
            -1 if max_depth is None else max_depth,
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
            table._reads,
            bool(score_reads and table.model_reads),
            table.missing_partners,
            table.next_thresholds,
        )

    # -- prediction -------------------------------------------------------
    def walks(self, n_predict_trees) -> bool:
        return n_predict_trees is None

    def probabilities(self, outcomes, n_predict_trees, tolerance, reads=False):
        if n_predict_trees is None:
            return self.labels.probabilities(outcomes, tolerance=tolerance, reads=reads)
        return super().probabilities(outcomes, n_predict_trees, tolerance, reads)

    def distribution(self, n_predict_trees) -> tuple[list, np.ndarray]:
        """The fixed-seed sample of ``n_predict_trees`` trees from pi."""
        # Drawing reads the model only: the samplers' caches are up to date.
        rng = np.random.default_rng(PREDICT_SEED)
        trees = self.sampler.sample_many(n_predict_trees, rng)
        if self.L is not None:
            # As in draw_flat: a draw beyond level L comes from the chain.
            bound = None
            for i, tree in enumerate(trees):
                if tree_level(tree) > self.L:
                    if bound is None:
                        bound = self.graph.out_rate_bound(2 * self.L + 1)
                    trees[i] = self.chain.sample(self.last_tree, bound, rng)
        draws = Counter(trees)
        trees = list(draws)
        return trees, np.array([draws[t] for t in trees], float) / n_predict_trees

    def representative_tree(self) -> Tree:
        """The greedy top-down mode of the hierarchical distribution."""
        return self._greedy_site((), 0)

    def _greedy_site(self, path: tuple, start_label: int) -> Tree:
        table = self.table
        row = table.find(path)
        if row < 0:
            return Leaf(start_label)
        content, _, total = table.site(row)
        if total <= 0:
            return Leaf(start_label)
        best = int(np.argmax(content))
        k = table.n_classes
        if best < table.n_leaves:  # a label, or the model leaf
            return Leaf(best)
        v = best - table.n_leaves
        c_true, c_false = divmod(int(np.argmax(table.pair_weights(row, v))), k)
        return Split(
            v,
            self._greedy_site(path + ((v, 1),), c_true),
            self._greedy_site(path + ((v, 0),), c_false),
        )

    def regret_sum(self) -> float:
        """The local colored regret, ``sum_C (R_C)+``."""
        return self.table.colored_regret()
