"""The shortcuts of wide tables against the straightforward computations.

Saving a stump table finds the class totals by a majority vote before
sorting, and writes and reads ``S_false``'s residual in one compiled pass;
the label cache sizes its pool from a count of the entries a refresh will
write. Each must give exactly what the computation it spares gives.
"""

import pickle

import numpy as np
import pytest
from test_hierarchical_labels import many_tests_table

from sklearn_localregret.engine import HierarchicalLabels, StumpRegretTable
from sklearn_localregret.engine.compiled.class_totals import (
    majority_sums,
    residual_bits,
)
from sklearn_localregret.engine.compiled.tree_labels import pending_label_entries
from sklearn_localregret.engine.saved_arrays import pack_residual, unpack
from sklearn_localregret.engine.stump_table_storage import _sorted_modes, class_totals


def _factors(rng, n, t, k):
    """``S_true``, ``S_false`` whose sums repeat a few values per (row,
    class): a majority in some columns, ties or none in others, -0.0 against
    0.0 and NaN among them."""
    true = rng.integers(0, 4, size=(n, t, k)).astype(float)
    values = np.array([0.0, -0.0, 1.5, np.nan, 7.0, 1 / 3])
    share = rng.random((n, 1, k))  # how often the column's usual value comes
    usual = values[rng.integers(0, values.size, size=(n, 1, k))]
    other = values[rng.integers(0, values.size, size=(n, t, k))]
    sums = np.where(rng.random((n, t, k)) < share, usual, other)
    return true, sums - true


def _modes_by_sorting(true, false):
    """The mode of every (row, class) column by sorting all of them."""
    n, t, k = true.shape
    sums = (true + false).transpose(0, 2, 1).reshape(n * k, t)
    return _sorted_modes(sums).view(np.float64).reshape(n, k)


@pytest.mark.parametrize("seed", range(6))
def test_class_totals_are_the_sorted_modes(seed):
    rng = np.random.default_rng(seed)
    n, t, k = rng.integers(1, 9), rng.integers(1, 40), rng.integers(1, 4)
    true, false = _factors(rng, n, t, k)
    totals = class_totals(true, false)
    expected = _modes_by_sorting(true, false)
    assert totals.tobytes() == expected.tobytes()
    # The vote finds exactly the columns that one value holds for more than
    # half of the tests.
    bits = np.zeros((n, k), dtype=np.uint64)
    found = np.zeros((n, k), dtype=bool)
    majority_sums(true, false, bits, found)
    words = (true + false).view(np.uint64)
    holds = (words == expected.view(np.uint64)[:, None, :]).sum(axis=1)
    np.testing.assert_array_equal(found, 2 * holds > t)
    assert bits[found].tobytes() == expected.view(np.uint64)[found].tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_residual_passes_are_pack_residual(seed):
    rng = np.random.default_rng(seed)
    true, false = _factors(rng, 5, 17, 3)
    totals = class_totals(true, false)
    # Views of wider arrays, as a table's rows in use are.
    wide_true = np.zeros((7, 20, 3))
    wide_true[:5, :17] = true
    wide_false = np.full((7, 20, 3), 9.0)
    wide_false[:5, :17] = false
    words = np.empty(true.shape, dtype=np.uint64)
    residual_bits(
        wide_false[:5, :17].view(np.uint64), totals, wide_true[:5, :17], words
    )
    expected = unpack(pack_residual(false, totals[:, None, :] - true))
    assert words.tobytes() == expected.tobytes()
    restored = np.full((7, 20, 3), -1.0)
    residual_bits(words, totals, true, restored[:5, :17].view(np.uint64))
    assert restored[:5, :17].tobytes() == false.tobytes()
    assert (restored[5:] == -1.0).all() and (restored[:, 17:] == -1.0).all()


def test_a_saved_table_of_spare_capacity_loads_bit_for_bit():
    rng = np.random.default_rng(7)
    table = StumpRegretTable(n_classes=3, n_tests=4)
    true, false = _factors(rng, 6, 4, 3)
    for r in range(6):
        table.row(r)
    table.add_tests(30)  # capacity beyond the tests in use
    table._true[:6, :4], table._false[:6, :4] = true, false
    copy = pickle.loads(pickle.dumps(table))
    for name in ("_true", "_false", "_leaf", "_cost"):
        mine = getattr(copy, name)[:6, ..., : table.n_tests]
        theirs = getattr(table, name)[:6, ..., : table.n_tests]
        assert mine.tobytes() == theirs.tobytes()


def test_pending_entries_are_what_a_refresh_writes():
    table = many_tests_table(3, n_classes=2, n_tests=60, depth=1)
    labels = HierarchicalLabels(table)
    table.refresh()
    labels.paths.update()
    n = table.n_rows
    labels._grow_rows(n)
    weights = table._content[:n, table.n_leaves : table.n_leaves + table.n_tests]
    seen = labels._seen[:n].copy()
    seen[1::2] = table._versions[1:n:2]  # every other row up to date
    pending = pending_label_entries(
        n, table._versions, seen, table._content, table.n_tests, table.n_leaves
    )
    assert pending == int((weights[::2] > 0).sum()) > 0
    # A refresh from nothing fills the pool without garbage.
    labels.refresh()
    assert labels.pool_size == int((weights > 0).sum())
    assert labels._pool_int.shape[0] <= 3 * labels.pool_size // 2 + 64
