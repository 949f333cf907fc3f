"""LocalRegretForestClassifier: its combination's bound, bagging and determinism.

The bound under test (the user guide, "The forest"): with experts the
forest's vote and its members' hedged predictions, each scored on a round's
rows before the members learn it, the forest's expected mistakes are at most
every expert's loss (members' handicap included) plus ``Delta (1 + ln(1 /
pi_k) / ln N)`` for ``N`` experts, expert ``k``'s prior share ``pi_k`` (``2
Delta`` for a uniform prior), and ``2 Delta <= S sqrt(T ln N) + 2 S`` for
``T`` rounds of weight at most ``S``. The common scikit-learn contract (bad
input, sparse and pandas input, pickling) is in ``tests/test_common.py``.
"""

from __future__ import annotations

import math
import os
import pickle
import warnings

import numpy as np
import pytest

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._hedge import PLAY_HANDICAP, AdaHedge
from sklearn_localregret.datasets import load_stream
from sklearn_localregret.ensemble import _forest
from sklearn_localregret.ensemble._bagging import subspace_size
from sklearn_localregret.ensemble._combination import (
    combination_prior,
    expert_losses,
    hedged_picks,
    prediction_distribution,
)


def forest(**params) -> LocalRegretForestClassifier:
    params.setdefault("n_estimators", 4)
    params.setdefault("random_state", 0)
    return LocalRegretForestClassifier(**params)


def stream(n=400, n_features=6, seed=0):
    """Labels from the first two of ``n_features`` features, 5% flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, np.where(rng.random(n) < 0.05, 1 - y, y)


def check_bound(hedge_loss, losses, bound, n_rounds, scale, prior=None):
    k = len(losses)
    assert hedge_loss <= min(losses) + bound + 1e-9
    # 2 Delta, or Delta (1 + ln(1 / pi_k) / ln k) at the smallest share.
    factor = 2.0 if prior is None else 1.0 - math.log(min(prior)) / math.log(k)
    worst = scale * math.sqrt(n_rounds * math.log(k)) + 2 * scale
    assert bound <= factor / 2 * worst + 1e-9


# -- the combination --------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_a_drawn_prediction_costs_the_hedge_mix_loss(seed):
    """The link between the bound and predict: a class drawn from
    prediction_distribution errs with the weights' mix of the experts' losses
    (the bound is on the latter)."""
    rng = np.random.default_rng(seed)
    k, n, c = 5, 7, 3
    probas = rng.dirichlet(np.ones(c), size=(k, n))
    votes = rng.random(k)
    weights = rng.dirichlet(np.ones(k + 1))
    y = rng.integers(0, c, n)
    w = rng.uniform(0.5, 2.0, n)
    losses = expert_losses(probas, votes, y, w)
    q = prediction_distribution(probas, votes, weights)
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    expected = w @ (1.0 - q[np.arange(n), y])
    assert expected == pytest.approx(weights @ losses, rel=1e-12)
    # The members' mean is not that distribution: drawing from it would
    # cost another loss than the one the hedge is bounded on.
    planted = probas.mean(axis=0)
    assert w @ (1.0 - planted[np.arange(n), y]) != pytest.approx(weights @ losses)


@pytest.mark.parametrize("seed", range(3))
def test_predict_draws_each_class_with_the_combination_s_probability(seed):
    # hedged_picks (predict) picks an expert, then a member's hedged class:
    # over a grid of M uniforms each class's frequency is the distribution's
    # (the members' part: prediction_distribution; a root expert: its class)
    # up to one grid point per interval of uniforms that map to one class:
    # at most 1 + k (1 + c) + r of them.
    rng = np.random.default_rng(seed)
    k, n, c, r, m = 4, 6, 3, 2, 20_000
    probas = rng.dirichlet(np.ones(c), size=(k, n))
    votes = rng.random(k)
    weights = rng.dirichlet(np.ones(k + 1 + r))
    roots = list(rng.dirichlet(np.ones(c), size=(r, n)))
    q = prediction_distribution(probas, votes, weights[: k + 1])
    for weight, posterior in zip(weights[k + 1 :], roots):
        q += weight * np.eye(c)[np.argmax(posterior, axis=1)]
    grid = (np.arange(m) + 0.5) / m
    for i in range(n):
        rows = [p[[i] * m] for p in probas]
        classes, proba = hedged_picks(
            np.stack(rows), votes, weights, [p[[i] * m] for p in roots], grid
        )
        frequency = np.bincount(classes, minlength=c) / m
        np.testing.assert_allclose(frequency, q[i], atol=(1 + k * (1 + c) + r) / m)
        # The expert's probabilities: the vote's row is the members' mean.
        vote_rows = grid < weights[0]
        mean = probas[:, i].mean(axis=0)
        np.testing.assert_allclose(
            proba[vote_rows], np.tile(mean, (vote_rows.sum(), 1))
        )


def _adversarial_run(n_rounds, pick_weights):
    """Experts with fixed 0/1 predictions on one row per round; the label is
    always the opposite of the heaviest expert's class (an adaptive
    adversary). Returns the combination's loss, the hedge, and ``T``."""
    k = 4
    hedge = AdaHedge([0.0] + [PLAY_HANDICAP] * k)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(n_rounds):
        classes = rng.integers(0, 2, size=k)  # the members' votes this round
        probas = np.eye(2)[classes][:, None, :]  # (k, 1 row, 2 classes)
        votes = np.ones(k)
        weights = pick_weights(hedge)
        vote = int(np.argmax(probas.mean(axis=0)[0]))
        predicted = [vote, *classes.tolist()]
        y = np.array([1 - predicted[int(np.argmax(weights))]])
        losses = expert_losses(probas, votes, y, np.ones(1))
        total += float(weights @ losses)
        hedge.update(losses)
    return total, hedge, n_rounds


