"""Weights that could overflow the regret tables are refused before learning.

Regression: ``sample_weight=1e308`` broke a swap tree for good (IndexError on
every later call) and left non-finite regrets in the disjunct learner.
"""

import pickle

import numpy as np
import pytest
from test_interrupts import LEARNERS  # the same four configurations


def data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    return X, (X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.1)


@pytest.mark.parametrize("name", LEARNERS)
def test_huge_weights_are_refused_and_change_nothing(name):
    X, y = data()
    model = LEARNERS[name]().fit(X, y)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="sample_weight must be at most"):
        model.partial_fit(X[:5], y[:5], sample_weight=np.full(5, 1e308))
    assert pickle.dumps(model) == before
    model.partial_fit(X[:100], y[:100])  # and it learns on


@pytest.mark.parametrize("name", LEARNERS)
def test_the_largest_weights_keep_everything_finite(name):
    # 1e100 per row, for long enough that the discount scale renormalises.
    X, y = data(400)
    model = LEARNERS[name]()
    model.set_params(discount=0.9)
    model.fit(X, y, sample_weight=np.full(len(y), 1e100))
    regret = (
        model.local_regret_
        if hasattr(model, "local_regret_")
        else model.swap_regret_
        if model.regret == "swap"
        else model.colored_regret_
    )
    assert np.isfinite(regret)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Only ratios of weights matter: the same as unit weights, mistake for
    # mistake (the rounds' probabilities are the same up to rounding).
    unit = LEARNERS[name]().set_params(discount=0.9).fit(X, y)
    assert model.n_online_mistakes_ / 1e100 == pytest.approx(
        unit.n_online_mistakes_, abs=len(y) * 0.05
    )


def test_huge_clause_weights_are_refused_and_change_nothing():
    from sklearn_localregret import OnlineMaxSAT

    solver = OnlineMaxSAT(3, random_state=0)
    solver.observe([[1, -2], [2, 3]])
    before = pickle.dumps(solver)
    with pytest.raises(ValueError, match="weights must be at most"):
        solver.observe([[1], [-1, 2]], weights=[1e308, 1e308])
    assert pickle.dumps(solver) == before
    solver.observe([[1], [-1, 2]], weights=[1e100, 1e100])
    assert np.isfinite(solver.total_weight_)


@pytest.mark.parametrize("name", LEARNERS)
def test_a_call_of_zero_weights_is_learnt_as_nothing_counted(name):
    """Rows that all weigh 0 (a shard's rows of no weight, a masked batch)
    were refused ("at least one non-zero number"), while 1e-9 was taken:
    they are rounds whose rows count for nothing."""
    X, y = data()
    model = LEARNERS[name]().fit(X, y)
    mistakes = model.n_online_mistakes_
    model.partial_fit(X[:7], 1 - y[:7], sample_weight=np.zeros(7))
    model.partial_fit(X[:1], 1 - y[:1], sample_weight=[0.0])
    assert model.n_online_mistakes_ == mistakes
    assert model.n_samples_seen_ == len(y) + 8
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
