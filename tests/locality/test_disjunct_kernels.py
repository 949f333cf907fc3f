"""The compiled round of disjunct learning against its numpy definition.

:func:`removal_set_round` and :func:`hypercube_round` (compiled) must leave the
regret tables, their versions and the pool exactly as the numpy gains
(:func:`removal_set_gains`, :func:`disjunction_round`) followed by the
graphs' ``update`` do: random rounds of one and of several rows, weighted,
with and without a bias and a discount, sets entering a full pool.
"""

import copy

import numpy as np
import pytest

from sklearn_localregret.locality.disjunct_rounds import (
    disjunction_round,
    hypercube_round,
)
from sklearn_localregret.locality.hypercube import HypercubeColoring
from sklearn_localregret.locality.removal_set_rounds import (
    removal_set_gains,
    removal_set_round,
)
from sklearn_localregret.locality.removal_sets import RemovalSetColoring


def numpy_removal_set_round(graph, a, X, y, w, bias):
    """The round as it was written in numpy (the definition)."""
    y, w = np.asarray(y), np.asarray(w, dtype=float)
    active = X.astype(np.int64) @ a
    spawning = (y != 1) & (w > 0) & (active >= 2)
    if spawning.any():
        graph.track(X[spawning])
    gains, set_gains, wrong = removal_set_gains(a, X, y, w, graph.sets)
    graph.update(a, gains, np.where(graph.occupied, set_gains, 0.0), bias)
    return wrong


def assert_same_graph(a, b):
    for name in ("_biased", "_unbiased", "_versions"):
        np.testing.assert_array_equal(getattr(a.table, name), getattr(b.table, name))
    assert a.table.n_rounds == b.table.n_rounds
    assert a._state == b._state
    if isinstance(a, RemovalSetColoring):
        np.testing.assert_array_equal(a.sets, b.sets)
        np.testing.assert_array_equal(a.occupied, b.occupied)
        assert a.n_sets_tracked == b.n_sets_tracked


@pytest.mark.parametrize("rows", [1, 4])  # 4: the numpy fallback
@pytest.mark.parametrize("bias", [0.0, 0.3])
@pytest.mark.parametrize("discount", [1.0, 0.9])
@pytest.mark.parametrize("max_sets", [0, 3, 16])
def test_compiled_removal_set_rounds_are_the_numpy_rounds(
    rows, bias, discount, max_sets
):
    rng = np.random.default_rng(rows + 10 * max_sets + int(100 * bias))
    n = 9
    compiled = RemovalSetColoring(n, max_sets=max_sets, discount=discount)
    reference = copy.deepcopy(compiled)
    target = rng.random(n) < 0.3
    for t in range(300):
        X = (rng.random((rows, n)) < 0.4).astype(np.uint8)
        y = (X[:, target].any(axis=1) ^ (rng.random(rows) < 0.1)).astype(int)
        w = rng.choice([0.0, 0.5, 1.0, 1.7], size=rows)
        a = reference.sample(np.random.default_rng(t))
        want = numpy_removal_set_round(reference, a, X, y, w, bias)
        got = removal_set_round(compiled, a.copy(), X, y, w, bias)
        assert got == pytest.approx(want, rel=1e-15, abs=0)
        assert_same_graph(compiled, reference)
    if max_sets:
        assert compiled.n_sets_tracked > 0


@pytest.mark.parametrize("bias", [0.0, 0.5])
@pytest.mark.parametrize("discount", [1.0, 0.95])
def test_compiled_hypercube_rounds_are_the_numpy_rounds(bias, discount):
    rng = np.random.default_rng(7)
    n = 11
    compiled = HypercubeColoring(n, discount=discount)
    reference = copy.deepcopy(compiled)
    for t in range(300):
        X = (rng.random((1, n)) < 0.4).astype(np.uint8)
        y = (X[:, :2].any(axis=1) ^ (rng.random(1) < 0.1)).astype(int)
        w = rng.choice([0.5, 1.0, 2.0], size=1)
        a = reference.sample(np.random.default_rng(t))
        gains, want = disjunction_round(a, X, y, w)
        reference.update(a, gains, bias)
        got = hypercube_round(compiled, a.copy(), X, y, w, bias)
        assert got == want
        assert_same_graph(compiled, reference)
