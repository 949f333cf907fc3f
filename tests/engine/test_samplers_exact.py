"""Every sampler against the exact stationary distribution (docs/engine.rst).

For locality graphs small enough to enumerate (hypercubes with n <= 6, the 74
decision trees over 2 boolean features), :mod:`exact` builds the whole rate
matrix from the regrets and computes ``lim_t P(X_t = . | X_0 = root)`` by
repeated squaring of the uniformised chain, independently of the engine. A
sampler passes when the total variation between its empirical distribution and
the exact one is below :func:`exact.tv_bound` (a derived bound, false-alarm
probability 1e-6 per check). The "power" tests run deliberately wrong samplers
through the same check to show that it would catch a real bug.
"""

import math

import numpy as np
import pytest
from exact import (
    ColoredTreeGraph,
    DictRateGraph,
    TreeRefreshSimulator,
    as_dict,
    empirical,
    enumerate_trees,
    flip,
    hypercube_colored_regrets,
    hypercube_vertices,
    k_step_distribution,
    leaf,
    n_internal,
    rate_matrix,
    set_site,
    split,
    stationary_by_squaring,
    total_variation,
    tree_edges,
    tv_bound,
    valid_paths,
)

from sklearn_localregret.engine import (
    FiniteChainSampler,
    HierarchicalSampler,
    RegretTable,
    StumpRegretTable,
    UniformizedChainSampler,
    binary_site_probabilities,
    reachable_generator,
    sample_product,
    site_distributions,
    stationary_from_root,
    truncated_exponential,
)

N_FEATURES, N_CLASSES = 2, 2
N_DRAWS = 20_000


def empty_tree_table(n_classes=N_CLASSES):
    return StumpRegretTable(n_classes, n_tests=N_FEATURES)


def assert_close_in_tv(draws, exact_probs, extra=0.0):
    """TV(empirical, exact) <= tv_bound (+ a known deterministic offset)."""
    n = len(draws)
    tv = total_variation(empirical(draws), exact_probs)
    bound = tv_bound(exact_probs, n) + extra
    print(f"TV {tv:.4f} <= bound {bound:.4f} ({n} draws, {len(exact_probs)} outcomes)")
    assert tv <= bound, f"TV {tv:.4f} > bound {bound:.4f} over {n} draws"
    return tv, bound


def check_reference(graph, max_level=None):
    """The squaring reference is stationary and agrees with the engine's solver.

    Two independent exact methods (dense squaring here, closed-class
    decomposition with sparse solves in the engine) must agree to rounding.
    """
    rates = rate_matrix(
        graph.vertices, graph.rated_edges(), graph.root, graph.levels, max_level
    )
    root = graph.vertices.index(graph.root)
    pi = stationary_by_squaring(rates, root)
    generator = rates - np.diag(rates.sum(axis=1))
    assert abs(pi.sum() - 1.0) < 1e-12
    assert np.abs(pi @ generator).max() <= 1e-10 * max(1.0, rates.max())
    vertices, engine_rates = reachable_generator(graph, max_level)
    engine_pi = as_dict(vertices, stationary_from_root(engine_rates))
    assert total_variation(engine_pi, as_dict(graph.vertices, pi)) < 1e-9
    return as_dict(graph.vertices, pi, 1e-13)


# ---------------------------------------------------------------------------
# the reference itself
# ---------------------------------------------------------------------------


def test_reference_on_hand_computed_chain():
    # From r: to a (2), b (1, absorbing), d (0.5). {a, c} is closed with a:c = 1:3,
    # {d, e} is transient and leaves only to the closed class {f, g} (1:1).
    graph = DictRateGraph("r", HAND_GRAPH)
    expected = {"a": 1 / 7, "c": 3 / 7, "b": 2 / 7, "f": 1 / 14, "g": 1 / 14}
    assert total_variation(graph.exact(), expected) < 1e-12
    assert graph.levels == {
        "r": 0,
        "a": 1,
        "b": 1,
        "d": 1,
        "e": 1,
        "c": 2,
        "f": 2,
        "g": 3,
        "h": 4,
    }


