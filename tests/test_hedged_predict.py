"""The hedged prediction: AdaHedge, its draws, and the classifiers' ``predict``.

The bound under test (``sklearn_localregret._hedge``, the user guide's
"Prediction"): after any sequence of losses, the hedge's cumulative expected
loss is at most every expert's (initial loss included) plus ``2 Delta``, and
``2 Delta <= S sqrt(T ln K) + 2 S`` for ``T`` rounds of losses in ``[0, S]``.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret._base.hedge_draws import hedged_classes
from sklearn_localregret._hedge import PLAY_HANDICAP, AdaHedge
from sklearn_localregret.datasets import load_stream
from sklearn_localregret.engine.compiled.row_uniforms import row_uniforms

LEARNERS = {
    "tree": LocalRegretTreeClassifier,
    "disjunct": LocalRegretDisjunctClassifier,
}


# -- AdaHedge -----------------------------------------------------------------


def _check_bound(hedge: AdaHedge, n_rounds: int, scale: float) -> None:
    best = hedge.losses.min()
    assert hedge.hedge_loss <= best + hedge.regret_bound + 1e-9
    k = hedge.losses.shape[0]
    assert hedge.regret_bound <= scale * math.sqrt(n_rounds * math.log(k)) + 2 * scale


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("seed", range(5))
def test_hedge_loss_within_the_bound_on_random_losses(k, seed):
    rng = np.random.default_rng(seed)
    scale = 5.0
    hedge = AdaHedge(rng.uniform(0, 10, size=k))
    means = rng.uniform(0, scale, size=k)  # one expert is better on average
    for _ in range(2000):
        hedge.update(np.clip(means + rng.normal(0, 1.5, size=k), 0, scale))
    _check_bound(hedge, 2000, scale)


def test_hedge_loss_within_the_bound_against_an_adaptive_adversary():
    # Each round the expert with more weight loses: follow-the-leader loses
    # every round here, so a gap that stays 0 (eta infinite) fails the bound.
    hedge = AdaHedge([0.0, 0.0])
    for _ in range(3000):
        w = hedge.weights()
        hedge.update([1.0, 0.0] if w[0] >= w[1] else [0.0, 1.0])
    _check_bound(hedge, 3000, 1.0)
    assert hedge.hedge_loss <= 1500 + math.sqrt(3000 * math.log(2)) + 2


def test_the_handicapped_expert_gets_no_weight_until_it_leads():
    hedge = AdaHedge([0.0, PLAY_HANDICAP])
    for _ in range(int(PLAY_HANDICAP) - 1):
        hedge.update([1.0, 0.0])  # the play catches up one row a round
        assert hedge.weights().tolist() == [1.0, 0.0]
    assert hedge.gap == 0.0  # follow the leader, no mixing yet
    for _ in range(3):
        hedge.update([1.0, 0.0])
    assert hedge.weights()[1] > 0.5


def _random_prior_run(seed: int) -> AdaHedge:
    """A hedge with a random prior (some shares tiny), handicaps and losses
    in [0, S]: adversarial rounds (the heaviest expert loses), random ones,
    and rounds where the smallest share's expert is never wrong."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    prior = rng.dirichlet(np.full(k, rng.choice([0.2, 1.0, 5.0]))) + 1e-6
    prior /= prior.sum()
    hedge = AdaHedge(rng.choice([0.0, PLAY_HANDICAP], size=k), prior=prior)
    scale = rng.uniform(0.5, 5.0)
    for _ in range(int(rng.integers(50, 400))):
        mode = rng.integers(3)
        losses = rng.uniform(0, scale, size=k)
        if mode == 0:
            losses = np.where(np.arange(k) == np.argmax(hedge.weights()), scale, 0.0)
        elif mode == 2:
            losses[np.argmin(prior)] = 0.0
        hedge.update(losses)
    return hedge


def test_a_prior_bounds_the_regret_against_each_expert_by_its_share():
    # Delta (1 + ln(1 / pi_k) / ln K) against expert k; the uniform prior's
    # 2 Delta is not a bound once the prior is uneven (the runs below
    # exceed it by far: a planted 2 Delta fails), so the share matters.
    beyond_two_gaps = 0.0
    for seed in range(40):
        hedge = _random_prior_run(seed)
        for k, loss in enumerate(hedge.losses):
            regret = hedge.hedge_loss - loss
            assert regret <= hedge.regret_bound_against(k) + 1e-9
            assert hedge.regret_bound_against(k) <= hedge.regret_bound + 1e-12
            beyond_two_gaps = max(beyond_two_gaps, regret - 2 * hedge.gap)
    assert beyond_two_gaps > 1.0


