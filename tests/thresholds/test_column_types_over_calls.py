"""A column's type over a stream of calls: wide models, reordered frames,
frames' columns with no value yet."""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._tree.wide_input import WIDE_COLUMNS

pd = pytest.importorskip("pandas")

LEARNERS = [
    lambda: LocalRegretTreeClassifier(random_state=0),
    lambda: LocalRegretForestClassifier(n_estimators=2, random_state=0),
]


@pytest.mark.parametrize("make", LEARNERS)
def test_a_wide_model_refuses_categories_in_a_column_untyped_so_far(make):
    """A wide model reads numbers only: a column with no value at the first
    call that later holds strings is refused, the model unchanged (it used
    to crash in learning, and every later call with it)."""
    n, width = 20, WIDE_COLUMNS + 2
    rng = np.random.default_rng(0)
    X = np.zeros((n, width), dtype=object)
    X[:] = 0.0
    X[:, 0] = None
    X[:, 1] = rng.choice([0.0, 1.0], n)
    y = (X[:, 1] == 1).astype(int)
    model = make().partial_fit(X, y, classes=[0, 1])
    before = pickle.dumps(model)
    strings = X.copy()
    strings[:, 0] = rng.choice(["a", "b"], n)
    with pytest.raises(ValueError, match="column 0 holds categories.*numbers only"):
        model.partial_fit(strings, y)
    assert pickle.dumps(model) == before
    model.partial_fit(X, y)  # and it still learns


@pytest.mark.parametrize("make", LEARNERS)
def test_reordered_frame_columns_get_scikit_learns_message(make):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(["p", "q"], 60), "x": rng.normal(size=60)})
    y = (frame.a == "p").to_numpy().astype(int)
    model = make().fit(frame, y)
    before = pickle.dumps(model)
    reordered = frame[["x", "a"]]
    for call in (
        lambda: model.partial_fit(reordered, y),
        lambda: model.predict(reordered),
    ):
        with pytest.raises(ValueError, match="same order as they were in fit"):
            call()
    assert pickle.dumps(model) == before


@pytest.mark.parametrize(
    "other", [np.arange(20.0), np.array(["p", "q"] * 10, dtype=object)]
)
def test_a_frames_nan_only_column_stays_untyped_whatever_the_others(other):
    """pandas reads a text column with no value yet as floats: it is typed
    by its first values, with numeric columns beside it or text ones."""
    y = np.array([0, 1] * 10)
    first = pd.DataFrame({"o": other, "x": np.full(20, np.nan)})
    model = LocalRegretTreeClassifier(random_state=0).partial_fit(
        first, y, classes=[0, 1]
    )
    model.partial_fit(
        pd.DataFrame({"o": other, "x": np.array(["u", "v"] * 10, dtype=object)}), y
    )
    assert model.categories_[1] == ["u", "v"]
