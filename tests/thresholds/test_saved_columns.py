"""A column encoder's per-column lists saved as arrays come back equal."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.thresholds import ColumnEncoder
from sklearn_localregret.thresholds.saved_columns import (
    loaded_categories,
    loaded_number_flags,
    saved_categories,
)


def test_an_encoder_round_trips_with_its_categories_and_flags():
    X = np.array([[1.0, "a", 3], [2.0, "b", None], [np.nan, None, 4]], dtype=object)
    encoder = ColumnEncoder().encode(X, learning=True)[1]
    state = encoder.__getstate__()
    assert isinstance(state["categories"], dict) and state["numbers"].dtype == np.int8
    copy = pickle.loads(pickle.dumps(encoder))
    assert copy.categories == encoder.categories
    assert copy.numbers == encoder.numbers
    np.testing.assert_array_equal(  # (NaN where missing, in both)
        copy.encode(X, learning=False)[0], encoder.encode(X, learning=False)[0]
    )
    old = dict(state, categories=encoder.categories, numbers=encoder.numbers)
    before = ColumnEncoder.__new__(ColumnEncoder)  # a state saved before
    before.__setstate__(old)
    assert before.categories == encoder.categories


def test_damaged_saved_lists_are_a_clear_error():
    saved = saved_categories([None, ["a"], None])
    with pytest.raises(ValueError, match="damaged column encoder"):
        loaded_categories({**saved, "at": np.array([5])}, 3)
    with pytest.raises(ValueError, match="damaged column encoder"):
        loaded_categories({**saved, "at": np.array([1, 1])}, 3)
    with pytest.raises(ValueError, match="damaged column encoder"):
        loaded_number_flags(np.array([0, 2, -1], dtype=np.int8), 3)
    with pytest.raises(ValueError, match="damaged column encoder"):
        loaded_number_flags(np.array([0, 1], dtype=np.int8), 3)