def test_a_prior_weighs_before_any_loss_and_among_leaders():
    hedge = AdaHedge([0.0, 0.0, 5.0], prior=[0.6, 0.3, 0.1])
    # Follow the leaders in the prior's proportions; the third trails.
    np.testing.assert_allclose(hedge.weights(), [2 / 3, 1 / 3, 0.0])
    assert hedge.weight(1) == pytest.approx(1 / 3)
    hedge.update([1.0, 0.0, 0.0])
    hedge.update([0.0, 1.0, 0.0])  # level again, now mixing
    w = hedge.weights()
    assert hedge.gap > 0.0 and w[0] / w[1] == pytest.approx(2.0)
    # A uniform prior given is the hedge without one, bit for bit.
    plain, given = (
        AdaHedge([0.0, PLAY_HANDICAP, 0.0]),
        AdaHedge([0.0, PLAY_HANDICAP, 0.0], prior=[1 / 3] * 3),
    )
    rng = np.random.default_rng(0)
    for losses in rng.uniform(0, 5, size=(200, 3)):
        plain.update(losses)
        given.update(losses)
    np.testing.assert_allclose(given.weights(), plain.weights(), rtol=1e-12)
    assert given.hedge_loss == pytest.approx(plain.hedge_loss, rel=1e-12)
    assert given.regret_bound == pytest.approx(plain.regret_bound, rel=1e-12)


def test_a_hedge_saved_without_a_prior_loads_uniform():
    hedge = AdaHedge([0.0, 0.0], prior=[0.8, 0.2])
    state = hedge.__getstate__()
    del state["log_prior"]  # as pickled before priors
    old = AdaHedge.__new__(AdaHedge)  # as pickle loads it
    old.__dict__.update(state)
    np.testing.assert_array_equal(old.prior, [0.5, 0.5])
    assert old.weights().tolist() == [0.5, 0.5]
    restored = pickle.loads(pickle.dumps(hedge))
    np.testing.assert_allclose(restored.prior, [0.8, 0.2])


@pytest.mark.parametrize(
    "prior", [[0.5, 0.6], [1.0, 0.0], [0.5], [0.5, float("nan")], [-0.5, 1.5]]
)
def test_a_bad_prior_is_a_clear_error(prior):
    with pytest.raises(ValueError, match="prior"):
        AdaHedge([0.0, 0.0], prior=prior)


# -- the draws ---------------------------------------------------------------


def test_hedged_classes_follow_the_mixture_exactly_on_a_grid_of_uniforms():
    n = 10_000
    uniforms = (np.arange(n) + 0.5) / n
    proba = np.tile([0.2, 0.0, 0.5, 0.3], (n, 1))
    for vote_weight in (0.0, 0.25, 0.9):
        counts = np.bincount(hedged_classes(proba, vote_weight, uniforms), minlength=4)
        expected = (1 - vote_weight) * proba[0] + vote_weight * np.eye(4)[2]
        np.testing.assert_allclose(counts / n, expected, atol=1.5 / n)


def test_row_uniforms_are_a_function_of_the_row():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 7))
    u = row_uniforms(X, 11)
    order = rng.permutation(50)
    np.testing.assert_array_equal(row_uniforms(X[order], 11), u[order])
    np.testing.assert_array_equal(row_uniforms(X[3:4], 11), u[3:4])
    zero = np.zeros((1, 7))
    assert row_uniforms(-zero, 5)[0] == row_uniforms(zero, 5)[0]
    assert not np.array_equal(row_uniforms(X, 12), u)


def test_row_uniforms_are_uniform_and_independent_across_keys():
    # Dvoretzky-Kiefer-Wolfowitz: P(sup |F_n - F| > eps) <= 2 exp(-2 n eps^2);
    # eps for a false alarm of 1e-9. Distinct 0/1 rows, the hardest input
    # for a hash (inputs that differ in one bit).
    n = 2**14
    X = ((np.arange(n)[:, None] >> np.arange(14)) & 1).astype(np.uint8)
    eps = math.sqrt(math.log(2 / 1e-9) / (2 * n))
    for key in (0, 1, 2**63 + 5):
        u = np.sort(row_uniforms(X, key))
        grid = np.arange(1, n + 1) / n
        assert np.abs(u - grid).max() <= eps + 1 / n
    # Two keys: correlation within 6 standard errors of 0.
    a, b = row_uniforms(X, 1), row_uniforms(X, 2)
    assert abs(np.corrcoef(a, b)[0, 1]) <= 6 / math.sqrt(n)


# -- the classifiers ----------------------------------------------------------


def _alternating(n_rows=1000):
    return load_stream("alternating", n_rows=n_rows, seed=0)


