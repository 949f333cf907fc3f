"""The incremental FiniteChainSampler against a from-scratch solve.

The sampler caches every vertex's out-edges and re-reads only the vertices it
is told about (``invalidate``). After random sequences of regret updates --
with the level redirect for finite ``L`` and with edges whose regret drops to
zero and disappear -- its distribution must equal, to 1e-12, the one solved
from scratch (:func:`reachable_generator` + :func:`stationary_from_root`).
"""

import numpy as np
import pytest
from exact import DictRateGraph, flip, hypercube_vertices

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import (
    FiniteChainSampler,
    reachable_generator,
    stationary_from_root,
)
from sklearn_localregret.locality.hypercube import vertex_key
from sklearn_localregret.locality.hypercube_swap import HypercubeSwapRegrets

TOL = 1e-12


def from_scratch(graph, max_level):
    vertices, rates = reachable_generator(graph, max_level)
    pi = stationary_from_root(rates)
    return {v: p for v, p in zip(vertices, pi) if p > 0}


def assert_same(vertices, probs, expected):
    assert len(set(vertices)) == len(vertices)
    got = dict(zip(vertices, probs))
    assert all(p > 0 for p in got.values())
    for v in set(got) | set(expected):
        assert abs(got.get(v, 0.0) - expected.get(v, 0.0)) <= TOL, v


class MutableGraph(DictRateGraph):
    """A DictRateGraph whose regrets out of one vertex can be changed."""

    def add_regrets(self, vertex, deltas):
        targets = self.regrets[vertex]
        for target, delta in zip(list(targets), deltas):
            targets[target] += delta
        pos = [(t, r) for t, r in targets.items() if r > 0]
        self._positive[vertex] = (
            [t for t, _ in pos],
            np.array([r for _, r in pos], dtype=float),
        )
        return len(pos)


@pytest.mark.parametrize("max_level", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_incremental_matches_scratch_on_random_updates(max_level, seed):
    n = 5
    rng = np.random.default_rng(seed)
    vertices = hypercube_vertices(n)
    graph = MutableGraph(
        vertices[0], {v: {flip(v, k): 0.0 for k in range(n)} for v in vertices}
    )
    sampler = FiniteChainSampler(graph, max_level)
    n_positive = {v: 0 for v in vertices}
    dropped = redirected = reused = 0
    for step in range(80):
        # Mostly the learner's protocol (update a drawn vertex); sometimes any
        # vertex, met or not, possibly above max_level.
        if rng.random() < 0.7:
            vertex = sampler.sample(rng)
        else:
            vertex = vertices[rng.integers(len(vertices))]
        if step % 10 == 9:
            deltas = np.zeros(n)  # a round that changes no rate
        else:
            deltas = rng.normal(-0.2, 1.0, size=n) * (rng.random(n) < 0.8)
        before = sampler._result  # the private solve cache, about it
        count = graph.add_regrets(vertex, deltas)
        dropped += count < n_positive[vertex]
        n_positive[vertex] = count
        sampler.invalidate(vertex)
        vs, probs = sampler.distribution()
        if not deltas.any():
            assert sampler._result is before  # nothing changed: no re-solve
            reused += 1
        assert_same(vs, probs, from_scratch(graph, max_level))
        fresh = FiniteChainSampler(graph, max_level).distribution()
        assert_same(*fresh, dict(zip(vs, probs)))
        if max_level is not None:
            targets, _ = graph.positive_out_edges(vertex)
            redirected += any(graph.level(t) > max_level for t in targets)
    assert dropped > 0 and reused > 0
    if max_level is not None and max_level < n:
        assert redirected > 0


def test_invalidate_everything_and_unknown_vertices():
    graph = MutableGraph(
        "r", {"r": {"a": 1.0}, "a": {"r": 0.0, "b": 0.0}, "b": {"a": 0.0}}
    )
    sampler = FiniteChainSampler(graph)
    assert sampler.distribution() == (["a"], np.array([1.0]))
    graph.add_regrets("b", [2.0])  # "b" was never met: nothing to forget
    sampler.invalidate("b")
    graph.add_regrets("a", [0.0, 1.0])
    sampler.invalidate("a")
    vs, probs = sampler.distribution()
    assert_same(vs, probs, from_scratch(graph, None))
    assert set(vs) == {"a", "b"}
    graph.add_regrets("a", [0.0, -1.0])  # forgotten without invalidate(a)...
    sampler.invalidate()  # ...but forgetting everything catches it
    assert_same(*sampler.distribution(), {"a": 1.0})


def test_draws_match_rng_choice():
    graph = MutableGraph(
        "r", {"r": {"a": 1.0, "b": 2.0, "c": 0.5}, "a": {}, "b": {}, "c": {}}
    )
    sampler = FiniteChainSampler(graph)
    vs, probs = sampler.distribution()
    one, two = np.random.default_rng(5), np.random.default_rng(5)
    draws = [sampler.sample(one) for _ in range(200)]
    assert draws == [vs[two.choice(len(vs), p=probs)] for _ in range(200)]


@pytest.mark.parametrize("max_level", [None, 1, 2, 4])
def test_hypercube_swap_incremental_matches_scratch(max_level):
    n = 6
    rng = np.random.default_rng(11)
    swap = HypercubeSwapRegrets(n, max_level)
    dropped = 0
    for _ in range(150):
        a = swap.sample(rng)
        before = (
            (swap.table.biased[row] > 0).sum()
            if (row := swap.table.find(vertex_key(a))) >= 0
            else 0
        )
        swap.update(a, rng.normal(0.0, 1.0, size=n), bias=0.3)
        after = (swap.table.biased[swap.table.find(vertex_key(a))] > 0).sum()
        dropped += after < before
        support, probs = swap.distribution()
        keys = [row.tobytes() for row in support]
        assert_same(keys, probs, from_scratch(swap, max_level))
    assert dropped > 0


@pytest.mark.parametrize("L", [1, 2, 3])
def test_tree_swap_incremental_matches_scratch(L):
    # Two features and a bias of 0.3 per round: trees get played again and
    # some of their edge regrets fall back below zero (edges disappear).
    rng = np.random.default_rng(L)
    X = rng.integers(0, 2, size=(400, 2))
    y = (X[:, 0] & X[:, 1]) ^ (rng.random(400) < 0.2)
    clf = LocalRegretTreeClassifier(
        "swap", L=L, bias=0.3, batch_size=5, warm_start=0, discount=1.0, random_state=L
    )
    n_positive, dropped, played = {}, 0, set()
    for lo in range(0, 400, 5):
        clf.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
        tree = clf.last_tree_
        played.add(tree)
        # The reference solve reads the learner's private rate graph: the
        # edges are what this test is about.
        count = len(clf._player.graph.positive_out_edges(tree)[0])
        dropped += count < n_positive.get(tree, 0)
        n_positive[tree] = count
        trees, probs = clf.tree_distribution()
        assert_same(trees, probs, from_scratch(clf._player.graph, L))
    assert dropped > 0 and len(played) > 3
