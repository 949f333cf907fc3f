"""OnlineMaxSAT on a clause stream that changes (issue: learners that forget).

Clauses are drawn among those a planted assignment satisfies; halfway, 8 of
its 20 variables flip. The undiscounted learner (the paper's) has learnt the
old assignment for 3000 rounds and keeps violating the new clauses; with a
discount it forgets and satisfies them again.
"""

import numpy as np

from sklearn_localregret import OnlineMaxSAT


def planted(rng, assignment, m):
    n, out = len(assignment), []
    while len(out) < m:
        variables, signs = rng.choice(n, 3, replace=False), rng.integers(0, 2, 3)
        literals = [int(v + 1) if s else -int(v + 1) for v, s in zip(variables, signs)]
        if any((lit > 0) == bool(assignment[abs(lit) - 1]) for lit in literals):
            out.append(literals)
    return out


def unsatisfied(discount, seed):
    rng = np.random.default_rng(seed)
    before = rng.integers(0, 2, 20)
    after = before.copy()
    after[rng.choice(20, 8, replace=False)] ^= 1
    clauses = planted(rng, before, 3000) + planted(rng, after, 3000)
    solver = OnlineMaxSAT(20, random_state=seed, discount=discount)
    satisfied = solver.run(clauses)
    return 1 - satisfied[2000:3000].mean(), 1 - satisfied[5000:].mean(), solver


def test_discounted_solver_recovers_after_the_clauses_change():
    settled, recovered, solver = unsatisfied(0.99, seed=0)
    stuck_before, stuck, _ = unsatisfied(1.0, seed=0)
    # Before the change both satisfy (nearly) everything; after it only the
    # forgetting solver does again (a random assignment leaves 1/8 unsatisfied).
    assert settled <= 0.01 and stuck_before <= 0.01
    assert recovered <= 0.01
    assert stuck >= 0.05
    assert "discount=0.99" in repr(solver)
