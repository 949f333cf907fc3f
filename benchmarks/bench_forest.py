"""Test-then-train error and speed of the forest against our tree and River's ARF.

Every learner sees the same named streams (:mod:`sklearn_localregret.datasets.
streams`, River's generators and bundled datasets included) in rounds of
``--batch`` rows: each round is predicted first, then learnt. Learners:

* ``tree``: ``LocalRegretTreeClassifier()`` at its defaults;
* ``forest``: ``LocalRegretForestClassifier(n_estimators=N)`` (and every
  ``--forest`` variant, e.g. ``--forest max_features=None lambda_value=1``);
* ``ARF``: River's ``forest.ARFClassifier(n_models=N)``, ``HT``: River's
  ``tree.HoeffdingTreeClassifier()`` (River: ``predict_one`` then
  ``learn_one`` per row), when River is installed.

Printed per stream: the error over the whole stream (mean over ``--seeds``,
each seed a new stream order and learner seed), its 95% interval (Wilson, on
the rows of all seeds), and rows per second of the whole loop (predict and
learn). ``--reset`` instead measures item 3 of issue 27 on the drifting
streams: the forest forgetting by discounting only (``drift_detector=None``),
with its members' drift detectors (``"adwin"``, the default), and an oracle
that replaces the whole forest by a fresh one at every true drift point (the
best any drift detector that resets members could do), on the error of the
``--window`` rows after each drift ("n/a" on a stream without drifts) and
over the stream.

Run::

    python benchmarks/bench_forest.py [--quick] [--rows 5000] [--batch 5]
        [--seeds 0 1] [--n-estimators 10] [--learners tree forest ARF HT]
        [--forest max_features=0.5 ...] [--streams phishing sea ...]
    python benchmarks/bench_forest.py --reset [--quick] [--window 500]
        [--rows, --batch, --seeds, --n-estimators, --forest, --streams as above]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import time

import numpy as np
from _options import estimator_params, seed_int

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._arguments import (
    int_at_least,
    positive_int,
)
from sklearn_localregret.datasets.streams import MIN_ROWS, load_stream
from sklearn_localregret.datasets.streams import STREAMS as NAMED_STREAMS

STREAMS = [
    "phishing",
    "bananas",
    "image-segments",
    "sea",
    "stagger",
    "agrawal",
    "led-drift",
    "alternating",
]
QUICK_STREAMS = ["phishing", "bananas", "sea", "stagger"]
DRIFTING = ["sea", "stagger", "agrawal", "led-drift", "inverted"]


class Ours:
    def __init__(self, model, classes):
        self.model, self.classes = model, classes

    def predict(self, X):
        if not hasattr(self.model, "classes_"):
            return np.full(len(X), self.classes[0])
        return self.model.predict(X)

    def learn(self, X, y):
        self.model.partial_fit(X, y, classes=self.classes)


class River:
    def __init__(self, model):
        self.model = model

    def predict(self, X):
        out = [self.model.predict_one(dict(enumerate(x))) for x in X.tolist()]
        return np.array([o if o is not None else -1 for o in out], dtype=object)

    def learn(self, X, y):
        for x, label in zip(X.tolist(), y.tolist()):
            self.model.learn_one(dict(enumerate(x)), label)


def make_learner(name, spec, classes, seed, n_estimators):
    if name == "tree":
        return Ours(LocalRegretTreeClassifier(random_state=seed), classes)
    if name == "forest":
        model = LocalRegretForestClassifier(n_estimators, random_state=seed, **spec)
        return Ours(model, classes)
    if name == "ARF":
        from river import forest

        return River(forest.ARFClassifier(n_models=n_estimators, seed=seed))
    from river import tree

    return River(tree.HoeffdingTreeClassifier())


def progressive(learner, X, y, batch, restart_at=(), restart=None):
    """Mistakes per row (test-then-train) and seconds of the whole loop.

    ``restart(learner)`` gives a fresh learner at each row of ``restart_at``
    (a multiple of ``batch`` is not needed: the round is cut there).
    """
    wrong = np.zeros(len(y), dtype=bool)
    cuts = sorted(set(range(0, len(y), batch)) | set(restart_at))
    seconds = 0.0
    for lo, hi in zip(cuts, cuts[1:] + [len(y)]):
        start = time.perf_counter()
        if lo in restart_at:
            learner = restart()
        wrong[lo:hi] = np.asarray(learner.predict(X[lo:hi])) != y[lo:hi]
        learner.learn(X[lo:hi], y[lo:hi])
        seconds += time.perf_counter() - start
    return wrong, seconds


def wilson(k, n, z=1.96):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def warm_up(configs, batch, n_estimators):
    """Untimed: the compiled kernels load on a learner's first rounds, which
    would otherwise be charged to the first learner timed (on 200 rows of
    phishing, the tree, timed first, read 590 rows/s and a forest of two
    trees after it 4,845). Each of our ``(name, spec)`` on small synthetic
    streams: numeric and 0/1 columns, two and three classes."""
    rng = np.random.default_rng(0)
    for n_classes in (2, 3):
        y = rng.integers(0, n_classes, 300)
        for X in (rng.normal(size=(300, 4)), rng.integers(0, 2, (300, 4), np.uint8)):
            for name, spec in configs:
                classes = np.arange(n_classes)
                learner = make_learner(name, spec, classes, 0, n_estimators)
                progressive(learner, X, y, batch)


def run_suite(args, variants):
    names = []
    for learner in args.learners:
        if learner == "forest":
            names += [("forest", spec) for spec in variants]
        elif learner in ("ARF", "HT") and not args.river:
            continue
        else:
            names.append((learner, {}))
    print(
        f"test-then-train, rounds of {args.batch} rows, seeds {args.seeds}, "
        f"{args.n_estimators} trees in the forests"
    )
    header = f"{'stream':15s} {'learner':34s} {'error':>7s} {'95% interval':>15s} "
    print(header + f"{'rows/s':>8s}")
    ours = [(name, spec) for name, spec in names if name in ("tree", "forest")]
    warm_up(ours, args.batch, args.n_estimators)
    summary = {}
    for stream in args.streams:
        for name, spec in names:
            wrong, seconds, n = [], 0.0, 0
            for seed in args.seeds:
                s = load_stream(stream, n_rows=args.rows, seed=seed)
                learner = make_learner(name, spec, s.classes, seed, args.n_estimators)
                w, t = progressive(learner, s.X, s.y, args.batch)
                wrong.append(w)
                seconds += t
                n += len(w)
            k = int(sum(w.sum() for w in wrong))
            error = float(np.mean([w.mean() for w in wrong]))
            low, high = wilson(k, n)
            label = name + (f"({' '.join(f'{a}={b!r}' for a, b in spec.items())})")
            summary[(stream, label)] = error
            print(
                f"{stream:15s} {label:34s} {error:7.3f} [{low:.3f}, {high:.3f}] "
                f"{n / seconds:8.0f}",
                flush=True,
            )
    return summary


def run_reset(args, variants):
    """Item 3: discounting alone, the members' drift detectors, and an oracle
    that resets the whole forest at the true drifts."""
    spec = variants[0]
    modes = {
        "kept": ({**spec, "drift_detector": None}, False),
        "detector": ({**spec, "drift_detector": "adwin"}, False),
        "reset": ({**spec, "drift_detector": None}, True),
    }
    print(
        f"forest({spec}): discounting only (kept), with ADWIN per member "
        f"(detector), and replaced by a fresh forest at every true drift point "
        f"(reset); error of the {args.window} rows after each drift and of the "
        f"whole stream, seeds {args.seeds}"
    )
    print(
        f"{'stream':12s} {'drifts':>6s} {'after: kept':>12s} {'detector':>9s} "
        f"{'reset':>6s} {'all: kept':>10s} {'detector':>9s} {'reset':>6s}"
    )
    forests = [("forest", params) for params, _ in modes.values()]
    warm_up(forests, args.batch, args.n_estimators)
    for stream in args.streams:
        after = {mode: [] for mode in modes}
        whole = {mode: [] for mode in modes}
        points = ()
        for seed in args.seeds:
            s = load_stream(stream, n_rows=args.rows, seed=seed)
            points = tuple(int(p) for p in s.drift_points)
            for mode, (params, oracle) in modes.items():

                def fresh(s=s, seed=seed, params=params):
                    return make_learner(
                        "forest", params, s.classes, seed, args.n_estimators
                    )

                cuts = points if oracle else ()
                w, _ = progressive(fresh(), s.X, s.y, args.batch, cuts, fresh)
                whole[mode].append(w.mean())
                after[mode] += [w[p : p + args.window].mean() for p in points]
        # n/a: a stream without drifts has no rows after one.
        a = [f"{np.mean(after[m]):.3f}" if points else "n/a" for m in modes]
        w = [np.mean(whole[m]) for m in modes]
        print(
            f"{stream:12s} {len(points):6d} {a[0]:>12s} {a[1]:>9s} {a[2]:>6s} "
            f"{w[0]:10.3f} {w[1]:9.3f} {w[2]:6.3f}",
            flush=True,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 streams, 1500 rows")
    parser.add_argument("--rows", type=int_at_least(MIN_ROWS), default=None)
    parser.add_argument("--batch", type=positive_int, default=5)
    parser.add_argument("--seeds", type=seed_int, nargs="+", default=[0])
    parser.add_argument("--n-estimators", type=positive_int, default=10)
    parser.add_argument(
        "--streams",
        nargs="+",
        default=None,
        choices=list(NAMED_STREAMS),
        metavar="NAME",
    )
    parser.add_argument(
        "--learners",
        nargs="+",
        default=["tree", "forest", "ARF", "HT"],
        choices=["tree", "forest", "ARF", "HT"],
    )
    parser.add_argument(
        "--forest",
        action="append",
        default=None,
        metavar="'NAME=VALUE ...'",
        help="a forest variant (repeatable); the defaults when absent",
    )
    parser.add_argument("--reset", action="store_true", help="item 3: drift resets")
    parser.add_argument("--window", type=positive_int, default=500)
    args = parser.parse_args(argv)
    args.river = importlib.util.find_spec("river") is not None
    if args.rows is None:
        args.rows = 1500 if args.quick else 5000
    if args.streams is None:
        if args.reset:
            args.streams = DRIFTING[:2] if args.quick else DRIFTING
        else:
            args.streams = QUICK_STREAMS if args.quick else STREAMS
    if not args.river:
        print("(River is not installed: its streams and learners are skipped)")
        args.streams = [s for s in args.streams if s in ("alternating", "inverted")]
    variants = [
        estimator_params(
            parser,
            "--forest",
            text.split(),
            LocalRegretForestClassifier,
            reserved=["n_estimators", "random_state"],
        )
        for text in (args.forest or [""])
    ]
    if args.reset:
        run_reset(args, variants)
    else:
        run_suite(args, variants)


if __name__ == "__main__":
    main()
