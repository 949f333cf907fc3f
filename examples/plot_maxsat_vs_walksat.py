"""
Online Max-3SAT against WalkSAT and the exact optimum
=====================================================

:class:`~sklearn_localregret.OnlineMaxSAT` commits to a truth assignment
*before* each clause arrives, then learns from whether that clause was
satisfied: an online counterpart of local search, with a guarantee that holds
for any order of clauses. This example plays it on a random, unsatisfiable
Max-3SAT instance whose clauses arrive one per round, and measures it against
two offline yardsticks that see the whole formula at once: WalkSAT
(:func:`~sklearn_localregret.baselines.walksat`) and the exact optimum found by
the MaxSAT solver RC2 of `PySAT <https://pysathq.github.io>`_.
"""

# %%
# A random Max-3SAT instance
# --------------------------
# As in the paper: 201 clauses of 3 distinct variables with random signs over
# 20 variables. With about 10 clauses per variable such an instance is almost
# surely unsatisfiable, so the question is how many clauses an assignment can
# satisfy. Clauses use the DIMACS convention: ``+(i + 1)`` is variable ``i``,
# ``-(i + 1)`` its negation. Each round, one clause drawn uniformly from the
# instance arrives.

import matplotlib.pyplot as plt
import numpy as np
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from sklearn_localregret import OnlineMaxSAT
from sklearn_localregret.baselines import walksat

N_VARS, N_CLAUSES, N_ROUNDS = 20, 201, 2000
rng = np.random.default_rng(0)
clauses = []
for _ in range(N_CLAUSES):
    variables = rng.choice(N_VARS, size=3, replace=False) + 1
    signs = rng.choice([-1, 1], size=3)
    clauses.append([int(s * v) for s, v in zip(signs, variables)])
stream = [clauses[k] for k in rng.integers(0, N_CLAUSES, size=N_ROUNDS)]

literals = np.array(clauses)


def fraction_satisfied(assignment):
    """Fraction of the instance's clauses that a boolean assignment satisfies."""
    values = np.asarray(assignment, dtype=bool)[np.abs(literals) - 1]
    return np.mean(np.any(values == (literals > 0), axis=1))


# %%
# The offline yardsticks
# ----------------------
# WalkSAT searches with the whole formula known up front (10 random restarts
# of 10,000 flips, the defaults) and returns the best assignment it saw. RC2
# solves the weighted MaxSAT problem exactly; with every clause a soft clause
# of weight 1 its cost is the minimum number of unsatisfied clauses. On 20
# variables both are quick.

walk = walksat(clauses, n_vars=N_VARS, random_state=0)
walksat_fraction = 1 - walk.unsatisfied_weight / N_CLAUSES

wcnf = WCNF()
for clause in clauses:
    wcnf.append(clause, weight=1)
with RC2(wcnf) as rc2:
    optimum = rc2.compute()  # DIMACS literals, e.g. [1, -2, 3, ...]
    optimum_fraction = 1 - rc2.cost / N_CLAUSES
assert np.isclose(fraction_satisfied(np.array(optimum) > 0), optimum_fraction)

# %%
# Playing online
# --------------
# Two solvers, both with the paper's ``L = inf`` and ``b = 0``: local external
# regret (one regret per "set variable k true" or "set it false", the fast
# one) and local swap regret (one regret per edge of the hypercube). ``run``
# plays one round per clause and returns what each round's assignment
# satisfied. We feed the stream in segments of 50 clauses so that, between
# segments, we can also score the solver's current *most probable*
# assignment on the whole instance.

SEGMENT = 50
solvers = {
    "local external": OnlineMaxSAT(N_VARS, regret="external", random_state=0),
    "local swap": OnlineMaxSAT(N_VARS, regret="swap", random_state=0),
}
played, mode_score = {}, {}
checkpoints = np.arange(SEGMENT, N_ROUNDS + 1, SEGMENT)
for name, solver in solvers.items():
    rounds, scores = [], []
    for start in range(0, N_ROUNDS, SEGMENT):
        rounds.append(solver.run(stream[start : start + SEGMENT]))
        scores.append(fraction_satisfied(solver.most_probable_assignment_))
    played[name] = np.concatenate(rounds)
    mode_score[name] = np.array(scores)

# %%
# Results
# -------
# "last 500 rounds" is the fraction of clauses the played assignments
# satisfied in the last 500 rounds; "most probable assignment" is the fraction
# of the whole instance satisfied by the solver's most probable assignment at
# the end. A uniformly random assignment satisfies 7/8 of 3-literal clauses
# on average.

print(
    f"{'':<22}{'last 500 rounds':>16}{'most probable assignment':>26}"
    f"{'non-zero regrets':>18}"
)
for name, solver in solvers.items():
    print(
        f"{name:<22}{played[name][-500:].mean():>16.3f}"
        f"{mode_score[name][-1]:>26.3f}{solver.n_nonzero_regrets_:>18}"
    )
print(f"{'WalkSAT (offline)':<22}{'':>16}{walksat_fraction:>26.3f}")
print(f"{'RC2 optimum (exact)':<22}{'':>16}{optimum_fraction:>26.3f}")
print(f"{'random assignment':<22}{'':>16}{7 / 8:>26.3f}")

# %%
# The figure shows the fraction of the last 250 clauses that the *played*
# assignments satisfied (solid) and the fraction of the whole instance that
# the most probable assignment satisfies (dashed), against the offline
# yardsticks (on this small instance WalkSAT finds an optimal assignment, so
# its line lies on RC2's). The played curves are noisy: each window is a random
# sample of clauses, which can even be easier than the instance as a whole.
# Local external regret climbs quickly above a random assignment towards the
# offline solutions; local swap regret, which keeps a regret per edge and so
# generalises less across assignments, stays well below them within these
# 2000 rounds and tracks far more regrets. Only the offline solvers see every
# clause before choosing; the online solvers commit to an assignment before
# each clause arrives.

WINDOW = 250
fig, ax = plt.subplots(figsize=(10, 4.5))
for (name, sat), color in zip(played.items(), ["C0", "C1"]):
    moving = np.convolve(sat, np.ones(WINDOW) / WINDOW, mode="valid")
    ax.plot(
        np.arange(WINDOW, N_ROUNDS + 1),
        moving,
        color=color,
        label=f"{name}: played, last {WINDOW} clauses",
    )
    ax.plot(
        checkpoints,
        mode_score[name],
        color=color,
        linestyle="--",
        label=f"{name}: most probable assignment",
    )
ax.axhline(optimum_fraction, color="k", label="exact optimum (RC2)")
ax.axhline(walksat_fraction, color="k", linestyle=":", label="WalkSAT (offline)")
ax.axhline(7 / 8, color="gray", linestyle="-.", label="random assignment")
ax.set_xlabel("round (clauses seen)")
ax.set_ylabel("fraction of clauses satisfied")
ax.set_title(f"Random Max-3SAT, {N_VARS} variables, {N_CLAUSES} clauses")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
fig.tight_layout()
plt.show()
