"""The tree learner on real tables: missing values and categorical columns.

Missing values (NaN) in dense, sparse and pandas input, categories in pandas
and object columns and River rows; the online invariants (chunks equal one
fit, predicting changes nothing, a failed call changes nothing, saved models
predict the same) and readable trees.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import get_tags

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret.engine import HierarchicalLabels


def missing_stream(n=600, seed=0, share=0.3):
    """Label: x0 > 0, or x0 missing and x1 > 0.5; cells missing at random."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).round(2)
    X[rng.random((n, 3)) < share] = np.nan
    y = np.where(np.isnan(X[:, 0]), X[:, 1] > 0.5, X[:, 0] > 0).astype(int)
    return X, y


def table_stream(n=600, seed=0):
    """A DataFrame: a category, a string column with None, a numeric column
    with NaN; label: colour is red, or size > 1 where size is known."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    shape = rng.choice(["round", "square", None], n).astype(object)
    size = rng.normal(1, 1, n).round(2)
    size[rng.random(n) < 0.2] = np.nan
    frame = pd.DataFrame(
        {
            "colour": pd.Categorical(colour),
            "shape": shape,
            "size": size,
        }
    )
    y = ((colour == "red") | (np.nan_to_num(size) > 1)).astype(int)
    return frame, y


def model(**params):
    return LocalRegretTreeClassifier(random_state=0, **params)


def same_model(a, b, X, same_calls=True):
    """The same model; with other calls (``same_calls=False``), pi's and
    not the hedge's: a streaming call's rounds are scored on the predictions
    before it, so the hedge's weights follow the calls."""
    np.testing.assert_array_equal(a.pi_proba(X), b.pi_proba(X))
    if same_calls:
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.test_thresholds_, b.test_thresholds_)
    np.testing.assert_array_equal(a.test_kinds_, b.test_kinds_)
    assert a.n_online_mistakes_ == b.n_online_mistakes_


def test_tags_say_nan_is_allowed():
    assert get_tags(LocalRegretTreeClassifier()).input_tags.allow_nan
    assert not get_tags(LocalRegretDisjunctClassifier()).input_tags.allow_nan


def test_learns_where_missing_values_go():
    X, y = missing_stream(n=1500)
    clf = model().fit(X, y)
    assert clf.online_error_ < 0.2
    assert set(clf.test_kinds_) == {">", "> or missing"}
    assert clf.score(*missing_stream(n=500, seed=1)) > 0.85
    # Labels only (no model leaves): the tree says where missing values go.
    labels = model(leaf_model=None).fit(X, y)
    text = labels.export_text(feature_names=["a", "b", "c"])
    assert "a <= 0.17 or missing" in text and "a >  0.17\n" in text


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_chunks_equal_one_fit_with_missing_values(regret):
    X, y = missing_stream(n=300)
    whole = model(regret=regret, L=3).fit(X, y)
    chunks = model(regret=regret, L=3)
    for lo in range(0, 300, 35):
        chunks.partial_fit(X[lo : lo + 35], y[lo : lo + 35], classes=[0, 1])
    same_model(whole, chunks, X, same_calls=False)


def test_first_missing_value_after_the_thresholds_are_complete():
    """The quantile source is complete after 256 rows; a call then ends and
    the warm-start window keeps only test outcomes. Missing values first met
    later bring variants whose outcomes on the window follow from the others:
    the same model as one fit, which kept the features."""
    X, y = missing_stream(n=500, share=0.0)
    X[300:, 1][np.arange(200) % 3 == 0] = np.nan
    whole = model().fit(X, y)
    chunks = model().partial_fit(X[:300], y[:300], classes=[0, 1])
    assert chunks._tests.complete and chunks._window._X is None
    chunks.partial_fit(X[300:], y[300:])
    same_model(whole, chunks, X)
    assert "> or missing" in whole.test_kinds_


def test_sparse_and_pandas_input_give_the_dense_model():
    pd = pytest.importorskip("pandas")
    X, y = missing_stream(n=250)
    dense = model().fit(X, y)
    same_model(dense, model().fit(sp.csr_matrix(X), y), X)  # NaN stored
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    named = model().fit(frame, y)
    np.testing.assert_array_equal(named.predict_proba(frame), dense.predict_proba(X))
    nullable = frame.astype("Float64")  # pandas.NA where missing
    same_model(named, model().fit(nullable, y), frame)


