"""The locality graphs refuse what would silently corrupt them, before writing.

A probe found: a NaN or infinite gain accepted by the hypercube graphs' and
the tree colouring's updates (every regret it reached turned NaN for good);
``TreeRateGraph.out_rate_bound(0)`` failing inside ``np.partition``;
``sum_by_round`` of no live rows raising IndexError; ``HypercubeColoring(-1)``
failing with "negative count".
"""

import pickle

import numpy as np
import pytest

from sklearn_localregret.engine import StumpRegretTable
from sklearn_localregret.locality.bulk_windows import sum_by_round
from sklearn_localregret.locality.decision_tree import Leaf, Split, compile_tree
from sklearn_localregret.locality.flat_tree import FlatTree
from sklearn_localregret.locality.hypercube import HypercubeColoring
from sklearn_localregret.locality.hypercube_swap import HypercubeSwapRegrets
from sklearn_localregret.locality.removal_sets import RemovalSetColoring
from sklearn_localregret.locality.tree_coloring import TreeColoring
from sklearn_localregret.locality.tree_rate_graph import TreeRateGraph
from sklearn_localregret.locality.tree_round_kernels import update_played_sites
from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests

BAD = [np.nan, np.inf, -np.inf]
A = np.array([0, 1, 0], dtype=np.uint8)


def _gains(bad):
    return np.array([1.0, bad, 2.0])


def _refused(graph, update):
    """``update(graph)`` raises ValueError and leaves ``graph`` as it was."""
    before = pickle.dumps(graph)
    with pytest.raises(ValueError, match="finite"):
        update(graph)
    assert pickle.dumps(graph) == before


# -- non-finite gains ---------------------------------------------------------
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("discount", [1.0, 0.5])
def test_hypercube_updates_refuse_non_finite_gains(bad, discount):
    cube = HypercubeColoring(3, discount=discount)
    cube.update(A, np.array([1.0, -1.0, 0.5]))
    _refused(cube, lambda g: g.update(A, _gains(bad)))
    _refused(cube, lambda g: g.update(A, _gains(bad), bias=0.5))
    _refused(cube, lambda g: g.update(A, np.ones(3), bias=bad))
    cols = np.array([0, 2])
    _refused(
        cube, lambda g: g.update_at(cols, A[cols], np.array([bad, 1.0]), np.array([1]))
    )
    _refused(
        cube, lambda g: g.update_rounds(np.stack([A, A]), np.stack([_gains(bad)] * 2))
    )
    swap = HypercubeSwapRegrets(3, discount=discount)
    swap.update(A, np.array([1.0, -1.0, 0.5]))
    _refused(swap, lambda g: g.update(A, _gains(bad)))
    _refused(swap, lambda g: g.update(A, np.ones(3), bias=bad))
    assert np.isfinite(cube.table.biased).all() and np.isfinite(swap.table.biased).all()


@pytest.mark.parametrize("bad", BAD)
def test_removal_set_updates_refuse_non_finite_gains(bad):
    graph = RemovalSetColoring(3, max_sets=2)
    graph.track(np.array([[1, 1, 0]], dtype=np.uint8))
    sets = np.array([bad, 0.0])
    _refused(graph, lambda g: g.update(A, _gains(bad), np.zeros(2)))
    _refused(graph, lambda g: g.update(A, np.ones(3), sets))
    _refused(graph, lambda g: g.update(A, np.ones(3), np.zeros(2), bias=bad))
    cols = np.array([0, 2])
    _refused(
        graph,
        lambda g: g.update_at(cols, A[cols], np.array([1.0, bad]), np.zeros(2), [1]),
    )
    _refused(graph, lambda g: g.update_at(cols, A[cols], np.ones(2), sets, [1]))
    _refused(
        graph, lambda g: g.update_rounds(A[None], _gains(bad)[None], np.zeros((1, 2)))
    )
    _refused(graph, lambda g: g.update_rounds(A[None], np.ones((1, 3)), sets[None]))


def _tree_parts():
    tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    tests.observe(np.zeros((1, 2)))
    return tests, StumpRegretTable(n_classes=2, n_tests=2)


