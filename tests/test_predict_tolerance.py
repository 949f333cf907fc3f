"""``predict_tolerance``: the pruned prediction walk and its bound.

Every class probability of every row is within the tolerance of the exact
walk's (a pruned site's reach goes to its start labels, and the pruned reaches
of a row add up to at most the tolerance); the site-by-site batch walk prunes
exactly what the row-by-row walk prunes.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sklearn_localregret import LocalRegretTreeClassifier


@pytest.fixture(scope="module")
def digits_model():
    X, y = load_digits(return_X_y=True)
    # Label leaves: a big tree to prune (with model leaves the root's model
    # takes all of pi here).
    est = LocalRegretTreeClassifier(random_state=0, leaf_model=None)
    est.fit(X[:700], y[:700])
    return est, X[700:1000]


@pytest.mark.parametrize("tolerance", [1e-4, 1e-3, 1e-2, 0.2])
def test_probabilities_within_the_tolerance(digits_model, tolerance):
    est, X = digits_model
    est.set_params(predict_tolerance=0.0)
    exact = est.pi_proba(X)
    est.set_params(predict_tolerance=tolerance)
    batch = est.pi_proba(X)  # 300 rows: the site-by-site walk
    rows = np.vstack([est.pi_proba(X[i : i + 1]) for i in range(40)])
    assert np.abs(batch - exact).max() <= tolerance + 1e-12
    np.testing.assert_allclose(batch.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(rows, batch[:40], rtol=0, atol=1e-13)
    if tolerance >= 1e-3:  # the walk did prune something
        assert np.abs(batch - exact).max() > 0


def test_zero_tolerance_is_the_exact_walk(digits_model):
    est, X = digits_model
    est.set_params(predict_tolerance=0.0)
    first = est.pi_proba(X)
    est.set_params(predict_tolerance=1e-3)
    est.pi_proba(X)
    est.set_params(predict_tolerance=0.0)
    np.testing.assert_array_equal(est.pi_proba(X), first)


def test_tolerance_outside_its_range_is_a_clear_error():
    with pytest.raises(ValueError, match="predict_tolerance"):
        LocalRegretTreeClassifier(predict_tolerance=1.0).fit([[0.0], [1.0]], [0, 1])
