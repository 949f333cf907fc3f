"""A column's thresholds as one binned feature of the sites' naive Bayes models.

The tests ``x > t_1 < ... < t_m`` of a numeric column are nested; the
models read them as the value's bin, ``P(bin i | c) = p_i - p_{i+1}`` from
the count-weighted decreasing fit of the pass rates, instead of ``m``
Bernoulli features (:mod:`sklearn_localregret.engine.compiled.threshold_bins`).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import StumpRegretTable
from sklearn_localregret.engine.compiled.leaf_model import SMOOTHING
from sklearn_localregret.engine.compiled.threshold_bins import decreasing_fit
from sklearn_localregret.engine.merge import empty_like
from sklearn_localregret.thresholds import QuantileThresholds, ThresholdTests

THRESHOLDS = np.array([-0.5, 0.0, 0.7])  # tests 0, 1, 2 on column 0
CHAIN = np.array([1, 2, -1, -1])  # test 3: column 1 above 0, alone


def _scratch(m):
    return np.empty(m), np.empty(m), np.empty(m, dtype=np.int64)


@pytest.mark.parametrize("seed", range(20))
def test_the_decreasing_fit_is_isotonic_regression(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    values, weights = rng.random(m), rng.random(m) * 10 + 0.1
    out = np.empty(m)
    decreasing_fit(values, weights, m, out, *_scratch(m))
    expected = IsotonicRegression(increasing=False).fit_transform(
        np.arange(m), values, sample_weight=weights
    )
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)


def test_a_value_without_weight_takes_the_fit_on_its_right():
    out = np.empty(5)
    values, weights = np.array([0.9, 0.0, 0.5, 0.0, 0.0]), np.array([1, 0, 2, 0, 0.0])
    decreasing_fit(values, weights, 5, out, *_scratch(5))
    np.testing.assert_array_equal(out, [0.9, 0.5, 0.5, 0.0, 0.0])
    decreasing_fit(np.zeros(3), np.zeros(3), 3, out, *_scratch(3))
    np.testing.assert_array_equal(out[:3], 0.0)


def _rows(seed, n=300):
    """Labels in {0, 1, 2}: column 0 shifted by the label, column 1 noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    return y, rng.normal(size=n) + 0.6 * (y - 1), rng.normal(size=n)


def _table(y, x0, x1, chained=True):
    """One site that counted the rows in one round, tests 0-2 on column 0
    (one chain) and test 3 on column 1."""
    outcomes = np.column_stack([x0[:, None] > THRESHOLDS, x1 > 0])
    return _counted_site(y, outcomes, CHAIN if chained else np.full(4, -1))


def _counted_site(y, outcomes, chain, partners=None):
    """A table with one site that counted ``outcomes`` (rows, tests) of
    labels ``y`` in one round, its tests chained and paired as given."""
    n_tests = outcomes.shape[1]
    table = StumpRegretTable(n_classes=3, n_tests=n_tests, model_reads=True)
    if partners is not None:
        table.pair_missing_variants(partners)
    table.chain_thresholds(chain)
    row = table.row(())
    class_counts = np.bincount(y, minlength=3).astype(float)
    true_counts = np.array([np.bincount(y[o], minlength=3) for o in outcomes.T])
    table.update(
        [row],
        leaf_gains=class_counts[None, :],
        leaf_mask=np.ones((1, 3), dtype=bool),
        true_counts=true_counts.astype(float)[None],
        class_counts=class_counts[None],
        correct=np.zeros(1),
        test_mask=np.ones((1, n_tests), dtype=bool),
    )
    table.refresh()
    return table, row


def _scores(table, row, outcomes):
    """The model's scores of data rows: ``base`` plus the passed tests' odds."""
    t = table.n_tests
    return table._base[row] + outcomes.astype(float) @ table._odds[row, :t]