def test_tree_graph_enumeration():
    trees = enumerate_trees(N_FEATURES, N_CLASSES)
    assert len(trees) == 74
    assert len(set(trees)) == 74
    graph = ColoredTreeGraph(empty_tree_table(), N_FEATURES, N_CLASSES)
    for tree in trees:
        # Level = number of internal nodes; the other leaf is one step away.
        assert graph.level(tree) == max(n_internal(tree), int(tree != leaf(0)))
        edges = list(tree_edges(tree, N_FEATURES, N_CLASSES))
        targets = [new for _, _, new in edges]
        assert tree not in targets
        assert len(set(targets)) == len(targets)  # distinct colours, distinct trees
        # The paper's out-degree bound (n + 1) 2^(n + 1).
        assert len(edges) <= (N_FEATURES + 1) * 2 ** (N_FEATURES + 1)
    # Out of the root leaf: the other leaf and all 2 x 4 stumps.
    assert len(list(tree_edges(leaf(0), N_FEATURES, N_CLASSES))) == 9
    # A stump on the variable the node splits on is no edge, on another one it is.
    stump = split(0, leaf(1), leaf(0))
    repls = {(p, r) for p, r, _ in tree_edges(stump, N_FEATURES, N_CLASSES)}
    assert ((), ("stump", 0, 0, 0)) not in repls
    assert ((), ("stump", 1, 0, 0)) in repls
    assert (((0, 1),), ("stump", 1, 1, 1)) in repls
    assert (((0, 1),), ("stump", 0, 1, 1)) not in repls
    assert (((0, 1),), ("leaf", 1)) not in repls


# ---------------------------------------------------------------------------
# a. hypercube, 2n colouring, product sampler
# ---------------------------------------------------------------------------


def hypercube_table(n, seed):
    """Biased 2n-colour regrets: random sites, one all-negative, one "on" only."""
    rng = np.random.default_rng(seed)
    values = 10.0 ** rng.uniform(-1, 1, size=(n, 2))
    values *= np.where(rng.random((n, 2)) < 0.15, -1.0, 1.0)
    values[0] = [-1.0, -2.0]  # only negative regrets: idle, keeps the root's 0
    values[1] = [0.0, 3.0]  # only "on": bit 1 is always 1
    return table_from_values(values)


def table_from_values(values):
    n = len(values)
    table = RegretTable(width=2, initial_rows=n)
    rows, cols = np.nonzero(np.ones((n, 2)))
    table.update_entries(rows, cols, np.asarray(values, dtype=float)[rows, cols])
    return table


def hypercube_played_table(n, seed, rounds=10, bias=0.2):
    """Regrets from actually running (b, inf, C)-colored regret matching.

    Each round plays a vertex from the product sampler, draws integer utilities
    in [0, 5] for all vertices and updates the colour of every edge out of the
    played vertex with ``u(j) - u(i) - b`` (docs/engine.rst).
    """
    rng = np.random.default_rng(seed)
    table = RegretTable(width=2, initial_rows=n)
    vertices = hypercube_vertices(n)
    for _ in range(rounds):
        dist = site_distributions(table.positive(), np.zeros(n, dtype=int))
        played = tuple(int(b) for b in sample_product(dist, rng))
        utility = dict(zip(vertices, rng.integers(0, 6, size=len(vertices))))
        ks = np.arange(n)
        targets = [1 - played[k] for k in ks]
        gains = [utility[flip(played, k)] - utility[played] for k in ks]
        table.update_entries(ks, targets, gains, bias=bias)
    return table


HYPERCUBE_CASES = [
    # An idle site (keeps the root's 0) and tiny rates.
    pytest.param(
        3, lambda: table_from_values([[0, 0], [1, 3], [2e-3, 1e-3]]), id="n3-idle-site"
    ),
    pytest.param(4, lambda: hypercube_played_table(4, 1), id="n4-played-b0.2"),
    pytest.param(6, lambda: hypercube_table(6, 2), id="n6-random-scales"),
]


@pytest.mark.parametrize("n, make_table", HYPERCUBE_CASES)
def test_product_sampler_matches_exact_hypercube(n, make_table):
    table = make_table()
    graph = DictRateGraph((0,) * n, hypercube_colored_regrets(n, table.biased))
    exact_pi = check_reference(graph)

    rates = table.positive()
    dist = site_distributions(rates, np.zeros(n, dtype=int))
    # The product of the site distributions IS the exact distribution.
    product = {v: float(np.prod(dist[np.arange(n), v])) for v in graph.vertices}
    assert total_variation(product, exact_pi) < 1e-10
    marginal_on = [sum(p for v, p in exact_pi.items() if v[k] == 1) for k in range(n)]
    np.testing.assert_allclose(
        binary_site_probabilities(rates[:, 0], rates[:, 1]),
        marginal_on,
        rtol=0,
        atol=1e-10,
    )

    rng = np.random.default_rng(100 + n)
    draws = [tuple(int(b) for b in sample_product(dist, rng)) for _ in range(N_DRAWS)]
    assert_close_in_tv(draws, exact_pi)
    idle = np.flatnonzero(rates.sum(axis=1) == 0)
    assert all(d[k] == 0 for d in draws for k in idle)


