"""A round shorter than ``batch_size`` rows forgets in proportion to its rows.

The tree learner's ``discount`` is the factor of a round of ``batch_size``
rows; a round of ``m`` rows (a call of fewer rows, or a call's last rows)
decays the regrets by ``discount ** (m / batch_size)``, so that its memory is
one of rows, whatever the sizes of the calls.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import (
    FORGET_EVERY,
    FORGET_TOLERANCE,
    RegretTable,
    forget_tolerance,
)


def _stream(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


def _fed(calls, regret="external", discount=0.9, **params):
    """A tree fed ``X`` in calls of the given sizes; its (first) table."""
    X, y = _stream(sum(calls))
    model = LocalRegretTreeClassifier(
        regret=regret, discount=discount, random_state=0, **params
    )
    lo = 0
    for size in calls:
        model.partial_fit(X[lo : lo + size], y[lo : lo + size], classes=[0, 1])
        lo += size
    return model


def _clock(model):
    return model._player.table.clock


@pytest.mark.parametrize("regret", ["external", "swap"])
@pytest.mark.parametrize(
    "calls, rounds",
    [([1] * 20, 4.0), ([5] * 4, 4.0), ([7, 3, 10], 4.0), ([2, 2, 2], 1.2)],
)
def test_the_clock_counts_rows_over_batch_size(regret, calls, rounds):
    clock = _clock(_fed(calls, regret=regret))
    assert clock.n_rounds == pytest.approx(rounds, rel=1e-12)
    # The table's scale is discount ** -rounds (no renormalisation this soon).
    assert clock.scale == pytest.approx(0.9**-rounds, rel=1e-12)


def test_one_row_calls_keep_the_memory_of_five_row_calls():
    """The weight of the past (effective rounds) is the same whether 400
    rows come one or five per call; it was five times shorter for one-row
    calls when every call was a whole round."""
    ones = _clock(_fed([1] * 400, discount=0.99))
    fives = _clock(_fed([5] * 80, discount=0.99))
    assert ones.effective_rounds == pytest.approx(fives.effective_rounds, rel=1e-9)
    assert fives.effective_rounds == pytest.approx((1 - 0.99**80) / 0.01, rel=1e-12)


def test_batch_size_sets_the_length_of_a_whole_round():
    clock = _clock(_fed([2] * 10, batch_size=4))
    assert clock.n_rounds == pytest.approx(5.0, rel=1e-12)


def test_whole_rounds_play_as_before():
    """Calls of whole rounds decay by whole rounds: the same model as one
    call with every row (and as the learner of before, whose rounds these
    are: the recorded fixtures pass)."""
    split = _fed([10, 5, 15], discount=0.95)
    whole = _fed([30], discount=0.95)
    assert _clock(split).n_rounds == _clock(whole).n_rounds == 6
    X, _ = _stream(30)
    # pi's probabilities: the hedge scores each streaming call on the
    # predictions before it, so its weights follow the calls.
    np.testing.assert_array_equal(split.pi_proba(X), whole.pi_proba(X))


def test_forgetting_runs_once_per_period_of_fractional_rounds():
    """Quiet rows are forgotten in the round that reaches each multiple of
    FORGET_EVERY rounds, also when rounds are fractions (a multiple may fall
    between two ticks) or one tick jumps over many."""
    table = RegretTable(width=1, discount=0.9)
    fired = []
    for step in range(1, 3 * 5 * FORGET_EVERY + 1):
        table.advance(0.2)
        if forget_tolerance(table, 1.0) is not None:
            fired.append(step)
    assert len(fired) == 3
    # Each at the tick that reached the multiple (to within float sums).
    for k, step in enumerate(fired, start=1):
        assert abs(step - 5 * FORGET_EVERY * k) <= 1
    table.advance(2.5 * FORGET_EVERY)  # a sync's jump
    assert forget_tolerance(table, 2.0) == FORGET_TOLERANCE * 2.0
    table.advance(0.5)
    assert forget_tolerance(table, 2.0) is None


def test_a_clock_saved_before_fractional_rounds_ticks_as_before():
    table = RegretTable(width=1, discount=0.9)
    table.advance(FORGET_EVERY)
    del table.clock.__dict__["last_tick"]  # as a clock saved before it
    assert table.clock.last_tick == 1.0
    assert forget_tolerance(table, 1.0) is not None  # round 256: as before


def _one_row_calls(model, X, y):
    for i in range(len(y)):
        model.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    return model


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_short_rounds_play_one_tree_per_whole_round(monkeypatch, regret):
    """Calls of one row go on playing the tree drawn for the rows before
    them until they make a whole round: one draw per ``batch_size`` rows."""
    from sklearn_localregret._tree.external import ExternalPlayer
    from sklearn_localregret._tree.swap import SwapPlayer

    player, method = (
        (ExternalPlayer, "draw_flat") if regret == "external" else (SwapPlayer, "draw")
    )
    draws = []
    draw = getattr(player, method)

    def counted(self, rng):
        draws.append(self.table.n_rounds)
        return draw(self, rng)

    monkeypatch.setattr(player, method, counted)
    X, y = _stream(23)
    _one_row_calls(LocalRegretTreeClassifier(regret=regret, random_state=0), X, y)
    assert len(draws) == 5  # rows 1-5, 6-10, ..., 21-23
    draws.clear()
    _fed([2] * 6, regret=regret)  # 2 + 2 + 2 rows make a round (then it closes)
    assert len(draws) == 2


def test_rows_one_per_call_learn_what_whole_rounds_learn():
    """Undiscounted, with label reads (the update is then a sum over the
    round's rows), rows given one per call play the same trees and end with
    the same regrets as the same rows five per call. (The swap player too
    has the same distribution after a round, but its chain may list tied
    trees in another order, so that one uniform picks another tree.)"""
    X, y = _stream(120, seed=3)
    # Fixed tests (the stream's thresholds would enter at other rows).
    params = dict(
        discount=1.0,
        leaf_prediction="label",
        binarize=0.0,
        random_state=1,
    )
    ones = _one_row_calls(LocalRegretTreeClassifier(**params), X, y)
    fives = LocalRegretTreeClassifier(**params)
    for lo in range(0, len(y), 5):
        fives.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
    _same_tables(ones, fives)
    assert ones.export_text() == fives.export_text()


def _same_tables(one, other):
    a, b = one._player.table, other._player.table
    assert a.keys() == b.keys()
    for name in ("_leaf", "_true", "_false", "_cost"):
        np.testing.assert_allclose(
            getattr(a, name)[: a.n_rows], getattr(b, name)[: b.n_rows], rtol=1e-12
        )
    assert one.last_tree_ == other.last_tree_


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_a_model_saved_inside_a_round_goes_on_with_its_tree(regret):
    X, y = _stream(40, seed=2)
    model = LocalRegretTreeClassifier(regret=regret, random_state=0)
    _one_row_calls(model, X[:7], y[:7])
    assert model._player.open_round == pytest.approx(0.4)
    loaded = pickle.loads(pickle.dumps(model))
    for m in (model, loaded):
        _one_row_calls(m, X[7:], y[7:])
    _same_tables(loaded, model)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def _playing_a_leaf(model):
    """Make every player of the (unfitted) model play ``Leaf(0)`` each round
    (its private draw replaced: the update is under test)."""
    from sklearn_localregret.locality.decision_tree import Leaf

    new_player = model._new_player

    def patched(*args):
        player = new_player(*args)
        if model.regret == "swap":
            player.draw = lambda rng: (Leaf(0), False)
        else:
            player.draw_flat = lambda rng: player.play_next(Leaf(0)) or False
        return player

    model._new_player = patched
    return model


@pytest.mark.parametrize("regret", ["external", "swap"])
@pytest.mark.parametrize("bias", [0.3, None])
def test_short_rounds_pay_the_bias_in_proportion_to_their_rows(regret, bias):
    """A given ``bias`` is paid ``b * rows / batch_size`` by a short round
    (the paper's ``Delta / (L + 1)`` is so already): 20 one-row calls pay the
    bias of 4 whole rounds, and learn the same regrets. They paid ``b`` each,
    five times the bias of the same rows in whole rounds."""
    from sklearn_localregret.locality.decision_tree import Leaf

    X, y = _stream(20)
    tables = []
    for calls in ([1] * 20, [5] * 4):
        model = _playing_a_leaf(
            LocalRegretTreeClassifier(
                regret=regret, bias=bias, L=None if bias else 4, discount=1.0,
                warm_start=0, leaf_model=None, random_state=0,
            )
        )  # fmt: skip
        lo = 0
        for size in calls:
            model.partial_fit(X[lo : lo + size], y[lo : lo + size], classes=[0, 1])
            lo += size
        table = model.regret_table_
        root = table.find(() if regret == "external" else (Leaf(0), ()))
        leaves, stumps = table.dense_regrets(False)
        fair_leaves, fair_stumps = table.dense_regrets(True)
        tables.append(
            (leaves[root], stumps[root], fair_leaves[root], fair_stumps[root])
        )
    ones, fives = tables
    paid = fives[2][1] - fives[0][1]  # leaf 1 is an edge in every round
    assert paid == pytest.approx(4 * (0.3 if bias else 1.0), rel=1e-12)
    for one, five in zip(ones, fives):
        np.testing.assert_allclose(one, five, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("calls", [[1] * 20, [1, 1, 1, 10, 5, 1], [2, 1, 4, 3, 5, 5]])
def test_each_part_of_a_round_pays_its_bias_and_decays_with_the_rest(calls):
    """Each part of a round pays its bias ``b * rows / batch_size`` and
    decays with the rounds after it, whatever the calls' sizes: the true
    regrets hold every part's bias decayed from its own call."""
    X, y = _stream(sum(calls))
    model = _playing_a_leaf(
        LocalRegretTreeClassifier(
            bias=0.3, discount=0.9, warm_start=0, leaf_model=None, random_state=0
        )
    )
    lo = 0
    for size in calls:
        model.partial_fit(X[lo : lo + size], y[lo : lo + size], classes=[0, 1])
        lo += size
    table = model.regret_table_
    root = table.find(())
    (leaves, _), (fair, _) = table.dense_regrets(False), table.dense_regrets(True)
    paid = fair[root][1] - leaves[root][1]  # leaf 1 is an edge in every round
    # Each call of m rows is rounds of 5 and a short round of the rest: its
    # rounds pay 0.3 * their rows / 5, decayed by the rows after them.
    expected, after = 0.0, sum(calls)
    for size in calls:
        for start in range(0, size, 5):
            rows = min(5, size - start)
            after -= rows
            expected += 0.3 * rows / 5 * 0.9 ** (after / 5)
    assert paid == pytest.approx(expected, rel=1e-12)


def test_a_copy_saved_after_quiet_sites_are_forgotten_mid_round_goes_on_alike():
    """Forgetting quiet sites drops the played tree's arrays: the live
    learner draws at its next call. A copy saved then must too (it went on
    with the last tree, whose sites may be gone, and the two parted)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1400, 4))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    model = LocalRegretTreeClassifier(random_state=0, discount=0.5)
    model.partial_fit(X[:5], y[:5], classes=[0, 1])
    for i in range(5, len(y)):
        rows_before = model._player.table.n_rows
        model.partial_fit(X[i : i + 1], y[i : i + 1])
        if model._player.table.n_rows < rows_before and model._player.flat.n_nodes == 0:
            break  # sites forgotten at the end of a part of a round
    else:  # pragma: no cover - the stream is chosen to forget mid-round
        pytest.fail("no site was forgotten mid-round")
    copy = pickle.loads(pickle.dumps(model))
    for j in range(i + 1, i + 40):
        for learner in (model, copy):
            learner.partial_fit(X[j : j + 1], y[j : j + 1])
        assert copy.last_tree_ == model.last_tree_, j
    assert copy.regret_table_.keys() == model.regret_table_.keys()
