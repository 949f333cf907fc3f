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
interval (t over the seeds), by ``bench_forest_paired.compare`` (B = own,
A = shared).

Run::

    python benchmarks/bench_forest_thresholds.py [--seeds 9] [--rows 3000]
        [--streams bananas,image-segments,phishing,agrawal,rbf-moving]

``--streams all`` takes every leaderboard stream.
"""

from __future__ import annotations

import argparse

from _options import stream_list
from bench_forest_paired import MIN_SEEDS, STREAMS, compare

from sklearn_localregret import LocalRegretForestClassifier
from sklearn_localregret._arguments import int_at_least
from sklearn_localregret.datasets.streams import MIN_ROWS


class SharedThresholdsForest(LocalRegretForestClassifier):
    """The forest whose members keep the tree's even quantile levels."""

    def _new_member(self, seed):
        member = super()._new_member(seed)
        member._threshold_level_seed = None
        return member


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=int_at_least(MIN_SEEDS), default=9, help="at least 2"
    )
    parser.add_argument("--rows", type=int_at_least(MIN_ROWS), default=3000)
    parser.add_argument("--streams", type=stream_list(allow_all=True), default=STREAMS)
    args = parser.parse_args()
    print(
        f"forest error, calls of 10 rows, first {args.rows} rows, seeds "
        f"0-{args.seeds - 1}: A = shared thresholds, B = the members' own "
        "(the default)"
    )
    compare(
        lambda seed: SharedThresholdsForest(random_state=seed),
        lambda seed: LocalRegretForestClassifier(random_state=seed),
        args.streams,
        args.seeds,
        args.rows,
    )


if __name__ == "__main__":
    main()
