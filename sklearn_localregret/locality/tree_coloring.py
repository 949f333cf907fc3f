"""The decision-tree locality graph, its admissible colouring and its rates.

The paper's graph (Example "Online Decision Tree Learning"), over tests: from a
tree, an edge replaces the subtree at any node by

* a leaf ``c``, unless the node already *is* the leaf ``c``; or
* a stump ``(v, c_true, c_false)`` on a test ``v`` whose outcome the node's
  path does not already decide, other than the test the node already splits
  on (a stump with ``c_true == c_false`` is an edge too).

For 0/1 features (one test ``x_j > 0.5`` per feature) "decided by the path"
means "on the path", the paper's rule. With several thresholds on a feature,
the path's tests bound the feature to an interval ``lo < x_j <= hi``, and a test
``x_j > t`` is decided unless ``lo < t < hi``: such a stump would send every row
one way, a leaf in disguise. A missing value follows its own branch of each
test (``x_j > t`` or ``x_j > t or missing``): a path on which it can still be
there leaves a test undecided when the missing value and the interval go
different ways. An equality test ``x_j == c`` is decided once the path passed
an equality test on ``j`` or failed this one.

The admissible colouring (Example "Colored Decision Tree Learning") colours an
edge with ``(path, replacement)``. :class:`TreeColoring` says which colours are
edges out of a played tree and computes, in one vectorised pass, the round's
statistics from which :class:`~sklearn_localregret.engine.StumpRegretTable`
updates every colour's regret. The same regrets as a
:class:`~sklearn_localregret.engine.RateGraph` for the chain samplers are
:class:`~sklearn_localregret.locality.tree_rate_graph.TreeRateGraph`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from ..engine import StumpRegretTable
from ..thresholds.catalog import EQUALS, GREATER_OR_MISSING
from .decision_tree import (
    Leaf,
    Split,
    Tree,
    TreeLayout,
    compile_tree,
    predict_tree,
    replace_subtree,
    route_rows,
)

__all__ = ["RoundStatistics", "TreeColoring"]


def _undecided_tests(tests, path: tuple) -> np.ndarray:
    """Tests that ``path`` leaves undecided, (n_tests,) of bool (the Python
    twin of
    :func:`~sklearn_localregret.locality.tree_round_kernels.path_masks`)."""
    mask = np.ones(tests.n_tests, dtype=bool)
    feature, threshold, kind = tests.feature, tests.threshold, tests.kind
    # column -> [lo, hi, missing possible]: lo < x <= hi, or missing.
    bounds: dict = {}
    for v, branch in path:
        j = int(feature[v])
        if kind[v] == EQUALS:
            on_j = tests.tests_of(j)
            if branch:  # x_j is that category: every equality test on j is decided
                mask[[u for u in on_j if kind[u] == EQUALS]] = False
            mask[v] = False
            continue
        state = bounds.setdefault(j, [-np.inf, np.inf, True])
        t = float(threshold[v])
        passes_missing = kind[v] == GREATER_OR_MISSING
        if branch:
            state[0] = max(state[0], t)
            state[2] = state[2] and passes_missing
        else:
            state[1] = min(state[1], t)
            state[2] = state[2] and not passes_missing
    for j, (lo, hi, missing) in bounds.items():
        on_j = np.array([u for u in tests.tests_of(j) if kind[u] != EQUALS], np.intp)
        t = threshold[on_j]
        left = lo < hi  # values are left besides the missing one
        passes, fails = left & (t <= lo), left & (t >= hi)
        mixed = left & (t > lo) & (t < hi)
        if missing:
            missing_passes = kind[on_j] == GREATER_OR_MISSING
            passes = passes | missing_passes
            fails = fails | ~missing_passes
        mask[on_j] &= mixed | (passes & fails)
    return mask


class RoundStatistics(NamedTuple):
    """What one round tells every colour out of the played tree (per node ``p``).

    Attributes
    ----------
    leaf_gains : ndarray of shape (n_nodes, K)
        Gain of replacing the subtree at ``p`` by leaf ``c``.
    true_counts : ndarray of shape (n_nodes, n_tests, K)
        Weight of the rows reaching ``p`` that pass test ``v``, per label.
    class_counts : ndarray of shape (n_nodes, K)
        Weight of the rows reaching ``p``, per label.
    correct : ndarray of shape (n_nodes,)
        Weight of the rows reaching ``p`` that the played tree gets right.
    prediction : ndarray of int of shape (n_rows,)
        The played tree's prediction of each row.
    """

    leaf_gains: np.ndarray
    true_counts: np.ndarray
    class_counts: np.ndarray
    correct: np.ndarray
    prediction: np.ndarray


class TreeColoring:
    """Which colours leave a played tree, and the round's statistics for them.

    Colours are numbered: leaf ``c`` is ``c`` (with model leaves, the model
    leaf is ``K``: ``Leaf(K)``); the stump ``(v, c_true, c_false)`` is
    ``n_leaves + (v * K + c_true) * K + c_false`` (:meth:`colour`), where
    ``n_leaves`` is ``K``, or ``K + 1`` with model leaves.

    Parameters
    ----------
    tests : ThresholdTests
        The tests available so far (more may enter; the masks follow).
    n_classes : int
        Number of labels ``K``.
    max_depth : int or None, default=None
        If set, nodes at depth ``max_depth`` (path length) have no stump
        colours: the locality graph is restricted to trees of at most that
        depth, and the regret guarantee holds for the restricted graph.
    leaf_model : bool, default=False
        Whether every node may also be replaced by a model leaf (a leaf that
        predicts with its site's model, :ref:`engine-model-leaves`): one more
        leaf colour per path. The round statistics of the model colour need
        the table's models: the compiled rounds compute them
        (:func:`~sklearn_localregret.locality.tree_round_kernels.update_played_sites`),
        not :meth:`round_statistics`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests
    >>> tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    >>> _ = tests.observe(np.zeros((1, 2)))
    >>> coloring = TreeColoring(tests, n_classes=2)
    >>> coloring.replacement(7)
    Split(test=1, true_child=Leaf(label=0), false_child=Leaf(label=1))
    >>> coloring.colour(Split(1, Leaf(0), Leaf(1)))
    7
    """

    leaf_model = False  # (saved before model leaves: none)

    def __init__(
        self,
        tests,
        n_classes: int,
        max_depth: int | None = None,
        leaf_model: bool = False,
    ):
        self.tests = tests
        self.n_classes = int(n_classes)
        self.max_depth = max_depth
        self.leaf_model = bool(leaf_model)
        # path -> tests available there (recomputed when tests enter).
        self._available: dict = {}

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_available"] = {}  # a cache, rebuilt on demand
        return state

    # -- colours ----------------------------------------------------------
    @property
    def n_leaves(self) -> int:
        """Leaf colours per path: ``K``, and the model leaf if there is one."""
        return self.n_classes + int(self.leaf_model)

    def colour(self, replacement: Tree) -> int:
        """Number of the colour that puts ``replacement`` (a leaf or a stump)."""
        k = self.n_classes
        if type(replacement) is Leaf and 0 <= replacement.label < self.n_leaves:
            return replacement.label
        true_leaf = getattr(replacement, "true_child", None)
        false_leaf = getattr(replacement, "false_child", None)
        test = getattr(replacement, "test", -1)
        if not (
            type(true_leaf) is Leaf
            and type(false_leaf) is Leaf
            and 0 <= test < self.tests.n_tests
            and 0 <= true_leaf.label < k
            and 0 <= false_leaf.label < k
        ):
            raise ValueError(f"{replacement!r} is not a leaf or a stump of this graph")
        c_true, c_false = true_leaf.label, false_leaf.label
        return self.n_leaves + (test * k + c_true) * k + c_false

    def replacement(self, colour: int) -> Tree:
        """The leaf or stump that ``colour`` puts at its path."""
        k = self.n_classes
        if not 0 <= colour < self.n_leaves + self.tests.n_tests * k * k:
            raise ValueError(f"colour {colour!r} is not one of this graph's")
        if colour < self.n_leaves:
            return Leaf(int(colour))
        v, pair = divmod(int(colour) - self.n_leaves, k * k)
        c_true, c_false = divmod(pair, k)
        return Split(v, Leaf(c_true), Leaf(c_false))

    # -- edges out of a tree ----------------------------------------------
    def available_tests(self, path: tuple) -> np.ndarray:
        """Tests whose stumps can stand at ``path`` (not decided by it), (n_tests,).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret.thresholds import ThresholdTests
        >>> from sklearn_localregret.thresholds import QuantileThresholds
        >>> source = QuantileThresholds(first_checkpoint=4, growth=2)
        >>> tests = ThresholdTests(source, n_features=1)
        >>> tests.observe(np.array([[1.0], [2.0], [3.0], [4.0]]))  # the median
        1
        >>> tests.observe(np.array([[1.5], [2.5], [3.5], [4.5]]))  # the quartiles
        2
        >>> tests.threshold
        array([2.5 , 1.75, 3.75])
        >>> coloring = TreeColoring(tests, n_classes=2)
        >>> coloring.available_tests(((0, 1),))  # below x > 2.5: x > 1.75 is decided
        array([False, False,  True])
        >>> coloring.available_tests(((2, 0),))  # below x <= 3.75
        array([ True,  True, False])
        """
        n_tests = self.tests.n_tests
        cached = self._available.get(path)
        if cached is not None and cached.shape[0] == n_tests:
            return cached
        if self.max_depth is not None and len(path) >= self.max_depth:
            mask = np.zeros(n_tests, dtype=bool)
        else:
            mask = _undecided_tests(self.tests, path)
        mask.flags.writeable = False
        self._available[path] = mask
        return mask

    def edge_masks(self, layout: TreeLayout) -> tuple[np.ndarray, np.ndarray]:
        """Which leaf and which stump colours at each node are edges.

        Returns ``leaf_mask`` of shape (n_nodes, n_leaves) (all but the leaf
        a node already is) and ``test_mask`` of shape (n_nodes, n_tests) (the tests
        available at the node's path, except the one it splits on).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests
        >>> from sklearn_localregret.locality.decision_tree import compile_tree
        >>> tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
        >>> _ = tests.observe(np.zeros((1, 2)))
        >>> leaf_mask, test_mask = TreeColoring(tests, 2).edge_masks(
        ...     compile_tree(Split(0, Leaf(1), Leaf(0))))
        >>> leaf_mask.astype(int)
        array([[1, 1],
               [1, 0],
               [0, 1]])
        >>> test_mask.astype(int)
        array([[0, 1],
               [0, 1],
               [0, 1]])
        """
        n = layout.n_nodes
        leaf_mask = np.ones((n, self.n_leaves), dtype=bool)
        test_mask = np.empty((n, self.tests.n_tests), dtype=bool)
        for i, (path, v, c) in enumerate(zip(layout.paths, layout.test, layout.label)):
            test_mask[i] = self.available_tests(path)
            if v < 0:
                leaf_mask[i, c] = False
            else:
                test_mask[i, v] = False
        return leaf_mask, test_mask

    def neighbours(self, tree: Tree) -> Iterator[tuple[tuple, int, Tree]]:
        """Every edge out of ``tree`` as ``(path, colour, neighbour tree)``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests
        >>> tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
        >>> _ = tests.observe(np.zeros((1, 2)))
        >>> edges = list(TreeColoring(tests, 2).neighbours(Leaf(0)))
        >>> len(edges), edges[0]
        (9, ((), 1, Leaf(label=1)))
        """
        layout = compile_tree(tree)
        leaf_mask, test_mask = self.edge_masks(layout)
        k = self.n_classes
        for i, path in enumerate(layout.paths):
            for c in np.flatnonzero(leaf_mask[i]).tolist():
                yield path, c, replace_subtree(tree, path, Leaf(c))
            for v in np.flatnonzero(test_mask[i]).tolist():
                for c_true in range(k):
                    for c_false in range(k):
                        stump = Split(v, Leaf(c_true), Leaf(c_false))
                        yield (
                            path,
                            self.colour(stump),
                            replace_subtree(tree, path, stump),
                        )

    # -- the regret update --------------------------------------------------
    def round_statistics(
        self,
        layout: TreeLayout,
        outcomes: np.ndarray,
        y: np.ndarray,
        weight: np.ndarray,
        rows: list | None = None,
    ) -> RoundStatistics:
        """The statistics of one round at every node of the played tree.

        The utility of a tree is the weight of the rows it classifies
        correctly. A neighbour differs from the played tree only below the
        replaced node ``p``, so its gain involves only the rows reaching ``p``:
        leaf ``c`` gains ``(weight of class c at p) - correct_p``, and the
        stump ``(v, c_true, c_false)`` gains
        ``true_counts[p, v, c_true] + (class_counts - true_counts)[p, v,
        c_false] - correct_p``. Nodes no row reaches get zeros.

        Parameters
        ----------
        layout : TreeLayout
            The played tree.
        outcomes : ndarray of bool of shape (m, n_tests)
            The round's test outcomes.
        y : ndarray of int of shape (m,)
            Class indices.
        weight : ndarray of shape (m,)
            Row weights.
        rows : list of lists, default=None
            ``outcomes.tolist()``, if the caller has it (routing reads lists
            faster than arrays).

        Examples
        --------
        The root leaf 0 on two rows of class 1, one passing test 0: leaf 1
        gains 2, and the stumps on test 0 get true counts (0, 1) out of the
        class counts (0, 2).

        >>> import numpy as np
        >>> from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests
        >>> from sklearn_localregret.locality.decision_tree import compile_tree
        >>> tests = ThresholdTests(FixedThresholds(0.5), n_features=1)
        >>> _ = tests.observe(np.zeros((1, 1)))
        >>> stats = TreeColoring(tests, 2).round_statistics(
        ...     compile_tree(Leaf(0)), np.array([[True], [False]]),
        ...     np.array([1, 1]), np.ones(2))
        >>> stats.leaf_gains, stats.true_counts, stats.correct
        (array([[0., 2.]]), array([[[0., 1.]]]), array([0.]))
        """
        reach, prediction = route_rows(layout, outcomes if rows is None else rows)
        m, k = len(prediction), self.n_classes
        labelled = np.zeros((m, k))
        labelled[np.arange(m), y] = weight
        class_counts = reach @ labelled
        correct = reach @ np.where(prediction == y, weight, 0.0)
        leaf_gains = class_counts - correct[:, None]
        # true_counts[p, v, c] = sum_r reach[p, r] outcome[r, v] labelled[r, c]
        per_node = reach[:, None, :] * labelled.T[None, :, :]  # (p, c, r)
        true_counts = (per_node @ outcomes.astype(float)).transpose(0, 2, 1)
        return RoundStatistics(
            leaf_gains, true_counts, class_counts, correct, prediction
        )

    def node_statistics(
        self,
        layout: TreeLayout,
        nodes: list[int],
        outcomes: np.ndarray,
        y: np.ndarray,
        weight: np.ndarray,
    ) -> RoundStatistics:
        """:meth:`round_statistics` of some nodes only, vectorised over many rows.

        Made for a window of recent rows: which rows reach a node is read from
        its path's tests, one numpy operation per test, instead of walking
        every row down the tree.
        """
        k, m = self.n_classes, y.shape[0]
        prediction = predict_tree(layout, outcomes)
        right = np.where(prediction == y, weight, 0.0)
        n = len(nodes)
        class_counts = np.zeros((n, k))
        correct = np.zeros(n)
        true_counts = np.zeros((n, outcomes.shape[1], k))
        for i, node in enumerate(nodes):
            here = np.ones(m, dtype=bool)
            for v, branch in layout.paths[node]:
                here &= outcomes[:, v] == bool(branch)
            at = np.flatnonzero(here)
            if at.size == 0:
                continue
            labelled = np.zeros((at.size, k))
            labelled[np.arange(at.size), y[at]] = weight[at]
            class_counts[i] = labelled.sum(axis=0)
            correct[i] = right[at].sum()
            true_counts[i] = outcomes[at].T.astype(float) @ labelled
        return RoundStatistics(
            class_counts - correct[:, None],
            true_counts,
            class_counts,
            correct,
            prediction,
        )

    def update(
        self,
        table: StumpRegretTable,
        rows,
        layout: TreeLayout,
        stats: RoundStatistics,
        bias: float,
    ) -> None:
        """Apply a round's statistics to the played tree's ``rows`` of ``table``.

        Raises ``ValueError``, before any write, if a statistic or ``bias`` is
        NaN or infinite: it would turn the regrets it reaches into NaN for good.
        """
        if self.leaf_model:
            raise ValueError(
                "model leaves learn on the compiled rounds (update_played_sites)"
            )
        read = (stats.leaf_gains, stats.true_counts, stats.class_counts, stats.correct)
        if not (np.isfinite(bias) and all(np.isfinite(a).all() for a in read)):
            raise ValueError("a round's statistics and bias must be finite")
        leaf_mask, test_mask = self.edge_masks(layout)
        table.update(
            rows,
            stats.leaf_gains,
            leaf_mask,
            stats.true_counts,
            stats.class_counts,
            stats.correct,
            test_mask,
            bias,
        )
