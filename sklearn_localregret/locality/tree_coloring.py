"""The decision-tree locality graph, its admissible colouring and its rates.

The paper's graph (Example "Online Decision Tree Learning"): from a tree, an
edge replaces the subtree at any node by

* a leaf ``c``, unless the node already *is* the leaf ``c``; or
* a stump ``(v, c_true, c_false)`` on a variable ``v`` that is not on the
  node's path and is not the variable the node already splits on (a stump with
  ``c_true == c_false`` is an edge too).

The admissible colouring (Example "Colored Decision Tree Learning") colours an
edge with ``(path, replacement)``. :class:`TreeColoring` lays the colours of one
path out as a row of ``K + n * K * K`` columns, leaves first, then stumps
variable by variable (:func:`~sklearn_localregret.engine.stump_column`), and
computes the utility gain of every colour out of a played tree in one
vectorised pass. :class:`TreeRateGraph` exposes the current regrets as a
:class:`~sklearn_localregret.engine.RateGraph` for the chain samplers, keyed by
path (colored, "external") or by ``(tree, path)`` (per edge, "swap").
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..engine import RegretTable
from .decision_tree import (
    Leaf,
    Split,
    Tree,
    TreeLayout,
    compile_tree,
    replace_subtree,
    route_rows,
    tree_level,
)

__all__ = ["TreeColoring", "TreeRateGraph"]

_NO_RATES = np.zeros(0)
_NO_RATES.flags.writeable = False


class TreeColoring:
    """Column layout and vectorised regret gains of the tree colouring.

    Parameters
    ----------
    n_features : int
        Number of boolean variables ``n``.
    n_classes : int
        Number of labels ``K``.
    max_depth : int or None, default=None
        If set, nodes at depth ``max_depth`` (path length) have no stump
        colours: the locality graph is restricted to trees of at most that
        depth, and the regret guarantee holds for the restricted graph.

    Attributes
    ----------
    width : int
        Colours per path, ``K + n * K * K``.

    Examples
    --------
    >>> coloring = TreeColoring(n_features=2, n_classes=2)
    >>> coloring.width
    10
    >>> coloring.replacement(7)
    Split(feature=1, true_child=Leaf(label=0), false_child=Leaf(label=1))
    >>> coloring.column(Split(1, Leaf(0), Leaf(1)))
    7
    """

    def __init__(self, n_features: int, n_classes: int, max_depth: int | None = None):
        self.n_features = int(n_features)
        self.n_classes = int(n_classes)
        self.max_depth = max_depth
        k = self.n_classes
        self.width = k + self.n_features * k * k
        # _patterns[2 * y + x] = which stump label pairs (c_true, c_false) are
        # right on a row of class y whose variable is x: c_true == y if x = 1,
        # c_false == y if x = 0.
        pairs = np.arange(k * k)
        patterns = np.zeros((2 * k, k * k))
        for c in range(k):
            patterns[2 * c] = pairs % k == c
            patterns[2 * c + 1] = pairs // k == c
        self._patterns = patterns
        self._stump_offsets = np.arange(k * k)

    # -- columns ----------------------------------------------------------
    def column(self, replacement: Tree) -> int:
        """Column of the colour that puts ``replacement`` (a leaf or a stump)."""
        k = self.n_classes
        if type(replacement) is Leaf:
            return replacement.label
        c_true = replacement.true_child.label
        c_false = replacement.false_child.label
        return k + (replacement.feature * k + c_true) * k + c_false

    def replacement(self, column: int) -> Tree:
        """The leaf or stump that the colour in ``column`` puts at its path."""
        k = self.n_classes
        if column < k:
            return Leaf(int(column))
        v, pair = divmod(int(column) - k, k * k)
        c_true, c_false = divmod(pair, k)
        return Split(v, Leaf(c_true), Leaf(c_false))

    # -- edges out of a tree ----------------------------------------------
    def edge_mask(self, layout: TreeLayout) -> np.ndarray:
        """``mask[p, col]``: whether colour ``col`` at node ``p`` is an edge.

        Not edges: the leaf a node already is, stumps on a variable of the
        node's path or on the variable the node splits on, and every stump
        below ``max_depth``.

        Examples
        --------
        >>> from sklearn_localregret.locality.decision_tree import compile_tree
        >>> layout = compile_tree(Split(0, Leaf(1), Leaf(0)))
        >>> TreeColoring(2, 2).edge_mask(layout).astype(int)
        array([[1, 1, 0, 0, 0, 0, 1, 1, 1, 1],
               [1, 0, 0, 0, 0, 0, 1, 1, 1, 1],
               [0, 1, 0, 0, 0, 0, 1, 1, 1, 1]])
        """
        k, width = self.n_classes, self.width
        excluded_leaves, excluded_vars = [], []
        max_depth = self.max_depth
        nodes = zip(layout.paths, layout.feature, layout.label)
        for i, (path, f, c) in enumerate(nodes):
            base = i * width
            if f < 0:
                excluded_leaves.append(base + c)
            else:
                excluded_vars.append(base + f * k * k)
            if max_depth is not None and len(path) >= max_depth:
                excluded_vars.extend(base + v * k * k for v in range(self.n_features))
            else:
                excluded_vars.extend(base + v * k * k for v, _ in path)
        mask = np.ones((layout.n_nodes, width), dtype=bool)
        flat = mask.reshape(-1)
        flat[excluded_leaves] = False
        starts = np.array(excluded_vars, dtype=np.intp) + k
        flat[(starts[:, None] + self._stump_offsets).reshape(-1)] = False
        return mask

    def neighbours(self, tree: Tree) -> Iterator[tuple[tuple, int, Tree]]:
        """Every edge out of ``tree`` as ``(path, column, neighbour tree)``.

        Examples
        --------
        >>> edges = list(TreeColoring(2, 2).neighbours(Leaf(0)))
        >>> len(edges), edges[0]
        (9, ((), 1, Leaf(label=1)))
        """
        layout = compile_tree(tree)
        mask = self.edge_mask(layout)
        for i, path in enumerate(layout.paths):
            for column in np.flatnonzero(mask[i]).tolist():
                new = replace_subtree(tree, path, self.replacement(column))
                yield path, column, new

    # -- the regret update --------------------------------------------------
    def round_gains(
        self,
        layout: TreeLayout,
        X: np.ndarray,
        y: np.ndarray,
        weight: np.ndarray,
        utility: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Utility gain ``u(j) - u(i)`` of every colour out of the played tree.

        The utility of a tree is the weight of the rows it classifies
        correctly. A neighbour differs from the played tree only below the
        replaced node ``p``, so its gain only involves the rows reaching ``p``:
        with ``Y_p`` their weighted one-hot labels, ``A1 = X_p^T Y_p`` (weight
        per variable and class where the variable is 1), ``A0`` the same where
        it is 0 and ``correct_p`` the weight the current subtree at ``p`` gets
        right,

        * leaf ``c``: ``gain = (weight of class c at p) - correct_p``;
        * stump ``(v, c_true, c_false)``:
          ``gain = A1[v, c_true] + A0[v, c_false] - correct_p``.

        All nodes and colours are computed at once (one matrix product); nodes
        no row reaches get gain 0.

        Parameters
        ----------
        layout : TreeLayout
            The played tree.
        X : ndarray of shape (m, n_features)
            The round's 0/1 rows.
        y : ndarray of int of shape (m,)
            Class indices.
        weight : ndarray of shape (m,)
            Row weights.
        utility : ndarray of shape (m, width), default=None
            :meth:`replacement_utilities` of the round, if already computed
            (for many rounds at once); it is not modified.

        Returns
        -------
        gains : ndarray of shape (n_nodes, width)
            Gain of every colour at every node (meaningful where ``mask``).
        mask : ndarray of bool of shape (n_nodes, width)
            :meth:`edge_mask` of the layout.
        prediction : ndarray of int of shape (m,)
            The played tree's prediction of each row.

        Examples
        --------
        The root leaf 0 on two rows of class 1 (``x = 1`` and ``x = 0``):
        switching to leaf 1 gains 2, the stump on variable 0 with labels
        (0, 1) or (1, 0) gains 1, the stump (1, 1) gains 2 (columns: leaves
        0, 1, then stumps (0, 0), (0, 1), (1, 0), (1, 1)).

        >>> import numpy as np
        >>> from sklearn_localregret.locality.decision_tree import compile_tree
        >>> coloring = TreeColoring(n_features=1, n_classes=2)
        >>> gains, mask, pred = coloring.round_gains(
        ...     compile_tree(Leaf(0)), np.array([[1], [0]]), np.array([1, 1]),
        ...     np.ones(2))
        >>> gains
        array([[0., 2., 0., 1., 1., 2.]])
        """
        if utility is None:
            utility = self.replacement_utilities(X, y, weight)
        reach, prediction = route_rows(layout, X)
        right = np.where(prediction == y, weight, 0.0)
        return reach @ (utility - right[:, None]), self.edge_mask(layout), prediction

    def replacement_utilities(
        self, X: np.ndarray, y: np.ndarray, weight: np.ndarray
    ) -> np.ndarray:
        """``U[r, col]``: weight of row ``r`` if replacement ``col`` gets it right.

        A node's replacement decides the rows reaching the node, so the
        utility of the neighbour tree of colour ``col`` at node ``p``, minus
        the played tree's, is ``sum over rows r reaching p of (U[r, col] -
        right[r])``.

        Examples
        --------
        >>> import numpy as np
        >>> TreeColoring(1, 2).replacement_utilities(
        ...     np.array([[1], [0]]), np.array([1, 1]), np.array([1.0, 2.0]))
        array([[0., 1., 0., 0., 1., 1.],
               [0., 2., 0., 2., 0., 2.]])
        """
        k = self.n_classes
        m = X.shape[0]
        utility = np.empty((m, self.width))
        utility[:, :k] = 0.0
        utility[np.arange(m), y] = 1.0
        stumps = self._patterns.take(X + 2 * y[:, None], axis=0)
        utility[:, k:] = stumps.reshape(m, -1)
        if np.any(weight != 1.0):
            utility *= weight[:, None]
        return utility


