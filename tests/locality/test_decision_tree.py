"""Decision-tree locality graph: structure, regret update and samplers.

Every reference here is computed from the definitions, independently of the
code under test: trees are enumerated, neighbours are built by replacing
subtrees (paper, Example "Online Decision Tree Learning"), utilities by walking
each row down each tree, and stationary distributions by dense matrix powers
of the uniformised chain.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from sklearn_localregret._tree_classifier import LocalRegretTreeClassifier
from sklearn_localregret.engine import RegretTable, stump_column
from sklearn_localregret.locality.decision_tree import (
    Leaf,
    Split,
    compile_tree,
    depth,
    export_text,
    iter_nodes,
    n_internal,
    n_leaves,
    predict_tree,
    replace_subtree,
    route_rows,
    tree_level,
)
from sklearn_localregret.locality.tree_coloring import TreeColoring, TreeRateGraph

# ---------------------------------------------------------------------------
# references from the definitions
# ---------------------------------------------------------------------------


def all_trees(n_features, n_classes, used=frozenset()):
    trees = [Leaf(c) for c in range(n_classes)]
    for v in range(n_features):
        if v not in used:
            below = all_trees(n_features, n_classes, used | {v})
            trees.extend(Split(v, t, f) for t in below for f in below)
    return trees


def walk(tree, x):
    while isinstance(tree, Split):
        tree = tree.true_child if x[tree.feature] else tree.false_child
    return tree.label


def utility(tree, X, y, w):
    return sum(wi for xi, yi, wi in zip(X, y, w) if walk(tree, xi) == yi)


def nodes_of(tree, path=()):
    out = [(path, tree)]
    if isinstance(tree, Split):
        out += nodes_of(tree.true_child, path + ((tree.feature, 1),))
        out += nodes_of(tree.false_child, path + ((tree.feature, 0),))
    return out


def put(tree, path, new):
    if not path:
        return new
    (v, b), rest = path[0], path[1:]
    if b:
        return Split(v, put(tree.true_child, rest, new), tree.false_child)
    return Split(v, tree.true_child, put(tree.false_child, rest, new))


def edges_by_definition(tree, n_features, n_classes):
    """``(path, column, neighbour)`` for every edge out of ``tree``."""
    for path, sub in nodes_of(tree):
        for c in range(n_classes):
            if sub != Leaf(c):
                yield path, c, put(tree, path, Leaf(c))
        on_path = {v for v, _ in path}
        for v in range(n_features):
            if v in on_path or (isinstance(sub, Split) and sub.feature == v):
                continue
            for ct in range(n_classes):
                for cf in range(n_classes):
                    col = stump_column(v, ct, cf, n_classes)
                    yield path, col, put(tree, path, Split(v, Leaf(ct), Leaf(cf)))


def bfs_levels(trees, n_features, n_classes, root):
    neighbours = {t: [e[2] for e in edges_by_definition(t, n_features, n_classes)]
                  for t in trees}
    level, frontier = {root: 0}, [root]
    while frontier:
        nxt = []
        for t in frontier:
            for s in neighbours[t]:
                if s not in level:
                    level[s] = level[t] + 1
                    nxt.append(s)
        frontier = nxt
    return level


def dense_stationary(rates, root):
    """Row ``root`` of lim P^t, ``P = I + Q / (2 max out-rate)`` (aperiodic)."""
    out = rates.sum(axis=1)
    if out.max() <= 0:
        pi = np.zeros(len(rates))
        pi[root] = 1.0
        return pi
    p = np.eye(len(rates)) + (rates - np.diag(out)) / (2 * out.max())
    for _ in range(70):
        p = p @ p
        p /= p.sum(axis=1, keepdims=True)
    return p[root]


def chain_matrix(trees, rate_of_edge, n_features, n_classes, levels=None, L=None):
    """Dense rates; a move to level L + 1 goes to the root (trees[0])."""
    index = {t: i for i, t in enumerate(trees)}
    rates = np.zeros((len(trees), len(trees)))
    for t in trees:
        if L is not None and levels[t] > L:
            continue
        for path, col, s in edges_by_definition(t, n_features, n_classes):
            r = rate_of_edge(t, path, col)
            if r > 0:
                if L is not None and levels[s] > L:
                    s = trees[0]
                rates[index[t], index[s]] += r
    np.fill_diagonal(rates, 0.0)
    return rates


def tv_bound(p, n_draws, delta=1e-6):
    """P(TV(empirical, p) > bound) <= delta: mean bound + McDiarmid deviation."""
    p = np.asarray(p)
    return 0.5 * np.sum(np.sqrt(p * (1 - p) / n_draws)) + math.sqrt(
        math.log(1 / delta) / (2 * n_draws))


def tv(p: dict, q: dict) -> float:
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


# ---------------------------------------------------------------------------
# structure
# ---------------------------------------------------------------------------

TREE = Split(
    0, Split(1, Leaf(2), Leaf(0)), Split(2, Leaf(1), Split(3, Leaf(1), Leaf(2)))
)


def test_nodes_are_immutable_hashable_keys():
    same = Split(0, Split(1, Leaf(2), Leaf(0)),
                 Split(2, Leaf(1), Split(3, Leaf(1), Leaf(2))))
    assert same == TREE and hash(same) == hash(TREE)
    assert {TREE: 1}[same] == 1
    assert Split(0, Leaf(0), Leaf(1)) != Split(0, Leaf(1), Leaf(0))
    with pytest.raises(AttributeError):
        TREE.feature = 3


def test_sizes_levels_and_walks():
    assert (n_internal(TREE), n_leaves(TREE), depth(TREE)) == (4, 5, 3)
    assert [tree_level(t) for t in (Leaf(0), Leaf(1), Leaf(2), TREE)] == [0, 1, 1, 4]
    assert tree_level(Leaf(0), root_label=2) == 1
    assert [p for p, _ in iter_nodes(TREE)] == [p for p, _ in nodes_of(TREE)]
    path = ((0, 0), (2, 0))
    assert replace_subtree(TREE, path, Leaf(0)) == put(TREE, path, Leaf(0))
    with pytest.raises(ValueError, match="not a node"):
        replace_subtree(TREE, ((1, 1),), Leaf(0))
    layout = compile_tree(TREE)
    assert layout.paths == [p for p, _ in nodes_of(TREE)]
    assert layout.nodes == [s for _, s in nodes_of(TREE)]


def test_levels_are_distances_from_the_root_leaf():
    trees = all_trees(2, 3)
    levels = bfs_levels(trees, 2, 3, Leaf(0))
    assert len(levels) == len(trees)
    assert all(tree_level(t) == levels[t] for t in trees)


def test_predict_and_route_match_a_row_by_row_walk():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 4))
    expected = [walk(TREE, x) for x in X]
    assert predict_tree(TREE, X).tolist() == expected
    reach, pred = route_rows(compile_tree(TREE), X[:7])
    assert pred.tolist() == expected[:7]
    for i, (path, _) in enumerate(nodes_of(TREE)):
        passes = [all(x[v] == b for v, b in path) for x in X[:7]]
        assert reach[i].tolist() == [float(p) for p in passes]


def test_export_text_matches_sklearn_format():
    text = export_text(Split(1, Leaf(0), Leaf(1)), ["a", "b"], ["no", "yes"])
    assert text.splitlines() == [
        "|--- b <= 0.50", "|   |--- class: yes", "|--- b >  0.50", "|   |--- class: no"]
    assert export_text(Leaf(1)) == "|--- class: 1"


# ---------------------------------------------------------------------------
# the locality graph and its colouring
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_features, n_classes", [(2, 2), (2, 3), (3, 2)])
def test_neighbours_are_the_papers_edges(n_features, n_classes):
    coloring = TreeColoring(n_features, n_classes)
    trees = all_trees(n_features, n_classes)
    if n_features == 3:
        trees = trees[:: max(1, len(trees) // 400)]
    for tree in trees:
        expected = sorted(edges_by_definition(tree, n_features, n_classes))
        got = sorted(coloring.neighbours(tree))
        assert got == expected
        # One colour per neighbour and every neighbour differs from the tree.
        targets = {s for *_, s in got}
        assert len(targets) == len(got) and tree not in targets


def test_max_depth_removes_the_stumps_below_it():
    coloring = TreeColoring(3, 2, max_depth=1)
    mask = coloring.edge_mask(compile_tree(Split(0, Leaf(0), Leaf(1))))
    assert mask[0, 2:].reshape(3, 4).any(axis=1).tolist() == [False, True, True]
    assert not mask[1:, 2:].any() and mask[1:, :2].sum() == 2


def _round(seed=0):
    """A round on TREE whose rows never reach the false subtree of the root."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(6, 4))
    X[:, 0] = 1
    return X, rng.integers(0, 3, size=6), rng.uniform(0.5, 2.0, size=6)


