"""The removal-set graph: gains, the pool, the update and the block player
against brute force and against a reference written from the definitions."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.locality.disjunct_rounds import disjunction_round
from sklearn_localregret.locality.hypercube import HypercubeColoring
from sklearn_localregret.locality.removal_set_rounds import (
    play_removal_set_rounds,
    removal_set_gains,
    removal_set_round,
)
from sklearn_localregret.locality.removal_sets import RemovalSetColoring


def utility(a, X, y, w):
    """Weight classified correctly by disjunction ``a`` (from the definition)."""
    return float(np.sum(w * (((X @ a) > 0) == (y == 1))))


@pytest.mark.parametrize("seed", range(20))
def test_gains_match_recomputed_utilities(seed):
    rng = np.random.default_rng(seed)
    n, m, n_sets = rng.integers(1, 7), rng.integers(1, 9), rng.integers(0, 4)
    a = rng.integers(0, 2, n).astype(np.uint8)
    X = (rng.random((m, n)) < rng.uniform(0.2, 0.7)).astype(np.uint8)
    y = rng.integers(0, 2, m)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], m)
    sets = (rng.random((n_sets, n)) < 0.5).astype(np.uint8)
    u = utility(a, X, y, w)
    flips = [
        utility(np.where(np.arange(n) == k, 1 - a, a), X, y, w) - u for k in range(n)
    ]
    drops = [utility(a & (1 - s), X, y, w) - u for s in sets]
    gains, set_gains, wrong = removal_set_gains(a, X, y, w, sets)
    np.testing.assert_allclose(gains, flips, atol=1e-12)
    np.testing.assert_allclose(set_gains, drops, atol=1e-12)
    assert wrong == pytest.approx(w.sum() - u)
    np.testing.assert_array_equal(gains, disjunction_round(a, X, y, w)[0])


def test_a_negative_row_fired_by_two_literals_lets_its_set_enter():
    graph = RemovalSetColoring(4, max_sets=4)
    a = np.array([1, 1, 0, 1], dtype=np.uint8)
    X = np.array(
        [
            [1, 1, 1, 0],  # negative, fired by x0 and x1: enters
            [1, 0, 0, 0],  # negative, one literal: a flip fixes it
            [0, 1, 0, 1],  # positive: never a removal set
            [1, 0, 0, 1],
        ],  # negative but weight 0
        dtype=np.uint8,
    )
    y, w = np.array([0, 0, 1, 0]), np.array([1.0, 1.0, 1.0, 0.0])
    wrong = removal_set_round(graph, a, X, y, w, bias=0.25)
    assert wrong == 2.0
    np.testing.assert_array_equal(graph.sets[graph.occupied], [[1, 1, 1, 0]])
    # Dropping {x0, x1, x2} from a leaves x3: row 0 fixed (+1), row 1 fixed
    # (+1), row 2 still fires through x3 (0). Minus the bias.
    np.testing.assert_allclose(graph.set_regrets(), [1.75, 0, 0, 0])
    np.testing.assert_allclose(graph.table.unbiased[4:, 0], [2.0, 0, 0, 0])
    # Every bit colour out of a got its gain minus the bias (the paper's update).
    gains = removal_set_gains(a, X, y, w, graph.sets[:0])[0]
    np.testing.assert_allclose(graph.table.biased[np.arange(4), 1 - a], gains - 0.25)
    assert graph.n_updates == 1 and graph.n_sets_tracked == 1


def test_the_bias_reaches_every_edge_out_of_the_played_disjunction_only():
    graph = RemovalSetColoring(3, max_sets=3)
    graph.track(np.array([[1, 0, 0], [0, 1, 1]], dtype=np.uint8))
    graph.update(np.array([1, 0, 0], dtype=np.uint8), np.zeros(3), np.zeros(3), 0.5)
    # {x0} shares a literal with a (an edge): -b. {x1, x2} does not: no edge.
    np.testing.assert_array_equal(graph.set_regrets(), [-0.5, 0.0, 0.0])
    graph.update(np.array([1, 0, 0], dtype=np.uint8), np.zeros(3), np.zeros(3), 0.0)
    np.testing.assert_array_equal(graph.set_regrets(), [-0.5, 0.0, 0.0])
    assert graph.n_nonzero() == 3 + 1


def test_a_full_pool_replaces_only_a_slot_without_rate():
    graph = RemovalSetColoring(3, max_sets=2, discount=0.5)
    graph.track(np.array([[1, 1, 0], [0, 1, 1]], dtype=np.uint8))
    for _ in range(3):  # a discount scale other than 1
        graph.update(
            np.array([1, 1, 1], dtype=np.uint8), np.zeros(3), np.array([2.0, -1.0])
        )
    assert graph.set_regrets()[0] > 0 > graph.set_regrets()[1]
    # The slot with regret <= 0 takes the new set, at exactly zero regret.
    assert graph.track(np.array([[1, 0, 1]], dtype=np.uint8)) == [1]
    np.testing.assert_array_equal(graph.sets, [[1, 1, 0], [1, 0, 1]])
    assert graph.table.rates[4, 0] == 0.0 and graph.table.unbiased[4, 0] == 0.0
    assert graph.is_tracked(np.array([1, 0, 1], dtype=np.uint8))
    assert not graph.is_tracked(np.array([0, 1, 1], dtype=np.uint8))
    # Now every slot has regret >= 0 with one ringing: only the zero one goes;
    # a second new set in the same call finds no slot (the first is new).
    assert graph.track(np.array([[0, 0, 1], [0, 1, 0]], dtype=np.uint8)) == [1]
    assert graph.track(np.array([[0, 0, 1]], dtype=np.uint8)) == []
    assert graph.n_sets_tracked == 4
    # The index of the slots survives a pickle (it is rebuilt on load).
    loaded = pickle.loads(pickle.dumps(graph))
    assert loaded.is_tracked(np.array([0, 0, 1], dtype=np.uint8))
    assert loaded.track(np.array([[1, 1, 0]], dtype=np.uint8)) == []


def test_no_slots_is_the_hypercube():
    """``max_sets=0``: the 2n colouring, draw for draw and regret for regret."""
    rng = np.random.default_rng(2)
    X = (rng.random((300, 6)) < 0.4).astype(np.uint8)
    y = ((X[:, 0] | X[:, 3]) ^ (rng.random(300) < 0.2)).astype(int)
    w = np.ones(300)
    graph, cube = RemovalSetColoring(6, max_sets=0), HypercubeColoring(6)
    for t in range(300):
        u = rng.random(6)
        a, b = graph.draw(u).astype(np.uint8), cube.draw(u).astype(np.uint8)
        np.testing.assert_array_equal(a, b)
        removal_set_round(graph, a, X[t : t + 1], y[t : t + 1], w[t : t + 1], 0.1)
        gains, _ = disjunction_round(b, X[t : t + 1], y[t : t + 1], w[t : t + 1])
        cube.update(b, gains, 0.1)
    np.testing.assert_array_equal(graph.table.biased, cube.table.biased)


def stream(seed, m=400, n=7):
    rng = np.random.default_rng(seed)
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = ((X[:, 1] | X[:, n - 2]) ^ (rng.random(m) < 0.1)).astype(int)
    y[m // 2 :] = X[m // 2 :, 2]  # the target changes halfway
    return X, y, rng.choice([0.0, 1.0, 2.0], m)


@pytest.mark.parametrize(
    "batch, bias, discount",
    [
        (1, 0.0, 1.0),
        (4, 0.0, 1.0),
        (3, 0.25, 1.0),
        (1, 0.0, 0.9),
        (5, 0.0, 0.6),
    ],
)
def test_block_player_equals_round_by_round(batch, bias, discount, monkeypatch):
    """play_removal_set_rounds reproduces sample -> removal_set_round, round by
    round, state for state (pool, regrets, rounds), also across renormalisations
    of the discount scale (made frequent by a low renormalisation point)."""
    monkeypatch.setattr("sklearn_localregret.engine.discount_clock.RENORMALIZE_AT", 1e8)
    X, y, w = stream(3)
    fast = RemovalSetColoring(7, max_sets=3, discount=discount)
    slow = RemovalSetColoring(7, max_sets=3, discount=discount)
    fast_rng, slow_rng = np.random.default_rng(7), np.random.default_rng(7)
    wrong = play_removal_set_rounds(fast, X, y, w, batch, bias, fast_rng)
    expected = 0.0
    for lo in range(0, len(y), batch):
        a = slow.sample(slow_rng)
        expected += removal_set_round(
            slow, a, X[lo : lo + batch], y[lo : lo + batch], w[lo : lo + batch], bias
        )
    np.testing.assert_allclose(
        fast.table.biased, slow.table.biased, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        fast.table.unbiased, slow.table.unbiased, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_array_equal(fast.sets, slow.sets)
    assert fast.n_updates == slow.n_updates == -(-len(y) // batch)
    assert fast.n_sets_tracked == slow.n_sets_tracked > 3  # slots were reused
    assert wrong == pytest.approx(expected)
    if discount < 0.7:
        assert slow.table.clock.n_resets > 0


class EagerReference:
    """The removal-set learner written from the definitions, eagerly discounted.

    Regrets are dicts keyed by colour; every round multiplies all of them by
    lambda, then adds ``gain - b`` to every colour with an edge out of the
    played disjunction. The pool follows the documented rule.
    """

    def __init__(self, n, max_sets, discount):
        self.n, self.max_sets, self.discount = n, max_sets, discount
        self.bits = np.zeros((n, 2))
        self.sets, self.set_regret = [], []  # slot -> set (tuple), regret

    def play(self, a, X, y, w, bias):
        filled = []  # a set that entered in this round is not replaced in it
        for x in X[(y != 1) & (w > 0) & (X @ a >= 2)]:
            key = tuple(int(v) for v in x)
            if key in self.sets:
                continue
            if len(self.sets) < self.max_sets:
                filled.append(len(self.sets))
                self.sets.append(key)
                self.set_regret.append(0.0)
                continue
            regrets = [
                np.inf if j in filled else r for j, r in enumerate(self.set_regret)
            ]
            slot = int(np.argmin(regrets))
            if regrets[slot] <= 0:
                self.sets[slot], self.set_regret[slot] = key, 0.0
                filled.append(slot)
        self.bits *= self.discount
        self.set_regret = [r * self.discount for r in self.set_regret]
        u = utility(a, X, y, w)
        for k in range(self.n):
            flipped = a.copy()
            flipped[k] ^= 1
            self.bits[k, 1 - a[k]] += utility(flipped, X, y, w) - u - bias
        for j, s in enumerate(self.sets):
            if np.any(a & np.array(s)):
                self.set_regret[j] += utility(a & (1 - np.array(s)), X, y, w) - u - bias


@pytest.mark.parametrize("discount", [1.0, 0.8, 0.3])
def test_discounted_regrets_equal_the_eager_reference(discount, monkeypatch):
    """The lazy scale gives the eager ``lambda R + r`` of every colour (the
    plays are the reference's too), across renormalisations of the scale."""
    monkeypatch.setattr("sklearn_localregret.engine.discount_clock.RENORMALIZE_AT", 1e8)
    X, y, w = stream(4, m=300, n=5)
    graph = RemovalSetColoring(5, max_sets=2, discount=discount)
    eager = EagerReference(5, 2, discount)
    rng = np.random.default_rng(0)
    for lo in range(0, 300, 2):
        a = graph.sample(rng)
        removal_set_round(graph, a, X[lo : lo + 2], y[lo : lo + 2], w[lo : lo + 2], 0.1)
        eager.play(a, X[lo : lo + 2], y[lo : lo + 2], w[lo : lo + 2], 0.1)
        scale = max(1.0, np.abs(eager.bits).max())
        np.testing.assert_allclose(
            graph.table.biased[:5], eager.bits, rtol=1e-9, atol=1e-12 * scale
        )
        slots = [s for s in range(2) if graph.occupied[s]]
        assert [tuple(graph.sets[s]) for s in slots] == eager.sets
        np.testing.assert_allclose(
            graph.set_regrets()[slots], eager.set_regret, rtol=1e-9, atol=1e-12 * scale
        )
    assert graph.n_sets_tracked > 2
    if discount == 0.3:
        assert graph.table.clock.n_resets > 0