class TreeRateGraph:
    """The regret-matching chain over trees, as a RateGraph.

    The rate of an edge is ``Rtilde+`` of its colour, read from ``table``.

    Parameters
    ----------
    table : RegretTable
        Width :attr:`TreeColoring.width`. Rows are keyed by path (colored
        regrets) or by ``(tree, path)`` (per-edge regrets).
    coloring : TreeColoring
    per_tree : bool, default=False
        Whether rows are keyed by ``(tree, path)``: local swap regret, one
        regret per edge.
    root_label : int, default=0
        Label of the root leaf.

    Examples
    --------
    >>> table = RegretTable(width=TreeColoring(1, 2).width)
    >>> graph = TreeRateGraph(table, TreeColoring(1, 2))
    >>> table.update_entries([table.row(())], [1], [2.0])
    >>> graph.positive_out_edges(Leaf(0))
    ([Leaf(label=1)], array([2.]))
    >>> graph.level(Leaf(1))
    1
    """

    def __init__(
        self,
        table: RegretTable,
        coloring: TreeColoring,
        per_tree: bool = False,
        root_label: int = 0,
    ):
        self.table = table
        self.coloring = coloring
        self.per_tree = per_tree
        self.root = Leaf(root_label)
        # per_tree: played tree -> (layout, its rows, row versions, edge cache)
        self._played: dict = {}
        # per_tree: level of every target of a cached edge list
        self._levels: dict = {}

    def __getstate__(self):
        # Tree-keyed caches as pairs: skops saves only dicts whose keys are
        # str/int/float/bool/None.
        state = self.__dict__.copy()
        state["_played"] = list(self._played.items())
        state["_levels"] = list(self._levels.items())
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._played = dict(state["_played"])
        self._levels = dict(state["_levels"])

    def level(self, vertex: Tree) -> int:
        level = self._levels.get(vertex)
        return tree_level(vertex, self.root.label) if level is None else level

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

    def positive_out_edges(self, vertex: Tree) -> tuple[list, np.ndarray]:
        """Edges out of ``vertex`` with a positive rate, and those rates.

        With per-edge regrets the answer for a played tree is cached until one
        of its rows changes; calling this right after updating a tree's rows
        refreshes its cache.
        """
        if self.per_tree:
            entry = self._played.get(vertex)
            if entry is None:  # never played: no regret, an absorbing vertex
                return [], _NO_RATES
            layout, rows, versions, cached = entry
            current = self.table.versions[rows]
            if versions is not None and np.array_equal(versions, current):
                return cached
            result = self._edges(layout, rows)
            entry[2], entry[3] = current.copy(), result
            return result
        layout = compile_tree(vertex)
        found = [(i, self.table.find(p)) for i, p in enumerate(layout.paths)]
        found = [(i, r) for i, r in found if r >= 0]
        if not found:
            return [], np.zeros(0)
        nodes, rows = zip(*found)
        return self._edges(layout, np.array(rows), np.array(nodes))

    def _edges(self, layout, rows, nodes=None):
        if nodes is None:
            nodes = np.arange(layout.n_nodes)
        rates = self.table.positive(rows) * self.coloring.edge_mask(layout)[nodes]
        which, columns = np.nonzero(rates)
        tree = layout.tree
        paths, replacement = layout.paths, self.coloring.replacement
        targets = [
            replace_subtree(tree, paths[nodes[i]], replacement(c))
            for i, c in zip(which.tolist(), columns.tolist())
        ]
        if self.per_tree:
            # Levels of the targets from subtree sizes, without walking them.
            size = _subtree_internal(layout)
            k, root_label = self.coloring.n_classes, self.root.label
            for target, i, c in zip(targets, which.tolist(), columns.tolist()):
                internal = size[0] - size[nodes[i]] + (c >= k)
                if internal == 0:
                    self._levels[target] = int(target.label != root_label)
                else:
                    self._levels[target] = internal
        return targets, rates[which, columns]

    def out_rate_bound(self, max_nodes: int) -> float:
        """An upper bound on the out-rate of every tree of at most ``max_nodes`` nodes.

        A tree's out-rate is at most the sum of the positive regrets of the
        rows of its nodes, so the sum of the ``max_nodes`` largest row totals
        bounds it (colored regrets only).
        """
        totals = self.table.positive().sum(axis=1)
        if totals.size > max_nodes:
            totals = np.partition(totals, totals.size - max_nodes)[-max_nodes:]
        return float(totals.sum())


def _subtree_internal(layout: TreeLayout) -> list[int]:
    """Number of internal nodes below (and at) every node of a layout."""
    size = [0] * layout.n_nodes
    for i in range(layout.n_nodes - 1, -1, -1):
        if layout.feature[i] >= 0:
            size[i] = 1 + size[layout.true_child[i]] + size[layout.false_child[i]]
    return size
