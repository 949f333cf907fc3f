"""StumpRegretTable: the factored layout against every colour unfactored."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.engine import StumpRegretTable, positive_pair_sums
from sklearn_localregret.engine.saved_arrays import unpack


def brute_pair_sums(a, b, c):
    return np.array(
        [sum(max(x + y - z, 0.0) for x in ai for y in bi) for ai, bi, z in zip(a, b, c)]
    )


@pytest.mark.parametrize("k", [1, 2, 3, 16, 17, 40])
def test_positive_pair_sums_match_brute_force(k):
    # Both code paths (direct up to 16 classes, sorted beyond), with ties,
    # zeros, all-negative and all-positive rows, magnitudes 1e-3 .. 1e3.
    rng = np.random.default_rng(k)
    n = 300
    a = rng.normal(size=(n, k)) * 10 ** rng.uniform(-3, 3, (n, 1))
    b = rng.normal(size=(n, k)) * 10 ** rng.uniform(-3, 3, (n, 1))
    c = rng.normal(size=n) * 10 ** rng.uniform(-3, 3, n)
    a[::7] = a[::7].round()  # ties between cuts and b values
    b[::7] = b[::7].round()
    c[::7] = c[::7].round()
    b[::11, : k // 2] = -a[::11, : k // 2] + c[::11, None]  # pairs exactly at zero
    c[::13] = 1e9  # nothing positive
    c[::17] = -1e9  # everything positive
    got = positive_pair_sums(a, b, c)
    expected = brute_pair_sums(a, b, c)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    assert got[13] == 0.0 and got[17] > 0


def _random_update(table, rng, rows, bias, skill=1.0):
    """A random round: counts of rows per label, per test, and how many of them
    the played subtree got right (a fraction ``skill`` of a random share)."""
    k, t = table.n_classes, table.n_tests
    n = len(rows)
    class_counts = rng.integers(0, 4, (n, k)).astype(float)
    true_counts = np.floor(class_counts[:, None, :] * rng.random((n, t, k)))
    correct = np.floor(class_counts.sum(axis=1) * rng.random(n) * skill)
    table.update(
        rows,
        class_counts - correct[:, None],
        rng.random((n, k)) < 0.8,
        true_counts,
        class_counts,
        correct,
        rng.random((n, t)) < 0.7,
        bias,
    )


def test_rows_and_tests_grow_and_derived_views_agree():
    rng = np.random.default_rng(0)
    table = StumpRegretTable(n_classes=3, n_tests=2)
    for step in range(40):
        if step % 10 == 9:
            table.add_tests(int(rng.integers(1, 9)))  # past the capacity too
        keys = {("site", int(i)) for i in rng.integers(0, 30, 4)}
        _random_update(table, rng, [table.row(key) for key in keys], bias=0.25)
    assert table.n_rows > 8 and table.n_tests > 8
    leaves, stumps = table.dense_regrets()
    u_leaves, u_stumps = table.dense_regrets(unbiased=True)
    # The cached site weights equal the sums of the positive parts, colour by
    # colour, for every row (including rows cached before tests entered).
    for row in range(table.n_rows):
        weights, cdf, total = table.site(row)
        expected = np.concatenate(
            (np.maximum(leaves[row], 0), np.maximum(stumps[row], 0).sum(axis=(1, 2)))
        )
        np.testing.assert_allclose(weights, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(cdf, np.cumsum(expected), rtol=1e-12, atol=1e-12)
        assert total == pytest.approx(expected.sum(), rel=1e-12)
        for v in range(table.n_tests):
            np.testing.assert_array_equal(table.stump_regrets(row, v), stumps[row, v])
    assert table.n_nonzero() == np.count_nonzero(leaves) + np.count_nonzero(stumps)
    assert table.colored_regret() == pytest.approx(
        np.maximum(u_leaves, 0).sum() + np.maximum(u_stumps, 0).sum(), rel=1e-12
    )
    np.testing.assert_allclose(
        table.row_max_regret(),
        np.maximum(
            np.maximum(u_leaves, 0).max(axis=1),
            np.maximum(u_stumps, 0).reshape(table.n_rows, -1).max(axis=1),
        ),
    )
    # The bias enters the biased regrets only: b per update of an edge colour.
    assert np.all(stumps <= u_stumps + 1e-12) and np.any(stumps < u_stumps)


def test_pickle_keeps_only_the_regrets_and_resumes_exactly():
    rng = np.random.default_rng(1)
    table = StumpRegretTable(n_classes=2, n_tests=3)
    for _ in range(20):
        _random_update(table, rng, [table.row(i) for i in range(5)], bias=0.1)
    copy = pickle.loads(pickle.dumps(table))
    for mine, theirs in zip(copy.dense_regrets(), table.dense_regrets()):
        np.testing.assert_array_equal(mine, theirs)
    assert copy.keys() == table.keys() and copy.find(4) == table.find(4)
    # Saved state holds the rows in use, not the spare capacity or the cache.
    state = table.__getstate__()
    assert table.factors()["true"].shape == (5, 3, 2) and "_content" not in state
    assert unpack(state["_true"]).shape == (5, 3, 2)
    # Both learn on identically.
    for t in (copy, table):
        _random_update(t, np.random.default_rng(2), [t.row(i) for i in (0, 7)], 0.1)
        t.add_tests(2)
    np.testing.assert_array_equal(copy.site(0)[0], table.site(0)[0])
    for mine, theirs in zip(copy.dense_regrets(), table.dense_regrets()):
        np.testing.assert_array_equal(mine, theirs)


def test_positive_colours_lists_exactly_the_positive_edge_colours():
    rng = np.random.default_rng(3)
    table = StumpRegretTable(n_classes=3, n_tests=4)
    for _ in range(10):
        _random_update(table, rng, [table.row("a")], bias=0.5, skill=0.3)
    leaf_mask = np.array([True, False, True])
    test_mask = np.array([True, True, False, True])
    leaves, stumps, rates = table.positive_colours(0, leaf_mask, test_mask)
    dense_leaves, dense_stumps = table.dense_regrets()
    expected = {
        ("leaf", c): dense_leaves[0, c]
        for c in range(3)
        if leaf_mask[c] and dense_leaves[0, c] > 0
    }
    expected.update(
        {
            (v, c1, c2): dense_stumps[0, v, c1, c2]
            for v, c1, c2 in zip(*np.nonzero(dense_stumps[0] > 0))
            if test_mask[v]
        }
    )
    got = {("leaf", c): r for c, r in zip(leaves.tolist(), rates)}
    got.update({tuple(s): r for s, r in zip(stumps.tolist(), rates[len(leaves) :])})
    assert got == pytest.approx(expected)
    assert len(expected) > 3


def test_a_table_left_a_quarter_full_gives_its_memory_back():
    table = StumpRegretTable(n_classes=2, n_tests=3, leaf_model=True)
    rows = [table.row(("site", i)) for i in range(100)]
    table._true[rows, 0, 1] = np.arange(100.0)
    capacity = table._leaf.shape[0]
    assert capacity >= 100
    renumber = table.forget(rows[:95])
    assert table.n_rows == 5 and table._leaf.shape[0] == 16
    for name in table._ROW_ARRAYS:  # every row array, the same capacity
        assert getattr(table, name).shape[0] == 16
    np.testing.assert_array_equal(table._true[:5, 0, 1], np.arange(95.0, 100.0))
    assert renumber[95:].tolist() == list(range(5))
    # It grows again as before, rows and values kept.
    more = [table.row(("more", i)) for i in range(20)]
    assert more[0] == 5 and table._leaf.shape[0] >= 25
    np.testing.assert_array_equal(table._true[:5, 0, 1], np.arange(95.0, 100.0))
    assert table.find(("site", 97)) == 2
