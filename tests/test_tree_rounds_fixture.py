"""The tree learner against a recording of the pure Python engine it replaced.

``tests/fixtures/tree_rounds.npz`` holds, for six configurations (defaults,
weighted rows with three classes and no discount, 0/1 features with a depth
limit and a bias, a finite ``L`` whose redirect sends draws to the chain
sampler, twenty classes, one-row rounds with ``L=None``), the tree played in
every round, the online mistakes, the final regret factors and the first
rows' probabilities, as the Python engine computed them
(``tests/fixtures/record_tree_rounds.py``). The compiled kernels must play
the same trees for the same seed and end with the same regrets to 1e-12 of
their size: both compute the same sums, in another order.
"""

from pathlib import Path

import numpy as np
import pytest
from fixtures.record_tree_rounds import CONFIGURATIONS, FACTORS, run

FIXTURE = Path(__file__).parent / "fixtures" / "tree_rounds.npz"


@pytest.fixture(scope="module")
def recorded():
    with np.load(FIXTURE) as data:
        return {key: data[key] for key in data.files}


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_rounds_match_the_python_engine(recorded, name):
    now = run(name)
    for part in ("X", "y", "w", "keys"):
        np.testing.assert_array_equal(now[f"{name}/{part}"], recorded[f"{name}/{part}"])
    # The same tree in every round: a digest of each played tree.
    played, expected = now[f"{name}/digests"], recorded[f"{name}/digests"]
    first_difference = np.flatnonzero(played != expected)
    assert first_difference.size == 0, f"round {first_difference[:1]} differs"
    np.testing.assert_array_equal(
        now[f"{name}/mcmc_draws"], recorded[f"{name}/mcmc_draws"]
    )
    np.testing.assert_allclose(
        now[f"{name}/mistakes"], recorded[f"{name}/mistakes"], rtol=1e-12
    )
    for part in FACTORS:
        got, want = now[f"{name}/{part}"], recorded[f"{name}/{part}"]
        assert got.shape == want.shape, part
        if part == "versions":
            # A row's version counts the updates that may have moved it (its
            # caches are recomputed): an update with nothing to add, no row
            # reaching the site and no bias, leaves it now, where the
            # recording counted one.
            assert (got <= want).all(), part
            continue
        scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale, err_msg=part)
    np.testing.assert_allclose(
        now[f"{name}/proba"], recorded[f"{name}/proba"], rtol=0, atol=1e-12
    )


def test_the_fixture_exercises_what_it_claims(recorded):
    # The chain configuration really falls back to the chain sampler, the
    # trees really grow, and the many-class table really has 20 classes.
    assert recorded["chain-fallback/mcmc_draws"] > 0
    assert len(set(recorded["defaults/digests"].tolist())) > 20
    assert recorded["many-classes/leaf"].shape[2] == 20