def test_combination_bound_against_an_adaptive_adversary():
    total, hedge, n_rounds = _adversarial_run(3000, lambda h: h.weights())
    assert total == pytest.approx(hedge.hedge_loss)
    check_bound(total, hedge.losses, hedge.regret_bound, n_rounds, scale=1.0)


def test_a_planted_follow_the_leader_fails_the_bound():
    # Follow the leader (all weight on the lowest loss) is what the hedge is
    # while its gap is 0; against the adaptive adversary it errs every round.
    def leader(hedge):
        return np.eye(len(hedge.losses))[int(np.argmin(hedge.losses))]

    total, hedge, n_rounds = _adversarial_run(3000, leader)
    k = len(hedge.losses)
    assert total == n_rounds
    assert total > min(hedge.losses) + math.sqrt(n_rounds * math.log(k)) + 2


def _member_losses_before_learning(model, X, y):
    """Each expert's loss on the rows, from the public predictions of the
    members as they are now (before the rows are learnt)."""
    probas, votes = [], []
    for member, columns in zip(model.estimators_, model.estimators_features_):
        if hasattr(member, "classes_"):
            probas.append(member.predict_proba(X[:, columns]))
            votes.append(member.vote_weight_)
        else:  # no weighed row yet: a fresh member votes classes_[0]
            probas.append(np.eye(len(model.classes_))[np.zeros(len(y), int)])
            votes.append(1.0)
    members = expert_losses(np.stack(probas), np.array(votes), y, np.ones(len(y)))
    # The forest's root experts (its root models, its members' root naive
    # Bayes models' mean), scored as its vote.
    roots = [
        float((np.argmax(p, axis=1) != y).sum())
        for p in model._root_posteriors(X.astype(float))
    ]
    return np.concatenate((members, roots))


def test_forest_scores_each_round_before_learning_it():
    # 'alternating': one instance whose label flips every 10 rows, a stream
    # built against learners that trust the recent past.
    s = load_stream("alternating", n_rows=300, seed=0)
    model = forest(n_estimators=3)
    model.partial_fit(s.X[:5], s.y[:5], classes=s.classes)
    # The vote, 3 members, 2 root models, the members' root naive Bayes.
    independent = np.zeros(7)
    realised = 0
    for lo in range(5, 300, 5):
        X, y = s.X[lo : lo + 5], s.y[lo : lo + 5]
        independent += _member_losses_before_learning(
            model, X, np.searchsorted(model.classes_, y)
        )
        realised += int((model.predict(X) != y).sum())
        model.partial_fit(X, y)
    # The first call's round, scored the same way by a fresh forest.
    fresh = forest(n_estimators=3).partial_fit(s.X[:5], s.y[:5], classes=s.classes)
    np.testing.assert_allclose(
        independent + fresh.combination_losses_,
        model.combination_losses_,
        rtol=1e-9,
        atol=1e-9,
    )
    # The draws' mistakes are the expected ones up to a martingale's spread:
    # one draw a round (its rows are equal), |M - H| <= 5 sqrt(T ln(2/d) / 2)
    # with probability 1 - d; d = 1e-6, T = 59 rounds.
    spread = 5 * math.sqrt(59 * math.log(2e6) / 2)
    expected = model.n_online_mistakes_ - fresh.n_online_mistakes_
    assert abs(realised - expected) <= spread


