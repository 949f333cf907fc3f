"""The paper's online Max-3SAT experiment (Figure "3cnf", panels a and b).

Random instances of ``n_clauses`` 3-literal clauses over ``n_vars`` variables
(three distinct variables per clause, random signs). Every round the learner
plays an assignment, then one clause drawn uniformly from the instance arrives
and pays 1 if satisfied. Both learners use the hypercube with ``L = inf`` and
``b = 0``: local external (the 2n colouring) and local swap (per-edge regrets).
Panel a: time-averaged local colored regret; panel b: fraction unsatisfied over
the previous 100 rounds, against a random assignment (1/8 in expectation) and
offline WalkSAT on the same clauses. Also reported: the mean number of non-zero
regrets each learner tracks (the paper: about 34 vs about 4200).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._maxsat import OnlineMaxSAT
from ..baselines.walksat import walksat
from ._report import (
    CurveSet,
    Progress,
    format_table,
    plot_panels,
    sliding_mean,
    write_results,
)

__all__ = ["random_3sat", "run_maxsat"]

WINDOW = 100
LEARNERS = {"local external": "external", "local swap": "swap"}


def random_3sat(n_vars: int, n_clauses: int, rng: np.random.Generator) -> list:
    """Random clauses of 3 distinct variables with random signs (DIMACS ints).

    Examples
    --------
    >>> import numpy as np
    >>> clauses = random_3sat(5, 2, np.random.default_rng(0))
    >>> len(clauses), all(len({abs(l) for l in c}) == 3 for c in clauses)
    (2, True)
    """
    clauses = []
    for _ in range(n_clauses):
        variables = rng.choice(n_vars, size=3, replace=False) + 1
        signs = rng.choice([-1, 1], size=3)
        clauses.append(tuple(int(s * v) for s, v in zip(signs, variables)))
    return clauses


def run_instance(clauses, n_vars, n_rounds, rng):
    """All learners on one instance: regret and unsatisfied curves, counts."""
    order = rng.integers(0, len(clauses), size=n_rounds)
    results = {}
    for label, regret in LEARNERS.items():
        solver = OnlineMaxSAT(n_vars, regret=regret,
                              random_state=int(rng.integers(2**31)))
        regret_curve = np.empty(n_rounds)
        unsat = np.empty(n_rounds)
        for t, k in enumerate(order):
            solver.assignment()
            unsat[t] = 1.0 - solver.observe([clauses[k]])
            regret_curve[t] = solver.colored_regret_
        results[label] = (regret_curve, unsat, solver.n_nonzero_regrets_)
    best = walksat(clauses, n_vars=n_vars, random_state=int(rng.integers(2**31)))
    return results, best.unsatisfied_weight / len(clauses)


def run_maxsat(out: str | Path = "results", *, n_instances: int = 200,
               n_vars: int = 20, n_clauses: int = 201, n_rounds: int = 1000,
               seed: int = 0, quick: bool = False,
               progress: bool = True) -> dict[str, CurveSet]:
    """Run the Max-3SAT experiment, write plots and numbers, print a table.

    Parameters
    ----------
    out : path
        Folder for ``maxsat.png``, ``maxsat.csv`` and ``maxsat.json``.
    n_instances, n_vars, n_clauses, n_rounds : int
        The paper: 200 instances, 20 variables, 201 clauses, 1000 rounds.
    seed : int
        Seed of the instances, the clause order and the learners.
    quick : bool
        3 instances of 300 rounds: a check that everything runs, not a result.
    progress : bool
        A progress bar on stderr.

    Returns
    -------
    dict of CurveSet
        ``"regret"`` and ``"unsatisfied"`` panels.
    """
    if quick:
        n_instances, n_rounds = 3, 300
    regret_panel = CurveSet("Max-3SAT: time-averaged colored regret",
                            "local colored regret / T")
    unsat_panel = CurveSet("Max-3SAT: unsatisfied clauses",
                           f"fraction unsatisfied, previous {WINDOW} rounds")
    bar = Progress(n_instances, "maxsat", enabled=progress)
    for child in np.random.SeedSequence([seed, 3]).spawn(n_instances):
        rng = np.random.default_rng(child)
        clauses = random_3sat(n_vars, n_clauses, rng)
        results, walksat_unsat = run_instance(clauses, n_vars, n_rounds, rng)
        for label, (regret_curve, unsat, nonzero) in results.items():
            regret_panel.add(label, regret_curve)
            unsat_panel.add(label, sliding_mean(unsat, WINDOW))
            unsat_panel.add_scalar(f"{label}: non-zero regrets", nonzero)
        unsat_panel.add("random assignment", np.full(n_rounds, 1 / 8))
        unsat_panel.add("WalkSAT (offline)", np.full(n_rounds, walksat_unsat))
        bar.step()
    panels = {"regret": regret_panel, "unsatisfied": unsat_panel}
    write_results(panels, out, "maxsat")
    plot_panels(panels, out, "maxsat")
    print(summary_table(panels))
    return panels


def summary_table(panels: dict[str, CurveSet]) -> str:
    """Final values with 95% CIs and the mean number of non-zero regrets."""
    unsat, regret = panels["unsatisfied"], panels["regret"]
    rows = []
    for learner in unsat.curves:
        m, h = unsat.final(learner)
        row = [learner, f"{m:.3f}±{h:.3f}"]
        if learner in regret.curves:
            rm, rh = regret.final(learner)
            nz, nzh = unsat.scalar(f"{learner}: non-zero regrets")
            row += [f"{rm:.3f}±{rh:.3f}", f"{nz:.0f}±{nzh:.0f}"]
        else:
            row += ["-", "-"]
        rows.append(row)
    return format_table(rows, ["Max-3SAT", "unsatisfied (last 100)",
                               "colored regret / T", "non-zero regrets"])
