"""The scikit-learn contract of every public estimator, and bad input.

One place for what all online learners of the package promise: the common
estimator checks, feature-name consistency, pickling mid-stream, and that a
call with bad input raises a clear ``ValueError`` / ``TypeError`` and leaves a
fitted estimator exactly as it was.
"""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    parametrize_with_checks,
)

from sklearn_localregret import (
    LocalRegretDisjunctClassifier,
    LocalRegretForestClassifier,
    LocalRegretTreeClassifier,
)
from sklearn_localregret.baselines import Winnow2Classifier

# -- the common checks ------------------------------------------------------

# LocalRegretDisjunctClassifier: its hypothesis class cannot reach
# check_classifiers_train's 0.83 on the checks' data, which its poor_score tag
# says (see __sklearn_tags__), and every other assertion of that check runs.
# Weights are not repetitions for an online learner (as for the tree learner
# below): a row of weight 2 is one round, the repeated row two, and the plays
# in between differ. The paper's graph happened to end at the same 0/1
# probabilities on the checks' data; with the removal sets (the default) a
# set may ring after one fit and not after the other.
DISJUNCT_EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data": "online: order dependent",
    "check_sample_weight_equivalence_on_sparse_data": "online: order dependent",
}

# LocalRegretTreeClassifier: fitting with weights is not equivalent to
# repeating rows for an online learner: the rounds (and the order they come in)
# change, so the played trees and their regrets differ. scikit-learn lists the
# same checks for SGDClassifier, whose updates are order dependent for the
# same reason.
TREE_EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data": "online: order dependent",
    "check_sample_weight_equivalence_on_sparse_data": "online: order dependent",
}

# LocalRegretForestClassifier: its members are trees (above), and a member's
# weight of a row is its sample_weight times a Poisson draw, so a row of weight
# 2 is neither two rows nor one row drawn twice.
FOREST_EXPECTED_FAILED = TREE_EXPECTED_FAILED

WINNOW2_EXPECTED_FAILED = {
    # (check_classifiers_train passes with the poor_score tag: see Winnow2's
    # __sklearn_tags__.)
    # Online and order dependent (like SGDClassifier, which scikit-learn lists
    # for the same checks): a weighted row promotes by alpha**w at once while
    # repeated rows stop promoting as soon as the prediction turns right.
    "check_sample_weight_equivalence_on_dense_data": "online, order-dependent "
    "updates: weights are not repetitions",
    "check_sample_weight_equivalence_on_sparse_data": "online, order-dependent "
    "updates: weights are not repetitions",
}

_EXPECTED_FAILED = {
    LocalRegretDisjunctClassifier: DISJUNCT_EXPECTED_FAILED,
    LocalRegretTreeClassifier: TREE_EXPECTED_FAILED,
    LocalRegretForestClassifier: FOREST_EXPECTED_FAILED,
    Winnow2Classifier: WINNOW2_EXPECTED_FAILED,
}


def expected_failed_checks(estimator):
    return _EXPECTED_FAILED[type(estimator)]


def check_instances():
    # The tree learner at its defaults (real-valued features, thresholds from
    # the stream; the checks seed random_state themselves), with swap regret
    # (default L, and the paper's L=3), and with its main options: fixed
    # thresholds (binarize), the paper's algorithm (no warm start), and
    # forgetting that adapts (a learner per discount).
    return [
        LocalRegretDisjunctClassifier(random_state=0),
        LocalRegretDisjunctClassifier(regret="swap", random_state=0),
        LocalRegretTreeClassifier(),
        LocalRegretTreeClassifier(regret="swap"),
        LocalRegretTreeClassifier(regret="swap", L=3),
        LocalRegretTreeClassifier(binarize=0.0),
        LocalRegretTreeClassifier(warm_start=0, discount=1.0),
        LocalRegretTreeClassifier(discount="auto"),
        LocalRegretForestClassifier(),
        Winnow2Classifier(),
    ]