def test_categorical_columns_need_no_encoder():
    frame, y = table_stream()
    clf = model().fit(frame, y)
    assert clf.online_error_ < 0.2
    assert set(clf.categories_[0]) == {"red", "green", "blue"}
    assert None in clf.categories_[1] and clf.categories_[2] is None
    assert "==" in clf.test_kinds_
    text = model(leaf_model=None).fit(frame, y).export_text()
    assert "|--- colour != red\n" in text and "|--- colour == red\n" in text
    # Unseen categories and missing values predict without error.
    new = frame.head(3).copy()
    new["colour"] = pd_categorical(["purple", None, "red"])
    new["shape"] = ["triangle", None, "round"]
    assert clf.predict_proba(new).shape == (3, 2)


def pd_categorical(values):
    pd = pytest.importorskip("pandas")
    return pd.Categorical(values)


def test_categories_in_chunks_equal_one_fit_and_object_arrays():
    frame, y = table_stream(n=300, seed=2)
    whole = model().fit(frame, y)
    chunks = model()
    for lo in range(0, 300, 40):
        chunks.partial_fit(frame.iloc[lo : lo + 40], y[lo : lo + 40], classes=[0, 1])
    same_model(whole, chunks, frame, same_calls=False)
    objects = frame.to_numpy(object)
    plain = model().fit(objects, y)
    np.testing.assert_array_equal(
        plain.predict_proba(objects), whole.predict_proba(frame)
    )
    assert plain.categories_ == whole.categories_


def test_small_frames_read_as_object_rows_give_the_frame_model(monkeypatch):
    """A streaming call's DataFrame (a few rows, the fitted names) is read as
    one object array, not column by column: the same model and predictions
    as the frame's own path, no warning, a Series of labels taken, and the
    names and values still checked."""
    import warnings

    import sklearn_localregret._column_reading as reading

    pd = pytest.importorskip("pandas")
    frame, y = table_stream(n=200, seed=5)
    labels = pd.Series(y)

    def stream(clf):
        predicted = []
        for lo in range(0, 200, 5):
            rows = frame.iloc[lo : lo + 5]
            if lo:
                predicted.append(clf.predict_proba(rows))
            clf.partial_fit(rows, labels.iloc[lo : lo + 5], classes=[0, 1])
        return clf, np.vstack(predicted)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast, fast_proba = stream(model())
    assert fast._frame_rows(frame.iloc[:5]) is not None  # the path was taken
    monkeypatch.setattr(reading, "_FRAME_ROWS", 0)
    slow, slow_proba = stream(model())
    assert slow._frame_rows(frame.iloc[:5]) is None
    np.testing.assert_array_equal(fast_proba, slow_proba)
    same_model(fast, slow, frame)
    monkeypatch.undo()
    before = pickle.dumps(fast)
    swapped = frame.iloc[:5][["shape", "colour", "size"]]
    with pytest.raises(ValueError, match="feature names"):
        fast.partial_fit(swapped, y[:5])
    with pytest.raises(ValueError, match="feature names"):
        fast.predict(swapped)
    with pytest.raises(ValueError, match="infinity"):
        fast.predict(frame.iloc[:5].assign(size=np.inf))
    with warnings.catch_warnings():  # labels it cannot take: the frame's path
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="inconsistent numbers"):
            fast.partial_fit(frame.iloc[:5], y[:4])
    assert pickle.dumps(fast) == before


def test_grouped_prediction_walk_is_exact_with_variants_and_categories():
    """The walk bisects groups of tests passed as prefixes: with both variants
    and equality tests it still gives the probabilities of the plain walk."""
    frame, y = table_stream(n=400, seed=3)
    clf = model().fit(frame, y)
    outcomes = clf._tests.outcomes(clf._columns.encode(frame, learning=False)[0])
    plain = HierarchicalLabels(clf._player.table).probabilities(outcomes)
    np.testing.assert_allclose(
        clf._player.labels.probabilities(outcomes), plain, atol=1e-12
    )


