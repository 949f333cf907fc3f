"""The fast paths of partial_fit and predict: same answers, same errors.

A streaming call with a plain numeric ndarray and known labels (one row, or a
chunk whose labels are a string or numeric ndarray) skips
scikit-learn's validation (``BaseOnlineClassifier._clean_rows``). Every test
here runs the same call twice, once as the estimator takes it and once with
the fast paths switched off (the full validation), and compares what comes
out: the error type and message for bad input, the pickled model otherwise.
"""

import pickle
from contextlib import contextmanager
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_common import (
    BAD_CALLS,
    ESTIMATOR_IDS,
    N_FEATURES,
    NOT_BINARY_CALLS,
    X_OK,
    binary_stream,
    fitted,
    make_estimator,
    scores,
)

from sklearn_localregret._base import BaseOnlineClassifier, stream_validation


@pytest.fixture
def full_path(monkeypatch):
    """A context that switches every fast path off: the full validation."""

    def switch_off():
        monkeypatch.setattr(
            BaseOnlineClassifier, "_clean_rows", lambda self, *args: None
        )
        monkeypatch.setattr(
            BaseOnlineClassifier, "_is_clean_row", lambda self, X: False
        )
        monkeypatch.setattr(
            BaseOnlineClassifier, "_is_plain_rows", lambda self, X: False
        )
        monkeypatch.setattr(
            stream_validation, "is_plain_stream_chunk", lambda X, y: False
        )

    return switch_off


@contextmanager
def validation_refused(monkeypatch):
    """A context in which scikit-learn's validate_data fails loudly: calls
    that take a fast path never reach it."""

    def refuse(*args, **kwargs):
        raise AssertionError("validate_data called")

    with monkeypatch.context() as patch:
        patch.setattr(stream_validation, "validate_data", refuse)
        yield


@cache
def _fitted_bytes(name):
    return pickle.dumps(fitted(name))


def fitted_copy(name):
    """A fresh copy of ``test_common.fitted(name)`` (fitted once per name)."""
    return pickle.loads(_fitted_bytes(name))


def outcome(est, method, **kwargs):
    """What a call does: its error (type and message) or None, and the model."""
    try:
        result = getattr(est, method)(**kwargs)
    except (ValueError, TypeError) as exc:
        return (type(exc), str(exc)), pickle.dumps(est), None
    if method == "partial_fit":
        result = None
    return None, pickle.dumps(est), result


def compare_paths(name, method, kwargs, full_path, monkeypatch):
    """Run ``method(**kwargs)`` on the same fitted model with and without the
    fast paths; return both outcomes."""
    fast = outcome(fitted_copy(name), method, **kwargs)
    with monkeypatch.context():
        full_path()
        full = outcome(fitted_copy(name), method, **kwargs)
    return fast, full


# -- bad input: the same error whichever path, nothing changed ---------------

# The row of X_OK that carries each bad call's problem (the first otherwise).
_BAD_ROW = {
    "unseen_label": 2,
    "unseen_label_with_classes": 2,
    "none_label": 1,
    "mixed_type_labels": 1,
    "negative_weight": 1,
    "nan_weight": 1,
    "inf_weight": 1,
}


def one_row(case_id, kwargs):
    """The one-row version of a bad call of test_common.BAD_CALLS.

    Arrays as long as X_OK keep the bad row; one that is shorter or longer
    than X stays shorter or longer than one row (2 -> 0, 4 -> 2 items).
    """
    k = _BAD_ROW.get(case_id, 0)
    out = {}
    for key, value in kwargs.items():
        if key == "classes" or len(value) == 0:
            out[key] = value
        elif len(value) == len(X_OK):
            out[key] = value[k : k + 1]
        else:
            out[key] = value[: len(value) - 2]
    return out


_BAD_CASES = [(name, case) for name in ESTIMATOR_IDS for case in BAD_CALLS] + [
    (name, case)
    for name in ["disjunct-external", "disjunct-swap", "winnow2"]
    for case in NOT_BINARY_CALLS
]


