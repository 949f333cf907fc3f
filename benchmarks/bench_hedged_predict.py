"""The hedged ``predict`` against the vote and the play, on the leaderboard's streams.

Test-then-train as the stream leaderboard runs it (``python -m
sklearn_localregret streams``: the same streams, rows, seeds and calls of 10
rows), for ``LocalRegretTreeClassifier()`` and
``LocalRegretDisjunctClassifier()`` at their defaults (the disjunct learner
is binary: it skips the multi-class streams, which get no line for it,
nor a place in its goals). The three predictions
are of one and the same model: it learns with ``prediction="hedge"`` (which
only scores the rounds, it draws nothing), and each round is predicted with
``prediction`` set to ``"vote"`` (the landed default before the hedge),
``"sample"`` (a class drawn from ``pi``, as the randomised plays predict) and
``"hedge"`` in turn, before it is learnt. So the differences are paired: the
same trees, the same rows.

Printed per stream: the three errors (means over the seeds), the errors of
the hedge's further experts alone (the tree's root models: the root site's
naive Bayes model where the sites keep models, Gaussian naive Bayes and a
passive-aggressive linear model of the numeric columns; the disjunct
learner's linear model of its 0/1 features; "-" where there is none), hedge
minus vote,
the hedge's final weights of the vote and of the root models, and the goals
of the issue: on the
``alternating`` stream ``predict`` error <= 0.52; no stream worse than the
vote (the landed default) by more than 0.005. Without River, the streams
built with it are left out of the default ``--streams``.

Run::

    python benchmarks/bench_hedged_predict.py [--seeds 3] [--rows 3000]
        [--batch-size 10] [--learners tree disjunct] [--streams alternating ...]
        [--learner-batch-size 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _options import available_streams

from sklearn_localregret import (
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
)
from sklearn_localregret._arguments import int_in_range, positive_int
from sklearn_localregret.datasets import load_stream
from sklearn_localregret.datasets.streams import MIN_ROWS, STREAMS

MODES = ("vote", "sample", "hedge")
MAX_SEEDS = 1000
MAX_ROWS = 1_000_000
LEARNERS = {
    "tree": LocalRegretTreeClassifier,
    "disjunct": LocalRegretDisjunctClassifier,
}


ROOT_MODELS = ("model", "gaussian", "linear")  # the tree's further experts


def paired_errors(make, stream, batch_size):
    """Errors of the three predictions of one model and of each of its root
    models alone (NaN where it has none), test-then-train; the final
    weights of the vote and of the root models."""
    est = make()
    X, y = stream.X, stream.y
    wrong = dict.fromkeys((*MODES, *ROOT_MODELS), 0)
    for lo in range(0, len(y), batch_size):
        rows = slice(lo, lo + batch_size)
        if lo == 0:  # no model yet: every prediction counts as a mistake
            for mode in wrong:
                wrong[mode] += len(y[rows])
        else:
            for mode in MODES:
                est.prediction = mode
                wrong[mode] += int((est.predict(X[rows]) != y[rows]).sum())
            block = None
            for k, name in enumerate(_root_models(est)):
                if block is None:
                    block = est._validate_for_predict(X[rows])
                labels = est.classes_[est._expert_labels(k, block)]
                wrong[name] += int((labels != y[rows]).sum())
        est.prediction = "hedge"
        est.partial_fit(X[rows], y[rows], classes=stream.classes)
    errors = {mode: wrong[mode] / len(y) for mode in wrong}
    weights = {"vote": est.vote_weight_}
    for name in ROOT_MODELS:
        if name not in _root_models(est):
            errors[name] = float("nan")
        weights[name] = (
            getattr(est, f"{name}_weight_") if name in _root_models(est) else 0.0
        )
    return errors, weights


def _root_models(est) -> tuple:
    """The names of the hedge's experts after the vote and the play."""
    if est.__dict__.get("_hedge") is None or not hasattr(est, "_expert_names"):
        return ()
    return est._expert_names()[2:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int_in_range(1, MAX_SEEDS), default=3)
    parser.add_argument("--rows", type=int_in_range(MIN_ROWS, MAX_ROWS), default=3000)
    parser.add_argument(
        "--batch-size", type=positive_int, default=10, help="rows per call"
    )
    parser.add_argument(
        "--learner-batch-size",
        type=positive_int,
        default=None,
        help="the learners' batch_size (rows per round; default: theirs)",
    )
    parser.add_argument(
        "--streams",
        nargs="+",
        choices=list(STREAMS),
        metavar="NAME",
        help="named streams (default: all)",
    )
    parser.add_argument(
        "--learners", nargs="+", default=list(LEARNERS), choices=list(LEARNERS)
    )
    args = parser.parse_args()
    args.streams = available_streams(parser, "--streams", args.streams, STREAMS)
    worst = {}
    alternating = {}
    print(
        f"{'learner':9} {'stream':15} {'vote':>6} {'sample':>6} {'hedge':>6} "
        f"{'model':>6} {'gauss':>6} {'linear':>6} {'h-v':>7} {'w_vote':>6} "
        f"{'w_model':>7} {'w_gauss':>7} {'w_lin':>6} {'s':>5}"
    )
    for learner in args.learners:
        for name in args.streams:
            errors = {mode: [] for mode in (*MODES, *ROOT_MODELS)}
            weights = {mode: [] for mode in ("vote", *ROOT_MODELS)}
            start = time.perf_counter()
            skipped = False
            for seed in range(args.seeds):
                stream = load_stream(name, n_rows=args.rows, seed=seed)
                if learner == "disjunct" and len(stream.classes) > 2:
                    skipped = True
                    break
                params = {"random_state": seed}
                if args.learner_batch_size is not None:
                    params["batch_size"] = args.learner_batch_size
                e, w = paired_errors(
                    lambda p=params: LEARNERS[learner](**p),
                    stream,
                    args.batch_size,
                )
                for mode in errors:
                    errors[mode].append(e[mode])
                for mode in weights:
                    weights[mode].append(w[mode])
            if skipped:
                continue
            mean = {mode: float(np.mean(errors[mode])) for mode in errors}
            alone = [
                "-" if np.isnan(mean[m]) else f"{mean[m]:6.3f}" for m in ROOT_MODELS
            ]
            diff = mean["hedge"] - mean["vote"]
            worst[(learner, name)] = diff
            if name == "alternating":
                alternating[learner] = mean["hedge"]
            w = {mode: float(np.mean(weights[mode])) for mode in weights}
            print(
                f"{learner:9} {name:15} {mean['vote']:6.3f} {mean['sample']:6.3f} "
                f"{mean['hedge']:6.3f} {alone[0]:>6} {alone[1]:>6} {alone[2]:>6} "
                f"{diff:+7.3f} {w['vote']:6.3f} {w['model']:7.3f} "
                f"{w['gaussian']:7.3f} {w['linear']:6.3f} "
                f"{time.perf_counter() - start:5.0f}",
                flush=True,
            )
    print()
    for learner, err in alternating.items():
        verdict = "met" if err <= 0.52 else "NOT met"
        print(f"goal: {learner} alternating predict error {err:.3f} <= 0.52: {verdict}")
    if worst:
        (learner, name), diff = max(worst.items(), key=lambda kv: kv[1])
        verdict = "met" if diff <= 0.005 else "NOT met"
        print(
            f"goal: no stream worse than the vote by more than 0.005: worst "
            f"{learner} on {name} {diff:+.3f}: {verdict}"
        )


if __name__ == "__main__":
    main()
