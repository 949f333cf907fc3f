"""Merging forests: each member as a tree, the combination's sums, drifts.

The reference of the exactness tests is one forest given both streams'
rounds *with the same plays*: every member replays the trees each side's
member played (``test_merge``'s recording) and the bagging weights it drew
(the Poisson draws), and the hedges -- the combination's and each member's
vote/play hedge -- replay the weights they played and what each update added
(their losses are scored on each side's own predictions, which one forest of
both streams would have scored otherwise: summed, as the tree's hedge is).
Every member's regrets are then computed by the reference itself, round
after round, and compared to ``1e-12`` relative (``test_merge``'s tolerance).

The drift tests check the documented rules of
:mod:`sklearn_localregret.merging._forest`: a member replaced after a drift
is taken whole from the side with more drifts of it, with its detector, and
draws from the generators of the member it replaces.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from test_merge import (
    RTOL,
    _done_init,
    _on_init,
    _rows,
    _stream,
    assert_same_hedge,
    assert_same_table,
    record_hedge,
    record_trees,
    replay_hedge,
    replay_trees,
)

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret.merging import absorb_shards
from sklearn_localregret.merging._core import copy_model
from sklearn_localregret.merging._tree import tree_players

# Undiscounted (a sequential reference adds what the merge adds), no warm
# start (a new site's warm start reads the recent rows, each side's own).
FOREST = dict(n_estimators=3, warm_start=0, discount=1.0)


class Draws:
    """A member's bagging generator that records its Poisson draws, or
    replays recorded ones."""

    def __init__(self, rng=None, draws=()):
        self.rng, self.draws = rng, list(draws)

    def poisson(self, rate, size):
        if self.rng is None:
            out = self.draws.pop(0)
            assert out.shape == (size,)
            return out
        out = self.rng.poisson(rate, size=size)
        self.draws.append(out.copy())
        return out


def record_plays(forest) -> dict:
    """Record, once its model is made, what every round of ``forest`` drew."""
    log: dict = {"trees": [], "member_hedges": {}}

    def patch(est):
        for k, member in enumerate(est.estimators_):
            log["trees"].append(record_trees(member))
            hedges = log["member_hedges"]
            _on_init(member, lambda m, k=k: hedges.update({k: record_hedge(m._hedge)}))
            est._bagging_rngs[k] = Draws(est._bagging_rngs[k])
        log["draws"] = [rng.draws for rng in est._bagging_rngs]
        log["hedge"] = record_hedge(est._hedge)

    _on_init(forest, patch)
    return log


def replay_plays(forest, logs: list) -> None:
    """``forest`` plays what the recorded forests drew, one after the other."""

    def patch(est):
        for k, member in enumerate(est.estimators_):
            replay_trees(member, [tree for log in logs for tree in log["trees"][k]])
            hedge = [r for log in logs for r in log["member_hedges"][k]]
            _on_init(member, lambda m, hedge=hedge: replay_hedge(m._hedge, hedge))
            draws = [d for log in logs for d in log["draws"][k]]
            est._bagging_rngs[k] = Draws(draws=draws)
        replay_hedge(est._hedge, [r for log in logs for r in log["hedge"]])

    _on_init(forest, patch)


def _member_rows(forest) -> list:
    """Every member's regrets in true units, by player and key (None for an
    unfitted member)."""
    return [
        [_rows(p.table) for p in tree_players(m)] if hasattr(m, "classes_") else None
        for m in forest.estimators_
    ]


def _same_rows(got, want, rtol=0.0):
    assert got.keys() == want.keys()
    top = max([1.0] + [np.abs(v).max() for v in want.values()])
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=rtol * top)


@pytest.mark.parametrize("drift_detector", [None, "adwin"])
def test_forest_merge_equals_one_forest_with_the_same_plays(drift_detector):
    # Label leaves: adaptive reads' scores add up as each side scored its
    # own models (documented in merge), not as one forest's would, so a
    # read could flip between the two; the sums are what is compared here.
    params = dict(FOREST, drift_detector=drift_detector, leaf_prediction="label")
    (X1, y1), (X2, y2) = _stream(1), _stream(2)
    a = LocalRegretForestClassifier(**params, random_state=0)
    b = LocalRegretForestClassifier(**params, random_state=1)
    log_a, log_b = record_plays(a), record_plays(b)
    a.partial_fit(X1, y1, classes=[0, 1])
    b.partial_fit(X2, y2, classes=[0, 1])

    # The reference: one forest, both streams, the same plays.
    ref = LocalRegretForestClassifier(**params, random_state=2)
    replay_plays(ref, [log_a, log_b])
    ref.partial_fit(X1, y1, classes=[0, 1])
    ref.partial_fit(X2, y2)
    for forest in (a, b, ref):
        _done_init(forest, *forest.estimators_)
        # No drift fired: the test is about the sums.
        assert forest.n_drifts_.tolist() == [0, 0, 0]

    detectors = pickle.dumps(a._detectors)
    rounds = (len(y1) + len(y2)) // a.batch_size
    a.merge(b)
    assert a.n_drifts_.tolist() == [0, 0, 0]
    assert pickle.dumps(a._detectors) == detectors  # this forest's (not a sum)
    for member, theirs in zip(a.estimators_, ref.estimators_):
        for player, reference in zip(tree_players(member), tree_players(theirs)):
            assert_same_table(player.table, reference.table)
            assert player.table.n_rounds == reference.table.n_rounds == rounds
        for name in ("n_rounds_", "n_samples_seen_", "n_online_mistakes_"):
            want = getattr(theirs, name)
            assert getattr(member, name) == pytest.approx(want, rel=RTOL), name
        assert_same_hedge(member._hedge, theirs._hedge)
    for name in ("n_rounds_", "n_samples_seen_", "n_online_mistakes_", "_weight_seen"):
        assert getattr(a, name) == pytest.approx(getattr(ref, name), rel=RTOL), name
    assert a.n_rounds_ == rounds
    assert_same_hedge(a._hedge, ref._hedge)
    # The root linear model is no sum (a passive-aggressive model of each
    # stream; documented): the reference's stands in for it, so that rows
    # whose draw picks that expert compare the rest.
    a._root_linear = ref._root_linear
    np.testing.assert_allclose(
        a.predict_proba(X1[:50]), ref.predict_proba(X1[:50]), rtol=0, atol=RTOL
    )
    np.testing.assert_array_equal(a.predict(X1[:50]), ref.predict(X1[:50]))


# -- drifts --------------------------------------------------------------------
# Two of four columns per member: y follows x0, so the members that read x0
# see its inversion and are replaced; the others, reading noise, are not.
DRIFTING = dict(FOREST, n_estimators=4, max_features=2, random_state=0)


def rows01(n, seed, flip=False):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 4)) < 0.5).astype(float)
    y = X[:, 0].astype(int)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    return X, (1 - y if flip else y)


def flipped(n, at, seed):
    X, y = rows01(n, seed)
    y[at:] = 1 - y[at:]
    return X, y


def _detector(forest, k) -> bytes:
    return pickle.dumps(forest._detectors[k])


def test_forest_merge_takes_the_member_of_the_side_with_more_drifts():
    a = LocalRegretForestClassifier(**DRIFTING).fit(*rows01(600, 10))
    b = LocalRegretForestClassifier(**DRIFTING).fit(*flipped(900, 600, 0))
    drifted = b.n_drifts_ > a.n_drifts_
    assert a.n_drifts_.tolist() == [0, 0, 0, 0]
    assert drifted.any() and not drifted.all()  # both rules are checked
    rows_a, rows_b = _member_rows(a), _member_rows(b)

    for dst, src, mine, theirs in ((a, b, rows_a, rows_b), (b, a, rows_b, rows_a)):
        dst, before = copy_model(dst), pickle.dumps(src)
        generators = [m._rng.bit_generator.state for m in dst.estimators_]
        detectors = [_detector(f, k) for f in (dst, src) for k in range(4)]
        drifts = dst.n_drifts_ + src.n_drifts_
        dst.merge(src)
        assert pickle.dumps(src) == before  # the other forest is not changed
        np.testing.assert_array_equal(dst.n_drifts_, drifts)  # a counter
        for k, member in enumerate(dst.estimators_):
            got = _member_rows(dst)[k][0]
            # The random state stays this forest's, whatever member is kept.
            assert member._rng.bit_generator.state == generators[k]
            if not drifted[k]:  # equal counts (0): merged as trees
                want = {
                    key: mine[k][0].get(key, 0.0) + theirs[k][0].get(key, 0.0)
                    for key in mine[k][0].keys() | theirs[k][0].keys()
                }
                _same_rows(got, want, RTOL)
                assert _detector(dst, k) == detectors[k]
            elif src is b:  # the other side replaced it: its member, detector
                _same_rows(got, theirs[k][0])
                assert member.n_rounds_ == b.estimators_[k].n_rounds_ < 180
                assert _detector(dst, k) == detectors[4 + k]
            else:  # this side replaced it: kept as it was
                _same_rows(got, mine[k][0])
                assert _detector(dst, k) == detectors[k]


def test_forest_merge_of_equal_drift_counts_adds_the_new_members():
    # Both sides replaced members 1 and 2 once: the new trees are merged.
    a = LocalRegretForestClassifier(**DRIFTING).fit(*flipped(900, 600, 0))
    b = LocalRegretForestClassifier(**DRIFTING).fit(*flipped(900, 600, 1))
    assert a.n_drifts_.tolist() == b.n_drifts_.tolist() == [0, 1, 1, 0]
    rows_a, rows_b = _member_rows(a), _member_rows(b)
    rounds = [m.n_rounds_ + n.n_rounds_ for m, n in zip(a.estimators_, b.estimators_)]
    a.merge(b)
    assert a.n_drifts_.tolist() == [0, 2, 2, 0]
    for k, member in enumerate(a.estimators_):
        want = {
            key: rows_a[k][0].get(key, 0.0) + rows_b[k][0].get(key, 0.0)
            for key in rows_a[k][0].keys() | rows_b[k][0].keys()
        }
        _same_rows(_member_rows(a)[k][0], want, RTOL)
        assert member.n_rounds_ == rounds[k]


def test_forest_merge_takes_a_member_unfitted_on_this_side():
    # Rate 0.05 and two rows per round: after 3 rows most members have had no
    # row of positive weight (unfitted); the other forest's are taken.
    params = dict(FOREST, n_estimators=4, batch_size=2)
    X, y = rows01(3, 3)
    a = LocalRegretForestClassifier(**params, lambda_value=0.05, random_state=0)
    a.partial_fit(X, y, classes=[0, 1])
    a.set_params(lambda_value=6.0)  # the same task as b from now on
    b = LocalRegretForestClassifier(**params, random_state=1).fit(*rows01(400, 4))
    fitted = [hasattr(m, "classes_") for m in a.estimators_]
    assert not all(fitted) and any(fitted)
    rows_b = _member_rows(b)
    detectors_b = [_detector(b, k) for k in range(4)]
    unfitted = copy_model(a)
    a.merge(b)
    for k, member in enumerate(a.estimators_):
        if fitted[k]:  # merged as trees
            assert member.n_rounds_ == b.estimators_[k].n_rounds_ + 1
        else:  # b's, with its detector
            _same_rows(_member_rows(a)[k][0], rows_b[k][0])
            assert member.n_rounds_ == b.estimators_[k].n_rounds_
            assert _detector(a, k) == detectors_b[k]
    # And the other way round: a member unfitted on the other side is kept.
    c = copy_model(b).merge(unfitted)
    for k, member in enumerate(c.estimators_):
        if not fitted[k]:
            _same_rows(_member_rows(c)[k][0], rows_b[k][0])
            assert _detector(c, k) == detectors_b[k]


def test_forest_merge_of_an_unfitted_forest_is_refused():
    b = LocalRegretForestClassifier(**FOREST).fit(*rows01(100, 4))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        b.merge(LocalRegretForestClassifier(**FOREST))
    with pytest.raises(TypeError, match="cannot merge"):
        b.merge(LocalRegretTreeClassifier().fit(*rows01(100, 4)))


def test_absorb_shards_takes_a_member_replaced_on_one_shard():
    # Shard 1 sees the concept inverted and replaces the members reading x0:
    # the result's member is shard 1's new one, with its detector; shard 0's
    # increments of the old member are dropped. The others add up.
    base = LocalRegretForestClassifier(**DRIFTING).fit(*rows01(500, 0))
    assert all(m._tests.complete for m in base.estimators_)
    shards = [copy_model(base), copy_model(base)]
    shards[0].partial_fit(*rows01(300, 1))
    shards[1].partial_fit(*rows01(300, 2, flip=True))
    assert shards[0].n_drifts_.tolist() == [0, 0, 0, 0]
    drifted = shards[1].n_drifts_ > 0
    assert drifted.any() and not drifted.all()
    merged = absorb_shards(base, shards)
    rounds = (500 + 300 + 300) // base.batch_size  # the base's, each shard's
    np.testing.assert_array_equal(merged.n_drifts_, shards[1].n_drifts_)
    rows = [_member_rows(f) for f in (base, *shards)]
    for k, member in enumerate(merged.estimators_):
        got = _member_rows(merged)[k][0]
        first = shards[0].estimators_[k]
        assert member._rng.bit_generator.state == first._rng.bit_generator.state
        if drifted[k]:
            _same_rows(got, rows[2][k][0])
            assert _detector(merged, k) == _detector(shards[1], k)
            assert member.n_rounds_ == shards[1].estimators_[k].n_rounds_
        else:  # undiscounted: base + sum_i (shard_i - base)
            keys = set().union(*(r[k][0].keys() for r in rows))
            want = {
                key: rows[1][k][0].get(key, 0.0)
                + rows[2][k][0].get(key, 0.0)
                - rows[0][k][0].get(key, 0.0)
                for key in keys
            }
            _same_rows(got, want, RTOL)
            assert _detector(merged, k) == _detector(shards[0], k)
            assert member.n_rounds_ == rounds
    assert merged.n_rounds_ == rounds
    losses = [f._hedge.losses for f in (base, *shards)]
    np.testing.assert_allclose(
        merged._hedge.losses, losses[1] + losses[2] - losses[0], rtol=RTOL
    )


# -- what must match -----------------------------------------------------------
def _refused(a, b, match):
    before = pickle.dumps(a)
    with pytest.raises(ValueError, match=match):
        a.merge(b)
    assert pickle.dumps(a) == before  # every check before any change


def test_forest_merge_refuses_another_task_and_is_unchanged():
    X, y = rows01(300, 0)
    a = LocalRegretForestClassifier(**FOREST, random_state=0).fit(X, y)
    other = dict(FOREST, random_state=1)
    _refused(
        a,
        LocalRegretForestClassifier(**dict(other, lambda_value=1.0)).fit(X, y),
        "parameters differ: lambda_value=6.0 vs 1.0",
    )
    _refused(a, LocalRegretForestClassifier(**other).fit(X, y + 1), "classes differ")
    _refused(
        a,
        LocalRegretForestClassifier(**other).fit(np.hstack([X, X]), y),
        "numbers of features differ",
    )
    # Subspaces are drawn from random_state.
    params = dict(FOREST, max_features=2)
    c = LocalRegretForestClassifier(**params, random_state=0).fit(X, y)
    d = LocalRegretForestClassifier(**params, random_state=1).fit(X, y)
    _refused(c, d, "subspaces differ: member 0 reads columns")
    # n_jobs does not change the model: it may differ.
    LocalRegretForestClassifier(**other, n_jobs=2).fit(X, y).merge(copy_model(a))
    # A forest saved before its members shared one expert's prior weighs
    # them uniformly: the sum of the two hedges would keep neither bound.
    old = LocalRegretForestClassifier(**other).fit(X, y)
    del old._hedge.log_prior
    _refused(a, old, "different priors")
    _refused(old, a, "different priors")


def test_forest_merge_refuses_members_on_other_tests():
    # Real features: each forest's members take thresholds from its own rows.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] > 0).astype(int)
    a = LocalRegretForestClassifier(**FOREST, random_state=0).fit(X[:300], y[:300])
    b = LocalRegretForestClassifier(**FOREST, random_state=0).fit(X[300:], y[300:])
    _refused(a, b, "member 0: the learners' tests differ: test")
