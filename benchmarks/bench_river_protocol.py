"""River's own benchmark protocol: progressive validation over whole datasets.

``river.evaluate.progressive_val_score`` with ``metrics.Accuracy()`` over the
whole of River's bundled Phishing (1,250 rows), Bananas (5,300) and
ImageSegments (2,310), one row at a time in River's order, as River's
published benchmarks run: our tree and forest through
:class:`~sklearn_localregret.river.RiverAdapter` (default parameters) next to
River's ``HoeffdingTreeClassifier`` and ``ARFClassifier`` (default
parameters, ``seed`` set) measured in the same run. The issues' goals quote
River's published accuracies; they are printed for reference (River's
benchmark page, ARF with its default 10 models), not measured here.

Run::

    python benchmarks/bench_river_protocol.py [--seeds 42 1 2]
        [--learners tree forest HT ARF] [--datasets Phishing Bananas ImageSegments]

The last column gives each seed's accuracy, in the order of ``--seeds``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier

DATASETS = ["Phishing", "Bananas", "ImageSegments"]
# River's published accuracies (its benchmark page, as the issues quote
# them), for reference.
PUBLISHED = {
    "HT": {"Phishing": "88.0", "Bananas": "64.2", "ImageSegments": "77.6"},
    "ARF": {"Phishing": "90.79", "Bananas": "88.70", "ImageSegments": "81.85"},
}


def make(name: str, seed: int):
    from river import forest, tree

    from sklearn_localregret.river import RiverAdapter

    if name == "tree":
        return RiverAdapter(LocalRegretTreeClassifier(random_state=seed))
    if name == "forest":
        return RiverAdapter(LocalRegretForestClassifier(random_state=seed))
    if name == "HT":
        return tree.HoeffdingTreeClassifier()
    if name == "ARF":
        return forest.ARFClassifier(seed=seed)
    raise ValueError(f"unknown learner {name!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[42])
    parser.add_argument(
        "--learners",
        nargs="+",
        default=["tree", "forest", "HT", "ARF"],
        choices=["tree", "forest", "HT", "ARF"],
    )
    parser.add_argument("--datasets", nargs="+", default=DATASETS, choices=DATASETS)
    args = parser.parse_args()
    from river import datasets, evaluate, metrics

    print(f"accuracy (%), mean over seeds {', '.join(map(str, args.seeds))}")
    header = ("dataset", "learner", "accuracy", "seconds", "published", "per seed")
    print("{:15s} {:8s} {:>9s} {:>8s} {:>10s}  {}".format(*header))
    for dataset in args.datasets:
        for name in args.learners:
            accuracies, start = [], time.perf_counter()
            for seed in args.seeds:
                model = make(name, seed)
                score = evaluate.progressive_val_score(
                    getattr(datasets, dataset)(), model, metrics.Accuracy()
                )
                accuracies.append(100 * score.get())
            seconds = time.perf_counter() - start
            published = PUBLISHED.get(name, {}).get(dataset, "")
            print(
                f"{dataset:15s} {name:8s} {np.mean(accuracies):9.2f} "
                f"{seconds:8.1f} {published:>10s}  "
                + " ".join(f"{a:.2f}" for a in accuracies),
                flush=True,
            )


if __name__ == "__main__":
    main()
