"""External regret on a long discounted stream: quiet sites are forgotten.

Every ``FORGET_EVERY`` rounds a discounted tree learner drops the sites none
of whose regrets exceeds ``FORGET_TOLERANCE * Delta`` (the root excepted), so
that its table holds the paths in play, not every path ever played; the
samplers and the label cache are rebuilt around the compacted table.
"""

import pickle
import sys
from pathlib import Path

import numpy as np

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._tree import ExternalPlayer
from sklearn_localregret.engine import FORGET_EVERY, FORGET_TOLERANCE

sys.path.insert(0, str(Path(__file__).parent / "engine"))
from reference_labels import ReferenceLabels  # noqa: E402


def _moving_concept(n=3000, seed=0):
    # The concept moves to another feature every 500 rows: the paths of the
    # old concepts stop being played and their regrets decay.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = np.zeros(n, dtype=int)
    for k in range(n // 500):
        rows = slice(500 * k, 500 * (k + 1))
        y[rows] = X[rows, k % 6] > 0
    return X, y


def _fit(monkeypatch=None, **params):
    X, y = _moving_concept()
    est = LocalRegretTreeClassifier(random_state=0, **params)
    return est.fit(X, y), X, y


def test_quiet_sites_and_only_they_are_forgotten(monkeypatch):
    calls = []
    forget = ExternalPlayer._forget_quiet_sites

    def watched(self, round_range):
        table = self.table
        magnitudes = table.row_magnitudes()
        keys = list(table._keys)
        forget(self, round_range)
        if table.n_rounds % FORGET_EVERY == 0:
            tolerance = FORGET_TOLERANCE * self.largest_round
            kept = set(table._keys)
            gone = [k for k in keys if k not in kept]
            calls.append((gone, magnitudes, keys, tolerance))

    monkeypatch.setattr(ExternalPlayer, "_forget_quiet_sites", watched)
    _fit(discount=0.9)
    assert calls, "no forgetting round in the stream"
    forgotten = 0
    for gone, magnitudes, keys, tolerance in calls:
        quiet = {k for k, m in zip(keys, magnitudes) if m <= tolerance and k != ()}
        assert set(gone) == quiet
        forgotten += len(gone)
    assert forgotten > 0


def test_the_table_holds_the_sites_in_play(monkeypatch):
    kept, X, y = _fit(discount=0.9)
    monkeypatch.setattr(ExternalPlayer, "_forget_quiet_sites", lambda self, r: None)
    everything, _, _ = _fit(discount=0.9)
    assert kept.n_sites_ < everything.n_sites_ / 2
    # Undiscounted regrets never decay: nothing is forgotten.
    monkeypatch.undo()
    paper, _, _ = _fit(discount=1.0)
    monkeypatch.setattr(ExternalPlayer, "_forget_quiet_sites", lambda self, r: None)
    paper_everything, _, _ = _fit(discount=1.0)
    assert paper.n_sites_ == paper_everything.n_sites_


def test_after_forgetting_the_model_is_consistent_and_learns_on():
    est, X, y = _fit(discount=0.9)
    table = est.regret_table_
    assert table.n_rounds >= 2 * FORGET_EVERY
    # The walk over the compacted table, leaves read as labels (the
    # reference reads no models), against the reference walk.
    outcomes = est._tests.outcomes(X)
    proba = est._player.labels.probabilities(outcomes)
    with np.errstate(all="ignore"):
        reference = ReferenceLabels(table).probabilities(outcomes)
    np.testing.assert_allclose(proba, reference, atol=1e-9)
    # The rebuilt path links: every kept site whose parent path was kept too
    # (a site whose parent was forgotten waits, unreachable, until the
    # parent is played again and enters anew).
    keys = set(table._keys)
    with_parent = sum(1 for key in keys if key and key[:-1] in keys)
    assert (est._player.labels.paths.child >= 0).sum() == with_parent
    assert with_parent > table.n_rows / 2
    loaded = pickle.loads(pickle.dumps(est))
    for lo in range(0, 1500, 300):  # past another forgetting round
        est.partial_fit(X[lo : lo + 300], y[lo : lo + 300])
        loaded.partial_fit(X[lo : lo + 300], y[lo : lo + 300])
    np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
    assert loaded.n_sites_ == est.n_sites_


def _measured_afresh(table):
    """row_magnitudes' definition, measured on every row (numpy)."""
    n, t = table.n_rows, table.n_tests
    bound = np.abs(table._leaf[:n]).max(axis=(1, 2), initial=0.0)
    if t:
        pairs = (
            np.abs(table._true[:n, :t]).max(axis=2)
            + np.abs(table._false[:n, :t]).max(axis=2)
            + np.abs(table._cost[:n, :, :t]).max(axis=1)
        )
        bound = np.maximum(bound, pairs.max(axis=1))
    return bound / table.clock.scale


def test_row_magnitudes_remeasure_every_row_that_moved():
    # The cache is keyed by the rows' versions: updates, growth, forgetting
    # (rows move), the clock's renormalisation and a pickle round trip must
    # each leave it equal to a measure of every row afresh.
    X, y = _moving_concept(n=1500)
    # At 0.8 the scale passes RENORMALIZE_AT after ~1,030 rounds.
    est = LocalRegretTreeClassifier(random_state=0, discount=0.8, batch_size=1)
    est.partial_fit(X[:3], y[:3], classes=[0, 1])
    scales = []
    for start in range(3, len(X), 60):
        est.partial_fit(X[start : start + 60], y[start : start + 60])
        table = est._player.table
        np.testing.assert_array_equal(table.row_magnitudes(), _measured_afresh(table))
        scales.append(table.clock.scale)
        if start % 600 == 3:
            est = pickle.loads(pickle.dumps(est))
    assert any(later < earlier for earlier, later in zip(scales, scales[1:]))
