"""The paper's online decision-tree experiments (Figure "dtree", panels a-d).

Nursery, mushroom and kr-vs-kp, one-hot encoded (one boolean per attribute
value): every round draws ``batch_size`` instances uniformly with replacement,
the learner classifies them with the tree it plays, then learns. Curves are the
fraction misclassified over the previous 100 rounds, for

* local external (colored regret matching, ``L = 100``, ``b = Delta / 101``),
* local swap (per-edge regret matching, ``L = 3``),
* the best single label and the best decision stump, both in hindsight on the
  trial's stream,
* "C4.5 retrained every round": ``DecisionTreeClassifier(criterion="entropy")``
  refit on everything seen so far, predicting each round before seeing it,
* ``SGDClassifier`` learning online with ``partial_fit``.

Panel d is a stream of one identical instance whose label alternates from round
to round (all rows of a round share it). Labels start at 1, so the retrained
tree, which predicts the majority so far with ties to the lower label, is wrong
every time, while the best label and the best tree err on half.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from sklearn.linear_model import SGDClassifier
from sklearn.tree import DecisionTreeClassifier

from .._tree_classifier import LocalRegretTreeClassifier
from ..datasets import load_kr_vs_kp, load_mushroom, load_nursery
from ._report import CurveSet, format_table, sliding_mean, window_outcomes
from ._runner import Experiment, Task

__all__ = ["run_trees", "DATASETS", "EXPERIMENT"]

DATASETS = {
    "nursery": load_nursery,
    "mushroom": load_mushroom,
    "kr-vs-kp": load_kr_vs_kp,
}
WINDOW = 100
# What one task runs on one trial's stream: a learner, or the baselines in
# hindsight (cheap) together. The alternating panel has no SGD, and its best
# label is exact.
GROUPS = (
    "local external",
    "local swap",
    "hindsight",
    "C4.5 retrained",
    "SGDClassifier",
)
ALTERNATING_GROUPS = ("local external", "local swap", "C4.5 retrained")
ALTERNATING_FEATURES = 10


def _local_regret_errors(model, X, y, classes, batch_size) -> np.ndarray:
    """Per-round error fraction of the trees the learner plays online."""
    errors = np.empty(len(X) // batch_size)
    for t in range(len(errors)):
        rows = slice(t * batch_size, (t + 1) * batch_size)
        before = model.n_online_mistakes_ if t else 0.0
        model.partial_fit(X[rows], y[rows], classes=classes)
        errors[t] = (model.n_online_mistakes_ - before) / batch_size
    return errors


def _retrained_tree_errors(X, y, classes, batch_size, seed) -> np.ndarray:
    """C4.5 stand-in refit on all past rounds, predicting the next one."""
    errors = np.empty(len(X) // batch_size)
    tree = DecisionTreeClassifier(criterion="entropy", random_state=seed)
    for t in range(len(errors)):
        lo, hi = t * batch_size, (t + 1) * batch_size
        if t == 0:
            predicted = np.full(hi - lo, classes[0])
        else:
            tree.fit(X[:lo], y[:lo])
            predicted = tree.predict(X[lo:hi])
        errors[t] = np.mean(predicted != y[lo:hi])
    return errors


def _sgd_errors(X, y, classes, batch_size, seed) -> np.ndarray:
    errors = np.empty(len(X) // batch_size)
    sgd = SGDClassifier(random_state=seed)
    for t in range(len(errors)):
        lo, hi = t * batch_size, (t + 1) * batch_size
        if t == 0:
            predicted = np.full(hi - lo, classes[0])
        else:
            predicted = sgd.predict(X[lo:hi])
        errors[t] = np.mean(predicted != y[lo:hi])
        sgd.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
    return errors


def _best_label_errors(y, batch_size) -> np.ndarray:
    labels, counts = np.unique(y, return_counts=True)
    wrong = y != labels[np.argmax(counts)]
    return wrong.reshape(-1, batch_size).mean(axis=1)


def _best_stump_errors(X, y, batch_size) -> np.ndarray:
    """Per-round errors of the stump with fewest errors on the whole stream."""
    labels, y_idx = np.unique(y, return_inverse=True)
    onehot = np.eye(len(labels))[y_idx]
    true_counts = X.T.astype(float) @ onehot  # (features, classes)
    false_counts = onehot.sum(axis=0) - true_counts
    correct = true_counts.max(axis=1) + false_counts.max(axis=1)
    v = int(np.argmax(correct))
    predicted = np.where(
        X[:, v] == 1, np.argmax(true_counts[v]), np.argmax(false_counts[v])
    )
    return (predicted != y_idx).reshape(-1, batch_size).mean(axis=1)


def _learners(seed):
    # The paper's algorithm: no warm start, no discount (the package's
    # defaults extend it).
    paper = dict(batch_size=5, warm_start=0, discount=1.0, random_state=seed)
    external = LocalRegretTreeClassifier(regret="external", L=100, **paper)
    swap = LocalRegretTreeClassifier(regret="swap", L=3, **paper)
    return {"local external": external, "local swap": swap}


def trial_salt(name: str) -> int:
    """A stable integer per dataset so datasets get independent streams."""
    return sum(ord(c) * 31**i for i, c in enumerate(name)) % (2**31)


@lru_cache(maxsize=None)
def _dataset(name: str):
    """One-hot ``X`` (uint8), labels as indices into the sorted classes, and
    the number of classes. Integer labels give every learner the numbers of
    the original (sorted the same way) labels, without the cost of string
    labels in the retrained trees and SGD."""
    X_all, y_all = DATASETS[name](return_X_y=True, one_hot=True)
    labels, y_index = np.unique(np.asarray(y_all), return_inverse=True)
    return np.asarray(X_all, dtype=np.uint8), y_index, len(labels)


def trial_stream(panel: str, seed: int, index: int, n_rounds: int, batch_size: int):
    """Trial ``index``'s stream of ``panel``: ``X, y, classes, learner_seed``.

    A dataset panel draws ``n_rounds * batch_size`` rows uniformly with
    replacement (labels are indices into the sorted class names);
    ``"alternating"`` repeats one random instance with labels 1, 0, 1, ... by
    round.
    """
    if panel == "alternating":
        rng = np.random.default_rng(
            np.random.SeedSequence([seed, 4], spawn_key=(index,))
        )
        instance = rng.integers(0, 2, ALTERNATING_FEATURES, dtype=np.uint8)
        X = np.tile(instance, (n_rounds * batch_size, 1))
        return (
            X,
            _alternating_labels(n_rounds, batch_size),
            np.array([0, 1]),
            int(rng.integers(2**31)),
        )
    X_all, y_all, n_classes = _dataset(panel)
    rng = np.random.default_rng(
        np.random.SeedSequence([seed, trial_salt(panel)], spawn_key=(index,))
    )
    idx = rng.integers(0, len(y_all), size=n_rounds * batch_size)
    return X_all[idx], y_all[idx], np.arange(n_classes), int(rng.integers(2**31))


def _alternating_labels(n_rounds: int, batch_size: int) -> np.ndarray:
    return np.repeat((np.arange(n_rounds) + 1) % 2, batch_size)


def trial_task(panel, group, seed, index, n_rounds, batch_size):
    """One group's per-round errors (and regret counts) on one trial's stream."""
    X, y, classes, learner_seed = trial_stream(panel, seed, index, n_rounds, batch_size)
    errors, scalars = {}, {}
    if group in ("local external", "local swap"):
        model = _learners(learner_seed)[group].set_params(batch_size=batch_size)
        errors[group] = _local_regret_errors(model, X, y, classes, batch_size)
        scalars[f"{group}: non-zero regrets"] = model.n_nonzero_regrets_
    elif group == "hindsight":
        errors["best label"] = _best_label_errors(y, batch_size)
        errors["best stump"] = _best_stump_errors(X, y, batch_size)
    elif group == "C4.5 retrained":
        errors[group] = _retrained_tree_errors(X, y, classes, batch_size, learner_seed)
    elif group == "SGDClassifier":
        errors[group] = _sgd_errors(X, y, classes, batch_size, learner_seed)
    else:
        raise ValueError(f"unknown learner group {group!r}")
    return errors, scalars


def _panels(p: dict) -> list[tuple[str, tuple[str, ...]]]:
    return [
        *((name, GROUPS) for name in p["datasets"]),
        ("alternating", ALTERNATING_GROUPS),
    ]


def plan(p: dict) -> list[Task]:
    """One task per (panel, trial, learner group)."""
    return [
        Task(
            f"{panel}: {group}",
            trial_task,
            (panel, group, p["seed"], i, p["n_rounds"], p["batch_size"]),
        )
        for panel, groups in _panels(p)
        for i in range(p["n_trials"])
        for group in groups
    ]


def collect(p: dict, results: list) -> dict[str, CurveSet]:
    """One panel per dataset plus ``"alternating"``, from the tasks' results."""
    n_rounds, batch_size = p["n_rounds"], p["batch_size"]
    in_window = window_outcomes(n_rounds, WINDOW, batch_size)
    remaining = iter(results)
    panels = {}
    for name, groups in _panels(p):
        if name == "alternating":
            title = "alternating labels"
        else:
            title = f"{name} ({_dataset(name)[0].shape[1]} boolean features)"
        panel = CurveSet(title, f"error over previous {WINDOW} rounds")
        for _ in range(p["n_trials"]):
            for _ in groups:
                errors, scalars = next(remaining)
                for label, per_round in errors.items():
                    panel.add(
                        label, sliding_mean(per_round, WINDOW), n_outcomes=in_window
                    )
                for label, value in scalars.items():
                    panel.add_scalar(label, value)
        if name == "alternating":
            # Half of each window's rounds, whatever the trial: exact.
            labels = _alternating_labels(n_rounds, batch_size)
            panel.add_exact(
                "best label / best tree",
                sliding_mean(_best_label_errors(labels, batch_size), WINDOW),
            )
        panels[name] = panel
    return panels


