"""The forest's root models, experts of its combination after its members."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from test_root_model_expert import progressive_error

from sklearn_localregret import LocalRegretForestClassifier
from sklearn_localregret._hedge import PLAY_HANDICAP, AdaHedge
from sklearn_localregret.datasets import load_stream


def test_the_root_models_are_scored_before_they_learn_each_round():
    stream = load_stream("sea", n_rows=400, seed=0)
    forest = LocalRegretForestClassifier(n_estimators=3, random_state=0)
    forest.partial_fit(stream.X[:200], stream.y[:200], classes=stream.classes)
    assert forest._hedge.n_experts == 1 + 3 + 2
    assert forest.combination_weights_.shape == (6,)
    X, y = stream.X[200:205], stream.y[200:205]
    posteriors = forest._root_posteriors(X)
    expected = [float((np.argmax(p, axis=1) != y).sum()) for p in posteriors]
    before = forest._hedge.losses
    count = forest._root_linear.count.sum()
    forest.partial_fit(X, y)
    np.testing.assert_array_equal(forest._hedge.losses[4:] - before[4:], expected)
    assert forest._root_linear.count.sum() == count + 5 * X.shape[1]


def test_the_linear_root_model_leads_after_abrupt_drifts():
    # STAGGER: the forest's members regrow their splits after each drift;
    # its root linear model is right again within a few rows (measured,
    # seed 0: 0.023 without the root models, 0.013 with them).
    stream = load_stream("stagger", n_rows=3000, seed=0)
    errors = {}
    for roots in (True, False):
        forest = LocalRegretForestClassifier(n_estimators=5, random_state=0)
        forest._root_model_expert = roots
        errors[roots] = progressive_error(forest, stream, 3000)
        if roots:
            assert forest.combination_weights_[-1] > 0.5
    assert errors[True] < errors[False] - 0.005


def test_predict_proba_mixes_the_root_models_posteriors():
    stream = load_stream("sea", n_rows=600, seed=0)
    forest = LocalRegretForestClassifier(n_estimators=3, random_state=0)
    progressive_error(forest, stream, 600)
    X = stream.X[:50]
    weights = forest.combination_weights_
    probas = np.stack([m.predict_proba(X) for m in forest.estimators_])
    members = weights[1:4] + weights[0] / 3
    expected = np.tensordot(members, probas, axes=1)
    for weight, posterior in zip(weights[4:], forest._root_posteriors(X)):
        expected += weight * posterior
    np.testing.assert_allclose(forest.predict_proba(X), expected, atol=1e-12)
    np.testing.assert_allclose(forest.predict_proba(X).sum(axis=1), 1.0)


def test_a_forest_saved_before_the_root_models_predicts_and_learns():
    stream = load_stream("sea", n_rows=300, seed=0)
    forest = LocalRegretForestClassifier(n_estimators=3, random_state=0)
    forest.fit(stream.X[:200], stream.y[:200])
    old = pickle.loads(pickle.dumps(forest))
    del old._root_gaussian, old._root_linear
    old._hedge = AdaHedge([0.0] + [PLAY_HANDICAP] * 3)
    assert old.predict_proba(stream.X[200:]).shape == (100, 2)
    old.partial_fit(stream.X[200:], stream.y[200:])
    assert old._hedge.n_experts == 4
    with pytest.raises(ValueError, match="experts"):
        forest.merge(old)


def test_merged_forests_add_their_root_models():
    stream = load_stream("sea", n_rows=600, seed=0)
    a = LocalRegretForestClassifier(n_estimators=2, random_state=0, binarize=5.0)
    b = LocalRegretForestClassifier(n_estimators=2, random_state=0, binarize=5.0)
    a.fit(stream.X[:300], stream.y[:300])
    b.fit(stream.X[300:], stream.y[300:])
    # The members start with the handicap, the vote and the root models at
    # 0: counted once.
    initial = np.array([0.0, PLAY_HANDICAP, PLAY_HANDICAP, 0.0, 0.0])
    np.testing.assert_array_equal(b._hedge.initial_losses(), initial)
    losses = a._hedge.losses + b._hedge.losses - initial
    coef = a._root_linear.coef + b._root_linear.coef
    total = a._root_gaussian.total + b._root_gaussian.total
    a.merge(b)
    np.testing.assert_allclose(a._hedge.losses, losses)
    np.testing.assert_allclose(a._root_linear.coef, coef)
    np.testing.assert_allclose(a._root_gaussian.total, total)
