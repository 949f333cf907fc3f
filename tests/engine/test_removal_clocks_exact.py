"""The removal-set clock sampler against the exact stationary distribution.

The enlarged disjunction graph (hypercube flips plus "drop every literal of
``S_j``" for every tracked set) is enumerated here from its definition for
``n <= 5``: every vertex, every flip with the regret of its colour, every
removal out of a vertex that shares a literal with ``S_j`` (parallel edges
add up). :mod:`exact` gives ``lim_t P(X_t = . | X_0 = root)`` by squaring the
uniformised chain, independently of the clock construction; the draws of
:meth:`RemovalSetColoring.draw`, its marginals and its firing probabilities
are checked against it, the draws with the derived bound
:func:`exact.tv_bound`. A power test shows that the same check rejects a
sampler that keeps the exact marginals but draws the bits independently (the
one thing the clocks add over the hypercube's product: shared removals
couple the bits).
"""

import itertools
import math

import numpy as np
import pytest
from exact import (
    as_dict,
    bfs_levels,
    empirical,
    k_step_distribution,
    rate_matrix,
    stationary_by_squaring,
    total_variation,
    tv_bound,
)

from sklearn_localregret.engine.removal_clocks import (
    group_clock_times,
    latest_group_ring,
    on_probabilities,
)
from sklearn_localregret.locality.removal_sets import RemovalSetColoring

N_DRAWS = 20_000


def enlarged_graph(graph):
    """Vertices (root first), rated edges (parallel ones kept) and levels."""
    n = graph.n_vars
    biased = graph.table.biased
    vertices = list(itertools.product((0, 1), repeat=n))
    edges, neighbours = {}, {}
    for v in vertices:
        out = []
        for k in range(n):
            target = v[:k] + (1 - v[k],) + v[k + 1 :]
            out.append((target, float(biased[k, 1 - v[k]])))
        for j in np.flatnonzero(graph.occupied):
            members = graph.sets[j]
            if any(v[k] and members[k] for k in range(n)):
                target = tuple(int(v[k] and not members[k]) for k in range(n))
                out.append((target, float(biased[n + j, 0])))
        edges[v] = [(t, max(r, 0.0)) for t, r in out]
        neighbours[v] = [t for t, _ in out]
    return vertices, edges, bfs_levels(vertices, neighbours, vertices[0])


def exact_distribution(graph, max_level=None):
    vertices, edges, levels = enlarged_graph(graph)
    rates = rate_matrix(vertices, edges, vertices[0], levels, max_level)
    pi = stationary_by_squaring(rates, 0)
    generator = rates - np.diag(rates.sum(axis=1))
    assert np.abs(pi @ generator).max() <= 1e-10 * max(1.0, rates.max())
    return as_dict(vertices, pi, 1e-13)


def make_graph(n, bit_regrets, sets, set_regrets, discount=1.0):
    """A graph whose colours hold these biased regrets (through its updates)."""
    graph = RemovalSetColoring(n, max_sets=len(sets) + 1, discount=discount)
    assert graph.track(np.asarray(sets, dtype=np.uint8)) == list(range(len(sets)))
    rows, cols = np.nonzero(np.ones((n, 2)))
    values = np.r_[np.asarray(bit_regrets, float)[rows, cols], set_regrets]
    rows = np.r_[rows, n + np.arange(len(sets))]
    cols = np.r_[cols, np.zeros(len(sets), dtype=int)]
    graph.table.advance(3)  # a discount scale other than 1
    graph.table.update_entries(rows, cols, values)
    return graph


def random_case(n, n_sets, seed):
    rng = np.random.default_rng(seed)
    bits = 10.0 ** rng.uniform(-1, 1, (n, 2))
    bits *= np.where(rng.random((n, 2)) < 0.15, -1.0, 1.0)
    bits[0] = [-1.0, -2.0]  # idle: keeps the root's 0
    sets = (rng.random((n_sets, n)) < 0.5).astype(np.uint8)
    sets[0] = 1  # the set of every variable
    sets[np.arange(1, n_sets), rng.integers(0, n, n_sets - 1)] = 1  # non-empty
    regrets = 10.0 ** rng.uniform(-1, 1, n_sets)
    regrets[-1] *= -1  # a tracked set without rate
    return bits, sets, regrets


