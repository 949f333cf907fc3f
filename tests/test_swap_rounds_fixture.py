"""The swap-regret learners against a recording of the scipy solve they replaced.

``tests/fixtures/swap_rounds.npz`` holds, for eight configurations (the
benchmark's planted 3-SAT stream one clause at a time, weighted clauses with a
finite ``L`` and a bias, a discount with its forgetting, rounds of four
clauses, a heavy discount whose cache is cut back, the disjunct learner, and
a tree learner with ``regret="swap"`` and ``L=3`` on a short stream and on a
stream long enough for the sparse solve of large classes to take over), what
was played in every round, the final regret table and the final
distribution, as the code before the compiled swap solve computed them
(``tests/fixtures/record_swap_rounds.py``). The current code must play the
same actions for the same seed and end with the same regrets to 1e-12 of
their size; the distribution may differ in the last digits (the compiled
solve eliminates states in another order: it is the more accurate of the
two, see ``tests/engine/test_chain_solve.py``).
"""

from pathlib import Path

import numpy as np
import pytest
from fixtures.record_swap_rounds import CONFIGURATIONS, run

from sklearn_localregret.engine import finite_chain

FIXTURE = Path(__file__).parent / "fixtures" / "swap_rounds.npz"
TABLES = ("keys", "biased", "unbiased")


@pytest.fixture(scope="module")
def recorded():
    with np.load(FIXTURE) as data:
        return {key: data[key] for key in data.files}


def _close(got, want, what):
    assert got.shape == want.shape, what
    scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale, err_msg=what)


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_rounds_match_the_recorded_plays(recorded, name, monkeypatch):
    sparse_solves = []
    sparse_solve = finite_chain.stationary_from_root
    monkeypatch.setattr(
        finite_chain,
        "stationary_from_root",
        lambda rates: sparse_solves.append(rates.shape[0]) or sparse_solve(rates),
    )
    now = run(name)
    # Only the long tree stream has classes over the dense limit.
    assert bool(sparse_solves) == name.endswith("-long")
    for played in ("played", "digests"):
        key = f"{name}/{played}"
        if key in recorded:
            first = np.flatnonzero(
                (now[key] != recorded[key]).reshape(len(recorded[key]), -1).any(1)
            )
            assert first.size == 0, f"round {first[:1]} plays differently"
    for part in ("satisfied", "mistakes"):
        if f"{name}/{part}" in recorded:
            np.testing.assert_array_equal(
                now[f"{name}/{part}"], recorded[f"{name}/{part}"]
            )
    for part in TABLES:
        if f"{name}/{part}" in recorded:
            _close(now[f"{name}/{part}"], recorded[f"{name}/{part}"], part)
    if f"{name}/support" in recorded:
        np.testing.assert_array_equal(
            now[f"{name}/support"], recorded[f"{name}/support"]
        )
    for part in ("probs", "probabilities", "swap_regret", "proba"):
        if f"{name}/{part}" in recorded:
            _close(now[f"{name}/{part}"], recorded[f"{name}/{part}"], part)


def test_the_fixture_exercises_what_it_claims(recorded):
    # Many vertices played and a support of more than one in the Max-SAT
    # streams; the finite-L streams reach their level; the forgetful stream
    # played more vertices than it remembers.
    for name in ("maxsat-planted", "maxsat-weighted-L3", "maxsat-batches"):
        played = recorded[f"{name}/played"]
        assert len({row.tobytes() for row in played}) > 50, name
        assert len(recorded[f"{name}/probs"]) > 20, name
    assert recorded["maxsat-weighted-L3/played"].sum(axis=1).max() == 3
    assert recorded["maxsat-batches/played"].sum(axis=1).max() == 2
    forgetful = recorded["maxsat-forgetful/played"]
    remembered = recorded["maxsat-forgetful/keys"]
    assert len({row.tobytes() for row in forgetful}) > 4 * len(remembered)
    assert len(set(recorded["tree-swap-L3/digests"].tolist())) > 20
