"""The regret-matching chain over decision trees, as a rate graph.

The rate of an edge of the tree locality graph is ``Rtilde+`` of its colour
(:mod:`~sklearn_localregret.locality.tree_coloring`), read from a
:class:`~sklearn_localregret.engine.StumpRegretTable` whose rows are keyed by
path (colored, "external") or by ``(tree, path)`` (per edge, "swap"). The
chain samplers (:class:`~sklearn_localregret.engine.FiniteChainSampler`,
:class:`~sklearn_localregret.engine.UniformizedChainSampler`) read it; for
per-edge regrets it also owns the played trees and forgets those whose regrets
have decayed to nothing.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_scalar

from ..engine import StumpRegretTable
from ..engine.saved_paths import pack_tree_nodes, unpack_tree_nodes
from .decision_tree import (
    Leaf,
    Split,
    Tree,
    TreeLayout,
    compile_tree,
    replace_subtree,
    tree_level,
)
from .tree_coloring import TreeColoring

__all__ = ["TreeRateGraph"]

_NO_RATES = np.zeros(0)
_NO_RATES.flags.writeable = False


class TreeRateGraph:
    """The regret-matching chain over trees, as a RateGraph.

    The rate of an edge is ``Rtilde+`` of its colour, read from ``table``.

    Parameters
    ----------
    table : StumpRegretTable
        Rows are keyed by path (colored regrets) or by ``(tree, path)``
        (per-edge regrets).
    coloring : TreeColoring
    per_tree : bool, default=False
        Whether rows are keyed by ``(tree, path)``: local swap regret, one
        regret per edge.
    root_label : int, default=0
        Label of the root leaf.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests
    >>> tests = ThresholdTests(FixedThresholds(0.5), n_features=1)
    >>> _ = tests.observe(np.zeros((1, 1)))
    >>> table = StumpRegretTable(n_classes=2, n_tests=1)
    >>> graph = TreeRateGraph(table, TreeColoring(tests, 2))
    >>> table.update([table.row(())], np.array([[0.0, 2.0]]),
    ...              np.array([[False, True]]), np.zeros((1, 1, 2)),
    ...              np.zeros((1, 2)), np.zeros(1), np.zeros((1, 1), bool))
    >>> graph.positive_out_edges(Leaf(0))
    ([Leaf(label=1)], array([2.]))
    >>> graph.level(Leaf(1))
    1
    """

    def __init__(
        self,
        table: StumpRegretTable,
        coloring: TreeColoring,
        per_tree: bool = False,
        root_label: int = 0,
    ):
        self.table = table
        self.coloring = coloring
        self.per_tree = per_tree
        self.root = Leaf(root_label)
        # per_tree: played tree -> [layout, its rows, row versions, edge cache]
        self._played: dict = {}

    def __getstate__(self):
        # The played trees as their nodes and their rows as one array (skops
        # saves only dicts whose keys are str/int/float/bool/None, and writes
        # a node a tree node); the layouts and edge caches are rebuilt.
        state = self.__dict__.copy()
        trees = pack_tree_nodes(list(self._played))
        rows = [entry[1] for entry in self._played.values()]
        if trees is None:  # none played (or not trees): as pairs
            state["_played"] = [
                (tree, [entry[0], entry[1], None, None])
                for tree, entry in self._played.items()
            ]
            return state
        state["_played"] = {
            "trees": trees,
            "lengths": np.array([len(r) for r in rows], dtype=np.intp),
            "rows": np.concatenate(rows).astype(np.int64),
        }
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        played = state["_played"]
        if isinstance(played, dict):
            trees = unpack_tree_nodes(played["trees"])
            lengths = np.asarray(played["lengths"])
            rows = np.asarray(played["rows"], dtype=np.int64)
            if lengths.shape != (len(trees),) or int(lengths.sum()) != rows.size:
                raise ValueError("a damaged rate graph: its played trees' rows")
            parts = np.split(rows, np.cumsum(lengths)[:-1])
            played = [
                (tree, [compile_tree(tree), part.copy(), None, None])
                for tree, part in zip(trees, parts)
            ]
        # (models saved before: (tree, [layout, rows, None, None]) pairs)
        self._played = dict(played)

    def level(self, vertex: Tree) -> int:
        return tree_level(vertex, self.root.label)

    def new_nodes(self, layout: TreeLayout) -> list[int]:
        """Nodes of a tree about to be played whose site has no row yet."""
        if self.per_tree:
            if layout.tree in self._played:
                return []
            return list(range(layout.n_nodes))
        find = self.table.find
        return [i for i, path in enumerate(layout.paths) if find(path) < 0]

    def rows(self, layout: TreeLayout) -> list[int]:
        """Table rows of the nodes of a tree that is being played (created)."""
        table = self.table
        if not self.per_tree:
            return [table.row(path) for path in layout.paths]
        entry = self._played.get(layout.tree)
        if entry is None:
            tree = layout.tree
            rows = [table.row((tree, path)) for path in layout.paths]
            entry = self._played[tree] = [layout, np.array(rows), None, None]
        return entry[1].tolist()

    def forget_quiet_trees(self, tolerance: float) -> list[Tree]:
        """Forget the played trees none of whose regrets exceeds ``tolerance``.

        Per-edge regrets only (``per_tree``). A played tree all of whose
        regrets, biased and unbiased, lie within ``[-tolerance, tolerance]``
        loses its rows: it reads as never played (an absorbing vertex) until
        it is played again, when it starts afresh. With a discount every
        regret of a tree that is not played decays geometrically, so a tree
        is forgotten a bounded number of rounds after it was last played.

        Returns
        -------
        list of trees
            The trees forgotten (a sampler caching their out-edges must be
            told).
        """
        if not self.per_tree or not self._played:
            return []
        quiet = self.table.row_magnitudes() <= tolerance
        trees = [tree for tree, entry in self._played.items() if quiet[entry[1]].all()]
        if trees:
            rows = np.concatenate([self._played.pop(tree)[1] for tree in trees])
            renumber = self.table.forget(rows)
            for entry in self._played.values():
                entry[1] = renumber[entry[1]]
        return trees

    def positive_out_edges(self, vertex: Tree) -> tuple[list, np.ndarray]:
        """Edges out of ``vertex`` with a positive rate, and those rates.

        With per-edge regrets the answer for a played tree is cached until one
        of its rows changes (its version in the table moves on).
        """
        if self.per_tree:
            entry = self._played.get(vertex)
            if entry is None:  # never played: no regret, an absorbing vertex
                return [], _NO_RATES
            layout, rows, versions, cached = entry
            current = self.table.versions[rows]
            if versions is not None and np.array_equal(versions, current):
                return cached
            result = self._edges(layout, rows.tolist(), range(layout.n_nodes))
            entry[2], entry[3] = current.copy(), result
            return result
        layout = compile_tree(vertex)
        found = [(i, self.table.find(p)) for i, p in enumerate(layout.paths)]
        found = [(i, r) for i, r in found if r >= 0]
        if not found:
            return [], np.zeros(0)
        nodes, rows = zip(*found)
        return self._edges(layout, rows, nodes)

    def _edges(self, layout, rows, nodes):
        leaf_mask, test_mask = self.coloring.edge_masks(layout)
        tree, targets, rates = layout.tree, [], []
        for i, row in zip(nodes, rows):
            leaves, stumps, r = self.table.positive_colours(
                row, leaf_mask[i], test_mask[i]
            )
            path = layout.paths[i]
            targets.extend(
                replace_subtree(tree, path, Leaf(c)) for c in leaves.tolist()
            )
            targets.extend(
                replace_subtree(tree, path, Split(v, Leaf(ct), Leaf(cf)))
                for v, ct, cf in stumps.tolist()
            )
            rates.append(r)
        return targets, np.concatenate(rates) if rates else np.zeros(0)

    def out_rate_bound(self, max_nodes: int) -> float:
        """An upper bound on the out-rate of every tree of at most ``max_nodes`` nodes.

        A tree's out-rate is at most the sum of the positive regrets of the
        rows of its nodes, so the sum of the ``max_nodes`` largest row totals
        bounds it (colored regrets only).

        Parameters
        ----------
        max_nodes : int
            At least 1: every tree has a node.

        Returns
        -------
        float

        Raises
        ------
        TypeError
            If ``max_nodes`` is not an integer.
        ValueError
            If ``max_nodes`` is below 1.
        """
        # Every tree has a node, and np.partition needs a whole count >= 1.
        check_scalar(max_nodes, "max_nodes", Integral, min_val=1)
        totals = self.table.site_totals()
        if totals.size > max_nodes:
            totals = np.partition(totals, totals.size - max_nodes)[-max_nodes:]
        return float(totals.sum())