@pytest.mark.parametrize("rows", ["one-row", "multi-row"])
@pytest.mark.parametrize(
    "name, case_id, kwargs, error, match",
    [(name, *case) for name, case in _BAD_CASES],
    ids=[f"{case[0]}-{name}" for name, case in _BAD_CASES],
)
def test_bad_partial_fit_same_error_on_both_paths(
    name, case_id, kwargs, error, match, rows, full_path, monkeypatch
):
    if case_id == "nan" and name.startswith(("tree", "forest")):
        pytest.skip("NaN is a missing value for the tree learner and the forest")
    if rows == "one-row":
        kwargs = one_row(case_id, kwargs)
    before = pickle.dumps(fitted_copy(name))
    fast, full = compare_paths(name, "partial_fit", kwargs, full_path, monkeypatch)
    assert full[0] is not None and full[0][0] is error, full[0]
    assert fast[0] == full[0]
    assert fast[1] == full[1] == before


# Labels next to the known ones (searchsorted lands on a class they are not),
# and equal ones of other types, in each container a one-row call may use.
_NEAR_LABELS = [-1, 0.5, 1.5, np.nan, "1", b"1", None, True, 1.0, np.int8(1)]


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@pytest.mark.parametrize("label", _NEAR_LABELS, ids=repr)
@pytest.mark.parametrize("container", ["object", "list"])
def test_one_row_label_near_misses_same_outcome(
    name, label, container, full_path, monkeypatch
):
    y = [label]
    if container == "object":
        y = np.empty(1, dtype=object)
        y[0] = label
    fast, full = compare_paths(
        name, "partial_fit", {"X": X_OK[:1], "y": y}, full_path, monkeypatch
    )
    assert fast[:2] == full[:2]


_BAD_PREDICT_ROWS = {  # one bad row, and the learners that accept it
    # NaN is a missing value for the tree learner (tests/test_tree_missing.py)
    # and the forest (tests/test_forest_columns.py)
    "nan": (np.where(X_OK[:1] == 1, np.nan, 0.0), ("tree", "forest")),
    "inf": (np.where(X_OK[:1] == 1, np.inf, 0.0), ()),
    "n_features": (X_OK[:1, :3], ()),
    "dates": (X_OK[:1].astype("datetime64[D]"), ()),
    "not_binary": (2.0 * X_OK[:1], ("tree", "forest")),  # trees read reals
}


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@pytest.mark.parametrize("case", list(_BAD_PREDICT_ROWS))
@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function"])
def test_bad_one_row_predict_same_error_on_both_paths(
    name, case, method, full_path, monkeypatch
):
    if not hasattr(make_estimator(name), method):
        pytest.skip(f"no {method}")
    X, accepted_by = _BAD_PREDICT_ROWS[case]
    fast, full = compare_paths(name, method, {"X": X}, full_path, monkeypatch)
    assert fast[:2] == full[:2]
    if not name.startswith(accepted_by):
        assert full[0] is not None and full[0][0] is ValueError
    else:
        np.testing.assert_array_equal(fast[2], full[2])


# -- good input: the same model whichever path -------------------------------

# Labels as the first call gives them (scikit-learn refuses object arrays of
# numbers there) and as the one-row calls give them.
LABELINGS = {
    "int": (lambda y: y, lambda y: y),
    "bool": (lambda y: y.astype(bool), lambda y: y.astype(bool)),
    "str": (lambda y: np.where(y == 1, "yes", "no"),) * 2,
    "object-str": (
        lambda y: np.where(y == 1, "yes", "no"),
        lambda y: np.where(y == 1, "yes", "no").astype(object),
    ),
    "object-int": (lambda y: y, lambda y: y.astype(object)),
    "list-str": (
        lambda y: np.where(y == 1, "yes", "no"),
        lambda y: np.where(y == 1, "yes", "no").tolist(),
    ),
}


