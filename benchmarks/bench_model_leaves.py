"""Model leaves against label leaves, on every leaderboard stream, one run.

Test-then-train error (each round predicted, then learnt) of the tree learner
with label leaves only (``leaf_model=None``, the learner before model leaves),
with naive Bayes model leaves (``leaf_model="naive_bayes"``), both read as
their labels (``leaf_prediction="label"``), and at its defaults
(``leaf_model="auto"``: models from three classes on; adaptive leaf reads:
a leaf reads its site's model where that model leads), next to River's
``HoeffdingTreeClassifier`` (HT, naive Bayes adaptive leaves) on the same
rows when River is installed. Streams: the leaderboard's
(:func:`sklearn_localregret.datasets.streams.load_stream`, ``--rows`` rows,
``--seed``), in rounds of ``--batch`` rows; scikit-learn's ``digits`` (one
shuffled pass, one row per call: the issue's case), ``wine`` and
``breast_cancer`` (rows drawn with replacement, rounds of ``--batch``).
``--seeds 0 1 2`` prints the mean error over those seeds (each a stream
order and the learners' seed) and the seconds summed.

Run::

    python benchmarks/bench_model_leaves.py [--rows 5000] [--seed 0] [--batch 5]
        [--streams nursery,mushroom,...] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _options import seed_int, stream_list
from sklearn.datasets import load_breast_cancer, load_digits, load_wine

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_at_least, positive_int
from sklearn_localregret.datasets.streams import MIN_ROWS, load_stream, stream_names

LEARNERS = {
    "labels": {"leaf_model": None, "leaf_prediction": "label"},
    "models": {"leaf_model": "naive_bayes", "leaf_prediction": "label"},
    "default": {},
}


def test_then_train(make, X, y, batch):
    """Error and seconds of one learner over the stream."""
    classes = np.unique(y)
    model = make()
    wrong, start = 0, time.perf_counter()
    for lo in range(0, len(y), batch):
        if lo:
            wrong += int(
                (model.predict(X[lo : lo + batch]) != y[lo : lo + batch]).sum()
            )
        model.partial_fit(X[lo : lo + batch], y[lo : lo + batch], classes=classes)
    return wrong / len(y), time.perf_counter() - start


def hoeffding(X, y, batch):
    try:
        from river import tree
    except ImportError:
        return None
    model, wrong = tree.HoeffdingTreeClassifier(), 0
    keys = range(X.shape[1])
    for lo in range(0, len(y), batch):
        rows = [dict(zip(keys, x)) for x in X[lo : lo + batch].tolist()]
        if lo:
            wrong += sum(model.predict_one(r) != t for r, t in zip(rows, y[lo:]))
        for r, t in zip(rows, y[lo : lo + batch].tolist()):
            model.learn_one(r, t)
    return wrong / len(y)


def streams(args, seed):
    rng = np.random.default_rng(seed)
    names = args.streams or stream_names(available=True)
    for name in names:
        s = load_stream(name, n_rows=args.rows, seed=seed)
        yield name, np.asarray(s.X, float), np.asarray(s.y), args.batch
    X, y = load_digits(return_X_y=True)
    order = rng.permutation(len(y))
    yield "digits (1 row/call)", X[order], y[order], 1
    for loader in (load_wine, load_breast_cancer):
        X, y = loader(return_X_y=True)
        at = rng.integers(0, len(y), args.rows)
        yield loader.__name__[5:], X[at], y[at], args.batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int_at_least(MIN_ROWS), default=5000)
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--batch", type=positive_int, default=5)
    parser.add_argument("--streams", type=stream_list(allow_empty=True), default="")
    parser.add_argument("--seeds", type=seed_int, nargs="+", help="mean over seeds")
    args = parser.parse_args()
    seeds = args.seeds or [args.seed]
    warnings.filterwarnings("ignore")
    if len(seeds) > 1:
        print(f"mean over seeds {', '.join(map(str, seeds))}")
    print(f"{'stream':22s} {'K':>3s}", *(f"{n:>14s}" for n in LEARNERS), "     HT")
    # Untimed: the compiled kernels load on a learner's first rounds, which
    # would otherwise be charged to the first stream's first column.
    rng = np.random.default_rng(0)
    for n_classes in (2, 3):
        X_warm = rng.normal(size=(300, 4))
        y_warm = rng.integers(0, n_classes, 300)
        for params in LEARNERS.values():
            test_then_train(
                lambda params=params: LocalRegretTreeClassifier(**params),
                X_warm, y_warm, args.batch,
            )  # fmt: skip
    # The same stream under every seed, stream by stream.
    for runs in zip(*(streams(args, seed) for seed in seeds)):
        errors = np.zeros((len(runs), len(LEARNERS)))
        seconds = np.zeros(len(LEARNERS))
        ht_errors = []
        for i, (seed, (name, X, y, batch)) in enumerate(zip(seeds, runs)):
            for j, params in enumerate(LEARNERS.values()):

                def make(params=params, seed=seed):
                    return LocalRegretTreeClassifier(random_state=seed, **params)

                errors[i, j], took = test_then_train(make, X, y, batch)
                seconds[j] += took
            ht_errors.append(hoeffding(X, y, batch))
        ht = None if ht_errors[0] is None else float(np.mean(ht_errors))
        cells = [f"{e:.3f} ({s:4.1f}s)" for e, s in zip(errors.mean(axis=0), seconds)]
        print(
            f"{name:22s} {len(np.unique(y)):3d}",
            *(f"{c:>14s}" for c in cells),
            "   -  " if ht is None else f"{ht:7.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
