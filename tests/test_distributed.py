"""``fit_sharded``: shards learn apart and sync; the result is deterministic."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import SGDClassifier

from sklearn_localregret import (
    LocalRegretDisjunctClassifier,
    LocalRegretForestClassifier,
    LocalRegretTreeClassifier,
)
from sklearn_localregret.baselines import Winnow2Classifier
from sklearn_localregret.distributed import fit_sharded


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 6))
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    return X, y


def _forget_quiet(model):
    """What a sync does after the sum: each external-regret tree (every
    discount player, every forest member) forgets its quiet sites."""
    from sklearn_localregret.merging._tree import tree_players

    trees = getattr(model, "estimators_", [model])
    for tree in trees:
        if isinstance(tree, LocalRegretTreeClassifier) and hasattr(tree, "_player"):
            for player in tree_players(tree):
                if hasattr(player, "forget_quiet_sites"):
                    player.forget_quiet_sites()
    return model


def _fit_on_local_cluster(est, Xd, yd, **kwargs):
    """``fit_sharded`` on a LocalCluster of two workers (threads)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        return fit_sharded(est, Xd, yd, client=client, **kwargs)


def _sync(shards, start):
    """Sync the shards (ShardState) after a window; the model they should all
    hold: absorb_shards of the window from ``start``, whose decayed base
    brings back the sites a shard forgot in its window, then the quiet sites
    forgotten again."""
    from sklearn_localregret.merging import absorb_shards
    from sklearn_localregret.merging._core import copy_model
    from sklearn_localregret.merging._sync import SyncDelta

    ends = [copy_model(s.model) for s in shards]
    total = SyncDelta.sum([s.delta() for s in shards], shards[0].merger)
    for shard in shards:
        shard.apply(total)
    return _forget_quiet(absorb_shards(start, ends))


def _state(clf):
    """What two equal models share: the table's factors and the counters."""
    tree = isinstance(clf, LocalRegretTreeClassifier)
    table = clf._player.table if tree else clf._graph.table
    if hasattr(table, "factors"):
        values = np.concatenate([v.ravel() for v in table.factors().values()])
    else:
        values = np.concatenate([table.biased.ravel(), table.unbiased.ravel()])
    return table.keys(), values, clf.n_rounds_, clf.n_online_mistakes_


def test_result_is_an_ordinary_fitted_learner():
    X, y = _data()
    est = LocalRegretTreeClassifier(random_state=0)
    clf = fit_sharded(est, X, y, n_shards=3, sync_every=10)
    assert not hasattr(est, "n_rounds_")  # the estimator given is not fitted
    assert clf.n_samples_seen_ == 3000
    assert clf.n_rounds_ == 600  # every shard's rounds are counted once
    assert clf.score(X, y) == 1.0
    clf.partial_fit(X[:10], y[:10])  # and it learns on
    assert clf.n_samples_seen_ == 3010


def test_shards_start_from_the_first_rows_as_fit_does():
    # The tests settle on the stream's first rows, as fit's do: sharding
    # must not change the thresholds (rows interleaved from every shard's
    # start gave other thresholds, and a worse learner on a fixed stream).
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4))
    X[1500:] += 2.0  # the second shard's rows would move every quantile
    y = (X[:, 0] > 0.5).astype(int)
    one = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    sharded = fit_sharded(
        LocalRegretTreeClassifier(random_state=0), X, y, n_shards=2, sync_every=5
    )
    np.testing.assert_array_equal(sharded.test_features_, one.test_features_)
    np.testing.assert_array_equal(sharded.test_thresholds_, one.test_thresholds_)


def test_first_shard_shorter_than_the_settling_rows():
    # 100 rows a shard, 256 to settle the thresholds: the next shards' rows
    # follow in order (the stream's first rows again), every row learnt once.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 3))
    y = (X[:, 1] > 0).astype(int)
    one = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    clf = fit_sharded(
        LocalRegretTreeClassifier(random_state=0), X, y, n_shards=4, sync_every=3
    )
    np.testing.assert_array_equal(clf.test_thresholds_, one.test_thresholds_)
    assert clf.n_samples_seen_ == 400
    assert clf.n_rounds_ == 80


