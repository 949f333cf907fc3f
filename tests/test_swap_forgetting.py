"""Swap-regret trees stay bounded on a long stream: quiet trees are forgotten.

With a discount ``lambda < 1`` a regret is at most ``Delta / (1 - lambda)`` in
absolute value (a round adds at most ``Delta``, its weight plus the bias, and
the total decays by ``lambda``), so a tree that has not been played for
``ln(1 / (tol (1 - lambda))) / ln(1 / lambda)`` rounds has every regret within
``tol * Delta`` of 0, and the check every ``FORGET_EVERY`` rounds forgets it.
These tests check that bound exactly, that nothing is forgotten without a
discount, and that the bookkeeping (table rows, the chain's cache, a saved
model) stays exact across forgetting.
"""

import math
import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier, OnlineMaxSAT
from sklearn_localregret.engine import (
    FORGET_EVERY,
    FORGET_TOLERANCE,
    FiniteChainSampler,
    StumpRegretTable,
)
from sklearn_localregret.locality.decision_tree import Leaf, Split, compile_tree
from sklearn_localregret.locality.hypercube import vertex_key
from sklearn_localregret.locality.hypercube_swap import HypercubeSwapRegrets
from sklearn_localregret.locality.tree_coloring import TreeColoring
from sklearn_localregret.locality.tree_rate_graph import TreeRateGraph
from sklearn_localregret.thresholds import FixedThresholds, ThresholdTests

ROUND_ROWS = 5


def noise(n, rng):
    """Rows whose labels are coin flips: the played trees never settle."""
    return rng.integers(0, 2, (n, 6)), rng.integers(0, 2, n)


def remembered(model):
    """The trees whose regrets the model keeps (rows are keyed (tree, path))."""
    return {tree for tree, _ in model.regret_table_.keys()}


def play(model, n_rounds, seed=0):
    """One round per call; the tree played in each round."""
    rng = np.random.default_rng(seed)
    plays = []
    for _ in range(n_rounds):
        model.partial_fit(*noise(ROUND_ROWS, rng), classes=[0, 1])
        plays.append(model.last_tree_)
        yield plays


def swap_model(discount):
    return LocalRegretTreeClassifier(
        regret="swap",
        L=3,
        discount=discount,
        warm_start=0,
        batch_size=ROUND_ROWS,
        random_state=0,
    )


def test_a_tree_unplayed_for_the_derived_window_is_forgotten():
    discount, tol = 0.9, FORGET_TOLERANCE
    model = swap_model(discount)
    delta = ROUND_ROWS + model.round_bias(ROUND_ROWS)  # weight plus bias
    window = (
        math.log(1 / (tol * (1 - discount))) / math.log(1 / discount) + FORGET_EVERY
    )
    before, last = {}, {}
    for plays in play(model, 1500):
        kept, t = remembered(model), len(plays)
        last[plays[-1]] = t - 1  # the round each tree was last played in
        assert kept <= set(last)  # only played trees have rows
        stale = {tree for tree, i in last.items() if t - 1 - i > window}
        assert not kept & stale, "a tree outlived the derived window"
        if t % FORGET_EVERY == 0:
            # The check of this round forgot exactly the trees that were quiet:
            # their regrets, one round of decay after the last call, within
            # tol * Delta (the tree played this round was updated instead).
            quiet = {
                tree
                for tree, size in before.items()
                if size * discount <= tol * delta and tree != plays[-1]
            }
            assert set(before) - kept == quiet
            assert quiet
        # The regrets before a check round (only that round reads them).
        if (t + 1) % FORGET_EVERY == 0:
            before = loudest_regret_per_tree(model)
    assert len(set(plays)) - len(remembered(model)) > 100  # many were forgotten


def loudest_regret_per_tree(model):
    loudest = {}
    for (tree, _), size in zip(
        model.regret_table_.keys(), model.regret_table_.row_magnitudes()
    ):
        loudest[tree] = max(loudest.get(tree, 0.0), size)
    return loudest


def test_nothing_is_forgotten_without_a_discount():
    model = swap_model(1.0)
    for plays in play(model, 600):
        pass
    assert remembered(model) == set(plays)


