"""The paper's online disjunct-learning experiments (Figure "disjunct", a and b),
and mushroom.

(a) A random disjunction over ``n`` variables (each included with probability
``4 / n``) labels uniformly random instances. (b) The "Winnow killer": each
instance is drawn uniformly from 21 fixed ones, one per variable with only that
variable true (label true) plus the all-true instance (label false). (c)
Mushroom, one-hot (117 boolean features), rows drawn with replacement, the
poisonous class positive. Curves are the error over the previous 100 instances
of the default learner (removal sets), the paper's local external (2n
colouring on the hypercube), local swap (per-edge regrets), Winnow2, the best
disjunction in hindsight (tasks a and b) and random guessing; the local
learners use ``L = inf`` and ``b = 0``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._disjunct import LocalRegretDisjunctClassifier
from ..baselines.winnow2 import Winnow2Classifier
from ._report import CurveSet, format_table, sliding_mean, window_outcomes
from ._runner import Experiment, Task

__all__ = [
    "random_disjunction_stream",
    "winnow_killer_stream",
    "mushroom_stream",
    "run_disjunct",
    "EXPERIMENT",
]

WINDOW = 100
TASKS = {
    "random": "random disjunction",
    "killer": "Winnow killer",
    "mushroom": "mushroom one-hot",
}
# Seed salts: each task its own independent streams.
SALTS = {"random": 1, "killer": 2, "mushroom": 3}


def random_disjunction_stream(n_vars, n_rounds, rng):
    """Uniform random instances labelled by a random disjunction (p = 4/n).

    Returns ``X, y, target`` with ``target`` the 0/1 vector of the disjunction.
    """
    target = (rng.random(n_vars) < 4 / n_vars).astype(np.uint8)
    X = rng.integers(0, 2, size=(n_rounds, n_vars), dtype=np.uint8)
    y = (X @ target > 0).astype(int)
    return X, y, target


def winnow_killer_stream(n_vars, n_rounds, rng):
    """Instances drawn uniformly from the 21 (n + 1) "Winnow killer" instances."""
    pool = np.vstack(
        [np.eye(n_vars, dtype=np.uint8), np.ones((1, n_vars), dtype=np.uint8)]
    )
    labels = np.r_[np.ones(n_vars, dtype=int), 0]
    idx = rng.integers(0, n_vars + 1, size=n_rounds)
    return pool[idx], labels[idx]


def mushroom_stream(n_rounds, rng):
    """Mushroom one-hot rows drawn with replacement; 1 = poisonous (``'p'``).

    The positive class of a disjunction learner is ``classes_[1]``; on
    mushroom the natural disjunction (odor, spore-print colour) predicts
    poisonous, which sorts after edible.
    """
    from ..datasets import load_mushroom

    X, y = load_mushroom(return_X_y=True, one_hot=True)
    idx = rng.integers(0, len(y), size=n_rounds)
    return np.asarray(X, dtype=np.uint8)[idx], (np.asarray(y)[idx] == "p").astype(int)


def _online_errors(model, X, y) -> np.ndarray:
    """Per-instance mistakes of the model's online predictions (batch size 1)."""
    errors = np.empty(len(y))
    for t in range(len(y)):
        before = model.n_online_mistakes_ if t else 0.0
        model.partial_fit(X[t : t + 1], y[t : t + 1], classes=[0, 1])
        errors[t] = model.n_online_mistakes_ - before
    return errors


def _best_disjunction_errors(X, y, task, target) -> np.ndarray:
    """Mistakes of the best disjunction in hindsight on this stream."""
    if task == "random":
        return ((X @ target > 0).astype(int) != y).astype(float)
    # Winnow killer: a disjunction errs on the all-true instance (if non-empty)
    # and on the single-variable instances of the variables it leaves out, so
    # the best one is either all variables or the empty disjunction.
    all_vars = (y == 0).astype(float)
    empty = (y == 1).astype(float)
    return all_vars if all_vars.sum() <= empty.sum() else empty


