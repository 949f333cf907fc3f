"""The root's passive-aggressive linear model, an expert of the tree's hedge."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import StandardScaler
from test_root_model_expert import hedge_and_vote_errors

from sklearn_localregret._tree.root_linear import RootLinear


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("rows_per_call", [1, 5])
def test_the_linear_model_is_scikit_learns_passive_aggressive(n_classes, rows_per_call):
    # PA-I one against the rest on features standardised by the rows seen
    # (StandardScaler.partial_fit then transform, call by call), as the
    # leaderboard's passive-aggressive learner.
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(200, 4)) * [1.0, 3.0, 0.5, 10.0] + [0.0, 5.0, -1.0, 2.0]
    y = (X[:, :2] @ [1.0, 0.3] > 1.5).astype(int) + (n_classes == 3) * (X[:, 2] > -1)
    ours = RootLinear(n_classes, 4)
    scaler = StandardScaler()
    theirs = SGDClassifier(
        loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0, shuffle=False
    )
    for lo in range(0, 200, rows_per_call):
        rows = slice(lo, lo + rows_per_call)
        ours.learn(X[rows], y[rows], np.ones(len(y[rows])))
        scaler.partial_fit(X[rows])
        theirs.partial_fit(
            scaler.transform(X[rows]), y[rows], classes=np.arange(n_classes)
        )
    # scikit-learn keeps one vector for two classes: ours for class 1 (class
    # 0's is its negative).
    coef = ours.coef[1:] if n_classes == 2 else ours.coef
    intercept = ours.intercept[1:] if n_classes == 2 else ours.intercept
    np.testing.assert_allclose(coef, theirs.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(intercept, theirs.intercept_, rtol=1e-9, atol=1e-12)
    if n_classes == 2:
        np.testing.assert_allclose(ours.coef[0], -ours.coef[1], atol=1e-12)
    np.testing.assert_array_equal(ours.labels(X), theirs.predict(scaler.transform(X)))
    proba = ours.proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba.argmax(axis=1), ours.labels(X))


def test_the_linear_model_reads_known_values_of_its_columns():
    model = RootLinear(2, 2)
    X = np.array([[0.0, 5.0], [1.0, -5.0]] * 10)
    model.learn(X, np.array([0, 1] * 10), np.ones(20), np.array([True, False]))
    assert np.all(model.coef[:, 1] == 0.0) and model.count[1] == 0.0
    # A missing value is the column's mean: no evidence either way.
    proba = model.proba(np.array([[np.nan, 5.0], [1.0, np.nan]]))
    np.testing.assert_allclose(proba[0], proba[0][::-1])
    assert proba[1].argmax() == 1
    # Rows of all-zero standardised features take no step (scikit-learn's rule).
    before = model.coef.copy()
    model.learn(
        np.array([[0.5, 0.0]]), np.array([0]), np.ones(1), np.array([True, False])
    )
    np.testing.assert_array_equal(model.coef, before)


def test_the_linear_model_takes_the_weight_after_abrupt_drifts():
    # STAGGER: three boolean concepts in turn. The passive-aggressive model
    # recovers within a few rows of each drift, the tree's vote regrows its
    # splits (measured over seeds 0-2, rounds of 10: 0.013 against 0.101).
    model, errors = hedge_and_vote_errors("stagger")
    assert model.linear_weight_ > 0.9
    assert errors[0] < errors[1] - 0.05


def test_categorical_columns_are_read_one_hot():
    # A column of codes next to a numeric one: the model equals scikit-learn's
    # PA-I on the rows one-hot encoded over max_categories slots, then
    # standardised (the codes themselves are not read as numbers).
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 300).astype(float)
    numeric = rng.normal(size=300)
    X = np.column_stack([numeric, codes])
    y = ((codes == 1) | (codes == 3)).astype(int) ^ (numeric > 1.5)
    ours = RootLinear(2, 2, categorical=[False, True], max_categories=5)
    expanded = np.column_stack([numeric, np.eye(5)[codes.astype(int)]])
    scaler = StandardScaler()
    theirs = SGDClassifier(
        loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0, shuffle=False
    )
    for lo in range(0, 300, 3):
        rows = slice(lo, lo + 3)
        ours.learn(X[rows], y[rows], np.ones(3))
        scaler.partial_fit(expanded[rows])
        theirs.partial_fit(scaler.transform(expanded[rows]), y[rows], classes=[0, 1])
    # Ours: the numeric column, the code column (left out: 0 weight), slots.
    assert ours.coef.shape == (2, 2 + 5)
    assert np.all(ours.coef[:, 1] == 0.0)
    kept = [0, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(
        ours.coef[1, kept], theirs.coef_[0], rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(ours.intercept[1], theirs.intercept_[0], rtol=1e-9)
    np.testing.assert_array_equal(
        ours.labels(X), theirs.predict(scaler.transform(expanded))
    )
    # An unseen category (NaN) is missing: every slot at its mean.
    proba = ours.proba(np.array([[0.0, np.nan]]))
    rows, mask = ours.inputs(np.array([[0.0, np.nan]]))
    assert np.isnan(rows[0, 2:]).all() and not mask[1] and mask[2:].all()
    np.testing.assert_allclose(proba.sum(), 1.0)


def test_the_tree_reads_raw_categories_in_its_linear_model():
    # Label "colour is red or blue" from strings: no order of the codes is
    # linear in it, one-hot is. The tree's root linear model learns it.
    pd = pytest.importorskip("pandas")
    from sklearn_localregret import LocalRegretTreeClassifier

    rng = np.random.default_rng(1)
    colours = np.array(["red", "green", "blue", "black"])[rng.integers(0, 4, 600)]
    X = pd.DataFrame({"colour": colours, "size": rng.normal(size=600)})
    y = np.isin(colours, ["red", "blue"]).astype(int)
    tree = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    linear = tree._root_linear
    assert linear.coef.shape == (2, 2 + tree.max_categories)
    encoded = tree._encode_columns(X, learning=False)
    assert np.mean(linear.labels(encoded, tree._numeric_columns()) == y) == 1.0


def test_the_inputs_mask_follows_the_columns_asked_for():
    # The model keeps its last mask for the next call: a call with other
    # columns (another array, or the same array changed) gets its own.
    model = RootLinear(2, 3, categorical=[False, True, False], max_categories=2)
    X = np.array([[0.5, 1.0, -1.0]])
    columns = np.array([True, False, True])

    def expected(mask):
        return np.concatenate([mask & [True, False, True], [True, True]])

    for mask in ([True, False, True], [False, False, True], None, [True] * 3):
        asked = None if mask is None else np.array(mask)
        _, got = model.inputs(X, asked)
        np.testing.assert_array_equal(got, expected(np.array(mask or [True] * 3)))
        if asked is not None:  # the same array, changed in place
            columns[:] = ~asked
            _, got = model.inputs(X, columns)
            np.testing.assert_array_equal(got, expected(~asked))
    assert "_last_mask" not in pickle.loads(pickle.dumps(model)).__dict__


@pytest.mark.parametrize("scale", [1e-6, 1e-8, 1e-10, 1e6])
def test_the_root_models_read_columns_of_any_scale(scale):
    """Standardised (the linear model) and smoothed relative to the largest
    variance (the Gaussian), the root models of columns times ``scale`` are
    those of the columns: an absolute floor (a variance of 1e-12, a spread
    of 1e-8) took columns of small values out, and the hedge with them."""
    from sklearn_localregret._tree.root_gaussian import RootGaussian

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3)) + [0.0, 2.0, -1.0]
    y = (X[:, 0] + X[:, 1] > 2.0).astype(int)
    test = rng.normal(size=(200, 3)) + [0.0, 2.0, -1.0]
    for make, learn in (
        (lambda: RootLinear(2, 3), lambda m, X: m.learn(X, y, np.ones(300))),
        (
            lambda: RootGaussian(2, 3, 1.0),
            lambda m, X: m.learn(X, y, np.ones(300), 1.0),
        ),
    ):
        plain, scaled = make(), make()
        learn(plain, X)
        learn(scaled, X * scale)
        np.testing.assert_allclose(
            scaled.proba(test * scale), plain.proba(test), rtol=1e-6, atol=1e-9
        )
