"""The compiled removal clocks and their uniforms against the numpy definitions.

* :func:`draw_clocked_bits` draws the bits of
  :func:`~sklearn_localregret.engine.removal_clocks.draw` from the same
  uniforms, bit for bit, on random rates (some zero, some negative) and pools;
* :func:`mean_fire_probabilities` (through
  :func:`~sklearn_localregret.locality.disjunct_probabilities.
  dense_fire_probabilities`)
  gives the numpy average over the clocks' draws to 1e-12, and a row's
  probability bit for bit alone, in a batch and in another order;
* :func:`~sklearn_localregret._random.seeded_uniform_columns` is numpy's
  ``default_rng(seed).random(shape)[:, columns]`` bit for bit.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_localregret._random import seeded_uniform_columns
from sklearn_localregret.engine.compiled.clock_draw import draw_clocked_bits
from sklearn_localregret.engine.removal_clocks import draw
from sklearn_localregret.locality.disjunct_probabilities import (
    N_CLOCK_DRAWS,
    dense_fire_probabilities,
)
from sklearn_localregret.locality.removal_sets import RemovalSetColoring


def random_pool(rng, n, m, ringing=0.5):
    """Stored rates of ``n`` sites and ``m`` groups, and the groups' members."""
    rates = rng.normal(size=(n, 2)) * (rng.random((n, 2)) < 0.7)
    group_rates = rng.exponential(size=m) * np.where(rng.random(m) < ringing, 1, -1)
    group_rates[rng.random(m) < 0.2] = 0.0
    sets = (rng.random((m, n)) < 0.4).astype(np.uint8)
    return rates, group_rates, sets


@pytest.mark.parametrize("seed", range(40))
def test_the_compiled_draw_is_the_numpy_draw(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 12)), int(rng.integers(0, 6))
    rates, group_rates, sets = random_pool(rng, n, m)
    for _ in range(50):
        u = rng.random(n + m)
        if rng.random() < 0.1:
            u[: n // 2] = 0.0  # a uniform at 0: a ring that just happened
        want = draw(
            np.maximum(rates[:, 0], 0.0),
            np.maximum(rates[:, 1], 0.0),
            sets,
            np.maximum(group_rates, 0.0),
            u[:n],
            u[n:],
        )
        got = np.empty(n, dtype=np.uint8)
        draw_clocked_bits(rates, group_rates, sets, u, got)
        np.testing.assert_array_equal(got, want.astype(np.uint8))


def numpy_fire_probabilities(X, rates, group_rates, sets, seed):
    """The numpy average over the clocks' draws (the sparse rows' path)."""
    graph = RemovalSetColoring(rates.shape[0], max_sets=len(group_rates))
    n = rates.shape[0]
    graph.table.update_entries(
        np.repeat(np.arange(n), 2), np.tile([0, 1], n), rates.ravel()
    )
    graph.table.update_entries(
        n + np.arange(len(group_rates)), np.zeros(len(group_rates)), group_rates
    )
    graph.sets[:] = sets
    graph.occupied[:] = True
    return graph.fire_probabilities(sp.csr_matrix(X), seed)


@pytest.mark.parametrize("seed", range(12))
def test_the_averaged_probabilities_are_numpy_s(seed):
    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(2, 14)), int(rng.integers(1, 8))
    rates, group_rates, sets = random_pool(rng, n, m, ringing=0.7)
    if seed % 4 == 0:
        rates[0] = [0.0, 2.0]  # a literal of probability 1 without the clocks
    X = (rng.random((30, n)) < 0.4).astype(np.uint8)
    key = [seed, 17]
    want = numpy_fire_probabilities(X, rates, group_rates, sets, key)
    got = dense_fire_probabilities(X, rates, group_rates, sets, key)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # Each row alone, and the rows reversed: the same numbers, bit for bit.
    alone = [
        dense_fire_probabilities(X[i : i + 1], rates, group_rates, sets, key)[0]
        for i in range(len(X))
    ]
    np.testing.assert_array_equal(got, alone)
    reverse = dense_fire_probabilities(X[::-1], rates, group_rates, sets, key)
    np.testing.assert_array_equal(got, reverse[::-1])


def test_many_live_features_skip_the_shared_table():
    # More live features than the table of probabilities by live features
    # holds: every row computed on its own, the same numbers.
    rng = np.random.default_rng(5)
    n, m = 80, 3  # more live features than a 64-bit key has bits, too
    rates = np.abs(rng.normal(size=(n, 2)))
    group_rates = np.ones(m)
    sets = (rng.random((m, n)) < 0.5).astype(np.uint8)
    X = (rng.random((40, n)) < 0.5).astype(np.uint8)
    got = dense_fire_probabilities(X, rates, group_rates, sets, [1, 2])
    want = numpy_fire_probabilities(X, rates, group_rates, sets, [1, 2])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    alone = dense_fire_probabilities(X[7:8], rates, group_rates, sets, [1, 2])
    assert alone[0] == got[7]


def test_without_a_needed_group_it_is_the_product_formula():
    rates = np.array([[1.0, 3.0], [0.0, 1.0], [2.0, 0.0]])
    sets = np.array([[0, 0, 1]], dtype=np.uint8)  # holds no live feature
    X = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.uint8)
    got = dense_fire_probabilities(X, rates, np.array([5.0]), sets, [0, 0])
    np.testing.assert_array_equal(got, [0.75, 1.0, 0.0, 0.0])


@pytest.mark.parametrize("seed", range(30))
def test_seeded_uniform_columns_are_numpy_s(seed):
    rng = np.random.default_rng(seed)
    entropy = [int(rng.integers(0, 2**31)), int(rng.integers(0, 2**62))]
    if seed % 3 == 0:
        entropy = [seed, 0]  # a zero word
    if seed % 5 == 0:
        entropy.append(int(rng.integers(0, 2**40)) << 30)  # more than 4 words
    n_cols = int(rng.integers(1, 40))
    cols = np.sort(rng.choice(n_cols, int(rng.integers(1, n_cols + 1)), False))
    n_rows = int(rng.integers(1, 30))
    want = np.random.default_rng(entropy).random((n_rows, n_cols))[:, cols]
    got = seeded_uniform_columns(entropy, n_rows, n_cols, cols)
    np.testing.assert_array_equal(got, want)


def test_seeded_uniform_columns_of_other_seeds_go_through_numpy():
    want = np.random.default_rng(3).random((N_CLOCK_DRAWS, 4))[:, [0, 2]]
    np.testing.assert_array_equal(
        seeded_uniform_columns(3, N_CLOCK_DRAWS, 4, [0, 2]), want
    )