def trial_task(task, seed, index, n_vars, n_rounds):
    """Trial ``index`` of ``task``: per-instance mistakes of every learner."""
    child = np.random.SeedSequence([seed, SALTS[task]], spawn_key=(index,))
    rng = np.random.default_rng(child)
    if task == "random":
        X, y, target = random_disjunction_stream(n_vars, n_rounds, rng)
    elif task == "killer":
        (X, y), target = winnow_killer_stream(n_vars, n_rounds, rng), None
    else:
        (X, y), target = mushroom_stream(n_rounds, rng), None
    model_seed = int(rng.integers(2**31))
    # The plays' mistakes are measured, which no prediction rule changes:
    # the vote skips the hedge's scoring of every round (the default's).
    learners = {
        "removal sets": LocalRegretDisjunctClassifier(
            prediction="vote", random_state=model_seed
        ),
        "local external (paper)": LocalRegretDisjunctClassifier(
            regret="external",
            graph="hypercube",
            prediction="vote",
            random_state=model_seed,
        ),
        "local swap": LocalRegretDisjunctClassifier(
            regret="swap", random_state=model_seed
        ),
        "Winnow2": Winnow2Classifier(),
    }
    errors = {label: _online_errors(model, X, y) for label, model in learners.items()}
    if task != "mushroom":  # (no best disjunction in hindsight computed there)
        errors["best disjunction"] = _best_disjunction_errors(X, y, task, target)
    return errors


def plan(p: dict) -> list[Task]:
    """One task per (task, trial)."""
    return [
        Task(task, trial_task, (task, p["seed"], i, p["n_vars"], p["n_rounds"]))
        for task in TASKS
        for i in range(p["n_trials"])
    ]


def collect(p: dict, results: list) -> dict[str, CurveSet]:
    """The two panels from the trials' mistakes."""
    n_rounds, n_trials = p["n_rounds"], p["n_trials"]
    in_window = window_outcomes(n_rounds, WINDOW)
    panels = {}
    for k, task in enumerate(TASKS):
        n_vars = 117 if task == "mushroom" else p["n_vars"]
        panel = CurveSet(
            f"{TASKS[task]} (n = {n_vars})", f"error over previous {WINDOW} instances"
        )
        for errors in results[k * n_trials : (k + 1) * n_trials]:
            for label, mistakes in errors.items():
                if task == "random" and label == "best disjunction":
                    # The target itself: exactly no mistake, by construction.
                    if np.any(mistakes):
                        raise RuntimeError("the target disjunction made mistakes")
                    continue
                panel.add(label, sliding_mean(mistakes, WINDOW), n_outcomes=in_window)
        if task == "random":
            panel.add_exact("best disjunction", np.zeros(n_rounds))
        panel.add_exact("random guessing", np.full(n_rounds, 0.5))
        panels[task] = panel
    return panels


def summary_table(panels: dict[str, CurveSet]) -> str:
    """Final-window error of every learner on both tasks, with 95% intervals."""
    rows = [
        [
            learner,
            *(
                panel.summary(learner).format() if learner in panel.learners else "--"
                for panel in panels.values()
            ),
        ]
        for learner in panels["killer"].learners
    ]
    return format_table(rows, ["disjunct", *[p.title for p in panels.values()]])


EXPERIMENT = Experiment(
    name="disjunct",
    trials_parameter="n_trials",
    fixed={"n_vars": 20, "seed": 0},
    scales={
        "quick": {"n_trials": 3, "n_rounds": 300},
        "default": {"n_trials": 30, "n_rounds": 1000},
        "paper": {"n_trials": 50, "n_rounds": 1000},
    },
    plan=plan,
    collect=collect,
    table=summary_table,
    # CPU s per task, default runs on the 2-core development machine (issue 30)
    reference_seconds={"random": 0.18, "killer": 0.15, "mushroom": 0.28},
)


def run_disjunct(
    out: str | Path = "results",
    *,
    scale: str = "default",
    n_trials: int | None = None,
    n_rounds: int | None = None,
    n_vars: int | None = None,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    resume: bool = False,
) -> dict:
    """Run the three disjunct tasks, write plots and numbers, print a table.

    Parameters
    ----------
    out : path
        Folder for ``disjunct.png``, ``disjunct.csv`` and ``disjunct.json``.
    scale : {"default", "paper", "quick"}
        ``"paper"``: 50 trials of 1000 instances, as in the paper;
        ``"default"``: 30 trials; ``"quick"``: 3 trials of 300 instances, a
        check that everything runs.
    n_trials, n_rounds, n_vars : int, default=None
        Override the scale's values (the paper: 20 variables); at most 1000
        trials and 100000 rounds.
    seed : int, default=0
        Seed of the streams and learners. Trial ``i`` is the same whatever the
        number of trials.
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
        The JSON document written to ``disjunct.json``: ``"random"``,
        ``"killer"`` and ``"mushroom"`` under ``"panels"``.
    """
    return EXPERIMENT.run_alone(
        out,
        scale,
        n_jobs=n_jobs,
        progress=progress,
        resume=resume,
        n_trials=n_trials,
        n_rounds=n_rounds,
        n_vars=n_vars,
        seed=seed,
    )