@pytest.mark.parametrize("n", [3, 4])
def test_hypercube_finite_level_at_least_n_changes_nothing(n):
    table = hypercube_table(n, 3)
    graph = DictRateGraph((0,) * n, hypercube_colored_regrets(n, table.biased))
    free = graph.exact()
    for max_level in (n, n + 1, 10):
        assert total_variation(check_reference(graph, max_level), free) < 1e-10
    # The reference does apply the redirect: L = n - 1 cuts the top vertex off.
    top = (1,) * n
    graph = DictRateGraph(
        (0,) * n, hypercube_colored_regrets(n, np.tile([0.5, 1.0], (n, 1)))
    )
    assert graph.exact().get(top, 0.0) > 0.01
    assert check_reference(graph, n - 1).get(top, 0.0) == 0.0


def test_product_sampler_all_idle_plays_root():
    dist = site_distributions(np.zeros((5, 2)), np.zeros(5, dtype=int))
    rng = np.random.default_rng(0)
    for _ in range(100):
        np.testing.assert_array_equal(sample_product(dist, rng), np.zeros(5))


# ---------------------------------------------------------------------------
# b. decision trees, L = inf, hierarchical sampler
# ---------------------------------------------------------------------------


def tree_table(sites, n_classes=N_CLASSES):
    """Table from ``{path: (leaf regrets or None, {v: (s_true, s_false, cost)})}``.

    Stump regrets are factored (``s_true[c1] + s_false[c2] - cost``), as the
    learner's are, so a hand-made site gives the factors of its stumps.
    """
    table = empty_tree_table(n_classes)
    for path, (leaves, stumps) in sites.items():
        set_site(table, path, leaves, stumps)
    return table


def random_factors(rng, n_classes, low=-3, high=2):
    """Stump factors spanning 10**low .. 10**high, some negative, some zero."""

    def values(size):
        out = 10.0 ** rng.uniform(low, high, size=size)
        out *= np.where(rng.random(size) < 0.3, -1.0, 1.0)
        out[rng.random(size) < 0.15] = 0.0
        return out

    return values(n_classes), values(n_classes), float(values(1)[0])


def random_tree_table(seed, p_row=0.7, n_classes=N_CLASSES):
    """Rows for some paths only; leaf regrets and stump factors random."""
    rng = np.random.default_rng(seed)
    table = empty_tree_table(n_classes)
    for path in valid_paths(N_FEATURES):
        if path and rng.random() >= p_row:
            continue
        leaves = random_factors(rng, n_classes)[0]
        used = {v for v, _ in path}
        stumps = {
            v: random_factors(rng, n_classes)
            for v in range(N_FEATURES)
            if v not in used
        }
        set_site(table, path, leaves, stumps)
    return table


def predict(tree, x):
    while tree[0] == "split":
        tree = tree[2] if x[tree[1]] else tree[3]
    return tree[1]


def tree_nodes(tree, path=()):
    """``(path, subtree)`` of every node of a tuple tree."""
    yield path, tree
    if tree[0] == "split":
        yield from tree_nodes(tree[2], path + ((tree[1], 1),))
        yield from tree_nodes(tree[3], path + ((tree[1], 0),))


def played_tree_table(seed, rounds=30, batch=5, bias=0.1, noise=0.5):
    """Regrets from running (b, inf, C)-colored regret matching on random data.

    Plays trees drawn by the sampler; for every node of the played tree and
    every stump test the node's path leaves open (and that it does not split
    on), the round's factors are counted row by row: ``s_true[c]`` / ``s_false[c]``
    the rows reaching the node that pass / fail the test with label ``c``, and
    ``cost`` the rows there that the played tree gets right, plus ``b``; every
    other leaf ``c`` gains (rows of class ``c`` there) - (right there) - ``b``.
    Nodes no row reaches get ``-b``.
    """
    rng = np.random.default_rng(seed)
    table = empty_tree_table()
    sampler = HierarchicalSampler(table)
    k = N_CLASSES
    for _ in range(rounds):
        played = sampler.sample(rng)
        X = rng.random((batch, N_FEATURES)) < 0.5
        y = (X[:, 0] & ~X[:, 1]) ^ (rng.random(batch) < noise)
        for path, sub in tree_nodes(played):
            here = [
                i for i in range(batch) if all(X[i, v] == branch for v, branch in path)
            ]
            right = sum(predict(played, X[i]) == y[i] for i in here)
            counts = np.bincount(y[here].astype(int), minlength=k).astype(float)
            leaves = counts - right - bias
            if sub[0] == "leaf":
                leaves[sub[1]] = 0.0  # not an edge: keeps its regret
            used = {v for v, _ in path} | ({sub[1]} if sub[0] == "split" else set())
            stumps = {}
            for v in range(N_FEATURES):
                if v in used:
                    continue
                passing = [i for i in here if X[i, v]]
                s_true = np.bincount(y[passing].astype(int), minlength=k)
                stumps[v] = (s_true, counts - s_true, right + bias)
            set_site(table, path, leaves, stumps)
    return table


