"""The forest's members at thresholds of their own against shared thresholds.

``LocalRegretForestClassifier`` gives each member quantile levels shifted by
offsets of its own seed (``QuantileThresholds(level_seed=...)``; the user
guide, "The forest"), so that the members split a numeric column at
different places. The other arm is the same forest whose members keep the
even levels, as a tree alone does: all of them then share one set of
thresholds. Protocol of the stream leaderboard (``python -m
sklearn_localregret streams``): each stream's first ``--rows`` rows in calls
of 10, ``predict`` then ``partial_fit``, for each seed; the two arms get the
same stream and ``random_state``. Printed: the mean error of each arm over
the seeds and the mean paired difference (own minus shared) with its 95%
interval (t over the seeds).

Run::

    python benchmarks/bench_forest_thresholds.py [--seeds 9] [--rows 3000]
        [--streams bananas,image-segments,phishing,agrawal,rbf-moving]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from sklearn_localregret import LocalRegretForestClassifier
from sklearn_localregret.datasets import load_stream

STREAMS = "bananas,image-segments,phishing,agrawal,rbf-moving"


class SharedThresholdsForest(LocalRegretForestClassifier):
    """The forest whose members keep the tree's even quantile levels."""

    def _new_member(self, seed):
        member = super()._new_member(seed)
        member._threshold_level_seed = None
        return member


def progressive_error(model, X, y, classes) -> float:
    wrong = 0
    for lo in range(0, len(y), 10):
        if lo:
            wrong += int((model.predict(X[lo : lo + 10]) != y[lo : lo + 10]).sum())
        model.partial_fit(X[lo : lo + 10], y[lo : lo + 10], classes=classes)
    return wrong / (len(y) - 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=9)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--streams", default=STREAMS)
    args = parser.parse_args()
    print(
        f"forest error, rounds of 10 rows, first {args.rows} rows, seeds "
        f"0-{args.seeds - 1}: members' own thresholds (the default) against "
        "shared ones"
    )
    print(
        f"{'stream':16} {'own':>7} {'shared':>7} {'own - shared [95% CI]':>28} "
        f"{'better':>7} {'seconds':>8}"
    )
    for name in args.streams.split(","):
        start = time.perf_counter()
        own, shared = [], []
        for seed in range(args.seeds):
            stream = load_stream(name, n_rows=args.rows, seed=seed)
            classes = np.unique(stream.y)
            for arm, make in (
                (own, LocalRegretForestClassifier),
                (shared, SharedThresholdsForest),
            ):
                arm.append(
                    progressive_error(
                        make(random_state=seed), stream.X, stream.y, classes
                    )
                )
        diff = np.array(own) - np.array(shared)
        half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
        print(
            f"{name:16} {np.mean(own):7.4f} {np.mean(shared):7.4f} "
            f"{diff.mean():+9.4f} [{diff.mean() - half:+.4f}, "
            f"{diff.mean() + half:+.4f}] {int((diff < 0).sum()):>4}/{len(diff)} "
            f"{time.perf_counter() - start:8.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