def test_a_streaming_call_is_scored_on_what_was_predicted_before_it():
    # Calls of 30 rows (three rounds of 10): every round is scored on the
    # members' and the root models' predictions before the call, what a
    # caller that predicts the call's rows first is given (as the tree's
    # hedge scores its streaming calls).
    s = load_stream("alternating", n_rows=300, seed=0)
    model = forest(n_estimators=3)
    model.partial_fit(s.X[:30], s.y[:30], classes=s.classes)
    expected = model.combination_losses_.copy()
    one_round_calls = pickle.loads(pickle.dumps(model))
    for lo in range(30, 300, 30):
        X, y = s.X[lo : lo + 30], s.y[lo : lo + 30]
        codes = np.searchsorted(model.classes_, y)
        for r in range(0, 30, 10):  # each round, by the model before the call
            expected += _member_losses_before_learning(
                model, X[r : r + 10], codes[r : r + 10]
            )
        model.partial_fit(X, y)
        for r in range(0, 30, 10):
            one_round_calls.partial_fit(X[r : r + 10], y[r : r + 10])
    np.testing.assert_allclose(
        model.combination_losses_, expected, rtol=1e-9, atol=1e-9
    )
    # Calls of one round score each round after the rounds before it.
    assert not np.allclose(one_round_calls.combination_losses_, expected)


def test_forest_keeps_the_bound_where_its_vote_is_exploited():
    s = load_stream("alternating", n_rows=1000, seed=0)
    model = forest(n_estimators=3).fit(s.X, s.y)
    losses = model.combination_losses_
    check_bound(
        model.n_online_mistakes_,
        losses,
        model.combination_regret_bound_,
        model.n_rounds_,
        scale=float(model.batch_size),
        prior=model._hedge.prior,
    )
    # Predicting by the vote alone would break the bound the forest keeps:
    # the hedge did leave it for the members.
    assert losses[0] > min(losses) + model.combination_regret_bound_


def _alternating_forest(seed: int) -> LocalRegretForestClassifier:
    """The default forest on 600 rows of 'alternating' in calls of 10, as
    the leaderboard feeds it."""
    s = load_stream("alternating", n_rows=600, seed=seed)
    model = LocalRegretForestClassifier(random_state=seed)
    for lo in range(0, 600, 10):
        model.partial_fit(s.X[lo : lo + 10], s.y[lo : lo + 10], classes=s.classes)
    return model


def _regret(model) -> float:
    """Expected mistakes beyond the best expert."""
    return model.n_online_mistakes_ - model.combination_losses_.min()


def test_the_members_share_one_expert_s_prior(monkeypatch):
    # The vote, the members together and each root model start level. On
    # 'alternating' the linear root model errs on half the rows and the
    # members a little more; ten members under a uniform prior outweigh it
    # for hundreds of rows (the forest erred on 0.557 on the leaderboard,
    # the tree on 0.514).
    forests = [_alternating_forest(seed) for seed in (0, 1)]
    for model in forests:
        np.testing.assert_allclose(model._hedge.prior, combination_prior(10, 3))
        assert _regret(model) <= model.combination_regret_bound_
    monkeypatch.setattr(_forest, "combination_prior", lambda k, roots: None)
    uniform = [_alternating_forest(seed) for seed in (0, 1)]
    assert uniform[0]._hedge.prior.tolist() == [1 / 14] * 14
    # 64 against 90 rows over the two seeds.
    assert sum(map(_regret, forests)) < 0.8 * sum(map(_regret, uniform))