def test_deterministic_and_shards_change_the_plays():
    X, y = _data()
    runs = [
        fit_sharded(LocalRegretTreeClassifier(random_state=0), X, y, n_shards=4)
        for _ in range(2)
    ]
    keys, values, rounds, mistakes = _state(runs[0])
    assert _state(runs[1])[0] == keys
    np.testing.assert_array_equal(_state(runs[1])[1], values)
    assert _state(runs[1])[2:] == (rounds, mistakes)
    other = fit_sharded(LocalRegretTreeClassifier(random_state=1), X, y, n_shards=4)
    assert _state(other)[3] != mistakes  # random_state does seed the shards


def test_disjunct_learner_shards():
    X, y = _data()
    y = X[:, 0] | X[:, 3]
    clf = fit_sharded(
        LocalRegretDisjunctClassifier(random_state=0), X, y, n_shards=4, sync_every=5
    )
    assert clf.disjunction() == ["x0", "x3"]
    assert clf.n_samples_seen_ == 3000


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(sync_every=0), ValueError, "sync_every must be >= 1"),
        (dict(sync_every=2.5), TypeError, "sync_every must be an int"),
        (dict(n_shards=0), ValueError, "n_shards must be >= 1"),
        (dict(client="tcp://127.0.0.1:8786"), TypeError, "client must be a dask"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    X, y = _data(100)
    with pytest.raises(error, match=match):
        fit_sharded(LocalRegretTreeClassifier(), X, y, **kwargs)


@pytest.mark.parametrize("learner", [SGDClassifier(), Winnow2Classifier()])
def test_a_learner_whose_state_is_not_a_sum_is_refused(learner):
    X, y = _data(200)
    with pytest.raises(TypeError, match="fit_sharded learns a LocalRegretTree"):
        fit_sharded(learner, X, y, n_shards=2)


def test_no_rows_is_an_error():
    X, y = _data(100)
    with pytest.raises(ValueError, match="no rows"):
        fit_sharded(LocalRegretTreeClassifier(), X[:0], y[:0], n_shards=2)


def test_a_test_entering_after_the_shards_started_is_named():
    # The first rows settle the tests; a column's first missing value, or a
    # category first met, after that cannot be added across shards.
    pd = pytest.importorskip("pandas")
    X, y = _data(3000)
    late_missing = X.astype(float)
    late_missing[2500, 1] = np.nan
    with pytest.raises(ValueError, match="column 1's first missing value"):
        fit_sharded(LocalRegretTreeClassifier(), late_missing, y, n_shards=2)
    frame = pd.DataFrame({"b": X[:, 1], "c": X[:, 2], "a": np.where(X[:, 0], "x", "y")})
    frame.loc[2900, "a"] = "z"
    # A forest names the column of its members' subspaces, by name.
    forest = LocalRegretForestClassifier(n_estimators=3, max_features=2, random_state=0)
    with pytest.raises(ValueError, match="a category of column 'a' first met"):
        fit_sharded(forest, frame, y, n_shards=2)


def test_mismatched_input():
    X, y = _data(100)
    with pytest.raises(ValueError, match="different lengths"):
        fit_sharded(LocalRegretTreeClassifier(), X, y[:50])
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match="both be Dask collections"):
        fit_sharded(LocalRegretTreeClassifier(), da.from_array(X), y)
    with pytest.raises(ValueError, match="different partitions"):
        fit_sharded(
            LocalRegretTreeClassifier(),
            da.from_array(X, chunks=(50, -1)),
            da.from_array(y, chunks=25),
        )


def test_partitions_of_x_and_y_chunked_otherwise_are_refused():
    # The same number of partitions, other lengths (500 x 4 and 400, 600,
    # 600, 400): each shard's rows and labels added up, and 1,200 of 2,000
    # rows were taught another row's label.
    da = pytest.importorskip("dask.array")
    X, y = _data(2000)
    Xd = da.from_array(X, chunks=(500, -1))
    yd = da.from_array(y, chunks=((400, 600, 600, 400),))
    with pytest.raises(ValueError, match="partition of X has 500 rows and its"):
        fit_sharded(LocalRegretTreeClassifier(), Xd, yd, n_shards=2)
    with pytest.raises(ValueError, match="rechunk X and y alike"):
        _fit_on_local_cluster(LocalRegretTreeClassifier(), Xd, yd)


