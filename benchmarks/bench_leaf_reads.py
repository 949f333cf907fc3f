"""Adaptive leaf reads against label reads, on the stream leaderboard's streams.

``LocalRegretTreeClassifier(leaf_prediction="adaptive")`` (the default) lets
a leaf predict with its site's naive Bayes model where that model has so far
got more of the site's rows right than the site's majority label;
``"label"`` is the reading before it. Both learn the same plays (the same
seed plays the same trees), so the difference in error is the reading's
alone. Protocol of the leaderboard (``python -m sklearn_localregret
streams``): each stream's rows in rounds of 5, ``predict`` then
``partial_fit``, for each seed; errors are means over the seeds with the
mean paired difference and its 95% interval (t over the seeds), and the
rows per second of the two (``predict`` + ``partial_fit``) in the same run.

Run::

    python benchmarks/bench_leaf_reads.py [--seeds 3] [--rows 5000]
        [--streams nursery,mushroom,...] [--forest] [--one-row] [--memory]
        [--bulk]

(``--seeds``: 0 to 1,000; ``--rows``: 20 to 1,000,000; ``--streams``: named
streams, comma-separated; default: all, less River's when it is not
installed. ``--memory`` reads River's rbf-moving.)

``--forest`` adds ``LocalRegretForestClassifier`` (its members read their
leaves one way or the other) on the first seed. ``--one-row`` adds the cost
of the reads measured apart: the one-row test-then-train loop of
``bench_stream_loop.py``'s 20-feature numeric stream (2,000 rows), each
reading timed alone, three times, the best kept. ``--memory`` adds the
memory of the reads: the peak that ``tracemalloc`` sees while the forest
learns 5,000 rows of rbf-moving in rounds of 5 (predict, then learn), with
each reading. ``--bulk`` adds one bulk ``fit`` of 60,000 rows of
``bench_sharded.py``'s 20-feature stream with each reading (rows per
second). ``--seeds 0`` runs the added parts only.
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool

import numpy as np
from _options import available_streams, require_river, stream_list
from scipy import stats

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range
from sklearn_localregret.datasets import load_stream, stream_names
from sklearn_localregret.datasets.streams import MIN_ROWS

READS = ("label", "adaptive")
ROUND_ROWS = 5
MAX_SEEDS = 1000
MAX_ROWS = 1_000_000


def run(job: tuple) -> tuple:
    """One learner on one stream and seed: (job, error, seconds)."""
    learner, name, reads, seed, n_rows = job
    stream = load_stream(name, n_rows=n_rows, seed=seed)
    X, y = stream.X, stream.y
    if learner == "forest":
        model = LocalRegretForestClassifier(random_state=seed, leaf_prediction=reads)
    else:
        model = LocalRegretTreeClassifier(random_state=seed, leaf_prediction=reads)
    classes = np.unique(y)
    wrong = 0
    start = time.perf_counter()
    for lo in range(0, len(y), ROUND_ROWS):
        rows = slice(lo, lo + ROUND_ROWS)
        if lo:
            wrong += int(np.sum(model.predict(X[rows]) != y[rows]))
        model.partial_fit(X[rows], y[rows], classes=classes)
    return job, wrong / len(y), time.perf_counter() - start


def one_row_cost(n_rows: int = 2000) -> None:
    """Rows per second of the one-row loop, label against adaptive reads."""
    from bench_stream_loop import streams  # this folder is on sys.path

    X, y = streams(n_rows, 0)["numeric (20 features)"]
    classes = np.unique(y)
    best = {}
    for reads in READS * 3:
        model = LocalRegretTreeClassifier(random_state=0, leaf_prediction=reads)
        start = time.perf_counter()
        for i in range(len(y)):
            if i:
                model.predict(X[i : i + 1])
            model.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
        seconds = time.perf_counter() - start
        best[reads] = min(best.get(reads, np.inf), seconds)
    rates = {reads: len(y) / seconds for reads, seconds in best.items()}
    print(
        f"\none row per call, 20 numeric features, {len(y)} rows (best of 3): "
        f"label {rates['label']:,.0f} rows/s, adaptive {rates['adaptive']:,.0f} "
        f"rows/s ({rates['adaptive'] / rates['label']:.2f}x)"
    )


def bulk_cost(n_rows: int = 60000) -> None:
    """Rows per second of one bulk fit, label against adaptive reads."""
    from bench_sharded import _concept  # this folder is on sys.path

    X, y = _concept(n_rows)
    LocalRegretTreeClassifier(random_state=0).fit(X[:2000], y[:2000])  # warm
    rates = {}
    for reads in READS:
        start = time.perf_counter()
        LocalRegretTreeClassifier(random_state=0, leaf_prediction=reads).fit(X, y)
        rates[reads] = n_rows / (time.perf_counter() - start)
    print(
        f"\none bulk fit, {n_rows:,} rows of bench_sharded.py's 20-feature "
        f"stream: label {rates['label']:,.0f} rows/s, adaptive "
        f"{rates['adaptive']:,.0f} rows/s "
        f"({rates['adaptive'] / rates['label']:.2f}x)"
    )


def memory_cost(n_rows: int = 5000) -> None:
    """The forest's peak traced memory on rbf-moving, label against adaptive."""
    import tracemalloc

    stream = load_stream("rbf-moving", n_rows=n_rows, seed=0)
    X, y = stream.X, stream.y
    classes = np.unique(y)
    peaks = {}
    for reads in READS:
        model = LocalRegretForestClassifier(random_state=0, leaf_prediction=reads)
        tracemalloc.start()
        for lo in range(0, len(y), ROUND_ROWS):
            rows = slice(lo, lo + ROUND_ROWS)
            if lo:
                model.predict(X[rows])
            model.partial_fit(X[rows], y[rows], classes=classes)
        peaks[reads] = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    print(
        f"\nforest on {len(y)} rows of rbf-moving, peak traced memory: "
        f"label {peaks['label']:.0f} MB, adaptive {peaks['adaptive']:.0f} MB"
    )


