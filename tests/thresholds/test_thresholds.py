"""Threshold sources and the catalogue of tests."""

import numpy as np
import pytest

from sklearn_localregret.thresholds import (
    FixedThresholds,
    QuantileThresholds,
    ThresholdTests,
)


def feed(source, X, batch):
    """Observe ``X`` round by round; the candidates, in order."""
    source.start(X.shape[1])
    out = []
    for lo in range(0, X.shape[0], batch):
        out.extend(source.observe(X[lo : lo + batch]))
    return out


def test_quantile_levels_at_each_checkpoint():
    # One feature, values 1..1024 in a shuffled order: at each checkpoint the
    # new thresholds split the rows seen so far at the new levels, halfway
    # between a value and the next larger one seen.
    rng = np.random.default_rng(0)
    values = rng.permutation(np.arange(1, 1025)).astype(float)
    got = feed(
        QuantileThresholds(max_thresholds=7, first_checkpoint=16),
        values[:, None],
        batch=4,
    )
    assert len(got) == 7
    checkpoints = [
        (16, [1 / 2]),
        (64, [1 / 4, 3 / 4]),
        (256, [1 / 8, 3 / 8, 5 / 8, 7 / 8]),
    ]
    expected = []
    for rows, levels in checkpoints:
        seen = np.sort(values[:rows])
        for level in levels:
            low = seen[int(np.ceil(level * rows)) - 1]
            high = seen[seen > low].min()
            expected.append((0, (low + high) / 2))
    assert got == expected
    # The fraction of the rows seen at the checkpoint at or below a threshold
    # is its level.
    fractions = [
        np.mean(values[:rows] <= t)
        for (_, t), rows in zip(got, [16, 64, 64, 256, 256, 256, 256])
    ]
    np.testing.assert_allclose(
        fractions, [1 / 2, 1 / 4, 3 / 4, 1 / 8, 3 / 8, 5 / 8, 7 / 8]
    )


def test_shifted_levels_stay_within_a_quarter_gap_of_the_even_ones():
    # Three features of distinct values; each checkpoint's thresholds sit at
    # its levels shifted by the feature's offset in (-1/2, 1/2) half-gaps:
    # the fraction of the rows seen at or below a threshold is within a
    # quarter of the gap between levels of the even level, and the same
    # seed places them alike, another seed elsewhere.
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.permutation(np.arange(1024.0)) for _ in range(3)])
    rows_at = {0: 16, 1: 64, 2: 64, 3: 256, 4: 256, 5: 256, 6: 256}
    even = [1 / 2, 1 / 4, 3 / 4, 1 / 8, 3 / 8, 5 / 8, 7 / 8]
    got = {}
    for seed in (0, 1):
        got[seed] = feed(QuantileThresholds(level_seed=seed), X, batch=4)
        for j in range(3):
            mine = [t for feature, t in got[seed] if feature == j]
            assert len(mine) == 7
            for i, t in enumerate(mine):
                rows = rows_at[i]
                gap = 1 / 2 ** int(np.log2(rows // 16) / 2)
                fraction = np.mean(X[:rows, j] <= t)
                assert abs(fraction - even[i]) <= gap / 4 + 1 / rows
    assert feed(QuantileThresholds(level_seed=0), X, batch=4) == got[0]
    assert got[0] != got[1]
    assert feed(QuantileThresholds(), X, batch=4) != got[0]


def test_boolean_features_get_one_test_at_once_and_no_more():
    rng = np.random.default_rng(1)
    X = np.column_stack(
        [rng.integers(0, 2, 400), rng.normal(size=400), np.zeros(400)]
    ).astype(float)
    got = feed(QuantileThresholds(), X, batch=5)
    assert got[:2] == [(0, 0.5), (2, 0.5)]  # from the first round, in order
    assert [j for j, _ in got].count(0) == 1 and [j for j, _ in got].count(2) == 1
    assert [j for j, _ in got].count(1) == 7


def test_few_distinct_values_few_tests_and_the_cap():
    rng = np.random.default_rng(2)
    X = np.column_stack(
        [
            rng.choice([3.0, 7.0, 9.0], 2000),  # 2 gaps
            rng.normal(size=2000),
        ]
    )
    got = feed(QuantileThresholds(max_thresholds=5), X, batch=1)
    assert sorted(t for j, t in got if j == 0) == [5.0, 8.0]
    assert len([t for j, t in got if j == 1]) == 5  # capped
    source = QuantileThresholds(max_thresholds=5)
    feed(source, X, batch=1)
    assert source.complete  # no further candidates: the learner stops asking


def test_round_boundaries_decide_not_call_boundaries():
    # The same rows observed in the same rounds give the same tests, however
    # many rows each observe call held before the checkpoint.
    X = np.random.default_rng(3).normal(size=(300, 3))
    one = feed(QuantileThresholds(), X, batch=5)
    source = QuantileThresholds()
    source.start(3)
    two = []
    for lo in range(0, 300, 5):
        two.extend(source.observe(X[lo : lo + 5]))
    assert one == two


def test_catalogue_numbers_tests_and_evaluates_them():
    tests = ThresholdTests(QuantileThresholds(first_checkpoint=4), n_features=2)
    assert tests.observe(np.array([[0.0, 5.0]])) == 1  # feature 0 looks boolean
    assert tests.observe(np.array([[1.0, 1.0], [0.0, 3.0], [1.0, 9.0]])) == 1
    assert tests.feature.tolist() == [0, 1] and tests.threshold.tolist() == [0.5, 4.0]
    X = np.array([[0.2, 4.0], [0.9, 4.5]])
    np.testing.assert_array_equal(tests.outcomes(X), [[False, False], [True, True]])
    assert tests.tests_of(1) == [1] and tests.describe(0) == (0, 0.5)


def test_fixed_thresholds_one_test_per_feature_from_the_first_round():
    tests = ThresholdTests(FixedThresholds(-1.0), n_features=3)
    assert tests.observe(np.zeros((1, 3))) == 3 and tests.complete
    np.testing.assert_array_equal(
        tests.outcomes(np.array([[-2.0, -1.0, 0.0]])), [[False, False, True]]
    )


def test_no_thresholds_source_is_complete_at_once():
    source = QuantileThresholds(max_thresholds=0)
    source.start(2)
    assert source.complete and source.observe(np.ones((3, 2))) == []
    with pytest.raises(ValueError, match="max_thresholds must be an int >= 0"):
        QuantileThresholds(max_thresholds=-1)
