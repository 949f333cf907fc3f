"""Cold and warm start of the compiled kernels: the goals of issue 25, one run.

The kernels are compiled by numba on their first call and cached on disk
(``cache=True``). Each measurement runs in a fresh Python process with its own
``NUMBA_CACHE_DIR``:

* **cold** -- an empty cache: ``import sklearn_localregret``, then the first
  ``partial_fit`` of a tree learner (which compiles the round's kernels), then
  its first ``predict_proba`` of one row and of many (the prediction kernels),
  as a new machine sees them once;
* **warm** -- the same steps again on the cache the cold run filled, as every
  later process sees them.

Run::

    python benchmarks/bench_compile.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

COLD_GOAL_S = 20.0  # all kernels compiled, once per machine
WARM_GOAL_S = 1.0  # import + first partial_fit with a warm cache

STEPS = r"""
import json, time
start = time.perf_counter()
import numpy as np
import sklearn_localregret
from sklearn_localregret import LocalRegretTreeClassifier
imported = time.perf_counter()
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 6))
y = (X[:, 0] + X[:, 1] > 0).astype(int)
model = LocalRegretTreeClassifier(random_state=0)
model.partial_fit(X[:5], y[:5], classes=[0, 1])
fitted = time.perf_counter()
model.predict_proba(X[:1])
model.predict_proba(X)
predicted = time.perf_counter()
model.partial_fit(X, y)  # the rest of the round's kernels (warm start, growth)
learnt = time.perf_counter()
print(json.dumps({
    "import": imported - start,
    "first partial_fit": fitted - imported,
    "first predict_proba": predicted - fitted,
    "200 more rows": learnt - predicted,
}))
"""


def run(cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run(
        [sys.executable, "-c", STEPS],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        cold, warm = run(cache), run(cache)
    print(f"{'step':<22}{'cold s':>9}{'warm s':>9}")
    for step in cold:
        print(f"{step:<22}{cold[step]:>9.2f}{warm[step]:>9.2f}")
    cold_total, warm_total = sum(cold.values()), sum(warm.values())
    warm_start = warm["import"] + warm["first partial_fit"]
    print(f"{'total':<22}{cold_total:>9.2f}{warm_total:>9.2f}")
    verdict = "met" if cold_total <= COLD_GOAL_S else "MISSED"
    print(
        f"cold compile of every kernel: {cold_total:.1f} s "
        f"(goal <= {COLD_GOAL_S:g} s: {verdict})"
    )
    verdict = "met" if warm_start <= WARM_GOAL_S else "MISSED"
    print(
        f"warm import + first partial_fit: {warm_start:.2f} s "
        f"(goal <= {WARM_GOAL_S:g} s: {verdict})"
    )


if __name__ == "__main__":
    main()
