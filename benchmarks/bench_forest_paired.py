"""Two settings of the forest on the same streams and seeds: the paired difference.

Each arm is ``LocalRegretForestClassifier(**params, random_state=seed)``; the
two arms get the same stream order and ``random_state`` for each seed, so
their difference is paired. Protocol of the stream leaderboard (``python -m
sklearn_localregret streams``): each stream's first ``--rows`` rows in calls
of 10, ``predict`` then ``partial_fit``. Printed per stream: the mean
progressive error of each arm over the seeds, the mean paired difference
(B minus A) with its 95% interval (t over the seeds), on how many seeds B was
lower, and each arm's rows per second (whole loop, summed over the seeds).

Run::

    python benchmarks/bench_forest_paired.py --a "batch_size=5" \\
        --b "batch_size=10 discount=0.98" [--seeds 9] [--rows 3000]
        [--streams phishing,bananas,...]

``--streams all`` takes every leaderboard stream.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from _options import estimator_params, stream_list
from scipy import stats

from sklearn_localregret import LocalRegretForestClassifier
from sklearn_localregret._arguments import int_at_least
from sklearn_localregret.datasets import load_stream
from sklearn_localregret.datasets.streams import MIN_ROWS

STREAMS = "bananas,image-segments,phishing,agrawal,rbf-moving"
#: A t interval over the seeds needs two of them.
MIN_SEEDS = 2


def progressive_error(model, X, y, classes) -> float:
    """Test-then-train error in calls of 10 rows (the first call only learnt)."""
    wrong = 0
    for lo in range(0, len(y), 10):
        if lo:
            wrong += int((model.predict(X[lo : lo + 10]) != y[lo : lo + 10]).sum())
        model.partial_fit(X[lo : lo + 10], y[lo : lo + 10], classes=classes)
    return wrong / (len(y) - 10)


def compare(
    make_a: Callable[[int], object],
    make_b: Callable[[int], object],
    names: list[str],
    seeds: int,
    rows: int,
) -> None:
    """Print one line per stream: A, B, B - A [95% CI], B lower on, rows/s."""
    if seeds < MIN_SEEDS:  # (the scripts' --seeds refuse fewer)
        raise ValueError(f"compare needs at least {MIN_SEEDS} seeds (a t interval)")
    print(
        f"{'stream':16} {'A':>7} {'B':>7} {'B - A [95% CI]':>28} "
        f"{'B lower':>8} {'A rows/s':>9} {'B rows/s':>9}"
    )
    # Untimed: the kernels load on a learner's first rounds (arm A's first
    # stream paid for it: identical arms read 405 against 1,446 rows/s).
    rng = np.random.default_rng(0)
    X_warm, y_warm = rng.normal(size=(200, 4)), rng.integers(0, 3, 200)
    for make in (make_a, make_b):
        progressive_error(make(0), X_warm, y_warm, np.arange(3))
    for name in names:
        errors: tuple[list, list] = ([], [])
        seconds, n_rows = [0.0, 0.0], 0
        for seed in range(seeds):
            stream = load_stream(name, n_rows=rows, seed=seed)
            classes = np.unique(stream.y)
            n_rows += len(stream.y)
            for arm, make in enumerate((make_a, make_b)):
                start = time.perf_counter()
                errors[arm].append(
                    progressive_error(make(seed), stream.X, stream.y, classes)
                )
                seconds[arm] += time.perf_counter() - start
        diff = np.array(errors[1]) - np.array(errors[0])
        half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
        print(
            f"{name:16} {np.mean(errors[0]):7.4f} {np.mean(errors[1]):7.4f} "
            f"{diff.mean():+9.4f} [{diff.mean() - half:+.4f}, "
            f"{diff.mean() + half:+.4f}] {int((diff < 0).sum()):>5}/{len(diff)} "
            f"{n_rows / seconds[0]:9.0f} {n_rows / seconds[1]:9.0f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="", help='arm A, e.g. "batch_size=5"')
    parser.add_argument("--b", required=True, help='arm B, e.g. "batch_size=10"')
    parser.add_argument(
        "--seeds", type=int_at_least(MIN_SEEDS), default=9, help="at least 2"
    )
    parser.add_argument("--rows", type=int_at_least(MIN_ROWS), default=3000)
    parser.add_argument("--streams", type=stream_list(allow_all=True), default=STREAMS)
    args = parser.parse_args()
    a, b = [
        estimator_params(
            parser,
            option,
            text.split(),
            LocalRegretForestClassifier,
            reserved=["random_state"],
        )
        for option, text in (("--a", args.a), ("--b", args.b))
    ]
    print(
        f"forest error, calls of 10 rows, first {args.rows} rows, seeds "
        f"0-{args.seeds - 1}: A = {a or 'defaults'}, B = {b}"
    )
    compare(
        lambda seed: LocalRegretForestClassifier(**a, random_state=seed),
        lambda seed: LocalRegretForestClassifier(**b, random_state=seed),
        args.streams,
        args.seeds,
        args.rows,
    )


if __name__ == "__main__":
    main()
