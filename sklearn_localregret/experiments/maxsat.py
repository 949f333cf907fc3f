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

from ..maxsat import OnlineMaxSAT, walksat
from ._report import CurveSet, format_table, sliding_mean, window_outcomes
from ._runner import Experiment, Task

__all__ = ["random_3sat", "run_maxsat", "EXPERIMENT"]

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
    _check_n_vars(n_vars)
    clauses = []
    for _ in range(n_clauses):
        variables = rng.choice(n_vars, size=3, replace=False) + 1
        signs = rng.choice([-1, 1], size=3)
        clauses.append(tuple(int(s * v) for s, v in zip(signs, variables)))
    return clauses


def _check_n_vars(n_vars) -> None:
    if n_vars < 3:
        raise ValueError(
            f"n_vars must be at least 3: each clause has 3 distinct variables, "
            f"got {n_vars!r}."
        )


def check(p: dict) -> None:
    """Refuse parameters the instances cannot have (fewer than 3 variables)."""
    _check_n_vars(p["n_vars"])


def run_instance(clauses, n_vars, n_rounds, rng):
    """All learners on one instance: regret and unsatisfied curves, counts."""
    order = rng.integers(0, len(clauses), size=n_rounds)
    results = {}
    for label, regret in LEARNERS.items():
        solver = OnlineMaxSAT(
            n_vars, regret=regret, random_state=int(rng.integers(2**31))
        )
        regret_curve = np.empty(n_rounds)
        unsat = np.empty(n_rounds)
        for t, k in enumerate(order):
            solver.assignment()
            unsat[t] = 1.0 - solver.observe([clauses[k]])
            regret_curve[t] = solver.colored_regret_
        results[label] = (regret_curve, unsat, solver.n_nonzero_regrets_)
    best = walksat(clauses, n_vars=n_vars, random_state=int(rng.integers(2**31)))
    return results, best.unsatisfied_weight / len(clauses)


def instance_task(seed, index, n_vars, n_clauses, n_rounds):
    """One random instance (the ``index``-th of ``seed``), all learners on it."""
    child = np.random.SeedSequence([seed, 3], spawn_key=(index,))
    rng = np.random.default_rng(child)
    clauses = random_3sat(n_vars, n_clauses, rng)
    return run_instance(clauses, n_vars, n_rounds, rng)


def plan(p: dict) -> list[Task]:
    """One task per instance."""
    return [
        Task(
            "instance",
            instance_task,
            (p["seed"], i, p["n_vars"], p["n_clauses"], p["n_rounds"]),
        )
        for i in range(p["n_instances"])
    ]


def collect(p: dict, results: list) -> dict[str, CurveSet]:
    """The regret and unsatisfied panels from the instances' results."""
    n_rounds = p["n_rounds"]
    regret_panel = CurveSet(
        "Max-3SAT: time-averaged colored regret",
        "local colored regret / T",
        kind="mean",
    )
    unsat_panel = CurveSet(
        "Max-3SAT: unsatisfied clauses",
        f"fraction unsatisfied, previous {WINDOW} rounds",
    )
    in_window = window_outcomes(n_rounds, WINDOW)
    for learner_results, walksat_unsat in results:
        for label, (regret_curve, unsat, nonzero) in learner_results.items():
            regret_panel.add(label, regret_curve)
            unsat_panel.add(label, sliding_mean(unsat, WINDOW), n_outcomes=in_window)
            unsat_panel.add_scalar(f"{label}: non-zero regrets", nonzero)
        unsat_panel.add(
            "WalkSAT (offline)",
            np.full(n_rounds, walksat_unsat),
            n_outcomes=p["n_clauses"],
        )
    unsat_panel.add_exact("random assignment", np.full(n_rounds, 1 / 8))
    return {"regret": regret_panel, "unsatisfied": unsat_panel}


def summary_table(panels: dict[str, CurveSet]) -> str:
    """Final values with 95% intervals and the mean number of non-zero regrets."""
    unsat, regret = panels["unsatisfied"], panels["regret"]
    rows = []
    for learner in unsat.learners:
        row = [learner, unsat.summary(learner).format()]
        if learner in regret.curves:
            row += [
                regret.summary(learner).format(),
                unsat.scalar(f"{learner}: non-zero regrets").format(digits=0),
            ]
        else:
            row += ["-", "-"]
        rows.append(row)
    return format_table(
        rows,
        [
            "Max-3SAT",
            f"unsatisfied (last {WINDOW})",
            "colored regret / T",
            "non-zero regrets",
        ],
    )


EXPERIMENT = Experiment(
    name="maxsat",
    trials_parameter="n_instances",
    fixed={"n_vars": 20, "n_clauses": 201, "seed": 0},
    scales={
        "quick": {"n_instances": 3, "n_rounds": 300},
        "default": {"n_instances": 40, "n_rounds": 1000},
        "paper": {"n_instances": 200, "n_rounds": 1000},
    },
    plan=plan,
    collect=collect,
    table=summary_table,
    # CPU s per task, default run on the 2-core development machine (issue 30)
    reference_seconds={"instance": 0.25},
    check=check,
)


def run_maxsat(
    out: str | Path = "results",
    *,
    scale: str = "default",
    n_instances: int | None = None,
    n_rounds: int | None = None,
    n_vars: int | None = None,
    n_clauses: int | None = None,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    resume: bool = False,
) -> dict:
    """Run the Max-3SAT experiment, write plots and numbers, print a table.

    Parameters
    ----------
    out : path
        Folder for ``maxsat.png``, ``maxsat.csv`` and ``maxsat.json``.
    scale : {"default", "paper", "quick"}
        ``"paper"``: 200 instances of 1000 rounds, as in the paper;
        ``"default"``: 40 instances, enough to separate what the paper's
        claims separate; ``"quick"``: 3 instances of 300 rounds, a check that
        everything runs.
    n_instances, n_rounds, n_vars, n_clauses : int, default=None
        Override the scale's values (the paper: 20 variables, 201 clauses);
        at most 1000 instances and 100000 rounds, at least 3 variables.
    seed : int, default=0
        Seed of the instances, the clause order and the learners. Instance
        ``i`` is the same whatever the number of instances.
    n_jobs : int, default=None
        Worker processes (None: 1, -1: every core); the numbers do not depend
        on it.
    progress : bool, default=True
        A progress bar on stderr.
    resume : bool, default=False
        Skip the run if ``out`` holds a finished one with the same parameters.

    Returns
    -------
    dict
        The JSON document written to ``maxsat.json``: ``"regret"`` and
        ``"unsatisfied"`` under ``"panels"``.
    """
    return EXPERIMENT.run_alone(
        out,
        scale,
        n_jobs=n_jobs,
        progress=progress,
        resume=resume,
        n_instances=n_instances,
        n_rounds=n_rounds,
        n_vars=n_vars,
        n_clauses=n_clauses,
        seed=seed,
    )
