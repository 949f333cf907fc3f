"""The thresholds' public classes refuse input that does not fit them.

A probe found segfaults and heap corruption (CSR rows wider than the source,
category codes that are not small whole numbers), entries of a CSR row read
one by one where a dense row sums them, and calls that changed the object
before failing.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_localregret.thresholds import (
    AdmittedColumns,
    ColumnEncoder,
    FixedThresholds,
    QuantileThresholds,
    ThresholdTests,
)


def _admitted():
    source = AdmittedColumns(6, n_classes=2, n_slots=2, first_checkpoint=1, min_rows=1)
    source.start(n_features=2)
    return source


def test_admitted_columns_refuse_rows_of_another_width_and_bad_labels():
    source = _admitted()
    before = pickle.dumps(source)
    wide = sp.random(3, 7, density=0.5, format="csr", random_state=0)  # wrote past
    for call in (
        lambda: source.project(wide),
        lambda: source.learn(wide, np.zeros(3, int), np.ones(3)),
        lambda: source.learn(np.ones((2, 6)), np.zeros(5, int), np.ones(5)),
        lambda: source.learn(np.ones((2, 6)), np.array([0, 2]), np.ones(2)),
        lambda: source.learn(np.ones((2, 6)), np.array([0, -1]), np.ones(2)),
    ):
        with pytest.raises(ValueError):
            call()
    assert pickle.dumps(source) == before  # (the rows were counted first)


def test_a_csr_row_with_repeated_entries_reads_as_its_dense_row():
    """Row 0's column 1 is stored as 2.0 and -1.5: its value is 0.5."""
    entries = (np.array([2.0, -1.5]), np.array([1, 1]), np.array([0, 2, 2]))
    X = sp.csr_matrix(entries, shape=(2, 6))
    assert not X.has_canonical_format
    y = np.array([1, 0])
    dense, sparse = _admitted(), _admitted()
    dense.learn(X.toarray(), y, np.ones(2))
    sparse.learn(X, y, np.ones(2))
    assert sparse._hit_rows.tolist() == dense._hit_rows.tolist() == [0, 1, 0, 0, 0, 0]
    for source in (dense, sparse):
        assert source.admit_if_due() == 1 and source.columns.tolist() == [1]
    np.testing.assert_array_equal(sparse.project(X), dense.project(X.toarray()))
    assert sparse.project(X)[:, 0].tolist() == [0.5, 0.0]  # the sum, not -1.5


@pytest.mark.parametrize("code", [np.inf, -np.inf, 1e300, -1e9, -1.0, 2.5, 1e13])
def test_category_codes_must_be_small_whole_numbers(code):
    """inf and -1e9 segfaulted, -1 marked code 3's test as present, 2.5 code
    2's, 1e13 asked for 36 TiB after extending the catalogue."""
    tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    categorical = np.array([True, False])
    tests.observe(np.array([[0.0, 1.0]]), categorical=categorical)
    before = pickle.dumps(tests)
    with pytest.raises(ValueError, match="category codes must be whole numbers"):
        tests.observe(np.array([[code, 1.0]]), categorical=categorical)
    assert pickle.dumps(tests) == before
    assert tests.may_grow(np.array([[code, 1.0]]), categorical)  # (never an index)


def test_the_catalogue_refuses_rows_of_another_width():
    tests = ThresholdTests(FixedThresholds(0.5), n_features=2)
    tests.observe(np.zeros((1, 2)))
    before = pickle.dumps(tests)
    for X in (np.zeros((2, 1)), np.zeros(2), np.zeros((1, 5))):
        with pytest.raises(ValueError, match="the tests read 2 columns"):
            tests.observe(X)
    assert pickle.dumps(tests) == before
    for X in (np.zeros((2, 1), np.float32), np.zeros((1, 5), int)):  # numpy path
        with pytest.raises(ValueError, match="the tests read 2 columns"):
            tests.outcomes(X)
    with pytest.raises(TypeError, match="dense rows"):
        tests.outcomes(sp.csr_matrix(np.zeros((1, 2))))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(refined_features=-1),  # refined all features but the last ranked
        dict(refined_features=1.5),
        dict(max_thresholds=-1),
        dict(first_checkpoint=0),
        dict(growth=0),
    ],
)
def test_quantile_thresholds_check_their_parameters(kwargs):
    with pytest.raises(ValueError, match="must be an int >="):
        QuantileThresholds(**kwargs)


def test_an_encoder_names_a_frame_of_another_width():
    pd = pytest.importorskip("pandas")
    first = pd.DataFrame({"a": [1.0, 2.0], "b": [np.nan, np.nan]})  # b untyped
    _, encoder = ColumnEncoder().encode(first, learning=True)
    with pytest.raises(ValueError, match="X has 3 features, but .* expecting 2"):
        encoder.encode(pd.DataFrame(np.ones((2, 3))), learning=True)


def test_max_categories_is_bounded_by_the_codes_the_catalogue_takes():
    from sklearn.utils._param_validation import InvalidParameterError

    from sklearn_localregret import LocalRegretTreeClassifier
    from sklearn_localregret.thresholds.category_codes import LARGEST_CODE

    LocalRegretTreeClassifier(max_categories=LARGEST_CODE).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(InvalidParameterError, match="max_categories"):
        LocalRegretTreeClassifier(max_categories=LARGEST_CODE + 1).fit(
            np.eye(4), [0, 1, 0, 1]
        )
