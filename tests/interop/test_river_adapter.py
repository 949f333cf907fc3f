"""``sklearn_localregret.river.RiverAdapter``: River's checks, and the adapter
learns exactly what ``partial_fit`` learns one row at a time."""

import doctest
import itertools
import pickle
import subprocess
import sys

import numpy as np
import pytest

river = pytest.importorskip("river")

from river import checks, datasets, evaluate, metrics  # noqa: E402

from sklearn_localregret import (  # noqa: E402
    LocalRegretDisjunctClassifier,
    LocalRegretForestClassifier,
    LocalRegretTreeClassifier,
)
from sklearn_localregret.baselines import Winnow2Classifier  # noqa: E402
from sklearn_localregret.river import RiverAdapter  # noqa: E402


def small_tree(**params):
    """A tree cheap enough to run River's checks in the suite."""
    return LocalRegretTreeClassifier(
        max_depth=3, n_predict_trees=5, random_state=0, **params
    )


# -- River's own estimator checks ---------------------------------------------

# River's datasets are 200 rows per check (2,000 for the memory check); the
# tree learner plays ~1 ms rounds, so it runs the same checks on the first
# ROWS_FOR_TREE rows of each dataset, and the memory check on River's first
# dataset only, at River's length (its tables grow by doubling, which over a
# few hundred rows can look like unbounded growth).
ROWS_FOR_TREE = 50

ADAPTERS = {
    "tree": lambda: RiverAdapter(small_tree()),
    "disjunct": lambda: RiverAdapter(
        LocalRegretDisjunctClassifier(binarize=0.5, random_state=0)
    ),
    "winnow2": lambda: RiverAdapter(Winnow2Classifier(binarize=0.5)),
    "forest": lambda: RiverAdapter(
        LocalRegretForestClassifier(n_estimators=2, max_depth=3, random_state=0)
    ),
}


def river_checks(kind):
    model = ADAPTERS[kind]()
    seen = set()
    for check in checks.yield_checks(model):
        dataset = getattr(check, "keywords", {}).get("dataset")
        name = check.__name__
        if kind in ("tree", "forest") and dataset is not None:
            if name != "check_bounded_memory_growth":
                check = _with_dataset(
                    check, list(itertools.islice(dataset, ROWS_FOR_TREE))
                )
            elif name in seen:
                continue
        seen.add(name)
        yield pytest.param(model, check, id=f"{kind}-{name}")


def _with_dataset(check, rows):
    def run(model):
        check.func(model, dataset=rows)

    run.__name__ = check.__name__
    return run


@pytest.mark.parametrize(
    "model, check", [case for kind in ADAPTERS for case in river_checks(kind)]
)
# (Some checks feed one model the rows of several datasets: keys ignored.)
@pytest.mark.filterwarnings("ignore:RiverAdapter. a row has the key")
def test_river_check(model, check):
    check(model.clone())


# -- learn_one is partial_fit on one row ---------------------------------------


def phishing(n):
    rows = list(itertools.islice(datasets.Phishing(), n))
    names = sorted(rows[0][0])
    X = np.array([[x[name] for name in names] for x, _ in rows])
    return rows, X, np.array([y for _, y in rows])


@pytest.mark.parametrize(
    "make",
    [small_tree, lambda: LocalRegretDisjunctClassifier(binarize=0.5, random_state=0)],
    ids=["tree", "disjunct"],
)
def test_learn_one_is_partial_fit_on_one_row(make):
    rows, X, y = phishing(120)
    adapter = RiverAdapter(make(), classes=[False, True])
    reference = make()
    reference.partial_fit(X[:1], y[:1], classes=[False, True])
    for i, (x, label) in enumerate(rows):
        # River's shuffled key order and, after the first row, dropped zeros
        # read the same row.
        shuffled = {
            name: x[name] for name in reversed(list(x)) if x[name] != 0 or i == 0
        }
        if i % 10 == 3:
            np.testing.assert_array_equal(
                list(adapter.predict_proba_one(shuffled).values()),
                np.clip(reference.predict_proba(X[i : i + 1])[0], 0, 1),
            )
            assert adapter.predict_one(x) == reference.predict(X[i : i + 1])[0]
        adapter.learn_one(shuffled, label)
        if i:
            reference.partial_fit(X[i : i + 1], y[i : i + 1])
    assert pickle.dumps(adapter.estimator_) == pickle.dumps(reference)
    assert adapter.feature_names_ == sorted(rows[0][0])
    assert list(adapter.predict_proba_one(rows[0][0])) == [False, True]