def test_sparse_input_learns_the_dense_model():
    # CSR failed in numpy's concatenate, COO had no rows to slice.
    X, y = _data(1000)
    dense = fit_sharded(LocalRegretTreeClassifier(random_state=0), X, y, n_shards=2)
    for matrix in (sp.csr_matrix(X), sp.coo_matrix(X)):
        model = fit_sharded(
            LocalRegretTreeClassifier(random_state=0), matrix, y, n_shards=2
        )
        np.testing.assert_array_equal(model.predict_proba(X), dense.predict_proba(X))


def test_cluster_learns_the_same_model_as_one_process():
    da = pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    X, y = _data(4000)
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500)
    est = LocalRegretTreeClassifier(random_state=0)
    local = fit_sharded(est, Xd, yd, n_shards=2, sync_every=20)
    remote = _fit_on_local_cluster(est, Xd, yd, sync_every=20)
    keys, values, rounds, mistakes = _state(local)
    assert _state(remote)[0] == keys
    np.testing.assert_array_equal(_state(remote)[1], values)
    assert _state(remote)[2:] == (rounds, mistakes) and rounds == 800
    np.testing.assert_array_equal(
        remote.predict_proba(X[:50]), local.predict_proba(X[:50])
    )


def test_a_shards_error_on_a_cluster_is_raised_here():
    """The client submits windows ahead of the workers: a shard's error in
    any window still reaches the caller, as the shard's own exception."""
    da = pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    X, y = _data(4000)
    y = y.copy()
    y[3700] = 7  # in shard 1's last partition, many windows after the first
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500)
    est = LocalRegretTreeClassifier(random_state=0)
    with pytest.raises(ValueError, match="not in classes"):
        _fit_on_local_cluster(est, Xd, yd, classes=[0, 1], sync_every=5)


def test_a_worker_leaving_mid_fit_is_an_error_not_a_hang(monkeypatch):
    """A shard's learner lives on its worker between windows, and its windows
    are pinned there: when that worker leaves, the client says so instead of
    waiting forever for windows no worker may run."""
    import threading

    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    from sklearn_localregret.merging import _shards

    monkeypatch.setattr(_shards, "_POLL_SECONDS", 0.2)
    learn = _shards._window
    calls: dict[int, int] = {}

    def window_then_leave(state, *args):
        calls[id(state)] = calls.get(id(state), 0) + 1
        delta = learn(state, *args)
        if len(calls) == 2 and calls[id(state)] == 3:  # a shard's third window
            worker = distributed.get_worker()
            worker.loop.add_callback(worker.close)
        return delta

    monkeypatch.setattr(_shards, "_window", window_then_leave)
    X, y = _data(4000)
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500)
    outcome: list = []

    def fit():
        try:
            _fit_on_local_cluster(
                LocalRegretTreeClassifier(random_state=0), Xd, yd, sync_every=20
            )
            outcome.append(None)
        except Exception as error:  # noqa: BLE001 - the test reads it
            outcome.append(error)

    runner = threading.Thread(target=fit, daemon=True)
    runner.start()
    runner.join(timeout=120)
    assert outcome, "fit_sharded hung after a worker left"
    assert isinstance(outcome[0], RuntimeError)
    assert "left the cluster" in str(outcome[0])