BAD_TABLE_CALLS = [
    ("inf", lambda f: f.assign(size=np.inf), "infinity"),
    ("numbers_become_strings", lambda f: f.assign(size="big"), "held numbers"),
    (
        "category_becomes_numbers",
        lambda f: f.assign(colour=np.arange(len(f), dtype=float)),
        "held categories",
    ),
    ("mixed", lambda f: f.assign(size=["a", 1.0] * (len(f) // 2)), "held numbers"),
    ("width", lambda f: f.drop(columns="size"), "feature"),
]


@pytest.mark.parametrize(
    "change, match",
    [c[1:] for c in BAD_TABLE_CALLS],
    ids=[c[0] for c in BAD_TABLE_CALLS],
)
def test_bad_tables_raise_and_change_nothing(change, match):
    frame, y = table_stream(n=100)
    clf = model().fit(frame.iloc[:60], y[:60])
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match=match):
        clf.partial_fit(change(frame.iloc[60:]), y[60:])
    assert pickle.dumps(clf) == before
    with pytest.raises(ValueError, match="holds categorical columns|categorical"):
        clf.partial_fit(sp.csr_matrix(np.ones((2, 3))), [0, 1])
    assert pickle.dumps(clf) == before
    # A mixed column on the first call: nothing is fitted.
    with pytest.raises(ValueError, match="mixes numbers and strings"):
        model().fit(np.array([["a", 1.0], [2.0, 1.0]], object), [0, 1])


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_predicting_changes_nothing_and_saved_models_keep_the_categories(tmp_path):
    frame, y = table_stream(n=200, seed=4)
    clf = model().fit(frame, y)
    before = pickle.dumps(clf)
    clf.predict(frame)
    clf.predict(frame.assign(shape="unseen"))
    assert pickle.dumps(clf) == before
    loaded = pickle.loads(before)
    np.testing.assert_array_equal(loaded.predict_proba(frame), clf.predict_proba(frame))
    assert loaded.categories_ == clf.categories_
    loaded.partial_fit(frame, y)  # learns on
    skops = pytest.importorskip("skops.io")
    from sklearn_localregret.persistence import load

    skops.dump(clf, tmp_path / "model.skops")
    restored = load(tmp_path / "model.skops")  # trusted types only, checked
    np.testing.assert_array_equal(
        restored.predict_proba(frame), clf.predict_proba(frame)
    )
    assert restored.categories_ == clf.categories_


def test_the_disjunct_learner_says_how_to_encode():
    X = np.array([[0.0, 1.0], [np.nan, 0.0]])
    with pytest.raises(ValueError, match="NaN.*LocalRegretTreeClassifier"):
        LocalRegretDisjunctClassifier().fit(X, [0, 1])
    with pytest.raises(ValueError, match="strings.*OneHotEncoder"):
        LocalRegretDisjunctClassifier().fit(np.array([["a", 1], ["b", 0]]), [0, 1])
    with pytest.raises(ValueError, match="strings.*OneHotEncoder"):
        LocalRegretDisjunctClassifier().fit(
            np.array([["a", 1], ["b", 0]], object), [0, 1]
        )
    # The NaN's column is named (it was not), by frame name, array index,
    # sparse column, on fit and on predict.
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [0.0, 1.0], "b": [1.0, np.nan]})
    with pytest.raises(
        ValueError, match="NaN \\(missing values\\) \\(column 'b' first"
    ):
        LocalRegretDisjunctClassifier().fit(frame, [0, 1])
    with pytest.raises(ValueError, match="\\(column 0 first\\)"):
        LocalRegretDisjunctClassifier().fit(sp.csr_matrix(X), [0, 1])
    fitted = LocalRegretDisjunctClassifier().fit(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="\\(column 1 first\\)"):
        fitted.predict(np.array([[0.0, np.nan]]))
    # Numbers stored as objects are numbers (they were "categories or text"),
    # and one beyond float64 is named, not numpy's OverflowError.
    huge = pd.DataFrame({"a": pd.Series([10**400, 1], dtype=object), "b": [0, 1]})
    with pytest.raises(ValueError, match="column 'a' holds a value beyond float64"):
        LocalRegretDisjunctClassifier().fit(huge, [0, 1])
    numbers = pd.DataFrame(
        {"a": pd.Series([0, 1, 1, 0], dtype=object), "b": [0, 1, 0, 1]}
    )
    LocalRegretDisjunctClassifier().fit(numbers, [0, 1, 1, 0])


def test_river_rows_with_strings_and_missing_values():
    pytest.importorskip("river")
    from sklearn_localregret.river import RiverAdapter

    frame, y = table_stream(n=150, seed=5)
    rows = frame.to_dict("records")
    adapter = RiverAdapter(model(), classes=[0, 1], absent="missing")
    reference = model()
    objects = frame.to_numpy(object)
    for i, (x, label) in enumerate(zip(rows, y)):
        x = {k: v for k, v in x.items() if not (isinstance(v, float) and np.isnan(v))}
        adapter.learn_one(x, int(label))
        reference.partial_fit(objects[i : i + 1], y[i : i + 1], classes=[0, 1])
    assert adapter.estimator_.categories_ == reference.categories_
    same_model(adapter.estimator_, reference, objects)
    assert adapter.predict_one({"colour": "purple"}) in (0, 1)
    with pytest.raises(ValueError, match="'size' held numbers"):
        adapter.learn_one({"colour": "red", "size": "big"}, 1)


def _odd_values(n):
    """Columns of values that are neither numbers nor category labels."""
    pd = pytest.importorskip("pandas")
    import datetime

    return {
        "tuples": pd.Series([(i % 2,) for i in range(n)], dtype=object),
        "complex": np.arange(n) + 1j,
        "periods": pd.period_range("2020-01", periods=n, freq="M"),
        "datetimes": pd.Series([datetime.datetime(2020, 1, 1)] * n, dtype=object),
    }


