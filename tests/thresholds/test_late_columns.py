"""Columns with no threshold when the quantile schedule ends (no value yet,
or a single one) are watched on until they get theirs.

The schedule's checkpoints end at 256 rows (16, 64, 256 at the defaults): a
column missing or constant until then never got a test, and the tree could
never split on it, whatever it came to say (its vote stayed at the majority
class over 20,000 rows).
"""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.thresholds import QuantileThresholds
from sklearn_localregret.thresholds.quantile import LATE_ROWS


def _rounds(source, X, batch=10):
    """Every threshold the source proposes over ``X``, in rounds of ``batch``."""
    proposed = []
    for lo in range(0, len(X), batch):
        proposed += source.observe(X[lo : lo + batch])
    return proposed


@pytest.mark.parametrize("first", [np.nan, 5.0], ids=["missing", "constant"])
def test_a_late_column_gets_its_thresholds_at_the_next_checkpoint(first):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1100, 2))
    X[:300, 0] = first
    source = QuantileThresholds()
    source.start(2)
    proposed = _rounds(source, X[:1020])  # the schedule ends at 256 rows
    late = [t for j, t in proposed if j == 0]
    assert late == [] and not source.complete  # (it was complete, for good)
    proposed = _rounds(source, X[1020:])  # 1,024 rows: the next checkpoint
    late = sorted(t for j, t in proposed if j == 0)
    assert len(late) == 7 and source.complete
    # Every level at once, on the values since the schedule ended.
    kept = np.sort(X[260:1030, 0][~np.isnan(X[260:1030, 0])])
    assert kept[0] < late[0] and late[-1] < kept[-1]
    assert np.median(kept) == pytest.approx(late[3], abs=0.05)


def test_a_column_missing_for_ever_is_given_up_after_the_late_rows():
    X = np.random.default_rng(1).normal(size=(LATE_ROWS * 5, 2))
    X[:, 1] = np.nan
    source = QuantileThresholds()
    source.start(2)
    for lo in range(0, len(X), 4096):
        source.observe(X[lo : lo + 4096])
        if source.complete:
            break
    assert source.complete and lo < 4 * LATE_ROWS
    assert source.observe(X[:10]) == []


def test_categorical_columns_are_not_late():
    # They read as NaN to the source: watching them would cost every round.
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.choice(["a", "b"], 400), rng.normal(size=400)])
    X = X.astype(object)
    X[:, 1] = X[:, 1].astype(float)
    model = LocalRegretTreeClassifier(random_state=0)
    for lo in range(0, 400, 10):
        model.partial_fit(
            X[lo : lo + 10], (X[lo : lo + 10, 0] == "a").astype(int), classes=[0, 1]
        )
    assert model._tests.source.complete


def test_the_tree_learns_a_column_that_came_late():
    rng = np.random.default_rng(8)
    signal = rng.normal(size=3000)
    X = np.column_stack([signal, rng.normal(size=3000)])
    X[:300, 0] = np.nan
    y = (signal > 0.3).astype(int)
    model = LocalRegretTreeClassifier(random_state=0, prediction="vote")
    for lo in range(0, 500, 10):
        model.partial_fit(X[lo : lo + 10], y[lo : lo + 10], classes=[0, 1])
    assert 0 not in model.test_features_.tolist()
    loaded = pickle.loads(pickle.dumps(model))  # watching column 0: saved too
    for lo in range(500, 3000, 10):
        model.partial_fit(X[lo : lo + 10], y[lo : lo + 10])
        loaded.partial_fit(X[lo : lo + 10], y[lo : lo + 10])
    np.testing.assert_array_equal(loaded.test_thresholds_, model.test_thresholds_)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert 0 in model.test_features_.tolist()
    assert model.score(X[2000:], y[2000:]) > 0.95  # 0.609 before: the majority