@parametrize_with_checks(
    check_instances(), expected_failed_checks=expected_failed_checks
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", check_instances(), ids=repr)
def test_dataframe_column_names_consistency(estimator):
    pytest.importorskip("pandas")
    check_dataframe_column_names_consistency(type(estimator).__name__, estimator)


# -- small 0/1 streams and models fitted on them ----------------------------

N_FEATURES = 4
ESTIMATOR_IDS = [
    "disjunct-external",
    "disjunct-swap",
    "tree-external",
    "tree-swap",
    "forest",
    "winnow2",
]


def make_estimator(name, **params):
    """A fresh estimator reading 0/1 features as they are (binarize=None)."""
    params.setdefault("binarize", None)
    if name == "winnow2":
        return Winnow2Classifier(**params)
    if name == "forest":
        params.setdefault("random_state", 0)
        return LocalRegretForestClassifier(n_estimators=3, batch_size=2, **params)
    kind, regret = name.split("-")
    params.setdefault("random_state", 0)
    if kind == "disjunct":
        return LocalRegretDisjunctClassifier(regret=regret, **params)
    if regret == "swap":
        params.setdefault("L", 3)
    return LocalRegretTreeClassifier(regret=regret, batch_size=2, **params)


def binary_stream(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, N_FEATURES))
    y = X[:, 0] | X[:, 2]
    flip = rng.random(n) < 0.1
    return X, np.where(flip, 1 - y, y)


def fitted(name, **params):
    X, y = binary_stream()
    return make_estimator(name, **params).partial_fit(X, y, classes=[0, 1])


def scores(est, X):
    """The continuous output of a model: probabilities, or Winnow2's scores."""
    if hasattr(est, "predict_proba"):
        return est.predict_proba(X)
    return est.decision_function(X)


# -- pickling and cloning ---------------------------------------------------


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_pickle_round_trip_and_continued_partial_fit(name):
    X, y = binary_stream(n=80, seed=1)
    first, second = slice(0, 40), slice(40, 80)
    est = make_estimator(name).partial_fit(X[first], y[first], classes=[0, 1])
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))
    np.testing.assert_array_equal(scores(restored, X), scores(est, X))

    # Learning on after unpickling is learning on without pickling.
    never_pickled = make_estimator(name).partial_fit(X[first], y[first], classes=[0, 1])
    never_pickled.partial_fit(X[second], y[second])
    restored.partial_fit(X[second], y[second])
    np.testing.assert_array_equal(scores(restored, X), scores(never_pickled, X))
    np.testing.assert_array_equal(restored.predict(X), never_pickled.predict(X))
    assert restored.n_online_mistakes_ == never_pickled.n_online_mistakes_
    assert restored.n_rounds_ == never_pickled.n_rounds_


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_clone_is_unfitted_with_equal_params(name):
    est = fitted(name)
    copy = clone(est)
    assert copy.get_params() == est.get_params()
    assert not hasattr(copy, "classes_")
    with pytest.raises(NotFittedError):
        copy.predict(np.zeros((1, N_FEATURES)))


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function"])
def test_not_fitted_error(name, method):
    est = make_estimator(name)
    if not hasattr(est, method):
        pytest.skip(f"{type(est).__name__} has no {method}")
    with pytest.raises(NotFittedError):
        getattr(est, method)(np.zeros((2, N_FEATURES), dtype=int))


# -- sparse input -------------------------------------------------------------