ROOT, T, F = (), ((0, 1),), ((0, 0),)
TT, TF, FT, FF = T + ((1, 1),), T + ((1, 0),), F + ((1, 1),), F + ((1, 0),)

TREE_CASES = [
    pytest.param(lambda: random_tree_table(0), id="random-0"),
    pytest.param(lambda: random_tree_table(2, p_row=0.4), id="random-2-sparse-rows"),
    pytest.param(lambda: mcmc_tree_table(0), id="moderate-0"),
    pytest.param(lambda: mcmc_tree_table(1), id="moderate-1"),
    pytest.param(lambda: played_tree_table(1), id="played-b0.1"),
    # The root can only split on variable 0 (q = 0: the split is never left, so
    # its children are stationary) and so can the true child (on variable 1);
    # the rates span 1e-3 .. 1e2; TF has no row and keeps its stump's leaf.
    # Stumps (0, c1, c2) at the root: -0.5, 0, 0.5, 1; on variable 1 all -1.
    pytest.param(
        lambda: tree_table(
            {
                ROOT: (
                    [0.0, -4.0],
                    {
                        0: ([1.0, 2.0], [0.5, 1.0], 2.0),
                        1: ([0.0, 0.0], [0.0, 0.0], 1.0),
                    },
                ),
                T: ([0.0, 0.0], {1: ([1.0, 1e-3], [0.0, -1.0], 0.0)}),
                F: ([1e2, 1e-3], {1: ([0.0, 3.0], [0.0, 0.0], 2.0)}),
                TT: ([0.0, 1.0], {}),
                FT: ([0.01, -5.0], {}),
                FF: ([0.0, 50.0], {}),
            }
        ),
        id="q-zero-sites",
    ),
    # Root leaves dominate (short-lived splits), slow children: the ages matter.
    pytest.param(
        lambda: tree_table(
            {
                ROOT: (
                    [1.0, 0.0],
                    {
                        0: ([1.0, 0.0], [0.5, 0.0], 0.5),
                        1: ([0.0, 0.3], [0.0, -1.0], 0.0),
                    },
                ),
                T: ([10.0, 0.0], {1: ([-10.0, 5.0], [-10.0, 5.0], 0.0)}),
                TT: ([1.0, 0.0], {}),
                TF: ([1.0, 0.0], {}),
                ((1, 0),): ([0.0, 0.05], {0: ([0.2, -1.0], [-1.0, 0.0], 0.0)}),
            }
        ),
        id="ages-matter",
    ),
]


@pytest.mark.parametrize("make_table", TREE_CASES)
def test_hierarchical_sampler_matches_exact_trees(make_table):
    table = make_table()
    exact_pi = check_reference(ColoredTreeGraph(table, N_FEATURES, N_CLASSES))
    sampler = HierarchicalSampler(table)
    rng = np.random.default_rng(7)
    draws = [sampler.sample(rng) for _ in range(N_DRAWS)]
    assert_close_in_tv(draws, exact_pi)


def test_hierarchical_sampler_three_classes():
    # 291 trees over 2 features with 3 labels: 3 leaf and 9 stump colours per
    # variable, so the label pair of a stump is decoded in base 3.
    table = random_tree_table(21, p_row=1.0, n_classes=3)
    graph = ColoredTreeGraph(table, N_FEATURES, 3)
    assert len(graph.vertices) == 291
    exact_pi = check_reference(graph)
    sampler = HierarchicalSampler(table)
    rng = np.random.default_rng(21)
    assert_close_in_tv([sampler.sample(rng) for _ in range(N_DRAWS)], exact_pi)


def test_hierarchical_sampler_follows_table_updates():
    # A sampler made before the updates (new rows, growth past the initial
    # capacity, changed values, tests added later) must draw from the updated
    # table.
    table = StumpRegretTable(N_CLASSES, n_tests=1)
    sampler = HierarchicalSampler(table)
    rng = np.random.default_rng(6)
    assert sampler.sample(rng) == leaf(0)
    rng_sites = np.random.default_rng(1)
    sites = {}
    for path in reversed(valid_paths(N_FEATURES)):
        used = {v for v, _ in path}
        sites[path] = (
            rng_sites.uniform(-0.5, 2.0, N_CLASSES),
            {
                v: random_factors(rng_sites, N_CLASSES, -1, 0.5)
                for v in range(N_FEATURES)
                if v not in used
            },
        )
    missed = []  # sites set before test 1 entered: their test-1 factors come last
    for i, (path, (leaves, stumps)) in enumerate(sites.items()):
        if i == 3:
            table.add_tests(1)  # test 1 enters with zero regret everywhere
        if table.n_tests == 1 and 1 in stumps:
            missed.append(path)
        set_site(
            table, path, leaves, {v: f for v, f in stumps.items() if v < table.n_tests}
        )
        sampler.sample(rng)
    for path in missed:
        set_site(table, path, None, {1: sites[path][1][1]})
    assert table.n_rows > 8
    target = tree_table(sites)
    for path in sites:
        for v in range(N_FEATURES):
            np.testing.assert_allclose(
                table.stump_regrets(table.find(path), v),
                target.stump_regrets(target.find(path), v),
            )
    exact_pi = check_reference(ColoredTreeGraph(target, N_FEATURES, N_CLASSES))
    assert_close_in_tv([sampler.sample(rng) for _ in range(N_DRAWS)], exact_pi)


