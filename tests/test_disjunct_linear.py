"""The disjunct learner's linear model, the third expert of its hedge."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from test_root_model_expert import progressive_error

import sklearn_localregret._disjunct_linear as disjunct_linear
from sklearn_localregret import LocalRegretDisjunctClassifier
from sklearn_localregret._base.rounds import STREAMING_CALL_ROWS
from sklearn_localregret._tree.root_linear import RootLinear
from sklearn_localregret.datasets import load_stream
from sklearn_localregret.persistence import check_consistency


def majority_stream(n=1200, seed=0):
    """The concept "at least two of x0, x1, x2": linear, and no disjunction
    fits it (the best of the 256, x2 alone, errs on 0.23 of the rows)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 8)) < 0.4).astype(np.uint8)
    y = (X[:, :3].sum(axis=1) >= 2).astype(int)
    return X, y


def test_the_linear_model_learns_the_rows_as_scikit_learns_would():
    # The expert is RootLinear on the 0/1 rows, learnt round by round (the
    # same steps as scikit-learn's PA-I on standardised rows:
    # test_root_linear.py).
    X, y = majority_stream(300)
    clf = LocalRegretDisjunctClassifier(batch_size=3, random_state=0).fit(X, y)
    reference = RootLinear(2, X.shape[1])
    for lo in range(0, len(y), 3):
        reference.learn(X[lo : lo + 3], y[lo : lo + 3], np.ones(len(y[lo : lo + 3])))
    model = clf._linear_expert
    np.testing.assert_allclose(model.coef, reference.coef, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.intercept, reference.intercept, rtol=1e-12)
    np.testing.assert_array_equal(model.count, reference.count)


def test_a_streaming_call_scores_the_linear_model_before_the_call():
    # Twenty rounds of one row in one call: each scored by the model before
    # the call, which is what a caller that predicts the call's rows first
    # is given (not the model after the call's earlier rounds).
    X, y = majority_stream(200)
    clf = LocalRegretDisjunctClassifier(random_state=0)
    clf.partial_fit(X[:5], y[:5], classes=[0, 1])
    before = clf._hedge.losses[2]
    given = clf._linear_expert.labels(X[5:25])
    one_by_one = pickle.loads(pickle.dumps(clf))
    clf.partial_fit(X[5:25], y[5:25])
    expected = float((given != y[5:25]).sum())
    moving = 0.0  # what scoring each round by the model before it would add
    for i in range(5, 25):
        moving += float(one_by_one._linear_expert.labels(X[i : i + 1])[0] != y[i])
        one_by_one.partial_fit(X[i : i + 1], y[i : i + 1])
    assert moving != expected  # (else the test could not fail)
    assert clf._hedge.losses[2] - before == expected


def test_a_bulk_call_scores_each_round_before_it_learns():
    # A call of more rows than a streaming call's: round by round, each round
    # scored by the model of the rounds before it, as one row per call is.
    X, y = majority_stream(300)
    clf = LocalRegretDisjunctClassifier(random_state=0)
    clf.partial_fit(X[:5], y[:5], classes=[0, 1])
    before = clf._hedge.losses[2]
    replay = pickle.loads(pickle.dumps(clf))
    stop = 5 + STREAMING_CALL_ROWS + 16
    clf.partial_fit(X[5:stop], y[5:stop])
    expected = 0.0
    for i in range(5, stop):
        expected += float(replay._linear_expert.labels(X[i : i + 1])[0] != y[i])
        replay.partial_fit(X[i : i + 1], y[i : i + 1])
    assert expected > 0  # (else the test could not fail)
    assert clf._hedge.losses[2] - before == expected


def test_the_hedge_follows_the_linear_model_where_it_leads():
    X, y = majority_stream()
    stream = type("Stream", (), {"X": X, "y": y, "classes": np.array([0, 1])})
    hedged = LocalRegretDisjunctClassifier(random_state=0)
    vote = LocalRegretDisjunctClassifier(random_state=0, prediction="vote")
    errors = [progressive_error(est, stream, len(y)) for est in (hedged, vote)]
    # The best disjunction errs on 0.23 of these rows, the linear model on
    # almost none once it has learnt.
    assert hedged.linear_weight_ > 0.9
    assert errors[0] < errors[1] - 0.05
    assert hedged.hedge_regret_bound_ > 0