def test_winnow2_predicts_through_decision_function():
    rows, X, y = phishing(60)
    adapter = RiverAdapter(Winnow2Classifier(binarize=0.5))
    reference = Winnow2Classifier(binarize=0.5).partial_fit(X, y, classes=[0, 1])
    for x, label in rows:
        adapter.learn_one(x, label)
    np.testing.assert_array_equal(adapter.estimator_.coef_, reference.coef_)
    assert [adapter.predict_one(x) for x, _ in rows] == [
        bool(v) for v in reference.predict(X)
    ]
    with pytest.raises(NotImplementedError, match="predict_proba"):
        adapter.predict_proba_one(rows[0][0])


def test_progressive_val_score_is_the_test_then_train_error():
    rows, X, y = phishing(200)
    adapter = RiverAdapter(small_tree(), classes=[False, True])
    accuracy = evaluate.progressive_val_score(rows, adapter, metrics.Accuracy())
    reference = small_tree()
    right = 0
    for i in range(len(y)):
        if i:
            right += reference.predict(X[i : i + 1])[0] == y[i]
            reference.partial_fit(X[i : i + 1], y[i : i + 1])
        else:
            right += y[0] == False  # noqa: E712 (the first class, before learning)
            reference.partial_fit(X[:1], y[:1], classes=[False, True])
    assert accuracy.get() == right / len(y)


# -- labels --------------------------------------------------------------------