# Every labeling with float rows, every dtype of rows with object labels.
_ROW_CASES = [(labels, np.float64) for labels in LABELINGS] + [
    ("object-str", dtype) for dtype in [np.float32, np.int64, bool]
]


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@pytest.mark.parametrize(
    "labels, dtype",
    _ROW_CASES,
    ids=[f"{labels}-{np.dtype(dtype)}" for labels, dtype in _ROW_CASES],
)
def test_one_row_calls_learn_the_same_model(
    name, labels, dtype, full_path, monkeypatch
):
    X, y = binary_stream(n=24, seed=5)
    X = X.astype(dtype)
    first_labels, row_labels = LABELINGS[labels]
    y_first, y_rows = first_labels(y), row_labels(y)
    classes = np.unique(y_first)

    def stream():
        est = make_estimator(name)
        if name.startswith("tree"):
            est.set_params(n_predict_trees=10)
        est.partial_fit(X[:4], y_first[:4], classes=classes)
        for i in range(4, len(X)):
            est.partial_fit(
                X[i : i + 1], y_rows[i : i + 1], classes=classes if i % 3 == 0 else None
            )
            if i % 4 == 0:
                # Predicting on one row between calls reads the model only.
                scores(est, X[i : i + 1])
        return est

    fast = stream()
    with monkeypatch.context():
        full_path()
        full = stream()
    assert pickle.dumps(fast) == pickle.dumps(full)
    np.testing.assert_array_equal(scores(fast, X), scores(full, X))
    for row in X[:5]:
        row = row.reshape(1, -1)
        np.testing.assert_array_equal(scores(fast, row), scores(full, row))
        np.testing.assert_array_equal(fast.predict(row), full.predict(row))


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_one_row_calls_skip_sklearn_validation(name, monkeypatch):
    """The fast path is taken: it never reaches validate_data."""
    est = fitted(name)
    reference = fitted(name)
    X, y = binary_stream(n=5, seed=6)
    with validation_refused(monkeypatch):
        for i in range(5):
            est.partial_fit(X[i : i + 1], np.array([y[i]], dtype=object))
            scores(est, X[i : i + 1].astype(float))
        with pytest.raises(AssertionError, match="validate_data called"):
            est.partial_fit(X[:2].tolist(), y[:2])  # not an ndarray: full path
    for i in range(5):
        reference.partial_fit(X[i : i + 1], y[i : i + 1])
    assert pickle.dumps(est) == pickle.dumps(reference)


@pytest.mark.parametrize("name", ["disjunct-external", "tree-external"])
def test_fitted_with_feature_names_takes_the_full_path(name):
    """An ndarray row for a model fitted on a DataFrame: sklearn's warning."""
    pd = pytest.importorskip("pandas")
    X, y = binary_stream(n=20, seed=7)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(N_FEATURES)])
    est = make_estimator(name).partial_fit(frame, y, classes=[0, 1])
    with pytest.warns(UserWarning, match="feature names"):
        est.partial_fit(X[:1].astype(float), y[:1])
    with pytest.warns(UserWarning, match="feature names"):
        est.predict(X[:1].astype(float))


# -- anything thrown at a one-row call -----------------------------------------

_LABEL = st.one_of(
    st.sampled_from(
        [
            0,
            1,
            0,
            1,
            2,
            -1,
            0.5,
            1.0,
            True,
            "1",
            None,
            np.nan,
            np.int64(1),
            np.float32(0),
            np.str_("a"),
            1 + 0j,
            (1,),
            b"0",
        ]
    ),
)