@pytest.mark.parametrize("kind", ["tuples", "complex", "periods", "datetimes"])
def test_values_neither_numbers_nor_labels_are_refused_by_name(kind):
    # A column of 1-tuples was read as numbers by numpy's unpacking (then
    # predicting on the same frame failed); complex numbers and dates gave
    # float()'s message, which does not say which column.
    frame, y = table_stream(n=100)
    odd = frame.assign(size=_odd_values(100)[kind])
    with pytest.raises(
        TypeError, match="column .size. holds .* neither a number nor a category"
    ):
        model().fit(odd, y)
    clf = model().fit(frame.iloc[:80], y[:80])
    before = pickle.dumps(clf)
    with pytest.raises(TypeError, match="column 'size' holds"):
        clf.partial_fit(odd.iloc[80:], y[80:])
    assert pickle.dumps(clf) == before


@pytest.mark.parametrize("rows", [5, 100])
def test_a_frame_named_in_messages_whatever_its_length(rows):
    # Frames of at most 64 rows are read as object arrays: their messages
    # named the columns by position ("column 2") where longer ones said 'size'.
    frame, y = table_stream(n=200)
    clf = model().fit(frame.iloc[:100], y[:100])
    with pytest.raises(ValueError, match="column 'size' held numbers"):
        clf.partial_fit(frame.iloc[100 : 100 + rows].assign(size="big"), y[:rows])


def test_a_series_is_refused_as_one_dimensional():
    frame, y = table_stream(n=60)
    with pytest.raises(ValueError, match="2-dimensional"):
        model().fit(frame["size"], y)  # was: TypeError, a dtype not iterable


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_a_column_missing_while_learning_reads_strings_as_unseen():
    # Strings in a column typed by no value learnt: an AttributeError (no
    # category index) where unseen categories read as missing.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=50), "u": [None] * 50})
    y = (frame["a"] > 0).astype(int).to_numpy()
    clf = model().fit(frame, y)
    before = pickle.dumps(clf)
    rows = frame.iloc[:3]
    expected = clf.predict_proba(rows)
    np.testing.assert_array_equal(
        clf.predict_proba(rows.assign(u=["x", "y", "z"])), expected
    )
    np.testing.assert_array_equal(
        clf.predict_proba(rows.assign(u=["x", "y", "z"]).to_numpy(object)), expected
    )
    assert pickle.dumps(clf) == before


def test_numbers_type_a_column_whose_first_values_were_missing():
    # Plain float rows skipped the encoder: a column whose first value was
    # None stayed untyped, and a later string made it categorical, dropping
    # what was learnt of it (a NaN first raised, as a typed column does).
    X = np.array([[None, 1.0]], dtype=object)
    clf = model().partial_fit(X, [0], classes=[0, 1])
    values = np.arange(200.0) % 40
    for lo in range(0, 200, 5):  # streaming calls of plain floats
        rows = np.column_stack([values[lo : lo + 5], np.ones(5)])
        clf.partial_fit(rows, (rows[:, 0] > 20).astype(int))
    assert clf._columns.kinds.tolist() == [1, 1]  # numeric
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match="column 0 held numbers so far"):
        clf.partial_fit(np.array([["s", 1.0]], dtype=object), [1])
    assert pickle.dumps(clf) == before


def test_a_loaded_model_of_a_frame_predicts_it_without_warnings():
    # The first use's consistency check predicted an array, and scikit-learn
    # warned that X had no feature names (twice, at the user's predict).
    import warnings

    frame, y = table_stream(n=100)
    loaded = pickle.loads(pickle.dumps(model().fit(frame, y)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded.predict(frame)


def test_a_series_or_an_int_beyond_float64_gets_a_clear_error():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": [0.1, 0.5, 0.9, 0.3], "c": ["x", "y", "x", "y"]})
    y = [0, 1, 0, 1]
    clf = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    state = pickle.dumps(clf)
    # A row taken as a Series (strings in it): "could not convert string".
    for call in (lambda: clf.predict(X.iloc[0]), lambda: clf.partial_fit(X["c"], y)):
        with pytest.raises(ValueError, match="Expected a 2-dimensional container"):
            call()
    # An int too large for a float in an object column: a bare OverflowError.
    huge = X.assign(a=pd.Series([10**400, 1, 2, 3], dtype=object))
    for call in (lambda: clf.predict(huge), lambda: clf.partial_fit(huge, y)):
        with pytest.raises(ValueError, match="column 'a' holds a value beyond float64"):
            call()
    assert pickle.dumps(clf) == state
