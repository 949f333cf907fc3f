"""Learners that forget: the tree learner's ``discount`` on drifting streams, one run.

Test-then-train (each round of 5 rows predicted, then learnt) on the named
streams of :mod:`sklearn_localregret.datasets.streams`: drifting (SEA and
STAGGER with abrupt drifts, Agrawal and LED with gradual ones, RandomRBF with
moving centroids), adversarial (labels alternating on one instance; a
disjunction of 3 of 20 boolean features with its labels inverted halfway) and,
to check that forgetting costs nothing where nothing changes, two stationary
ones (Phishing, Bananas). Learners in the same run:
``LocalRegretTreeClassifier(discount=d)`` for each ``--discounts`` value (1 is
the paper's algorithm), River's Hoeffding tree (HT) and Hoeffding adaptive tree
(HAT), ``SGDClassifier`` (log loss, standardised) and ``GaussianNB``.

Printed: the error over each stream; for every abrupt drift, the rows each
learner needs until its error over the last ``--window`` rows is back within 2
points of its level over the ``--window`` rows before the drift; a disjunct
task (the target disjunction of 20 boolean features switches halfway):
``LocalRegretDisjunctClassifier`` at each discount against Winnow2; and the
goals of the issue, checked. A PNG of the learning curves (error over the last
``--window`` rows, drift points marked) goes to ``--out``.

Run::

    python benchmarks/bench_drift.py [--discounts 1 0.99 0.95] [--out drift_results]
        [--window 250] [--seed 0]

(``--discounts`` in (0, 1]; ``--window`` 1 to 5,000, a stream's rows.)
Without River, its streams and learners are left out; the PNG needs
matplotlib.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _options import available_streams, discount_float, seed_int  # noqa: E402
from bench_tree_streams import Ours, RiverLearner, SkLearner, progressive  # noqa: E402
from sklearn.linear_model import SGDClassifier  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

from sklearn_localregret import LocalRegretDisjunctClassifier  # noqa: E402
from sklearn_localregret._arguments import int_in_range, output_folder  # noqa: E402
from sklearn_localregret.baselines import Winnow2Classifier  # noqa: E402
from sklearn_localregret.datasets import load_stream  # noqa: E402
from sklearn_localregret.datasets.streams import DEFAULT_ROWS  # noqa: E402

DRIFTING = ["sea", "stagger", "agrawal", "rbf-moving", "led-drift"]
ADVERSARIAL = ["alternating", "inverted"]
STATIONARY = ["phishing", "bananas"]


def learners(classes, seed, discounts):
    out = [Ours(classes, seed, discount=d) for d in discounts]
    for learner, d in zip(out, discounts):
        learner.name = f"ours d={d:g}"
    out += [
        SkLearner(
            "SGD",
            SGDClassifier(loss="log_loss", random_state=seed),
            classes,
            scale=True,
        ),
        SkLearner("GaussianNB", GaussianNB(), classes, scale=False),
    ]
    try:
        from river import tree

        out += [
            RiverLearner("HT", tree.HoeffdingTreeClassifier()),
            RiverLearner("HAT", tree.HoeffdingAdaptiveTreeClassifier(seed=seed)),
        ]
    except ImportError:
        print("(River is not installed: HT and HAT are skipped)")
    return out


def windowed(wrong, window):
    cum = np.concatenate(([0.0], np.cumsum(wrong)))
    rows = np.arange(1, len(wrong) + 1)
    start = np.maximum(rows - window, 0)
    return (cum[rows] - cum[start]) / (rows - start)


def recovery(wrong, point, window):
    """Rows after ``point`` until the windowed error is within 2 points of its
    level over the ``window`` rows before it (None: never, within the stream)."""
    before = wrong[max(point - window, 0) : point].mean()
    curve = windowed(wrong, window)
    for t in range(point + window, len(wrong) + 1):
        if curve[t - 1] <= before + 0.02:
            return t - point
    return None


def disjunct_switch(discounts, seed, n=20, rows=6000):
    """A target disjunction that switches halfway: error after the switch."""
    rng = np.random.default_rng(seed)
    X = (rng.random((rows, n)) < 0.15).astype(np.uint8)
    first, second = rng.choice(n, 3, replace=False), rng.choice(n, 3, replace=False)
    y = np.where(
        np.arange(rows) < rows // 2, X[:, first].any(axis=1), X[:, second].any(axis=1)
    ).astype(int)
    out = {}
    models = {
        f"disjunct d={d:g}": LocalRegretDisjunctClassifier(
            discount=d, random_state=seed
        )
        for d in discounts
    }
    models["Winnow2"] = Winnow2Classifier()
    for name, model in models.items():
        wrong = np.zeros(rows, dtype=bool)
        for lo in range(0, rows, 5):
            if lo:
                wrong[lo : lo + 5] = model.predict(X[lo : lo + 5]) != y[lo : lo + 5]
            else:
                wrong[:5] = y[:5] != 0
            model.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
        out[name] = (wrong[rows - 1000 :].mean(), recovery(wrong, rows // 2, 250))
    return out


def plot(curves, streams, window, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(curves)
    fig, axes = plt.subplots(3, 3, figsize=(14, 10))
    for ax, name in zip(axes.flat, names):
        for learner, wrong in curves[name].items():
            style = "-" if learner.startswith("ours") else "--"
            ax.plot(windowed(wrong, window), style, lw=1.2, label=learner)
        for point in streams[name].drift_points:
            ax.axvline(point, color="k", ls=":", lw=0.8)
        ax.set_title(name)
        ax.set_ylim(0, 1)
        ax.set_xlabel("rows")
        ax.set_ylabel(f"error over the last {window} rows")
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "drift.png", dpi=90)
    return out / "drift.png"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--discounts", type=discount_float, nargs="+", default=[1.0, 0.99, 0.95]
    )
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--window", type=int_in_range(1, DEFAULT_ROWS), default=250)
    parser.add_argument("--out", type=output_folder, default="drift_results")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("matplotlib") is None:
        parser.error("the learning curves' PNG needs matplotlib: pip install it")
    run = available_streams(parser, "", None, DRIFTING + ADVERSARIAL + STATIONARY)
    warnings.filterwarnings(
        "ignore", category=RuntimeWarning, module="sklearn.naive_bayes"
    )
    start = time.perf_counter()
    streams, curves, errors, recoveries = {}, {}, {}, {}
    for name in run:
        stream = streams[name] = load_stream(name, seed=args.seed)
        classes = stream.classes
        curves[name], errors[name] = {}, {}
        for learner in learners(classes, args.seed, args.discounts):
            wrong, _ = progressive(learner, stream.X, stream.y, 5)
            curves[name][learner.name] = wrong
            errors[name][learner.name] = wrong.mean()
            if stream.drift == "abrupt":
                recoveries.setdefault(name, {})[learner.name] = [
                    recovery(wrong, p, args.window) for p in stream.drift_points
                ]
        print(
            f"{name}: " + "  ".join(f"{k} {v:.3f}" for k, v in errors[name].items()),
            flush=True,
        )
    names = list(next(iter(errors.values())))
    print(
        f"\nerror over the whole stream (test-then-train, rounds of 5), seed "
        f"{args.seed}"
    )
    print(f"{'stream':<14}" + "".join(f"{n:>13}" for n in names))
    for name in errors:
        print(f"{name:<14}" + "".join(f"{errors[name][n]:>13.3f}" for n in names))
    print(
        f"\nrows to recover after each abrupt drift (within 2 points of the "
        f"{args.window} rows before; '-' = not within the stream)"
    )
    for name, by_learner in recoveries.items():
        for learner, values in by_learner.items():
            text = ", ".join("-" if v is None else str(v) for v in values)
            print(f"  {name:<12} {learner:<12} {text}")
    print(
        "\ndisjunction switching halfway (20 features): error over the last "
        "1000 rows, rows to recover"
    )
    for learner, (err, rec) in disjunct_switch(args.discounts, args.seed).items():
        print(f"  {learner:<16} {err:.3f}   {'-' if rec is None else rec}")
    png = plot(curves, streams, args.window, args.out)
    print(f"\nlearning curves: {png}")
    if "HAT" in names:
        print("\ngoals")
        for d in args.discounts:
            ours = f"ours d={d:g}"
            below = sum(errors[s][ours] < errors[s]["HAT"] for s in DRIFTING)
            lowest = [
                s for s in ADVERSARIAL if errors[s][ours] <= min(errors[s].values())
            ]
            print(
                f"  {ours}: below HAT on {below} of {len(DRIFTING)} drifting "
                f"streams (goal >= {len(DRIFTING) / 2:g}); lowest of all on "
                f"{len(lowest)} of {len(ADVERSARIAL)} adversarial streams "
                f"{lowest} (goal: both)"
            )
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
