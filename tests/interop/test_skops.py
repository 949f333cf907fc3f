"""Safe persistence: every fitted model round-trips through skops.io.

A model is saved to a file, the file's untrusted types are checked to be ours
only, and it is loaded trusting nothing but ``trusted_types()``. The loaded
model predicts as the saved one, and learning on from it is learning on from
the saved one (same seed, same stream).
"""

import numpy as np
import pytest

sio = pytest.importorskip("skops.io")

from sklearn_localregret import (  # noqa: E402
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
    OnlineMaxSAT,
)
from sklearn_localregret.baselines import Winnow2Classifier  # noqa: E402
from sklearn_localregret.persistence import trusted_types  # noqa: E402

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
    return sio.load(path, trusted=trusted_types())


def test_trusted_types_are_ours_only():
    names = trusted_types()
    assert len(names) == len(set(names))
    assert all(name.startswith("sklearn_localregret.") for name in names)


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