def test_hierarchical_sampler_idle_sites_keep_start_leaf():
    rng = np.random.default_rng(0)
    sampler = HierarchicalSampler(empty_tree_table())
    assert {sampler.sample(rng) for _ in range(50)} == {leaf(0)}
    assert {sampler.sample(rng, root_label=1) for _ in range(50)} == {leaf(1)}
    # Rows with only non-positive regrets are idle too.
    table = tree_table({ROOT: ([0.0, -1.0], {0: ([0.0, 1.0], [0.0, -1.0], 1.0)})})
    sampler = HierarchicalSampler(table)
    assert {sampler.sample(rng) for _ in range(50)} == {leaf(0)}
    # A split that cannot be left, children without rows: the stump's leaves.
    table = tree_table({ROOT: (None, {1: ([0.0, 1.0], [0.0, -1.0], 0.0)})})
    sampler = HierarchicalSampler(table)
    assert {sampler.sample(rng) for _ in range(50)} == {split(1, leaf(1), leaf(0))}


def test_hierarchical_sampler_builders():
    table = random_tree_table(0)
    default = HierarchicalSampler(table)
    custom = HierarchicalSampler(
        table, make_leaf=lambda c: c, make_split=lambda v, t, f: [v, t, f]
    )

    def to_default(node):
        return (
            leaf(node)
            if isinstance(node, int)
            else split(node[0], to_default(node[1]), to_default(node[2]))
        )

    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(200):
        assert to_default(custom.sample(rng_b)) == default.sample(rng_a)


def test_truncated_exponential_distribution():
    # CDF of Exp(rate) truncated to [0, A]: (1 - e^{-rate x}) / (1 - e^{-rate A}).
    rng = np.random.default_rng(0)
    for rate, upper in [(2.0, 0.7), (1e-9, 3.0), (0.0, 2.0), (50.0, 10.0)]:
        x = np.array([truncated_exponential(rate, upper, rng) for _ in range(5000)])
        assert x.min() >= 0.0 and x.max() <= upper
        grid = np.linspace(0, upper, 21)
        if rate * upper > 1e-6:
            cdf = np.expm1(-rate * grid) / math.expm1(-rate * upper)
        else:
            cdf = grid / upper
        emp = (x[:, None] <= grid[None, :]).mean(axis=0)
        # DKW: P(sup |F_n - F| > e) <= 2 exp(-2 n e^2) = 1e-6 at e = 0.0269.
        assert np.abs(emp - cdf).max() <= math.sqrt(math.log(2e6) / (2 * 5000))


# -- power: the same check rejects deliberately wrong tree samplers -----------

POWER_TABLES = {
    # Short-lived root splits: the children rarely have time to change.
    "short-root-splits": {
        ROOT: ([5.0, 5.0], {0: ([-5.0, 2.0], [0.0, -5.0], 0.0)}),  # (1, 0): 2
        T: ([1.0, 0.0], {}),
        F: ([0.0, 1.0], {}),
    },
    # A child split that is young compared with its parent's horizon.
    "young-child-split": {
        ROOT: ([1.0, 0.0], {0: ([1.0, -5.0], [0.0, -5.0], 0.0)}),  # (0, 0): 1
        T: ([10.0, 0.0], {1: ([-10.0, 5.0], [-10.0, 5.0], 0.0)}),  # (1, 1): 10
        TT: ([1.0, 0.0], {}),
        TF: ([1.0, 0.0], {}),
    },
    # A root split whose variable holds most of the weight: its stumps ring
    # often (not edges: they must not reset the children).
    "heavy-split": {
        ROOT: ([1.0, 0.0], {0: ([-5.0, 5.0], [-5.0, 0.0], 0.0)}),  # (1, 1): 5
        T: ([2.0, 0.0], {}),
        F: ([2.0, 0.0], {}),
    },
}


