"""Decision-tree locality graph: structure, regret update and samplers.

Every reference here is computed from the definitions, independently of the
code under test: trees are enumerated, neighbours are built by replacing
subtrees (paper, Example "Online Decision Tree Learning"), utilities by walking
each row down each tree, and stationary distributions by dense matrix powers
of the uniformised chain.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import StumpRegretTable
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
from sklearn_localregret.locality.tree_coloring import TreeColoring
from sklearn_localregret.locality.tree_rate_graph import TreeRateGraph
from sklearn_localregret.thresholds import (
    FixedThresholds,
    QuantileThresholds,
    ThresholdTests,
)

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
        tree = tree.true_child if x[tree.test] else tree.false_child
    return tree.label


def stump_column(v, c_true, c_false, n_classes):
    """Colour number of a stump: leaves first, then stumps test by test."""
    return n_classes + (v * n_classes + c_true) * n_classes + c_false


def boolean_coloring(n_features, n_classes, max_depth=None):
    """The paper's colouring over 0/1 features: test v is feature v."""
    tests = ThresholdTests(FixedThresholds(0.5), n_features)
    tests.observe(np.zeros((1, n_features)))
    return TreeColoring(tests, n_classes, max_depth)


def utility(tree, X, y, w):
    return sum(wi for xi, yi, wi in zip(X, y, w) if walk(tree, xi) == yi)


def nodes_of(tree, path=()):
    out = [(path, tree)]
    if isinstance(tree, Split):
        out += nodes_of(tree.true_child, path + ((tree.test, 1),))
        out += nodes_of(tree.false_child, path + ((tree.test, 0),))
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
            if v in on_path or (isinstance(sub, Split) and sub.test == v):
                continue
            for ct in range(n_classes):
                for cf in range(n_classes):
                    col = stump_column(v, ct, cf, n_classes)
                    yield path, col, put(tree, path, Split(v, Leaf(ct), Leaf(cf)))


def bfs_levels(trees, n_features, n_classes, root):
    neighbours = {
        t: [e[2] for e in edges_by_definition(t, n_features, n_classes)] for t in trees
    }
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
        math.log(1 / delta) / (2 * n_draws)
    )


def tv(p: dict, q: dict) -> float:
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


# ---------------------------------------------------------------------------
# structure
# ---------------------------------------------------------------------------

TREE = Split(
    0, Split(1, Leaf(2), Leaf(0)), Split(2, Leaf(1), Split(3, Leaf(1), Leaf(2)))
)


def test_nodes_are_immutable_hashable_keys():
    same = Split(
        0, Split(1, Leaf(2), Leaf(0)), Split(2, Leaf(1), Split(3, Leaf(1), Leaf(2)))
    )
    assert same == TREE and hash(same) == hash(TREE)
    assert {TREE: 1}[same] == 1
    assert Split(0, Leaf(0), Leaf(1)) != Split(0, Leaf(1), Leaf(0))
    with pytest.raises(AttributeError):
        TREE.test = 3


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
    # A few rows are walked one by one, more split at each node: both agree.
    for rows in (1, 3, 8, 9):
        assert predict_tree(TREE, X[:rows] == 1).tolist() == expected[:rows]
    reach, pred = route_rows(compile_tree(TREE), X[:7])
    assert pred.tolist() == expected[:7]
    for i, (path, _) in enumerate(nodes_of(TREE)):
        passes = [all(x[v] == b for v, b in path) for x in X[:7]]
        assert reach[i].tolist() == [float(p) for p in passes]


def test_export_text_matches_sklearn_format():
    text = export_text(Split(1, Leaf(0), Leaf(1)), ["a", "b"], ["no", "yes"])
    assert text.splitlines() == [
        "|--- b <= 0.50",
        "|   |--- class: yes",
        "|--- b >  0.50",
        "|   |--- class: no",
    ]
    assert export_text(Leaf(1)) == "|--- class: 1"


