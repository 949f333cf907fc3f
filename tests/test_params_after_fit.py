"""set_params on a fitted model: what the first call built cannot change
under it, so partial_fit says so; fit starts over with the new values."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sklearn_localregret import (
    LocalRegretDisjunctClassifier,
    LocalRegretForestClassifier,
    LocalRegretTreeClassifier,
)


def _data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 4)).astype(float)
    return X, (X[:, 0].astype(int) | X[:, 1].astype(int))


@pytest.mark.parametrize(
    "make, built, free",
    [
        (
            lambda: LocalRegretTreeClassifier(random_state=0),
            {"regret": "swap", "discount": 0.5, "max_thresholds": 3},
            {"batch_size": 3},
        ),
        (
            lambda: LocalRegretForestClassifier(n_estimators=2, random_state=0),
            {"n_estimators": 3, "discount": 0.9},
            {"batch_size": 5},
        ),
        (
            lambda: LocalRegretDisjunctClassifier(random_state=0),
            {"regret": "swap", "discount": 0.9},
            {"batch_size": 2},
        ),
    ],
    ids=["tree", "forest", "disjunct"],
)
def test_a_built_parameter_changed_after_fit_is_refused(make, built, free):
    X, y = _data()
    model = make().fit(X, y)
    model.set_params(**free).partial_fit(X[:10], y[:10])  # read call by call
    for name, value in built.items():
        fitted_value = model.get_params()[name]
        model.set_params(**{name: value})
        before = pickle.dumps(model)
        with pytest.raises(ValueError, match=f"{name}=.* was set after this model"):
            model.partial_fit(X[:10], y[:10])
        assert pickle.dumps(model) == before  # the model as it was
        model.set_params(**{name: fitted_value})  # set back: learning goes on
        model.partial_fit(X[:10], y[:10])
    model.set_params(**built).fit(X, y)  # fit starts over with them
    model.partial_fit(X[:10], y[:10])
    assert model.n_samples_seen_ == len(y) + 10
