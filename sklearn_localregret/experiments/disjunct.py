"""The paper's online disjunct-learning experiments (Figure "disjunct", a and b).

(a) A random disjunction over ``n`` variables (each included with probability
``4 / n``) labels uniformly random instances. (b) The "Winnow killer": each
instance is drawn uniformly from 21 fixed ones, one per variable with only that
variable true (label true) plus the all-true instance (label false). Curves are
the error over the previous 100 instances of local external (2n colouring),
local swap (per-edge regrets), Winnow2, the best disjunction in hindsight and
random guessing; both local learners use ``L = inf`` and ``b = 0``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._disjunct import LocalRegretDisjunctClassifier
from ..baselines.winnow2 import Winnow2Classifier
from ._report import (
    CurveSet,
    Progress,
    format_table,
    plot_panels,
    sliding_mean,
    write_results,
)

__all__ = ["random_disjunction_stream", "winnow_killer_stream", "run_disjunct"]

WINDOW = 100


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
    pool = np.vstack([np.eye(n_vars, dtype=np.uint8),
                      np.ones((1, n_vars), dtype=np.uint8)])
    labels = np.r_[np.ones(n_vars, dtype=int), 0]
    idx = rng.integers(0, n_vars + 1, size=n_rounds)
    return pool[idx], labels[idx]


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


def run_task(task, n_trials, n_vars, n_rounds, seed, progress) -> CurveSet:
    title = {"random": "random disjunction", "killer": "Winnow killer"}[task]
    panel = CurveSet(f"{title} (n = {n_vars})",
                     f"error over previous {WINDOW} instances")
    bar = Progress(n_trials, f"disjunct: {task}", enabled=progress)
    for child in np.random.SeedSequence([seed, len(task)]).spawn(n_trials):
        rng = np.random.default_rng(child)
        if task == "random":
            X, y, target = random_disjunction_stream(n_vars, n_rounds, rng)
        else:
            (X, y), target = winnow_killer_stream(n_vars, n_rounds, rng), None
        model_seed = int(rng.integers(2**31))
        learners = {
            "local external": LocalRegretDisjunctClassifier(
                regret="external", random_state=model_seed),
            "local swap": LocalRegretDisjunctClassifier(
                regret="swap", random_state=model_seed),
            "Winnow2": Winnow2Classifier(),
        }
        for label, model in learners.items():
            panel.add(label, sliding_mean(_online_errors(model, X, y), WINDOW))
        panel.add("best disjunction",
                  sliding_mean(_best_disjunction_errors(X, y, task, target), WINDOW))
        panel.add("random guessing", np.full(n_rounds, 0.5))
        bar.step()
    return panel


def run_disjunct(out: str | Path = "results", *, n_trials: int = 50,
                 n_vars: int = 20, n_rounds: int = 1000, seed: int = 0,
                 quick: bool = False, progress: bool = True) -> dict[str, CurveSet]:
    """Run both disjunct tasks, write plots and numbers, print a table.

    Parameters
    ----------
    out : path
        Folder for ``disjunct.png``, ``disjunct.csv`` and ``disjunct.json``.
    n_trials, n_vars, n_rounds : int
        The paper: 50 trials, 20 variables; 1000 instances per trial.
    seed : int
        Seed of the streams and learners.
    quick : bool
        3 trials of 300 instances: a check that everything runs, not a result.
    progress : bool
        Progress bars on stderr.

    Returns
    -------
    dict of CurveSet
        ``"random"`` and ``"killer"`` panels.
    """
    if quick:
        n_trials, n_rounds = 3, 300
    panels = {task: run_task(task, n_trials, n_vars, n_rounds, seed, progress)
              for task in ("random", "killer")}
    write_results(panels, out, "disjunct")
    plot_panels(panels, out, "disjunct")
    print(summary_table(panels))
    return panels


def summary_table(panels: dict[str, CurveSet]) -> str:
    """Final-window error of every learner on both tasks, with 95% CIs."""
    learners = list(panels["random"].curves)
    rows = []
    for learner in learners:
        cells = []
        for panel in panels.values():
            m, h = panel.final(learner)
            cells.append(f"{m:.3f}±{h:.3f}")
        rows.append([learner, *cells])
    return format_table(rows, ["disjunct", *[p.title for p in panels.values()]])