def _examples(max_examples):
    """Hypothesis' settings here: deterministic, no database, no deadline."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
        ],
    )


_CELL = st.one_of(st.sampled_from([0.0, 1.0, np.nan, np.inf]), st.floats(-2, 2))


@st.composite
def one_row_calls(draw):
    n_features = draw(st.sampled_from([N_FEATURES] * 4 + [3, 5]))
    values = draw(
        st.lists(
            st.sampled_from([0, 1]) | _CELL, min_size=n_features, max_size=n_features
        )
    )
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, bool, object]))
    with np.errstate(invalid="ignore"):
        X = np.array([values], dtype=float)
        if dtype is not object and dtype is not np.float64:
            X = np.nan_to_num(X, posinf=1, neginf=0).astype(dtype)
        elif dtype is object:
            X = X.astype(object)
    if draw(st.booleans()) and X.shape[1] > 1:
        X = X.reshape(-1, 1)[:1]  # not one row of the right width
    label = draw(_LABEL)
    container = draw(st.sampled_from(["ndarray", "object", "list", "tuple", "2d"]))
    if container == "ndarray":
        try:
            y = np.array([label])
        except (TypeError, ValueError):
            y = [label]
    elif container == "object":
        y = np.empty(1, dtype=object)
        y[0] = label
    elif container == "list":
        y = [label]
    elif container == "tuple":
        y = (label,)
    else:
        y = np.array([[label]], dtype=object)
    kwargs = dict(X=X, y=y)
    if draw(st.integers(0, 4)) == 0:
        kwargs["classes"] = draw(st.sampled_from([[0, 1], [1, 0], [0, 2], [0, 1, 2]]))
    if draw(st.integers(0, 4)) == 0:
        kwargs["sample_weight"] = [1.0]
    return kwargs


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@_examples(max_examples=80)
@given(kwargs=one_row_calls())
def test_any_one_row_call_same_outcome_on_both_paths(
    name, kwargs, full_path, monkeypatch
):
    fast, full = compare_paths(name, "partial_fit", kwargs, full_path, monkeypatch)
    assert fast[0] == full[0]
    assert fast[1] == full[1]


# -- chunks of a few rows ------------------------------------------------------

_CHUNK_LABELINGS = {  # first call's labels, the chunks' labels
    "int": (lambda y: y, lambda y: y),
    "float-for-int": (lambda y: y, lambda y: y.astype(float)),
    "bool": (lambda y: y.astype(bool), lambda y: y.astype(bool)),
    "str": (lambda y: np.where(y == 1, "yes", "no"),) * 2,
    "object": (lambda y: np.where(y == 1, "yes", "no").astype(object),) * 2,
}


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@pytest.mark.parametrize("labels", list(_CHUNK_LABELINGS))
def test_chunk_calls_learn_the_same_model(name, labels, full_path, monkeypatch):
    X, y = binary_stream(n=30, seed=8)
    first_labels, chunk_labels = _CHUNK_LABELINGS[labels]
    y_first, y_chunks = first_labels(y), chunk_labels(y)
    classes = np.unique(y_first)

    def stream():
        est = make_estimator(name)
        est.partial_fit(X[:4], y_first[:4], classes=classes)
        for i in range(4, len(X), 3):
            est.partial_fit(X[i : i + 3].astype(float), y_chunks[i : i + 3])
            scores(est, X[i : i + 3].astype(float))
        return est

    fast = stream()
    with monkeypatch.context():
        full_path()
        full = stream()
    assert pickle.dumps(fast) == pickle.dumps(full)


def test_chunk_calls_skip_sklearn_validation(monkeypatch):
    est = fitted("tree-external")
    X, y = binary_stream(n=6, seed=9)
    with validation_refused(monkeypatch):
        est.partial_fit(X[:3].astype(float), y[:3])
        est.partial_fit(X[3:].astype(float), y[3:].astype(object))
        with pytest.raises(AssertionError, match="validate_data called"):
            est.partial_fit(X[3:].tolist(), y[3:])


_OBJECT_LABELS = {
    "plain": ["no", "yes", "no"],
    "none": ["no", None, "no"],
    "nan": ["no", np.nan, "no"],
    "number": ["no", 1, "no"],
    "unseen": ["no", "maybe", "no"],
    "bytes": ["no", b"yes", "no"],
    "list": ["no", ["yes"], "no"],
}


@pytest.mark.parametrize("labels", list(_OBJECT_LABELS))
def test_object_label_chunks_same_outcome_on_both_paths(labels, full_path, monkeypatch):
    """Object label chunks take the fast path when they are plain and
    present; either path gives the same error or model."""
    X, y = binary_stream(n=9, seed=8)
    classes = np.array(["no", "yes"], dtype=object)

    def stream():
        est = make_estimator("tree-external")
        est.partial_fit(X[:6], classes[y[:6]], classes=classes)
        labels_chunk = np.array(_OBJECT_LABELS[labels], dtype=object)
        return outcome(est, "partial_fit", X=X[6:].astype(float), y=labels_chunk)

    fast = stream()
    with monkeypatch.context():
        full_path()
        full = stream()
    assert fast[:2] == full[:2]
    assert (fast[0] is None) == (labels == "plain")


_CHUNK_LABEL = st.sampled_from([0, 1, 2, -1, 0.5, 1.0, np.nan, True])


@st.composite
def chunk_calls(draw):
    n_rows = draw(st.integers(2, 4))
    cells = st.sampled_from([0, 1]) | _CELL
    rows = [
        draw(st.lists(cells, min_size=N_FEATURES, max_size=N_FEATURES))
        for _ in range(n_rows)
    ]
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, bool]))
    with np.errstate(invalid="ignore"):
        X = np.array(rows, dtype=float)
        if dtype is not np.float64:
            X = np.nan_to_num(X, posinf=1, neginf=0).astype(dtype)
    n_labels = draw(st.sampled_from([n_rows] * 4 + [n_rows - 1, n_rows + 1]))
    labels = draw(st.lists(_CHUNK_LABEL, min_size=n_labels, max_size=n_labels))
    kind = draw(st.sampled_from(["int", "float", "str", "bytes", "bool", "object"]))
    with np.errstate(invalid="ignore"):
        y = np.array(labels, dtype=float)
        if kind == "int":
            y = np.nan_to_num(y, nan=-1).astype(np.int64)
        elif kind == "str":
            y = y.astype(str)
        elif kind == "bytes":
            y = y.astype(str).astype(bytes)
        elif kind == "bool":
            y = np.nan_to_num(y).astype(bool)
        elif kind == "object":  # the labels as drawn: numbers, NaN, True
            y = np.array(labels, dtype=object)
    kwargs = dict(X=X, y=y)
    if draw(st.integers(0, 4)) == 0:
        kwargs["classes"] = draw(st.sampled_from([[0, 1], [1, 0], [0, 2], [0, 1, 2]]))
    return kwargs


@pytest.mark.parametrize("name", ["tree-external", "disjunct-external"])
@_examples(max_examples=60)
@given(kwargs=chunk_calls())
def test_any_chunk_call_same_outcome_on_both_paths(
    name, kwargs, full_path, monkeypatch
):
    fast, full = compare_paths(name, "partial_fit", kwargs, full_path, monkeypatch)
    assert fast[0] == full[0]
    assert fast[1] == full[1]


# -- categories, coded before validation ---------------------------------------


def _mixed_rows(n, seed, numbers=True):
    """Object rows: a colour, a number (a shape, if not ``numbers``: every
    column categorical), a size; labels as objects."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    number = rng.normal(size=n)
    size = rng.choice(["s", "m", "l"], n)
    X = np.empty((n, 3), dtype=object)
    X[:, 0], X[:, 1], X[:, 2] = colour, number, size
    if not numbers:
        X[:, 1] = np.where(number > 0.5, "round", "square")
    y = np.where((colour == "red") | (number > 0.5), "yes", "no").astype(object)
    return X, y


