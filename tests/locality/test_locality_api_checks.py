"""The locality graphs' public entry points refuse what does not fit them.

A probe found writes past the regret tables (segfaults), reads past the
rows, and refused calls that had already started their round (the count,
the discount) through these documented functions.
"""

import pickle

import numpy as np
import pytest

from sklearn_localregret.engine import StumpRegretTable
from sklearn_localregret.locality.decision_tree import Leaf, Split
from sklearn_localregret.locality.disjunct_probabilities import dense_fire_probabilities
from sklearn_localregret.locality.disjunct_rounds import (
    hypercube_round,
    play_disjunction_rounds,
)
from sklearn_localregret.locality.flat_tree import FlatTree
from sklearn_localregret.locality.hypercube import HypercubeColoring
from sklearn_localregret.locality.hypercube_swap import HypercubeSwapRegrets
from sklearn_localregret.locality.recent_rows import RecentRows
from sklearn_localregret.locality.removal_set_rounds import removal_set_round
from sklearn_localregret.locality.removal_sets import RemovalSetColoring
from sklearn_localregret.locality.tree_coloring import TreeColoring
from sklearn_localregret.locality.tree_round_kernels import (
    path_masks,
    update_played_sites,
)
from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests

ROUNDS = [
    (lambda: HypercubeColoring(3), hypercube_round),
    (lambda: RemovalSetColoring(3), removal_set_round),
]


@pytest.mark.parametrize("make, play", ROUNDS, ids=["hypercube", "removal-sets"])
@pytest.mark.parametrize(
    "a, X",
    [
        (np.zeros(5, np.uint8), np.ones((1, 5), np.uint8)),  # wrote past the table
        (np.zeros(3, np.uint8), np.ones((1, 1), np.uint8)),  # read past the row
        (np.array([0, 255, 0], np.uint8), np.array([[0, 1, 0]], np.uint8)),
    ],
    ids=["long-action", "narrow-row", "bit-255"],
)
def test_a_one_row_round_that_does_not_fit_is_refused(make, play, a, X):
    graph = make()
    before = pickle.dumps(graph)
    with pytest.raises(ValueError):
        play(graph, a, X, [0], [1.0], 0.5)
    assert pickle.dumps(graph) == before


def test_a_refused_update_starts_no_round():
    """The update advanced the clock (the count, the discount: every regret
    halved at 0.5) before its entries were refused."""
    cube = HypercubeColoring(3, discount=0.5)
    cube.update(np.zeros(3, np.uint8), np.array([4.0, 0.0, 0.0]))
    sets = RemovalSetColoring(3, max_sets=2, discount=0.5)
    sets.update(np.ones(3, np.uint8), np.ones(3), np.zeros(2))
    swap = HypercubeSwapRegrets(3)
    for graph, args in (
        (cube, (np.zeros(5, np.uint8), np.ones(5))),
        (cube, (np.zeros(3, np.uint8), np.ones(2), 0.5)),
        (sets, (np.ones(3, np.uint8), np.zeros(3), np.ones(4))),
        (swap, (np.zeros(3, np.uint8), np.ones(2))),
    ):
        before = pickle.dumps(graph)
        with pytest.raises(ValueError, match="one each"):
            graph.update(*args)
        assert pickle.dumps(graph) == before


def test_bulk_rounds_refuse_a_sampler_that_is_not_exact_and_empty_rounds():
    """L < n played the L = inf product draws, ignoring L."""
    X, y, w = np.ones((4, 3), np.uint8), np.zeros(4, int), np.ones(4)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="exact sampler"):
        play_disjunction_rounds(HypercubeColoring(3, max_level=0), X, y, w, 1, 0.0, rng)
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        play_disjunction_rounds(HypercubeColoring(3), X, y, w, 0, 0.0, rng)


def test_fire_probabilities_refuse_rows_of_another_width():
    rates = np.ones((3, 2))
    with pytest.raises(ValueError, match="a column per feature"):
        dense_fire_probabilities(
            np.ones((4, 1)), rates, np.zeros(0), np.zeros((0, 3)), 0
        )
    graph = RemovalSetColoring(3)
    with pytest.raises(ValueError, match="a column per feature"):
        graph.fire_probabilities(np.ones((4, 1), np.uint8), seed=0)


def _tree_round(label, n_nodes=None):
    tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    tests.observe(np.zeros((1, 2)))
    table = StumpRegretTable(n_classes=2, n_tests=2)
    flat = FlatTree.from_tree(Split(0, Leaf(1), Leaf(0)), table.row)
    return update_played_sites(
        np.arange(flat.n_nodes), flat.n_nodes, *flat.arrays(),
        np.ones((1, 2), bool), np.array([label]), np.ones(1), np.arange(1),
        tests.feature_kind, tests.threshold, -1, table.clock.scale, 0.0,
        table.n_tests, table._leaf, table._true, table._false, table._cost,
        table._versions, table._seen, table._content, table._cdf, table._total,
        table._odds, table._base, table._model_scale, table._reads, False,
        table.missing_partners, table.next_thresholds,
    )  # fmt: skip


def test_the_tree_round_kernels_refuse_labels_and_nodes_off_their_arrays():
    assert _tree_round(1) == 0.0  # the stump gets class 1 right
    for label in (2, -1, 10**7):  # wrote past the per-label counts
        with pytest.raises(ValueError, match="a label that is not a class"):
            _tree_round(label)
    out = np.empty((1, 1), bool)  # fewer rows than the tree's nodes
    tree = (np.array([0, -1, -1]), np.array([-1, 0, 0]), np.array([0, 1, 0]))
    with pytest.raises(ValueError, match="arrays shorter than its nodes"):
        path_masks(3, *tree, np.zeros(1, np.int64), np.array([0.5]), out)


def test_recent_rows_refuse_rows_before_writing_any():
    tests = ThresholdTests(FixedThresholds(0.5), n_features=1)
    tests.observe(np.zeros((1, 1)))
    window = RecentRows(2, 1)
    window.add(np.array([[1.0], [0.0]]), np.array([1, 0]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="features"):
        window.add(np.array([[1.0, 5.0]]), np.array([7]), np.array([9.0]))
    window.forget_features(tests)
    with pytest.raises(ValueError, match="without their outcomes"):
        window.add(np.array([[1.0]]), np.array([7]), np.array([9.0]))
    labels, weights = window.contents()
    assert labels.tolist() == [1, 0] and weights.tolist() == [1.0, 2.0]


def test_tree_colours_are_those_of_the_graph():
    """Leaf(2) of 2 classes numbered a stump's colour; colour 99 of 2 tests
    built a stump on test 24."""
    tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    tests.observe(np.zeros((1, 2)))
    coloring = TreeColoring(tests, n_classes=2)
    for tree in (
        Leaf(2),
        Leaf(-1),
        Split(0, Leaf(5), Leaf(0)),
        Split(4, Leaf(0), Leaf(1)),
    ):
        with pytest.raises(ValueError, match="not a leaf or a stump of this graph"):
            coloring.colour(tree)
    for colour in (-1, 2 + 2 * 4, 99):
        with pytest.raises(ValueError, match="not one of this graph's"):
            coloring.replacement(colour)
    for colour in range(2 + 2 * 4):
        assert coloring.colour(coloring.replacement(colour)) == colour