def three_class_stream(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = np.array(["a", "b", "c"])[np.argmax(X, axis=1)]
    return [
        ({f"x{j}": v for j, v in enumerate(row)}, label)
        for row, label in zip(X.tolist(), y.tolist())
    ]


def test_discovered_labels_give_the_model_that_knew_them_all():
    stream = three_class_stream(80)
    first_c = next(i for i, (_, label) in enumerate(stream) if label == "c")
    discovering = RiverAdapter(small_tree())
    knowing = RiverAdapter(small_tree(), classes=["c", "b", "a"])
    for i, (x, label) in enumerate(stream):
        discovering.learn_one(x, label)
        knowing.learn_one(x, label)
        if i == first_c - 1:
            assert discovering.classes_ == sorted({y for _, y in stream[: i + 1]})
    assert discovering.classes_ == knowing.classes_ == ["a", "b", "c"]
    assert discovering.n_restarts_ == 2 and knowing.n_restarts_ == 0
    assert pickle.dumps(discovering.estimator_) == pickle.dumps(knowing.estimator_)
    x = stream[0][0]
    assert discovering.predict_proba_one(x) == knowing.predict_proba_one(x)


def test_replay_rows_bounds_what_a_new_label_relearns():
    stream = three_class_stream(40, seed=1)
    # Only "a" and "b" in the first 30 rows, then "c".
    stream = [
        (x, "c" if i == 35 else ("a" if y == "c" else y))
        for i, (x, y) in enumerate(stream)
    ]
    adapter = RiverAdapter(small_tree(), replay_rows=5)
    for x, label in stream[:36]:
        adapter.learn_one(x, label)
    # The 5 rows before the new label, then the new row.
    assert adapter.estimator_.n_samples_seen_ == 6
    assert adapter.n_replay_rows_ == 5
    reference = RiverAdapter(small_tree(), classes=["a", "b", "c"])
    for x, label in stream[30:36]:
        reference.learn_one(x, label)
    assert pickle.dumps(adapter.estimator_) == pickle.dumps(reference.estimator_)


def test_n_replay_rows_counts_the_rows_kept():
    stream = three_class_stream(12, seed=2)
    adapter = RiverAdapter(small_tree(), replay_rows=4)
    counts = []
    for x, label in stream:
        adapter.learn_one(x, label)
        counts.append(adapter.n_replay_rows_)
    assert counts == [1, 2, 3, 4] + [4] * 8
    assert RiverAdapter(small_tree()).n_replay_rows_ == 0  # nothing learnt yet
    known = RiverAdapter(small_tree(), classes=["a", "b", "c"])
    binary = RiverAdapter(LocalRegretDisjunctClassifier(random_state=0))
    for x, label in stream:
        known.learn_one(x, label)
        binary.learn_one(x, label == "a")
    assert known.n_replay_rows_ == binary.n_replay_rows_ == 0  # nothing to replay


def test_binary_learners_and_given_classes_refuse_other_labels():
    adapter = RiverAdapter(LocalRegretDisjunctClassifier(random_state=0))
    assert adapter.classes_ == [False, True]
    assert adapter.predict_proba_one({"a": 1}) == {False: 1.0, True: 0.0}
    assert adapter.predict_one({"a": 1}) is False
    adapter.learn_one({"a": 1, "b": 0}, True)
    before = pickle.dumps(adapter)
    with pytest.raises(ValueError, match="not in classes"):
        adapter.learn_one({"a": 1, "b": 0}, "yes")
    assert pickle.dumps(adapter) == before
    given = RiverAdapter(small_tree(), classes=["x", "y"])
    with pytest.raises(ValueError, match="'z' is not in classes"):
        given.learn_one({"a": 1.0}, "z")
    assert given.estimator_ is None
    assert RiverAdapter(small_tree()).predict_one({"a": 1}) is None
    assert RiverAdapter(small_tree()).predict_proba_one({"a": 1}) == {}


# -- bad rows: a clear error, nothing changed -----------------------------------

BAD_ROWS = [
    ({"a": 1.0, "b": float("inf")}, ValueError, "feature 'b' is inf"),
    ({"a": [1, 2], "b": 1.0}, TypeError, "feature 'a' has value"),
    ({"a": 1 + 2j, "b": 1.0}, TypeError, "feature 'a' has value"),
    ([1.0, 2.0], TypeError, "x must be a dict"),
]
# The tree learner reads strings (categories) and NaN (missing values).
NOT_FOR_THE_TREE = [
    ({"a": "red", "b": 1.0}, TypeError, "feature 'a' has value 'red'"),
    ({"a": float("nan"), "b": 1.0}, ValueError, "feature 'a' is nan"),
]


def disjunct(**params):
    return LocalRegretDisjunctClassifier(binarize=0.5, random_state=0, **params)


@pytest.mark.parametrize(
    "make, x, error, match",
    [(small_tree, *case) for case in BAD_ROWS]
    + [(disjunct, *case) for case in BAD_ROWS + NOT_FOR_THE_TREE],
)
@pytest.mark.parametrize("fitted", [False, True])
def test_bad_rows_raise_and_change_nothing(make, x, error, match, fitted):
    adapter = RiverAdapter(make(), classes=[0, 1])
    if fitted:
        adapter.learn_one({"a": 1.0, "b": 0.0}, 1)
    before = pickle.dumps(adapter)
    with pytest.raises(error, match=match):
        adapter.learn_one(x, 0)
    if fitted:
        with pytest.raises(error, match=match):
            adapter.predict_proba_one(x)
    assert pickle.dumps(adapter) == before


def test_bad_labels_parameters_and_values_for_the_learner():
    adapter = RiverAdapter(small_tree())
    with pytest.raises(ValueError, match="y is None"):
        adapter.learn_one({"a": 1.0}, None)
    for missing in (float("nan"), np.nan):  # scikit-learn's bare message came
        with pytest.raises(ValueError, match="a missing label"):
            adapter.learn_one({"a": 1.0}, missing)
    with pytest.raises(TypeError, match="not 'ab'"):  # its letters are no labels
        RiverAdapter(small_tree(), classes="ab").learn_one({"a": 1.0}, "a")
    with pytest.raises(TypeError, match="is a list: labels are strings"):
        adapter.learn_one({"a": 1.0}, ["a"])
    with pytest.raises(ValueError, match="no features"):
        adapter.learn_one({}, 1)
    with pytest.raises(TypeError, match="classifier of sklearn_localregret"):
        RiverAdapter(object()).learn_one({"a": 1.0}, 1)
    with pytest.raises(ValueError, match="replay_rows"):
        RiverAdapter(small_tree(), replay_rows=-1).learn_one({"a": 1.0}, 1)
    # A 0/1 learner refuses other values, before any state changes.
    disjunct = RiverAdapter(
        LocalRegretDisjunctClassifier(binarize=None, random_state=0)
    )
    disjunct.learn_one({"a": 1, "b": 0}, True)
    before = pickle.dumps(disjunct)
    with pytest.raises(ValueError, match="0/1"):
        disjunct.learn_one({"a": 0.5, "b": 0}, True)
    assert pickle.dumps(disjunct) == before


def test_class_docstring_examples_run():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(RiverAdapter, "RiverAdapter"):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_river_stays_optional():
    """Importing the module does not import River; using the adapter without
    River says how to install it."""
    code = "\n".join(
        [
            "import sys",
            "import sklearn_localregret.river as adapter",
            "print('river' in sys.modules)",
            "sys.modules['river'] = None  # as if it were not installed",
            "try:",
            "    adapter.RiverAdapter",
            "except ImportError as exc:",
            "    print(exc)",
        ]
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    lines = out.stdout.splitlines()
    assert lines[0] == "False"
    assert "pip install river" in lines[1]


def test_keys_beyond_the_first_rows_are_ignored_with_a_warning():
    """River's OneHotEncoder adds a key for each category it meets: the first
    row's columns held one, and the others were dropped without a word
    (57.7% on a concept of the category, River's tree 93.3%)."""
    adapter = RiverAdapter(small_tree(), classes=[0, 1])
    adapter.learn_one({"colour_r": 1.0}, 1)
    adapter.learn_one({"colour_r": 0.0}, 0)  # the same keys: nothing said
    with pytest.warns(UserWarning, match="'colour_g', not among the columns"):
        adapter.learn_one({"colour_g": 1.0}, 1)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once
        adapter.learn_one({"colour_b": 1.0}, 0)
    assert adapter.feature_names_ == ["colour_r"]
    # The categories given up front are columns from the first row.
    from river import compose, preprocessing

    encoder = preprocessing.OneHotEncoder(categories={"colour": ["b", "g", "r"]})
    model = compose.Pipeline(encoder, RiverAdapter(small_tree(), classes=[0, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for colour, label in [("r", 1), ("g", 1), ("b", 0)] * 3:
            model.learn_one({"colour": colour}, label)
    assert model[-1].feature_names_ == ["colour_b", "colour_g", "colour_r"]


def test_labels_and_values_a_learner_cannot_take_are_named():
    # A tuple label became a row of the classes' array (a bare KeyError, or
    # classes_ [[1], [2]]); an int beyond float64 raised OverflowError.
    adapter = RiverAdapter(small_tree())
    for label in [(1, 2), (1,), frozenset({1})]:
        with pytest.raises(TypeError, match="labels are strings, numbers or bools"):
            adapter.learn_one({"a": 1.0}, label)
    with pytest.raises(TypeError, match="labels are strings, numbers or bools"):
        RiverAdapter(small_tree(), classes=[(1,), (2,)]).learn_one({"a": 1.0}, (1,))
    with pytest.raises(ValueError, match="'a' has a value beyond float64's range"):
        adapter.learn_one({"a": 10**400}, 1)
    adapter.learn_one({"a": 1.0}, 1)
    state = pickle.dumps(adapter)
    with pytest.raises(TypeError, match="is a tuple"):
        adapter.learn_one({"a": 1.0}, ("r", 1))
    with pytest.raises(ValueError, match="beyond float64's range"):
        adapter.predict_proba_one({"a": -(10**400)})
    assert pickle.dumps(adapter) == state


def test_set_valued_feature_names_take_one_order():
    # Sets order by inclusion only: sorted() kept the dict's own order.
    names = [frozenset({3}), frozenset({1}), frozenset({2})]
    fitted = []
    for order in (names, names[::-1]):
        adapter = RiverAdapter(small_tree())
        adapter.learn_one({name: float(i) for i, name in enumerate(order)}, 1)
        fitted.append(adapter.feature_names_)
    assert fitted[0] == fitted[1] == [frozenset({1}), frozenset({2}), frozenset({3})]


@pytest.mark.parametrize("other", [1.0, "x"])
def test_a_nan_leaves_a_column_untyped_whatever_the_row_holds(other):
    # {"a": nan, "b": 1.0} made a row of floats, which typed "a" numbers (a
    # later "red" was refused); with "b" a string it stayed untyped.
    adapter = RiverAdapter(LocalRegretTreeClassifier(random_state=0), classes=[0, 1])
    adapter.learn_one({"a": float("nan"), "b": other}, 0)
    adapter.learn_one({"a": np.float64("nan"), "b": other}, 1)
    adapter.learn_one({"a": "red", "b": other}, 1)
    assert adapter.estimator_.categories_[0] == ["red"]


def test_learn_one_checks_what_partial_fit_checks_first():
    adapter = RiverAdapter(LocalRegretTreeClassifier(random_state=0), classes=[0, 1])
    for i in range(20):
        adapter.learn_one({"a": float(i % 3), "b": "xy"[i % 2]}, i % 2)
    rounds = adapter.estimator_.n_rounds_
    adapter.estimator_.set_params(max_depth=2)  # a built parameter
    with pytest.raises(ValueError, match="max_depth=2 was set after"):
        adapter.learn_one({"a": 1.0, "b": "x"}, 1)
    assert adapter.estimator_.n_rounds_ == rounds  # nothing learnt


def test_a_label_of_another_type_is_named():
    adapter = RiverAdapter(LocalRegretTreeClassifier(random_state=0))
    for i in range(6):
        adapter.learn_one({"a": float(i)}, i % 2)
    with pytest.raises(ValueError, match=r"label '1' \(str\) is not of the type"):
        adapter.learn_one({"a": 1.0}, "1")


def test_a_bad_row_with_a_new_label_names_its_column():
    adapter = RiverAdapter(LocalRegretTreeClassifier(random_state=0))
    for i in range(6):
        adapter.learn_one({"colour": "ab"[i % 2], "size": float(i)}, i % 2)
    with pytest.raises(ValueError, match="column 'size' held numbers"):
        adapter.learn_one({"colour": "a", "size": "big"}, 2)  # relearns, then fails
    assert adapter.classes_ == [0, 1]


def test_replay_rows_of_numbers_are_saved_as_one_array():
    # skops wrote each kept row as an object of its own (4.5x the pickle).
    adapter = RiverAdapter(LocalRegretTreeClassifier(random_state=0), replay_rows=50)
    for i in range(80):
        adapter.learn_one(
            {"a": float(i % 7), "b": float(i % 3)}, "yes" if i % 2 else "no"
        )
    state = adapter.__getstate__()
    assert state["_recent"]["rows"].shape == (50, 2)
    copy = pickle.loads(pickle.dumps(adapter))
    assert list(copy._recent)[-1][1] == "yes" and copy._recent.maxlen == 50
    for i in range(80, 100):  # a new label replays the kept rows alike
        for learner in (adapter, copy):
            learner.learn_one(
                {"a": float(i % 5), "b": 1.0}, "maybe" if i > 90 else "no"
            )
    x = {"a": 2.0, "b": 1.0}
    assert copy.predict_proba_one(x) == adapter.predict_proba_one(x)
    assert copy.n_restarts_ == adapter.n_restarts_ == 2  # "yes", then "maybe"
    # Rows of categories stay a list of rows.
    mixed = RiverAdapter(LocalRegretTreeClassifier(random_state=0), replay_rows=5)
    for i in range(8):
        mixed.learn_one({"a": "xy"[i % 2]}, i % 2)
    assert isinstance(mixed.__getstate__()["_recent"], list)