def test_a_cluster_without_workers_is_a_clear_error():
    distributed = pytest.importorskip("distributed")
    X, y = _data(500)
    with (
        distributed.LocalCluster(
            n_workers=0, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        for n_shards in (None, 2):
            with pytest.raises(ValueError, match="has no workers"):
                fit_sharded(
                    LocalRegretTreeClassifier(), X, y, client=client, n_shards=n_shards
                )


def test_a_window_whose_learner_is_gone_says_so():
    # A worker restarted at the same address has lost the learners it held.
    from sklearn_localregret.merging import _shards

    with pytest.raises(RuntimeError, match="shard 3's learner is not on"):
        _shards._window_on_worker(("no such fit", 3), None, None, 0, 0, [0, 1], None)


def test_deltas_are_sent_compactly_and_sum_exactly():
    """What a worker sends another at a sync (a pickled SyncDelta) holds the
    tables' rows in use, without deflating
    (:mod:`sklearn_localregret.merging._sent_tables`), read back bit for
    bit; a shard that applies the pickled sum ends exactly as one that
    applies the sum itself."""
    import pickle

    from sklearn_localregret.engine.saved_arrays import is_packed
    from sklearn_localregret.merging._core import dumps
    from sklearn_localregret.merging._sync import ShardState, SyncDelta

    X, y = _data(3000)
    model = LocalRegretTreeClassifier(random_state=0).fit(X[:600], y[:600])
    base = dumps(model)
    shards = [ShardState(base, seed) for seed in (1, 2)]
    for i, shard in enumerate(shards):
        lo = 600 + 1200 * i
        shard.learn(X[lo : lo + 1200], y[lo : lo + 1200], [0, 1])
    deltas = [shard.delta() for shard in shards]
    table = deltas[1].parts[0]
    state = table.saved_state(packed=False)
    assert not any(is_packed(state[name]) for name in ("_leaf", "_true", "_false"))
    assert state["_true"].shape == (table.n_rows, table.n_tests, 2)  # rows in use
    sent = [pickle.loads(pickle.dumps(d)) for d in deltas]
    for mine, theirs in zip(sent, deltas):
        assert mine.parts[0].keys() == theirs.parts[0].keys()
        for name, values in theirs.parts[0].factors().items():
            got = mine.parts[0].factors()[name]
            assert got.dtype == values.dtype and got.shape == values.shape
            assert got.tobytes() == values.tobytes()  # bit for bit
    twin = ShardState(dumps(shards[0].model))
    twin._before, twin._own = shards[0]._before, shards[0]._own
    shards[0].apply(SyncDelta.sum(deltas, shards[0].merger))
    twin.apply(SyncDelta.sum(sent, twin.merger))
    keys, values, *counts = _state(shards[0].model)
    assert _state(twin.model)[0] == keys and _state(twin.model)[2:] == tuple(counts)
    np.testing.assert_array_equal(_state(twin.model)[1], values)


def test_a_delta_on_real_features_is_sent_in_fewer_bytes():
    # S_false predicted from the class totals, the costs from each row's
    # usual cost, zeros left out: on 20 real features (140 tests) a window's
    # factors take 0.56 of their plain bytes; plain would be 1.0.
    from sklearn_localregret.merging._core import dumps
    from sklearn_localregret.merging._sent_tables import compact_state
    from sklearn_localregret.merging._sync import ShardState

    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 20))
    y = ((X[:, 0] > 0) ^ (X[:, 3] > 0.5)).astype(int)
    model = LocalRegretTreeClassifier(random_state=0).fit(X[:1000], y[:1000])
    shard = ShardState(dumps(model), 1)
    shard.learn(X[1000:], y[1000:], [0, 1])
    state = shard.delta().parts[0].saved_state(packed=False)
    assert state["_true"].shape[1] == 140
    factors = ("_true", "_false", "_cost")
    compact = compact_state(state)
    ratio = _array_bytes([compact[n] for n in factors]) / _array_bytes(
        [state[n] for n in factors]
    )
    assert ratio < 0.7


def _array_bytes(values) -> int:
    """The bytes of the arrays in nested tuples and lists."""
    if isinstance(values, np.ndarray):
        return values.nbytes
    if isinstance(values, (tuple, list)):
        return sum(_array_bytes(v) for v in values)
    return 0


