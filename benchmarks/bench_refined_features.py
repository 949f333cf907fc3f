"""Refining every feature's thresholds or only the features the sites draw.

``refined_features`` (issue 31, wide input): every numeric feature gets its
median, and each later threshold checkpoint refines at most that many
features. One run of each setting, ``random_state=0``, printed as error,
tests, sites, pickle MB and learning seconds:

* ``planted``: 2,000 rows of 5,000 standard normal features labelled by the
  planted tree of ``bench_model_size.py`` (4 features, 5% noise); error on
  1,000 more rows.
* ``make_classification``: 2,000 rows of 1,000 features (50 informative) and
  of 500 features (10 informative), ``n_redundant=0``, ``random_state=0``;
  error on 1,000 more rows.
* ``digits``: one shuffled pass over scikit-learn's digits at one row per
  call, test-then-train error, mean of seeds 0, 1, 2 (as
  ``bench_model_leaves.py``).

Run::

    python benchmarks/bench_refined_features.py [--parts planted classification digits]
"""

from __future__ import annotations

import argparse
import pickle
import time

import numpy as np
from bench_model_leaves import test_then_train
from sklearn.datasets import load_digits, make_classification

from sklearn_localregret import LocalRegretTreeClassifier


def planted(n_rows: int, n_features: int):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, n_features))
    y = np.where(
        X[:, 0] > 0.3,
        np.where(X[:, 1] > -0.5, 1, X[:, 2] > 0.8),
        np.where(X[:, 3] > 0.0, X[:, 1] > 1.0, 0),
    ).astype(int) ^ (rng.random(n_rows) < 0.05)
    return X, y


def held_out(name: str, X, y, settings) -> None:
    X, X_test, y, y_test = X[:-1000], X[-1000:], y[:-1000], y[-1000:]
    for refined in settings:
        start = time.perf_counter()
        model = LocalRegretTreeClassifier(random_state=0, refined_features=refined)
        model.fit(X, y)
        learn = time.perf_counter() - start
        error = np.mean(model.predict(X_test) != y_test)
        print(
            f"{name:<40}{refined!s:>9}{error:>8.3f}{model.test_features_.size:>8,}"
            f"{model.n_sites_:>7,}{len(pickle.dumps(model)) / 1e6:>11.1f}{learn:>9.1f}",
            flush=True,
        )


def digits(settings) -> None:
    X, y = load_digits(return_X_y=True)
    for refined in settings:
        errors, seconds = [], 0.0
        for seed in (0, 1, 2):
            order = np.random.default_rng(seed).permutation(len(y))
            error, took = test_then_train(
                lambda: LocalRegretTreeClassifier(
                    random_state=seed, refined_features=refined
                ),
                X[order],
                y[order],
                1,
            )
            errors.append(error)
            seconds += took
        print(
            f"{'digits, 1 row/call, 3 seeds':<40}{refined!s:>9}"
            f"{np.mean(errors):>8.3f}{'':>26}{seconds:>9.1f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = ["planted", "classification", "digits"]
    parser.add_argument("--parts", nargs="+", default=parts, choices=parts)
    args = parser.parse_args()
    print(
        f"{'input':<40}{'refined':>9}{'error':>8}{'tests':>8}{'sites':>7}"
        f"{'pickle MB':>11}{'learn s':>9}"
    )
    if "planted" in args.parts:
        X, y = planted(3000, 5000)
        held_out("planted, 2,000 x 5,000", X, y, (32, 64, 128, None))
    if "classification" in args.parts:
        for n_features, informative in ((1000, 50), (500, 10)):
            X, y = make_classification(
                3000, n_features, n_informative=informative, n_redundant=0,
                random_state=0,
            )  # fmt: skip
            name = f"classification, {n_features:,} ({informative} informative)"
            held_out(name, X, y, (32, None))
    if "digits" in args.parts:
        digits((8, 16, 32, None))


if __name__ == "__main__":
    main()
