"""The hypercube locality graph: utilities, updates and samplers against brute force."""

import itertools
import math

import numpy as np
import pytest
from scipy.linalg import expm

from sklearn_localregret.engine import site_distributions
from sklearn_localregret.locality.disjunct_rounds import (
    disjunction_gains,
    disjunction_round,
    play_disjunction_rounds,
)
from sklearn_localregret.locality.hypercube import HypercubeColoring, vertex_key
from sklearn_localregret.locality.hypercube_swap import HypercubeSwapRegrets
from sklearn_localregret.maxsat.rounds import maxsat_gains


def tv_bound(p, n_draws, delta=1e-6):
    """P(TV(empirical of n_draws i.i.d. draws, p) > bound) <= delta.

    E|N_i/N - p_i| <= sqrt(p_i (1 - p_i) / N) (Jensen) and TV changes by at most
    1/N per draw, so McDiarmid adds sqrt(ln(1/delta) / (2N)).
    """
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    mean = 0.5 * np.sum(np.sqrt(p * (1 - p) / n_draws))
    return mean + math.sqrt(math.log(1 / delta) / (2 * n_draws))


def flip(a, k):
    b = np.array(a, copy=True)
    b[k] = 1 - b[k]
    return b


# -- utilities against brute-force recomputation ------------------------------


def disjunction_utility(a, X, y, w):
    predictions = (X @ a) > 0
    return float(np.sum(w * (predictions == (y == 1))))


@pytest.mark.parametrize("seed", range(20))
def test_disjunction_gains_match_recomputed_utilities(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(1, 8), rng.integers(1, 9)
    a = rng.integers(0, 2, n)
    X = (rng.random((m, n)) < rng.uniform(0.1, 0.6)).astype(np.uint8)
    y = rng.integers(0, 2, m)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], m)
    u = disjunction_utility(a, X, y, w)
    expected = [disjunction_utility(flip(a, k), X, y, w) - u for k in range(n)]
    gains, wrong = disjunction_round(a, X, y, w)
    np.testing.assert_allclose(gains, expected, atol=1e-12)
    assert wrong == pytest.approx(w.sum() - u)
    np.testing.assert_allclose(disjunction_gains(a, X, y, w), expected, atol=1e-12)


def random_clause(rng, n):
    width = rng.integers(1, 5)
    variables = rng.integers(0, n, width)  # repeats and tautologies included
    return [int(v + 1) * int(rng.choice([-1, 1])) for v in variables]


def maxsat_utility(a, clauses, weights):
    return sum(
        w
        for c, w in zip(clauses, weights)
        if any((lit > 0) == bool(a[abs(lit) - 1]) for lit in c)
    )


