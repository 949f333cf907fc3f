"""Missing values and categories in the test layer: the catalogue's variants and
equality tests, NaN-aware quantiles, and the column encoder."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.thresholds import (
    EQUALS,
    GREATER,
    GREATER_OR_MISSING,
    ColumnEncoder,
    FixedThresholds,
    QuantileThresholds,
    ThresholdTests,
)


def mixed_stream(n=400, seed=0):
    """Numeric columns 0 and 1 (NaN in 1 from row 100 on, in 2 from the start),
    column 3 a categorical one of codes 0..4 (NaN: no code)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).round(1)
    X[100:, 1][rng.random(n - 100) < 0.3] = np.nan
    X[rng.random(n) < 0.2, 2] = np.nan
    X[:, 3] = rng.integers(0, 5, n)
    X[rng.random(n) < 0.1, 3] = np.nan
    return X


CATEGORICAL = np.array([False, False, False, True])


def catalogue(X, batch=5, **params):
    tests = ThresholdTests(QuantileThresholds(first_checkpoint=8, **params), 4)
    for lo in range(0, X.shape[0], batch):
        tests.observe(X[lo : lo + batch], CATEGORICAL)
    return tests


def test_outcomes_follow_the_definition_of_each_kind():
    X = mixed_stream()
    tests = catalogue(X)
    kinds = set(tests.kind.tolist())
    assert kinds == {GREATER, GREATER_OR_MISSING, EQUALS}
    got = tests.outcomes(X)
    for v in range(tests.n_tests):
        x, t = X[:, tests.feature[v]], tests.threshold[v]
        if tests.kind[v] == EQUALS:
            expected = x == t
        elif tests.kind[v] == GREATER_OR_MISSING:
            expected = np.isnan(x) | (x > t)
        else:
            expected = x > t
        np.testing.assert_array_equal(got[:, v], expected, err_msg=str(v))


def test_variants_enter_with_the_first_missing_value():
    X = mixed_stream()
    tests = catalogue(X)
    # Column 0 never misses: plain thresholds only; columns 1 and 2 get each
    # threshold twice, column 1's variants from row 100 on.
    assert tests.missing.tolist() == [False, True, True, False]
    for j in (1, 2):
        on_j = tests.tests_of(j)
        plain = sorted(tests.threshold[[v for v in on_j if tests.kind[v] == GREATER]])
        doubled = [v for v in on_j if tests.kind[v] == GREATER_OR_MISSING]
        assert plain == sorted(tests.threshold[doubled]) and plain
    assert set(tests.kind[tests.tests_of(0)].tolist()) == {GREATER}
    # Column 3 is categorical: one equality test per code met, nothing else.
    on_3 = tests.tests_of(3)
    assert set(tests.kind[on_3].tolist()) == {EQUALS}
    assert sorted(tests.threshold[on_3].tolist()) == [0, 1, 2, 3, 4]


def test_round_boundaries_decide_not_call_boundaries():
    X = mixed_stream(seed=1)
    one = catalogue(X)
    two = ThresholdTests(QuantileThresholds(first_checkpoint=8), 4)
    for lo in range(0, X.shape[0], 5):  # the same rounds, one call each
        two.observe(X[lo : lo + 5], CATEGORICAL)
    for name in ("feature", "threshold", "kind"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))


def test_quantiles_ignore_missing_values():
    rng = np.random.default_rng(2)
    values = rng.permutation(np.arange(1.0, 33.0))
    column = np.where(np.arange(32) % 2 == 0, values, np.nan)  # half missing
    source = QuantileThresholds(max_thresholds=1, first_checkpoint=32)
    source.start(2)
    got = source.observe(np.column_stack([column, np.full(32, np.nan)]))
    seen = np.sort(values[::2])  # the 16 values present
    assert got == [(0, (seen[7] + seen[8]) / 2)]  # their median; column 1: none


def test_boolean_columns_with_missing_values_get_their_test_at_once():
    source = QuantileThresholds()
    source.start(3)
    X = np.array([[0.0, np.nan, np.nan], [1.0, 1.0, np.nan], [np.nan, 0.0, np.nan]])
    assert source.observe(X) == [(0, 0.5), (1, 0.5)]  # not column 2: no value