def test_a_chain_reads_the_bin_of_the_value():
    # Counted in one round, the pass rates fall with the threshold and the
    # model is categorical naive Bayes on the bins (a / (m + 1) rows of
    # smoothing each) times a Bernoulli model of test 3: by hand.
    y, x0, x1 = _rows(0)
    table, row = _table(y, x0, x1)
    a = SMOOTHING * table._model_scale[row]
    bins = np.searchsorted(THRESHOLDS, x0, side="left")  # tests passed on column 0
    n_c = np.bincount(y, minlength=3)
    n_bc = np.array([np.bincount(bins[y == c], minlength=4) for c in range(3)])
    log_bin = np.log((n_bc + a / 4) / (n_c[:, None] + a))  # (K, bins)
    np.testing.assert_allclose(np.exp(log_bin).sum(axis=1), 1.0)
    up = np.array([np.sum((x1 > 0) & (y == c)) for c in range(3)])
    log_up = np.log((up + a) / (n_c + 2 * a))
    log_down = np.log((n_c - up + a) / (n_c + 2 * a))
    prior = np.log((n_c + a) / (n_c.sum() + 3 * a))
    for b in range(4):
        for above in (False, True):
            went = np.array([[i < b for i in range(3)] + [above]])
            expected = prior + log_bin[:, b] + (log_up if above else log_down)
            scores = _scores(table, row, went)[0]
            np.testing.assert_allclose(scores, expected, rtol=1e-12)
    # Unchained, the same counts make three Bernoulli features of column 0:
    # another model (else this test could not fail).
    plain, row = _table(y, x0, x1, chained=False)
    went = np.array([[True, True, False, True]])
    assert np.abs(_scores(plain, row, went) - _scores(table, row, went)).max() > 0.1


def test_a_column_with_missing_values_reads_the_bins_of_its_known_values():
    # Tests 0-2: x0 > t (missing fails), 3-5: x0 > t or missing, 6: x1 > 0.
    # Counted in one round: a known value's score is categorical naive Bayes
    # on the known values' bins; a missing value's leaves column 0 out.
    y, x0, x1 = _rows(4)
    x0[np.random.default_rng(4).random(y.size) < 0.3] = np.nan
    known = ~np.isnan(x0)
    above = known[:, None] & (np.nan_to_num(x0)[:, None] > THRESHOLDS)
    outcomes = np.column_stack([above, above | ~known[:, None], x1 > 0])
    table, row = _counted_site(
        y, outcomes, [1, 2, -1, -1, -1, -1, -1], partners=[3, 4, 5, -1, -1, -1, -1]
    )
    counts = np.bincount(y, minlength=3).astype(float)
    a = SMOOTHING * table._model_scale[row]
    bins = above.sum(axis=1)
    n_kc = np.array(
        [np.bincount(bins[known & (y == c)], minlength=4) for c in (0, 1, 2)]
    )
    log_bin = np.log((n_kc + a / 4) / (n_kc.sum(axis=1, keepdims=True) + a))
    up = np.array([np.sum((x1 > 0) & (y == c)) for c in range(3)])
    log_down = np.log((counts - up + a) / (counts + 2 * a))
    prior = np.log((counts + a) / (counts.sum() + 3 * a))
    for b in range(4):
        went = np.array([[i < b for i in range(3)] * 2 + [False]])
        scores = _scores(table, row, went)[0]
        np.testing.assert_allclose(scores, prior + log_bin[:, b] + log_down, rtol=1e-12)
    missing = np.array([[False] * 3 + [True] * 3 + [False]])
    np.testing.assert_allclose(_scores(table, row, missing)[0], prior + log_down)


def test_a_test_never_counted_is_left_out_of_its_chain():
    # The middle threshold entered late: never counted at the site. Its odds
    # are 0 and the chain reads the two others' bins.
    y, x0, x1 = _rows(1)
    table, row = _table(y, x0, x1)
    table._true[row, 1] = table._false[row, 1] = 0.0
    table._versions[row] += 1
    table.refresh()
    np.testing.assert_array_equal(table._odds[row, 1], 0.0)
    a = SMOOTHING * table._model_scale[row]
    bins = (x0 > THRESHOLDS[0]).astype(int) + (x0 > THRESHOLDS[2])
    for c in range(3):
        n_bc = np.bincount(bins[y == c], minlength=3)
        log_bin = np.log((n_bc + a / 3) / (n_bc.sum() + a))
        np.testing.assert_allclose(table._odds[row, 0, c], log_bin[1] - log_bin[0])
        np.testing.assert_allclose(table._odds[row, 2, c], log_bin[2] - log_bin[1])


