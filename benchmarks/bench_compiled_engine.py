"""The tree learner on the compiled engine: the goals of issue 25, one run.

Every learner sees the same rows in the same run.

1. Test-then-train (``predict`` then ``partial_fit``, progressive validation)
   of ``LocalRegretTreeClassifier()`` at default parameters against River's
   ``HoeffdingTreeClassifier`` (HT: ``predict_one`` then ``learn_one``) at 1
   and 5 rows per call, on mushroom (117 one-hot features), a 20-feature
   numeric stream (``make_classification``; both as in
   ``bench_stream_loop.py``) and one shuffled pass over digits (64 features,
   10 classes), ours and HT in lockstep (``bench_stream_loop.
   ours_and_ht_lockstep``: in turns of 50 calls). Goals: >= 1x HT's rows/s
   at 1 row per call, >= 3x at 5.
2. One bulk ``fit`` on each stream against HT's ``learn_one`` over the same
   rows. Goal: >= 10x.
3. ``pi_proba`` of one row (exact, input validation included; the median
   of 200 calls on different rows) of the models fitted in 2, and
   ``predict_proba`` (the same but on rows a root model of the hedge
   predicts). Goals (the exact walk): <= 10 us on the numeric stream, <= 100
   us on digits.
4. The floor of the API: scikit-learn's own incremental learners,
   ``SGDClassifier`` and ``GaussianNB`` at default parameters, in the same
   test-then-train loops as (1) (``predict`` then ``partial_fit``, in
   lockstep with HT), and the one-row ``predict_proba`` of a fitted
   ``GaussianNB`` and ``DecisionTreeClassifier``: what a call costs a
   scikit-learn estimator whose arithmetic is a few dozen operations a row,
   against the goals of (1) and (3). (GaussianNB's first one-row calls
   leave it zero variances: its errors there are its own.)

The errors of (1) are those of the Python engine before the kernels: the
kernels play the same trees for the same seed (``tests/test_tree_rounds_
fixture.py``). Compile times: ``bench_compile.py``. Every part compares
with River (``pip install river``). Run::

    python benchmarks/bench_compiled_engine.py [--rows 2000] [--seed 0]

(``--rows``: rows of the mushroom and numeric streams, 2 to 100,000.)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

# The same streams and loops as bench_stream_loop (this folder is on sys.path
# when a script of it runs).
from _options import require_river, seed_int
from bench_stream_loop import ours_and_ht_lockstep, streams, wilson
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range

LOOP_GOALS = {1: 1.0, 5: 3.0}  # x HT's rows/s, by rows per call
BULK_GOAL = 10.0  # x HT's rows/s
PROBA_GOALS_US = {"numeric (20 features)": 10.0, "digits (10 classes)": 100.0}
#: Most rows of a stream: River's learners read them as dicts (kB each).
MAX_ROWS = 100_000


def all_streams(n_rows: int, seed: int) -> dict:
    data = streams(n_rows, seed)
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(y))
    data["digits (10 classes)"] = (X[order].astype(float), y[order])
    return data


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def loop_section(data: dict, seed: int) -> None:
    print("1. test-then-train (predict, then partial_fit), defaults")
    header = (
        f"{'stream':24} {'rows/call':>9} {'learner':>8} {'rows/s':>8} "
        f"{'x HT':>6} {'error [95% CI]':>22} {'goal':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, (X, y) in data.items():
        for per_call in (1, 5):
            (seconds, wrong, _, _), (ht_seconds, ht_wrong) = ours_and_ht_lockstep(
                lambda: LocalRegretTreeClassifier(random_state=seed), X, y, per_call
            )
            n = len(y)
            ratio = ht_seconds / seconds
            goal = verdict(ratio >= LOOP_GOALS[per_call])
            for learner, s, w, mark in (
                ("ours", seconds, wrong, goal),
                ("river HT", ht_seconds, ht_wrong, ""),
            ):
                lo, hi = wilson(w, n)
                print(
                    f"{name:24} {per_call:>9} {learner:>8} {n / s:>8,.0f} "
                    f"{ht_seconds / s:>5.2f}x {w / n:.3f} [{lo:.3f}, {hi:.3f}] "
                    f"{mark:>6}"
                )
    print()


def bulk_section(data: dict, seed: int) -> dict:
    from river.tree import HoeffdingTreeClassifier

    print("2. one bulk fit against HT's learn_one over the same rows")
    fitted = {}
    for name, (X, y) in data.items():
        rows, labels = [dict(enumerate(x)) for x in X.tolist()], y.tolist()
        ht = HoeffdingTreeClassifier()
        start = time.perf_counter()
        for x, label in zip(rows, labels):
            ht.learn_one(x, label)
        ht_seconds = time.perf_counter() - start
        start = time.perf_counter()
        model = LocalRegretTreeClassifier(random_state=seed).fit(X, y)
        seconds = time.perf_counter() - start
        fitted[name] = (model, X)
        ratio = ht_seconds / seconds
        print(
            f"  {name:24} ours {len(y) / seconds:>9,.0f} rows/s, HT "
            f"{len(y) / ht_seconds:>7,.0f}: {ratio:5.1f}x "
            f"(goal >= {BULK_GOAL:g}x: {verdict(ratio >= BULK_GOAL)})"
        )
    print()
    return fitted


def _median_us(method, X) -> float:
    times = []
    for i in range(200):
        row = X[i % len(X) : i % len(X) + 1]
        start = time.perf_counter()
        method(row)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e6


def proba_section(fitted: dict) -> None:
    print(
        "3. one row's probabilities (validation included; median): pi_proba, "
        "the exact walk, and predict_proba, which gives a root model's "
        "posterior on the rows it predicts"
    )
    for name, (model, X) in fitted.items():
        exact = _median_us(model.pi_proba, X)
        hedged = _median_us(model.predict_proba, X)
        goal = PROBA_GOALS_US.get(name)
        note = f" (goal <= {goal:g} us: {verdict(exact <= goal)})" if goal else ""
        print(
            f"  {name:24} pi_proba {exact:6.1f} us, predict_proba {hedged:6.1f} us, "
            f"{model.n_sites_} sites{note}"
        )


#: scikit-learn's incremental learners of section 4, by name.
API_PEERS = {
    "SGDClassifier": lambda seed: SGDClassifier(random_state=seed),
    "GaussianNB": lambda seed: GaussianNB(),
}


def api_floor_section(data: dict, seed: int) -> None:
    print(
        "\n4. the API's floor: scikit-learn's incremental learners in the loops "
        "of 1 (lockstep with HT), and one row's predict_proba of fitted peers"
    )
    # GaussianNB's first one-row calls give it zero variances (its own
    # warnings, and its errors): the loops time its calls all the same.
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, (X, y) in data.items():
            for per_call in (1, 5):
                for peer, make in API_PEERS.items():
                    (seconds, wrong, _, _), (ht_seconds, _) = ours_and_ht_lockstep(
                        lambda make=make: make(seed), X, y, per_call
                    )
                    print(
                        f"  {name:24} {per_call} row(s)/call {peer:14} "
                        f"{len(y) / seconds:>8,.0f} rows/s "
                        f"{ht_seconds / seconds:5.2f}x HT, error {wrong / len(y):.3f}"
                    )
            for peer, model in (
                ("GaussianNB", GaussianNB().fit(X, y)),
                (
                    "DecisionTreeClassifier",
                    DecisionTreeClassifier(random_state=seed).fit(X, y),
                ),
            ):
                print(
                    f"  {name:24} one row's predict_proba, {peer:22} "
                    f"{_median_us(model.predict_proba, X):6.1f} us"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int_in_range(2, MAX_ROWS), default=2000)
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args()
    require_river(parser, "every part compares with River's HoeffdingTreeClassifier")
    data = all_streams(args.rows, args.seed)
    LocalRegretTreeClassifier().fit(*data["digits (10 classes)"])  # compiled
    loop_section(data, args.seed)
    proba_section(bulk_section(data, args.seed))
    api_floor_section(data, args.seed)


if __name__ == "__main__":
    main()