# ---------------------------------------------------------------------------
# the locality graph and its colouring
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_features, n_classes", [(2, 2), (2, 3), (3, 2)])
def test_neighbours_are_the_papers_edges(n_features, n_classes):
    coloring = boolean_coloring(n_features, n_classes)
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
    coloring = boolean_coloring(3, 2, max_depth=1)
    leaf_mask, test_mask = coloring.edge_masks(compile_tree(Split(0, Leaf(0), Leaf(1))))
    assert test_mask[0].tolist() == [False, True, True]
    assert not test_mask[1:].any() and leaf_mask[1:].sum() == 2 and leaf_mask[0].all()


def _decided_by_brute_force(tests, path, grid):
    """Tests whose outcome is the same on every grid point that follows ``path``."""
    feature, threshold = tests.feature, tests.threshold
    points = np.array(np.meshgrid(*grid)).reshape(len(grid), -1).T
    follows = np.ones(len(points), dtype=bool)
    for v, branch in path:
        follows &= (points[:, feature[v]] > threshold[v]) == bool(branch)
    outcomes = points[follows][:, feature] > threshold
    return outcomes.all(axis=0) | ~outcomes.any(axis=0)


def test_numeric_tests_decided_by_the_path_are_not_edges():
    """With several thresholds per feature, a stump whose test the path already
    decides (all rows reaching the node go one way) is no edge; every other is.
    Checked against a brute-force grid of points, on random paths."""
    rng = np.random.default_rng(0)
    tests = ThresholdTests(QuantileThresholds(max_thresholds=7, first_checkpoint=8), 3)
    for _ in range(40):
        tests.observe(rng.normal(size=(8, 3)).round(1))
    assert tests.n_tests > 9  # several thresholds per feature
    coloring = TreeColoring(tests, 2)
    # Grid: each feature's thresholds and points between and beyond them.
    grid = []
    for j in range(3):
        t = np.sort(tests.threshold[tests.feature == j])
        grid.append(np.concatenate((t, (t[1:] + t[:-1]) / 2, [t[0] - 1, t[-1] + 1])))
    for _ in range(200):
        path = []
        for _ in range(rng.integers(1, 5)):
            open_tests = np.flatnonzero(coloring.available_tests(tuple(path)))
            if open_tests.size == 0:
                break
            path.append((int(rng.choice(open_tests)), int(rng.integers(2))))
        path = tuple(path)
        expected = ~_decided_by_brute_force(tests, path, grid)
        np.testing.assert_array_equal(coloring.available_tests(path), expected)