CASES = {
    # Bits 1 and 2 want to be on; one removal clears both, often.
    "n3-shared-removal": (3, [[1.0, 0.0], [1.0, 4.0], [1.0, 4.0]], [[0, 1, 1]], [3.0]),
    # Nested and overlapping sets, a singleton (parallel to a flip), an
    # all-negative set, tiny and large rates.
    "n4-nested": (
        4,
        [[0.5, 2.0], [1e-3, 2e-3], [2.0, 0.0], [0.0, 5.0]],
        [[1, 1, 0, 1], [0, 1, 0, 1], [0, 0, 0, 1], [1, 0, 1, 0]],
        [0.7, 20.0, 0.3, -1.0],
    ),
    "n5-random": (5, *random_case(5, 4, 1)),
}


@pytest.fixture(params=sorted(CASES), scope="module")
def case(request):
    n, bits, sets, regrets = CASES[request.param]
    graph = make_graph(n, bits, sets, regrets, discount=0.8)
    return graph, exact_distribution(graph)


def draws_of(graph, seed):
    rng = np.random.default_rng(seed)
    drawn = graph.draw(rng.random((N_DRAWS, graph.uniforms_per_round)))
    return [tuple(int(b) for b in row) for row in drawn]


def assert_close_in_tv(draws, exact_pi):
    tv = total_variation(empirical(draws), exact_pi)
    bound = tv_bound(exact_pi, len(draws))
    print(f"TV {tv:.4f} <= bound {bound:.4f} ({len(draws)} draws)")
    assert tv <= bound


def test_clock_draws_follow_the_exact_distribution(case):
    graph, exact_pi = case
    draws = draws_of(graph, 0)
    assert_close_in_tv(draws, exact_pi)
    assert all(d[0] == 0 for d in draws if graph.n_vars == 5)  # the idle bit
    # One draw at a time (what sample() does) is the same function of the
    # uniforms as the block of draws.
    rng = np.random.default_rng(0)
    uniforms = rng.random((50, graph.uniforms_per_round))
    block = graph.draw(uniforms)
    for u, row in zip(uniforms, block):
        np.testing.assert_array_equal(graph.draw(u), row)


def test_marginals_are_exact(case):
    graph, exact_pi = case
    marginal = [
        sum(p for v, p in exact_pi.items() if v[k]) for k in range(graph.n_vars)
    ]
    np.testing.assert_allclose(graph.probabilities(), marginal, rtol=0, atol=1e-10)


def exact_fire(exact_pi, X):
    return np.array(
        [sum(p for v, p in exact_pi.items() if np.dot(v, x) > 0) for x in X]
    )


def test_firing_probabilities(case):
    """Exact given the clocks, a mean over 512 clock draws otherwise.

    Each of the ``N`` clock draws gives a probability in [0, 1] whose mean is
    the exact one, so by Hoeffding the estimate is within
    ``sqrt(ln(2 / delta) / (2 N))`` with probability ``1 - delta``; with
    ``delta = 1e-6 / rows`` for every row at once.
    """
    graph, exact_pi = case
    n = graph.n_vars
    X = np.array(list(itertools.product((0, 1), repeat=n)), dtype=float)
    expected = exact_fire(exact_pi, X)
    for n_draws, got in [
        (512, graph.fire_probabilities(X, 7)),
        (100_000, _fire_with_clock_draws(graph, X, 100_000)),
    ]:
        bound = math.sqrt(math.log(2 * len(X) / 1e-6) / (2 * n_draws))
        error = np.abs(got - expected).max()
        print(f"{n_draws} clock draws: max error {error:.4f} <= {bound:.4f}")
        assert error <= bound
    assert got[0] == 0.0  # the empty row never fires


def _fire_with_clock_draws(graph, X, n_draws):
    # The graph's private rates are what the clock formula under test reads.
    off, on = graph._bit_rates()
    uniforms = np.random.default_rng(3).random((n_draws, graph.max_sets))
    times = group_clock_times(graph._set_rates(), uniforms)
    p = on_probabilities(off, on, latest_group_ring(graph.sets, times))
    log_off = np.log1p(-np.minimum(p, 1 - 1e-300))
    return (-np.expm1(X @ log_off.T)).mean(axis=1)


