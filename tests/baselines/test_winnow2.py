"""Winnow2Classifier: the sklearn contract, its mistake bound, the Winnow killer."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_localregret.baselines.winnow2 import Winnow2Classifier

# The scikit-learn estimator checks of this estimator (and why some are expected
# to fail) live in tests/test_common.py, with those of every public estimator.


def test_one_update_by_hand():
    clf = Winnow2Classifier(alpha=3.0)
    # n = 4, threshold 2. Row 1: score 2, not > 2 -> predicts 0 on a positive.
    clf.partial_fit([[1, 1, 0, 0]], [1], classes=[0, 1])
    np.testing.assert_array_equal(clf.coef_, [3, 3, 1, 1])
    assert clf.n_online_mistakes_ == 1
    # Row 2: score 3 + 1 + 1 = 5 > 2 on a negative row: demote by 3.
    clf.partial_fit([[1, 0, 1, 1]], [0])
    np.testing.assert_allclose(clf.coef_, [1, 3, 1 / 3, 1 / 3])
    # Correct prediction: no change.
    clf.partial_fit([[0, 1, 0, 0]], [1])
    np.testing.assert_allclose(clf.coef_, [1, 3, 1 / 3, 1 / 3])
    assert clf.n_online_mistakes_ == 2
    np.testing.assert_array_equal(clf.decision_function([[0, 1, 0, 0]]), [1.0])


@pytest.mark.parametrize("seed", range(5))
def test_mistake_bound_on_a_separable_disjunction(seed):
    """Fewer than 3 k (log2 theta + 1) + 4 mistakes (derivation in the Notes)."""
    rng = np.random.default_rng(seed)
    n, k = 32, 3
    relevant = rng.choice(n, k, replace=False)
    X = (rng.random((4000, n)) < 0.1).astype(int)
    y = X[:, relevant].max(axis=1)
    clf = Winnow2Classifier().fit(X, y)
    assert clf.n_online_mistakes_ < 3 * k * (np.log2(n / 2) + 1) + 4
    assert clf.score(X, y) == 1.0


def test_winnow_killer_does_badly():
    n = 20
    rows = np.vstack([np.eye(n, dtype=int), np.ones((1, n), dtype=int)])
    labels = np.r_[np.ones(n, dtype=int), 0]
    pick = np.random.default_rng(0).integers(0, n + 1, 2000)
    clf = Winnow2Classifier().fit(rows[pick], labels[pick])
    # The best disjunction errs on 1/21 of the rows; Winnow2 on most of them.
    assert clf.online_error_ > 0.5


def test_deterministic_and_binary_only():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(300, 6))
    y = X[:, 0] | X[:, 2]
    a = Winnow2Classifier().fit(X, y)
    b = Winnow2Classifier().fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not hasattr(a, "predict_proba")
    with pytest.raises(ValueError, match="^Only binary classification is supported"):
        Winnow2Classifier().fit(X, rng.integers(0, 3, 300))


def test_threshold_and_string_labels():
    X = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]] * 10)
    y = np.array(["no", "yes", "no"] * 10)
    clf = Winnow2Classifier(threshold=1.5).fit(X, y)
    assert clf.threshold_ == 1.5
    np.testing.assert_array_equal(clf.predict(X[:3]), ["no", "yes", "no"])


def _sparse_stream(n_rows, n_features, seed, values=(1.0,)):
    """Rows with ~8 active features of ``n_features``, labelled by a disjunction
    of features 3 and 7, as CSR; ``values`` are the nonzeros' values."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, 40, size=(n_rows, 8))
    cols[:, 0] = rng.integers(0, n_features, size=n_rows)  # a wide column too
    rows = np.repeat(np.arange(n_rows), 8)
    data = rng.choice(values, size=rows.size)
    X = sp.csr_matrix((data, (rows, cols.ravel())), shape=(n_rows, n_features))
    X.sum_duplicates()
    if values == (1.0,):  # 0/1 rows: a column drawn twice is still 1
        X.data[:] = 1.0
    y = ((X[:, 3].toarray() > 0.5) | (X[:, 7].toarray() > 0.5)).ravel().astype(int)
    return X, y


