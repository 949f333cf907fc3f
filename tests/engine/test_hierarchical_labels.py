"""HierarchicalLabels: exact class probabilities of the hierarchical tree draws.

Checked three ways: against the exact stationary distribution of the
enumerated decision trees (to rounding: both are exact), against the
sampler's own draws on a larger table (a derived Hoeffding tolerance), and
against a fresh object after every kind of table change (the cache).
"""

import math
import pickle
from collections import Counter

import numpy as np
import pytest
from exact import ColoredTreeGraph, set_site, valid_paths
from test_samplers_exact import (
    N_CLASSES,
    N_FEATURES,
    TREE_CASES,
    check_reference,
    predict,
    random_factors,
)

from sklearn_localregret.engine import (
    HierarchicalLabels,
    HierarchicalSampler,
    StumpRegretTable,
)

ALL_ROWS = np.array([[a, b] for a in (0, 1) for b in (0, 1)], dtype=bool)


def exact_label_probabilities(table, X, root_label=0):
    """Label probabilities from the enumerated trees' stationary distribution."""
    pi = check_reference(ColoredTreeGraph(table, N_FEATURES, N_CLASSES))
    proba = np.zeros((len(X), N_CLASSES))
    for tree, p in pi.items():
        for i, x in enumerate(X):
            proba[i, predict(tree, x)] += p
    return proba


@pytest.mark.parametrize("make_table", TREE_CASES)
def test_matches_enumeration(make_table):
    table = make_table()
    labels = HierarchicalLabels(table)
    got = labels.probabilities(ALL_ROWS)
    exact = exact_label_probabilities(table, ALL_ROWS)
    # Both sides are exact; what separates them is rounding.
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    for i in range(len(ALL_ROWS)):  # one row at a time: its own walk
        alone = labels.probabilities(ALL_ROWS[i : i + 1])
        np.testing.assert_allclose(alone, exact[i : i + 1], rtol=0, atol=1e-12)


def test_detects_ignored_ages():
    # Power: the same formula with the children's ages ignored (q = 0: the
    # root's children are evaluated as if stationary) is far from the truth
    # on the table where ages matter; the check above would catch it.
    table = next(p.values[0] for p in TREE_CASES if p.id == "ages-matter")()
    labels = HierarchicalLabels(table)
    labels.refresh()
    # The planted bug: q_v = 0 in every cached split (the private pool).
    labels._pool_float[:, 1] = 0.0
    wrong = labels.probabilities(ALL_ROWS)
    exact = exact_label_probabilities(table, ALL_ROWS)
    assert np.abs(wrong - exact).max() > 1e-3


def many_tests_table(seed, n_classes=3, n_tests=6, depth=3):
    """A bigger table: every path of up to ``depth`` tests, random factors."""
    rng = np.random.default_rng(seed)
    table = StumpRegretTable(n_classes, n_tests=n_tests)

    def paths(prefix):
        yield prefix
        if len(prefix) < depth:
            used = {v for v, _ in prefix}
            for v in range(n_tests):
                if v not in used and rng.random() < 0.4:
                    for branch in (1, 0):
                        yield from paths(prefix + ((v, branch),))

    for path in paths(()):
        used = {v for v, _ in path}
        leaves = random_factors(rng, n_classes)[0]
        stumps = {
            v: random_factors(rng, n_classes, -2, 1)
            for v in range(n_tests)
            if v not in used
        }
        set_site(table, path, leaves, stumps)
    return table


def tree_predict(tree, x):
    while tree[0] == "split":
        tree = tree[2] if x[tree[1]] else tree[3]
    return tree[1]


