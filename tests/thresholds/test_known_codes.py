"""The streaming path of raw categories and its cache of the last rows coded."""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.thresholds import ColumnEncoder
from sklearn_localregret.thresholds.known_codes import CACHED_ROWS, known_codes


def _fitted_encoder():
    rows = np.array([["red", "s"], ["blue", "m"], ["green", "l"]], dtype=object)
    _, encoder = ColumnEncoder().encode(rows, learning=True)
    return encoder


def _general_codes(encoder, rows):
    """What the general path codes (no streaming shortcut)."""
    codes, same = encoder.encode(rows, learning=False)
    assert same is encoder
    return codes


def test_rows_changed_in_place_are_coded_again():
    encoder = _fitted_encoder()
    rows = np.array([["red", "m"], ["blue", "s"]], dtype=object)
    first = known_codes(encoder, rows)
    rows[0, 0] = "green"  # the same array, a new value: not the cached codes
    again = known_codes(encoder, rows)
    assert again.tolist() == [[2.0, 1.0], [1.0, 0.0]]
    assert first.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    np.testing.assert_array_equal(again, _general_codes(encoder, rows))


def test_cached_codes_are_a_copy_and_equal_values_share_them():
    encoder = _fitted_encoder()
    rows = np.array([["red", "m"]], dtype=object)
    codes = known_codes(encoder, rows)
    codes[0, 0] = 99.0  # the caller's array: the cache keeps its own
    # Equal values that are other objects (and numpy's str) take the codes.
    equal = np.array([["".join(["r", "ed"]), np.str_("m")]], dtype=object)
    assert known_codes(encoder, equal).tolist() == [[0.0, 1.0]]


def test_unknown_and_unhashable_values_after_a_cached_call():
    pd = pytest.importorskip("pandas")
    encoder = _fitted_encoder()
    rows = np.array([["red", "m"]], dtype=object)
    known_codes(encoder, rows)
    assert known_codes(encoder, np.array([["pink", "m"]], dtype=object)) is None
    for odd in (pd.NA, np.array([1, 2]), None, float("nan")):
        cells = np.empty((1, 2), dtype=object)
        cells[0, 0], cells[0, 1] = odd, "m"
        assert known_codes(encoder, cells) is None


def test_large_calls_are_not_kept_and_the_cache_is_not_saved():
    encoder = _fitted_encoder()
    big = np.array([["red", "m"]] * (CACHED_ROWS + 1), dtype=object)
    assert known_codes(encoder, big).shape == (CACHED_ROWS + 1, 2)
    assert "_last_codes" not in encoder.__dict__
    known_codes(encoder, big[:CACHED_ROWS])
    assert "_last_codes" in encoder.__dict__
    assert "_last_codes" not in pickle.loads(pickle.dumps(encoder)).__dict__


def test_a_stream_learns_as_with_no_cache():
    """Predicting each call's rows before learning them (the cache's case)
    gives the model that learning alone gives, bit for bit."""
    rng = np.random.default_rng(0)
    values = np.array(["a", "b", "c", "d"], dtype=object)
    X = values[rng.integers(0, 4, size=(300, 3))]
    y = ((X[:, 0] == "a") | (X[:, 1] == "b")).astype(int)
    plain = LocalRegretTreeClassifier(random_state=0)
    streamed = LocalRegretTreeClassifier(random_state=0)
    predictions = []
    for start in range(0, 300, 5):
        rows, labels = X[start : start + 5], y[start : start + 5]
        plain.partial_fit(rows.copy(), labels, classes=[0, 1])
        if start:
            predictions.append(streamed.predict(rows))
        streamed.partial_fit(rows, labels, classes=[0, 1])
    np.testing.assert_array_equal(plain.predict_proba(X), streamed.predict_proba(X))
    assert streamed.online_error_ == plain.online_error_
    # And the predictions read the rows: above what the majority label
    # (0, P = 9/16 on uniform values) scores, by 3 standard errors of 295 rows.
    majority = 9 / 16
    floor = majority + 3 * np.sqrt(majority * (1 - majority) / 295)
    assert np.mean(np.concatenate(predictions) == y[5:]) > floor