def test_check_rejects_independent_bits():
    """Power: the exact marginals drawn independently are rejected.

    One removal clears bits 1 and 2 together, so they are positively
    correlated; a product of the (exact) marginals misses that.
    """
    n, bits, sets, regrets = CASES["n3-shared-removal"]
    graph = make_graph(n, bits, sets, regrets)
    exact_pi = exact_distribution(graph)
    rng = np.random.default_rng(1)
    independent = rng.random((N_DRAWS, n)) < graph.probabilities()
    draws = [tuple(int(b) for b in row) for row in independent]
    tv = total_variation(empirical(draws), exact_pi)
    bound = tv_bound(exact_pi, N_DRAWS)
    print(f"independent bits: TV {tv:.4f}, bound {bound:.4f}")
    assert tv > 2 * bound
    assert_close_in_tv(draws_of(graph, 1), exact_pi)


def test_without_ringing_sets_it_is_the_product_sampler():
    """A pool without positive regret draws exactly the hypercube's product."""
    from sklearn_localregret.locality.hypercube import HypercubeColoring

    bits, sets, _ = random_case(5, 3, 2)
    graph = make_graph(5, bits, sets, [-1.0, 0.0, -3.0])
    cube = HypercubeColoring(5)
    cube.table.update_entries(*np.nonzero(np.ones((5, 2))), bits.ravel())
    uniforms = np.random.default_rng(4).random((2000, graph.uniforms_per_round))
    np.testing.assert_array_equal(graph.draw(uniforms), cube.draw(uniforms[:, :5]))
    np.testing.assert_allclose(graph.probabilities(), cube.probabilities(), rtol=1e-14)


@pytest.mark.parametrize("max_level", [5, 9])
def test_levels_are_unchanged_by_removals(max_level):
    """Removals only go down, so level = number of literals and L >= n is L = inf."""
    n, bits, sets, regrets = 5, *random_case(5, 4, 3)
    graph = make_graph(n, bits, sets, regrets)
    vertices, _, levels = enlarged_graph(graph)
    assert all(levels[v] == sum(v) for v in vertices)
    assert (
        total_variation(exact_distribution(graph, max_level), exact_distribution(graph))
        < 1e-10
    )


@pytest.mark.parametrize("max_level, steps", [(1, 3), (2, 6)])
def test_finite_level_chain_follows_the_uniformized_chain(max_level, steps):
    """``L < n``: k steps of ``I + Q / Lambda`` with the root redirect, where
    ``Q`` has the removal edges too (the approximate sampler's exact law)."""
    n, bits, sets, regrets = CASES["n3-shared-removal"]

    def chain(sets, regrets):
        graph = RemovalSetColoring(
            n, max_level=max_level, max_sets=len(sets), n_mcmc_steps=steps
        )
        graph.track(np.asarray(sets, dtype=np.uint8).reshape(-1, n))
        rows, cols = np.nonzero(np.ones((n, 2)))
        graph.table.update_entries(
            np.r_[rows, n + np.arange(len(sets))],
            np.r_[cols, np.zeros(len(sets), dtype=int)],
            np.r_[np.asarray(bits, float)[rows, cols], regrets],
        )
        vertices, edges, levels = enlarged_graph(graph)
        rates = rate_matrix(vertices, edges, vertices[0], levels, max_level)
        law = k_step_distribution(rates, 0, steps, graph._rate_bound())  # its step
        return graph, as_dict(vertices, law, 1e-13)

    graph, law = chain(sets, regrets)
    assert not graph.exact
    rng = np.random.default_rng(5)
    draws = []
    for _ in range(4000):
        graph._state = graph.root  # independent chains from the root
        draws.append(tuple(int(b) for b in graph.sample(rng)))
    assert all(sum(d) <= max_level for d in draws)
    assert_close_in_tv(draws, law)
    # The removal matters: the hypercube's chain (no pool) has another law.
    _, without = chain([], [])
    assert total_variation(law, without) > 2 * tv_bound(law, len(draws))
