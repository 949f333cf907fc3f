"""A played decision tree as pre-order node arrays, with its sites' table rows.

What the compiled rounds read and write: the draw kernel
(:func:`~sklearn_localregret.engine.compiled.tree_draw.draw_tree`) fills one,
the round kernel (:mod:`~sklearn_localregret.locality.tree_round_kernels`)
reads it, and :meth:`FlatTree.to_tree` builds the immutable
:class:`~sklearn_localregret.locality.decision_tree.Leaf` /
:class:`~sklearn_localregret.locality.decision_tree.Split` nodes that the
public attributes, the text export and the chain sampler use.
"""

from __future__ import annotations

import numpy as np

from .decision_tree import Leaf, Split, Tree, compile_tree

__all__ = ["FlatTree", "PlayedTree"]


class FlatTree:
    """Node arrays of a decision tree, node 0 the root, in pre-order.

    Node ``i`` splits on test ``test[i]`` (``true_child[i]``, ``false_child[i]``)
    or is a leaf labelled ``label[i]`` (``test[i] = -1``); it hangs on branch
    ``branch[i]`` of ``parent[i]`` (-1 at the root), and its site is table row
    ``row[i]`` (-1 while the site has no row).

    Parameters
    ----------
    capacity : int
        Room for this many nodes (a draw needs ``2 * n_table_rows + 1``).

    Examples
    --------
    >>> flat = FlatTree.from_tree(Split(3, Leaf(1), Leaf(0)), lambda path: -1)
    >>> flat.n_nodes, flat.test[:3].tolist(), flat.paths()[2]
    (3, [3, -1, -1], ((3, 0),))
    >>> flat.to_tree()
    Split(test=3, true_child=Leaf(label=1), false_child=Leaf(label=0))
    """

    _ARRAYS = ("test", "label", "true_child", "false_child", "row", "parent", "branch")

    def __init__(self, capacity: int):
        self.n_nodes = 0
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        for name in self._ARRAYS:
            setattr(self, name, np.full(max(int(capacity), 1), -1, dtype=np.int64))

    test: np.ndarray
    label: np.ndarray
    true_child: np.ndarray
    false_child: np.ndarray
    row: np.ndarray
    parent: np.ndarray
    branch: np.ndarray

    def arrays(
        self,
    ) -> tuple[
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
    ]:
        """``(test, label, true_child, false_child, row, parent, branch)``: the
        node arrays in the order the kernels take them."""
        return (
            self.test,
            self.label,
            self.true_child,
            self.false_child,
            self.row,
            self.parent,
            self.branch,
        )

    @property
    def capacity(self) -> int:
        return self.test.shape[0]

    def ensure_capacity(self, capacity: int) -> None:
        """Room for ``capacity`` nodes (contents are not kept)."""
        if capacity > self.capacity:
            self._allocate(max(capacity, 2 * self.capacity))

    @classmethod
    def from_tree(cls, tree: Tree, find_row) -> FlatTree:
        """The arrays of ``tree``; ``find_row(path)`` gives a site's row or -1."""
        layout = compile_tree(tree)
        flat = cls(layout.n_nodes)
        n = flat.n_nodes = layout.n_nodes
        flat.test[:n] = layout.test
        flat.label[:n] = layout.label
        flat.true_child[:n] = layout.true_child
        flat.false_child[:n] = layout.false_child
        flat.row[:n] = [find_row(path) for path in layout.paths]
        for i in range(n):
            for child, branch in (
                (layout.true_child[i], 1),
                (layout.false_child[i], 0),
            ):
                if child >= 0:
                    flat.parent[child] = i
                    flat.branch[child] = branch
        return flat

    def paths(self) -> list[tuple]:
        """The path of every node: tuples of ``(test, branch)`` from the root."""
        test, parent = self.test.tolist(), self.parent.tolist()
        branch = self.branch.tolist()
        paths: list[tuple] = []
        for i in range(self.n_nodes):  # parents come before their children
            p = parent[i]
            paths.append(() if p < 0 else paths[p] + ((test[p], branch[i]),))
        return paths

    def leaves_of(self, outcomes: np.ndarray) -> np.ndarray:
        """The leaf node each data row (test outcomes) reaches, shape (n,)."""
        at = np.zeros(outcomes.shape[0], dtype=np.int64)
        rows = np.arange(outcomes.shape[0])
        while True:
            test = self.test[at]
            inner = test >= 0
            if not inner.any():
                return at
            went = outcomes[rows[inner], test[inner]]
            at[inner] = np.where(
                went, self.true_child[at[inner]], self.false_child[at[inner]]
            )

    def n_internal(self) -> int:
        # Every split has two children: n_nodes = 2 * internal + 1.
        return max(self.n_nodes - 1, 0) // 2

    def level(self, root_label: int = 0) -> int:
        """The paper's level
        (:func:`~sklearn_localregret.locality.decision_tree.tree_level`)
        without building the tree."""
        internal = self.n_internal()
        if internal == 0:
            return 0 if int(self.label[0]) == root_label else 1
        return internal

    def to_tree(self) -> Tree:
        """The tree as immutable nodes, built children first."""
        n = self.n_nodes
        return _tree_of_nodes(
            self.test[:n], self.label[:n], self.true_child[:n], self.false_child[:n]
        )

    def played(self) -> PlayedTree:
        """The tree now in the arrays, kept apart from them (the next draw
        writes over them) and built into nodes only when read."""
        return PlayedTree(self)


class PlayedTree:
    """A played tree held as copies of its node arrays; :attr:`tree` builds
    its :class:`~sklearn_localregret.locality.decision_tree.Leaf` /
    :class:`~sklearn_localregret.locality.decision_tree.Split` nodes on
    first read.

    A learner plays a tree every round, and its last one is read rarely
    (``last_tree_``, a saved model, the chain sampler's start): the copies
    cost a few microseconds, building the nodes tens (a forest's ten
    members paid it every round).

    Examples
    --------
    >>> flat = FlatTree.from_tree(Split(3, Leaf(1), Leaf(0)), lambda path: -1)
    >>> played = flat.played()
    >>> flat.test[0] = -1  # the arrays move on; the played tree does not
    >>> played.tree
    Split(test=3, true_child=Leaf(label=1), false_child=Leaf(label=0))
    """

    __slots__ = ("_nodes", "_tree")

    def __init__(self, flat: FlatTree):
        n = flat.n_nodes
        self._nodes = tuple(
            a[:n].copy()
            for a in (flat.test, flat.label, flat.true_child, flat.false_child)
        )
        self._tree: Tree | None = None

    @property
    def tree(self) -> Tree:
        # Threads that read it at once may both build it: the same nodes.
        tree = self._tree
        if tree is None:
            tree = self._tree = _tree_of_nodes(*self._nodes)
        return tree


def _tree_of_nodes(test, label, true_child, false_child) -> Tree:
    """Immutable nodes of pre-order node arrays, built children first."""
    test, label = test.tolist(), label.tolist()
    true_child, false_child = true_child.tolist(), false_child.tolist()
    built: list = [None] * len(test)
    for i in range(len(test) - 1, -1, -1):  # children have larger ids
        if test[i] < 0:
            built[i] = Leaf(label[i])
        else:
            built[i] = Split(test[i], built[true_child[i]], built[false_child[i]])
    return built[0]