def _learn_test_then_train(est, stream, batch=5):
    """Mistakes of est.predict on each round before it is learnt."""
    wrong = 0
    for lo in range(0, len(stream.y), batch):
        rows = slice(lo, lo + batch)
        if lo:
            wrong += int((est.predict(stream.X[rows]) != stream.y[rows]).sum())
        est.partial_fit(stream.X[rows], stream.y[rows], classes=stream.classes)
    return wrong / len(stream.y)


@pytest.mark.parametrize("name", LEARNERS)
def test_the_prediction_rule_does_not_change_the_model(name):
    stream = load_stream("mushroom", n_rows=400, seed=1)
    models = [
        LEARNERS[name](random_state=0, prediction=p).fit(stream.X, stream.y)
        for p in ("vote", "sample", "hedge")
    ]
    for other in models[1:]:
        assert other.online_error_ == models[0].online_error_
        # pi (the tree's root models give predict_proba other rows: not pi)
        pi = getattr(other, "pi_proba", other.predict_proba)
        np.testing.assert_array_equal(pi(stream.X), models[0].predict_proba(stream.X))
    vote = models[0]
    np.testing.assert_array_equal(
        vote.predict(stream.X),
        vote.classes_[np.argmax(vote.predict_proba(stream.X), axis=1)],
    )


@pytest.mark.parametrize("name", LEARNERS)
def test_hedge_leaves_the_vote_on_alternating_labels(name):
    stream = _alternating()
    errors = {}
    for p in ("vote", "hedge"):
        est = LEARNERS[name](random_state=0, prediction=p)
        errors[p] = _learn_test_then_train(est, stream)
    hedge = est._hedge
    # The theorem on this stream, exactly (expected losses, no sampling).
    assert hedge.hedge_loss <= hedge.losses.min() + est.hedge_regret_bound_ + 1e-9
    if name == "tree":  # the vote follows the labels; the plays do not
        assert errors["vote"] > 0.65
        assert est.vote_weight_ < 0.01
        assert errors["hedge"] < errors["vote"] - 0.1
    # The realised mistakes of the hedge stay near its expected ones: rounds
    # of 5 rows, Azuma-Hoeffding at a false alarm of 1e-9.
    n_rounds = est.n_rounds_
    slack = 5 * math.sqrt(2 * n_rounds * math.log(1e9))
    expected = (hedge.hedge_loss + PLAY_HANDICAP) / len(stream.y)
    assert errors["hedge"] <= expected + slack / len(stream.y)


@pytest.mark.parametrize("name", LEARNERS)
def test_hedged_predict_is_a_function_of_the_row(name):
    est = LEARNERS[name](random_state=0)
    stream = _alternating(600)
    _learn_test_then_train(est, stream)
    X = np.random.default_rng(0).integers(0, 2, (200, 10)).astype(np.float64)
    X[:50] = stream.X[0]  # the stream's own instance, many times
    predicted = est.predict(X)
    order = np.random.default_rng(1).permutation(200)
    np.testing.assert_array_equal(est.predict(X[order]), predicted[order])
    for i in (0, 7, 120):  # one row at a time takes the fast path
        assert est.predict(X[i : i + 1])[0] == predicted[i]
    np.testing.assert_array_equal(est.predict(X.astype(np.int64)), predicted)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), predicted)
    assert again.vote_weight_ == est.vote_weight_


def test_sampled_predictions_follow_the_probabilities():
    stream = load_stream("mushroom", n_rows=600, seed=2)
    est = LocalRegretTreeClassifier(random_state=0, prediction="sample")
    est.fit(stream.X[:300], stream.y[:300])
    X = stream.X[300:]
    proba = est.predict_proba(X)
    distinct = np.unique(X, axis=0, return_index=True)[1]
    hits = est.predict(X[distinct]) == est.classes_[1]
    # A sum of independent Bernoulli draws: 6 standard deviations at most.
    p = proba[distinct, 1]
    sd = math.sqrt(float((p * (1 - p)).sum()))
    assert abs(hits.sum() - p.sum()) <= 6 * sd + 1e-9
    assert est.vote_weight_ == 0.0


def test_a_stationary_stream_predicts_its_best_expert():
    # On mushroom the root's linear model makes the fewest mistakes (25
    # against the vote's 47 over these rows) and takes all the weight:
    # predict is then deterministic, the most probable class of
    # predict_proba (the linear model's posterior) on every row.
    stream = load_stream("mushroom", n_rows=2000, seed=0)
    est = LocalRegretTreeClassifier(random_state=0).fit(stream.X, stream.y)
    assert est.linear_weight_ > 1.0 - 1e-6
    assert est._hedge.losses.argmin() == 4  # the linear model
    np.testing.assert_array_equal(
        est.predict(stream.X),
        est.classes_[np.argmax(est.predict_proba(stream.X), axis=1)],
    )