def _expected_update(tree, rounds, bias, n_features, n_classes):
    """``{(path, column): (biased, unbiased)}`` over every colour at every node."""
    width = n_classes + n_features * n_classes**2
    table = {p: (np.zeros(width), np.zeros(width)) for p, _ in nodes_of(tree)}
    for X, y, w in rounds:
        base = utility(tree, X, y, w)
        for path, col, s in edges_by_definition(tree, n_features, n_classes):
            gain = utility(s, X, y, w) - base
            table[path][0][col] += gain - bias
            table[path][1][col] += gain
    return table


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_learner_regret_update_matches_brute_force(regret):
    rounds = [_round(0), _round(1)]
    bias = 0.37
    clf = LocalRegretTreeClassifier(regret, L=None, bias=bias, batch_size=6)
    clf._draw_tree = lambda rng: (TREE, False)  # play TREE every round
    X = np.vstack([r[0] for r in rounds])
    y = np.concatenate([r[1] for r in rounds])
    w = np.concatenate([r[2] for r in rounds])
    clf.partial_fit(X, y, classes=[0, 1, 2], sample_weight=w)

    expected = _expected_update(TREE, rounds, bias, 4, 3)
    table = clf._table
    assert table.n_rows == len(expected) == 9
    unreached = 0
    for path, (biased, unbiased) in expected.items():
        row = table.find(path if regret == "external" else (TREE, path))
        assert row >= 0
        np.testing.assert_allclose(table.biased[row], biased, atol=1e-12)
        np.testing.assert_allclose(table.unbiased[row], unbiased, atol=1e-12)
        if path and path[0] == (0, 0):  # no row reaches it: -b per round, gain 0
            unreached += 1
            assert set(np.unique(biased)) == {0.0, -2 * bias}
    assert unreached == 5
    wrong = sum(r[2].sum() - utility(TREE, *r) for r in rounds)
    assert clf.n_online_mistakes_ == pytest.approx(wrong)


