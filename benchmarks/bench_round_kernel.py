"""Where the round kernel's time goes at one row per call (issue 25).

``LocalRegretTreeClassifier()`` learns ``--rows`` rows of the 20-feature
numeric stream of ``bench_stream_loop.py`` one row per call. The last
one-row update of the played tree (``update_played_sites``, the compiled
kernel of a round's regret update) is replayed on a copy of its arguments,
and timed (median of ``--repeats`` calls):

* with every node of the played tree (what the round did), with none (the
  call itself, the rows' routing and the test masks), and with each node
  alone, less the call with none: a node the row reaches against one it
  does not (a short round still pays the bias at every node);
* the naive Bayes cache refresh of a site the row reaches
  (``refresh_leaf_model``, recomputed when a row changes the site's counts)
  and its two parts for a numeric column's thresholds: finding the chains
  (``chained_tests``) and reading them as bins (``read_threshold_chains``).

Each figure includes one call of a compiled function from Python (~1 us).
Run::

    python benchmarks/bench_round_kernel.py [--rows 3000] [--repeats 1000]
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
from bench_stream_loop import streams

import sklearn_localregret._tree.external as external
from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine.compiled.leaf_model import (
    SMOOTHING,
    refresh_leaf_model,
)
from sklearn_localregret.engine.compiled.threshold_bins import (
    chained_tests,
    read_threshold_chains,
)

# update_played_sites' arguments, by position.
NODES, N_NODES, NODE_TEST, NODE_TRUE, NODE_FALSE, NODE_ROW = 0, 1, 2, 4, 5, 6
OUTCOMES, ORDER, N_TESTS = 9, 12, 18
TRUE, FALSE, MODEL_SCALE, ODDS, BASE = 20, 21, 30, 28, 29
PARTNER, NEXT_THRESHOLD = 33, 34


def median_us(call, repeats: int) -> float:
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
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=1000)
    args = parser.parse_args()
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
    print(
        f"  a node off it       {np.mean(off_path):8.1f} us  (mean; "
        f"{min(off_path):.1f}-{max(off_path):.1f})"
    )
    site = int(update[NODE_ROW][max(reached)])
    true, false = update[TRUE], update[FALSE]
    n_tests, scale = int(update[N_TESTS]), float(update[MODEL_SCALE][site])
    partner, chains = update[PARTNER], update[NEXT_THRESHOLD]
    odds, base = update[ODDS], update[BASE]
    handled = np.zeros(n_tests, dtype=np.bool_)
    parts = {
        "naive Bayes cache refresh": lambda: refresh_leaf_model(
            true, false, site, n_tests, scale, odds, base, partner, chains
        ),
        "  finding the chains": lambda: chained_tests(
            true, false, site, n_tests, partner, chains, handled
        ),
        "  reading them as bins": lambda: read_threshold_chains(
            true, false, site, n_tests, SMOOTHING * scale, odds, base, partner, chains
        ),
    }
    print("a site on the path:")
    for name, call in parts.items():
        print(f"  {name:26} {median_us(call, args.repeats):8.1f} us")


if __name__ == "__main__":
    main()