def summary_table(panels: dict[str, CurveSet]) -> str:
    """Final-window error of every learner on every panel, with 95% intervals."""
    learners = list(dict.fromkeys(k for p in panels.values() for k in p.learners))
    rows = [
        [
            key,
            *(
                panel.summary(learner).format() if learner in panel.learners else "-"
                for learner in learners
            ),
        ]
        for key, panel in panels.items()
    ]
    table = format_table(rows, ["final error", *learners])
    counts = [
        [
            key,
            *(
                panel.scalar(f"{learner}: non-zero regrets").format(digits=0)
                for learner in ("local external", "local swap")
            ),
        ]
        for key, panel in panels.items()
        if panel.scalars
    ]
    if counts:
        table += "\n\n" + format_table(
            counts, ["non-zero regrets", "local external", "local swap"]
        )
    return table


EXPERIMENT = Experiment(
    name="trees",
    trials_parameter="n_trials",
    fixed={"batch_size": 5, "datasets": list(DATASETS), "seed": 0},
    scales={
        "quick": {"n_trials": 2, "n_rounds": 200},
        "default": {"n_trials": 8, "n_rounds": 1000},
        "paper": {"n_trials": 50, "n_rounds": 1000},
    },
    plan=plan,
    collect=collect,
    table=summary_table,
    # CPU seconds per task: trees.json (task_cpu_seconds) of a default run on
    # the 2-core development machine (the compiled engine; issue 30).
    reference_seconds={
        "nursery: local external": 0.19,
        "nursery: local swap": 5.0,
        "nursery: hindsight": 0.01,
        "nursery: C4.5 retrained": 3.5,
        "nursery: SGDClassifier": 1.8,
        "mushroom: local external": 0.23,
        "mushroom: local swap": 2.2,
        "mushroom: hindsight": 0.01,
        "mushroom: C4.5 retrained": 4.6,
        "mushroom: SGDClassifier": 0.71,
        "kr-vs-kp: local external": 0.22,
        "kr-vs-kp: local swap": 2.8,
        "kr-vs-kp: hindsight": 0.01,
        "kr-vs-kp: C4.5 retrained": 4.6,
        "kr-vs-kp: SGDClassifier": 0.69,
        "alternating: local external": 0.18,
        "alternating: local swap": 0.58,
        "alternating: C4.5 retrained": 0.83,
    },
)


