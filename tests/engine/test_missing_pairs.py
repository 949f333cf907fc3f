"""The two missing-value variants of a threshold as one naive Bayes feature.

A column with missing values has every threshold twice, ``x > t`` (missing
fails) and ``x > t or missing``. The sites' naive Bayes models read the pair
as one feature, estimated on the rows whose value is known, and a row whose
value is missing does not read it (its score is that of the other features).
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import StumpRegretTable
from sklearn_localregret.engine.compiled.leaf_model import SMOOTHING, refresh_leaf_model
from sklearn_localregret.thresholds import ThresholdTests
from sklearn_localregret.thresholds.catalog import GREATER, GREATER_OR_MISSING
from sklearn_localregret.thresholds.fixed import FixedThresholds


def _rows(seed, n=200):
    """Labels in {0, 1, 2}; column 0 above 0 mostly for label 2, missing in
    a quarter of the rows (more for label 0); column 1 noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    x0 = rng.normal(size=n) + (y == 2)
    missing = rng.random(n) < np.where(y == 0, 0.4, 0.15)
    x1 = rng.normal(size=n)
    return y, np.where(missing, np.nan, x0), x1


def _outcomes(x0, x1):
    """Tests 0: x0 > 0 (missing fails), 1: x0 > 0 or missing, 2: x1 > 0."""
    known = ~np.isnan(x0)
    above = known & (np.nan_to_num(x0) > 0)
    return np.column_stack([above, above | ~known, x1 > 0])


def _table(y, outcomes, test_mask=(True, True, True)):
    """One site that counted the rows in one round, its tests as given."""
    table = StumpRegretTable(n_classes=3, n_tests=3, model_reads=True)
    row = table.row(())
    class_counts = np.bincount(y, minlength=3).astype(float)
    true_counts = np.zeros((3, 3))
    for v in range(3):
        true_counts[v] = np.bincount(y[outcomes[:, v]], minlength=3)
    table.update(
        [row],
        leaf_gains=class_counts[None, :],
        leaf_mask=np.ones((1, 3), dtype=bool),
        true_counts=true_counts[None],
        class_counts=class_counts[None],
        correct=np.zeros(1),
        test_mask=np.array([test_mask]),
    )
    return table, row


def _scores(table, row, went):
    """The cached naive Bayes scores of a data row with outcomes ``went``."""
    table.refresh()
    return table._base[row] + table._odds[row, : went.size][went].sum(axis=0)


def _reference(y, x0, x1, outcome):
    """Naive Bayes by hand: Laplace-smoothed, column 0's likelihood over the
    rows where it is known, left out for a row where it is missing
    (``outcome`` None); ``x1 > 0`` for the rest."""
    a, scores = SMOOTHING, np.zeros(3)
    n = np.bincount(y, minlength=3)
    known = ~np.isnan(x0)
    for c in range(3):
        scores[c] = math.log((n[c] + a) / (len(y) + 3 * a))
        mine = y == c
        if outcome is not None:
            above = np.sum(mine & known & (np.nan_to_num(x0) > 0))
            below = np.sum(mine & known) - above
            passed = above if outcome else below
            scores[c] += math.log((passed + a) / (above + below + 2 * a))
        above1 = np.sum(mine & (x1 > 0))
        scores[c] += math.log((above1 + a) / (n[c] + 2 * a))  # passes x1 > 0
    return scores


@pytest.mark.parametrize("seed", [0, 1])
def test_a_missing_value_leaves_its_feature_out_of_the_model(seed):
    y, x0, x1 = _rows(seed)
    table, row = _table(y, _outcomes(x0, x1))
    table.pair_missing_variants([1, -1, -1])
    known_pass = np.array([True, True, True])
    known_fail = np.array([False, False, True])
    missing = np.array([False, True, True])
    for went, outcome in ((known_pass, True), (known_fail, False), (missing, None)):
        np.testing.assert_allclose(
            _scores(table, row, went), _reference(y, x0, x1, outcome), rtol=1e-12
        )