# The learners that read categories.
_CATEGORY_LEARNERS = ["tree-external", "tree-swap", "forest"]


@cache
def _mixed_fitted_bytes(numbers=True, name="tree-external"):
    X, y = _mixed_rows(60, seed=10, numbers=numbers)
    est = make_estimator(name).partial_fit(X, y, classes=["no", "yes"])
    return pickle.dumps(est)


def _with(X, row, column, value):
    X = X.copy()
    X[row, column] = value
    return X


def _mixed_calls(numbers):
    X, y = _mixed_rows(4, seed=11, numbers=numbers)
    return {
        "chunk": dict(X=X, y=y),
        "one row": dict(X=X[:1], y=y[:1]),
        "str labels": dict(X=X, y=y.astype(str)),
        "weighted": dict(X=X, y=y, sample_weight=np.arange(4.0)),
        "new category": dict(X=_with(X, 1, 0, "violet"), y=y),
        "missing category": dict(X=_with(X, 1, 2, None), y=y),
        "nan number": dict(X=_with(X, 2, 1, np.nan), y=y),
        "inf number": dict(X=_with(X, 2, 1, np.inf), y=y),
        "number for a category": dict(X=_with(X, 0, 0, 3.0), y=y),
        "unhashable": dict(X=_with(X, 0, 0, ["red"]), y=y),
        "narrow": dict(X=X[:, :2], y=y),
        "no rows": dict(X=X[:0], y=y[:0]),
        "unseen label": dict(X=X, y=np.array(["no", "maybe", "yes", "no"], object)),
        "none label": dict(X=X, y=np.array(["no", None, "yes", "no"], object)),
        "short labels": dict(X=X, y=y[:3]),
    }