@pytest.mark.parametrize("name", list(POWER_TABLES))
def test_simulated_refresh_chains_match_exact(name):
    # The forward simulation of the refresh chains (an independent sampler) and
    # the engine's closed-form sampler both pass the check on the power tables.
    table = tree_table(POWER_TABLES[name])
    exact_pi = check_reference(ColoredTreeGraph(table, N_FEATURES, N_CLASSES))
    simulator = TreeRefreshSimulator(table, N_FEATURES, N_CLASSES)
    rng = np.random.default_rng(12)
    assert_close_in_tv([simulator.sample(rng) for _ in range(N_DRAWS)], exact_pi)
    sampler = HierarchicalSampler(table)
    rng = np.random.default_rng(13)
    assert_close_in_tv([sampler.sample(rng) for _ in range(N_DRAWS)], exact_pi)


@pytest.mark.parametrize(
    "name, bug",
    [
        ("short-root-splits", {"child_horizon": "inf"}),
        ("young-child-split", {"child_horizon": "parent"}),
        ("heavy-split", {"same_variable_resets": True}),
    ],
)
def test_check_rejects_wrong_tree_samplers(name, bug):
    """Power: the same bound rejects the simulator with a planted bug.

    Bugs: children drawn from their stationary law (ages ignored), children
    inheriting the parent's horizon instead of the split's age, and a stump on
    the variable the node already splits on treated as an edge.
    """
    table = tree_table(POWER_TABLES[name])
    exact_pi = check_reference(ColoredTreeGraph(table, N_FEATURES, N_CLASSES))
    wrong = TreeRefreshSimulator(table, N_FEATURES, N_CLASSES, **bug)
    rng = np.random.default_rng(12)
    draws = [wrong.sample(rng) for _ in range(N_DRAWS)]
    tv = total_variation(empirical(draws), exact_pi)
    print(f"wrong sampler: TV {tv:.4f}, bound {tv_bound(exact_pi, N_DRAWS):.4f}")
    assert tv > 2 * tv_bound(exact_pi, N_DRAWS), "the check cannot see this bug"


# ---------------------------------------------------------------------------
# c. per-edge regrets, finite L: the explicit finite chain
# ---------------------------------------------------------------------------

# Closed classes {a, c} and {f, g}, absorbing b, transient {d, e}; the edges with
# regret <= 0 (r -> e, b -> r, g -> h) carry no rate but shape the levels.
HAND_GRAPH = {
    "r": {"a": 2.0, "b": 1.0, "d": 0.5, "e": -1.0},
    "a": {"c": 3.0},
    "c": {"a": 1.0},
    "b": {"r": -0.5},
    "d": {"e": 1.0},
    "e": {"d": 2.0, "f": 0.25},
    "f": {"g": 1.0},
    "g": {"f": 1.0, "h": 0.0},
    "h": {},
}

# With L = 2 both moves out of y land on level 3 and go to the root (their rates
# add up), making the root recurrent; with L = inf everything ends in w.
LOOP_GRAPH = {
    "r": {"x": 1.0},
    "x": {"y": 2.0},
    "y": {"z": 1.0, "w": 3.0},
    "z": {"y": 1.0},
    "w": {},
}

HAND_EXPECTED = {
    ("hand", None): {"a": 1 / 7, "c": 3 / 7, "b": 2 / 7, "f": 1 / 14, "g": 1 / 14},
    ("hand", 0): {"r": 1.0},
    ("loop", None): {"w": 1.0},
    ("loop", 2): {"r": 4 / 7, "x": 2 / 7, "y": 1 / 7},
    ("loop", 1): {"r": 2 / 3, "x": 1 / 3},
    ("loop", 0): {"r": 1.0},
}


def hypercube_swap_graph(seed, n_played=5, n=3):
    """Per-edge regrets on the n-cube; only 'played' vertices have non-zero ones.

    The other vertices are absorbing (docs/engine.rst), so the chain has
    several closed classes; with small L the redirect makes the root recurrent.
    """
    rng = np.random.default_rng(seed)
    vertices = hypercube_vertices(n)
    chosen = rng.choice(len(vertices), n_played, replace=False)
    played = {vertices[0]} | {vertices[i] for i in chosen}
    regrets = {}
    for v in vertices:
        regrets[v] = {}
        for k in range(n):
            value = 0.0
            if v in played:
                value = rng.uniform(-1.0, 3.0) * (rng.random() < 0.8)
            regrets[v][flip(v, k)] = value
    return DictRateGraph(vertices[0], regrets)


FINITE_CASES = (
    [
        pytest.param(lambda: DictRateGraph("r", HAND_GRAPH), L, id=f"hand-L{L}")
        for L in (None, 0, 1, 2, 3)
    ]
    + [
        pytest.param(lambda: DictRateGraph("r", LOOP_GRAPH), L, id=f"loop-L{L}")
        for L in (None, 0, 1, 2)
    ]
    + [
        pytest.param(
            lambda s=s, m=m: hypercube_swap_graph(s, m), L, id=f"cube{s}-played{m}-L{L}"
        )
        for s, m in ((0, 5), (1, 5), (2, 5), (3, 8))
        for L in (None, 1, 2)
    ]
)


