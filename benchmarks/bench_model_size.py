"""Size of a saved model: pickle and skops, plain and compressed, one run.

Three parts (``--parts``, all by default):

* ``mushroom``: each learner (default parameters; the tree also with
  ``regret="swap", L=3``) fitted on the first ``--rows`` rows of mushroom
  (one-hot, 117 boolean features); printed are the bytes of ``pickle.dumps``,
  the same gzipped, ``skops.io.dumps`` and the same with
  ``compression=zipfile.ZIP_DEFLATED``, and the learner's regret state
  (``regret_nbytes_`` where it has one). Goal (issue 30): the default tree's
  pickle under 100 KB at 400 rows.
* ``stream``: ``LocalRegretTreeClassifier()`` on ``--stream-rows`` rows
  (default 1,000,000) of the planted stream of ``bench_tree_memory.py`` (20
  standard normal features, a depth-3 tree on 4 of them, 5% label noise),
  ``partial_fit`` in calls of 10,000 rows; the pickle's size at 5 points of
  the stream. Goal (issue 30): under 2 MB at 1,000,000 rows.
* ``wide``: ``LocalRegretTreeClassifier()`` fitted on ``--wide-rows`` x
  ``--wide-features`` standard normal features (default 2,000 x 5,000, up to
  7 tests per feature), labelled by the same planted tree on the first 4
  features with 5% noise; the pickle's size, the time of ``predict`` on
  one row and on 1,000 more rows, and the error on those rows; at the
  default ``refined_features`` and with every feature refined
  (``refined_features=None``, the learner before it). Goal (issue 31):
  pickle at most 20 MB.

Run::

    python benchmarks/bench_model_size.py [--rows 400] [--stream-rows 1000000]
        [--wide-rows 2000] [--wide-features 5000] [--parts mushroom stream wide]

(``--rows``: 1 to 8,124, mushroom's; ``--stream-rows``: at most 10,000,000;
``--wide-features``: 4 at least; (``--wide-rows`` + 1,000) x
``--wide-features``: at most 10**9, 8 GB of float64.)
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import time
import zipfile

import numpy as np
import skops.io as sio
from bench_tree_memory import planted_stream

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range
from sklearn_localregret.datasets import load_mushroom

MUSHROOM_ROWS = 8124
MAX_STREAM_ROWS = 10_000_000  # made up front (160 bytes a row)
MAX_CELLS = 10**9  # of the wide input, float64: 8 GB


def verdict(size: int, goal: int, at_most: bool = False) -> str:
    met = size <= goal if at_most else size < goal
    words = "at most" if at_most else "under"
    return f"goal {words} {goal / 1e6:g} MB: {'met' if met else 'NOT met'}"


def mushroom(rows: int) -> None:
    X, y = load_mushroom(return_X_y=True, one_hot=True)
    X, y = np.asarray(X)[:rows], np.asarray(y)[:rows]
    learners = {
        "tree, external": LocalRegretTreeClassifier(random_state=0),
        "tree, swap L=3": LocalRegretTreeClassifier(regret="swap", L=3, random_state=0),
        "disjunct, external": LocalRegretDisjunctClassifier(random_state=0),
    }
    print(f"mushroom, {rows} rows")
    print(
        f"{'learner':<20}{'regret KB':>10}{'pickle KB':>11}{'gzipped':>9}"
        f"{'skops KB':>10}{'deflated':>10}"
    )
    sizes = {}
    for name, model in learners.items():
        model.fit(X, y)
        pickled = pickle.dumps(model)
        sizes[name] = len(pickled)
        regret = getattr(model, "regret_nbytes_", None)
        print(
            f"{name:<20}{'-' if regret is None else regret // 1024:>10}"
            f"{len(pickled) // 1024:>11}{len(gzip.compress(pickled)) // 1024:>9}"
            f"{len(sio.dumps(model)) // 1024:>10}"
            f"{len(sio.dumps(model, compression=zipfile.ZIP_DEFLATED)) // 1024:>10}",
            flush=True,
        )
    size = sizes["tree, external"]
    print(f"tree, external: {size:,} bytes; {verdict(size, 100_000)}\n")


def stream(n_rows: int) -> None:
    X, y = planted_stream(n_rows, 0)
    model = LocalRegretTreeClassifier(random_state=0)
    print(f"planted stream, 20 features, calls of 10,000 rows, {n_rows:,} rows")
    print(f"{'rows':>10}{'learn s':>9}{'sites':>7}{'regret KB':>11}{'pickle KB':>11}")
    chunk, start = 10_000, time.perf_counter()
    marks = {int(n_rows * f) // chunk * chunk for f in (0.01, 0.1, 0.25, 0.5)}
    marks.add(n_rows)
    for lo in range(0, n_rows, chunk):
        model.partial_fit(X[lo : lo + chunk], y[lo : lo + chunk], classes=[0, 1])
        seen = min(lo + chunk, n_rows)
        if seen in marks:
            size = len(pickle.dumps(model))
            print(
                f"{seen:>10,}{time.perf_counter() - start:>9.0f}{model.n_sites_:>7,}"
                f"{model.regret_nbytes_ // 1024:>11,}{size // 1024:>11,}",
                flush=True,
            )
    goal = "" if n_rows >= 1_000_000 else f" (at {n_rows:,} rows, not 1,000,000)"
    print(f"{size:,} bytes{goal}; {verdict(size, 2_000_000)}\n")


def wide(n_rows: int, n_features: int) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows + 1000, n_features))
    y = np.where(  # the planted tree of the stream, on the first 4 features
        X[:, 0] > 0.3,
        np.where(X[:, 1] > -0.5, 1, X[:, 2] > 0.8),
        np.where(X[:, 3] > 0.0, X[:, 1] > 1.0, 0),
    ).astype(int) ^ (rng.random(n_rows + 1000) < 0.05)
    X, X_test, y, y_test = X[:n_rows], X[n_rows:], y[:n_rows], y[n_rows:]
    print(f"wide dense input, {n_rows:,} x {n_features:,}; error on 1,000 more rows")
    print(
        f"{'refined_features':>17}{'tests':>7}{'sites':>7}{'regret MB':>11}"
        f"{'pickle MB':>11}{'learn s':>9}{'save s':>8}{'load s':>8}"
        f"{'predict 1 row s':>17}{'predict all s':>15}{'error':>7}"
    )
    for refined in ("auto", None):
        start = time.perf_counter()
        model = LocalRegretTreeClassifier(random_state=0, refined_features=refined)
        model.fit(X, y)
        learn = time.perf_counter() - start
        start = time.perf_counter()
        pickled = pickle.dumps(model)
        save = time.perf_counter() - start
        start = time.perf_counter()
        loaded = pickle.loads(pickled)
        load = time.perf_counter() - start
        times = []
        for rows in (X_test[:1], X_test):
            start = time.perf_counter()
            predicted = loaded.predict(rows)
            times.append(time.perf_counter() - start)
        print(
            f"{refined!s:>17}{model.test_features_.size:>7,}{model.n_sites_:>7,}"
            f"{model.regret_nbytes_ / 1e6:>11.1f}{len(pickled) / 1e6:>11.1f}"
            f"{learn:>9.1f}{save:>8.1f}{load:>8.1f}{times[0]:>17.3f}"
            f"{times[1]:>15.2f}{np.mean(predicted != y_test):>7.3f}"
        )
        if refined == "auto":
            size = len(pickled)
    print(f"default: {size:,} bytes; {verdict(size, 20_000_000, True)}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int_in_range(1, MUSHROOM_ROWS), default=400)
    parser.add_argument(
        "--stream-rows", type=int_in_range(1, MAX_STREAM_ROWS), default=1_000_000
    )
    parser.add_argument("--wide-rows", type=int_in_range(1, MAX_CELLS), default=2_000)
    parser.add_argument(
        "--wide-features", type=int_in_range(4, MAX_CELLS), default=5_000
    )
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["mushroom", "stream", "wide"],
        choices=["mushroom", "stream", "wide"],
    )
    args = parser.parse_args()
    if (args.wide_rows + 1000) * args.wide_features > MAX_CELLS:
        parser.error(
            f"(--wide-rows + 1000) x --wide-features: at most {MAX_CELLS:.0e} "
            f"(float64), got {args.wide_rows + 1000} x {args.wide_features}"
        )
    if "mushroom" in args.parts:
        mushroom(args.rows)
    if "stream" in args.parts:
        stream(args.stream_rows)
    if "wide" in args.parts:
        wide(args.wide_rows, args.wide_features)


if __name__ == "__main__":
    main()