@pytest.mark.parametrize("roots", [False, True])
def test_forest_predicts_its_leading_expert(roots):
    X, y = stream()
    # Every member sees every column: none gets 10 rows ahead of the vote.
    # The concept is linear: a root model (one of the last three experts;
    # here the Gaussian one), when the forest has them, gets ahead of all.
    model = forest(max_features=None)
    model._root_model_expert = roots
    model.fit(X, y)
    weights = model.combination_weights_
    assert len(weights) == 4 + 1 + 3 * roots
    assert (weights[-3:].max() if roots else weights[0]) > 1.0 - 1e-6
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(1)])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_forest_beats_its_worst_member_and_follows_its_best():
    # Members see 2 of 6 columns: some miss both informative ones.
    X, y = stream(n=1000)
    model = forest(n_estimators=6, max_features=2).fit(X, y)
    members = model.combination_losses_[1:] - PLAY_HANDICAP
    sees = [len({0, 1} & set(cols.tolist())) for cols in model.estimators_features_]
    assert min(sees) == 0 and max(sees) >= 1  # the subspaces make the point
    assert model.n_online_mistakes_ < members.max() - 0.2 * len(y)
    check_bound(
        model.n_online_mistakes_,
        model.combination_losses_,
        model.combination_regret_bound_,
        model.n_rounds_,
        scale=5.0,
        prior=model._hedge.prior,
    )


# -- determinism ----------------------------------------------------------------


def _state(model):
    """What the model learnt: its members, subspaces and combination."""
    return (
        [pickle.dumps(m) for m in model.estimators_],
        [c.tolist() for c in model.estimators_features_],
        model.combination_losses_.tolist(),
        model.n_online_mistakes_,
    )


def test_the_model_is_the_same_for_any_n_jobs():
    X, y = stream()
    one = forest(n_jobs=1).partial_fit(X[:300], y[:300], classes=[0, 1])
    two = forest(n_jobs=2).partial_fit(X[:300], y[:300], classes=[0, 1])
    one.partial_fit(X[300:], y[300:])
    two.partial_fit(X[300:], y[300:])
    assert _state(one) == _state(two)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


def test_same_seed_same_model_and_another_seed_another():
    X, y = stream()
    a, b = forest().fit(X, y), forest().fit(X, y)
    assert _state(a) == _state(b)
    c = forest(random_state=1).fit(X, y)
    assert _state(c)[0] != _state(a)[0]


def test_fit_is_partial_fit_on_chunks_of_whole_rounds():
    X, y = stream()
    whole = forest().fit(X, y)
    chunks = forest()
    # 8 whole rounds, 400 rows: no streaming call of several rounds (which
    # the combination scores on the predictions before the call).
    step = 8 * chunks.batch_size
    for lo in range(0, len(y), step):
        chunks.partial_fit(X[lo : lo + step], y[lo : lo + step], classes=[0, 1])
    assert _state(whole) == _state(chunks)


def test_pickle_round_trip_predicts_identically_and_learns_on():
    X, y = stream()
    model = forest().partial_fit(X[:200], y[:200], classes=[0, 1])
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
    model.partial_fit(X[200:], y[200:])
    restored.partial_fit(X[200:], y[200:])
    # (A loaded member rebuilds its caches: the same model, pickled in another
    # attribute order.)
    for a, b in zip(restored.estimators_, model.estimators_):
        assert a.n_online_mistakes_ == b.n_online_mistakes_
    assert _state(restored)[2:] == _state(model)[2:]
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))


# -- bagging and subspaces ------------------------------------------------------


def test_a_member_reads_only_its_columns():
    X, y = stream()
    model = forest(max_features=2).fit(X, y)
    columns = model.estimators_features_[0]
    other = np.setdiff1d(np.arange(X.shape[1]), columns)
    noisy = X.copy()
    noisy[:, other] = np.random.default_rng(9).normal(size=(len(y), len(other)))
    changed = forest(max_features=2).fit(noisy, y)
    # Same seed: same subspaces, same member seeds and bagging draws.
    assert [c.tolist() for c in changed.estimators_features_] == [
        c.tolist() for c in model.estimators_features_
    ]
    assert pickle.dumps(changed.estimators_[0]) == pickle.dumps(model.estimators_[0])
    # ... and the test can fail: a member that reads a changed column differs.
    reads_other = [
        i
        for i, c in enumerate(model.estimators_features_)
        if set(c.tolist()) & set(other.tolist())
    ]
    assert reads_other
    assert all(
        pickle.dumps(changed.estimators_[i]) != pickle.dumps(model.estimators_[i])
        for i in reads_other
    )


@pytest.mark.parametrize(
    "max_features, size",
    [("sqrt", 3), ("log2", 3), (4, 4), (0.5, 5), (None, 10), (1.0, 10), (20, 10)],
)
def test_subspace_sizes(max_features, size):
    X, y = stream(n=20, n_features=10)
    model = forest(max_features=max_features).fit(X, y)
    assert subspace_size(max_features, 10) == size
    for columns in model.estimators_features_:
        assert len(columns) == size == model.estimators_[0].n_features_in_
        assert (np.diff(columns) > 0).all() and columns.max() < 10


