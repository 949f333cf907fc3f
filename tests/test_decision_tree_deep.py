"""Walks of a decision tree deeper than Python's recursion limit.

A probe found that ``n_internal``, ``depth``, ``iter_nodes``,
``replace_subtree`` and ``export_text`` recursed over the tree and raised
RecursionError near depth 1000, while ``compile_tree`` (and so ``FlatTree``)
walked such a tree; they keep their own stack now, with the same answers in the
same order.
"""

import random
import sys

import pytest

from sklearn_localregret.locality.decision_tree import (
    Leaf,
    Split,
    compile_tree,
    depth,
    export_text,
    iter_nodes,
    n_internal,
    n_leaves,
    replace_subtree,
    tree_level,
)

DEEP = sys.getrecursionlimit() + 500  # paths cost O(DEEP**2): no deeper


def _chain(n, true_side=True):
    """A tree of ``n`` Splits, each the true (or false) child of the last."""
    tree = Leaf(0)
    for i in range(n):
        tree = Split(i % 5, tree, Leaf(1)) if true_side else Split(i % 5, Leaf(1), tree)
    return tree


# The recursive definitions the walks replaced: the reference answers.
def _n_internal(tree):
    if type(tree) is Leaf:
        return 0
    return 1 + _n_internal(tree.true_child) + _n_internal(tree.false_child)


def _depth(tree):
    if type(tree) is Leaf:
        return 0
    return 1 + max(_depth(tree.true_child), _depth(tree.false_child))


def _iter_nodes(tree, path=()):
    yield path, tree
    if type(tree) is Split:
        yield from _iter_nodes(tree.true_child, path + ((tree.test, 1),))
        yield from _iter_nodes(tree.false_child, path + ((tree.test, 0),))


def _random_tree(rng, levels):
    if levels == 0 or rng.random() < 0.3:
        return Leaf(rng.randrange(3))
    return Split(
        rng.randrange(6),
        _random_tree(rng, levels - 1),
        _random_tree(rng, levels - 1),
    )


@pytest.mark.parametrize("true_side", [True, False], ids=["true-side", "false-side"])
def test_the_walks_take_a_tree_deeper_than_the_recursion_limit(true_side):
    tree = _chain(DEEP, true_side)
    assert n_internal(tree) == DEEP and n_leaves(tree) == DEEP + 1
    assert depth(tree) == DEEP and tree_level(tree) == DEEP
    paths = [path for path, _ in iter_nodes(tree)]
    assert paths == compile_tree(tree).paths
    deepest = max(range(len(paths)), key=lambda i: len(paths[i]))
    assert len(paths[deepest]) == DEEP
    replaced = replace_subtree(tree, paths[deepest], Leaf(2))
    assert n_internal(replaced) == DEEP and depth(replaced) == DEEP
    assert compile_tree(replaced).label[deepest] == 2
    text = export_text(tree)
    assert text.count("\n") + 1 == 3 * DEEP + 1  # two lines a Split, one a leaf
    assert "\n" + "|   " * DEEP + "|--- class: 0" in "\n" + text  # the deepest leaf


def test_the_walks_give_the_recursive_answers_in_the_same_order():
    rng = random.Random(0)
    for _ in range(200):
        tree = _random_tree(rng, 6)
        assert n_internal(tree) == _n_internal(tree)
        assert depth(tree) == _depth(tree)
        assert list(iter_nodes(tree)) == list(_iter_nodes(tree))
        start = ((9, 1), (8, 0))
        assert list(iter_nodes(tree, start)) == list(_iter_nodes(tree, start))
        for path, subtree in iter_nodes(tree):
            assert replace_subtree(tree, path, subtree) == tree
            new = replace_subtree(tree, path, Leaf(7))
            assert dict(iter_nodes(new))[path] == Leaf(7)


def test_export_text_of_a_deep_false_side_lists_the_false_branch_first():
    text = export_text(_chain(2, true_side=False), class_names=["a", "b"])
    assert text.splitlines() == [
        "|--- feature_1 <= 0.50",
        "|   |--- feature_0 <= 0.50",
        "|   |   |--- class: a",
        "|   |--- feature_0 >  0.50",
        "|   |   |--- class: b",
        "|--- feature_1 >  0.50",
        "|   |--- class: b",
    ]


def test_replace_subtree_names_the_whole_path_it_refuses():
    tree = _chain(3)
    with pytest.raises(ValueError, match=r"path \(\(2, 1\), \(4, 1\)\) is not a node"):
        replace_subtree(tree, ((2, 1), (4, 1)), Leaf(0))
    with pytest.raises(ValueError, match="is not a node"):
        replace_subtree(tree, ((2, 0), (1, 1)), Leaf(0))  # below a leaf