def test_forgetting_keeps_the_rows_the_chain_and_a_saved_model_exact():
    model = swap_model(0.9)
    for plays in play(model, 3 * FORGET_EVERY):
        pass
    assert len(set(plays)) > len(remembered(model))
    table = model.regret_table_
    # The graph's row numbers after the table compacted, and the sampler's
    # cache after the forgotten trees left it, are the private bookkeeping
    # this test is about.
    for tree in remembered(model):
        layout = compile_tree(tree)
        assert model._player.graph.rows(layout) == [
            table.find((tree, path)) for path in layout.paths
        ]
    for tree in set(plays) - remembered(model):
        assert model._player.graph.positive_out_edges(tree) == ([], pytest.approx([]))
    got = dict(zip(*model.tree_distribution()))
    fresh = dict(zip(*FiniteChainSampler(model._player.graph, model.L).distribution()))
    assert got.keys() == fresh.keys()
    assert max(abs(got[t] - fresh[t]) for t in got) <= 1e-12
    # A saved model forgets and learns on exactly as the original.
    loaded = pickle.loads(pickle.dumps(model))
    for plays_a, plays_b in zip(play(model, 600, seed=1), play(loaded, 600, seed=1)):
        assert plays_a[-1] == plays_b[-1]
    # (Pickle bytes may differ: equal trees are shared objects in one and
    # copies in the other. What they hold and predict may not.)
    assert loaded.regret_table_.keys() == model.regret_table_.keys()
    for a, b in zip(
        loaded.regret_table_.dense_regrets(), model.regret_table_.dense_regrets()
    ):
        np.testing.assert_array_equal(a, b)
    X = np.random.default_rng(2).integers(0, 2, (50, 6))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_table_forget_renumbers_and_a_forgotten_key_starts_at_zero():
    table = StumpRegretTable(n_classes=2, n_tests=1, discount=0.5)
    rows = [table.row(key) for key in ("a", "b", "c")]
    for row, gain in zip(rows, (1.0, 2.0, 3.0)):
        table.advance()
        table.update(
            [row],
            np.array([[0.0, gain]]),
            np.array([[False, True]]),
            np.array([[[0.0, gain]]]),
            np.array([[0.0, gain]]),
            np.zeros(1),
            np.array([[True]]),
        )
    content = {key: table.site(table.find(key))[0].copy() for key in "ac"}
    versions = {key: table.versions[table.find(key)] for key in "ac"}
    assert table.forget([1]).tolist() == [0, -1, 1]
    assert table.keys() == ["a", "c"] and table.find("b") == -1
    for key in "ac":
        row = table.find(key)
        np.testing.assert_array_equal(table.site(row)[0], content[key])
        assert table.versions[row] == versions[key]
    again = table.row("b")
    assert again == 2
    np.testing.assert_array_equal(table.site(again)[0], np.zeros(3))
    assert table.row_magnitudes()[again] == 0.0
    np.testing.assert_allclose(
        table.row_magnitudes()[:2], [1.0 * 0.5**2, 3.0]
    )  # decayed twice, fresh


def test_a_tree_graph_forgets_only_with_per_edge_regrets():
    tests = ThresholdTests(FixedThresholds(0.5), n_features=1)
    tests.observe(np.zeros((1, 1)))
    table = StumpRegretTable(n_classes=2, n_tests=1)
    graph = TreeRateGraph(table, TreeColoring(tests, 2), per_tree=False)
    graph.rows(compile_tree(Split(0, Leaf(0), Leaf(1))))
    assert graph.forget_quiet_trees(1.0) == [] and table.n_rows == 3


@pytest.mark.parametrize("max_level", [None, 3])
def test_hypercube_swap_forgets_exactly_the_quiet_vertices(max_level):
    # Per-edge regrets on the hypercube (OnlineMaxSAT and the disjunct learner
    # with regret="swap"): the same rule, one row per played vertex.
    discount, n, bias = 0.9, 10, 0.25
    swap = HypercubeSwapRegrets(n, max_level, discount)
    rng = np.random.default_rng(0)
    delta = 1.0 + bias  # |gain| <= 1 below
    window = (
        math.log(1 / (FORGET_TOLERANCE * (1 - discount))) / math.log(1 / discount)
        + FORGET_EVERY
    )
    last, before, forgot = {}, {}, 0
    for t in range(1, 3 * FORGET_EVERY + 1):
        a = swap.sample(rng)
        gains = rng.uniform(-1.0, 1.0, n)
        gains[np.argmax(np.abs(gains))] = 1.0  # the largest |gain| is 1
        swap.update(a, gains, bias)
        last[vertex_key(a)] = t
        kept = set(swap.table.keys())
        assert not {v for v, s in last.items() if t - s > window} & kept
        if t % FORGET_EVERY == 0:
            quiet = {
                v
                for v, size in before.items()
                if size * discount <= FORGET_TOLERANCE * delta and v != vertex_key(a)
            }
            assert set(before) - kept == quiet
            forgot += len(quiet)
            # The solved distribution is the one of the chain from scratch.
            fresh = FiniteChainSampler(swap, max_level).distribution()
            support, probs = swap.distribution()
            assert {bytes(row) for row in support} == set(fresh[0])
            got = dict(zip((bytes(row) for row in support), probs))
            assert max(abs(got[v] - p) for v, p in zip(*fresh)) <= 1e-12
        before = dict(zip(swap.table.keys(), swap.table.row_magnitudes()))
    assert forgot > 20


def test_undiscounted_hypercube_swap_keeps_every_vertex():
    swap = HypercubeSwapRegrets(5)
    rng = np.random.default_rng(1)
    played = set()
    for _ in range(2 * FORGET_EVERY):
        a = swap.sample(rng)
        swap.update(a, rng.uniform(-1.0, 1.0, 5), 0.1)
        played.add(vertex_key(a))
    assert set(swap.table.keys()) == played


def test_online_maxsat_swap_rows_are_the_remembered_assignments():
    rng = np.random.default_rng(0)
    clauses = [
        (rng.choice(12, 3, replace=False) + 1) * rng.choice([-1, 1], 3)
        for _ in range(3 * FORGET_EVERY)
    ]
    rows = {}
    for discount in (1.0, 0.9):
        solver = OnlineMaxSAT(12, "swap", discount=discount, random_state=0)
        played = set()
        for clause in clauses:
            played.add(solver.assignment().tobytes())
            solver.observe(clause.tolist())
        rows[discount] = solver.n_regret_rows_
        if discount == 1.0:
            assert rows[discount] == len(played)  # one row per played assignment
    assert rows[0.9] < rows[1.0] / 2  # the discounted solver forgot most
    assert OnlineMaxSAT(12, random_state=0).n_regret_rows_ == 12
