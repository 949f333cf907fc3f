"""Memory and speed of the tree learner over a long numeric stream, one run.

A stream of ``--rows`` rows (default 1,000,000) with 20 standard normal
features; the label is a planted depth-3 tree on 4 of the features with 5%
label noise. The stream is fed to ``LocalRegretTreeClassifier()`` (default
parameters) with ``partial_fit`` in calls of ``--per-call`` rows (default
10,000; 1 is a stream learnt one row per call). Printed every
``--every`` rows: rows per second of the last stretch, the peak resident memory
of the process so far, the bytes of regret state (``regret_nbytes_``), the
sites (rows of the regret table, ``n_sites_``) and the tests.

The regret state is ``8 (2K + 2 T K + 2 T)`` bytes per site (``K`` classes,
``T`` tests, at most ``max_thresholds`` per feature), and a site is a path of
a played tree, so its size is bounded by the number of distinct paths played.

Run::

    python benchmarks/bench_tree_memory.py [--rows 1000000] [--every 100000]
        [--per-call 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np
from _options import seed_int

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range, positive_int

#: Most rows: the stream is made up front (160 bytes a row).
MAX_ROWS = 10_000_000


def planted_stream(n_rows, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 20))
    y = np.where(
        X[:, 0] > 0.3,
        np.where(X[:, 1] > -0.5, 1, X[:, 2] > 0.8),
        np.where(X[:, 3] > 0.0, X[:, 1] > 1.0, 0),
    ).astype(int)
    flip = rng.random(n_rows) < 0.05
    return X, np.where(flip, 1 - y, y)


def peak_rss_mb() -> float:
    scale = 1024 if sys.platform != "darwin" else 1024 * 1024  # kB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int_in_range(1, MAX_ROWS), default=1_000_000)
    parser.add_argument("--every", type=positive_int, default=100_000)
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--per-call", type=positive_int, default=10_000)
    args = parser.parse_args(argv)
    X, y = planted_stream(args.rows, args.seed)
    clf = LocalRegretTreeClassifier(random_state=args.seed)
    print(
        f"{'rows':>9} {'rows/s':>8} {'online err':>10} {'peak RSS MB':>12} "
        f"{'regret MB':>10} {'sites':>7} {'tests':>6}"
    )
    chunk, seen, mistakes, last = args.per_call, 0, 0.0, 0
    start = time.perf_counter()
    for lo in range(0, args.rows, chunk):
        clf.partial_fit(X[lo : lo + chunk], y[lo : lo + chunk], classes=[0, 1])
        seen += min(chunk, args.rows - lo)
        if seen - last >= args.every or seen == args.rows:
            # (the stretch's own rows: --every need not divide --per-call)
            elapsed, stretch = time.perf_counter() - start, seen - last
            err = (clf.n_online_mistakes_ - mistakes) / stretch
            print(
                f"{seen:>9,} {stretch / elapsed:>8,.0f} {err:>10.3f} "
                f"{peak_rss_mb():>12.0f} {clf.regret_nbytes_ / 2**20:>10.1f} "
                f"{clf.n_sites_:>7,} {clf.test_features_.size:>6}",
                flush=True,
            )
            mistakes, last = clf.n_online_mistakes_, seen
            start = time.perf_counter()
    tail = min(10_000, args.rows)
    accuracy = np.mean(clf.predict(X[-tail:]) == y[-tail:])
    print(
        f"accuracy of predict on the last {tail:,} rows: {accuracy:.3f} "
        "(the noise allows 0.95)"
    )


if __name__ == "__main__":
    main()