@pytest.mark.parametrize("bound", ["rows", "bytes"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_sparse_input_is_never_densified_whole(name, fmt, bound, monkeypatch):
    """Sparse X is read a bounded block of rows at a time (rows; bytes, for
    wide rows), with dense results."""
    import scipy.sparse as sp

    from sklearn_localregret._base import rounds

    chunk = 64  # a small block keeps the test fast; the code path is the same
    if bound == "rows":
        monkeypatch.setattr(rounds, "DENSE_CHUNK_ROWS", chunk)
    else:  # as if the rows were wide: 20 rows of 8-byte cells a chunk
        monkeypatch.setattr(rounds, "DENSE_CHUNK_BYTES", 20 * N_FEATURES * 8)
    X, y = binary_stream(n=3 * chunk + 10, seed=2)
    X_sparse = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    densified = []
    for cls in (sp.csr_matrix, sp.csc_matrix):
        original = cls.toarray

        def recording(self, *args, _original=original, **kwargs):
            dense = _original(self, *args, **kwargs)
            densified.append((self.shape[0], dense.nbytes))
            return dense

        monkeypatch.setattr(cls, "toarray", recording)
        monkeypatch.setattr(cls, "todense", None)  # any other path: an error

    sparse_model = make_estimator(name).fit(X_sparse, y)
    sparse_scores = scores(sparse_model, X_sparse)
    if sparse_model._accepts_sparse_blocks:
        assert not densified  # read in its nonzeros (tests/test_sparse_disjunct.py)
    elif bound == "rows":
        assert densified and max(rows for rows, _ in densified) <= chunk
    else:
        assert densified and max(n for _, n in densified) <= rounds.DENSE_CHUNK_BYTES
        assert max(rows for rows, _ in densified) < chunk
    monkeypatch.undo()
    dense_model = make_estimator(name).fit(X, y)
    np.testing.assert_array_equal(sparse_scores, scores(dense_model, X))
    np.testing.assert_array_equal(
        sparse_model.predict(X_sparse), dense_model.predict(X)
    )


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_boolean_integer_and_float_inputs_give_the_same_model(name):
    X, y = binary_stream(n=40, seed=3)
    dtypes = [bool, np.int8, np.int64, np.float32, np.float64]
    models = [make_estimator(name).fit(X.astype(dtype), y) for dtype in dtypes]
    reference = pickle.dumps(models[0])
    for dtype, model in zip(dtypes[1:], models[1:]):
        assert pickle.dumps(model) == reference, dtype
        np.testing.assert_array_equal(
            model.predict(X.astype(dtype)), models[0].predict(X)
        )


@pytest.mark.parametrize(
    "name", ["disjunct-external", "disjunct-swap", "tree-external", "tree-swap"]
)
def test_online_error_is_a_fraction_of_the_weight(name):
    """Scaling every weight by 3 scales every regret (and the paper's bias) by
    3: pi and the plays are unchanged, so the online error is too."""
    X, y = binary_stream(n=60, seed=4)
    plain = make_estimator(name).fit(X, y)
    tripled = make_estimator(name).fit(X, y, sample_weight=np.full(60, 3.0))
    assert tripled.n_online_mistakes_ == pytest.approx(3 * plain.n_online_mistakes_)
    assert tripled.online_error_ == pytest.approx(plain.online_error_)
    assert 0 < plain.online_error_ < 1


# -- bad input: a clear error, and nothing lost -----------------------------

X_OK = np.array([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 1]])
Y_OK = np.array([1, 1, 0])

# (id, partial_fit arguments, error type, message pattern)
BAD_CALLS = [
    ("nan", dict(X=np.where(X_OK == 1, np.nan, 0.0), y=Y_OK), ValueError, "NaN"),
    ("inf", dict(X=np.where(X_OK == 1, np.inf, 0.0), y=Y_OK), ValueError, "infinity"),
    ("n_features", dict(X=X_OK[:, :3], y=Y_OK), ValueError, "features"),
    ("too_many_features", dict(X=np.c_[X_OK, X_OK], y=Y_OK), ValueError, "features"),
    ("unseen_label", dict(X=X_OK, y=[0, 1, 2]), ValueError, "not in classes"),
    (
        "unseen_label_with_classes",
        dict(X=X_OK, y=[0, 1, 2], classes=[0, 1]),
        ValueError,
        "not in classes",
    ),
    ("other_classes", dict(X=X_OK, y=Y_OK, classes=[0, 2]), ValueError, "not the same"),
    (
        "more_classes",
        dict(X=X_OK, y=Y_OK, classes=[0, 1, 2]),
        ValueError,
        "not the same",
    ),
    (
        "empty_X",
        dict(X=np.zeros((0, N_FEATURES)), y=np.zeros(0, dtype=int)),
        ValueError,
        "0 sample",
    ),
    (
        "dates",
        dict(X=np.zeros((3, N_FEATURES), "datetime64[D]"), y=Y_OK),
        ValueError,
        "dates",
    ),
    (
        "none_label",
        dict(X=X_OK, y=np.array([1, None, 0], dtype=object)),
        ValueError,
        "y contains None",
    ),
    (
        "negative_weight",
        dict(X=X_OK, y=Y_OK, sample_weight=[1.0, -1.0, 1.0]),
        ValueError,
        "non-negative",
    ),
    (
        "nan_weight",
        dict(X=X_OK, y=Y_OK, sample_weight=[1.0, np.nan, 1.0]),
        ValueError,
        "sample_weight contains NaN",
    ),
    (
        "inf_weight",
        dict(X=X_OK, y=Y_OK, sample_weight=[1.0, np.inf, 1.0]),
        ValueError,
        "sample_weight contains infinity",
    ),
    (
        "short_weight",
        dict(X=X_OK, y=Y_OK, sample_weight=[1.0, 1.0]),
        ValueError,
        "sample_weight.shape",
    ),
    (
        "long_weight",
        dict(X=X_OK, y=Y_OK, sample_weight=np.ones(4)),
        ValueError,
        "sample_weight.shape",
    ),
    ("X_y_lengths", dict(X=X_OK, y=Y_OK[:2]), ValueError, "inconsistent"),
    (
        "mixed_type_labels",  # (numpy cannot order them with the classes)
        dict(X=X_OK, y=np.array([1, "x", 0], dtype=object)),
        ValueError,
        "cannot be compared|Unknown label type",
    ),
]


# 0/1 features only: the binary-feature learners reject other values (the
# tree learner reads real values through its threshold tests).
NOT_BINARY_CALLS = [
    ("not_binary_ints", dict(X=2 * X_OK, y=Y_OK), ValueError, "0/1"),
    ("not_binary_floats", dict(X=0.5 * X_OK, y=Y_OK), ValueError, "0/1"),
    # Their own words on infinities, and dates in an object array (which
    # validation would read as days since 1970).
    (
        "inf_advice",
        dict(X=np.where(X_OK == 1, np.inf, 0.0), y=Y_OK),
        ValueError,
        "does not read. Clip the values",
    ),
    (
        "object_dates",
        dict(
            X=np.array([[np.datetime64("2020-01-01"), 0, 1, 0]] * 3, dtype=object),
            y=Y_OK,
        ),
        ValueError,
        "dates or durations",
    ),
]


def _bad_for(name, case) -> bool:
    # The tree learner and the forest read NaN as a missing value
    # (tests/test_tree_missing.py, tests/test_forest_columns.py).
    return not (name.startswith(("tree", "forest")) and case[0] == "nan")


_BAD_CASES = [
    (name, case) for name in ESTIMATOR_IDS for case in BAD_CALLS if _bad_for(name, case)
] + [
    (name, case)
    for name in ["disjunct-external", "disjunct-swap", "winnow2"]
    for case in NOT_BINARY_CALLS
]


@pytest.mark.parametrize(
    "name, kwargs, error, match",
    [(name, *case[1:]) for name, case in _BAD_CASES],
    ids=[f"{case[0]}-{name}" for name, case in _BAD_CASES],
)
def test_bad_partial_fit_raises_and_loses_nothing(name, kwargs, error, match):
    est = fitted(name)
    before = pickle.dumps(est)
    with pytest.raises(error, match=match):
        est.partial_fit(**kwargs)
    assert pickle.dumps(est) == before
    # Still usable, and learning on exactly as if the call never happened.
    reference = fitted(name)
    est.partial_fit(X_OK, Y_OK)
    reference.partial_fit(X_OK, Y_OK)
    np.testing.assert_array_equal(scores(est, X_OK), scores(reference, X_OK))
    assert est.n_online_mistakes_ == reference.n_online_mistakes_
    assert est.n_samples_seen_ == reference.n_samples_seen_


# fit resets the model, so a new feature count or new classes are fine there;
# the rest is as bad for fit as for partial_fit.
BAD_FIT_CALLS = [
    case
    for case in BAD_CALLS
    if "classes" not in case[1]
    and "features" not in case[0]
    and "unseen" not in case[0]
] + [
    (
        "continuous_y",
        dict(X=X_OK, y=[0.5, 1.5, 0.25]),
        ValueError,
        "Unknown label type",
    ),
]
_BAD_FIT_CASES = [
    (name, case)
    for name in ESTIMATOR_IDS
    for case in BAD_FIT_CALLS
    if _bad_for(name, case)
]
_BAD_FIT_CASES += [case for case in _BAD_CASES if case[1] in NOT_BINARY_CALLS]


@pytest.mark.parametrize(
    "name, kwargs, error, match",
    [(name, *case[1:]) for name, case in _BAD_FIT_CASES],
    ids=[f"{case[0]}-{name}" for name, case in _BAD_FIT_CASES],
)
def test_bad_fit_raises_and_loses_nothing(name, kwargs, error, match):
    """A failed refit keeps the model learned before it."""
    est = fitted(name)
    before = pickle.dumps(est)
    with pytest.raises(error, match=match):
        est.fit(**kwargs)
    assert pickle.dumps(est) == before


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function"])
@pytest.mark.parametrize(
    "X, match",
    [
        (np.where(X_OK == 1, np.nan, 0.0), "NaN"),
        (np.where(X_OK == 1, np.inf, 0.0), "infinity"),
        (X_OK[:, :3], "features"),
        (2 * X_OK, "0/1"),
    ],
    ids=["nan", "inf", "n_features", "not_binary"],
)
def test_bad_predict_raises_and_changes_nothing(name, method, X, match):
    if match == "0/1" and name.startswith(("tree", "forest")):
        pytest.skip("the tree learner reads real-valued features")
    if match == "NaN" and name.startswith(("tree", "forest")):
        pytest.skip("the tree learner and the forest read missing values")
    est = fitted(name)
    if not hasattr(est, method):
        pytest.skip(f"{type(est).__name__} has no {method}")
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match=match):
        getattr(est, method)(X)
    assert pickle.dumps(est) == before


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_a_frame_column_that_cannot_be_read_is_named(name):
    # A column of dates, after readable ones: the error names it (and says
    # what to do), at learning and at predicting; the model is unchanged.
    pd = pytest.importorskip("pandas")
    X, y = binary_stream()
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(N_FEATURES)])
    est = make_estimator(name).partial_fit(frame, y, classes=[0, 1])
    before = pickle.dumps(est)
    dated = frame.assign(x3=pd.Timestamp("2026-11-28"))
    for call in (lambda: est.partial_fit(dated, y), lambda: est.predict(dated)):
        with pytest.raises(ValueError, match="column 'x3' has dtype datetime64"):
            call()
    assert pickle.dumps(est) == before


