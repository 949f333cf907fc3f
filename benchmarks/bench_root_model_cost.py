"""What the root model experts cost the test-then-train loop, one run.

The hedge of ``LocalRegretTreeClassifier()`` at its defaults weighs the
vote, the play and the root models (the root site's naive Bayes model, and
Gaussian naive Bayes and a passive-aggressive linear model of the numeric
columns); the same learner
whose hedge keeps the vote and the play only (the private switch forest
members use, ``_root_model_expert = False``) is the reference. Each loop
predicts a call's rows, then learns them: digits in a shuffled order at one
row per call, and three of the leaderboard's streams (``sea``,
``image-segments``, ``nursery``; 3,000 rows, seed 0) at ten, as the
leaderboard calls. The two learners are timed in turn ``--repeats`` times
(best kept; each loop first runs, untimed, on its first 200 rows: the
compiled kernels load there), and the test-then-train error of each is
printed. Without River, the streams built with it are left out.

Run::

    python benchmarks/bench_root_model_cost.py [--repeats 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _options import available_streams, seed_int
from sklearn.datasets import load_digits

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range
from sklearn_localregret.datasets import load_stream

STREAMS = ("sea", "image-segments", "nursery")
MAX_REPEATS = 100  # each repeat learns every loop twice
WARM_ROWS = 200  # learnt untimed before a loop is timed


def loop(X, y, classes, seed: int, expert: bool, rows: int) -> tuple[float, float]:
    """Rows per second and error of the test-then-train loop, ``rows`` rows
    a call."""
    model = LocalRegretTreeClassifier(random_state=seed)
    model._root_model_expert = expert
    wrong = 0
    start = time.perf_counter()
    for lo in range(0, len(y), rows):
        at = slice(lo, lo + rows)
        if lo:
            wrong += int((model.predict(X[at]) != y[at]).sum())
        model.partial_fit(X[at], y[at], classes=classes)
    return len(y) / (time.perf_counter() - start), wrong / len(y)


def cases(seed: int, streams=STREAMS):
    """(name, X, y, classes, rows per call) of every loop timed."""
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(y))
    yield "digits, 1 row a call", X[order].astype(float), y[order], np.arange(10), 1
    for name in streams:
        stream = load_stream(name, n_rows=3000, seed=seed)
        yield f"{name}, 10 rows a call", stream.X, stream.y, stream.classes, 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int_in_range(1, MAX_REPEATS), default=3)
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args()
    streams = available_streams(parser, "streams", None, STREAMS)
    print(
        f"{'loop':<32}{'vote, play':>12}{'error':>7}"
        f"{'with root models':>18}{'error':>7}{'ratio':>7}"
    )
    for name, X, y, classes, rows in cases(args.seed, streams):
        for expert in (False, True):  # untimed: the kernels load here
            loop(X[:WARM_ROWS], y[:WARM_ROWS], classes, args.seed, expert, rows)
        runs: dict[bool, list] = {False: [], True: []}
        for _ in range(args.repeats):  # in turn: both see the same machine
            for expert in (False, True):
                runs[expert].append(loop(X, y, classes, args.seed, expert, rows))
        best = {e: max(rate for rate, _ in runs[e]) for e in runs}
        print(
            f"{name:<32}{best[False]:>12,.0f}{runs[False][0][1]:>7.3f}"
            f"{best[True]:>18,.0f}{runs[True][0][1]:>7.3f}"
            f"{best[True] / best[False]:>6.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