def _round(seed=0):
    """A round on TREE whose rows never reach the false subtree of the root."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(6, 4))
    X[:, 0] = 1
    return X, rng.integers(0, 3, size=6), rng.uniform(0.5, 2.0, size=6)


def _expected_update(tree, rounds, bias, n_features, n_classes):
    """``{path: (biased, unbiased)}``: every colour's regret, by the definition.

    For each round the utility of every neighbour (one subtree replaced) is
    computed by walking every row down it; colours are numbered leaves first,
    then stumps test by test (``stump_column``).
    """
    width = n_classes + n_features * n_classes**2
    table = {p: (np.zeros(width), np.zeros(width)) for p, _ in nodes_of(tree)}
    for X, y, w in rounds:
        base = utility(tree, X, y, w)
        for path, col, s in edges_by_definition(tree, n_features, n_classes):
            gain = utility(s, X, y, w) - base
            table[path][0][col] += gain - bias
            table[path][1][col] += gain
    return table


def _unfactored(table, row, unbiased):
    """A row of the factored table as one regret per colour (stump_column order)."""
    leaves, stumps = table.dense_regrets(unbiased)
    return np.concatenate((leaves[row], stumps[row].reshape(-1)))


def on_new_player(clf, patch):
    """Call ``patch(player)`` on each player the (unfitted) learner makes."""
    new_player = clf._new_player

    def patched(*args):
        player = new_player(*args)
        patch(player)
        return player

    clf._new_player = patched


def play_fixed_trees(clf, trees):
    """Make the learner play the next tree of ``trees`` in each round (its
    player's private draw replaced: the update is under test)."""

    def patch(player):
        if clf.regret == "swap":
            player.draw = lambda rng: (next(trees), False)
            return

        def draw(rng):
            player.play_next(next(trees))
            return False

        player.draw_flat = draw

    on_new_player(clf, patch)


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_learner_regret_update_matches_brute_force(regret):
    rounds = [_round(0), _round(1)]
    bias = 0.37
    clf = LocalRegretTreeClassifier(
        regret, L=None, bias=bias, batch_size=6, discount=1.0, leaf_model=None
    )
    # This test is about the update: the played tree is fixed by replacing the
    # (private) draw.
    play_fixed_trees(clf, itertools.repeat(TREE))  # play TREE every round
    X = np.vstack([r[0] for r in rounds])
    y = np.concatenate([r[1] for r in rounds])
    w = np.concatenate([r[2] for r in rounds])
    clf.partial_fit(X, y, classes=[0, 1, 2], sample_weight=w)
    assert clf.test_features_.tolist() == [0, 1, 2, 3]  # 0/1 data: test v = x_v

    expected = _expected_update(TREE, rounds, bias, 4, 3)
    table = clf.regret_table_
    assert table.n_rows == len(expected) == 9
    unreached = 0
    for path, (biased, unbiased) in expected.items():
        row = table.find(path if regret == "external" else (TREE, path))
        assert row >= 0
        np.testing.assert_allclose(_unfactored(table, row, False), biased, atol=1e-12)
        np.testing.assert_allclose(_unfactored(table, row, True), unbiased, atol=1e-12)
        if path and path[0] == (0, 0):  # no row reaches it: -b per round, gain 0
            unreached += 1
            assert set(np.unique(biased)) == {0.0, -2 * bias}
    assert unreached == 5
    wrong = sum(r[2].sum() - utility(TREE, *r) for r in rounds)
    assert clf.n_online_mistakes_ == pytest.approx(wrong)


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_warm_start_gives_new_sites_their_gains_over_the_window(regret):
    """A site played for the first time starts from its colours' gains over the
    last ``warm_start`` rows that reach it (bias-free, as if it had been played
    as its starting leaf), then takes the round's update; known sites do not."""
    rng = np.random.default_rng(7)
    window, bias = 12, 0.4
    X = rng.integers(0, 2, size=(40, 4))
    y = rng.integers(0, 3, size=40)
    w = rng.uniform(0.5, 2.0, size=40)
    trees = iter([Leaf(0)] * 7 + [TREE])  # 7 rounds of 5 rows, then TREE
    clf = LocalRegretTreeClassifier(
        regret, L=None, bias=bias, warm_start=window, discount=1.0, leaf_model=None
    )
    play_fixed_trees(clf, trees)  # the update is tested
    clf.partial_fit(X[:35], y[:35], classes=[0, 1, 2], sample_weight=w[:35])
    table = clf.regret_table_
    seen = {key for key in table.keys()}
    clf.partial_fit(X[35:], y[35:], sample_weight=w[35:])
    recent = (X[23:35], y[23:35], w[23:35])  # the last 12 rows before the round
    warm = _expected_update(TREE, [recent], 0.0, 4, 3)
    round_ = _expected_update(TREE, [(X[35:], y[35:], w[35:])], bias, 4, 3)
    root_only = _expected_update(
        Leaf(0),
        [(X[i : i + 5], y[i : i + 5], w[i : i + 5]) for i in range(0, 35, 5)],
        bias,
        4,
        3,
    )
    for path, _ in nodes_of(TREE):
        key = path if regret == "external" else (TREE, path)
        row = table.find(key)
        expected = round_[path][0].copy()
        if key not in seen:  # new site: the window's gains, without bias
            expected += warm[path][0]
        elif path == ():  # external: the root had the Leaf(0) rounds before
            expected += root_only[()][0]
        np.testing.assert_allclose(_unfactored(table, row, False), expected, atol=1e-9)
    assert len(seen) == 1  # only the root existed


def _passes(x, tests):
    """Whether row ``x`` passes each test, from the tests' definitions
    (test ``v`` is ``x[j] > t`` for ``(j, t) = tests.describe(v)``)."""
    return [x[j] > t for j, t in map(tests.describe, range(tests.n_tests))]


def _walk_passes(tree, passes):
    """The label a tree gives a row that passes the tests ``passes`` says."""
    while isinstance(tree, Split):
        tree = tree.true_child if passes[tree.test] else tree.false_child
    return tree.label


@pytest.mark.parametrize("n_classes", [2, 5, 20])
def test_factored_regrets_equal_every_colour_unfactored(n_classes):
    """Over a random numeric stream (tests entering as it goes, random played
    trees, weights, a bias), every colour's factored regret equals the sum of
    its per-round gains computed colour by colour, to 1e-9 relative."""
    rng = np.random.default_rng(n_classes)
    n_features, batch, bias = 3, 4, 0.3
    clf = LocalRegretTreeClassifier(
        L=None,
        bias=bias,
        batch_size=batch,
        max_thresholds=3,
        warm_start=0,
        discount=1.0,
        leaf_model=None,
        random_state=0,
    )
    played = []

    def remember_draws(player):  # the update is under test, not the draw
        real_draw = player.draw_flat

        def draw_and_remember(generator):
            chain = real_draw(generator)
            played.append(player.flat.to_tree())
            return chain

        player.draw_flat = draw_and_remember

    on_new_player(clf, remember_draws)
    X = rng.normal(size=(400, n_features)).round(2)
    y = (X[:, 0] > 0) * (n_classes // 2) + rng.integers(0, 2, 400)
    y = np.minimum(y, n_classes - 1)
    w = rng.uniform(0.5, 2.0, 400)
    clf.partial_fit(X, y, classes=np.arange(n_classes), sample_weight=w)
    tests = ThresholdTests(QuantileThresholds(max_thresholds=3), n_features)
    expected: dict = {}  # (path, colour) -> [biased, unbiased]
    k = n_classes
    for r, tree in enumerate(played):
        Xr, yr, wr = (
            X[r * batch : (r + 1) * batch],
            y[r * batch : (r + 1) * batch],
            w[r * batch : (r + 1) * batch],
        )
        tests.observe(Xr)
        coloring = TreeColoring(tests, k)
        # Each row's test outcomes once per round: every neighbour walks the
        # same rows through the same tests.
        rows = [(_passes(xi, tests), yi, wi) for xi, yi, wi in zip(Xr, yr, wr)]

        def util(t):
            return sum(wi for passes, yi, wi in rows if _walk_passes(t, passes) == yi)

        base = util(tree)
        for path, colour, neighbour in coloring.neighbours(tree):
            gain = util(neighbour) - base
            entry = expected.setdefault((path, colour), [0.0, 0.0])
            entry[0] += gain - bias
            entry[1] += gain
    assert tests.n_tests == clf.test_features_.size > n_features
    np.testing.assert_array_equal(tests.threshold, clf.test_thresholds_)
    table = clf.regret_table_
    assert any(len(p) >= 2 for p in table.keys())  # deeper trees were played
    row_of = {path: row for row, path in enumerate(table.keys())}
    keys = list(expected)
    at = (
        np.array([row_of[path] for path, _ in keys]),
        np.array([colour for _, colour in keys]),
    )
    for unbiased in (False, True):
        leaves, stumps = table.dense_regrets(unbiased)
        # Column c < k: leaf colour c; column k + (v * k + c1) * k + c2: the
        # stump on test v with children c1, c2 (C order of stumps[row]).
        got = np.concatenate([leaves, stumps.reshape(len(leaves), -1)], axis=1)
        assert got.shape[1] == k + stumps.shape[1] * k * k
        want = np.array([value[int(unbiased)] for value in expected.values()])
        # pytest.approx(want, rel=1e-9, abs=1e-9), entry by entry.
        off = np.abs(got[at] - want) > np.maximum(1e-9 * np.abs(want), 1e-9)
        assert not off.any(), [
            (keys[i], got[at][i], want[i]) for i in np.flatnonzero(off)[:5]
        ]
        # Colours never out of a played tree kept a regret of zero.
        others = np.ones(got.shape, bool)
        others[at] = False
        assert not np.any(got[others])


# ---------------------------------------------------------------------------
# samplers against exact stationary distributions
# ---------------------------------------------------------------------------


def _random_colour_regrets(clf, rng, stump_boost=0.0):
    """Fill the learner's (fresh) regret table with random leaf regrets and stump
    factors (regrets spanning about 1e-2 .. 1e2, some zero, some negative).

    Writes through the table's own update, one colour group at a time (the
    private model set-up and table are what these sampler tests plant into).
    """
    clf._init_model(2, 2)
    table = clf._player.table
    # 0/1 rows make test v = feature v (x_v > 0.5), as in the learner.
    table.add_tests(clf._tests.observe(np.zeros((1, 2))))
    assert table.n_tests == 2
    paths = {p for t in all_trees(2, 2) for p, _ in nodes_of(t)}
    none2 = np.zeros((1, 2), bool)
    for path in sorted(paths):
        row = table.row(path)
        leaves = rng.normal(size=2) * 10 ** rng.uniform(-2, 2, 2)
        leaves[rng.random(2) < 0.4] = 0.0
        table.update(
            [row],
            leaves[None],
            np.ones((1, 2), bool),
            np.zeros((1, 2, 2)),
            np.zeros((1, 2)),
            np.zeros(1),
            none2,
        )
        on_path = {v for v, _ in path}
        for v in set(range(2)) - on_path:
            a, b = rng.normal(size=(2, 2)) * 10 ** rng.uniform(-1, 1.5, (2, 2))
            cost = rng.normal() * 5 - stump_boost  # a boost favours larger trees
            true_counts = np.zeros((1, 2, 2))
            true_counts[0, v] = a
            only_v = none2.copy()
            only_v[0, v] = True
            table.update(
                [row],
                np.zeros((1, 2)),
                none2,
                true_counts,
                (a + b)[None],
                np.array([cost]),
                only_v,
            )
    clf._player.sampler.refresh()


def _colour_rate(table, key=lambda tree, path: path):
    def rate(tree, path, col):
        row = table.find(key(tree, path))
        if row < 0:
            return 0.0
        if col < 2:
            return max(table.leaf_regrets(row)[col], 0.0)
        v, pair = divmod(col - 2, 4)
        return max(table.stump_regrets(row, v)[divmod(pair, 2)], 0.0)

    return rate


@pytest.mark.parametrize("seed", [0, 1])
def test_learner_sampler_matches_exact_distribution_74_trees(seed):
    rng = np.random.default_rng(seed)
    clf = LocalRegretTreeClassifier(L=None, random_state=seed, leaf_model=None)
    clf.partial_fit(rng.integers(0, 2, (50, 2)), rng.integers(0, 2, 50), classes=[0, 1])
    _random_colour_regrets(clf, rng)
    trees = all_trees(2, 2)
    assert len(trees) == 74
    pi = dense_stationary(chain_matrix(trees, _colour_rate(clf.regret_table_), 2, 2), 0)
    exact = {t: p for t, p in zip(trees, pi) if p > 1e-15}
    n_draws = 20_000
    # The learner's own (private) draw is what is checked against pi.
    draws = Counter(clf._player.draw(rng)[0] for _ in range(n_draws))
    empirical = {t: c / n_draws for t, c in draws.items()}
    assert set(empirical) <= set(exact)
    assert tv(empirical, exact) < tv_bound(list(exact.values()), n_draws)


@pytest.mark.parametrize("L", [1, 2])
def test_finite_L_draw_is_the_documented_mixture(L):
    """Exact L=inf draw if within level L, else k chain steps from the last tree."""
    rng = np.random.default_rng(10 + L)
    n_steps = 4
    clf = LocalRegretTreeClassifier(
        L=L, n_mcmc_steps=n_steps, random_state=0, leaf_model=None
    )
    clf.partial_fit(rng.integers(0, 2, (50, 2)), rng.integers(0, 2, 50), classes=[0, 1])
    _random_colour_regrets(clf, rng, stump_boost=1.0)
    trees = all_trees(2, 2)
    levels = bfs_levels(trees, 2, 2, Leaf(0))
    start = next(t for t in trees if levels[t] == L)
    clf._player.last_tree = start
    rate = _colour_rate(clf.regret_table_)

    pi_inf = dense_stationary(chain_matrix(trees, rate, 2, 2), 0)
    redirected = chain_matrix(trees, rate, 2, 2, levels, L)
    bound = clf._player.graph.out_rate_bound(2 * L + 1)  # the private chain's bound
    assert bound >= redirected.sum(axis=1).max()
    step = np.eye(len(trees)) + (redirected - np.diag(redirected.sum(axis=1))) / bound
    k_step = np.linalg.matrix_power(step, n_steps)[trees.index(start)]
    within = np.array([levels[t] <= L for t in trees])
    mixture = np.where(within, pi_inf, 0.0) + pi_inf[~within].sum() * k_step
    assert pi_inf[~within].sum() > 0.1  # the chain fallback is exercised
    exact = {t: p for t, p in zip(trees, mixture) if p > 1e-15}

    n_draws = 20_000
    # The learner's own (private) draw, with the redirect, under test.
    draws = Counter(clf._player.draw(rng)[0] for _ in range(n_draws))
    empirical = {t: c / n_draws for t, c in draws.items()}
    assert all(levels[t] <= L for t in empirical)
    assert tv(empirical, exact) < tv_bound(list(exact.values()), n_draws)


def test_chain_sampler_graph_lists_positive_colour_edges():
    rng = np.random.default_rng(3)
    clf = LocalRegretTreeClassifier(L=None, leaf_model=None)
    clf.partial_fit(np.zeros((5, 2)), np.zeros(5), classes=[0, 1])
    _random_colour_regrets(clf, rng)
    rate = _colour_rate(clf.regret_table_)
    for tree in all_trees(2, 2)[::5]:
        targets, rates = clf._player.graph.positive_out_edges(tree)  # the rate graph
        expected = {
            s: rate(tree, p, c)
            for p, c, s in edges_by_definition(tree, 2, 2)
            if rate(tree, p, c) > 0
        }
        assert dict(zip(targets, rates.tolist())) == pytest.approx(expected)


@pytest.mark.parametrize("L", [None, 2])
def test_swap_distribution_is_exact(L):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (400, 2))
    y = X[:, 0] ^ (rng.random(400) < 0.2)
    clf = LocalRegretTreeClassifier("swap", L=L, random_state=0).fit(X, y)
    trees = all_trees(2, 2)
    rate = _colour_rate(clf.regret_table_, key=lambda tree, path: (tree, path))
    levels = bfs_levels(trees, 2, 2, Leaf(0))
    pi = dense_stationary(chain_matrix(trees, rate, 2, 2, levels, L), 0)
    exact = {t: p for t, p in zip(trees, pi) if p > 1e-12}
    got, probs = clf.tree_distribution()
    assert len(exact) > 1
    assert dict(zip(got, probs.tolist())) == pytest.approx(exact, abs=1e-9)
    assert clf.representative_tree() == max(exact, key=exact.get)


def test_rate_graph_swap_vertices_never_played_are_absorbing():
    coloring = boolean_coloring(2, 2)
    graph = TreeRateGraph(StumpRegretTable(2, 2), coloring, per_tree=True)
    targets, rates = graph.positive_out_edges(Split(0, Leaf(0), Leaf(1)))
    assert targets == [] and rates.size == 0
