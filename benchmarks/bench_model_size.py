"""Size of a saved model: pickle and skops, plain and compressed, one run.

Each learner (default parameters; the tree also with ``regret="swap", L=3``)
is fitted on the first ``--rows`` rows of mushroom (one-hot, 117 boolean
features); printed are the bytes of ``pickle.dumps``, the same gzipped,
``skops.io.dumps`` and the same with ``compression=zipfile.ZIP_DEFLATED``,
and the learner's regret state (``regret_nbytes_`` where it has one).

Run::

    python benchmarks/bench_model_size.py [--rows 400]
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import zipfile

import numpy as np
import skops.io as sio

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret.datasets import load_mushroom


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400)
    args = parser.parse_args()
    X, y = load_mushroom(return_X_y=True, one_hot=True)
    X, y = np.asarray(X)[: args.rows], np.asarray(y)[: args.rows]
    learners = {
        "tree, external": LocalRegretTreeClassifier(random_state=0),
        "tree, swap L=3": LocalRegretTreeClassifier(regret="swap", L=3, random_state=0),
        "disjunct, external": LocalRegretDisjunctClassifier(random_state=0),
    }
    print(
        f"{'learner':<20}{'regret KB':>10}{'pickle KB':>11}{'gzipped':>9}"
        f"{'skops KB':>10}{'deflated':>10}"
    )
    for name, model in learners.items():
        model.fit(X, y)
        pickled = pickle.dumps(model)
        regret = getattr(model, "regret_nbytes_", None)
        print(
            f"{name:<20}{'-' if regret is None else regret // 1024:>10}"
            f"{len(pickled) // 1024:>11}{len(gzip.compress(pickled)) // 1024:>9}"
            f"{len(sio.dumps(model)) // 1024:>10}"
            f"{len(sio.dumps(model, compression=zipfile.ZIP_DEFLATED)) // 1024:>10}",
            flush=True,
        )


if __name__ == "__main__":
    main()