def run_trees(
    out: str | Path = "results",
    *,
    scale: str = "default",
    n_trials: int | None = None,
    n_rounds: int | None = None,
    batch_size: int | None = None,
    datasets=None,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    resume: bool = False,
) -> dict:
    """Run the decision-tree experiments, write plots and numbers, print a table.

    Parameters
    ----------
    out : path
        Folder for ``trees.png``, ``trees.csv`` and ``trees.json``.
    scale : {"default", "paper", "quick"}
        ``"paper"``: 50 trials of 1000 rounds, as in the paper; ``"default"``:
        8 trials, enough to separate what the paper's claims separate;
        ``"quick"``: 2 trials of 200 rounds, a check that everything runs
        (too few trials for intervals).
    n_trials, n_rounds, batch_size : int, default=None
        Override the scale's values (the paper: 5 instances per round); at
        most 1000 trials and 100000 rounds.
    datasets : str or sequence of str, default=None
        Which of ``DATASETS`` to run, each once (all when None); the
        alternating panel always runs.
    seed : int, default=0
        Seed of every stream and learner. Trial ``i`` is the same whatever the
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
        The JSON document written to ``trees.json``: one panel per dataset
        plus ``"alternating"`` under ``"panels"``.
    """
    if datasets is not None:
        # One name is one dataset, not its letters.
        datasets = [datasets] if isinstance(datasets, str) else list(datasets)
        unknown = sorted(set(datasets) - set(DATASETS), key=str)
        if unknown or not datasets or len(set(datasets)) < len(datasets):
            raise ValueError(
                f"datasets must be a non-empty selection of "
                f"{list(DATASETS)}, each once, got {datasets!r}."
            )
    return EXPERIMENT.run_alone(
        out,
        scale,
        n_jobs=n_jobs,
        progress=progress,
        resume=resume,
        n_trials=n_trials,
        n_rounds=n_rounds,
        batch_size=batch_size,
        datasets=datasets,
        seed=seed,
    )
