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

``--per-kernel N``: the cold steps once more, in a fresh process with an
empty cache, timing each kernel's compilation with numba's compile events:
the ``N`` longest, each including the kernels it compiled inside it (a
kernel compiles its callees on its own first compilation), and how many
kernels and signatures were compiled.

Run::

    python benchmarks/bench_compile.py [--per-kernel 10]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from sklearn_localregret._arguments import non_negative_int

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


# Before STEPS with --per-kernel: a listener of numba's compile events.
PER_KERNEL = r"""
import time as _time
from numba.core import event as _event
_spent = {}
class _Timer(_event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        _spent.setdefault(id(d), [d, 0.0, 0.0])[1] = _time.perf_counter()
    def on_end(self, ev):
        entry = _spent[id(ev.data["dispatcher"])]
        entry[2] += _time.perf_counter() - entry[1]
_event.register("numba:compile", _Timer())
"""

# After STEPS with --per-kernel: the kernels' compile times, as JSON.
PER_KERNEL_END = r"""
print(json.dumps({
    f"{d.py_func.__module__}.{d.py_func.__name__}": [s, len(d.signatures)]
    for d, _, s in _spent.values()
}))
"""


def run(cache: str, per_kernel: bool = False) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    code = PER_KERNEL + STEPS + PER_KERNEL_END if per_kernel else STEPS
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def per_kernel(top: int) -> None:
    with tempfile.TemporaryDirectory() as cache:
        kernels = run(cache, per_kernel=True)
    signatures = sum(n for _, n in kernels.values())
    print(
        f"cold: {len(kernels)} kernels compiled, {signatures} signatures; the "
        f"{top} longest (s, each with the kernels compiled inside it):"
    )
    ranked = sorted(kernels.items(), key=lambda item: -item[1][0])
    for name, (seconds, _) in ranked[:top]:
        print(f"  {seconds:6.2f}  {name.removeprefix('sklearn_localregret.')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--per-kernel",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="time each kernel's compilation, print the N longest (0: off)",
    )
    args = parser.parse_args()
    if args.per_kernel:
        per_kernel(args.per_kernel)
        return
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
