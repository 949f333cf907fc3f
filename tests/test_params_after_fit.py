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
            {"regret": "swap", "discount": 0.5, "max_thresholds": 3, "max_depth": 1}
            | {"L": 5, "n_mcmc_steps": 10},
            {"batch_size": 3, "predict_tolerance": 0.1},
        ),
        (
            lambda: LocalRegretForestClassifier(n_estimators=2, random_state=0),
            {"n_estimators": 3, "discount": 0.9, "max_depth": 1, "L": 5}
            | {"leaf_prediction": "label", "predict_tolerance": 0.1}
            | {"batch_size": 5},
            {"lambda_value": 3.0, "drift_detector": None},
        ),
        (
            lambda: LocalRegretDisjunctClassifier(random_state=0),
            {"regret": "swap", "discount": 0.9, "L": 5, "n_mcmc_steps": 10},
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


@pytest.mark.parametrize("save", ["pickle", "skops"])
def test_a_saved_model_remembers_what_it_was_built_from(save, tmp_path):
    # The parameters built from were not saved: a loaded model learnt on
    # with its old tables under a parameter changed before or after saving.
    X, y = _data()
    model = LocalRegretTreeClassifier(random_state=0).fit(X, y)

    def saved(model):
        if save == "pickle":
            return pickle.loads(pickle.dumps(model))
        pytest.importorskip("skops")
        from sklearn_localregret.persistence import dump, load

        dump(model, tmp_path / "model.skops")
        return load(tmp_path / "model.skops")

    changed = saved(model.set_params(discount=0.5))  # changed, then saved
    with pytest.raises(ValueError, match="discount=0.5 was set after"):
        changed.partial_fit(X[:10], y[:10])
    loaded = saved(model.set_params(discount=0.99))  # saved, then changed
    loaded.set_params(regret="swap")
    with pytest.raises(ValueError, match="regret='swap' was set after"):
        loaded.partial_fit(X[:10], y[:10])
    # Saved before the parameters were: those it was saved with.
    state = model.__getstate__()
    state.pop("_built_with")
    old = LocalRegretTreeClassifier.__new__(LocalRegretTreeClassifier)
    old.__setstate__(state)
    old.set_params(max_depth=1)
    with pytest.raises(ValueError, match="max_depth=1 was set after"):
        old.partial_fit(X[:10], y[:10])


def test_a_forest_predicts_with_its_members_whatever_n_estimators_says():
    # predict mapped over range(n_estimators): IndexError for fewer or more,
    # and for two of three members the experts misread their weights.
    X, y = _data()
    forest = LocalRegretForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    expected = forest.predict_proba(X)
    for count in (1, 2, 5):
        forest.set_params(n_estimators=count)
        np.testing.assert_array_equal(forest.predict_proba(X), expected)
    loaded = pickle.loads(pickle.dumps(forest))  # (said "a forged file?")
    with pytest.raises(ValueError, match="n_estimators=5 was set after"):
        loaded.partial_fit(X[:10], y[:10])


def test_a_parameter_set_after_fit_is_validated_at_the_next_call():
    # A fitted partial_fit validates no parameter: an unknown drift detector
    # raised a KeyError at the first drift, after a member was replaced.
    X, y = _data()
    forest = LocalRegretForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    forest.set_params(drift_detector="ddm")
    before = pickle.dumps(forest)
    with pytest.raises(ValueError, match="'drift_detector' parameter"):
        forest.partial_fit(X[:10], y[:10])
    assert pickle.dumps(forest) == before
    forest.set_params(drift_detector="adwin").partial_fit(X[:10], y[:10])
    tree = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    tree.set_params(predict_tolerance=-1.0)
    with pytest.raises(ValueError, match="'predict_tolerance' parameter"):
        tree.partial_fit(X[:10], y[:10])


def test_the_same_value_of_another_type_is_no_change():
    X, y = _data()
    tree = LocalRegretTreeClassifier(random_state=0, L=3).fit(X, y)
    tree.set_params(L=np.int64(3), discount=np.float64(0.99))
    tree.partial_fit(X[:10], y[:10])  # (refused: repr differs)


@pytest.mark.parametrize(
    "make",
    [
        LocalRegretTreeClassifier,
        LocalRegretForestClassifier,
        LocalRegretDisjunctClassifier,
    ],
    ids=["tree", "forest", "disjunct"],
)
def test_random_state_may_be_a_generator(make):
    # The docstrings say so; the parameter's constraint refused one.
    X, y = _data()
    a = make(random_state=np.random.default_rng(3)).fit(X, y)
    b = make(random_state=np.random.default_rng(3)).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_a_setting_spelled_otherwise_is_the_same_setting():
    # (0.9, 1.0) then [0.9, 1.0] or its array was refused as a change; a
    # list changed in place after fit went unnoticed.
    X, y = np.eye(4), [0, 1, 0, 1]
    discounts = [0.9, 1.0]
    model = LocalRegretTreeClassifier(discount=discounts, random_state=0).fit(X, y)
    for same in ((0.9, 1.0), np.array([0.9, 1.0])):
        model.set_params(discount=same)
        model.partial_fit(X, y)
    model.set_params(discount=discounts)
    discounts[0] = 0.5  # in place: the model still learns at 0.9
    with pytest.raises(ValueError, match="was set after this model was fitted"):
        model.partial_fit(X, y)


def test_leaf_prediction_may_become_label_but_not_adaptive():
    """Adaptive reads need the sites' scores kept from the first round: a
    label model set to "adaptive" is refused (it read labels silently);
    an adaptive model may read labels, and then adaptively again."""
    X, y = _data()
    labels = LocalRegretTreeClassifier(leaf_prediction="label", random_state=0).fit(
        X, y
    )
    labels.set_params(leaf_prediction="adaptive")
    before = pickle.dumps(labels)
    with pytest.raises(ValueError, match="leaf_prediction='adaptive' was set after"):
        labels.partial_fit(X[:10], y[:10])
    assert pickle.dumps(labels) == before
    adaptive = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    adaptive.set_params(leaf_prediction="label").partial_fit(X[:10], y[:10])
    adaptive.set_params(leaf_prediction="adaptive").partial_fit(X[:10], y[:10])
    assert adaptive.n_samples_seen_ == len(y) + 20


def test_a_model_saved_before_a_parameter_was_built_from_goes_on_after_set_params():
    """A tree saved before leaf_prediction joined _BUILT_FROM had no record of
    it: any set_params, then partial_fit, raised KeyError."""
    X, y = _data()
    model = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    model.set_params(batch_size=5)  # records what the model was built with
    del model.__dict__["_built_with"]["leaf_prediction"]  # as saved before
    restored = pickle.loads(pickle.dumps(model))
    restored.set_params(predict_tolerance=0.01).partial_fit(X[:10], y[:10])
    restored.set_params(leaf_prediction="label").partial_fit(X[:10], y[:10])
    assert restored.n_samples_seen_ == len(y) + 20