BINARY_ONLY = ["disjunct-external", "disjunct-swap", "winnow2"]


@pytest.mark.parametrize("name", BINARY_ONLY)
def test_binary_only_learners_reject_more_classes(name):
    message = r"^Only binary classification is supported\."
    X, y = X_OK, np.array([0, 1, 2])
    # First call of partial_fit: nothing is learned, nothing is set.
    est = make_estimator(name)
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match=message):
        est.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    assert pickle.dumps(est) == before
    assert not hasattr(est, "classes_")
    # A fitted model keeps its model when refitting on three classes fails.
    est = fitted(name)
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    assert pickle.dumps(est) == before


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
def test_first_partial_fit_needs_classes(name):
    est = make_estimator(name)
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match="classes must be passed"):
        est.partial_fit(X_OK, Y_OK)
    assert pickle.dumps(est) == before


# -- property: anything thrown at partial_fit --------------------------------

_LABELS = st.sampled_from([0, 1, 0, 1, 2, -1, 0.5])
_VALUES = {
    "binary": st.integers(0, 1),
    "ints": st.integers(-3, 3),
    "floats": st.one_of(
        st.sampled_from([0.0, 1.0, np.nan, np.inf, -np.inf]), st.floats(-2, 2)
    ),
}
_WEIGHT = st.one_of(st.floats(-1, 5), st.sampled_from([0.0, 1.0, np.nan, np.inf]))


