"""The root site's naive Bayes model as the hedge's third expert."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._hedge import PLAY_HANDICAP, AdaHedge, hedged_classes


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    return X[order].astype(float), y[order]


def test_hedged_classes_give_each_expert_its_weight_on_a_grid_of_uniforms():
    n = 10_000
    uniforms = (np.arange(n) + 0.5) / n
    proba = np.tile([0.2, 0.0, 0.5, 0.3], (n, 1))
    model = np.full(n, 1)  # the model's class, which pi gives no weight
    for vote_weight, model_weight in ((0.0, 0.5), (0.25, 0.25), (0.5, 0.5)):
        got = hedged_classes(proba, vote_weight, uniforms, model, model_weight)
        play_weight = 1 - vote_weight - model_weight
        expected = (
            play_weight * proba[0]
            + vote_weight * np.eye(4)[2]
            + model_weight * np.eye(4)[1]
        )
        np.testing.assert_allclose(
            np.bincount(got, minlength=4) / n, expected, atol=1.5 / n
        )
    # Without a model weight the draws are the two-expert ones, bit for bit.
    np.testing.assert_array_equal(
        hedged_classes(proba, 0.3, uniforms, model, 0.0),
        hedged_classes(proba, 0.3, uniforms),
    )


def test_each_round_scores_the_root_model_before_learning_it(digits):
    X, y = digits
    model = LocalRegretTreeClassifier(random_state=0)
    model.fit(X[:300], y[:300])
    assert model._hedge.n_experts == 3
    for lo in range(300, 400, 5):
        rows = slice(lo, lo + 5)
        labels = model._root_model_labels(model._tests.outcomes(X[rows]))
        expected = float((model.classes_[labels] != y[rows]).sum())
        before = model._hedge.losses
        model.partial_fit(X[rows], y[rows])
        assert model._hedge.losses[2] - before[2] == expected


def test_the_model_takes_the_weight_where_it_leads_and_predict_follows_it(digits):
    # Digits at one row per call: the root's naive Bayes model makes fewer
    # mistakes than the vote (measured: 0.13 against 0.16 over the pass).
    X, y = digits
    model = LocalRegretTreeClassifier(random_state=0)
    vote = LocalRegretTreeClassifier(random_state=0, prediction="vote")
    wrong = {"hedge": 0, "vote": 0}
    for i in range(len(y)):
        if i:
            wrong["hedge"] += int(model.predict(X[i : i + 1])[0] != y[i])
            wrong["vote"] += int(vote.predict(X[i : i + 1])[0] != y[i])
        model.partial_fit(X[i : i + 1], y[i : i + 1], classes=np.arange(10))
        vote.partial_fit(X[i : i + 1], y[i : i + 1], classes=np.arange(10))
    assert model.model_weight_ > 0.99
    assert wrong["hedge"] < wrong["vote"] - 0.02 * len(y)
    hedge = model._hedge
    assert hedge.hedge_loss <= hedge.losses.min() + model.hedge_regret_bound_ + 1e-9
    # The realised mistakes stay near the expected ones (Azuma-Hoeffding,
    # one row a round, false alarm 1e-9).
    slack = math.sqrt(2 * len(y) * math.log(1e9))
    assert wrong["hedge"] <= hedge.hedge_loss + PLAY_HANDICAP + slack
    # At this weight predict gives the root model's class on (nearly) every row.
    labels = model.classes_[model._root_model_labels(model._tests.outcomes(X))]
    assert np.mean(model.predict(X) == labels) > 0.98


def test_trees_without_site_models_and_forest_members_keep_two_experts(digits):
    X, y = digits
    labels = LocalRegretTreeClassifier(
        random_state=0, leaf_model=None, leaf_prediction="label"
    ).fit(X[:200], y[:200])
    assert labels._hedge.n_experts == 2 and labels.model_weight_ == 0.0
    vote = LocalRegretTreeClassifier(random_state=0, prediction="vote")
    assert vote.fit(X[:200], y[:200])._hedge.n_experts == 2
    forest = LocalRegretForestClassifier(n_estimators=2, random_state=0)
    forest.fit(X[:200], y[:200])
    assert {m._hedge.n_experts for m in forest.estimators_} == {2}


def test_a_model_saved_with_two_experts_predicts_and_learns_as_before(digits):
    X, y = digits
    model = LocalRegretTreeClassifier(random_state=0).fit(X[:300], y[:300])
    # A model saved before the expert: a two-expert hedge.
    old = pickle.loads(pickle.dumps(model))
    old._hedge = AdaHedge((0.0, PLAY_HANDICAP))
    old._hedge.update((3.0, 20.0))  # the vote leads
    assert old.model_weight_ == 0.0
    np.testing.assert_array_equal(
        old.predict(X[300:400]),
        old.classes_[np.argmax(old.predict_proba(X[300:400]), axis=1)],
    )
    old.partial_fit(X[300:310], y[300:310])
    assert old._hedge.n_experts == 2
    with pytest.raises(ValueError, match="different experts"):
        model.merge(old)


def test_merged_hedges_add_the_root_models_losses(digits):
    X, y = digits
    a = LocalRegretTreeClassifier(random_state=0, binarize=7.5)  # same tests
    a.fit(X[:300], y[:300])
    b = LocalRegretTreeClassifier(random_state=1, binarize=7.5)
    b.fit(X[300:600], y[300:600])
    assert a._hedge.n_experts == 3
    expected = a._hedge.losses + b._hedge.losses - [0.0, PLAY_HANDICAP, PLAY_HANDICAP]
    np.testing.assert_allclose(a.merge(b)._hedge.losses, expected)


@pytest.mark.parametrize("weights", [(0.2, 0.0), (0.0, 0.7), (0.3, 0.3), (0.4, 0.6)])
def test_one_row_takes_the_same_class_as_in_a_block(weights):
    rng = np.random.default_rng(3)
    proba = rng.dirichlet(np.ones(4), size=2000)
    uniforms = rng.random(2000)
    model = rng.integers(0, 4, 2000)
    block = hedged_classes(proba, weights[0], uniforms, model, weights[1])
    one = [
        hedged_classes(proba[i : i + 1], weights[0], uniforms[i : i + 1],
                       model[i : i + 1], weights[1])[0]
        for i in range(2000)
    ]  # fmt: skip
    np.testing.assert_array_equal(block, one)