def paired(diffs: np.ndarray) -> str:
    """Mean difference and its 95% t interval over the seeds."""
    mean = float(diffs.mean())
    if len(diffs) < 2:
        return f"{mean:+.4f}"
    half = stats.t.ppf(0.975, len(diffs) - 1) * diffs.std(ddof=1) / np.sqrt(len(diffs))
    return f"{mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}]"


def report(learner: str, names: list, results: dict, seeds: list) -> None:
    print(f"\n{learner}: error by reading (mean over {len(seeds)} seed(s))")
    header = (
        f"{'stream':16} {'label':>7} {'adaptive':>8}  {'adaptive - label [95% CI]':>32}"
        f" {'rows/s':>7} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    better = worse = 0
    for name in names:
        errors = {
            r: np.array([results[(learner, name, r, s)][0] for s in seeds])
            for r in READS
        }
        secs = {r: sum(results[(learner, name, r, s)][1] for s in seeds) for r in READS}
        diffs = errors["adaptive"] - errors["label"]
        better += diffs.mean() < 0
        worse += diffs.mean() > 0
        rows = sum(len_of[(name, s)] for s in seeds)
        print(
            f"{name:16} {errors['label'].mean():7.4f} {errors['adaptive'].mean():8.4f}"
            f"  {paired(diffs):>32} {rows / secs['adaptive']:7.0f}"
            f" {secs['label'] / secs['adaptive']:5.2f}x"
        )
    print(f"adaptive lower on {better}, higher on {worse} of {len(names)} streams")


len_of: dict = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int_in_range(0, MAX_SEEDS), default=3)
    parser.add_argument("--rows", type=int_in_range(MIN_ROWS, MAX_ROWS), default=5000)
    parser.add_argument("--streams", type=stream_list(), default=None)
    parser.add_argument("--forest", action="store_true")
    parser.add_argument("--one-row", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--bulk", action="store_true")
    args = parser.parse_args()
    if args.memory:
        require_river(parser, "--memory learns River's stream rbf-moving")
    names = available_streams(parser, "--streams", args.streams, stream_names())
    seeds = list(range(args.seeds))
    jobs = [("tree", n, r, s, args.rows) for n in names for s in seeds for r in READS]
    if args.forest:
        jobs += [("forest", n, r, 0, args.rows) for n in names for r in READS]
    for name in names:
        for seed in seeds:
            len_of[(name, seed)] = len(load_stream(name, n_rows=args.rows, seed=seed).y)
    # Warm the compiled kernels once, so that no run counts the compiler.
    run(("tree", names[0], "adaptive", 0, 50))
    results = {}
    with Pool(2) as pool:  # --seeds 0: the extra parts only
        for done, (job, error, seconds) in enumerate(
            pool.imap_unordered(run, jobs), start=1
        ):
            learner, name, reads, seed, _ = job
            results[(learner, name, reads, seed)] = (error, seconds)
            print(
                f"[{done}/{len(jobs)}] {learner} {name} {reads} seed {seed}: "
                f"{error:.4f} in {seconds:.1f} s",
                flush=True,
            )
    if seeds:
        report("tree", names, results, seeds)
    if args.forest and seeds:
        report("forest", names, results, [0])
    if args.one_row:
        one_row_cost()
    if args.memory:
        memory_cost()
    if args.bulk:
        bulk_cost()


if __name__ == "__main__":
    main()