@pytest.mark.parametrize("make_graph, max_level", FINITE_CASES)
def test_finite_chain_matches_exact(make_graph, max_level):
    graph = make_graph()
    exact_pi = check_reference(graph, max_level)  # includes stationary_from_root
    assert all(
        graph.level(v) <= (max_level if max_level is not None else 99) for v in exact_pi
    )
    vertices, probs = FiniteChainSampler(graph, max_level).distribution()
    assert len(set(vertices)) == len(vertices)
    assert total_variation(dict(zip(vertices, probs)), exact_pi) < 1e-9


def test_finite_chain_hand_computed():
    graphs = {"hand": HAND_GRAPH, "loop": LOOP_GRAPH}
    for (name, max_level), expected in HAND_EXPECTED.items():
        graph = DictRateGraph("r", graphs[name])
        assert total_variation(graph.exact(max_level), expected) < 1e-12
        vertices, probs = FiniteChainSampler(graph, max_level).distribution()
        assert total_variation(dict(zip(vertices, probs)), expected) < 1e-12


def test_finite_chain_hand_graph_redirects():
    # L = 1: a -> c (level 2) and e -> f (level 2) go to the root, so the root
    # keeps returning until it falls into the only closed class left: b.
    graph = DictRateGraph("r", HAND_GRAPH)
    assert total_variation(graph.exact(1), {"b": 1.0}) < 1e-12
    vertices, rates = reachable_generator(graph, 1)
    assert set(vertices) == {"r", "a", "b", "d", "e"}
    index = {v: i for i, v in enumerate(vertices)}
    assert rates[index["a"], index["r"]] == 3.0
    assert rates[index["e"], index["r"]] == 0.25


FINITE_DRAW_CASES = [
    pytest.param(lambda: DictRateGraph("r", HAND_GRAPH), None, id="hand-Linf"),
    pytest.param(lambda: hypercube_swap_graph(0), 1, id="cube0-L1"),
    pytest.param(lambda: hypercube_swap_graph(3, 8), 2, id="cube3-played8-L2"),
]


@pytest.mark.parametrize("make_graph, max_level", FINITE_DRAW_CASES)
def test_finite_chain_sampler_draws(make_graph, max_level):
    # sample() re-solves the chain for every draw (about 1.5 ms): few draws,
    # the exactness of distribution() is checked to 1e-9 above.
    graph = make_graph()
    exact_pi = graph.exact(max_level)
    sampler = FiniteChainSampler(graph, max_level)
    rng = np.random.default_rng(3)
    assert_close_in_tv([sampler.sample(rng) for _ in range(1000)], exact_pi)


# ---------------------------------------------------------------------------
# d. colored trees with finite L: the uniformised chain (MCMC)
# ---------------------------------------------------------------------------


def mcmc_tree_table(seed):
    """Moderate regrets at every path: leaves in [-0.5, 2), factors of order 1."""
    rng = np.random.default_rng(seed)
    table = empty_tree_table()
    for path in valid_paths(N_FEATURES):
        used = {v for v, _ in path}
        leaves = rng.uniform(-0.5, 2.0, N_CLASSES)
        leaves[rng.random(N_CLASSES) < 0.2] = 0.0
        set_site(
            table,
            path,
            leaves,
            {
                v: random_factors(rng, N_CLASSES, -1, 0.3)
                for v in range(N_FEATURES)
                if v not in used
            },
        )
    return table


def rate_bound_of(table):
    """Every tree's out-rate is at most the sum of all site weights."""
    return float(table.site_totals().sum())


@pytest.mark.parametrize("max_level, n_steps", [(1, 100), (2, 100)])
def test_mcmc_matches_exact_with_redirect(max_level, n_steps):
    table = mcmc_tree_table(4)
    graph = ColoredTreeGraph(table, N_FEATURES, N_CLASSES)
    exact_pi = check_reference(graph, max_level)
    assert all(graph.level(t) <= max_level for t in exact_pi)
    # Not trivial: several trees, some at the last level (the redirect acts).
    assert len(exact_pi) >= 5
    assert max(graph.level(t) for t in exact_pi) == max_level

    # The sampler's output law is exactly row root of (I + Q / bound)^k; its
    # distance to stationarity is computed exactly and must be negligible.
    rate_bound = rate_bound_of(table)
    rates = rate_matrix(
        graph.vertices, graph.rated_edges(), graph.root, graph.levels, max_level
    )
    assert rates.sum(axis=1).max() <= rate_bound
    k_step = as_dict(
        graph.vertices,
        k_step_distribution(
            rates, graph.vertices.index(graph.root), n_steps, rate_bound
        ),
    )
    distance = total_variation(k_step, exact_pi)
    print(f"TV(P^{n_steps}, pi) = {distance:.2e}")
    assert distance < 1e-4

    sampler = UniformizedChainSampler(graph, max_level, n_steps)
    rng = np.random.default_rng(8)
    draws = [sampler.sample(graph.root, rate_bound, rng) for _ in range(N_DRAWS)]
    assert_close_in_tv(draws, exact_pi, extra=distance)
    assert_close_in_tv(draws, k_step)


