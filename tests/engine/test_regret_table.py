"""RegretTable: the paper's biased update and the reported regret quantities.

The update of (b, L, C)-colored regret matching (docs/engine.rst): after
playing ``i`` and seeing ``u``, every colour ``C`` of an edge ``(i, j)`` gets
``Rtilde[C] += u(j) - u(i) - b`` and ``R[C] += u(j) - u(i)``; every other colour
is untouched. All expected values below are computed by hand.
"""

import numpy as np
import pytest

from sklearn_localregret.engine import RegretTable


def test_new_table_is_zero_with_integer_keys():
    table = RegretTable(width=3, initial_rows=2)
    assert table.n_rows == 2
    assert table.keys() == [0, 1]
    assert table.find(0) == 0 and table.find(1) == 1 and table.find(2) == -1
    np.testing.assert_array_equal(table.biased, np.zeros((2, 3)))
    np.testing.assert_array_equal(table.unbiased, np.zeros((2, 3)))
    assert table.colored_regret() == 0.0
    assert table.n_nonzero() == 0


def test_update_entries_without_bias():
    table = RegretTable(width=2, initial_rows=2)
    table.update_entries([0, 1], [1, 0], [3.0, -2.0])
    expected = np.array([[0.0, 3.0], [-2.0, 0.0]])
    np.testing.assert_array_equal(table.biased, expected)
    np.testing.assert_array_equal(table.unbiased, expected)


def test_update_entries_with_bias_hand_computed():
    # Round 1: play i, edges of colours (0,1), (1,0), (2,1) with gains 2, -1, 0.5,
    # b = 0.5. Round 2: colours (0,1), (2,0) with gains 1, 0 and b = 0.25.
    table = RegretTable(width=2, initial_rows=3)
    table.update_entries([0, 1, 2], [1, 0, 1], [2.0, -1.0, 0.5], bias=0.5)
    table.update_entries([0, 2], [1, 0], [1.0, 0.0], bias=0.25)
    # Rtilde: (0,1) = (2 - .5) + (1 - .25) = 2.25; (1,0) = -1.5; (2,1) = 0;
    # (2,0) = -0.25.
    np.testing.assert_allclose(
        table.biased, [[0.0, 2.25], [-1.5, 0.0], [-0.25, 0.0]], rtol=0, atol=1e-15
    )
    # R: (0,1) = 3; (1,0) = -1; (2,1) = 0.5; (2,0) = 0.
    np.testing.assert_allclose(
        table.unbiased, [[0.0, 3.0], [-1.0, 0.0], [0.0, 0.5]], rtol=0, atol=1e-15
    )
    # sum_C R[C]+ = 3 + 0.5; biased non-zeros: (0,1), (1,0), (2,0).
    assert table.colored_regret() == pytest.approx(3.5)
    assert table.n_nonzero() == 3
    np.testing.assert_allclose(table.row_max_regret(), [3.0, 0.0, 0.5])
    np.testing.assert_allclose(table.positive(), [[0, 2.25], [0, 0], [0, 0]])
    np.testing.assert_allclose(table.positive([1, 0]), [[0, 0], [0, 2.25]])


def test_bias_only_hits_updated_colours():
    # A colour with gain 0 still pays the bias; colours not listed pay nothing.
    table = RegretTable(width=4, initial_rows=1)
    table.update_entries([0], [2], [0.0], bias=1.0)
    np.testing.assert_array_equal(table.biased, [[0.0, 0.0, -1.0, 0.0]])
    np.testing.assert_array_equal(table.unbiased, [[0.0, 0.0, 0.0, 0.0]])
    assert table.n_nonzero() == 1
    assert table.colored_regret() == 0.0


def test_update_rows_respects_mask():
    table = RegretTable(width=3, initial_rows=3)
    gains = np.array([[1.0, 2.0, 3.0], [-1.0, 4.0, 0.0]])
    mask = np.array([[True, False, True], [False, True, True]])
    table.update_rows([2, 0], gains, mask, bias=0.5)
    # Row 2 gets (1, -, 3) - b, row 0 gets (-, 4, 0) - b, row 1 is untouched.
    np.testing.assert_array_equal(
        table.biased, [[0.0, 3.5, -0.5], [0.0, 0.0, 0.0], [0.5, 0.0, 2.5]]
    )
    np.testing.assert_array_equal(
        table.unbiased, [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 3.0]]
    )
    # A second update with a different mask accumulates.
    table.update_rows(
        [0], np.array([[10.0, 10.0, 10.0]]), np.array([[True, False, False]]), bias=2.0
    )
    np.testing.assert_array_equal(table.biased[0], [8.0, 3.5, -0.5])
    np.testing.assert_array_equal(table.unbiased[0], [10.0, 4.0, 0.0])
    assert table.colored_regret() == pytest.approx(10 + 4 + 1 + 3)
    np.testing.assert_array_equal(table.row_max_regret(), [10.0, 0.0, 3.0])


