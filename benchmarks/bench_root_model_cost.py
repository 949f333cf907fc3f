"""What the root model expert costs the one-row loop, one run.

Digits in a shuffled order, one row per call (``predict`` then
``partial_fit``), by ``LocalRegretTreeClassifier()`` at its defaults (the
hedge weighs the vote, the play and the root site's naive Bayes model) and
by the same learner whose hedge keeps the vote and the play only (the
private switch forest members use, ``_root_model_expert = False``). Each is
timed ``--repeats`` times (best kept, the first run also warms the
compiled kernels) and its test-then-train error printed.

Run::

    python benchmarks/bench_root_model_cost.py [--repeats 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits

from sklearn_localregret import LocalRegretTreeClassifier


def one_row_loop(X, y, seed: int, expert: bool) -> tuple[float, float]:
    """Rows per second and error of the one-row test-then-train loop."""
    model = LocalRegretTreeClassifier(random_state=seed)
    model._root_model_expert = expert
    classes, wrong = np.unique(y), 0
    start = time.perf_counter()
    for i in range(len(y)):
        if i:
            wrong += int(model.predict(X[i : i + 1])[0] != y[i])
        model.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
    return len(y) / (time.perf_counter() - start), wrong / len(y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(args.seed).permutation(len(y))
    X, y = X[order].astype(float), y[order]
    rates = {}
    print(f"{'hedge experts':<28}{'rows/s (best)':>14}{'error':>8}")
    for expert in (False, True):
        runs = [one_row_loop(X, y, args.seed, expert) for _ in range(args.repeats)]
        rates[expert] = max(rate for rate, _ in runs)
        name = "vote, play, root model" if expert else "vote, play"
        print(f"{name:<28}{rates[expert]:>14,.0f}{runs[0][1]:>8.3f}")
    print(f"with the root model: {rates[True] / rates[False]:.2f}x the rows/s")


if __name__ == "__main__":
    main()
