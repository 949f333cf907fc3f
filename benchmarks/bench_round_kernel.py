"""Where a one-row call's time goes, and the round kernel's (issue 25).

``LocalRegretTreeClassifier()`` learns ``--rows`` rows of the 20-feature
numeric stream of ``bench_stream_loop.py`` one row per call, test-then-train
(``predict``, then ``partial_fit``). Over the last ``--last`` calls (at most
``--rows`` - 1: the first call only learns; the number timed is printed), the
time of each step and of the compiled kernels that do a round's and a
prediction's arithmetic (the round's update of the played tree, the label
cache's refresh, the prediction walk, the draw, the root models' losses,
the tests' outcomes), each call of them timed from Python: what is left is
Python and the smaller kernels. Then the last one-row update of the played
tree (``update_played_sites``, the compiled kernel of a round's regret
update) is replayed on a copy of its arguments, and timed (median of
``--repeats`` calls, after one untimed call: the kernels load on a first
call):

* with every node of the played tree (what the round did), with none (the
  call itself, the rows' routing and the test masks), and with each node
  alone, less the call with none: a node the row reaches against one it
  does not (a short round still pays the bias at every node; "n/a" where
  the row reaches every node);
* the naive Bayes cache refresh of a site the row reaches
  (``refresh_leaf_model``, recomputed when a row changes the site's counts)
  and its two parts for a numeric column's thresholds: finding the chains
  (``find_chains``) and reading them as bins (``read_chains``).

Each figure includes one call of a compiled function from Python (~1 us).
Run::

    python benchmarks/bench_round_kernel.py [--rows 3000] [--last 1000]
        [--repeats 1000]

(``--rows``: 2 to 100,000; ``--repeats``: at most 1,000,000.)
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
from bench_stream_loop import MAX_ROWS, streams

import sklearn_localregret._tree.external as external
import sklearn_localregret._tree.root_model as root_model
import sklearn_localregret.engine.hierarchical_labels as labels
import sklearn_localregret.thresholds.catalog as catalog
from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range, positive_int
from sklearn_localregret.engine.compiled.leaf_model import (
    SMOOTHING,
    refresh_leaf_model,
)
from sklearn_localregret.engine.compiled.threshold_bins import (
    find_chains,
    read_chains,
)

# update_played_sites' arguments, by position.
NODES, N_NODES, NODE_TEST, NODE_TRUE, NODE_FALSE, NODE_ROW = 0, 1, 2, 4, 5, 6
OUTCOMES, ORDER, N_TESTS = 9, 12, 18
TRUE, FALSE, MODEL_SCALE, ODDS, BASE = 20, 21, 30, 28, 29
PARTNER, NEXT_THRESHOLD = 33, 34
MAX_REPEATS = 1_000_000


def median_us(call, repeats: int) -> float:
    call()  # untimed: a kernel loads on its first call
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e6


def last_one_row_update(rows: int) -> tuple:
    """The arguments of the last one-row update of a stream learnt one row
    per call (a copy: replaying it leaves the model alone)."""
    kernel = external.update_played_sites
    captured: list = []

    def recording(*args):
        if args[ORDER].shape[0] == 1:
            captured[:] = [copy.deepcopy(args)]
        return kernel(*args)

    X, y = streams(rows, 0)["numeric (20 features)"]
    model = LocalRegretTreeClassifier(random_state=0)
    external.update_played_sites = recording
    try:
        for i in range(rows):
            model.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    finally:
        external.update_played_sites = kernel
    return kernel, list(captured[0])


#: The kernels timed in a live loop: (module, name, what it does).
LIVE_KERNELS = (
    (external, "update_played_sites", "round update of the played tree"),
    (labels, "refresh_label_slots", "label cache refresh"),
    (labels, "label_probabilities", "prediction walk"),
    (external, "draw_tree", "draw of the round's tree"),
    (root_model, "root_model_losses", "root models' losses"),
    (catalog, "test_outcomes", "tests' outcomes"),
)


def live_shares(rows: int, last: int) -> tuple[float, dict]:
    """Microseconds a test-then-train step of the last ``last`` one-row
    calls took, and each live kernel's microseconds a step."""
    X, y = streams(rows, 0)["numeric (20 features)"]
    spent = {name: 0.0 for _, name, _ in LIVE_KERNELS}
    timing = [False]

    def timed(kernel, name):
        def call(*args):
            if not timing[0]:
                return kernel(*args)
            start = time.perf_counter()
            out = kernel(*args)
            spent[name] += time.perf_counter() - start
            return out

        return call

    originals = [
        (module, name, getattr(module, name)) for module, name, _ in LIVE_KERNELS
    ]
    for module, name, kernel in originals:
        setattr(module, name, timed(kernel, name))
    model = LocalRegretTreeClassifier(random_state=0)
    total = 0.0
    try:
        model.partial_fit(X[:1], y[:1], classes=[0, 1])
        for i in range(1, rows):
            timing[0] = i >= rows - last
            start = time.perf_counter()
            model.predict(X[i : i + 1])
            model.partial_fit(X[i : i + 1], y[i : i + 1])
            total += (time.perf_counter() - start) * timing[0]
    finally:
        for module, name, kernel in originals:
            setattr(module, name, kernel)
    steps = min(last, rows - 1)
    return total / steps * 1e6, {k: v / steps * 1e6 for k, v in spent.items()}


