"""The leaderboard's wrappers and stream descriptions check what they are given.

A probe found a retrained tree learning a reused buffer's last chunk twenty
times, River wrappers truncating mismatched rows and labels, refused calls
that had already changed a scaler or a stored chunk, and stream
descriptions that contradicted themselves.
"""

import pickle

import numpy as np
import pytest
from sklearn.linear_model import SGDClassifier
from sklearn.tree import DecisionTreeClassifier

from sklearn_localregret.datasets import Stream, make_stream
from sklearn_localregret.experiments.stream_learners import (
    Learner,
    RetrainedClassifier,
    RiverClassifier,
    StandardizedClassifier,
)
from sklearn_localregret.experiments.streams import plan_streams


def test_the_retrained_tree_keeps_copies_of_the_rows():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 2)), rng.integers(0, 2, 200)
    buffer_X, buffer_y = np.empty((10, 2)), np.empty(10, int)
    model = RetrainedClassifier(DecisionTreeClassifier(random_state=0), refit_every=50)
    for start in range(0, 200, 10):
        buffer_X[:], buffer_y[:] = X[start : start + 10], y[start : start + 10]
        model.partial_fit(buffer_X, buffer_y)
    np.testing.assert_array_equal(np.vstack(model._X), X)


def test_a_refused_chunk_changes_no_wrapper():
    X, y = np.random.default_rng(0).normal(size=(20, 3)), np.array([0, 1] * 10)
    retrained = RetrainedClassifier(DecisionTreeClassifier(random_state=0))
    retrained.partial_fit(X[:10], y[:10])
    before = pickle.dumps(retrained)
    for bad_X, bad_y in ((X[10:], y[10:15]), (X[10:, :2], y[10:])):
        with pytest.raises(ValueError):
            retrained.partial_fit(bad_X, bad_y)
    assert pickle.dumps(retrained) == before
    with pytest.raises(ValueError, match="refit_every"):
        RetrainedClassifier(DecisionTreeClassifier(), refit_every="10").partial_fit(
            X, y
        )
    scaled = StandardizedClassifier(SGDClassifier(random_state=0))
    scaled.partial_fit(X[:10], y[:10], classes=[0, 1])
    before = pickle.dumps(scaled)
    with pytest.raises(ValueError):
        scaled.partial_fit(X[10:] * 100, y[10:] + 5)  # labels outside classes
    assert pickle.dumps(scaled) == before
    fresh = StandardizedClassifier(SGDClassifier(random_state=0))
    with pytest.raises(ValueError):
        fresh.partial_fit(X[:10], y[:10])  # no classes= at the first call
    assert not hasattr(fresh, "scaler_")


def test_a_river_wrapper_refuses_rows_and_labels_of_other_lengths():
    class Recorder:
        def __init__(self):
            self.learnt = 0

        def learn_one(self, x, y):
            self.learnt += 1

    model = RiverClassifier(Recorder())
    with pytest.raises(ValueError, match="10 rows and 3 labels"):
        model.partial_fit(np.zeros((10, 2)), [0, 1, 0])
    assert model.model.learnt == 0


def test_learners_and_plans_check_their_arguments():
    for rows in (-5, 2.5, True):
        with pytest.raises(ValueError, match="max_rows"):
            Learner(lambda seed: SGDClassifier(), max_rows=rows)
    sgd = Learner(lambda seed: SGDClassifier(random_state=seed))
    with pytest.raises(TypeError, match="a Learner needs a name"):
        plan_streams(streams=["inverted"], learners=sgd, n_rows=100, n_seeds=2)
    plan = plan_streams(
        streams=iter(["inverted", "sea"]),
        learners=[("mine", sgd)],
        n_rows=100,
        n_seeds=2,
    )
    assert plan is not None
    for seed in (-1, 2**32):
        with pytest.raises(ValueError, match="seed must be in"):
            plan_streams(streams=["inverted"], learners=["sgd"], n_rows=100, seed=seed)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(drift_points=2), TypeError),
        (dict(drift_points=(2, 2)), ValueError),
        (dict(drift_width=True, drift_points=(2,)), ValueError),
        (dict(drift="incremental", drift_points=(2,)), ValueError),
        (dict(drift="gradual"), ValueError),
        (dict(drift="abrupt", drift_points=(2,), drift_width=3), ValueError),
        (dict(feature_names="ab"), TypeError),
    ],
)
def test_a_stream_description_that_contradicts_itself_is_refused(kwargs, error):
    X, y = np.zeros((6, 2)), np.array([0, 1] * 3)
    with pytest.raises(error):
        Stream("s", X, y, **kwargs)


def test_a_stream_refuses_missing_labels_and_infinities_and_copies_its_rows():
    X, y = np.zeros((6, 1)), np.array([0, 1] * 3, dtype=float)
    for bad_y in (np.array([0, 1, None, 1, 0, 1], dtype=object), np.r_[y[:5], np.nan]):
        with pytest.raises(ValueError, match="missing label"):
            Stream("s", X, bad_y)
    with pytest.raises(ValueError, match="infinity"):
        Stream("s", np.r_[X[:5], [[np.inf]]], y)
    stream = Stream("s", X, y)
    X[0, 0] = 9.0
    assert stream.X[0, 0] == 0.0
    with pytest.raises(TypeError, match="sequence of rows"):
        make_stream((np.zeros((6, 1)), y), drift_points=2)
