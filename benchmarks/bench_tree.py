"""Rows per second of online decision-tree learners on mushroom, in one run.

The paper's protocol (Bowling & Zinkevich 2012, "Online Decision Tree
Learning"): rows drawn uniformly with replacement, rounds of ``batch_size`` = 5,
every row predicted before it is learnt. Compared, on the same stream:

* ``LocalRegretTreeClassifier`` (local external regret, L = 100), the stream
  given to ``partial_fit`` at once (it plays one round per 5 rows) and one
  ``partial_fit`` call per round (adds scikit-learn's input validation);
* ``LocalRegretTreeClassifier(regret="swap", L=3)`` on a shorter stream: its
  exact chain grows with every distinct played tree, so its speed falls with
  the number of rounds;
* River's ``HoeffdingTreeClassifier``: ``predict_one`` + ``learn_one`` per row
  (rows converted to dicts beforehand, not timed);
* scikit-learn's ``DecisionTreeClassifier`` refit on every row seen so far
  before each round (the paper's "C4.5 run online").

Run::

    python benchmarks/bench_tree.py [--rounds 1000] [--swap-rounds 200]
        [--batch-size 5] [--seed 0]

Each of our configurations first learns a small synthetic stream, untimed
(the compiled kernels load on a learner's first rounds).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _options import seed_int
from sklearn.tree import DecisionTreeClassifier

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import positive_int
from sklearn_localregret.datasets import load_mushroom


def _local(X, y, classes, per_round, batch, **params):
    clf = LocalRegretTreeClassifier(batch_size=batch, **params)
    start = time.perf_counter()
    if per_round:
        for lo in range(0, len(y), batch):
            clf.partial_fit(X[lo : lo + batch], y[lo : lo + batch], classes=classes)
    else:
        clf.partial_fit(X, y, classes=classes)
    return time.perf_counter() - start, clf.n_online_mistakes_


def _river(X, y):
    from river.tree import HoeffdingTreeClassifier

    rows = [dict(enumerate(x)) for x in X.tolist()]
    labels = y.tolist()
    model = HoeffdingTreeClassifier()
    wrong = 0
    start = time.perf_counter()
    for x, label in zip(rows, labels):
        wrong += model.predict_one(x) != label
        model.learn_one(x, label)
    return time.perf_counter() - start, wrong


def _refit(X, y, batch, seed):
    wrong = 0
    start = time.perf_counter()
    model = None
    for lo in range(0, len(y), batch):
        rows = slice(lo, lo + batch)
        if model is None:
            wrong += np.sum(y[rows] != y[0])  # nothing seen yet: a constant
        else:
            wrong += np.sum(model.predict(X[rows]) != y[rows])
        seen = slice(0, lo + batch)
        model = DecisionTreeClassifier(random_state=seed).fit(X[seen], y[seen])
    return time.perf_counter() - start, wrong


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=positive_int, default=1000)
    parser.add_argument("--swap-rounds", type=positive_int, default=200)
    parser.add_argument("--batch-size", type=positive_int, default=5)
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)

    X, y = load_mushroom(return_X_y=True, one_hot=True)
    classes = np.unique(y)
    rng = np.random.default_rng(args.seed)
    batch = args.batch_size
    idx = rng.integers(0, len(y), args.rounds * batch)
    Xs, ys = np.ascontiguousarray(X[idx]), y[idx]
    n_swap = min(args.swap_rounds * batch, len(ys))  # the rows there are

    seed = args.seed
    runs = [
        (
            "local external, L=100 (one call)",
            lambda: _local(Xs, ys, classes, False, batch, random_state=seed),
            len(ys),
        ),
        (
            "local external, L=100 (call per round)",
            lambda: _local(Xs, ys, classes, True, batch, random_state=seed),
            len(ys),
        ),
        (
            f"local swap, L=3 ({-(-n_swap // batch)} rounds)",
            lambda: _local(
                Xs[:n_swap],
                ys[:n_swap],
                classes,
                False,
                batch,
                regret="swap",
                L=3,
                random_state=args.seed,
            ),
            n_swap,
        ),
        ("river HoeffdingTreeClassifier", lambda: _river(Xs, ys), len(ys)),
        (
            "sklearn DecisionTree refit per round",
            lambda: _refit(Xs, ys, batch, args.seed),
            len(ys),
        ),
    ]
    # Untimed: the compiled kernels load on a learner's first rounds, which
    # the first row timed paid (one call read slower than a call per round).
    # Our three configurations on 0/1 rows of mushroom's type and labels.
    warm = np.random.default_rng(0)
    X_warm = warm.integers(0, 2, (200, Xs.shape[1])).astype(Xs.dtype)
    y_warm = warm.choice(classes, 200)
    for per_round in (False, True):
        _local(X_warm, y_warm, classes, per_round, batch, random_state=seed)
    _local(X_warm, y_warm, classes, False, batch, regret="swap", L=3, random_state=seed)
    results = []
    for name, run, n_rows in runs:
        seconds, wrong = run()
        results.append((name, n_rows, seconds, float(wrong) / n_rows))
    river = next(r for r in results if r[0].startswith("river"))
    river_speed = river[1] / river[2]

    print(
        f"mushroom, {X.shape[1]} boolean features, batch_size={batch}, seed={args.seed}"
    )
    print(
        f"{'learner':44s} {'rows':>6s} {'seconds':>8s} {'rows/s':>9s} "
        f"{'x river':>8s} {'online err':>10s}"
    )
    for name, n_rows, seconds, err in results:
        speed = n_rows / seconds
        print(
            f"{name:44s} {n_rows:6d} {seconds:8.2f} {speed:9.0f} "
            f"{speed / river_speed:8.2f} {err:10.3f}"
        )


if __name__ == "__main__":
    main()