def test_dask_dataframe_with_feature_names():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data(2000)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    Xd = dd.from_pandas(frame, npartitions=4)
    yd = dd.from_pandas(pd.Series(y, name="y"), npartitions=4)
    clf = fit_sharded(LocalRegretTreeClassifier(random_state=0), Xd, yd, n_shards=2)
    assert list(clf.feature_names_in_) == list(frame.columns)
    assert clf.n_samples_seen_ == 2000
    assert clf.score(frame, y) == 1.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: LocalRegretTreeClassifier(discount=0.9, random_state=0),
        lambda: LocalRegretTreeClassifier(regret="swap", L=2, random_state=0),
        lambda: LocalRegretDisjunctClassifier(discount=0.95, random_state=0),
    ],
    ids=["tree", "swap-tree", "disjunct"],
)
def test_a_sync_gives_every_shard_the_sum_of_the_window(make):
    # The increments the shards exchange add up to absorb_shards of the
    # window: lambda^S base + sum_i (shard_i - lambda^(s_i) base).
    from sklearn_localregret.merging._core import dumps
    from sklearn_localregret.merging._sync import ShardState

    X, y = _data(1500)
    base = make().fit(X[:500], y[:500])
    shards = [ShardState(dumps(base), seed) for seed in (1, 2)]
    shards[0].learn(X[500:1000], y[500:1000], [0, 1])
    shards[1].learn(X[1000:1300], y[1000:1300], [0, 1])
    want = _sync(shards, base)
    for shard in shards:
        keys, values, rounds, mistakes = _state(shard.model)
        w_keys, w_values, w_rounds, w_mistakes = _state(want)
        assert sorted(map(repr, keys)) == sorted(map(repr, w_keys))
        order = [keys.index(k) for k in w_keys]
        table = shard.merger.tables(shard.model)[0]
        top = np.abs(w_values).max()
        got = _true_rows(table, order)
        np.testing.assert_allclose(
            got, _true_rows(shard.merger.tables(want)[0]), atol=1e-12 * top, rtol=0
        )
        assert (rounds, mistakes) == (w_rounds, w_mistakes)
        assert rounds == 1300 // base.batch_size
        assert table.n_rounds == shard.merger.tables(want)[0].n_rounds


def _true_rows(table, order=None):
    if hasattr(table, "factors"):
        f = table.factors()
        rows = np.concatenate(
            [f[n].reshape(len(f[n]), -1) for n in ("leaf", "true", "false", "cost")],
            axis=1,
        )
    else:
        rows = np.concatenate([table.biased, table.unbiased], axis=1)
    rows = rows / table.scale
    return rows if order is None else rows[order]


# -- several discounts, forests --------------------------------------------------
def _tables(model) -> list[dict]:
    """Every regret table of a learner in true units, by key: each player's
    of a tree, of each member of a forest."""
    from sklearn_localregret.merging._tree import tree_players

    trees = model.estimators_ if hasattr(model, "estimators_") else [model]
    return [
        dict(zip(player.table.keys(), _true_rows(player.table)))
        for tree in trees
        for player in tree_players(tree)
    ]


def _assert_same_sums(got, want, rtol=1e-12):
    mine, theirs = _tables(got), _tables(want)
    assert len(mine) == len(theirs)
    for rows, reference in zip(mine, theirs):
        assert rows.keys() == reference.keys()
        top = max([1.0] + [np.abs(v).max() for v in reference.values()])
        for key in reference:
            np.testing.assert_allclose(
                rows[key], reference[key], rtol=0, atol=rtol * top
            )
    trees = list(
        zip(getattr(got, "estimators_", [got]), getattr(want, "estimators_", [want]))
    )
    for a, b in [(got, want), *trees]:
        assert a.n_rounds_ == b.n_rounds_
        assert a.n_online_mistakes_ == pytest.approx(b.n_online_mistakes_, rel=rtol)
        np.testing.assert_allclose(a._hedge._losses, b._hedge._losses, rtol=rtol)
        if getattr(a, "_players", None) is not None:
            np.testing.assert_allclose(
                a._players.hedge._losses, b._players.hedge._losses, rtol=rtol
            )
    if hasattr(want, "n_drifts_"):
        np.testing.assert_array_equal(got.n_drifts_, want.n_drifts_)


