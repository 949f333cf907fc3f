"""Refining only the features that matter: ``refined_features``."""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import StumpRegretTable
from sklearn_localregret.thresholds import QuantileThresholds


def feed(source, X, batch, rank=None):
    """Observe ``X`` round by round; the candidates, in order."""
    source.start(X.shape[1])
    out = []
    for lo in range(0, X.shape[0], batch):
        out.extend(source.observe(X[lo : lo + batch], rank=rank))
    return out


def planted(n_rows, n_features, seed=0):
    """Standard normal features; a depth-2 tree on the first three, 5% noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    y = np.where(X[:, 0] > 0.3, X[:, 1] > -0.5, X[:, 2] > 0.8).astype(int)
    return X, y ^ (rng.random(n_rows) < 0.05)


def test_later_checkpoints_refine_the_best_ranked_features_only():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(256, 6))
    scores = np.array([0.0, 3.0, 1.0, 5.0, 1.0, 0.5])
    calls = []

    def rank():
        calls.append(1)
        return scores

    got = feed(QuantileThresholds(refined_features=2), X, 8, rank)
    every = feed(QuantileThresholds(), X, 8)
    features = np.array([j for j, _ in got])
    # The medians of all six at 16 rows, then features 3 and 1 (the two
    # highest scores) only, with the thresholds they get without the limit.
    assert sorted(features[:6].tolist()) == list(range(6))
    assert set(features[6:].tolist()) == {1, 3}
    assert got == [pair for pair in every if pair in got]
    assert len(got) == 6 + 2 * 6
    assert len(calls) == 2  # once per refining checkpoint, not per round


def test_ties_go_to_the_lower_feature_and_no_rank_means_feature_order():
    X = np.random.default_rng(1).normal(size=(64, 5))
    tied = feed(QuantileThresholds(refined_features=2), X, 4, lambda: np.ones(5))
    unranked = feed(QuantileThresholds(refined_features=2), X, 4)
    assert tied == unranked
    assert {j for j, _ in tied[5:]} == {0, 1}


def test_features_with_nothing_new_take_no_place():
    # Four 0/1 columns rank highest but have no threshold to add beyond 0.5:
    # the places go to the numeric columns.
    rng = np.random.default_rng(2)
    X = np.column_stack(
        [rng.integers(0, 2, size=(64, 4)), rng.normal(size=(64, 3))]
    ).astype(float)
    scores = np.array([9.0, 9.0, 9.0, 9.0, 0.0, 2.0, 1.0])
    got = feed(QuantileThresholds(refined_features=2), X, 4, lambda: scores)
    later = {j for j, _ in got[7:]}
    assert later == {5, 6}


def test_a_limit_above_the_offering_features_changes_nothing():
    X = np.random.default_rng(3).normal(size=(300, 4))
    every = feed(QuantileThresholds(), X, 5)
    assert feed(QuantileThresholds(refined_features=4), X, 5, lambda: 1 / 0) == every


def test_a_source_saved_before_the_parameter_refines_every_feature():
    source = QuantileThresholds()
    source.start(3)
    state = source.__getstate__()
    del state["refined_features"]
    loaded = QuantileThresholds.__new__(QuantileThresholds)
    loaded.__setstate__(state)
    assert loaded.refined_features is None


def test_test_shares_sum_each_sites_draw_shares():
    table = StumpRegretTable(n_classes=2, n_tests=3)
    rows = [table.row(key) for key in [(), ((0, True),), ((1, False),)]]
    rng = np.random.default_rng(4)
    for _ in range(5):
        table.update(
            rows,
            leaf_gains=rng.random((3, 2)),
            leaf_mask=np.ones((3, 2), dtype=bool),
            true_counts=rng.random((3, 3, 2)),
            class_counts=np.full((3, 2), 1.5),
            correct=rng.random(3),
            test_mask=np.ones((3, 3), dtype=bool),
        )
    expected = np.zeros(3)
    for row in rows:
        content, _, total = table.site(row)
        if total > 0:
            expected += content[table.n_leaves :] / total
    assert expected.sum() > 0
    np.testing.assert_allclose(table.test_shares(), expected, rtol=1e-12)


def test_wide_input_refines_the_planted_features_and_keeps_the_rest_at_one():
    X, y = planted(1500, 300)
    model = LocalRegretTreeClassifier(random_state=0, refined_features=8).fit(X, y)
    counts = np.bincount(model.test_features_, minlength=300)
    assert counts.min() == 1  # every feature its median
    refined = np.flatnonzero(counts > 1)
    assert 1 <= len(refined) <= 2 * 8  # two refining checkpoints
    assert 0 in refined  # the root's feature
    every = LocalRegretTreeClassifier(random_state=0, refined_features=None).fit(X, y)
    assert every.test_features_.size > 6.9 * 300  # 7 each, about
    assert model.regret_nbytes_ < every.regret_nbytes_ / 2


def test_refinement_is_the_same_for_fit_and_one_row_calls():
    X, y = planted(400, 60, seed=1)
    whole = LocalRegretTreeClassifier(random_state=0, refined_features=4).fit(X, y)
    rows = LocalRegretTreeClassifier(random_state=0, refined_features=4)
    for lo in range(0, 400, 5):
        rows.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
    np.testing.assert_array_equal(whole.test_features_, rows.test_features_)
    np.testing.assert_array_equal(whole.predict_proba(X), rows.predict_proba(X))
    loaded = pickle.loads(pickle.dumps(whole))
    loaded.partial_fit(X[:5], y[:5])
    whole.partial_fit(X[:5], y[:5])
    np.testing.assert_array_equal(whole.predict_proba(X), loaded.predict_proba(X))


@pytest.mark.parametrize("bad", [0, -1, 1.5, "all"])
def test_bad_values_are_refused(bad):
    X, y = planted(20, 3)
    with pytest.raises(ValueError, match="refined_features"):
        LocalRegretTreeClassifier(refined_features=bad).fit(X, y)


def test_auto_refines_every_feature_up_to_64_columns_and_32_beyond():
    X, y = planted(300, 64, seed=2)
    auto = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    every = LocalRegretTreeClassifier(random_state=0, refined_features=None).fit(X, y)
    np.testing.assert_array_equal(auto.test_thresholds_, every.test_thresholds_)
    np.testing.assert_array_equal(auto.predict_proba(X), every.predict_proba(X))
    X, y = planted(300, 65, seed=2)
    counts = np.bincount(
        LocalRegretTreeClassifier(random_state=0).fit(X, y).test_features_
    )
    assert 32 <= np.count_nonzero(counts > 1) <= 2 * 32  # 64 refined with None
