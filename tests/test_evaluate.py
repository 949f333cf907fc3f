"""progressive_score: genuinely test-then-train, exact curves, clear errors."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import SGDClassifier
from sklearn.naive_bayes import GaussianNB

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.evaluate import progressive_score

NEVER = -1  # a label no stream below has


class LabelPeeker:
    """Cheats through a side channel: remembers every label it is trained on,
    keyed by the row id in column 0, and predicts it when asked about that row
    again. Rows it has not been trained on get a label that is always wrong, so
    an honest test-then-train harness gives it an error of exactly 1."""

    def __init__(self):
        self.known = {}

    def partial_fit(self, X, y, classes=None):
        self.known.update(
            zip(np.asarray(X)[:, 0].astype(int).tolist(), np.asarray(y).tolist())
        )
        return self

    def predict(self, X):
        return np.array([self.known.get(int(i), NEVER) for i in np.asarray(X)[:, 0]])


class CallLog:
    """Records each call with the row ids it was given."""

    def __init__(self):
        self.calls = []

    def partial_fit(self, X, y, classes=None):
        self.calls.append(
            ("fit", np.asarray(X)[:, 0].astype(int).tolist(), classes is not None)
        )
        return self

    def predict(self, X):
        self.calls.append(("predict", np.asarray(X)[:, 0].astype(int).tolist()))
        return np.zeros(len(X), dtype=int)


def _indexed_stream(n=103, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.arange(n), rng.integers(0, 2, size=(n, 3))])
    return X, rng.integers(0, 2, size=n)


@pytest.mark.parametrize("batch_size", [1, 7, 103, 500])
def test_a_label_leak_would_be_caught(batch_size):
    X, y = _indexed_stream()
    result = progressive_score(LabelPeeker(), X, y, batch_size=batch_size)
    # Every row was predicted before its label reached the learner.
    assert result.mistakes.all() and result.error == 1.0
    # The cheat works as soon as a label has been seen: had the harness learned
    # a round before predicting it, the error would be 0.
    peeker = LabelPeeker().partial_fit(X, y)
    assert (peeker.predict(X) == y).all()


def test_each_round_is_predicted_then_learned_in_order():
    X, y = _indexed_stream(n=23)
    log = CallLog()
    progressive_score(log, X, y, batch_size=5)
    rounds = [list(range(lo, min(lo + 5, 23))) for lo in range(0, 23, 5)]
    expected = []
    for k, rows in enumerate(rounds):
        expected += [("predict", rows), ("fit", rows, k == 0)]
    assert log.calls == expected


def test_mistakes_match_a_hand_written_loop():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    result = progressive_score(
        SGDClassifier(random_state=0), X, y, batch_size=20, window=50
    )
    model, wrong = SGDClassifier(random_state=0), []
    for lo in range(0, 300, 20):
        if lo:
            wrong += list(model.predict(X[lo : lo + 20]) != y[lo : lo + 20])
        else:
            wrong += [True] * 20  # nothing learned yet: no prediction
        model.partial_fit(X[lo : lo + 20], y[lo : lo + 20], classes=[0, 1])
    assert result.mistakes.tolist() == wrong
    assert result.n_unpredicted == 20
    # The estimator was updated in place: it is the hand-trained model.
    np.testing.assert_array_equal(result.estimator.coef_, model.coef_)
    # Curves at the end of each round, from the per-row mistakes.
    assert result.rows.tolist() == list(range(20, 301, 20))
    wrong = np.array(wrong, dtype=float)
    for k, end in enumerate(result.rows):
        assert result.windowed_error[k] == pytest.approx(
            wrong[max(end - 50, 0) : end].mean()
        )
        assert result.cumulative_error[k] == pytest.approx(wrong[:end].mean())
    assert result.window_error == pytest.approx(wrong[-50:].mean())
    assert result.error == pytest.approx(wrong.mean())
    summary = result.summary()
    assert summary["n_rows"] == 300 and summary["rows_per_second"] > 0


def test_last_round_may_be_shorter_and_a_fitted_model_predicts_at_once():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 2))
    y = (X[:, 0] > 0).astype(int)
    model = GaussianNB().fit(X, y)
    result = progressive_score(model, X, y, batch_size=16)
    assert result.rows.tolist() == [16, 32, 48, 50]
    assert result.n_unpredicted == 0
    assert model.class_count_.sum() == 100  # fitted on 50, then learned 50 more


def test_our_learner_and_dataframes_with_feature_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 2, size=(60, 3)), columns=["a", "b", "c"])
    y = X["a"].to_numpy() ^ X["b"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "X does not have valid feature names"
        result = progressive_score(
            LocalRegretTreeClassifier(random_state=0), X, y, batch_size=10
        )
    assert list(result.estimator.feature_names_in_) == ["a", "b", "c"]
    assert result.n_rows == 60


def test_classes_may_include_labels_not_in_the_stream():
    X, y = _indexed_stream(n=30)
    result = progressive_score(
        SGDClassifier(random_state=0), X, y, batch_size=10, classes=[0, 1, 2]
    )
    assert result.estimator.classes_.tolist() == [0, 1, 2]


def test_a_fitted_model_goes_on_over_a_stretch_without_one_of_its_classes():
    # The stretch's own labels were passed as classes, which a model fitted
    # on three classes refused ("not the same as on the first call").
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    model = LocalRegretTreeClassifier(random_state=0).fit(X[:200], y[:200])
    stretch = y[200:] != 2
    result = progressive_score(model, X[200:][stretch], y[200:][stretch])
    assert result.estimator.classes_.tolist() == [0, 1, 2]
    assert result.n_unpredicted == 0


class _NoPartialFit:
    def predict(self, X):
        return np.zeros(len(X))


class _WrongLength(CallLog):
    def predict(self, X):
        if self.calls:
            return np.zeros(len(X) + 1)
        raise NotFittedError


def test_bad_input_is_refused_clearly():
    X, y = _indexed_stream(n=10)
    with pytest.raises(TypeError, match="no partial_fit"):
        progressive_score(_NoPartialFit(), X, y)
    with pytest.raises(TypeError, match=r"not the class SGDClassifier: pass SGDC"):
        progressive_score(SGDClassifier, X, y)  # ("missing self" in predict)
    for bad in (0, -1, 1.5, True, None):
        with pytest.raises(ValueError, match="batch_size must be an integer >= 1"):
            progressive_score(SGDClassifier(), X, y, batch_size=bad)
        with pytest.raises(ValueError, match="window must be an integer >= 1"):
            progressive_score(SGDClassifier(), X, y, window=bad)
    with pytest.raises(ValueError, match="different numbers of rows: 10 and 9"):
        progressive_score(SGDClassifier(), X, y[:9])
    with pytest.raises(ValueError, match="empty"):
        progressive_score(SGDClassifier(), X[:0], y[:0])
    with pytest.raises(ValueError, match=r"shape \(6,\) for 5 rows"):
        progressive_score(_WrongLength(), X, y, batch_size=5)
    column = _WrongLength()
    column.predict = lambda rows: np.zeros((len(rows), 1))  # a column of labels
    with pytest.raises(ValueError, match=r"shape \(5, 1\) for 5 rows"):
        progressive_score(column, X, y, batch_size=5)


def test_progressive_score_takes_any_sparse_format():
    """A COO matrix (not subscriptable) scores as its CSR form."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = (rng.random((60, 4)) < 0.5).astype(float)
    y = (X[:, 0] > 0).astype(int)
    scores = [
        progressive_score(SGDClassifier(random_state=0), form(X), y, batch_size=7).error
        for form in (sp.csr_matrix, sp.coo_matrix, sp.dia_matrix)
    ]
    assert scores[0] == scores[1] == scores[2]
