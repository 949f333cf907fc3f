"""The swap-regret player: per-edge regrets on a graph of played trees.

One regret per edge ``(tree, path, replacement)``: the table's rows are keyed
by ``(tree, path)``, the rate graph knows the played trees (the chain's
vertices with out-edges), and the finite chain over the trees reachable from
the root is solved exactly each round (only the played tree's out-edges are
rebuilt, :class:`~sklearn_localregret.engine.FiniteChainSampler`). Rounds
route rows in Python (``TreeColoring.round_statistics`` and ``.update``).
"""

from __future__ import annotations

import threading
from typing import cast

import numpy as np

from ..engine import FiniteChainSampler, forget_tolerance
from ..locality.decision_tree import Tree, compile_tree
from ..locality.tree_rate_graph import TreeRateGraph
from .players import TreePlayer

__all__ = ["SwapPlayer"]


class SwapPlayer(TreePlayer):
    """Local swap regret: ``(b, L)``-regret matching, one regret per edge.

    Owns, besides the table and colouring (:class:`TreePlayer`), the rate
    graph over the played trees and the sampler of the solved finite chain.
    A saved player keeps the sampler, which refers to the graph and the
    table: both are taken from it on load.
    """

    reads_rows = True
    rebuilt = ("graph", "table")

    def __init__(self, tests, n_classes, discount, *, lock=None, **graph):
        super().__init__(tests, n_classes, discount, lock=lock, **graph)
        self.graph = TreeRateGraph(self.table, self.coloring, per_tree=True)
        self.sampler = FiniteChainSampler(self.graph, self.L)

    def _take_saved(self, state: dict) -> None:
        self.sampler = state["_sampler"]

    def rebuild(self, lock: threading.RLock) -> None:
        self.graph = cast(TreeRateGraph, self.sampler.graph)
        self.table = self.graph.table

    def absorbed(self) -> None:
        self.open_round = 0.0  # the next round draws from the summed table
        # The rate graph knows the played trees (the chain's vertices with
        # out-edges): those whose rows came from the other are added.
        graph, seen = self.graph, set()
        keys = cast("list[tuple[Tree, int]]", self.table.keys())
        for tree, _ in keys:
            if tree not in graph._played and tree not in seen:
                seen.add(tree)
                graph.rows(compile_tree(tree))
        self.sampler.invalidate()
        self.sampler.refresh()

    # -- rounds -----------------------------------------------------------
    def draw(self, rng: np.random.Generator) -> tuple[Tree, bool]:
        # The chain's vertices are trees (FiniteChainSampler is not generic).
        return cast(Tree, self.sampler.sample(rng)), False

    def play_round(
        self, rng, outcomes, rows, y, weight, bias, window, warm_start, span=1.0
    ):
        # A short round after short rounds goes on with their tree (goes_on).
        go_on = self.goes_on(span)
        tree, by_chain = (self.last_tree, False) if go_on else self.draw(rng)
        layout = compile_tree(tree)
        resets = self.table.clock.n_resets
        self.table.advance(span)
        if self.table.clock.n_resets != resets:
            self.sampler.invalidate()  # every stored rate changed
        new = self.graph.new_nodes(layout) if warm_start and not go_on else []
        table_rows = self.graph.rows(layout)
        self._warm_start_sites(layout, table_rows, new, window)
        stats = self.coloring.round_statistics(layout, outcomes, y, weight, rows)
        self.coloring.update(self.table, table_rows, layout, stats, bias)
        # Bring the sampler's caches up to date now, so that reading the model
        # (predict, inspection) never writes to it. Only the edges out of the
        # played tree changed.
        self.sampler.invalidate(tree)
        self.played(span, go_on)
        if self._forget_quiet_trees(weight.sum() + bias):
            self.open_round = 0.0  # the tree may be gone: the next round draws
        self.sampler.refresh()
        self.last_tree = tree
        self.n_mcmc_draws += int(by_chain)
        return float(weight[stats.prediction != y].sum())

    def _warm_start_sites(self, layout, rows, new, window) -> None:
        """Start new sites from the recent rows that reach them (the
        estimator's Notes, "Warm start")."""
        if not new:
            return
        y, w = window.contents()
        if y.size == 0:
            return
        stats = self.coloring.node_statistics(
            layout, new, window.outcomes(self.tests), y, w
        )
        leaf_mask, test_mask = self.coloring.edge_masks(layout)
        self.table.update(
            [rows[i] for i in new],
            stats.leaf_gains,
            leaf_mask[new],
            stats.true_counts,
            stats.class_counts,
            stats.correct,
            test_mask[new],
        )

    def _forget_quiet_trees(self, round_range: float) -> bool:
        """Drop the trees whose regrets have decayed to nothing; whether any
        was.

        Every ``FORGET_EVERY`` rounds, a played tree none of whose regrets
        exceeds ``FORGET_TOLERANCE * Delta`` in absolute value is forgotten,
        ``Delta`` being the largest range of a round's utilities so far (its
        weight plus the bias). Undiscounted regrets never decay: nothing is
        forgotten (the estimator's Notes).
        """
        self.largest_round = max(self.largest_round, float(round_range))
        tolerance = forget_tolerance(self.table, self.largest_round)
        if tolerance is None:
            return False
        forgotten = self.graph.forget_quiet_trees(tolerance)
        for tree in forgotten:
            self.sampler.invalidate(tree)
        return bool(forgotten)

    # -- prediction -------------------------------------------------------
    def distribution(self, n_predict_trees=None) -> tuple[list, np.ndarray]:
        """The exact stationary distribution of the finite chain."""
        return self.sampler.distribution()

    def representative_tree(self) -> Tree:
        """The most probable tree (exact)."""
        trees, probs = self.sampler.distribution()
        return cast(Tree, trees[int(np.argmax(probs))])

    def regret_sum(self) -> float:
        """The local swap regret, ``sum_i max_j R+_{i,j}`` over the played
        trees ``i``."""
        per_row = self.table.row_max_regret()
        best: dict = {}
        # The table's rows are keyed by (tree, colour).
        keys = cast("list[tuple[Tree, int]]", self.table.keys())
        for (tree, _), value in zip(keys, per_row.tolist()):
            best[tree] = max(best.get(tree, 0.0), value)
        return float(sum(best.values()))
