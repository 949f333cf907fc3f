"""Safe persistence: every fitted model round-trips through skops.io.

A model is saved to a file, the file's untrusted types are checked to be ours
only, and it is loaded trusting nothing but ``trusted_types()``. The loaded
model predicts as the saved one, and learning on from it is learning on from
the saved one (same seed, same stream).
"""

import copy
import pickle

import numpy as np
import pytest

sio = pytest.importorskip("skops.io")

from sklearn_localregret import (  # noqa: E402
    LocalRegretDisjunctClassifier,
    LocalRegretForestClassifier,
    LocalRegretTreeClassifier,
    OnlineMaxSAT,
)
from sklearn_localregret._hedge import AdaHedge  # noqa: E402
from sklearn_localregret.baselines import Winnow2Classifier  # noqa: E402
from sklearn_localregret.persistence import (  # noqa: E402
    check_consistency,
    load,
    trusted_types,
)

N_FEATURES = 6

# Every sampler the engine has is somewhere in here: the removal-set clocks
# (disjunct external), product sites (disjunct hypercube), the MCMC (disjunct
# external with L < n), the finite chain (swap), the hierarchical tree sampler
# and its MCMC fallback (tree).
CLASSIFIERS = {
    "disjunct-external": lambda: LocalRegretDisjunctClassifier(random_state=0),
    "disjunct-external-L2": lambda: LocalRegretDisjunctClassifier(
        L=2, n_mcmc_steps=20, random_state=0
    ),
    "disjunct-hypercube": lambda: LocalRegretDisjunctClassifier(
        graph="hypercube", random_state=0
    ),
    "disjunct-hypercube-L2": lambda: LocalRegretDisjunctClassifier(
        graph="hypercube", L=2, n_mcmc_steps=20, random_state=0
    ),
    "disjunct-swap": lambda: LocalRegretDisjunctClassifier(
        regret="swap", random_state=0
    ),
    "disjunct-swap-L2": lambda: LocalRegretDisjunctClassifier(
        regret="swap", L=2, random_state=0
    ),
    "tree-external": lambda: LocalRegretTreeClassifier(random_state=0),
    "tree-external-L3": lambda: LocalRegretTreeClassifier(
        L=3, batch_size=2, random_state=0
    ),
    "tree-swap-L3": lambda: LocalRegretTreeClassifier(
        regret="swap", L=3, batch_size=2, random_state=0
    ),
    "tree-auto-discount": lambda: LocalRegretTreeClassifier(
        discount="auto", batch_size=2, random_state=0
    ),
    "forest": lambda: LocalRegretForestClassifier(
        n_estimators=3, batch_size=2, random_state=0
    ),
    "winnow2": lambda: Winnow2Classifier(),
}


def _stream(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, N_FEATURES))
    y = (X[:, 0] | X[:, 3]) ^ (rng.random(n) < 0.1)
    return X, y