@pytest.mark.parametrize("seed", range(20))
def test_maxsat_gains_match_recomputed_utilities(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    clauses = [random_clause(rng, n) for _ in range(rng.integers(1, 8))]
    weights = rng.choice([0.0, 1.0, 2.5], len(clauses))
    a = rng.integers(0, 2, n)
    u = maxsat_utility(a, clauses, weights)
    expected = [maxsat_utility(flip(a, k), clauses, weights) - u for k in range(n)]
    np.testing.assert_allclose(maxsat_gains(a, clauses, weights), expected, atol=1e-12)


# -- the update -----------------------------------------------------------------


def test_colored_update_by_hand_with_bias():
    cube = HypercubeColoring(3)
    a = np.array([1, 0, 1], dtype=np.uint8)
    cube.update(a, np.array([2.0, -1.0, 0.0]), bias=0.5)
    # Colour (k, 1 - a_k) gets gain - b: (0, off), (1, on), (2, off).
    np.testing.assert_array_equal(
        cube.table.biased, [[1.5, 0.0], [0.0, -1.5], [-0.5, 0.0]]
    )
    np.testing.assert_array_equal(
        cube.table.unbiased, [[2.0, 0.0], [0.0, -1.0], [0.0, 0.0]]
    )
    cube.update(np.zeros(3, dtype=np.uint8), np.array([1.0, 0.0, 4.0]), bias=0.0)
    np.testing.assert_array_equal(
        cube.table.biased, [[1.5, 1.0], [0.0, -1.5], [-0.5, 4.0]]
    )
    assert cube.n_updates == 2
    # Unbiased positive regrets: 2 + 1 + 4, over T = 2 rounds.
    assert cube.colored_regret() == pytest.approx(7.0 / 2)
    assert cube.n_nonzero() == 5


def test_swap_update_by_hand_with_bias():
    swap = HypercubeSwapRegrets(2)
    swap.update(np.array([1, 0], dtype=np.uint8), np.array([-1.0, 3.0]), bias=1.0)
    row = swap.table.find(vertex_key([1, 0]))
    np.testing.assert_array_equal(swap.table.biased[row], [-2.0, 2.0])
    np.testing.assert_array_equal(swap.table.unbiased[row], [-1.0, 3.0])
    assert swap.swap_regret() == 3.0
    assert swap.n_nonzero() == 2


def test_block_player_equals_round_by_round():
    """play_disjunction_rounds reproduces sample -> disjunction_round -> update."""
    rng = np.random.default_rng(3)
    n, m = 6, 240
    X = (rng.random((m, n)) < 0.3).astype(np.uint8)
    y = ((X[:, 0] | X[:, 4]) ^ (rng.random(m) < 0.1)).astype(int)
    w = rng.choice([0.0, 1.0, 2.0], m)
    for batch, bias in [(1, 0.0), (4, 0.0), (3, 0.25), (m, 0.0)]:  # (m: one round)
        fast, slow = HypercubeColoring(n), HypercubeColoring(n)
        fast_rng, slow_rng = np.random.RandomState(7), np.random.RandomState(7)
        wrong = play_disjunction_rounds(fast, X, y, w, batch, bias, fast_rng)
        expected = 0.0
        for lo in range(0, m, batch):
            a = slow.sample(slow_rng)
            gains, wr = disjunction_round(
                a, X[lo : lo + batch], y[lo : lo + batch], w[lo : lo + batch]
            )
            slow.update(a, gains, bias)
            expected += wr
        np.testing.assert_allclose(fast.table.biased, slow.table.biased, atol=1e-9)
        np.testing.assert_allclose(fast.table.unbiased, slow.table.unbiased, atol=1e-9)
        assert fast.n_updates == slow.n_updates == -(-m // batch)
        assert wrong == pytest.approx(expected)


# -- samplers -------------------------------------------------------------------


def test_product_probabilities_match_the_engine():
    rng = np.random.default_rng(0)
    cube = HypercubeColoring(6)
    for _ in range(5):
        a = rng.integers(0, 2, 6).astype(np.uint8)
        cube.update(a, rng.normal(size=6), bias=0.1)
    rates = np.maximum(cube.table.biased, 0.0)
    expected = site_distributions(rates, np.zeros(6, dtype=int))[:, 1]
    np.testing.assert_allclose(cube.probabilities(), expected)


def test_product_sampler_draws_the_product_distribution():
    cube = HypercubeColoring(3)
    cube.table.update_entries([0, 0, 1, 2], [0, 1, 1, 0], [1.0, 3.0, 2.0, -1.0])
    p = cube.probabilities()  # [0.75, 1, 0]
    rng = np.random.RandomState(0)
    n_draws = 20_000
    draws = np.array([cube.sample(rng) for _ in range(n_draws)])
    vertices = list(itertools.product((0, 1), repeat=3))
    exact = [np.prod([p[k] if v[k] else 1 - p[k] for k in range(3)]) for v in vertices]
    counts = {v: 0 for v in vertices}
    for d in draws:
        counts[tuple(d)] += 1
    empirical = np.array([counts[v] / n_draws for v in vertices])
    assert 0.5 * np.abs(empirical - exact).sum() < tv_bound(exact, n_draws)


def enumerated_generator(n, rate_of_edge, max_level):
    """Generator matrix of the whole hypercube, root redirect for level > L."""
    vertices = list(itertools.product((0, 1), repeat=n))
    index = {v: i for i, v in enumerate(vertices)}
    q = np.zeros((len(vertices), len(vertices)))
    for v in vertices:
        for k in range(n):
            target = tuple(flip(np.array(v), k))
            rate = max(rate_of_edge(v, k), 0.0)
            if max_level is not None and sum(target) > max_level:
                target = vertices[0]
            if target != v:
                q[index[v], index[target]] += rate
    q -= np.diag(q.sum(axis=1))
    return vertices, q


def stationary_by_expm(q):
    """lim P(X_t = . | X_0 = root): expm at a horizon far beyond the slowest rate."""
    rates = -np.diag(q)
    horizon = 1e4 / rates[rates > 0].min()
    start = np.zeros(len(q))
    start[0] = 1.0
    pi = start @ expm(q * horizon)
    np.testing.assert_allclose(pi, start @ expm(q * 2 * horizon), atol=1e-10)
    return pi


@pytest.mark.parametrize("max_level", [None, 1, 2])
def test_swap_chain_matches_exact_enumeration(max_level):
    rng = np.random.default_rng(11)
    swap = HypercubeSwapRegrets(3, max_level)
    played = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)]
    for v in played:
        swap.update(np.array(v, dtype=np.uint8), rng.normal(0.5, 1.0, 3), bias=0.2)

    def rate(v, k):
        row = swap.table.find(vertex_key(v))
        return 0.0 if row < 0 else swap.table.biased[row, k]

    vertices, q = enumerated_generator(3, rate, max_level)
    exact = stationary_by_expm(q)
    support, probs = swap.distribution()
    got = np.zeros(len(vertices))
    for v, p in zip(support, probs):
        got[vertices.index(tuple(v))] += p
    np.testing.assert_allclose(got, exact, atol=1e-8)
    if max_level is not None:
        assert all(sum(v) <= max_level for v in support)
    # And the draws follow it.
    n_draws = 5000
    sampler_rng = np.random.RandomState(1)
    counts = np.zeros(len(vertices))
    for _ in range(n_draws):
        counts[vertices.index(tuple(swap.sample(sampler_rng)))] += 1
    assert 0.5 * np.abs(counts / n_draws - exact).sum() < tv_bound(exact, n_draws)