def test_the_alternating_stream_gets_the_best_constant():
    # One instance whose label alternates every ten rows: standardised, its
    # columns have no spread, so the linear model never steps and predicts
    # one class throughout (half the rows right). The hedge finds it, though
    # slowly: it scores rounds of one row, on which the vote errs on about
    # 0.56 of the rows, while calls of ten rows predicted before they are
    # learnt see the vote err on 0.87 (seed 0: hedge 0.547, play 0.663).
    stream = load_stream("alternating", n_rows=3000, seed=0)
    errors = {
        p: progressive_error(
            LocalRegretDisjunctClassifier(random_state=0, prediction=p), stream, 3000
        )
        for p in ("hedge", "vote", "sample")
    }
    assert errors["hedge"] < min(errors["vote"], errors["sample"]) - 0.05
    hedged = LocalRegretDisjunctClassifier(random_state=0)
    progressive_error(hedged, stream, 3000)
    assert hedged.linear_weight_ > 0.9
    assert np.all(hedged._linear_expert.coef == 0.0)


def test_sparse_rows_learn_and_predict_as_dense_ones():
    X, y = majority_stream(300)
    dense = LocalRegretDisjunctClassifier(random_state=0).fit(X, y)
    sparse = LocalRegretDisjunctClassifier(random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse._linear_expert.coef, dense._linear_expert.coef)
    assert sparse._hedge.losses.tolist() == dense._hedge.losses.tolist()
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))
    np.testing.assert_array_equal(
        sparse.predict_proba(sp.csr_matrix(X)), dense.predict_proba(X)
    )


def test_no_linear_model_for_the_vote_swap_regret_or_wide_input(monkeypatch):
    X, y = majority_stream(200)
    for clf in (
        LocalRegretDisjunctClassifier(prediction="vote", random_state=0),
        LocalRegretDisjunctClassifier(regret="swap", random_state=0),
    ):
        clf.fit(X, y)
        assert "_linear_expert" not in clf.__dict__
        assert clf._hedge.n_experts == 2 and clf.linear_weight_ == 0.0
    monkeypatch.setattr(disjunct_linear, "MAX_LINEAR_COLUMNS", X.shape[1] - 1)
    wide = LocalRegretDisjunctClassifier(random_state=0).fit(X, y)
    assert "_linear_expert" not in wide.__dict__ and wide._hedge.n_experts == 2
    # Its hedge still weighs the vote and the play.
    assert wide._hedge.gap > 0 or wide._hedge.losses[1] > 10.0


def test_the_vote_plays_the_same_rounds_as_the_hedge():
    # The expert changes predictions, never the plays.
    X, y = majority_stream(400)
    models = [
        LocalRegretDisjunctClassifier(random_state=0, prediction=p).fit(X, y)
        for p in ("vote", "hedge")
    ]
    assert models[0].online_error_ == models[1].online_error_
    np.testing.assert_array_equal(models[0].pi_proba(X), models[1].pi_proba(X))


def test_a_saved_learner_keeps_its_linear_model_and_refuses_a_forged_one():
    X, y = majority_stream(300)
    clf = LocalRegretDisjunctClassifier(random_state=0).fit(X[:200], y[:200])
    loaded = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    for est in (clf, loaded):
        est.partial_fit(X[200:], y[200:])
    mine, theirs = clf.__getstate__(), loaded.__getstate__()
    assert list(mine) == list(theirs)
    for name in mine:  # (pickle's memo may differ between the two)
        assert pickle.dumps(mine[name]) == pickle.dumps(theirs[name]), name
    check_consistency(clf)
    clf._linear_expert.coef = np.zeros((2, 3))
    with pytest.raises(ValueError, match="linear expert: the linear model.s weights"):
        check_consistency(clf)
    del clf.__dict__["_linear_expert"]
    with pytest.raises(ValueError, match="the hedge weighs 3 experts, not 2"):
        check_consistency(clf)


def test_a_merge_adds_the_linear_models_sums():
    X, y = majority_stream(400)
    a = LocalRegretDisjunctClassifier(random_state=0).fit(X[:200], y[:200])
    b = LocalRegretDisjunctClassifier(random_state=1).fit(X[200:], y[200:])
    names = ("coef", "intercept", "count", "total", "squares")
    # b's sums taken from a's columns' first values (tests/test_root_shift.py).
    theirs = b._linear_expert.sums_for(a._linear_expert, names)
    sums = {name: getattr(a._linear_expert, name) + theirs[name] for name in names}
    a.merge(b)
    for name, expected in sums.items():
        np.testing.assert_allclose(
            getattr(a._linear_expert, name), expected, rtol=1e-15, err_msg=name
        )