def _scores(model, X):
    """The continuous output: probabilities, or Winnow2's scores."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    return model.decision_function(X)


def _save_and_load(model, tmp_path):
    path = tmp_path / "model.skops"
    sio.dump(model, path)
    asked = sio.get_untrusted_types(file=path)
    assert asked, "a model of ours is made of at least its own type"
    assert set(asked) <= set(trusted_types()), set(asked) - set(trusted_types())
    loaded = sio.load(path, trusted=trusted_types())
    check_consistency(loaded)  # a model saved by us is consistent
    return loaded


def test_trusted_types_are_ours_only():
    names = trusted_types()
    assert len(names) == len(set(names))
    # Ours, and the deque of the River adapter's recent rows.
    assert [n for n in names if not n.startswith("sklearn_localregret.")] == [
        "collections.deque"
    ]


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_round_trip_and_continued_learning(name, tmp_path):
    X, y = _stream()
    first, second = slice(0, 60), slice(60, 120)
    model = CLASSIFIERS[name]().partial_fit(X[first], y[first], classes=[0, 1])
    loaded = _save_and_load(model, tmp_path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(_scores(loaded, X), _scores(model, X))

    # The loaded model continues the saved one's stream: same plays, same
    # random draws, so the same mistakes and the same final model.
    model.partial_fit(X[second], y[second])
    loaded.partial_fit(X[second], y[second])
    assert loaded.n_online_mistakes_ == model.n_online_mistakes_
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(_scores(loaded, X), _scores(model, X))


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"L": 2, "n_mcmc_steps": 20},
        {"regret": "swap"},
    ],
    ids=["external", "external-L2", "swap"],
)
def test_maxsat_round_trip_and_continued_play(params, tmp_path):
    rng = np.random.default_rng(1)
    clauses = [
        list((rng.choice(8, 3, replace=False) + 1) * rng.choice([-1, 1], 3))
        for _ in range(80)
    ]
    solver = OnlineMaxSAT(8, random_state=0, **params).partial_fit(clauses[:40])
    loaded = _save_and_load(solver, tmp_path)
    np.testing.assert_array_equal(loaded.probabilities_, solver.probabilities_)
    solver.partial_fit(clauses[40:])
    loaded.partial_fit(clauses[40:])
    assert loaded.satisfied_weight_ == solver.satisfied_weight_
    np.testing.assert_array_equal(loaded.probabilities_, solver.probabilities_)
    np.testing.assert_array_equal(loaded.best_assignment(), solver.best_assignment())


def test_a_swap_maxsat_learner_saves_in_about_its_pickle_s_bytes():
    # Its table's keys and its sampler's vertices are assignments as bytes:
    # skops wrote each as a file of its own (1,781 KB against a 522 KB
    # pickle after 300 clauses of 12 variables); now one array each.
    rng = np.random.default_rng(1)
    clauses = [
        list((rng.choice(12, 3, replace=False) + 1) * rng.choice([-1, 1], 3))
        for _ in range(400)
    ]
    solver = OnlineMaxSAT(12, regret="swap", random_state=0).partial_fit(clauses[:300])
    saved, pickled = sio.dumps(solver), pickle.dumps(solver)
    assert len(saved) < 3 * len(pickled)  # (4.3x before; the rest a fixed schema)
    loaded = sio.loads(saved, trusted=trusted_types())
    solver.partial_fit(clauses[300:])
    loaded.partial_fit(clauses[300:])
    assert loaded.satisfied_weight_ == solver.satisfied_weight_
    np.testing.assert_array_equal(loaded.probabilities_, solver.probabilities_)


@pytest.mark.parametrize("forest", [False, True])
def test_a_tree_of_wide_sparse_input_saves_in_about_its_pickle_s_bytes(forest):
    # The column encoder keeps a list entry a column: skops wrote a node a
    # None (37 MB against 0.4 MB pickled at 2**16 columns; a forest 132 MB).
    import scipy.sparse as sp

    X = sp.random(300, 2**16, density=40 / 2**16, format="csr", random_state=0)
    X.data[:] = 1.0
    y = (np.asarray(X[:, : 2**15].sum(axis=1)).ravel() > 20).astype(int)
    model = (
        LocalRegretForestClassifier(n_estimators=2, random_state=0)
        if forest
        else LocalRegretTreeClassifier(random_state=0)
    ).fit(X, y)
    saved, pickled = sio.dumps(model), pickle.dumps(model)
    assert len(saved) < 3 * len(pickled)
    loaded = sio.loads(saved, trusted=trusted_types())
    assert loaded._columns.categories == model._columns.categories
    assert loaded._columns.numbers == model._columns.numbers
    for learner in (model, loaded):
        learner.partial_fit(X[:50], y[:50])
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_pipeline_with_the_boolean_encoder_round_trips(tmp_path):
    """The README's recipe on its quickstart model: encoder + tree learner."""
    from sklearn.pipeline import make_pipeline

    from sklearn_localregret.datasets import boolean_encoder, load_mushroom

    X, y = load_mushroom(return_X_y=True)
    X, y = X[:300], y[:300]
    model = make_pipeline(
        boolean_encoder(), LocalRegretTreeClassifier(random_state=0)
    ).fit(X, y)
    loaded = _save_and_load(model, tmp_path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(
        loaded[0].get_feature_names_out(), model[0].get_feature_names_out()
    )


def test_a_file_asking_for_other_types_does_not_load(tmp_path):
    """Trusting our types trusts nothing else: skops refuses a foreign type."""
    model = CLASSIFIERS["disjunct-external"]().fit(*_stream())
    model.smuggled_ = _Foreign()
    path = tmp_path / "model.skops"
    sio.dump(model, path)
    with pytest.raises(sio.exceptions.UntrustedTypesFoundException, match="_Foreign"):
        sio.load(path, trusted=trusted_types())


class _Foreign:
    """A type of no package of ours (its module is this test file)."""


def test_a_saved_tree_holds_its_regret_table_once():
    # The samplers and the rate graph refer to the table; a saved model must
    # not store it once per reference (it did: 3.3 MB for 290 KB of regrets).
    # Bound: the table's arrays twice over (slack for the rest of the state,
    # the warm-start window, the schema) is far below three copies.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 60))
    y = X[:, 0] ^ X[:, 1] ^ (rng.random(400) < 0.1)
    model = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    table_bytes = model.regret_nbytes_
    assert table_bytes > 50_000  # a table worth counting
    saved = sio.dumps(model)
    assert len(saved) < 2 * table_bytes + 200_000
    loaded = sio.loads(saved, trusted=trusted_types())
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    # Rebuilt around one table: after more rounds on both, the loaded model
    # plays and predicts as the original (a reader left on a copy would not).
    for lo in range(0, 60, 20):
        model.partial_fit(X[lo : lo + 20], y[lo : lo + 20])
        loaded.partial_fit(X[lo : lo + 20], y[lo : lo + 20])
    assert loaded.n_online_mistakes_ == model.n_online_mistakes_
    np.testing.assert_array_equal(
        loaded.regret_table_.row_max_regret(), model.regret_table_.row_max_regret()
    )
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_streamed_tree_saves_in_about_its_pickle_s_bytes():
    # A streamed tree holds thousands of paths; as a list of tuples skops
    # wrote each (test, branch) pair as a node of its JSON schema (111 MB
    # against a 5.8 MB pickle after 20,000 rows; 3.1 MB against 0.36 MB
    # here). Saved as integer arrays: 0.62 MB here, the rest of the schema
    # a fixed cost (5.8 MB against 5.5 MB after 20,000 rows).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 10))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] > 0).astype(int)
    model = LocalRegretTreeClassifier(random_state=0)
    for lo in range(0, len(y), 5):
        model.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
    assert model.n_sites_ > 500  # paths worth counting
    saved, pickled = sio.dumps(model), pickle.dumps(model)
    assert len(saved) < 3 * len(pickled)
    loaded = sio.loads(saved, trusted=trusted_types())
    assert loaded.regret_table_.keys() == model.regret_table_.keys()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_streamed_swap_tree_saves_in_about_its_pickle_s_bytes():
    # A swap tree's chain sampler caches every tree it met (thousands after
    # a few hundred rounds) and a rate graph keeps the played ones: saved as
    # they were, skops wrote each tree node as a node of its schema (193 MB
    # against 3.8 MB pickled after 1,000 rows of agrawal). Saved as their
    # distinct nodes and the edges as arrays: about the pickle's bytes.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    model = LocalRegretTreeClassifier(regret="swap", random_state=0)
    for lo in range(0, 600, 10):
        model.partial_fit(X[lo : lo + 10], y[lo : lo + 10], classes=[0, 1])
    assert len(model._player.sampler._vertices) > 1000  # trees worth counting
    saved, pickled = sio.dumps(model), pickle.dumps(model)
    assert len(saved) < 3 * len(pickled)
    loaded = sio.loads(saved, trusted=trusted_types())
    unpickled = pickle.loads(pickled)
    for lo in range(600, 800, 10):  # they play on as the model does
        for learner in (model, loaded, unpickled):
            learner.partial_fit(X[lo : lo + 10], y[lo : lo + 10])
    expected = model.predict_proba(X)
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    np.testing.assert_array_equal(unpickled.predict_proba(X), expected)


@pytest.mark.parametrize(
    "name, classes",
    [
        ("tree-external", None),  # labels discovered: recent rows in a deque
        ("tree-swap-L3", None),
        ("tree-external", [0, 1]),
        ("disjunct-swap", [0, 1]),
        ("winnow2", [0, 1]),
    ],
)
def test_river_adapter_round_trip_with_trusted_types_only(name, classes, tmp_path):
    # It needed collections.deque (the rows kept to replay when a new label
    # comes) and the adapter's own class, which trusted_types() lacked.
    pytest.importorskip("river")
    from sklearn_localregret.river import RiverAdapter

    X, y = _stream()
    adapter = RiverAdapter(CLASSIFIERS[name](), classes=classes)
    rows = [{f"x{j}": int(v) for j, v in enumerate(row)} for row in X]
    for row, label in zip(rows[:60], y[:60]):
        adapter.learn_one(row, int(label))
    loaded = _save_and_load(adapter, tmp_path)
    assert load(tmp_path / "model.skops").classes_ == adapter.classes_
    for row, label in zip(rows[60:], y[60:]):
        assert loaded.predict_one(row) == adapter.predict_one(row)
        if name != "winnow2":  # no probabilities
            assert loaded.predict_proba_one(row) == adapter.predict_proba_one(row)
        adapter.learn_one(row, int(label))
        loaded.learn_one(row, int(label))
    assert [loaded.predict_one(r) for r in rows] == [
        adapter.predict_one(r) for r in rows
    ]
    # The rows kept to replay: skops gave the deque back empty and unbounded,
    # and a new label then restarted the loaded learner from its one row.
    assert loaded.n_replay_rows_ == adapter.n_replay_rows_
    if classes is None:
        assert loaded.n_replay_rows_ > 0
        adapter.learn_one(rows[0], 2)
        loaded.learn_one(rows[0], 2)
        assert loaded.estimator_.n_samples_seen_ == adapter.estimator_.n_samples_seen_
        assert loaded.predict_proba_one(rows[1]) == adapter.predict_proba_one(rows[1])


def _hedge_with_two_shares() -> AdaHedge:
    """The forest's 7 experts (the vote, 3 members, 3 root experts), a prior
    of 2 shares."""
    hedge = AdaHedge([0.0] * 7)
    hedge.log_prior = (-0.5, -1.0)
    return hedge


def _forge(model, tmp_path, **values):
    """The file a forger writes: the saved model with ``values`` replaced,
    made of trusted types only."""
    for attribute, value in values.items():
        setattr(model, attribute, value)
    path = tmp_path / "forged.skops"
    sio.dump(model, path)
    assert set(sio.get_untrusted_types(file=path)) <= set(trusted_types())
    return path


@pytest.mark.parametrize(
    "name, forged, match",
    [
        ("tree-external", {"n_features_in_": N_FEATURES + 3}, "tests read 6 features"),
        ("tree-swap-L3", {"n_features_in_": N_FEATURES + 3}, "tests read 6 features"),
        ("tree-external", {"n_features_in_": 2}, "n_features_in_=2"),
        ("tree-external", {"classes_": np.array([0, 1, 2])}, "regret table has 2"),
        ("disjunct-external", {"n_features_in_": 9}, "over 6 features"),
        ("disjunct-hypercube", {"n_features_in_": 9}, "over 6 features"),
        ("disjunct-swap", {"classes_": np.array([0, 0])}, "repeats a label"),
        ("winnow2", {"n_features_in_": 9}, "coef_ has shape"),
        ("forest", {"n_features_in_": 2}, "member 0 reads columns outside 0..1"),
        ("forest", {"classes_": np.array([0, 1, 2])}, "other classes than the"),
        ("forest", {"n_estimators": 5}, "3 members and 3 subspaces"),
        ("forest", {"_hedge": _hedge_with_two_shares()}, "prior has 2 shares"),
        ("winnow2", {"n_rounds_": -1}, "n_rounds_ is -1"),
    ],
)
def test_a_forged_model_is_refused_with_a_clear_error(name, forged, match, tmp_path):
    X, y = _stream()
    path = _forge(CLASSIFIERS[name]().fit(X, y), tmp_path, **forged)
    # skops loads it: every type is trusted ...
    plain = sio.load(path, trusted=trusted_types())
    # ... and load() refuses it before a predict can fail inside.
    with pytest.raises(ValueError, match="inconsistent .*forged or damaged") as exc:
        load(path)
    assert match in str(exc.value)
    # Loaded by skops alone, it refuses its first use, and every one after.
    for use in (lambda: plain.predict(X[:2]), lambda: plain.partial_fit(X, y)) * 2:
        with pytest.raises(ValueError, match="inconsistent .*forged or damaged"):
            use()


@pytest.mark.parametrize("name", ["tree-external", "forest", "disjunct-external"])
def test_a_sound_loaded_model_is_checked_once_and_saves_as_it_was(name):
    X, y = _stream()
    model = CLASSIFIERS[name]().fit(X, y)
    loaded = pickle.loads(pickle.dumps(model))
    saved = pickle.dumps(loaded)
    assert loaded._unchecked == [True]
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded._unchecked == [False]
    assert pickle.dumps(loaded) == saved  # the check leaves no trace


def test_load_checks_unless_told_not_to(tmp_path):
    X, y = _stream()
    model = CLASSIFIERS["tree-external"]().fit(X, y)
    path = _forge(model, tmp_path, n_features_in_=2)
    assert load(path, check=False).n_features_in_ == 2  # skops alone takes it
    with pytest.raises(ValueError, match="tests read 6 features"):
        load(path)


def test_a_forged_maxsat_learner_and_pipeline_are_refused(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    solver = OnlineMaxSAT(8, random_state=0).partial_fit([[1, -2, 3], [-4, 5]] * 5)
    path = _forge(solver, tmp_path, n_vars=12)
    with pytest.raises(ValueError, match="hypercube has 8 variables but n_vars=12"):
        load(path)
    # Loaded by skops alone, it refuses to play, learn or be read, every time.
    plain = sio.load(path, trusted=trusted_types())
    uses = (plain.assignment, lambda: plain.observe([1, -2]), plain.best_assignment)
    for use in uses * 2:
        with pytest.raises(ValueError, match="hypercube has 8 variables"):
            use()
    assert plain.n_rounds_ == 10  # nothing learnt

    X, y = _stream()
    model = make_pipeline(FunctionTransformer(), Winnow2Classifier()).fit(X, y)
    model[-1].coef_ = model[-1].coef_[:3]
    path = tmp_path / "pipeline.skops"
    sio.dump(model, path)
    with pytest.raises(ValueError, match="Winnow2Classifier .*coef_ has shape"):
        load(path)


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_a_maxsat_learner_saved_with_a_drawn_assignment_plays_on(regret, tmp_path):
    # assignment() commits the round's draw (0/1 bytes) until observe(): a
    # copy or a file made between the two was refused for good (the check
    # asked for bools), by every later call and by load.
    clauses = [[1, -2, 3], [-4, 5], [2, -6]] * 10
    solver = OnlineMaxSAT(6, regret=regret, random_state=0).partial_fit(clauses)
    drawn = solver.assignment()
    copies = [
        pickle.loads(pickle.dumps(solver)),
        copy.deepcopy(solver),
        _save_and_load(solver, tmp_path),
    ]
    for other in copies:
        np.testing.assert_array_equal(other.assignment(), drawn)
    for learner in [solver, *copies]:
        learner.observe([2, 3])
    for other in copies:
        assert other.satisfied_weight_ == solver.satisfied_weight_
        np.testing.assert_array_equal(other.assignment(), solver.assignment())
    # A pending draw that is not 0/1 values is still refused.
    forged = copy.deepcopy(solver)
    forged._pending = np.full(6, 2, dtype=np.uint8)
    with pytest.raises(ValueError, match="pending assignment is not 0/1"):
        forged.observe([1, 2])


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_a_sound_loaded_maxsat_learner_is_checked_once(regret):
    clauses = [[1, -2, 3], [-4, 5], [2, -6]] * 20
    solver = OnlineMaxSAT(6, regret=regret, random_state=0).partial_fit(clauses)
    loaded = pickle.loads(pickle.dumps(solver))
    assert loaded._unchecked == [True]
    assert "_unchecked" not in loaded.__getstate__()  # never saved
    np.testing.assert_array_equal(loaded.best_assignment(), solver.best_assignment())
    assert loaded._unchecked == [False]
    # The check drew nothing: both play and learn alike from here.
    assert loaded.run(clauses).tolist() == solver.run(clauses).tolist()


@pytest.mark.parametrize("in_pipeline", [False, True])
def test_dump_waits_for_the_round_under_way(in_pipeline, tmp_path, monkeypatch):
    # skops reads the state itself: a file saved while another thread was in
    # the middle of a round did not load (25 of 44 saves of a tree learning
    # one row per call). persistence.dump holds the model's lock.
    import threading

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from sklearn_localregret.persistence import dump

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (60, N_FEATURES)).astype(float)
    y = X[:, 0].astype(int)

    def make():
        return LocalRegretTreeClassifier(random_state=0).partial_fit(
            X[:40], y[:40], classes=[0, 1]
        )

    tree, after = make(), make().partial_fit(X[40:45], y[40:45])
    model = make_pipeline(FunctionTransformer(), tree) if in_pipeline else tree
    inside, release = threading.Event(), threading.Event()
    count_rounds = LocalRegretTreeClassifier._count_rounds

    def held(self, *args):  # the round is learnt, not yet counted (locked)
        inside.set()
        assert release.wait(30)
        return count_rounds(self, *args)

    monkeypatch.setattr(LocalRegretTreeClassifier, "_count_rounds", held)
    learner = threading.Thread(target=tree.partial_fit, args=(X[40:45], y[40:45]))
    learner.start()
    assert inside.wait(30)
    path = tmp_path / "model.skops"
    saver = threading.Thread(target=dump, args=(model, path))
    saver.start()
    saver.join(0.3)
    assert saver.is_alive() and not path.exists()  # waits for the round
    release.set()
    learner.join(30)
    saver.join(30)
    loaded = load(path)
    loaded = loaded[-1] if in_pipeline else loaded
    assert loaded.n_samples_seen_ == 45
    np.testing.assert_array_equal(loaded.predict_proba(X), after.predict_proba(X))