@pytest.mark.parametrize(
    "max_level, start",
    [
        (1, leaf(0)),
        (2, split(1, leaf(0), leaf(1))),
        (2, split(0, split(1, leaf(1), leaf(1)), leaf(0))),
    ],
)
def test_mcmc_few_steps_follow_k_step_law(max_level, start):
    # Far from stationarity (k = 3) the output from any start s (the learner
    # keeps its last played action) still has exactly the law of row s of P^k.
    table = mcmc_tree_table(5)
    graph = ColoredTreeGraph(table, N_FEATURES, N_CLASSES)
    rate_bound = rate_bound_of(table)
    rates = rate_matrix(
        graph.vertices, graph.rated_edges(), graph.root, graph.levels, max_level
    )
    k_step = as_dict(
        graph.vertices,
        k_step_distribution(rates, graph.vertices.index(start), 3, rate_bound),
    )
    assert total_variation(k_step, check_reference(graph, max_level)) > 0.1
    sampler = UniformizedChainSampler(graph, max_level, 3)
    rng = np.random.default_rng(9)
    draws = [sampler.sample(start, rate_bound, rng) for _ in range(N_DRAWS)]
    assert_close_in_tv(draws, k_step)


def test_mcmc_without_rates_stays_put():
    graph = ColoredTreeGraph(empty_tree_table(), N_FEATURES, N_CLASSES)
    sampler = UniformizedChainSampler(graph, 2, 100)
    rng = np.random.default_rng(0)
    start = split(0, leaf(1), leaf(0))
    assert sampler.sample(start, 0.0, rng) == start
    assert sampler.sample(start, 5.0, rng) == start


# ---------------------------------------------------------------------------
# reproducibility: the same seed gives the same draws
# ---------------------------------------------------------------------------


def _draws_product(seed):
    dist = site_distributions(hypercube_table(6, 2).positive(), np.zeros(6, dtype=int))
    rng = np.random.default_rng(seed)
    return [tuple(sample_product(dist, rng)) for _ in range(200)]


def _draws_hierarchical(seed):
    sampler = HierarchicalSampler(random_tree_table(0))
    rng = np.random.default_rng(seed)
    return [sampler.sample(rng) for _ in range(200)]


def _draws_finite(seed):
    sampler = FiniteChainSampler(hypercube_swap_graph(0), 1)
    rng = np.random.default_rng(seed)
    return [sampler.sample(rng) for _ in range(50)]


def _draws_mcmc(seed):
    table = mcmc_tree_table(4)
    graph = ColoredTreeGraph(table, N_FEATURES, N_CLASSES)
    sampler = UniformizedChainSampler(graph, 2, 30)
    rng = np.random.default_rng(seed)
    return [sampler.sample(graph.root, rate_bound_of(table), rng) for _ in range(200)]


@pytest.mark.parametrize(
    "draw", [_draws_product, _draws_hierarchical, _draws_finite, _draws_mcmc]
)
def test_same_seed_same_draws(draw):
    first = draw(123)
    assert draw(123) == first
    assert len(set(map(repr, first))) > 1  # the draws are not trivially constant
    assert draw(124) != first


@pytest.mark.parametrize("make_table", TREE_CASES)
def test_hierarchical_sample_many_matches_exact_trees(make_table):
    """The vectorised draw of many trees has the exact distribution too."""
    table = make_table()
    exact_pi = check_reference(ColoredTreeGraph(table, N_FEATURES, N_CLASSES))
    sampler = HierarchicalSampler(table)
    draws = sampler.sample_many(N_DRAWS, np.random.default_rng(8))
    assert len(draws) == N_DRAWS
    assert_close_in_tv(draws, exact_pi)


def test_hierarchical_sample_many_three_classes_and_root_label():
    table = random_tree_table(22, p_row=1.0, n_classes=3)
    exact_pi = check_reference(ColoredTreeGraph(table, N_FEATURES, 3))
    sampler = HierarchicalSampler(table)
    rng = np.random.default_rng(22)
    assert_close_in_tv(sampler.sample_many(N_DRAWS, rng), exact_pi)
    # Idle sites keep the starting leaf, whichever the root's label is.
    idle = HierarchicalSampler(empty_tree_table(3))
    assert set(idle.sample_many(50, rng, root_label=2)) == {leaf(2)}