def test_unpaired_variants_read_the_missing_value_as_evidence():
    """The power check: without the pair, the missing row's score is not the
    model without column 0 (label 0 is missing more often, so it moves)."""
    y, x0, x1 = _rows(0)
    table, row = _table(y, _outcomes(x0, x1))
    went = np.array([False, True, True])
    unpaired = _scores(table, row, went)
    assert np.abs(unpaired - _reference(y, x0, x1, None)).max() > 0.05


def test_pairing_and_unpairing_recompute_the_cache():
    y, x0, x1 = _rows(0)
    table, row = _table(y, _outcomes(x0, x1))
    went = np.array([False, True, True])
    unpaired = _scores(table, row, went)
    table.pair_missing_variants([1, -1, -1])
    assert not np.allclose(_scores(table, row, went), unpaired)
    table.pair_missing_variants([-1, -1, -1])
    np.testing.assert_allclose(_scores(table, row, went), unpaired, rtol=1e-12)


def test_a_site_that_counted_one_variant_keeps_its_own_model():
    y, x0, x1 = _rows(0)
    outcomes = _outcomes(x0, x1)
    alone, row = _table(y, outcomes, test_mask=(True, False, True))
    paired, _ = _table(y, outcomes, test_mask=(True, False, True))
    paired.pair_missing_variants([1, -1, -1])
    for went in ([True, True, True], [False, True, False]):
        went = np.array(went)
        np.testing.assert_array_equal(
            _scores(paired, row, went), _scores(alone, row, went)
        )


def test_bad_partners_are_refused():
    table = StumpRegretTable(n_classes=2, n_tests=3, model_reads=True)
    with pytest.raises(ValueError, match="one partner per test"):
        table.pair_missing_variants([1, -1])
    with pytest.raises(ValueError, match="outside the tests"):
        table.pair_missing_variants([3, -1, -1])


def test_the_catalogue_pairs_each_threshold_with_its_variant():
    tests = ThresholdTests(FixedThresholds(0.5), n_features=3)
    tests.observe(np.array([[0.2, 0.1, 1.0], [2.0, 0.9, 0.0]]))
    assert tests.missing_partners().tolist() == [-1, -1, -1]
    tests.observe(np.array([[np.nan, 0.3, np.nan]]))  # first missing values
    partners = tests.missing_partners()
    assert partners.tolist() == [3, -1, 4, -1, -1]
    for v, u in ((0, 3), (2, 4)):
        assert tests.kind[v] == GREATER and tests.kind[u] == GREATER_OR_MISSING
        assert tests.describe(v) == tests.describe(u)


def _nan_stream(seed=0, n=800):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    X[rng.random(X.shape) < 0.2] = np.nan
    return X, y


def test_the_learner_pairs_its_tables_variants_and_keeps_them_saved():
    X, y = _nan_stream()
    model = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    table = model._player.table
    expected = model._tests.missing_partners()
    assert (expected >= 0).sum() > 0
    np.testing.assert_array_equal(table.missing_partners, expected)
    # Every site's cache is its model computed afresh with the pairs, and
    # the pairs change some site's model.
    table.refresh()
    t, n = table.n_tests, table.n_rows
    fresh = np.zeros_like(table._odds), np.zeros_like(table._base)
    unpaired = np.zeros_like(table._odds), np.zeros_like(table._base)
    for r in range(n):
        scale = table._model_scale[r]
        chains = table.next_thresholds
        refresh_leaf_model(
            table._true, table._false, r, t, scale, *fresh, table.missing_partners,
            chains,
        )  # fmt: skip
        refresh_leaf_model(
            table._true, table._false, r, t, scale, *unpaired, np.zeros(0, np.int64),
            chains,
        )  # fmt: skip
    np.testing.assert_allclose(table._odds[:n, :t], fresh[0][:n, :t], rtol=1e-12)
    np.testing.assert_allclose(table._base[:n], fresh[1][:n], rtol=1e-12)
    assert np.abs(table._base[:n] - unpaired[1][:n]).max() > 1e-3
    loaded = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(loaded._player.table.missing_partners, expected)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
