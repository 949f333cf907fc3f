"""Interop with River: our learners wrapped by ``river.compat``."""

import numpy as np
import pytest

river = pytest.importorskip("river")

from river import compat, evaluate, metrics, stream  # noqa: E402

from sklearn_localregret import (  # noqa: E402
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
)

N_FEATURES = 10
PLANTED = [0, 3, 7]  # y = x0 or x3 or x7


def _planted_disjunction(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    # P(feature on) = 0.2 so that both labels are common (P(y=1) ~ 0.49).
    X = (rng.random((n_rows, N_FEATURES)) < 0.2).astype(np.uint8)
    y = X[:, PLANTED].any(axis=1).astype(int)
    return X, y


def _make(kind, seed=0):
    if kind == "disjunct":
        return LocalRegretDisjunctClassifier(batch_size=1, random_state=seed)
    return LocalRegretTreeClassifier(
        batch_size=1, max_depth=3, n_predict_trees=20, random_state=seed
    )


@pytest.mark.parametrize("kind", ["disjunct", "tree"])
def test_progressive_val_score_beats_majority(kind):
    X, y = _planted_disjunction(300)
    model = compat.convert_sklearn_to_river(_make(kind), classes=[0, 1])
    dataset = stream.iter_array(X, y, feature_names=list(range(N_FEATURES)))
    metric = evaluate.progressive_val_score(dataset, model, metrics.Accuracy())
    majority = max(y.mean(), 1 - y.mean())
    assert metric.get() > majority + 0.1, (metric, majority)


@pytest.mark.parametrize("kind", ["disjunct", "tree"])
def test_learn_one_equals_bulk_partial_fit(kind):
    X, y = _planted_disjunction(260, seed=1)
    X_train, y_train, X_test = X[:200], y[:200], X[200:]
    names = list(range(N_FEATURES))

    river_model = compat.convert_sklearn_to_river(_make(kind), classes=[0, 1])
    for x, label in stream.iter_array(X_train, y_train, feature_names=names):
        river_model.learn_one(x, label)

    bulk = _make(kind).partial_fit(X_train, y_train, classes=[0, 1])

    online = river_model.estimator
    np.testing.assert_array_equal(online.classes_, bulk.classes_)
    np.testing.assert_allclose(online.predict_proba(X_test), bulk.predict_proba(X_test))
    # River's per-row probabilities are those of the wrapped estimator.
    x0 = dict(zip(names, X_test[0]))
    proba = river_model.predict_proba_one(x0)
    np.testing.assert_allclose([proba[0], proba[1]], bulk.predict_proba(X_test[:1])[0])