def test_rows_of_zero_bagging_weight():
    # Rate 0.05: most rows weigh 0 for a member, whole rounds too; a member
    # whose rows so far all weighed 0 is not fitted and votes classes_[0].
    X, y = stream(n=300)
    model = forest(lambda_value=0.05, batch_size=2)
    model.partial_fit(X[:3], y[:3], classes=[0, 1])
    unfitted = [not hasattr(m, "classes_") for m in model.estimators_]
    assert any(unfitted)
    assert model.predict(X[:4]).shape == (4,)
    for lo in range(3, 300, 7):
        model.partial_fit(X[lo : lo + 7], y[lo : lo + 7])
    fitted = [m for m in model.estimators_ if hasattr(m, "classes_")]
    assert fitted and all(m.n_rounds_ <= model.n_rounds_ for m in fitted)
    check_bound(
        model.n_online_mistakes_,
        model.combination_losses_,
        model.combination_regret_bound_,
        model.n_rounds_,
        scale=2.0,
    )


def test_rows_of_zero_sample_weight_cost_the_combination_nothing():
    X, y = stream()
    model = forest().partial_fit(X[:100], y[:100], classes=[0, 1])
    before = model.combination_losses_.copy(), model.n_online_mistakes_
    weight = np.zeros(50)
    weight[0] = 1e-12  # scikit-learn refuses weights that are all 0
    model.partial_fit(X[100:150], y[100:150], sample_weight=weight)
    np.testing.assert_allclose(model.combination_losses_, before[0], atol=1e-11)
    assert model.n_online_mistakes_ == pytest.approx(before[1], abs=1e-11)
    assert model.n_samples_seen_ == 150


def test_bad_input_leaves_the_forest_and_its_members_unchanged():
    X, y = stream()
    model = forest().fit(X[:100], y[:100])
    before = pickle.dumps(model)
    bad = X[100:110].copy()
    bad[-1, -1] = np.inf  # found by validation, after rows that are fine
    with pytest.raises(ValueError, match="nfinit"):
        model.partial_fit(bad, y[100:110])
    with pytest.raises(ValueError, match="not in classes"):
        model.partial_fit(X[100:110], np.full(10, 7))
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[100:110, :3], y[100:110])
    assert pickle.dumps(model) == before


def test_members_are_trees_with_the_forests_parameters():
    model = forest(discount=0.95, max_depth=2, batch_size=3).fit(*stream(n=30))
    for member in model.estimators_:
        assert isinstance(member, LocalRegretTreeClassifier)
        assert (member.discount, member.max_depth, member.batch_size) == (0.95, 2, 3)
        assert member.prediction == "hedge"


def test_members_place_their_thresholds_at_levels_of_their_own():
    # Each member's quantile levels are shifted by offsets of its own seed
    # (QuantileThresholds' level_seed): on numeric columns no two members
    # share their thresholds, a tree alone keeps the even levels, and the
    # same forest seed gives the same thresholds.
    X, y = stream(n=300)

    def thresholds(tree):
        tests = tree._tests
        return sorted(tests.describe(t) for t in range(tests.n_tests))

    model = forest().fit(X, y)
    members = [thresholds(member) for member in model.estimators_]
    assert all(len(m) == 6 * 7 for m in members)
    assert len({tuple(m) for m in members}) == len(members)
    alone = thresholds(LocalRegretTreeClassifier(random_state=0).fit(X, y))
    assert alone not in members
    assert [thresholds(m) for m in forest().fit(X, y).estimators_] == members


def test_river_adapter_learns_the_forest_row_by_row():
    pytest.importorskip("river")
    from sklearn_localregret.river import RiverAdapter

    X, y = stream(n=60, n_features=3)
    adapter = RiverAdapter(forest(n_estimators=2), classes=[0, 1])
    reference = forest(n_estimators=2)
    for row, label in zip(X, y):
        adapter.learn_one(dict(enumerate(row)), int(label))
        reference.partial_fit(row[None], [label], classes=[0, 1])
    assert _state(adapter.estimator_) == _state(reference)
    row = dict(enumerate(X[0]))
    assert adapter.predict_one(row) == reference.predict(X[:1])[0]
    proba = adapter.predict_proba_one(row)
    np.testing.assert_allclose(list(proba.values()), reference.predict_proba(X[:1])[0])


