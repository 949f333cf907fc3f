"""Forgetting that adapts: a tree learner per discount, hedged on the stream."""

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._discount_players import AUTO_DISCOUNTS, resolve_discounts
from sklearn_localregret.datasets import load_stream


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] > 0.3).astype(int) + (X[:, 1] > 0).astype(int)
    return X, y


def _player_probas(est, X):
    """Each player's probabilities, read from its own labels cache (leaves
    read their sites' models where those lead, as the learner's by default)."""
    outcomes = est._tests.outcomes(X)
    return np.stack(
        [
            state["_player"].labels.probabilities(outcomes, reads=True)
            for state in est._players.states
        ]
    )


def test_resolve_discounts():
    assert resolve_discounts("auto") == AUTO_DISCOUNTS
    assert resolve_discounts(0.9) == (0.9,)
    assert resolve_discounts(np.array([1.0, 0.95])) == (1.0, 0.95)
    for bad in ((), (0.9, 0.9), (0.0, 1.0), (1.0, 1.5), ("a",), (True,), "x"):
        with pytest.raises(ValueError, match="discount"):
            resolve_discounts(bad)


def test_predict_proba_is_the_players_mixed_by_their_weights():
    X, y = _rows(400)
    est = LocalRegretTreeClassifier(discount="auto", random_state=2).fit(X, y)
    probas = _player_probas(est, X)
    weights = est.discount_weights_
    assert 0.0 < weights.min() and np.isclose(weights.sum(), 1.0)
    np.testing.assert_allclose(
        est.pi_proba(X), np.tensordot(weights, probas, axes=1), atol=1e-12
    )
    # The players really differ: one forgets, one does not.
    assert np.abs(probas[0] - probas[1]).max() > 0.01
    assert [s["_player"].table.clock.discount for s in est._players.states] == [
        0.99,
        1.0,
    ]


def test_the_hedge_scores_each_player_before_it_learns_the_round():
    # The play losses of the players, recomputed round by round from their
    # probabilities before the round, are the hedge's losses; predicting the
    # rows first (the test-then-train loop, which reuses that prediction)
    # changes nothing.
    X, y = _rows(300, seed=1)
    classes = np.unique(y)
    batch = 5
    plain = LocalRegretTreeClassifier(discount="auto", random_state=2)
    looped = LocalRegretTreeClassifier(discount="auto", random_state=2)
    expected = np.zeros(2)
    for lo in range(0, len(y), batch):
        rows = slice(lo, lo + batch)
        if lo == 0:  # a new model is the root leaf, classes_[0], for sure
            expected += np.sum(y[rows] != classes[0])
        else:
            probas = _player_probas(plain, X[rows])
            n = len(y[rows])
            expected += [np.sum(1.0 - p[np.arange(n), y[rows]]) for p in probas]
            looped.predict(X[rows])
        plain.partial_fit(X[rows], y[rows], classes=classes)
        looped.partial_fit(X[rows], y[rows], classes=classes)
    np.testing.assert_allclose(plain._players.hedge.losses, expected, atol=1e-9)
    np.testing.assert_array_equal(looped._players.hedge.losses, expected)
    np.testing.assert_array_equal(looped.predict_proba(X), plain.predict_proba(X))


def test_a_drifting_stream_weighs_the_forgetting_player():
    # The concept turns over every few hundred rows: the undiscounted player
    # keeps the old concept (0.50 error in bench_adaptive_discount.py against
    # 0.13 forgetting), and the hedge follows the forgetting one.
    stream = load_stream("inverted", n_rows=1500, seed=0)
    est = LocalRegretTreeClassifier(discount="auto", random_state=0)
    est.fit(stream.X, stream.y)
    losses = est._players.hedge.losses
    assert losses[0] < losses[1] - 100
    assert est.discount_weights_[0] > 0.99
    # The hedge's bound: its loss is at most the best player's plus 2 Delta.
    hedge = est._players.hedge
    assert hedge.hedge_loss <= losses.min() + est.discount_regret_bound_ + 1e-9
    # Inspection shows the leader: the forgetting player's table.
    assert est.regret_table_ is est._players.states[0]["_player"].table
    assert est._players.active == 0


def test_a_stationary_stream_learns_as_the_better_discount():
    X, y = _rows(1500, seed=4)
    errors = {}
    for d in (0.99, 1.0, "auto"):
        est = LocalRegretTreeClassifier(discount=d, random_state=0, batch_size=1)
        wrong = 0
        for i in range(len(y)):
            if i:
                wrong += int(est.predict(X[i : i + 1])[0] != y[i])
            est.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1, 2])
        errors[d] = wrong / len(y)
    # AdaHedge's bound, 2 Delta <= sqrt(T ln 2) + 2 rows, is 34 rows of 1,500
    # (0.023) at worst; the hedge of the votes tracks the better one closer.
    assert errors["auto"] <= min(errors[0.99], errors[1.0]) + 0.023


def test_one_discount_in_a_tuple_is_that_discount():
    X, y = _rows(200)
    a = LocalRegretTreeClassifier(discount=(0.95,), random_state=0).fit(X, y)
    b = LocalRegretTreeClassifier(discount=0.95, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.discounts_ == (0.95,) and a.discount_regret_bound_ == 0.0


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_same_seed_same_model_and_inspection_works(regret):
    X, y = _rows(150)
    params = dict(regret=regret, discount=(0.9, 1.0), random_state=3)
    if regret == "swap":
        params["L"] = 3
    a = LocalRegretTreeClassifier(**params).fit(X, y)
    b = LocalRegretTreeClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.discounts_ == (0.9, 1.0)
    assert "class" in a.export_text()
    assert a.n_sites_ == a.regret_table_.n_rows or regret == "swap"


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_each_player_is_the_learner_at_its_discount(regret):
    # Each player draws from its own copy of the seeded generator, and the
    # players share only what depends on the rows (tests, recent rows): each
    # plays the trees, and ends with the regrets, of the learner at its
    # discount alone -- bit for bit.
    X, y = _rows(300, seed=5)
    params = dict(regret=regret, random_state=7, batch_size=5)
    if regret == "swap":
        params["L"] = 3
    auto = LocalRegretTreeClassifier(discount=(0.95, 1.0), **params)
    alone = [LocalRegretTreeClassifier(discount=d, **params) for d in (0.95, 1.0)]
    for lo in range(0, 300, 60):
        rows = slice(lo, lo + 60)
        auto.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        for est in alone:
            est.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    auto._players.sync(auto)
    for state, est in zip(auto._players.states, alone):
        player = state["_player"]
        assert player.last_tree == est.last_tree_
        assert player.table.n_rows == est.regret_table_.n_rows
        mine, theirs = player.table.factors(), est.regret_table_.factors()
        for part, values in theirs.items():
            np.testing.assert_array_equal(mine[part], values)