def test_mcmc_sampler_follows_the_uniformized_chain():
    """L < n: k steps of I + Q / Lambda with the redirect, Q from the 2n colours."""
    n, max_level, steps = 3, 1, 6
    cube = HypercubeColoring(n, max_level=max_level, n_mcmc_steps=steps)
    cube.table.update_entries(
        [0, 1, 1, 2, 2], [1, 1, 0, 1, 0], [2.0, 1.0, 0.5, 3.0, 1.0]
    )
    assert not cube.exact

    def rate(v, k):
        return cube.table.biased[k, 1 - v[k]]

    vertices, q = enumerated_generator(n, rate, max_level)
    bound = float(np.maximum(cube.table.biased, 0.0).sum())
    step = np.eye(len(q)) + q / bound
    exact = np.linalg.matrix_power(step, steps)[0]
    rng = np.random.RandomState(5)
    n_draws = 6000
    counts = np.zeros(len(vertices))
    for _ in range(n_draws):
        cube._state = cube.root  # independent chains from the root
        counts[vertices.index(tuple(cube.sample(rng)))] += 1
    assert counts[[i for i, v in enumerate(vertices) if sum(v) > max_level]].sum() == 0
    assert 0.5 * np.abs(counts / n_draws - exact).sum() < tv_bound(exact, n_draws)


def chain_cube(steps):
    """A 3-cube with L = 1 (the root redirect) and fixed positive regrets."""
    cube = HypercubeColoring(3, max_level=1, n_mcmc_steps=steps)
    cube.table.update_entries(
        [0, 1, 1, 2, 2], [1, 1, 0, 1, 0], [2.0, 1.0, 0.5, 3.0, 1.0]
    )
    return cube


def test_estimate_distribution_is_the_stationary_law_of_the_chain():
    """Thinned by 30 steps, the chain's states are as good as independent pi draws.

    Every thinned draw, whatever the state before it, is within ``eps`` (in
    TV) of ``pi``, computed from the enumerated chain; coupling each with an
    independent ``pi`` draw fails with probability at most ``n_draws * eps``,
    so the i.i.d. bound holds but for that (below 1e-6 here).
    """
    steps, n_draws = 30, 600
    cube = chain_cube(steps)

    def rate(v, k):
        return cube.table.biased[k, 1 - v[k]]

    vertices, q = enumerated_generator(3, rate, 1)
    step = np.eye(len(q)) + q / float(np.maximum(cube.table.biased, 0.0).sum())
    kernel = np.linalg.matrix_power(step, steps)
    pi = np.linalg.matrix_power(kernel, 50)[0]
    reachable = [i for i, v in enumerate(vertices) if sum(v) <= 1]
    eps = 0.5 * np.abs(kernel[reachable] - pi).sum(axis=1).max()
    assert n_draws * eps < 1e-6
    support, probs = cube.estimate_distribution(n_draws, seed=3)
    got = np.zeros(len(vertices))
    for v, p in zip(support, probs):
        got[vertices.index(tuple(v))] += p
    assert 0.5 * np.abs(got - pi).sum() < tv_bound(pi, n_draws)
    # Deterministic in the seed, and the chain used for play has not moved.
    first = cube.estimate_distribution(40, seed=5)
    again = cube.estimate_distribution(40, seed=5)
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[1], first[1])
    np.testing.assert_array_equal(
        cube.sample(np.random.RandomState(0)),
        chain_cube(steps).sample(np.random.RandomState(0)),
    )


def test_exact_colouring_has_no_estimate():
    cube = HypercubeColoring(3)
    assert cube.mixture(seed=0) is None
    with pytest.raises(ValueError, match=r"use probabilities\(\)"):
        cube.estimate_distribution(10, seed=0)


@pytest.mark.parametrize("discount", [1.0, 0.9])
def test_passing_rounds_is_updating_with_zero_gains(discount):
    played = HypercubeColoring(4, discount=discount)
    passed = HypercubeColoring(4, discount=discount)
    for cube in (played, passed):
        cube.update(
            np.array([1, 0, 1, 0], dtype=np.uint8),
            np.array([2.0, -1.0, 0.5, 3.0]),
            bias=0.25,
        )
    for _ in range(3):
        played.update(np.zeros(4, dtype=np.uint8), np.zeros(4))
    passed.pass_rounds(3)
    assert passed.n_updates == played.n_updates == 4
    np.testing.assert_allclose(passed.table.biased, played.table.biased, rtol=1e-12)
    assert passed.colored_regret() == pytest.approx(played.colored_regret(), rel=1e-12)