def test_fixed_thresholds_get_their_variant_too():
    tests = ThresholdTests(FixedThresholds(0.0), n_features=2)
    assert tests.observe(np.array([[1.0, -1.0]])) == 2 and tests.complete
    assert tests.may_grow(np.array([[1.0, np.nan]]))
    assert not tests.may_grow(np.array([[1.0, 2.0]]))
    assert tests.observe(np.array([[1.0, np.nan]])) == 1
    assert tests.description(1) == (1, 0.0, "missing_fails")
    assert tests.description(2) == (1, 0.0, "missing_passes")
    assert tests.description(0) == (0, 0.0)


def test_extend_outcomes_derives_late_tests_on_earlier_rows():
    X = mixed_stream(n=600, seed=3)
    X[:, 1] = np.where(np.arange(600) < 400, np.abs(X[:, 1]), X[:, 1])  # no NaN
    X[:400, 3] = np.minimum(X[:400, 3], 2)  # codes 3, 4 only from row 400 on
    tests = ThresholdTests(QuantileThresholds(first_checkpoint=8), 4)
    for lo in range(0, 400, 5):
        tests.observe(X[lo : lo + 5], CATEGORICAL)
    assert tests.complete  # no threshold will enter: only variants, codes
    before, early = tests.n_tests, X[:400]
    passes = tests.outcomes(early)
    for lo in range(400, 600, 5):
        tests.observe(X[lo : lo + 5], CATEGORICAL)
    assert tests.n_tests > before
    np.testing.assert_array_equal(tests.extend_outcomes(passes), tests.outcomes(early))


def test_label_groups_are_passed_as_prefixes():
    """The prediction walk's groups: every row passes a prefix of each group's
    tests in increasing rank (else its bisection would be wrong)."""
    X = mixed_stream(seed=4)
    tests = catalogue(X)
    group, rank = tests.label_groups()
    outcomes = tests.outcomes(X)
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        ordered = outcomes[:, members[np.argsort(rank[members], kind="stable")]]
        # A prefix: once failed, never passed again.
        assert not (np.diff(ordered.astype(int), axis=1) > 0).any(), g
    equals = np.flatnonzero(tests.kind == EQUALS)
    assert len(set(group[equals].tolist())) == equals.size  # alone


def test_catalogue_saves_and_loads_with_its_kinds():
    tests = catalogue(mixed_stream(seed=5))
    loaded = pickle.loads(pickle.dumps(tests))
    X = mixed_stream(seed=6)
    np.testing.assert_array_equal(loaded.outcomes(X), tests.outcomes(X))
    np.testing.assert_array_equal(loaded.feature_kind, tests.feature_kind)
    assert loaded.tests_of(3) == tests.tests_of(3)
    # Saved with no new code met: nothing enters again.
    assert loaded.observe(X[:5, :], CATEGORICAL) == tests.observe(X[:5], CATEGORICAL)


def test_may_grow_sees_every_code_without_its_test():
    """A code past the coded ones, or in a gap between them, may bring a test;
    codes with theirs and missing values do not."""
    tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    categorical = np.array([False, True])
    tests.observe(np.array([[0.0, 0.0], [1.0, 2.0]]), categorical)  # codes 0, 2
    assert tests.complete
    assert not tests.may_grow(np.array([[1.0, 0.0], [0.0, 2.0]]), categorical)
    assert not tests.may_grow(np.array([[1.0, np.nan]]), categorical)
    assert tests.may_grow(np.array([[1.0, 1.0]]), categorical)  # the gap
    assert tests.may_grow(np.array([[1.0, 3.0]]), categorical)  # past them
    assert tests.observe(np.array([[1.0, 1.0]]), categorical) == 1
    assert not tests.may_grow(np.array([[1.0, 1.0]]), categorical)