def _concept(n, seed, flip=False):
    """0/1 features, y = x0 with 10% noise (inverted: ``flip``)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 4)) < 0.5).astype(float)
    y = np.where(rng.random(n) < 0.1, 1 - X[:, 0], X[:, 0]).astype(int)
    return X, (1 - y if flip else y)


@pytest.mark.parametrize(
    "make, flip",
    [
        (lambda: LocalRegretTreeClassifier(discount="auto", random_state=0), False),
        (
            lambda: LocalRegretTreeClassifier(
                regret="swap", L=2, discount=(0.9, 1.0), random_state=0
            ),
            False,
        ),
        (
            lambda: LocalRegretForestClassifier(
                n_estimators=2, discount="auto", random_state=0
            ),
            False,
        ),
        # Members reading x0 are replaced on shard 1 (it sees x0's concept
        # inverted): taken whole from it, then, while their tests enter, from
        # the first shard at each sync.
        (
            lambda: LocalRegretForestClassifier(
                n_estimators=4, max_features=2, discount=0.95, random_state=0
            ),
            True,
        ),
    ],
    ids=["tree-players", "swap-tree-players", "forest-players", "forest-drift"],
)
def test_a_sync_of_players_and_forests_gives_the_sum_of_the_window(make, flip):
    # Two windows: every shard's learner after each sync is absorb_shards of
    # the window (each table at its own discount, a replaced member whole).
    from sklearn_localregret.merging._core import copy_model, dumps
    from sklearn_localregret.merging._sync import ShardState

    base = make().fit(*_concept(500, 0))
    shards = [ShardState(dumps(base), seed) for seed in (1, 2)]
    drifts, unsettled = [], []
    for window in range(2):
        start = copy_model(shards[0].model)
        # With ``flip``, shard 1 sees x0's concept inverted from the first
        # window on, shard 0 from the second.
        shards[0].learn(*_concept(300, 10 + window, flip=flip and window), [0, 1])
        shards[1].learn(*_concept(200, 20 + window, flip=flip), [0, 1])
        want = _sync(shards, start)
        for shard in shards:
            _assert_same_sums(shard.model, want)
        drifts.append(getattr(want, "n_drifts_", np.zeros(1)).sum())
        members = getattr(start, "estimators_", [])
        unsettled.append([not m._tests.complete for m in members])
    if flip:
        assert drifts[0] > 0  # shard 1 replaced members in the first window
        # Their tests were still entering at the second window's start:
        # shard 0's were taken whole (its 300 rows), shard 1's (200) dropped.
        assert any(unsettled[1])
        batch = start.batch_size
        for k, fresh in enumerate(unsettled[1]):
            rounds = start.estimators_[k].n_rounds_ + (300 if fresh else 500) // batch
            if want.n_drifts_[k] == start.n_drifts_[k]:
                assert shards[1].model.estimators_[k].n_rounds_ == rounds


def test_tree_with_several_discounts_shards():
    X, y = _data()
    est = LocalRegretTreeClassifier(discount="auto", random_state=0)
    runs = [fit_sharded(est, X, y, n_shards=3, sync_every=10) for _ in range(2)]
    clf = runs[0]
    assert clf.n_samples_seen_ == 3000 and clf.n_rounds_ == 600
    from sklearn_localregret.merging._tree import tree_players

    # Every player's clock counts every shard's rounds once.
    assert [p.table.n_rounds for p in tree_players(clf)] == [600, 600]
    _assert_same_sums(runs[1], clf, rtol=0)  # deterministic
    assert clf.score(X, y) == 1.0


def test_forest_shards():
    X, y = _data()
    est = LocalRegretForestClassifier(n_estimators=3, random_state=0)
    runs = [fit_sharded(est, X, y, n_shards=2, sync_every=10) for _ in range(2)]
    clf = runs[0]
    assert not hasattr(est, "n_rounds_")
    rounds = 3000 // est.batch_size
    assert clf.n_samples_seen_ == 3000 and clf.n_rounds_ == rounds
    assert [m.n_rounds_ for m in clf.estimators_] == [rounds] * 3
    assert clf.score(X, y) == 1.0
    _assert_same_sums(runs[1], clf, rtol=0)  # deterministic
    clf.partial_fit(X[:10], y[:10])
    assert clf.n_samples_seen_ == 3010


def test_forest_shards_through_a_drift():
    # Each shard's stream (a contiguous half) inverts x0's concept halfway.
    parts = [_concept(1000, seed, flip=seed % 2 == 1) for seed in range(4)]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    est = LocalRegretForestClassifier(n_estimators=4, max_features=2, random_state=0)
    runs = [fit_sharded(est, X, y, n_shards=2, sync_every=10) for _ in range(2)]
    clf = runs[0]
    assert clf.n_drifts_.sum() > 0
    assert clf.n_samples_seen_ == 4000
    _assert_same_sums(runs[1], clf, rtol=0)
    # The replaced members learnt the inverted concept.
    X_new, y_new = _concept(500, 9, flip=True)
    assert clf.score(X_new, y_new) > 0.8


def test_forest_on_a_cluster_learns_the_same_model_as_one_process():
    da = pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    X, y = _data(3000)
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500)
    est = LocalRegretForestClassifier(n_estimators=2, random_state=0)
    local = fit_sharded(est, Xd, yd, n_shards=2, sync_every=20)
    remote = _fit_on_local_cluster(est, Xd, yd, sync_every=20)
    _assert_same_sums(remote, local, rtol=0)
    assert remote.n_rounds_ == 3000 // est.batch_size
    np.testing.assert_array_equal(
        remote.predict_proba(X[:50]), local.predict_proba(X[:50])
    )


def test_sharded_tables_forget_as_one_learner_does():
    """Shards forget quiet sites every FORGET_EVERY rounds of their window;
    the sync's sum (the marked tables decayed) brings them back, so each
    sync forgets the quiet ones again: the sharded table holds no site a
    learner would have forgotten, and stays near the sequential learner's
    size (without it, 1,000,000 rows of bench_sharded.py --cluster held 48 MiB
    of regrets against the one process's 2)."""
    from sklearn_localregret.engine import FORGET_TOLERANCE

    X, y = _data(12000, seed=3)
    params = dict(discount=0.9, random_state=0)
    one = LocalRegretTreeClassifier(**params).fit(X, y)
    sharded = fit_sharded(
        LocalRegretTreeClassifier(**params), X, y, sync_every=300, n_shards=2
    )
    player = sharded._player
    table = player.table
    quiet = table.row_magnitudes() <= FORGET_TOLERANCE * player.largest_round
    quiet[table.find(())] = False
    assert not quiet.any()
    assert sharded.n_sites_ <= 2 * max(one.n_sites_, 10)


@pytest.mark.parametrize(
    "make",
    [
        lambda: LocalRegretDisjunctClassifier(random_state=0, prediction="vote"),
        lambda: LocalRegretTreeClassifier(random_state=0, prediction="vote"),
        lambda: LocalRegretTreeClassifier(random_state=0, discount="auto"),
    ],
)
def test_one_shard_is_the_sequential_learner(make):
    """One shard was reseeded, and its syncs took in its own delta again
    (rounding, a pass of forgetting): 3 mistakes against ``fit``'s 5 and
    probabilities 0.26 apart on the disjunct learner."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(2000, 6)).astype(float)
    X[:, 5] = rng.normal(size=2000)
    y = X[:, 0].astype(int) | X[:, 3].astype(int)
    sharded = fit_sharded(make(), X, y, n_shards=1, sync_every=20)
    whole = make().fit(X, y)
    assert sharded.n_online_mistakes_ == whole.n_online_mistakes_
    np.testing.assert_array_equal(sharded.pi_proba(X), whole.pi_proba(X))
    if whole.prediction == "vote":  # the hedge scores calls (see the guide)
        np.testing.assert_array_equal(sharded.predict_proba(X), whole.predict_proba(X))


def test_lists_shard_as_arrays():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(500, 4))
    y = X[:, 0] | X[:, 1]
    lists = fit_sharded(
        LocalRegretTreeClassifier(random_state=0), X.tolist(), y.tolist(), n_shards=2
    )
    arrays = fit_sharded(LocalRegretTreeClassifier(random_state=0), X, y, n_shards=2)
    np.testing.assert_array_equal(lists.predict_proba(X), arrays.predict_proba(X))


def test_missing_labels_are_named_as_fit_names_them():
    X, y = _data(100)
    labels = np.where(y == 1, "yes", "no").astype(object)
    labels[7] = None
    with pytest.raises(ValueError, match="y contains None"):
        fit_sharded(LocalRegretTreeClassifier(), X, labels, n_shards=2)