@pytest.mark.parametrize("root_label", [0, 2])
def test_matches_sampler_draws(root_label):
    # Hoeffding per entry: P(|mean of N draws - p| > t) <= 2 exp(-2 N t^2);
    # over m entries with total false-alarm probability 1e-6,
    # t = sqrt(ln(2 m / 1e-6) / (2 N)).
    table = many_tests_table(3)
    assert table.n_rows > 20
    rng = np.random.default_rng(0)
    X = rng.random((40, table.n_tests)) < 0.5
    labels = HierarchicalLabels(table)
    exact = labels.probabilities(X, root_label=root_label)
    # One row at a time (the streaming loop's walk) gives the same numbers.
    for i in range(len(X)):
        alone = labels.probabilities(X[i : i + 1], root_label=root_label)
        np.testing.assert_allclose(alone, exact[i : i + 1], rtol=0, atol=1e-12)
    n_draws = 20_000
    trees = HierarchicalSampler(table).sample_many(
        n_draws, np.random.default_rng(1), root_label=root_label
    )
    counts = np.zeros_like(exact)
    for tree, weight in Counter(trees).items():
        for i, x in enumerate(X):
            counts[i, tree_predict(tree, x)] += weight
    t = math.sqrt(math.log(2 * exact.size / 1e-6) / (2 * n_draws))
    assert np.abs(counts / n_draws - exact).max() <= t
    np.testing.assert_allclose(exact.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_cache_follows_every_table_change():
    # One object kept across updates (new rows under cached parents, changed
    # values, a test entering, the discount's renormalisation) must answer as
    # a fresh one does after each change.
    table = StumpRegretTable(N_CLASSES, n_tests=1, discount=0.5)
    labels = HierarchicalLabels(table)
    rng = np.random.default_rng(4)
    X = rng.random((16, 2)) < 0.5

    def check():
        fresh = HierarchicalLabels(table).probabilities(X[:, : table.n_tests])
        kept = labels.probabilities(X[:, : table.n_tests])
        np.testing.assert_array_equal(kept, fresh)

    check()
    for i, path in enumerate(reversed(valid_paths(N_FEATURES))):
        if i == 2:
            table.add_tests(1)
        used = {v for v, _ in path}
        set_site(
            table,
            path,
            rng.uniform(-0.5, 2.0, N_CLASSES),
            {
                v: random_factors(rng, N_CLASSES, -1, 0.5)
                for v in range(table.n_tests)
                if v not in used
            },
        )
        check()
    resets = table.clock.n_resets
    while table.clock.n_resets == resets:
        table.advance(50)
    set_site(table, (), [0.0, 1.0], {})
    check()


def test_pickle_keeps_no_cache():
    table = many_tests_table(5)
    labels = HierarchicalLabels(table)
    X = np.random.default_rng(0).random((5, table.n_tests)) < 0.5
    before = labels.probabilities(X)
    restored = pickle.loads(pickle.dumps(labels))
    assert restored.pool_size == 0  # derived state is not saved
    np.testing.assert_array_equal(restored.probabilities(X), before)
    assert len(pickle.dumps(labels)) == len(pickle.dumps(HierarchicalLabels(table)))


def test_concurrent_first_predictions_agree():
    # Threads predicting at once on a table the object has never indexed must
    # each index it once between them (a child listed twice counts twice).
    from concurrent.futures import ThreadPoolExecutor

    table = many_tests_table(7)
    X = np.random.default_rng(1).random((64, table.n_tests)) < 0.5
    expected = HierarchicalLabels(table).probabilities(X)
    for _ in range(5):
        labels = HierarchicalLabels(table)
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: labels.probabilities(X), range(8)))
        for got in results:
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n_rows", [1, 3])
def test_empty_table_predicts_the_root_label(n_rows):
    # No regret anywhere: every drawn tree is the root leaf, whatever the row.
    labels = HierarchicalLabels(StumpRegretTable(n_classes=3, n_tests=2))
    got = labels.probabilities(ALL_ROWS[:n_rows], root_label=2)
    np.testing.assert_array_equal(got, np.tile([0.0, 0.0, 1.0], (n_rows, 1)))
