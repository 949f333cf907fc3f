"""The discounted guarantee (:ref:`guarantee-discounted`), measured.

An adversarial stream on the hypercube: each round's utility rewards being
close to a target assignment that jumps every 200 rounds, plus noise, with
values in [0, Delta]. The discounted local colored regret of the played
assignments is computed here from its definition,
``R_C <- lambda R_C + (gain of C if C is an edge out of the played action)``,
and compared with the derived bound and with what the learner reports.
"""

import numpy as np
import pytest

from sklearn_localregret.locality.hypercube import HypercubeColoring

N, DELTA, T, SWITCH = 5, 1.0, 2000, 200


def utilities(rng):
    targets = rng.integers(0, 2, (T // SWITCH, N))
    for t in range(T):
        target = targets[t // SWITCH]

        def u(a, target=target, noise=rng.uniform(0, 0.2)):
            # In [0, DELTA]: closeness to the target (0.8) plus the round's noise.
            return 0.8 * DELTA * (1 - np.abs(a - target).sum() / N) + noise * DELTA

        yield u


def play(discount, measure, seed):
    """Play the stream; the discounted regret (``measure``) from its definition."""
    rng = np.random.default_rng(seed)
    cube = HypercubeColoring(N, discount=discount)
    regret = np.zeros((N, 2))  # colour (k, x): "set bit k to x"
    worst = 0.0
    for u in utilities(rng):
        a = cube.sample(rng)
        base = u(a)
        gains = np.array(
            [u(np.where(np.arange(N) == k, 1 - a, a)) - base for k in range(N)]
        )
        cube.update(a, gains)
        regret *= measure
        regret[np.arange(N), 1 - a] += gains
        t = cube.n_updates
        weight = (1 - measure**t) / (1 - measure) if measure < 1 else t
        average = np.maximum(regret, 0).sum() / weight
        worst = max(worst, average / bound(measure, t))
    return cube, average, worst


def bound(discount, rounds):
    """(Delta + b) sqrt(D |C|) sqrt((1 - l^2T) / (1 - l^2)) / W_T, with b = 0."""
    if discount == 1.0:
        return DELTA * np.sqrt(N * 2 * N) / np.sqrt(rounds)
    weight = (1 - discount**rounds) / (1 - discount)
    spread = np.sqrt((1 - discount ** (2 * rounds)) / (1 - discount**2))
    return DELTA * np.sqrt(N * 2 * N) * spread / weight


@pytest.mark.parametrize("discount", [0.9, 0.98])
def test_discounted_regret_below_the_bound_and_reported_as_defined(discount):
    results = [play(discount, discount, seed) for seed in range(6)]
    final = np.mean([r[1] for r in results])
    # The bound is on the expectation at every T; the mean over 6 seeds is
    # checked at the end, and the worst moment of every run (as a fraction of
    # the bound at that moment) stays below it too.
    assert final <= bound(discount, T)
    assert max(r[2] for r in results) <= 1.0
    # The learner reports the same quantity (its table's discounted unbiased
    # regrets over the discounted number of rounds).
    for cube, measured, _ in results:
        assert cube.colored_regret() == pytest.approx(measured, rel=1e-9)


def test_forgetting_tracks_the_target_the_paper_algorithm_does_not():
    # Measured in the discounted sense, the undiscounted learner, which keeps
    # playing toward old targets after each jump, gets far closer to the
    # discounted bound than the tracking learner, which stays well inside it.
    tracking = np.mean([play(0.9, 0.9, seed)[2] for seed in range(4)])
    paper = np.mean([play(1.0, 0.9, seed)[2] for seed in range(4)])
    print(
        f"worst discounted regret / bound: tracking {tracking:.3f}, paper {paper:.3f}"
    )
    assert tracking < 0.5 * paper