def test_update_rows_equals_update_entries():
    rng = np.random.default_rng(0)
    gains = rng.normal(size=(4, 5))
    mask = rng.random((4, 5)) < 0.5
    rows = [3, 1, 0, 2]
    a = RegretTable(width=5, initial_rows=4)
    b = RegretTable(width=5, initial_rows=4)
    a.update_rows(rows, gains, mask, bias=0.3)
    r, c = np.nonzero(mask)
    b.update_entries(np.asarray(rows)[r], c, gains[r, c], bias=0.3)
    np.testing.assert_allclose(a.biased, b.biased, rtol=0, atol=1e-15)
    np.testing.assert_allclose(a.unbiased, b.unbiased, rtol=0, atol=1e-15)


def test_rows_created_by_key():
    table = RegretTable(width=2)
    assert table.n_rows == 0
    assert table.find(()) == -1
    root = table.row(())
    child = table.row(((0, 1),))
    assert (root, child) == (0, 1)
    assert table.row(()) == root  # existing key: same row, nothing created
    assert table.n_rows == 2
    assert table.keys() == [(), ((0, 1),)]
    assert table.find(((0, 1),)) == 1
    assert table.find(((0, 0),)) == -1
    np.testing.assert_array_equal(table.biased, np.zeros((2, 2)))
    assert table.row_max_regret().shape == (2,)


def test_growth_beyond_capacity_keeps_values():
    table = RegretTable(width=3, initial_rows=2)
    expected = {}
    for k in range(100):  # far beyond the initial capacity (8)
        row = table.row(("key", k))
        table.update_entries([row], [k % 3], [float(k + 1)], bias=0.5)
        expected[("key", k)] = (k % 3, k + 1.0)
    assert table.n_rows == 102
    assert table.biased.shape == (102, 3)
    np.testing.assert_array_equal(table.biased[:2], 0.0)
    for key, (col, gain) in expected.items():
        row = table.find(key)
        assert row >= 0
        assert table.biased[row, col] == gain - 0.5
        assert table.unbiased[row, col] == gain
        assert np.count_nonzero(table.biased[row]) == 1
    assert table.n_nonzero() == 100
    assert table.colored_regret() == pytest.approx(sum(range(1, 101)))


def test_empty_table_row_max_regret():
    assert RegretTable(width=4).row_max_regret().shape == (0,)


def test_copy_is_independent():
    table = RegretTable(width=2, initial_rows=1)
    table.update_entries([0], [1], [1.0], bias=0.5)
    clone = table.copy()
    np.testing.assert_array_equal(clone.biased, table.biased)
    # Changing the copy (values, new rows, growth) leaves the original alone.
    clone.update_entries([0], [1], [5.0])
    for k in range(20):
        clone.row(("new", k))
    assert table.n_rows == 1 and table.find(("new", 0)) == -1
    np.testing.assert_array_equal(table.biased, [[0.0, 0.5]])
    np.testing.assert_array_equal(table.unbiased, [[0.0, 1.0]])
    # And the other way round.
    table.update_entries([0], [0], [-3.0])
    np.testing.assert_array_equal(clone.biased[0], [0.0, 5.5])
    assert clone.n_rows == 21


def test_clear_rows_zeroes_a_discounted_row_exactly():
    # A removal-set slot reuses its row: the new colour must start at exactly
    # 0 whatever the discount scale, and readers must see the row change.
    table = RegretTable(width=2, initial_rows=3, discount=0.9)
    for _ in range(5):
        table.advance()
        table.update_entries([0, 1, 2], [0, 1, 1], [0.3, -0.7, 1.1], bias=0.1)
    before = table.versions.copy()
    kept = (table.biased[[0, 2]].copy(), table.unbiased[[0, 2]].copy())
    table.clear_rows([1])
    assert table.biased[1].tolist() == [0.0, 0.0]
    assert table.unbiased[1].tolist() == [0.0, 0.0]
    assert table.rates[1].tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(table.biased[[0, 2]], kept[0])
    np.testing.assert_array_equal(table.unbiased[[0, 2]], kept[1])
    assert (table.versions - before).tolist() == [0, 1, 0]


@pytest.mark.parametrize("discount", [1.0, 0.9])
def test_update_row_equals_update_entries_and_says_when_an_edge_moved(discount):
    """Bit for bit the regrets of update_entries on the row's every colour,
    and ``True`` exactly when the row's positive rates (its chain edges)
    changed, which a swap learner's sampler then re-reads."""
    rng = np.random.default_rng(4)
    a = RegretTable(width=6, initial_rows=3, discount=discount)
    b = RegretTable(width=6, initial_rows=3, discount=discount)
    for _ in range(300):
        a.advance()
        b.advance()
        row = int(rng.integers(3))
        gains = rng.normal(size=6).round(1) * (rng.random(6) < 0.4)
        bias = float(rng.choice([0.0, 0.0, 0.3]))
        before = np.maximum(a.rates[row], 0.0)
        moved, largest = a.update_row(row, gains, bias)
        b.update_entries(np.full(6, row), np.arange(6), gains, bias)
        assert moved == (not np.array_equal(np.maximum(a.rates[row], 0.0), before))
        assert largest == np.abs(gains).max()
        np.testing.assert_array_equal(a.rates, b.rates)
        np.testing.assert_array_equal(a.unbiased, b.unbiased)
        np.testing.assert_array_equal(a.versions, b.versions)
