"""Decision trees over boolean tests: immutable nodes and their walks.

The actions of the paper's Example "Online Decision Tree Learning" are decision
trees over ``n`` boolean variables whose leaves carry a class (an index into
``classes_``) and whose paths never test a variable twice. Here the variables
are *tests*, numbered ``0, 1, ...``: for 0/1 data test ``v`` is feature ``v``;
for numeric data a test is a threshold question ``x_j > t``
(:mod:`sklearn_localregret.thresholds`). A tree is made of two kinds of
immutable, hashable nodes: a tree can key a dict (per-edge "swap" regrets do):

* :class:`Leaf` ``(label)``;
* :class:`Split` ``(test, true_child, false_child)``: rows that pass ``test``
  go to ``true_child``.

A node's *path* is the tuple of ``(test, branch)`` pairs leading to it from
the root, ``branch`` 1 for the "test is true" child; it is the site of the
paper's admissible colouring (:mod:`~sklearn_localregret.locality.tree_coloring`).
Walks take the 0/1 matrix of test outcomes (rows x tests).

:func:`compile_tree` flattens a tree into pre-order arrays once, so that routing
rows (:func:`route_rows`, :func:`predict_tree`) and computing the gains of every
neighbour tree need no further walks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import NamedTuple, Union, final

import numpy as np
from sklearn.utils.validation import check_scalar

from .tree_text import render_tree

__all__ = [
    "Leaf",
    "Split",
    "Tree",
    "TreeLayout",
    "compile_tree",
    "depth",
    "export_text",
    "iter_nodes",
    "n_internal",
    "n_leaves",
    "predict_tree",
    "replace_subtree",
    "route_rows",
    "tree_level",
]


# Final: walks tell the two node kinds apart with ``type(node) is Leaf``.
@final
class Leaf(NamedTuple):
    """A leaf predicting class index ``label``.

    Nodes are named tuples: immutable, hashable, and hashed and compared at C
    speed, which matters when trees key the per-edge regrets.

    Examples
    --------
    >>> Leaf(1) == Leaf(1), {Leaf(0): "root"}[Leaf(0)]
    (True, 'root')
    """

    label: int


@final
class Split(NamedTuple):
    """An internal node: rows that pass ``test`` go to ``true_child``.

    Examples
    --------
    >>> stump = Split(3, Leaf(1), Leaf(0))
    >>> stump.true_child, hash(stump) == hash(Split(3, Leaf(1), Leaf(0)))
    (Leaf(label=1), True)
    """

    test: int
    true_child: Leaf | Split
    false_child: Leaf | Split


Tree = Union[Leaf, Split]


# -- size and shape ---------------------------------------------------------
def n_internal(tree: Tree) -> int:
    """Number of internal (:class:`Split`) nodes.

    Examples
    --------
    >>> n_internal(Split(0, Split(1, Leaf(0), Leaf(1)), Leaf(1)))
    2
    """
    # An explicit stack, as in every walk here: a tree may be deeper than
    # Python's recursion limit. Going down true children and stacking only
    # the false ones halves the stack's traffic.
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        while type(node) is Split:
            count += 1
            stack.append(node.false_child)
            node = node.true_child
    return count


def n_leaves(tree: Tree) -> int:
    """Number of leaves (always ``n_internal(tree) + 1``).

    Examples
    --------
    >>> n_leaves(Leaf(0)), n_leaves(Split(0, Leaf(0), Leaf(1)))
    (1, 2)
    """
    return n_internal(tree) + 1


def depth(tree: Tree) -> int:
    """Length of the longest path from the root to a leaf (a leaf has depth 0).

    Examples
    --------
    >>> depth(Leaf(0)), depth(Split(0, Split(1, Leaf(0), Leaf(1)), Leaf(1)))
    (0, 2)
    """
    deepest, stack = 0, [(tree, 0)]
    while stack:
        node, d = stack.pop()
        while type(node) is Split:
            d += 1
            stack.append((node.false_child, d))
            node = node.true_child
        if d > deepest:
            deepest = d
    return deepest


def tree_level(tree: Tree, root_label: int = 0) -> int:
    """The paper's level: unweighted distance from the root leaf ``root_label``.

    An edge replaces one subtree by a leaf or a stump, so it adds at most one
    internal node, and a tree with ``k >= 1`` internal nodes is built in ``k``
    steps (stumps top-down, labels chosen at once). Hence the level is the
    number of internal nodes, except that a leaf other than the root leaf is one
    step away.

    Examples
    --------
    >>> tree_level(Leaf(0)), tree_level(Leaf(1)), tree_level(Split(0, Leaf(0), Leaf(0)))
    (0, 1, 1)
    """
    if type(tree) is Leaf:
        return 0 if tree.label == root_label else 1
    return n_internal(tree)


# -- walks ------------------------------------------------------------------
def iter_nodes(tree: Tree, path: tuple = ()) -> Iterator[tuple[tuple, Tree]]:
    """``(path, subtree)`` for every node, in pre-order (true child first).

    Examples
    --------
    >>> [p for p, _ in iter_nodes(Split(4, Leaf(0), Leaf(1)))]
    [(), ((4, 1),), ((4, 0),)]
    """
    stack = [(path, tree)]
    while stack:
        path, node = stack.pop()
        yield path, node
        if type(node) is Split:
            v = node.test
            # The false child is pushed first so that the true child comes next.
            stack.append((path + ((v, 0),), node.false_child))
            stack.append((path + ((v, 1),), node.true_child))


def replace_subtree(tree: Tree, path: tuple, new: Tree) -> Tree:
    """``tree`` with the subtree at ``path`` replaced by ``new``.

    Raises ``ValueError`` if ``path`` is not a node of ``tree``.

    Examples
    --------
    >>> replace_subtree(Split(0, Leaf(0), Leaf(1)), ((0, 0),), Leaf(0))
    Split(test=0, true_child=Leaf(label=0), false_child=Leaf(label=0))
    """
    above, node = [], tree  # the Splits along the path, then rebuilt upwards
    for v, branch in path:
        if type(node) is not Split or node.test != v:
            raise ValueError(f"path {path!r} is not a node of the tree.")
        above.append(node)
        node = node.true_child if branch else node.false_child
    while above:
        node = above.pop()
        if path[len(above)][1]:
            new = Split(node.test, new, node.false_child)
        else:
            new = Split(node.test, node.true_child, new)
    return new


@dataclass(frozen=True)
class TreeLayout:
    """A tree flattened in pre-order (node 0 is the root).

    Attributes
    ----------
    tree : Leaf or Split
        The tree itself.
    nodes : list
        The subtree at each node.
    paths : list of tuple
        The path of each node.
    test : list of int
        Test of each node, -1 at leaves.
    label : list of int
        Class index at each node, -1 at internal nodes.
    true_child, false_child : list of int
        Node index of each child, -1 at leaves.
    """

    tree: Tree
    nodes: list
    paths: list
    test: list
    label: list
    true_child: list
    false_child: list

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)


def compile_tree(tree: Tree) -> TreeLayout:
    """Flatten ``tree`` into a :class:`TreeLayout` (one walk).

    Examples
    --------
    >>> layout = compile_tree(Split(2, Leaf(1), Split(0, Leaf(0), Leaf(1))))
    >>> layout.test, layout.true_child, layout.false_child
    ([2, -1, 0, -1, -1], [1, -1, 3, -1, -1], [2, -1, 4, -1, -1])
    >>> layout.paths[4]
    ((2, 0), (0, 0))
    """
    nodes: list[Tree] = []
    paths: list[tuple] = []
    test: list[int] = []
    label: list[int] = []
    true_child: list[int] = []
    false_child: list[int] = []
    # (node, path, parent index, branch)
    stack: list[tuple[Tree, tuple, int, int]] = [(tree, (), -1, 0)]
    while stack:
        node, path, parent, branch = stack.pop()
        index = len(nodes)
        if parent >= 0:
            (true_child if branch else false_child)[parent] = index
        nodes.append(node)
        paths.append(path)
        true_child.append(-1)
        false_child.append(-1)
        if type(node) is Leaf:
            test.append(-1)
            label.append(node.label)
        else:
            v = node.test
            test.append(v)
            label.append(-1)
            # The false child is pushed first so that the true child comes next.
            stack.append((node.false_child, path + ((v, 0),), index, 0))
            stack.append((node.true_child, path + ((v, 1),), index, 1))
    return TreeLayout(tree, nodes, paths, test, label, true_child, false_child)


def route_rows(
    layout: TreeLayout, X: np.ndarray | Sequence[Sequence]
) -> tuple[np.ndarray, np.ndarray]:
    """Send each row of ``X`` down the tree; made for a few rows (one round).

    Parameters
    ----------
    layout : TreeLayout
    X : ndarray of shape (n_rows, n_tests), or list of lists
        0/1 test outcomes of the rows.

    Returns
    -------
    reach : ndarray of shape (n_nodes, n_rows)
        ``reach[p, r]`` is 1.0 if row ``r`` passes through node ``p``.
    prediction : ndarray of int of shape (n_rows,)
        Class index of the leaf each row ends in.

    Examples
    --------
    >>> layout = compile_tree(Split(0, Leaf(1), Leaf(0)))
    >>> reach, pred = route_rows(layout, np.array([[1], [0], [1]]))
    >>> reach
    array([[1., 1., 1.],
           [1., 0., 1.],
           [0., 1., 0.]])
    >>> pred
    array([1, 0, 1])
    """
    test, label = layout.test, layout.label
    true_child, false_child = layout.true_child, layout.false_child
    node_index, row_index, prediction = [], [], []
    rows = X.tolist() if isinstance(X, np.ndarray) else X
    for r, x in enumerate(rows):
        i = 0
        while True:
            node_index.append(i)
            row_index.append(r)
            v = test[i]
            if v < 0:
                prediction.append(label[i])
                break
            i = true_child[i] if x[v] else false_child[i]
    reach = np.zeros((layout.n_nodes, len(prediction)))
    reach[node_index, row_index] = 1.0
    return reach, np.array(prediction, dtype=np.intp)


# Up to this many rows a prediction walks each row (a round's rows).
_FEW_ROWS = 8


def predict_tree(tree: Tree | TreeLayout, X: np.ndarray) -> np.ndarray:
    """Class index predicted for every row of the 0/1 test outcomes ``X`` (vectorised).

    The row index set of every internal node is split in two with one numpy
    operation, so the cost is O(n_rows x depth) numpy work plus O(n_nodes)
    Python steps; up to ``_FEW_ROWS`` rows (a round's) are walked one by one
    instead, which costs no numpy call per node.

    Examples
    --------
    >>> tree = Split(1, Split(0, Leaf(2), Leaf(1)), Leaf(0))
    >>> predict_tree(tree, np.array([[1, 1], [0, 1], [1, 0]]))
    array([2, 1, 0])
    """
    layout = tree if isinstance(tree, TreeLayout) else compile_tree(tree)
    X = np.asarray(X)
    if X.shape[0] <= _FEW_ROWS:  # each row walked: no numpy call per node
        test, label = layout.test, layout.label
        true_child, false_child = layout.true_child, layout.false_child
        classes = []
        for x in X.tolist():
            i = 0
            while test[i] >= 0:
                i = true_child[i] if x[test[i]] else false_child[i]
            classes.append(label[i])
        return np.array(classes, dtype=np.intp)
    out = np.empty(X.shape[0], dtype=np.intp)
    rows_at = {0: np.arange(X.shape[0])}
    for i in range(layout.n_nodes):
        rows = rows_at.pop(i)
        v = layout.test[i]
        if v < 0:
            out[rows] = layout.label[i]
            continue
        goes_true = X[rows, v].astype(bool)
        rows_at[layout.true_child[i]] = rows[goes_true]
        rows_at[layout.false_child[i]] = rows[~goes_true]
    return out


# -- text -------------------------------------------------------------------
def export_text(
    tree: Tree,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence | None = None,
    threshold: float = 0.5,
    decimals: int = 2,
    tests: Sequence[tuple] | None = None,
) -> str:
    """Text rendering in the format of :func:`sklearn.tree.export_text`.

    A split on test ``v`` (``x_j > t``) is shown as ``x_j <= t`` (the false
    branch, first, as scikit-learn puts its left child first) and ``x_j > t``
    (the true branch). Where missing values go is said on their branch
    (``age <= 37.50 or missing``), and an equality test on a category reads
    ``colour != red`` then ``colour == red`` (``colour is missing`` for the
    missing category).

    Parameters
    ----------
    tree : Leaf or Split
    feature_names : sequence of str, default=None
        Name of each feature; ``feature_<j>`` if None.
    class_names : sequence, default=None
        Name of each class index; the index itself if None.
    threshold : float, default=0.5
        Without ``tests``: test ``v`` is feature ``v`` at this threshold (0.5
        for 0/1 features).
    decimals : int, default=2
        Decimals of the printed thresholds.
    tests : sequence of tuple, default=None
        Every test: ``(feature, threshold)``, or ``(feature, threshold,
        how)`` with ``how`` ``"missing_fails"`` or ``"missing_passes"``, or
        ``(feature, category, "equals")`` (category None: missing); as
        :meth:`~sklearn_localregret.thresholds.ThresholdTests.description`
        gives them.

    Returns
    -------
    str

    Examples
    --------
    >>> tree = Split(0, Leaf(1), Split(1, Leaf(0), Leaf(1)))
    >>> print(export_text(tree, ["odor=n", "ring=p"], ["e", "p"]))
    |--- odor=n <= 0.50
    |   |--- ring=p <= 0.50
    |   |   |--- class: p
    |   |--- ring=p >  0.50
    |   |   |--- class: e
    |--- odor=n >  0.50
    |   |--- class: p
    >>> print(export_text(Split(0, Leaf(1), Leaf(0)), ["age"], tests=[(0, 42.5)]))
    |--- age <= 42.50
    |   |--- class: 0
    |--- age >  42.50
    |   |--- class: 1
    >>> tests = [(0, 42.5, "missing_fails"), (1, "red", "equals")]
    >>> print(export_text(Split(0, Split(1, Leaf(1), Leaf(0)), Leaf(0)),
    ...                   ["age", "colour"], tests=tests))
    |--- age <= 42.50 or missing
    |   |--- class: 0
    |--- age >  42.50
    |   |--- colour != red
    |   |   |--- class: 0
    |   |--- colour == red
    |   |   |--- class: 1
    """
    check_scalar(decimals, "decimals", Integral, min_val=0)
    layout = compile_tree(tree)  # rendered from the arrays: no recursion
    arrays = (layout.test, layout.label, layout.true_child, layout.false_child)
    return render_tree(*arrays, feature_names, class_names, threshold, decimals, tests)
