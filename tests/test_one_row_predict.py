"""The compiled steps of a one-row prediction: numpy's answers, fresh caches.

A streaming ``predict_proba`` checks its row's values, computes the tests'
outcomes and looks for stale label slots in compiled kernels
(``engine.compiled.row_checks``, ``thresholds.outcome_kernel``,
``engine.compiled.tree_labels.stale_slots``); each must say what numpy said,
and a model that learns between predictions must predict what a model whose
caches are built from scratch predicts, bit for bit.
"""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret._base import BaseOnlineClassifier
from sklearn_localregret._tree.external import ExternalPlayer
from sklearn_localregret.engine.compiled.row_checks import finite_enough
from sklearn_localregret.engine.compiled.tree_labels import stale_slots


def _blocks():
    """Float blocks with a refused value in every place, and clean ones."""
    rng = np.random.default_rng(0)
    for shape in [(1, 1), (1, 20), (3, 5)]:
        clean = rng.normal(size=shape)
        yield clean
        for value in (np.nan, np.inf, -np.inf):
            for at in [(0, 0), (shape[0] - 1, shape[1] - 1)]:
                block = clean.copy()
                block[at] = value
                yield block
        both = clean.copy()
        both.flat[0], both.flat[-1] = np.nan, np.inf
        yield both


@pytest.mark.parametrize("allow_nan", [False, True])
def test_finite_enough_is_numpys(allow_nan):
    for block in _blocks():
        expected = (
            not np.isinf(block).any() if allow_nan else bool(np.isfinite(block).all())
        )
        assert bool(finite_enough(block, allow_nan)) == expected, block


def test_stale_slots_is_numpys():
    rng = np.random.default_rng(0)
    versions = rng.integers(0, 5, 300)
    seen = versions.copy()
    assert not stale_slots(seen, versions, 300)
    for row in (0, 150, 299):
        changed = versions.copy()
        changed[row] += 1
        assert stale_slots(seen, changed, 300)
        assert not stale_slots(seen, changed, row)  # beyond n_rows


def _coded_stream(n=400, seed=0):
    """Reals with missing values and a coded categorical column (objects)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).round(1).astype(object)
    X[rng.random((n, 4)) < 0.1] = np.nan
    X[:, 3] = rng.choice(["a", "b", "c"], n)
    y = ((X[:, 3] == "a") | (np.nan_to_num(X[:, 0].astype(float)) > 0)).astype(int)
    return X, y


def test_outcomes_of_every_kind_are_numpys():
    X, y = _coded_stream()
    model = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    tests = model._tests
    assert set(np.unique(tests.kind)) == {0, 1, 2}  # every kind of test
    rows = model._encode_columns(X, learning=False)
    # Thresholds, codes and NaN themselves: ties and missing values.
    rows = np.vstack([rows, tests.threshold[: rows.shape[1]], np.nan * rows[:1]])
    compiled = tests.outcomes(np.ascontiguousarray(rows, dtype=np.float64))
    numpys = tests.outcomes(np.asfortranarray(rows, dtype=np.float64))
    np.testing.assert_array_equal(compiled, numpys)


def _numeric_stream(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    X[rng.random((n, 6)) < 0.05] = np.nan  # missing-value tests enter late
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    return X, y


_PARAMS = {
    "default": {},
    "swap": {"regret": "swap"},
    "label-reads": {"leaf_prediction": "label"},
    "sampled-trees": {"n_predict_trees": 5},
    "discounts": {"discount": [0.9, 0.99]},
    "tolerance": {"predict_tolerance": 0.01},
}


@pytest.mark.parametrize("refreshed", [True, False], ids=["refreshed", "stale"])
@pytest.mark.parametrize("params", list(_PARAMS.values()), ids=list(_PARAMS))
def test_one_row_proba_is_fresh_after_each_partial_fit(params, refreshed, monkeypatch):
    """After every learning call, the probabilities of a row, and of a block
    of 40 rows (walked site by site), are those of a loaded copy (its caches
    built anew) taken through the full validation. ``stale``: the calls leave
    the label cache as the rounds left it (as a reader between two rounds
    finds it), so that predicting must find the changed rows itself."""
    if not refreshed:
        monkeypatch.setattr(ExternalPlayer, "finish_call", lambda self: None)
    X, y = _numeric_stream()
    model = LocalRegretTreeClassifier(random_state=0, **params)
    model.partial_fit(X[:100], y[:100], classes=[0, 1])
    probe = X[300:340]
    at = 100
    for size in [1, 1, 3, 1, 25, 1, 60, 1]:
        rows = [model.predict_proba(probe[i : i + 1]) for i in range(5)]
        block = model.predict_proba(probe)
        with monkeypatch.context() as patch:
            patch.setattr(BaseOnlineClassifier, "_is_clean_row", lambda self, X: False)
            fresh = pickle.loads(pickle.dumps(model))
            for i, row in enumerate(rows):
                np.testing.assert_array_equal(
                    row, fresh.predict_proba(probe[i : i + 1])
                )
            np.testing.assert_array_equal(block, fresh.predict_proba(probe))
        model.partial_fit(X[at : at + size], y[at : at + size])  # then learn
        at += size


_REFUSED = {  # a row of 6 features, and the learners that refuse it
    "inf": ([np.inf] + [0.0] * 5, ("tree", "disjunct")),
    "-inf-last": ([0.0] * 5 + [-np.inf], ("tree", "disjunct")),
    "nan": ([0.0, np.nan] + [0.0] * 4, ("disjunct",)),
    "nan-and-inf": ([np.nan] + [0.0] * 4 + [np.inf], ("tree", "disjunct")),
}


def _fitted(name):
    X, y = _numeric_stream()
    if name == "tree":
        return LocalRegretTreeClassifier(random_state=0).fit(X, y)
    X = np.nan_to_num(X)
    return LocalRegretDisjunctClassifier(binarize=0.0, random_state=0).fit(X, y)


def _error(call):
    try:
        call()
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", ["tree", "disjunct"])
@pytest.mark.parametrize("case", list(_REFUSED))
@pytest.mark.parametrize("rows", [1, 3])
def test_compiled_checks_refuse_what_validation_refuses(name, case, rows, monkeypatch):
    row, refused_by = _REFUSED[case]
    X = np.repeat(np.array([row]), rows, axis=0)  # C-contiguous float64
    model = _fitted(name)
    fast = _error(lambda: model.predict_proba(X))
    with monkeypatch.context() as patch:
        patch.setattr(BaseOnlineClassifier, "_is_clean_row", lambda self, X: False)
        patch.setattr(BaseOnlineClassifier, "_is_plain_rows", lambda self, X: False)
        full = _error(lambda: model.predict_proba(X))
    assert fast == full
    assert (full is not None) == (name in refused_by)
