"""Digits in a scikit-learn pipeline: held-out accuracy, as a new user tries it.

Issue 26's goal: ``train_test_split`` of scikit-learn's digits, a pipeline
``StandardScaler() -> LocalRegretTreeClassifier()`` (defaults) fitted on the
training part, accuracy on the held-out part at least 0.90. Next to it on
the same splits: ``SGDClassifier``, ``DecisionTreeClassifier`` and, when River
is installed, River's ``HoeffdingTreeClassifier`` (one pass of ``learn_one``
over the training rows, unscaled: its naive Bayes leaves do not need it).
One run per ``train_test_split`` seed (0, 1, 2 by default), printed with
their mean.

Run::

    python benchmarks/bench_digits_pipeline.py [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse

import numpy as np
from _options import seed_int
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_localregret import LocalRegretTreeClassifier


def hoeffding_accuracy(X_train, y_train, X_test, y_test):
    try:
        from river import tree
    except ImportError:
        return None
    model = tree.HoeffdingTreeClassifier()
    keys = range(X_train.shape[1])
    for x, label in zip(X_train.tolist(), y_train.tolist()):
        model.learn_one(dict(zip(keys, x)), label)
    predicted = [model.predict_one(dict(zip(keys, x))) for x in X_test.tolist()]
    return float(np.mean(np.array(predicted) == y_test))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seed_int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    X, y = load_digits(return_X_y=True)
    learners = {
        "ours (tree)": lambda: LocalRegretTreeClassifier(random_state=0),
        "SGDClassifier": lambda: SGDClassifier(random_state=0),
        "DecisionTree": lambda: DecisionTreeClassifier(random_state=0),
    }
    scores: dict[str, list] = {name: [] for name in [*learners, "River HT"]}
    for seed in args.seeds:
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=seed)
        for name, make in learners.items():
            model = make_pipeline(StandardScaler(), make()).fit(X_train, y_train)
            scores[name].append(model.score(X_test, y_test))
        ht = hoeffding_accuracy(X_train, y_train, X_test, y_test)
        if ht is not None:
            scores["River HT"].append(ht)
    print(f"held-out accuracy, train_test_split seeds {args.seeds}")
    for name, values in scores.items():
        if values:
            cells = " ".join(f"{v:.3f}" for v in values)
            print(f"{name:15s} {cells}   mean {np.mean(values):.3f}")
    mean = float(np.mean(scores["ours (tree)"]))
    print(f"goal: ours >= 0.90: {'met' if mean >= 0.90 else 'NOT met'} ({mean:.3f})")


if __name__ == "__main__":
    main()