@st.composite
def partial_fit_calls(draw):
    """Keyword arguments of one partial_fit call; each part is valid more often
    than not, so that valid calls (the learning path) come up too."""
    n_rows = draw(st.integers(0, 6))
    n_features = draw(st.sampled_from([N_FEATURES] * 4 + [1, 2, 3, 5]))
    kind = draw(st.sampled_from(["binary"] * 4 + ["ints", "floats"]))
    values = draw(
        st.lists(
            _VALUES[kind], min_size=n_rows * n_features, max_size=n_rows * n_features
        )
    )
    dtype = float if kind == "floats" else int
    X = np.array(values, dtype=dtype).reshape(n_rows, n_features)
    labels = draw(st.sampled_from([st.integers(0, 1)] * 3 + [_LABELS]))
    y = np.array(draw(st.lists(labels, min_size=n_rows, max_size=n_rows)))
    kwargs = dict(X=X, y=y)
    weights = draw(st.sampled_from(["none", "none", "good", "any"]))
    if weights != "none":
        n_weights = draw(st.sampled_from([n_rows] * 3 + list(range(8))))
        element = st.floats(0, 5) if weights == "good" else _WEIGHT
        kwargs["sample_weight"] = np.array(
            draw(st.lists(element, min_size=n_weights, max_size=n_weights)), dtype=float
        )
    classes = draw(
        st.sampled_from([None] * 4 + [[0, 1]] * 2 + [[0, 2], [0, 1, 2], [1, 0]])
    )
    if classes is not None:
        kwargs["classes"] = classes
    return kwargs


_FITTED = {}


@pytest.mark.parametrize("name", ESTIMATOR_IDS)
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(kwargs=partial_fit_calls())
@example(kwargs=dict(X=X_OK, y=Y_OK))
@example(kwargs=dict(X=X_OK, y=Y_OK, sample_weight=[0.0, 2.5, 1.0], classes=[0, 1]))
def test_partial_fit_succeeds_or_loses_nothing(name, kwargs):
    if name not in _FITTED:
        _FITTED[name] = pickle.dumps(fitted(name))
    est = pickle.loads(_FITTED[name])
    before = pickle.dumps(est)
    try:
        est.partial_fit(**kwargs)
    except (ValueError, TypeError) as exc:
        event(f"{type(exc).__name__}: {str(exc)[:40]}")
        assert str(exc)
        assert pickle.dumps(est) == before
    else:
        event("succeeded")
        probe = np.array([[0, 0, 0, 0], [1, 0, 1, 0], [1, 1, 1, 1]])
        assert est.predict(probe).shape == (3,)
        assert est.n_samples_seen_ == 60 + kwargs["X"].shape[0]
