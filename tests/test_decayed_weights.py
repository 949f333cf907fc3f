"""Weights that decay to 1e-300 keep the probabilities exact and finite.

With ``discount < 1`` a site that stops being played keeps decaying: after
70,000 rounds at 0.99 (1,000 at 0.5) its weights are 1e-300 of the table's
while its parent's age rate is still of order one. The prediction walk once
divided the age rate by such a weight (overflow, then ``inf * 0``): a round's
probabilities were NaN, the hedge's loss too, and from then on ``predict``
gave ``classes_[0]`` for every row (found on a 1M-row stream at the default
discount).
"""

import sys
from pathlib import Path

import numpy as np

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._tree import ExternalPlayer

sys.path.insert(0, str(Path(__file__).parent / "engine"))
from reference_labels import ReferenceLabels  # noqa: E402


def _moving_concept(n=6000, seed=0):
    # The concept moves to another feature every 1,000 rows: the sites of the
    # old concepts stop being played and their weights decay.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = np.zeros(n, dtype=int)
    for k in range(6):
        rows = slice(1000 * k, 1000 * (k + 1))
        y[rows] = X[rows, k] > 0
    return X, y


def test_decayed_sites_keep_the_probabilities_finite_and_exact(monkeypatch):
    # A learner drops such sites every 256 rounds now (tests/
    # test_forget_sites.py); kept here, they test the walk's arithmetic.
    monkeypatch.setattr(ExternalPlayer, "_forget_quiet_sites", lambda self, r: None)
    X, y = _moving_concept()
    # Leaves read as labels: the reference below is the label walk.
    est = LocalRegretTreeClassifier(
        discount=0.5, random_state=0, leaf_prediction="label"
    ).fit(X, y)
    table = est.regret_table_
    weights = table._total[: est.n_sites_]
    # The state this test is about: weights 1e280 times below others.
    assert weights[weights > 0].min() < 1e-280 * weights.max()
    assert np.all(np.isfinite(est._hedge.losses))
    proba = est.pi_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    # The Python walk the kernels replaced (its own order of operations).
    with np.errstate(all="ignore"):
        reference = ReferenceLabels(table).probabilities(est._tests.outcomes(X))
    np.testing.assert_allclose(proba, reference, atol=1e-9)
    # Leaves that read their sites' models (decayed scores) keep them finite.
    reading = LocalRegretTreeClassifier(discount=0.5, random_state=0).fit(X, y)
    scores = reading.regret_table_.read_scores
    assert (scores[:, 0] > scores[:, 1]).any()
    read = reading.pi_proba(X)
    assert np.all(np.isfinite(read)) and np.all(read >= 0.0)
    np.testing.assert_allclose(read.sum(axis=1), 1.0, atol=1e-9)
    # The vote is the most probable class, not classes_[0] for every row.
    est.set_params(prediction="vote")
    np.testing.assert_array_equal(est.predict(X), proba.argmax(axis=1))