def test_bad_prediction_rule_is_a_clear_error():
    with pytest.raises(ValueError, match="prediction"):
        LocalRegretTreeClassifier(prediction="mean").fit([[0.0], [1.0]], [0, 1])


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("call_rows", [1, 10])
def test_predicting_before_learning_changes_nothing(name, call_rows):
    # The hedge scores each round with pi's probabilities of its rows; after
    # a predict of those rows it takes the remembered ones. Either way the
    # same numbers: the learner that predicted ends pickle-equal (hedge
    # losses and gap included) to the one that did not.
    stream = load_stream("mushroom", n_rows=300, seed=3)
    quiet = LEARNERS[name](random_state=0, prediction="hedge")
    loud = LEARNERS[name](random_state=0, prediction="hedge")
    for lo in range(0, 300, call_rows):
        rows = slice(lo, lo + call_rows)
        if lo:
            loud.predict(stream.X[rows])
            if lo % 30 == 0:  # a stale memory (other rows) must not be used
                loud.predict_proba(stream.X[::-1][:call_rows])
        for est in (quiet, loud):
            est.partial_fit(stream.X[rows], stream.y[rows], classes=stream.classes)
    assert loud._hedge.losses.tolist() == quiet._hedge.losses.tolist()
    assert pickle.dumps(loud) == pickle.dumps(quiet)


@pytest.mark.parametrize(
    "name, params", [("tree", {}), ("tree", {"discount": "auto"}), ("disjunct", {})]
)
def test_a_streaming_call_is_scored_on_the_predictions_before_it(name, params):
    # A call of 10 rows (two rounds of the tree, ten of the disjunct learner)
    # adds to the vote's and the play's losses what pi's probabilities
    # before the call get wrong: what a caller that predicts the rows first
    # is given (with several discounts: the players' mixed by their weights
    # before the call). Here the labels turn at the call: the model of the
    # call's later rounds has followed them, the predictions given have not.
    stream = _alternating(300)
    est = LEARNERS[name](random_state=0, prediction="hedge", **params)
    est.partial_fit(stream.X[:40], stream.y[:40], classes=stream.classes)
    X, y = stream.X[40:50], stream.y[40:50]
    one_by_one = pickle.loads(pickle.dumps(est))
    proba = getattr(est, "pi_proba", est.predict_proba)(X)
    before = est._hedge.losses.copy()
    est.partial_fit(X, y)
    gained = est._hedge.losses - before
    label = np.searchsorted(est.classes_, y)
    assert gained[0] == (proba.argmax(axis=1) != label).sum()
    np.testing.assert_allclose(gained[1], (1.0 - proba[np.arange(10), label]).sum())
    # Round by round (calls of one round each), the vote would have lost less.
    start = one_by_one._hedge.losses[0]
    for lo in range(0, 10, est.batch_size):
        one_by_one.partial_fit(X[lo : lo + est.batch_size], y[lo : lo + est.batch_size])
    assert one_by_one._hedge.losses[0] - start < gained[0]


@pytest.mark.parametrize(
    "name, regret, hedges",
    [
        ("tree", "external", True),
        ("tree", "swap", False),
        ("disjunct", "external", True),
        ("disjunct", "swap", False),
    ],
)
def test_auto_hedges_external_regret(name, regret, hedges):
    stream = _alternating(300)
    est = LEARNERS[name](regret=regret, random_state=0)
    _learn_test_then_train(est, stream)
    assert est._hedging() is hedges
    if hedges:
        assert est._hedge.gap > 0
        return
    # The vote, and no round scored (the hedge never moved).
    assert est.vote_weight_ == 1.0
    assert est._hedge.losses.tolist() == [0.0, PLAY_HANDICAP]
    X = stream.X[:5]
    np.testing.assert_array_equal(
        est.predict(X), est.classes_[np.argmax(est.predict_proba(X), axis=1)]
    )


def test_every_nan_is_the_same_missing_value_to_the_draws():
    """``np.nan`` and ``0/0`` differ in their bits: the same row drew two
    labels (28 of 300 rows under ``prediction="sample"``)."""
    import scipy.sparse as sp

    from sklearn_localregret._sparse_blocks import nonzero_row_uniforms

    quiet = np.array([[1.0, np.nan]])
    signed = quiet.copy()
    signed.view(np.uint64)[0, 1] = 0xFFF8000000000000  # what 0/0 gives on x86
    assert np.isnan(signed[0, 1]) and signed.tobytes() != quiet.tobytes()
    assert row_uniforms(quiet, 7)[0] == row_uniforms(signed, 7)[0]
    assert (
        nonzero_row_uniforms(sp.csr_matrix(quiet), 7)[0]
        == nonzero_row_uniforms(sp.csr_matrix(signed), 7)[0]
    )
    assert np.isnan(signed[0, 1]) and signed.view(np.uint64)[0, 1] == 0xFFF8000000000000