def test_pass_rates_out_of_order_are_read_through_their_decreasing_fit():
    # Each test counts its own rounds, so a higher threshold can pass more
    # of a label's rows than a lower one. The bins then come from the
    # count-weighted decreasing fit (rates in order skip the fit: the same
    # numbers), which an in-order shortcut taken here would miss.
    y, x0, x1 = _rows(2)
    table, row = _table(y, x0, x1)
    # Test 1 (x > 0.0) counted in other rounds: most of its rows passed.
    table._true[row, 1] = [40.0, 55.0, 70.0]
    table._false[row, 1] = [2.0, 3.0, 1.0]
    table._versions[row] += 1
    table.refresh()
    a = SMOOTHING * table._model_scale[row]
    for c in range(3):
        t, f = table._true[row, :3, c], table._false[row, :3, c]
        counts = t + f
        assert t[1] / counts[1] > t[0] / counts[0]  # out of order
        p = IsotonicRegression(increasing=False).fit_transform(
            np.arange(3), t / counts, sample_weight=counts
        )
        largest = counts.max()
        shares = -np.diff(np.r_[1.0, p, 0.0]) * largest + a / 4
        log_bin = np.log(shares / (largest + a))
        np.testing.assert_allclose(
            table._odds[row, :3, c], np.diff(log_bin), rtol=1e-10, atol=1e-12
        )


def test_the_catalogue_chains_complete_columns_in_increasing_threshold():
    tests = ThresholdTests(QuantileThresholds(max_thresholds=3, first_checkpoint=4), 2)
    rng = np.random.default_rng(0)
    for _ in range(8):
        tests.observe(rng.normal(size=(4, 2)))
    links = tests.next_thresholds()
    for j in range(2):
        on_j = sorted(tests.tests_of(j), key=lambda v: tests.threshold[v])
        assert len(on_j) >= 2
        assert [int(links[v]) for v in on_j] == on_j[1:] + [-1]
    # A missing value: column 0's thresholds come in pairs of variants; its
    # chain links the "x > t" tests, whose partners are the variants.
    tests.observe(np.array([[np.nan, 0.0]]))
    links, partners = tests.next_thresholds(), tests.missing_partners()
    greater = [v for v in tests.tests_of(0) if partners[v] >= 0]
    assert len(greater) == len(tests.tests_of(0)) // 2
    assert (links[greater] >= 0).sum() == len(greater) - 1
    assert (links[partners[greater]] == -1).all()


def test_chains_are_checked_saved_and_copied():
    y, x0, x1 = _rows(2)
    table, row = _table(y, x0, x1)
    with pytest.raises(ValueError, match="one next threshold per test"):
        table.chain_thresholds(CHAIN[:3])
    with pytest.raises(ValueError, match="outside the tests"):
        table.chain_thresholds(np.array([1, 4, -1, -1]))
    for bad in ([1, 2, 0, -1], [2, 2, -1, -1], [0, -1, -1, -1]):  # cycles, twice
        with pytest.raises(ValueError, match="make no chains"):
            table.chain_thresholds(np.array(bad))
    np.testing.assert_array_equal(table.next_thresholds, CHAIN)  # as it was
    before = table._odds[row].copy()
    loaded = pickle.loads(pickle.dumps(table))
    np.testing.assert_array_equal(loaded.next_thresholds, CHAIN)
    np.testing.assert_array_equal(empty_like(table).next_thresholds, CHAIN)
    # Unchaining recomputes the site's model at the next refresh.
    table.chain_thresholds(np.full(4, -1))
    table.refresh()
    assert np.abs(table._odds[row] - before).max() > 0.1
    # A table saved before the chains reads its thresholds one by one.
    state = table.__getstate__()
    del state["_next_threshold"]
    old = StumpRegretTable.__new__(StumpRegretTable)
    old.__setstate__(state)
    np.testing.assert_array_equal(old.next_thresholds, -1)


def test_a_learner_chains_its_tables_thresholds():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    model = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    links = model._player.table.next_thresholds
    np.testing.assert_array_equal(links, model._tests.next_thresholds())
    assert (links >= 0).sum() == model._tests.n_tests - 3  # one chain per column
    loaded = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