def test_a_streaming_call_counts_what_its_caller_was_given():
    """A caller predicts every round of a streaming call (up to 64 rows) with
    the combination's weights from before it: the hedge charged each round
    at weights the call's earlier rounds had moved, and the mistakes it
    counted (1189.2) were not those of the predictions given (1216.0), which
    broke the bound (best expert 1184.0 + 12.3)."""
    n, call = 2400, 64
    X = np.full((n, 2), 0.3)
    y = (np.arange(n) // 64) % 2  # one instance, its label flipping
    forest = LocalRegretForestClassifier(n_estimators=3, random_state=0)
    forest.partial_fit(X[:call], y[:call], classes=[0, 1])
    given = forest.n_online_mistakes_
    for lo in range(call, n, call):
        weights = forest.combination_weights_.copy()
        losses = forest.combination_losses_.copy()
        forest.partial_fit(X[lo : lo + call], y[lo : lo + call])
        given += weights @ (forest.combination_losses_ - losses)
    assert forest.n_online_mistakes_ == pytest.approx(given, rel=1e-12)
    best = forest.combination_losses_.min()
    assert given <= best + forest.combination_regret_bound_


def test_members_of_few_columns_read_a_wide_sparse_streaming_call():
    # Over 2**14 columns the forest reads sparse rows; a member of 2 columns
    # is not wide, and its records before a call of 11-64 rows read them
    # (IndexError: the member's tests expected dense columns).
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = sp.random(300, 20000, density=0.001, format="csr", random_state=0)
    y = rng.integers(0, 2, 300)
    params = dict(n_estimators=2, max_features=2, random_state=0)
    sparse = LocalRegretForestClassifier(**params).fit(X[:200], y[:200])
    dense = LocalRegretForestClassifier(**params).fit(X[:200].toarray(), y[:200])
    for lo in range(200, 300, 20):
        sparse.partial_fit(X[lo : lo + 20], y[lo : lo + 20])
        dense.partial_fit(X[lo : lo + 20].toarray(), y[lo : lo + 20])
    np.testing.assert_array_equal(
        sparse.predict_proba(X), dense.predict_proba(X.toarray())
    )


@pytest.mark.parametrize(
    "params, match",
    [({"lambda_value": 1e19}, "lambda_value"), ({"n_jobs": 0}, "n_jobs")],
)
def test_parameters_beyond_their_use_are_refused_by_name(params, match):
    # numpy's "lam value too large" came from the draws; n_jobs=0 ran as 1.
    with pytest.raises(ValueError, match=match):
        LocalRegretForestClassifier(**params).fit(np.eye(4), [0, 1, 0, 1])


def _fit_in_threads(_):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    forest = LocalRegretForestClassifier(n_estimators=4, n_jobs=2, random_state=0)
    return forest.fit(X, (X[:, 0] > 0).astype(int)).score(X, X[:, 0] > 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_learns_in_threads_after_its_parent_did():
    # The thread pools are kept per process: a forked child had the parent's
    # pool without its threads, and a forest learning there with n_jobs > 1
    # hung for good (multiprocessing's default start on Linux).
    import multiprocessing

    parent = _fit_in_threads(0)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        child = pool.map_async(_fit_in_threads, [0]).get(timeout=120)
    assert child == [parent]


def test_many_classes_do_not_warn_of_a_regression_target():
    # check_classification_targets on the list of classes itself (25 values,
    # all distinct) warned that y "could represent a regression problem",
    # once for the forest and once per member.
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(500, 3)), rng.integers(0, 25, 500)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LocalRegretForestClassifier(n_estimators=2, random_state=0).fit(X, y)
        LocalRegretTreeClassifier(random_state=0).partial_fit(
            X[:1], y[:1], classes=np.arange(25)
        )


def test_batch_size_true_is_one_as_in_the_tree():
    # scikit-learn's validation takes True for an int; the forest then
    # failed with numpy's "an integer is required" (the tree learns).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    ones = LocalRegretForestClassifier(n_estimators=2, batch_size=1, random_state=0)
    true = LocalRegretForestClassifier(n_estimators=2, batch_size=True, random_state=0)
    np.testing.assert_array_equal(
        true.fit(X, y).predict_proba(X), ones.fit(X, y).predict_proba(X)
    )