# ---------------------------------------------------------------------------
# samplers against exact stationary distributions
# ---------------------------------------------------------------------------


def _random_colour_regrets(clf, rng, stump_boost=0.0):
    """Fill the learner's (fresh) colour table with regrets spanning 1e-2 .. 1e2."""
    clf._init_model(2, 2)
    coloring = clf._coloring
    paths = {p for t in all_trees(2, 2) for p, _ in nodes_of(t)}
    for path in sorted(paths):
        # Only colours that exist at the path: no stump on a variable of it.
        on_path = {v for v, _ in path}
        cols = [c for c in range(coloring.width)
                if c < 2 or (c - 2) // 4 not in on_path]
        values = rng.normal(size=len(cols)) * 10 ** rng.uniform(-2, 2, len(cols))
        values[rng.random(len(cols)) < 0.4] = 0.0
        values[2:] += stump_boost  # favours larger trees
        row = clf._table.row(path)
        clf._table.update_entries(np.full(len(cols), row), cols, values)
    clf._sampler.refresh()


def _colour_rate(table):
    def rate(tree, path, col):
        row = table.find(path)
        return max(table.biased[row, col], 0.0) if row >= 0 else 0.0
    return rate


@pytest.mark.parametrize("seed", [0, 1])
def test_learner_sampler_matches_exact_distribution_74_trees(seed):
    rng = np.random.default_rng(seed)
    clf = LocalRegretTreeClassifier(L=None, random_state=seed)
    clf.partial_fit(rng.integers(0, 2, (50, 2)), rng.integers(0, 2, 50), classes=[0, 1])
    _random_colour_regrets(clf, rng)
    trees = all_trees(2, 2)
    assert len(trees) == 74
    pi = dense_stationary(chain_matrix(trees, _colour_rate(clf._table), 2, 2), 0)
    exact = {t: p for t, p in zip(trees, pi) if p > 1e-15}
    n_draws = 20_000
    draws = Counter(clf._draw_tree(rng)[0] for _ in range(n_draws))
    empirical = {t: c / n_draws for t, c in draws.items()}
    assert set(empirical) <= set(exact)
    assert tv(empirical, exact) < tv_bound(list(exact.values()), n_draws)


@pytest.mark.parametrize("L", [1, 2])
def test_finite_L_draw_is_the_documented_mixture(L):
    """Exact L=inf draw if within level L, else k chain steps from the last tree."""
    rng = np.random.default_rng(10 + L)
    n_steps = 4
    clf = LocalRegretTreeClassifier(L=L, n_mcmc_steps=n_steps, random_state=0)
    clf.partial_fit(rng.integers(0, 2, (50, 2)), rng.integers(0, 2, 50), classes=[0, 1])
    _random_colour_regrets(clf, rng, stump_boost=1.0)
    trees = all_trees(2, 2)
    levels = bfs_levels(trees, 2, 2, Leaf(0))
    start = next(t for t in trees if levels[t] == L)
    clf.last_tree_ = start
    rate = _colour_rate(clf._table)

    pi_inf = dense_stationary(chain_matrix(trees, rate, 2, 2), 0)
    redirected = chain_matrix(trees, rate, 2, 2, levels, L)
    bound = clf._graph.out_rate_bound(2 * L + 1)
    assert bound >= redirected.sum(axis=1).max()
    step = np.eye(len(trees)) + (redirected - np.diag(redirected.sum(axis=1))) / bound
    k_step = np.linalg.matrix_power(step, n_steps)[trees.index(start)]
    within = np.array([levels[t] <= L for t in trees])
    mixture = np.where(within, pi_inf, 0.0) + pi_inf[~within].sum() * k_step
    assert pi_inf[~within].sum() > 0.1  # the chain fallback is exercised
    exact = {t: p for t, p in zip(trees, mixture) if p > 1e-15}

    n_draws = 20_000
    draws = Counter(clf._draw_tree(rng)[0] for _ in range(n_draws))
    empirical = {t: c / n_draws for t, c in draws.items()}
    assert all(levels[t] <= L for t in empirical)
    assert tv(empirical, exact) < tv_bound(list(exact.values()), n_draws)


def test_chain_sampler_graph_lists_positive_colour_edges():
    rng = np.random.default_rng(3)
    clf = LocalRegretTreeClassifier(L=None)
    clf.partial_fit(np.zeros((5, 2)), np.zeros(5), classes=[0, 1])
    _random_colour_regrets(clf, rng)
    rate = _colour_rate(clf._table)
    for tree in all_trees(2, 2)[::5]:
        targets, rates = clf._graph.positive_out_edges(tree)
        expected = {s: rate(tree, p, c) for p, c, s in edges_by_definition(tree, 2, 2)
                    if rate(tree, p, c) > 0}
        assert dict(zip(targets, rates.tolist())) == pytest.approx(expected)


@pytest.mark.parametrize("L", [None, 2])
def test_swap_distribution_is_exact(L):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (400, 2))
    y = X[:, 0] ^ (rng.random(400) < 0.2)
    clf = LocalRegretTreeClassifier("swap", L=L, random_state=0).fit(X, y)
    trees = all_trees(2, 2)
    table = clf._table

    def rate(tree, path, col):
        row = table.find((tree, path))
        return max(table.biased[row, col], 0.0) if row >= 0 else 0.0

    levels = bfs_levels(trees, 2, 2, Leaf(0))
    pi = dense_stationary(chain_matrix(trees, rate, 2, 2, levels, L), 0)
    exact = {t: p for t, p in zip(trees, pi) if p > 1e-12}
    got, probs = clf._sampler.distribution()
    assert len(exact) > 1
    assert dict(zip(got, probs.tolist())) == pytest.approx(exact, abs=1e-9)
    assert clf.most_probable_tree() == max(exact, key=exact.get)


def test_rate_graph_swap_vertices_never_played_are_absorbing():
    coloring = TreeColoring(2, 2)
    graph = TreeRateGraph(RegretTable(coloring.width), coloring, per_tree=True)
    targets, rates = graph.positive_out_edges(Split(0, Leaf(0), Leaf(1)))
    assert targets == [] and rates.size == 0
