"""The disjunct learner against a recording of the numpy rounds it replaced.

``tests/fixtures/disjunct_rounds.npz`` holds, for ten configurations (the
removal sets at their defaults and the hypercube one row per call, a small
pool that evicts with a bias, a discount and weights, a discount alone,
hedged rounds of three rows, the bulk paths of both graphs, sparse rows, a
finite ``L`` and sampled predictions), a test-then-train loop recorded
before the one-row kernels (``tests/fixtures/record_disjunct_rounds.py``):
the disjunction played in every call, the online mistakes, every prediction
and probability, and the final regrets and pool. The same seed must play the
same disjunctions and end with the same regrets, to 1e-12 of their size (the
kernels compute the same sums, in another order).
"""

from pathlib import Path

import numpy as np
import pytest
from fixtures.record_disjunct_rounds import CONFIGURATIONS, STATE, run

FIXTURE = Path(__file__).parent / "fixtures" / "disjunct_rounds.npz"


@pytest.fixture(scope="module")
def recorded():
    with np.load(FIXTURE) as data:
        return {key: data[key] for key in data.files}


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_calls_match_the_numpy_rounds(recorded, name):
    now = run(name)
    for part in ("X", "y", "w"):
        np.testing.assert_array_equal(now[f"{name}/{part}"], recorded[f"{name}/{part}"])
    played, expected = now[f"{name}/played"], recorded[f"{name}/played"]
    differs = np.flatnonzero((played != expected).any(axis=1))
    assert differs.size == 0, f"call {differs[:1]} played another disjunction"
    np.testing.assert_allclose(
        now[f"{name}/mistakes"], recorded[f"{name}/mistakes"], rtol=1e-12
    )
    np.testing.assert_array_equal(
        now[f"{name}/predicted"], recorded[f"{name}/predicted"]
    )
    for part in ("proba", "proba_all", "features"):
        np.testing.assert_allclose(
            now[f"{name}/{part}"],
            recorded[f"{name}/{part}"],
            rtol=0,
            atol=1e-12,
            err_msg=part,
        )
    for part in STATE:
        key = f"{name}/{part}"
        assert (key in now) == (key in recorded), part
        if key not in now:
            continue
        got, want = now[key], recorded[key]
        assert got.shape == want.shape, part
        scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale, err_msg=part)


def test_the_fixture_exercises_what_it_claims(recorded):
    # Removal sets ring (predictions average over their clocks), a small
    # pool evicted sets, and the plays are not the empty disjunction.
    for name in ("defaults", "discount", "sample-prediction"):
        n_vars = recorded[f"{name}/X"].shape[1]
        assert (recorded[f"{name}/biased"][n_vars:, 0] > 0).any(), name
    assert recorded["small-pool-bias/n_sets_tracked"] > 3
    assert recorded["defaults/played"].any(axis=1).mean() > 0.9
    # Some predictions are uncertain: the averaged probabilities are read.
    proba = recorded["defaults/proba"]
    assert ((proba > 0.01) & (proba < 0.99)).sum() > 20