@pytest.mark.parametrize("bad", BAD)
def test_the_tree_colouring_update_refuses_non_finite_statistics(bad):
    tests, table = _tree_parts()
    coloring = TreeColoring(tests, n_classes=2)
    layout = compile_tree(Split(0, Leaf(1), Leaf(0)))
    rows = [table.row(path) for path in layout.paths]
    outcomes, y = np.array([[True, False], [False, True]]), np.array([1, 0])
    coloring.update(
        table,
        rows,
        layout,
        coloring.round_statistics(layout, outcomes, y, np.ones(2)),
        0.0,
    )
    with np.errstate(invalid="ignore"):  # inf - inf: what the check catches
        stats = coloring.round_statistics(layout, outcomes, y, np.array([1.0, bad]))
    _refused(table, lambda t: coloring.update(t, rows, layout, stats, 0.0))
    good = coloring.round_statistics(layout, outcomes, y, np.ones(2))
    _refused(table, lambda t: coloring.update(t, rows, layout, good, bad))


def _compiled_round(table, tests, weight, scale=None, bias=0.0):
    flat = FlatTree.from_tree(Split(0, Leaf(1), Leaf(0)), table.row)
    return update_played_sites(
        np.arange(flat.n_nodes), flat.n_nodes, *flat.arrays(),
        np.array([[True, False], [False, True]]), np.array([1, 0]), weight,
        np.arange(2), tests.feature_kind, tests.threshold, -1,
        table.clock.scale if scale is None else scale, bias,
        table.n_tests, table._leaf, table._true, table._false, table._cost,
        table._versions, table._seen, table._content, table._cdf, table._total,
        table._odds, table._base, table._model_scale, table._reads, False,
        table.missing_partners, table.next_thresholds,
    )  # fmt: skip


@pytest.mark.parametrize("bad", BAD)
def test_the_compiled_tree_round_refuses_non_finite_weights(bad):
    tests, table = _tree_parts()
    assert _compiled_round(table, tests, np.ones(2)) == 0.0
    _refused(table, lambda t: _compiled_round(t, tests, np.array([1.0, bad])))
    _refused(table, lambda t: _compiled_round(t, tests, np.ones(2), bias=bad))
    _refused(table, lambda t: _compiled_round(t, tests, np.ones(2), scale=bad))
    assert np.isfinite(table._leaf).all() and np.isfinite(table._true).all()


# -- out_rate_bound -----------------------------------------------------------
def test_out_rate_bound_takes_a_whole_count_of_nodes_of_at_least_one():
    tests, table = _tree_parts()
    graph = TreeRateGraph(table, TreeColoring(tests, 2))
    assert graph.out_rate_bound(1) == 0.0  # no site yet
    for path, regret in [((), 2.0), (((0, 1),), 3.0)]:
        table.update(
            [table.row(path)], np.array([[0.0, regret]]), np.array([[False, True]]),
            np.zeros((1, 2, 2)), np.zeros((1, 2)), np.zeros(1), np.zeros((1, 2), bool),
        )  # fmt: skip
    assert [graph.out_rate_bound(n) for n in (1, 2, 3, np.int64(1))] == [3, 5, 5, 3]
    for count in (0, -1):  # 0 failed inside np.partition, -1 too
        with pytest.raises(ValueError, match="max_nodes == -?[01], must be >= 1"):
            graph.out_rate_bound(count)
    for count in (1.5, 2.0, "3", None):
        with pytest.raises(TypeError, match="max_nodes must be an instance of int"):
            graph.out_rate_bound(count)


# -- sum_by_round ---------------------------------------------------------------
@pytest.mark.parametrize("batch_size", [1, 2, 5])
def test_sum_by_round_of_no_live_rows_is_empty(batch_size):
    live = np.zeros(0, dtype=np.intp)
    rounds, sums = sum_by_round(live, batch_size, np.ones((0, 3)), np.ones((0, 2)))
    assert rounds.shape == (0,) and rounds.dtype == live.dtype
    assert [s.shape for s in sums] == [(0, 3), (0, 2)]
    rounds, (one,) = sum_by_round(np.array([1, 2, 3]), batch_size, np.ones((3, 2)))
    assert one.sum() == 6.0  # live rows still add up


# -- the number of bits -------------------------------------------------------
@pytest.mark.parametrize(
    "make", [HypercubeColoring, HypercubeSwapRegrets, RemovalSetColoring]
)
def test_hypercube_graphs_refuse_a_number_of_bits_that_is_not_a_count(make):
    with pytest.raises(ValueError, match="n_vars == -1, must be >= 0"):
        make(-1)
    with pytest.raises(TypeError, match="n_vars must be an instance of int"):
        make(2.5)  # was truncated to 2 bits
    assert make(0).n_vars == 0 and make(np.int64(3)).n_vars == 3