# Columns of numbers and categories; categories only (coded in one pass).
_TABLES = {"mixed": True, "categories": False}


@pytest.mark.parametrize("case", list(_mixed_calls(True)))
@pytest.mark.parametrize("table", list(_TABLES))
@pytest.mark.parametrize("method", ["partial_fit", "predict_proba"])
@pytest.mark.parametrize("name", _CATEGORY_LEARNERS)
def test_coded_categories_same_outcome_on_both_paths(
    name, case, table, method, full_path, monkeypatch
):
    kwargs = dict(_mixed_calls(_TABLES[table])[case])
    if method != "partial_fit":
        kwargs.pop("y")
        if kwargs.pop("sample_weight", None) is not None:
            pytest.skip("no weights to predict")

    def run():
        est = pickle.loads(_mixed_fitted_bytes(_TABLES[table], name))
        return outcome(est, method, **kwargs)

    fast = run()
    with monkeypatch.context():
        full_path()
        full = run()
    assert fast[:2] == full[:2]
    if method != "partial_fit" and fast[2] is not None:
        np.testing.assert_array_equal(fast[2], full[2])


@pytest.mark.parametrize("table", list(_TABLES))
@pytest.mark.parametrize("name", _CATEGORY_LEARNERS)
def test_coded_categories_skip_sklearn_validation(name, table, monkeypatch):
    est = pickle.loads(_mixed_fitted_bytes(_TABLES[table], name))
    X, y = _mixed_rows(10, seed=12, numbers=_TABLES[table])
    with validation_refused(monkeypatch):
        for i in range(0, 10, 5):
            est.predict(X[i : i + 5])
            est.partial_fit(X[i : i + 5], y[i : i + 5])


@pytest.mark.parametrize("name", _CATEGORY_LEARNERS)
def test_known_categories_take_the_fast_paths(name, monkeypatch):
    """Rows of categories all coded already take the streaming fast paths,
    as plain numeric rows do; a new category takes the full ones."""
    est = pickle.loads(_mixed_fitted_bytes(False, name))
    X, y = _mixed_rows(10, seed=12, numbers=False)  # object labels too
    est.predict(X[:1])  # the loaded model's check, which codes a probe row

    def refuse(self, *args, **kwargs):
        raise AssertionError("full path")

    with monkeypatch.context() as patch:
        patch.setattr(type(est), "_validated_partial_fit", refuse)
        patch.setattr(type(est), "_encode_columns", refuse)
        for i in range(0, 10, 5):
            est.predict(X[i : i + 5])
            est.partial_fit(X[i : i + 5], y[i : i + 5])
        new = _with(X[:5], 0, 0, "violet")
        for call in (lambda: est.predict(new), lambda: est.partial_fit(new, y[:5])):
            with pytest.raises(AssertionError, match="full path"):
                call()
