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

from pathlib import Path

import numpy as np
from sklearn.linear_model import SGDClassifier
from sklearn.tree import DecisionTreeClassifier

from .._tree_classifier import LocalRegretTreeClassifier
from ..datasets import load_kr_vs_kp, load_mushroom, load_nursery
from ._report import (
    CurveSet,
    Progress,
    format_table,
    plot_panels,
    sliding_mean,
    write_results,
)

__all__ = ["run_trees", "DATASETS"]

DATASETS = {"nursery": load_nursery, "mushroom": load_mushroom,
            "kr-vs-kp": load_kr_vs_kp}
WINDOW = 100


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
    predicted = np.where(X[:, v] == 1, np.argmax(true_counts[v]),
                         np.argmax(false_counts[v]))
    return (predicted != y_idx).reshape(-1, batch_size).mean(axis=1)


def _learners(seed):
    external = LocalRegretTreeClassifier(regret="external", L=100, batch_size=5,
                                         random_state=seed)
    swap = LocalRegretTreeClassifier(regret="swap", L=3, batch_size=5,
                                     random_state=seed)
    return {"local external": external, "local swap": swap}


def run_dataset(name, n_trials, n_rounds, batch_size, seed, progress) -> CurveSet:
    """One panel: all learners on one dataset over ``n_trials`` streams."""
    X_all, y_all = DATASETS[name](return_X_y=True, one_hot=True)
    X_all = np.asarray(X_all, dtype=np.uint8)
    classes = np.unique(y_all)
    panel = CurveSet(f"{name} ({X_all.shape[1]} boolean features)",
                     f"error over previous {WINDOW} rounds")
    bar = Progress(n_trials, f"trees: {name}", enabled=progress)
    for child in np.random.SeedSequence([seed, trial_salt(name)]).spawn(n_trials):
        rng = np.random.default_rng(child)
        idx = rng.integers(0, len(y_all), size=n_rounds * batch_size)
        X, y = X_all[idx], y_all[idx]
        learner_seed = int(rng.integers(2**31))
        for label, model in _learners(learner_seed).items():
            model.set_params(batch_size=batch_size)
            errs = _local_regret_errors(model, X, y, classes, batch_size)
            panel.add(label, sliding_mean(errs, WINDOW))
            panel.add_scalar(f"{label}: non-zero regrets", model.n_nonzero_regrets_)
        panel.add("best label", sliding_mean(_best_label_errors(y, batch_size), WINDOW))
        panel.add("best stump", sliding_mean(_best_stump_errors(X, y, batch_size),
                                             WINDOW))
        panel.add("C4.5 retrained",
                  sliding_mean(_retrained_tree_errors(X, y, classes, batch_size,
                                                      learner_seed), WINDOW))
        panel.add("SGDClassifier",
                  sliding_mean(_sgd_errors(X, y, classes, batch_size, learner_seed),
                               WINDOW))
        bar.step()
    return panel


def trial_salt(name: str) -> int:
    """A stable integer per dataset so datasets get independent streams."""
    return sum(ord(c) * 31**i for i, c in enumerate(name)) % (2**31)


def run_alternating(n_trials, n_rounds, batch_size, seed, progress,
                    n_features: int = 10) -> CurveSet:
    """Panel d: one identical instance, labels 1, 0, 1, 0, ... by round."""
    panel = CurveSet("alternating labels", f"error over previous {WINDOW} rounds")
    classes = np.array([0, 1])
    bar = Progress(n_trials, "trees: alternating", enabled=progress)
    for child in np.random.SeedSequence([seed, 4]).spawn(n_trials):
        rng = np.random.default_rng(child)
        instance = rng.integers(0, 2, n_features, dtype=np.uint8)
        X = np.tile(instance, (n_rounds * batch_size, 1))
        y = np.repeat((np.arange(n_rounds) + 1) % 2, batch_size)
        learner_seed = int(rng.integers(2**31))
        for label, model in _learners(learner_seed).items():
            model.set_params(batch_size=batch_size)
            errs = _local_regret_errors(model, X, y, classes, batch_size)
            panel.add(label, sliding_mean(errs, WINDOW))
        panel.add("best label / best tree",
                  sliding_mean(_best_label_errors(y, batch_size), WINDOW))
        panel.add("C4.5 retrained",
                  sliding_mean(_retrained_tree_errors(X, y, classes, batch_size,
                                                      learner_seed), WINDOW))
        bar.step()
    return panel


def run_trees(out: str | Path = "results", *, n_trials: int = 50,
              n_rounds: int = 1000, batch_size: int = 5, seed: int = 0,
              quick: bool = False, progress: bool = True,
              datasets=tuple(DATASETS)) -> dict[str, CurveSet]:
    """Run the decision-tree experiments, write plots and numbers, print a table.

    Parameters
    ----------
    out : path
        Folder for ``trees.png``, ``trees.csv`` and ``trees.json``.
    n_trials, n_rounds, batch_size : int
        The paper: 50 trials of 1000 rounds of 5 instances.
    seed : int
        Seed of every stream and learner.
    quick : bool
        2 trials of 200 rounds: a check that everything runs, not a result.
    progress : bool
        Progress bars on stderr.
    datasets : sequence of str
        Which of ``DATASETS`` to run (panel d always runs).

    Returns
    -------
    dict of CurveSet
        One panel per dataset plus ``"alternating"``.
    """
    if quick:
        n_trials, n_rounds = 2, 200
    panels = {name: run_dataset(name, n_trials, n_rounds, batch_size, seed, progress)
              for name in datasets}
    panels["alternating"] = run_alternating(n_trials, n_rounds, batch_size, seed,
                                            progress)
    write_results(panels, out, "trees")
    plot_panels(panels, out, "trees")
    print(summary_table(panels))
    return panels


def summary_table(panels: dict[str, CurveSet]) -> str:
    """Final-window error of every learner on every panel, with 95% CIs."""
    learners = list(dict.fromkeys(k for p in panels.values() for k in p.curves))
    rows = []
    for key, panel in panels.items():
        cells = []
        for learner in learners:
            if learner in panel.curves:
                mean, half = panel.final(learner)
                cells.append(f"{mean:.3f}±{half:.3f}")
            else:
                cells.append("-")
        rows.append([key, *cells])
    table = format_table(rows, ["final error", *learners])
    counts = [f"{key}: " + ", ".join(f"{name} {panel.scalar(name)[0]:.0f}"
                                      for name in panel.scalars)
              for key, panel in panels.items() if panel.scalars]
    return table + ("\n\nmean non-zero regrets at the end\n" + "\n".join(counts)
                    if counts else "")