@pytest.mark.parametrize("seed", range(4))
def test_may_grow_is_whether_observe_would_add_a_test(seed):
    """Once the thresholds are complete, ``may_grow`` is true exactly when
    ``observe`` would bring a test in (a numeric column's first missing value,
    a category code without its test), over random blocks of rows."""
    rng = np.random.default_rng(seed)
    tests = ThresholdTests(FixedThresholds(0.5), n_features=4)
    answers = []
    for _ in range(200):
        X = rng.normal(size=(int(rng.integers(1, 6)), 4)).round(1)
        X[:, 3] = rng.integers(0, 12, X.shape[0])
        X[rng.random(X.shape) < 0.05] = np.nan
        would = pickle.loads(pickle.dumps(tests)).observe(X, CATEGORICAL) > 0
        assert tests.may_grow(X, CATEGORICAL) == would
        answers.append(would)
        if rng.random() < 0.3:  # sometimes learn the block
            tests.observe(X, CATEGORICAL)
    assert 10 < sum(answers) < 190  # both answers were checked
    with pytest.raises(ValueError, match="read 4 columns"):
        tests.may_grow(np.zeros((1, 3)), CATEGORICAL)


@pytest.mark.parametrize("seed", range(3))
def test_a_rounds_new_codes_are_those_of_a_large_block(seed):
    """A round's few rows find their new codes with a set, a large block's
    with numpy: the same codes, increasing, whichever rows a block holds
    (codes in gaps between the coded ones, past them, repeated, missing)."""
    rng = np.random.default_rng(seed)
    few = ThresholdTests(FixedThresholds(0.5), n_features=4)
    many = ThresholdTests(FixedThresholds(0.5), n_features=4)
    for _ in range(60):
        X = rng.normal(size=(int(rng.integers(1, 8)), 4)).round(1)
        X[:, 3] = rng.integers(0, 40, X.shape[0])
        X[rng.random(X.shape) < 0.1] = np.nan
        # The same rows for the other catalogue, repeated past a round's size.
        block = np.repeat(X, 70 // X.shape[0] + 1, axis=0)
        assert few.observe(X, CATEGORICAL) == many.observe(block, CATEGORICAL)
        np.testing.assert_array_equal(few.threshold, many.threshold)
        np.testing.assert_array_equal(few.kind, many.kind)
    assert (few.kind == EQUALS).sum() > 20  # codes came in, a few at a time


# -- the column encoder ---------------------------------------------------------


def test_codes_follow_first_appearance_up_to_the_bound():
    X = np.array([["b", 1], ["a", None], [None, 2.5], ["c", 3], ["b", 4]], object)
    encoded, encoder = ColumnEncoder(max_categories=3).encode(X, learning=True)
    assert encoder.kinds.tolist() == [2, 1]
    assert encoder.categories == [["b", "a", None], None]
    np.testing.assert_array_equal(
        encoded, [[0, 1], [1, np.nan], [2, 2.5], [np.nan, 3], [0, 4]]
    )
    # Predicting: unseen (and beyond the bound) matches no code; nothing kept.
    again, same = encoder.encode(
        np.array([["z", 0.0], ["a", 1.0]], object), learning=False
    )
    assert same is encoder
    np.testing.assert_array_equal(again, [[np.nan, 0.0], [1, 1.0]])


def test_rows_of_known_categories_keep_the_encoder():
    """All-categorical object rows: known values (the missing category
    included) read their codes and keep the encoder; a value without a code
    is NaN when predicting and a new code when learning, in a new encoder."""
    X = np.array([["b", "x"], ["a", None], ["b", "y"]], object)
    encoded, encoder = ColumnEncoder().encode(X, learning=True)
    np.testing.assert_array_equal(encoded, [[0, 0], [1, 1], [0, 2]])
    rows = np.array([["a", "y"], ["b", None], ["a", "x"]], object)
    for learning in (False, True):
        again, kept = encoder.encode(rows, learning=learning)
        assert kept is encoder
        np.testing.assert_array_equal(again, [[1, 2], [0, 1], [1, 0]])
    unseen = np.array([["a", "z"], [None, "x"]], object)
    again, kept = encoder.encode(unseen, learning=False)
    assert kept is encoder
    np.testing.assert_array_equal(again, [[1, np.nan], [np.nan, 0]])
    again, grown = encoder.encode(unseen, learning=True)
    assert grown is not encoder and encoder.categories == [["b", "a"], ["x", None, "y"]]
    assert grown.categories == [["b", "a", None], ["x", None, "y", "z"]]
    np.testing.assert_array_equal(again, [[1, 3], [2, 0]])


def test_kept_readings_of_the_kinds_follow_a_column_turning_categorical():
    """The encoder keeps its categorical mask and its columns' code lookups
    (every row asks); a column that turns categorical later is read as one
    by them, and a saved encoder holds none of them."""
    X = np.array([["a", None], ["b", None]], object)  # column 1: not typed yet
    encoder = ColumnEncoder().encode(X, learning=True)[1]
    saved = pickle.dumps(encoder)
    rows = np.array([["b", "x"]], object)
    assert encoder._known_codes(np.array([["a", None]], object)) is None
    assert encoder.categorical.tolist() == [True, False]
    assert encoder.not_categorical.tolist() == [False, True]
    assert pickle.dumps(encoder) == saved  # the readings are not saved
    grown = encoder.encode(rows, learning=True)[1]
    assert grown.categorical.tolist() == [True, True]
    assert grown.not_categorical.tolist() == [False, False]
    np.testing.assert_array_equal(grown._known_codes(rows), [[1, 0]])
    assert grown._known_codes(np.array([["b", "new"]], object)) is None
    # Turned categorical in place (a fresh encoder's first rows) after a read.
    fresh = ColumnEncoder()
    fresh._start(2)
    assert fresh._known_codes(rows) is None and not fresh.categorical.any()
    coded = fresh._encode(rows, rows, True, True, [0, 1])
    np.testing.assert_array_equal(coded, [[0, 0]])
    assert fresh.categorical.tolist() == [True, True]
    np.testing.assert_array_equal(fresh._known_codes(rows), [[0, 0]])
    loaded = pickle.loads(pickle.dumps(grown))
    np.testing.assert_array_equal(loaded._known_codes(rows), [[1, 0]])


def test_a_failed_encoding_changes_nothing():
    encoder = ColumnEncoder().encode(np.array([["a", 1.0]], object), learning=True)[1]
    saved = pickle.dumps(encoder)
    with pytest.raises(ValueError, match="column 1 held numbers so far"):
        encoder.encode(np.array([["new", "x"]], object), learning=True)
    with pytest.raises(ValueError, match="column 0 held categories so far"):
        encoder.encode(np.array([[2.0, 1.0]], object), learning=True)
    with pytest.raises(ValueError, match="mixes numbers and strings"):
        ColumnEncoder().encode(np.array([["a"], [1.0]], object), learning=True)
    with pytest.raises(ValueError, match="expecting 2 features"):
        encoder.encode(np.array([["a", 1.0, 2.0]], object), learning=True)
    assert pickle.dumps(encoder) == saved


def test_numeric_input_passes_through_untouched():
    X = np.arange(6.0).reshape(3, 2)
    encoded, encoder = ColumnEncoder().encode(X, learning=True)
    assert encoded is X and encoder.kinds.tolist() == [1, 1]
    assert encoder.encode(X, learning=True)[1] is encoder  # nothing new


def test_dataframe_columns_of_every_kind():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "colour": pd.Categorical(["red", None, "blue", "red"]),
            "size": pd.Series([1, None, 3, 4], dtype="Int64"),
            "name": pd.Series(["x", "y", None, "x"], dtype="string"),
            "weight": [0.5, np.nan, 1.5, 2.0],
            "code": pd.Categorical([3, 1, 3, None]),  # categories of numbers
        }
    )
    encoded, encoder = ColumnEncoder().encode(frame, learning=True)
    assert list(encoded.columns) == list(frame.columns)
    assert encoder.kinds.tolist() == [2, 1, 2, 1, 2]
    assert encoder.categories[0] == ["red", None, "blue"]
    assert encoder.categories[4] == [3, 1, None]
    np.testing.assert_array_equal(encoded["colour"], [0, 1, 2, 0])
    np.testing.assert_array_equal(encoded["code"], [0, 1, 0, 2])
    # Numbers for the category of numbers, in a plain array: codes.
    plain, _ = encoder.encode(
        np.array([["red", 1, "x", 0.5, 1]], object), learning=False
    )
    np.testing.assert_array_equal(plain, [[0, 1, 0, 0.5, 1]])
    loaded = pickle.loads(pickle.dumps(encoder))
    np.testing.assert_array_equal(
        loaded.encode(frame, learning=False)[0].to_numpy(float, na_value=np.nan),
        encoded.to_numpy(float, na_value=np.nan),
    )