@pytest.mark.parametrize("binarize", [None, 0.0, 0.5])
def test_sparse_input_learns_the_dense_model_exactly(binarize):
    """CSR rounds read the nonzeros: the same weights, mistakes and predictions
    as the dense rows, bit for bit -- with explicit zeros and duplicate entries
    (summed, as toarray sums them) in the sparse input."""
    values = (1.0,) if binarize is None else (0.3, 0.8, 1.0)
    X, y = _sparse_stream(600, 50, seed=1, values=values)
    # An explicit zero and a duplicated entry, which canonical CSR sums (a 0
    # added to a 1 without binarize: the input must stay 0/1).
    X = X.tocoo()
    data = np.concatenate([X.data, [0.0, 0.0 if binarize is None else 1.0]])
    rows = np.concatenate([X.row, [0, 1]])
    cols = np.concatenate([X.col, [5, int(X.col[X.row == 1][0])]])
    X = sp.csr_matrix((data, (rows, cols)), shape=X.shape)
    dense = Winnow2Classifier(binarize=binarize).fit(X.toarray(), y)
    for fmt in ("csr", "csc"):
        sparse = Winnow2Classifier(binarize=binarize).fit(X.asformat(fmt), y)
        np.testing.assert_array_equal(sparse.coef_, dense.coef_)
        assert sparse.n_online_mistakes_ == dense.n_online_mistakes_ > 0
        np.testing.assert_array_equal(sparse.predict(X), dense.predict(X.toarray()))
    online = Winnow2Classifier(binarize=binarize)
    for lo in range(0, 600, 7):
        online.partial_fit(X[lo : lo + 7], y[lo : lo + 7], classes=[0, 1])
    np.testing.assert_array_equal(online.coef_, dense.coef_)


def test_wide_sparse_input_is_never_densified():
    """2**20 columns: the weights take 8 MiB; a dense block of the 300 rows
    would take 300 MiB (and 4 GiB at 4,096 rows)."""
    X, y = _sparse_stream(300, 2**20, seed=2)
    tracemalloc.start()
    model = Winnow2Classifier(threshold=4.0).fit(X, y)
    model.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 40e6, peak
    assert model.n_online_mistakes_ < 30


def test_large_weights_saturate_instead_of_overflowing():
    """alpha**w overflowed to inf (then NaN) past w ~ 1024 at alpha=2, for
    weights the learner accepts (up to 1e100): the weights now saturate
    within [1e-300, 1e300 / n], never 0, inf or NaN."""
    X = np.array([[1, 0], [1, 0], [0, 1]])
    y = np.array([1, 0, 1])
    clf = Winnow2Classifier().fit(X, y, sample_weight=[1100, 1100, 1])
    assert np.all(np.isfinite(clf.coef_)) and np.all(clf.coef_ > 0)
    assert clf.coef_.max() <= 1e300 / 2
    assert clf.predict(X).tolist() == [0, 0, 1]
    huge = Winnow2Classifier().fit(X[1:], [1, 0], sample_weight=[1e100, 1])
    assert huge.coef_.tolist() == [pytest.approx(1e300 / 2), 1.0]
    # Ordinary weights: the plain products, bit for bit.
    plain = Winnow2Classifier().fit(X, y, sample_weight=[3, 1, 2])
    assert plain.coef_.tolist() == [4.0, 4.0]  # x8, then /2; then x4


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_binarize_must_be_finite(value):
    from sklearn.utils._param_validation import InvalidParameterError

    from sklearn_localregret import LocalRegretDisjunctClassifier

    for learner in (
        Winnow2Classifier(binarize=value),
        LocalRegretDisjunctClassifier(binarize=value),
    ):
        with pytest.raises(InvalidParameterError, match="binarize"):
            learner.fit(np.eye(4), [0, 1, 0, 1])
