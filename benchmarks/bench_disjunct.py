"""Throughput of LocalRegretDisjunctClassifier.partial_fit against SGDClassifier.

Boolean features (uniform), labels from a random disjunction (each feature a
literal with probability 4/n, the paper's "random disjunction" task). Both
learners see the same float64 rows in the same run:

* streaming -- one ``partial_fit`` call per batch, as River and dask-ml drive an
  incremental estimator (measured on the first ``--stream-rows`` rows);
* bulk -- one ``partial_fit`` call over all rows (for SGDClassifier: one
  compiled epoch, whatever the batch size).

It also breaks one streaming call down: ``validate_data``, the ``_fit_context``
wrapper and the learning itself. Run::

    python benchmarks/bench_disjunct.py [--rows 100000] [--stream-rows 5000]
        [--features 20 200] [--batch-sizes 1 5] [--seed 0] [--prediction vote]

The learner runs at its default ``prediction`` (the hedge, which scores
every round, so bulk calls play round by round) unless ``--prediction``
says otherwise. Before any timing, the first configuration (the first
``--features`` and ``--batch-sizes``) learns 300 rows untimed, streaming and
in bulk: the compiled kernels load on a learner's first rounds. The rows of
the widest stream are made up front: ``--rows`` (4,000 at least) x
``--features`` is at most 10**9 (8 GB).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _options import check_params, seed_int
from sklearn.linear_model import SGDClassifier
from sklearn.utils.validation import validate_data

from sklearn_localregret import LocalRegretDisjunctClassifier
from sklearn_localregret._arguments import int_in_range, positive_int

STREAM_GOAL = 3.0  # at least 3x SGDClassifier's streaming rows per second
BULK_GOAL = 0.1  # within 10x of SGDClassifier's single epoch
MAX_CELLS = 10**9  # rows x features of a stream (float64: 8 GB)
WARM_ROWS = 300
BREAKDOWN_ROWS = 4000  # the stream of the one-row call's breakdown


def make_stream(n_rows: int, n_features: int, seed: int):
    rng = np.random.default_rng(seed)
    X = (rng.random((n_rows, n_features)) < 0.5).astype(np.float64)
    target = rng.random(n_features) < 4 / n_features
    if not target.any():
        target[rng.integers(n_features)] = True
    y = (X[:, target].sum(axis=1) > 0).astype(int)
    return X, y


def streaming_rate(make, X, y, batch: int) -> float:
    est = make()
    start = time.perf_counter()
    for lo in range(0, len(y), batch):
        est.partial_fit(X[lo : lo + batch], y[lo : lo + batch], classes=[0, 1])
    return len(y) / (time.perf_counter() - start)


def bulk_rate(make, X, y) -> float:
    est = make()
    start = time.perf_counter()
    est.partial_fit(X, y, classes=[0, 1])
    return len(y) / (time.perf_counter() - start)


def per_call_us(fn, n_calls: int) -> float:
    start = time.perf_counter()
    for i in range(n_calls):
        fn(i)
    return (time.perf_counter() - start) / n_calls * 1e6


def breakdown(X, y, seed: int, n_calls: int = 2000) -> list[tuple[str, float]]:
    """Microseconds per one-row streaming call, by component."""
    clf = LocalRegretDisjunctClassifier(random_state=seed)
    clf.partial_fit(X[:1], y[:1], classes=[0, 1])
    sgd = SGDClassifier(random_state=seed).partial_fit(X[:1], y[:1], classes=[0, 1])
    rows = [
        (
            "validate_data(X, y)",
            lambda i: validate_data(
                clf,
                X[i : i + 1],
                y[i : i + 1],
                reset=False,
                accept_sparse=["csr", "csc"],
                dtype="numeric",
            ),
        ),
        (
            "_partial_fit (validation + round)",
            lambda i: clf._partial_fit(X[i : i + 1], y[i : i + 1], None, None),
        ),
        (
            "partial_fit (+ _fit_context)",
            lambda i: clf.partial_fit(X[i : i + 1], y[i : i + 1]),
        ),
        (
            "SGDClassifier.partial_fit",
            lambda i: sgd.partial_fit(X[i : i + 1], y[i : i + 1]),
        ),
    ]
    return [(name, per_call_us(fn, n_calls)) for name, fn in rows]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        type=int_in_range(1, MAX_CELLS),
        default=100_000,
        help="rows of the bulk runs (default 100000)",
    )
    parser.add_argument(
        "--stream-rows",
        type=positive_int,
        default=5_000,
        help="rows of the streaming runs (default 5000)",
    )
    parser.add_argument(
        "--features", type=int_in_range(1, MAX_CELLS), nargs="+", default=[20, 200]
    )
    parser.add_argument("--batch-sizes", type=positive_int, nargs="+", default=[1, 5])
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument(
        "--prediction",
        default="auto",
        help="the learner's prediction rule (default: its default, the hedge, "
        "which scores every round; 'vote' keeps the bulk path)",
    )
    args = parser.parse_args(argv)
    check_params(
        parser,
        "--prediction",
        LocalRegretDisjunctClassifier,
        {"prediction": args.prediction},
    )
    rows = max(args.rows, BREAKDOWN_ROWS)  # the most a stream has
    if rows * max(args.features) > MAX_CELLS:
        parser.error(
            f"--rows x --features: at most {MAX_CELLS:.0e} cells (float64; "
            f"{BREAKDOWN_ROWS} rows at least), got {rows} x {max(args.features)}"
        )

    def local(batch):
        return LocalRegretDisjunctClassifier(
            batch_size=batch, prediction=args.prediction, random_state=args.seed
        )

    def sgd():
        return SGDClassifier(random_state=args.seed)

    # Untimed: the compiled kernels load on a learner's first rounds, which
    # the first configuration timed paid (timed twice, it read 4,558 rows/s,
    # then 7,361).
    X, y = make_stream(WARM_ROWS, args.features[0], args.seed)
    batch = args.batch_sizes[0]
    streaming_rate(lambda: local(batch), X, y, batch)
    streaming_rate(sgd, X, y, batch)
    bulk_rate(lambda: local(batch), X, y)

    header = (
        f"{'n':>4} {'batch':>5} {'mode':>9} {'local rows/s':>13} "
        f"{'SGD rows/s':>11} {'ratio':>7} {'goal':>6}"
    )
    print(header)
    print("-" * len(header))
    for n in args.features:
        X, y = make_stream(args.rows, n, args.seed)
        sgd_bulk = bulk_rate(lambda: SGDClassifier(random_state=args.seed), X, y)
        for batch in args.batch_sizes:
            s = slice(0, args.stream_rows)
            results = [
                (
                    "streaming",
                    streaming_rate(lambda b=batch: local(b), X[s], y[s], batch),
                    streaming_rate(sgd, X[s], y[s], batch),
                    STREAM_GOAL,
                ),
                (
                    "bulk",
                    bulk_rate(lambda b=batch: local(b), X, y),
                    sgd_bulk,
                    BULK_GOAL,
                ),
            ]
            for mode, ours, theirs, goal in results:
                ratio = ours / theirs
                mark = "met" if ratio >= goal else "MISSED"
                print(
                    f"{n:>4} {batch:>5} {mode:>9} {ours:>13,.0f} {theirs:>11,.0f} "
                    f"{ratio:>6.2f}x {mark:>6}"
                )
    print()
    print("one-row streaming call, microseconds (n = %d):" % args.features[0])
    X, y = make_stream(BREAKDOWN_ROWS, args.features[0], args.seed)
    for name, us in breakdown(X, y, args.seed):
        print(f"  {name:<36} {us:8.1f}")


if __name__ == "__main__":
    main()
