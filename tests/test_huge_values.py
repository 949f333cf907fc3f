"""Finite values too large to square (beyond ~1e154): the root models leave
their column out, and every probability stays a number.

The tree's tests are thresholds, which any finite scale leaves alone; the
root models (Gaussian naive Bayes, the passive-aggressive linear model) sum
squares, which overflow there. Their posteriors were NaN on a column of
+-1e308 (and stayed NaN after learning ordinary rows). A stream whose every
column is that large is learnt by the tree alone (its root models read
nothing): on x0 > 0 scaled by 1e160, 0.919 of the rows right, as before,
against 0.9985 unscaled, where the Gaussian model leads.
"""

import numpy as np
import pytest

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._tree.root_gaussian import RootGaussian
from sklearn_localregret._tree.root_linear import RootLinear


def _stream(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's overflow
@pytest.mark.parametrize(
    "make",
    [
        lambda: LocalRegretTreeClassifier(random_state=0),
        lambda: LocalRegretForestClassifier(n_estimators=3, random_state=0),
    ],
    ids=["tree", "forest"],
)
def test_a_column_of_huge_values_leaves_the_probabilities_numbers(make):
    rng = np.random.default_rng(0)  # (the seeds of the report: NaN rows)
    y = rng.integers(0, 2, size=200)
    rng.normal(size=200)
    small = rng.integers(0, 3, size=200)
    huge = np.where(np.arange(200) % 2, 1e308, -1e308)
    model = make().fit(np.column_stack([huge, small]), y)
    proba = model.predict_proba(np.column_stack([huge, small]))
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    X2, y2 = _stream(2000, seed=1)
    model.partial_fit(np.column_stack([X2[:, 1], X2[:, 0]]), y2)
    assert np.isfinite(model.predict_proba(np.column_stack([X2[:, 1], X2[:, 0]]))).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's overflow
@pytest.mark.parametrize("model", ["gaussian", "linear"])
def test_a_root_model_leaves_out_a_column_it_cannot_square(model):
    # Its posteriors from the other columns alone, as if it were missing;
    # NaN before (inf - inf in the variance).
    X, y = _stream(300)
    rng = np.random.default_rng(2)
    huge = np.column_stack([X, rng.choice([-1e300, 1e300], size=300)])
    if model == "gaussian":
        with_huge, without = RootGaussian(2, 3, 1.0), RootGaussian(2, 2, 1.0)
        with_huge.learn(huge, y, np.ones(300), 1.0)
        without.learn(X, y, np.ones(300), 1.0)
    else:
        with_huge, without = RootLinear(2, 3), RootLinear(2, 2)
        with_huge.learn(huge, y, np.ones(300))
        without.learn(X, y, np.ones(300))
    got = with_huge.proba(huge)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, without.proba(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("far", [1e154, 1e200, 1e308])
def test_a_row_far_beyond_the_data_goes_to_the_nearest_gaussian_class(far):
    # z**2 / var overflowed for every class beyond ~1.3e154: every class
    # scored -inf, the Gaussian model answered uniform, and the tree (which
    # trusted that expert most) predicted class 0 against every split.
    rng = np.random.default_rng(9)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] > 0.5, 2, np.where(X[:, 1] > 0, 1, 0))
    gaussian = RootGaussian(3, 3, 1.0)
    gaussian.learn(X, y, np.ones(300), 1.0)
    near = gaussian.proba(np.full((1, 3), 1e150))  # still finite distances
    np.testing.assert_array_equal(gaussian.proba(np.full((1, 3), far)), near)
    assert near[0].argmax() == 2 and near[0].max() == 1.0
    # Two classes as near as each other share the row; unseen ones get 0.
    twin = RootGaussian(3, 1, 1.0)
    twin.learn(
        np.array([[-1.0], [1.0], [-1.0], [1.0]]),
        np.array([0, 0, 1, 1]),
        np.ones(4),
        1.0,
    )
    np.testing.assert_array_equal(twin.proba(np.array([[far]])), [[0.5, 0.5, 0.0]])
    tree = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    assert tree.predict(np.full((1, 3), far))[0] == 2