def reached_nodes(args) -> set:
    """The played tree's nodes the round's one row passes through."""
    r = args[ORDER][0]
    node, path = 0, set()
    while True:
        path.add(node)
        test = args[NODE_TEST][node]
        if test < 0:
            return path
        node = (
            args[NODE_TRUE][node] if args[OUTCOMES][r, test] else args[NODE_FALSE][node]
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int_in_range(2, MAX_ROWS), default=3000, help="at least 2"
    )
    parser.add_argument("--last", type=positive_int, default=1000)
    parser.add_argument("--repeats", type=int_in_range(1, MAX_REPEATS), default=1000)
    args = parser.parse_args()
    step, kernels = live_shares(args.rows, args.last)
    steps = min(args.last, args.rows - 1)  # the steps timed (the first learns)
    print(
        f"numeric stream, one row per call: the last {steps} test-then-train "
        f"steps, {step:.0f} us a step (predict + partial_fit)"
    )
    for _, name, what in LIVE_KERNELS:
        print(f"  {what:34} {kernels[name]:7.1f} us  {kernels[name] / step:6.1%}")
    rest = step - sum(kernels.values())
    print(f"  {'Python and the other kernels':34} {rest:7.1f} us  {rest / step:6.1%}")
    kernel, update = last_one_row_update(args.rows)
    n_nodes = int(update[N_NODES])
    nodes = update[NODES]

    def with_nodes(chosen):
        replay = list(update)
        replay[NODES] = chosen
        return median_us(lambda: kernel(*replay), args.repeats)

    every, none = with_nodes(nodes), with_nodes(nodes[:0])
    reached = reached_nodes(update)
    alone = {int(n): with_nodes(nodes[i : i + 1]) - none for i, n in enumerate(nodes)}
    on_path = [alone[n] for n in alone if n in reached]
    off_path = [alone[n] for n in alone if n not in reached]
    print(
        f"numeric stream, {args.rows} rows at one row per call; the last one-row "
        f"update: {n_nodes} nodes, {update[N_TESTS]} tests, {len(on_path)} "
        "nodes on the row's path"
    )
    print(f"  every node          {every:8.1f} us")
    print(f"  no node             {none:8.1f} us  (the call, routing, masks)")
    print(
        f"  a node on the path  {np.mean(on_path):8.1f} us  (mean; "
        f"{min(on_path):.1f}-{max(on_path):.1f})"
    )
    if off_path:
        print(
            f"  a node off it       {np.mean(off_path):8.1f} us  (mean; "
            f"{min(off_path):.1f}-{max(off_path):.1f})"
        )
    else:  # a tree of one node (a short stream)
        print(f"  a node off it       {'n/a':>8}     (the row reaches every node)")
    site = int(update[NODE_ROW][max(reached)])
    true, false = update[TRUE], update[FALSE]
    n_tests, scale = int(update[N_TESTS]), float(update[MODEL_SCALE][site])
    partner, chains = update[PARTNER], update[NEXT_THRESHOLD]
    odds, base = update[ODDS], update[BASE]
    n = min(n_tests, chains.shape[0])
    counted = (true[site, :n_tests] + false[site, :n_tests] > 0.0).any(axis=1)
    handled = np.zeros(n_tests, dtype=np.bool_)
    members = np.empty(n, dtype=np.int64)
    starts = np.empty(n + 1, dtype=np.int64)
    n_chains = find_chains(counted, n, partner, chains, members, starts, handled)
    parts = {
        "naive Bayes cache refresh": lambda: refresh_leaf_model(
            true, false, site, n_tests, scale, odds, base, partner, chains
        ),
        "  finding the chains": lambda: find_chains(
            counted, n, partner, chains, members, starts, handled
        ),
        "  reading them as bins": lambda: read_chains(
            true,
            false,
            site,
            n,
            SMOOTHING * scale,
            odds,
            base,
            partner,
            members,
            starts,
            n_chains,
        ),
    }
    print("a site on the path:")
    for name, call in parts.items():
        print(f"  {name:26} {median_us(call, args.repeats):8.1f} us")


if __name__ == "__main__":
    main()
