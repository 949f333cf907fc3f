"""Cost of the tree learner's predict_proba: exact (default) against drawn trees.

For each dataset a ``LocalRegretTreeClassifier()`` (default parameters) learns
the first ``--rows`` rows in rounds of 5; then ``predict_proba`` is timed on
one row (the median of ``--repeats`` calls, each on another row) and on
10,000 rows, for the exact probabilities (``n_predict_trees=None``, the
default since this change) and for the Monte Carlo estimate with 100 drawn
trees (``n_predict_trees=100``, the default before). Also printed: the largest
difference between the two (the Monte Carlo error; its standard error is at
most ``0.5 / sqrt(100) = 0.05``), and the model's size (table sites, tests).
Timings include the scikit-learn input validation of each call; before
each timing, one untimed call of one row and one of 100 rows loads the
compiled kernels of the reading timed. A second
table times the pruned walk (``predict_tolerance`` 1e-3 and 1e-2: every
probability within the tolerance of the exact one) and prints its largest
error and the share of rows whose most probable class changed.

Datasets: mushroom one-hot (117 boolean features, 2 classes), a 20-feature
numeric stream (a planted tree, 2 classes), digits (64 features, 10 classes).

Run::

    python benchmarks/bench_tree_predict.py [--rows 3000] [--repeats 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range
from sklearn_localregret.datasets import load_mushroom

MAX_ROWS = 1_000_000  # the numeric dataset has as many (and 10,000 at least)
MAX_REPEATS = 100_000


def datasets(n_rows):
    X, y = load_mushroom(return_X_y=True, one_hot=True)
    order = np.random.default_rng(0).permutation(len(y))
    yield "mushroom one-hot", np.asarray(X, float)[order], np.asarray(y)[order]
    rng = np.random.default_rng(1)
    X = rng.normal(size=(max(n_rows, 10_000), 20))
    y = ((X[:, 0] > 0.3) & (X[:, 1] > -0.5) | (X[:, 3] > 1.0)).astype(int)
    yield "numeric, 20 features", X, y
    X, y = load_digits(return_X_y=True)
    yield "digits (10 classes)", X, y


def timed(model, rows, repeats):
    """Median seconds of predict_proba on one row, and on all of ``rows``."""
    model.predict_proba(rows[:1])  # untimed: the kernels load on a first call
    model.predict_proba(rows[:100])
    singles = []
    for i in range(repeats):
        row = rows[i % len(rows)][None]
        start = time.perf_counter()
        model.predict_proba(row)
        singles.append(time.perf_counter() - start)
    start = time.perf_counter()
    proba = model.predict_proba(rows)
    return float(np.median(singles)), time.perf_counter() - start, proba


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int_in_range(1, MAX_ROWS), default=3000)
    parser.add_argument("--repeats", type=int_in_range(1, MAX_REPEATS), default=200)
    args = parser.parse_args()
    print(
        f"{'dataset':<22}{'sites':>6}{'tests':>6}"
        f"{'1 row exact':>13}{'1 row 100 trees':>17}"
        f"{'10k exact':>11}{'10k 100 trees':>15}{'max |diff|':>12}"
    )
    pruning = []
    for name, X, y in datasets(args.rows):
        n = min(args.rows, len(y))
        model = LocalRegretTreeClassifier(random_state=0)
        classes = np.unique(y)
        for lo in range(0, n, 5):
            model.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=classes)
        rows = np.resize(X, (10_000, X.shape[1]))
        one_exact, many_exact, exact = timed(model, rows, args.repeats)
        model.set_params(n_predict_trees=100)
        one_drawn, many_drawn, drawn = timed(model, rows, args.repeats)
        print(
            f"{name:<22}{model.n_sites_:>6}{model.test_features_.size:>6}"
            f"{one_exact * 1e6:>10.0f} us{one_drawn * 1e6:>14.0f} us"
            f"{many_exact:>9.2f} s{many_drawn:>13.2f} s"
            f"{np.abs(exact - drawn).max():>12.3f}",
            flush=True,
        )
        model.set_params(n_predict_trees=None)
        for tolerance in (1e-3, 1e-2):
            model.set_params(predict_tolerance=tolerance)
            one, many, pruned = timed(model, rows, args.repeats)
            changed = np.mean(pruned.argmax(axis=1) != exact.argmax(axis=1))
            pruning.append(
                f"{name:<22}{tolerance:>10g}{one * 1e6:>10.0f} us"
                f"{one_exact / one:>8.2f}x{many:>9.2f} s"
                f"{np.abs(pruned - exact).max():>12.2e}{changed:>10.4f}"
            )
    print(
        f"\n{'dataset':<22}{'tolerance':>10}{'1 row':>13}{'speed-up':>9}"
        f"{'10k':>11}{'max |err|':>12}{'class chg':>10}"
    )
    print("\n".join(pruning))


if __name__ == "__main__":
    main()
