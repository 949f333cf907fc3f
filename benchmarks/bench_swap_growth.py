"""Growth of the swap-regret learners on a long stream: speed, memory, size.

The stream of issue 18: 20 boolean features, a planted tree
(``x0 ? x1 : x2 and x3``) with 5% of the labels flipped (``--flip``; 0.5 is
pure noise, where the played trees never settle), fed to
``LocalRegretTreeClassifier(regret="swap", L=3)`` in calls of 100 rows. At
each checkpoint (10k, 50k, 200k rows) the script prints the rows per second
over the last ``--window`` rows (the time per row *at* that point), the
process's peak RSS so far, the regret table's rows and bytes, the pickle's size and the
time of ``predict`` on 2,000 rows; then the ratio of the time per row at the
last checkpoint to that at the first (issue 18 asks for at most 2).
``--maxsat`` runs ``OnlineMaxSAT(regret="swap")`` on a planted 3-SAT stream
instead (clauses per second). Checkpoints are of at most 10,000,000 rows,
multiples of 100 for the tree (its calls' rows).

Run::

    python benchmarks/bench_swap_growth.py [--checkpoints 10000 50000 200000]
        [--window 2000] [--discount 0.99] [--flip 0.05] [--maxsat]
"""

from __future__ import annotations

import argparse
import pickle
import resource
import time

import numpy as np
from _options import discount_float, float_in_range

from sklearn_localregret import LocalRegretTreeClassifier, OnlineMaxSAT
from sklearn_localregret._arguments import int_at_least, int_in_range

N_FEATURES = 20
CALL_ROWS = 100
MAX_ROWS = 10_000_000  # the MaxSAT stream is made up front


def planted_rows(n: int, rng: np.random.Generator, flip: float = 0.05):
    """``n`` rows of the planted tree ``x0 ? x1 : (x2 and x3)``, ``flip`` flipped."""
    X = rng.integers(0, 2, (n, N_FEATURES))
    y = np.where(X[:, 0] == 1, X[:, 1], X[:, 2] & X[:, 3])
    return X, np.where(rng.random(n) < flip, 1 - y, y)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def tree_stream(args):
    model = LocalRegretTreeClassifier(
        regret="swap", L=3, discount=args.discount, random_state=0
    )
    rng = np.random.default_rng(0)
    X_test, y_test = planted_rows(2000, np.random.default_rng(1), 0.0)
    classes = np.array([0, 1])
    print(
        f"tree, swap, L=3, discount={args.discount}, {args.flip:.0%} of labels "
        f"flipped: calls of {CALL_ROWS} rows; test error on clean labels"
    )
    print(
        f"{'rows':>8}{'rows/s':>9}{'peak RSS MB':>13}{'table rows':>12}"
        f"{'regret KB':>11}{'pickle KB':>11}{'predict s':>11}{'test error':>12}",
        flush=True,
    )
    seen, rates = 0, []
    for checkpoint in args.checkpoints:
        timed, timed_rows = 0.0, 0
        while seen < checkpoint:
            X, y = planted_rows(CALL_ROWS, rng, args.flip)
            start = time.perf_counter()
            model.partial_fit(X, y, classes=classes)
            if seen >= checkpoint - args.window:
                timed += time.perf_counter() - start
                timed_rows += CALL_ROWS  # (fewer than the window: checkpoints close)
            seen += CALL_ROWS
        rates.append(timed_rows / timed)
        start = time.perf_counter()
        error = float(np.mean(model.predict(X_test) != y_test))
        predict_s = time.perf_counter() - start
        print(
            f"{seen:>8}{rates[-1]:>9.0f}{peak_rss_mb():>13.0f}"
            f"{model.n_sites_:>12}{model.regret_nbytes_ // 1024:>11}"
            f"{len(pickle.dumps(model)) // 1024:>11}"
            f"{predict_s:>11.3f}{error:>12.3f}",
            flush=True,
        )
    return rates


def maxsat_stream(args):
    from bench_maxsat import planted_stream  # the benchmarks' planted 3-SAT

    n_vars = 50
    clauses = planted_stream(n_vars, max(args.checkpoints), seed=0)
    solver = OnlineMaxSAT(n_vars, regret="swap", discount=args.discount, random_state=0)
    print(f"OnlineMaxSAT, swap, {n_vars} variables, discount={args.discount}")
    print(
        f"{'clauses':>8}{'clauses/s':>11}{'peak RSS MB':>13}{'table rows':>12}"
        f"{'pickle KB':>11}",
        flush=True,
    )
    seen, rates = 0, []
    for checkpoint in args.checkpoints:
        lo = max(seen, checkpoint - args.window)  # (the clauses timed)
        solver.run(clauses[seen:lo])
        start = time.perf_counter()
        solver.run(clauses[lo:checkpoint])
        rates.append((checkpoint - lo) / (time.perf_counter() - start))
        seen = checkpoint
        print(
            f"{seen:>8}{rates[-1]:>11.0f}{peak_rss_mb():>13.0f}"
            f"{solver.n_regret_rows_:>12}{len(pickle.dumps(solver)) // 1024:>11}",
            flush=True,
        )
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkpoints",
        type=int_in_range(CALL_ROWS, MAX_ROWS),
        nargs="+",
        default=[10_000, 50_000, 200_000],
    )
    parser.add_argument(
        "--window",
        type=int_at_least(CALL_ROWS),
        default=2_000,
        help="rows timed before each checkpoint",
    )
    parser.add_argument("--discount", type=discount_float, default=0.99)
    parser.add_argument(
        "--flip",
        type=float_in_range(0, 1),
        default=0.05,
        help="fraction of labels flipped (0.5: pure noise)",
    )
    parser.add_argument("--maxsat", action="store_true")
    args = parser.parse_args()
    points = args.checkpoints
    if any(a >= b for a, b in zip(points, points[1:])):
        parser.error(f"--checkpoints must increase, from {CALL_ROWS} rows at least")
    if not args.maxsat and any(point % CALL_ROWS for point in points):
        parser.error(
            f"--checkpoints: the tree learns calls of {CALL_ROWS} rows: "
            f"give multiples of {CALL_ROWS}"
        )
    rates = maxsat_stream(args) if args.maxsat else tree_stream(args)
    print(
        f"time per row at {args.checkpoints[-1]} / at {args.checkpoints[0]}: "
        f"{rates[0] / rates[-1]:.2f} (goal: at most 2)"
    )


if __name__ == "__main__":
    main()
