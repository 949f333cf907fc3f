"""Draws per second of the engine's exact samplers.

Hypercube (product sites, n = 20, 200, 2000) and decision trees (hierarchical
sites, n = 118 features, binary labels) on regret tables filled with seeded
random regrets shaped like those of a real run. Run::

    python benchmarks/bench_engine.py [--seconds 1.0] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _options import float_in_range, seed_int

from sklearn_localregret.engine import (
    HierarchicalSampler,
    RegretTable,
    StumpRegretTable,
    binary_site_probabilities,
)

#: Longest measure of a sampler (there are four): an hour.
MAX_SECONDS = 3600.0


def _rate(draw, seconds: float) -> tuple[float, int]:
    """Calls of ``draw`` per second, measured over about ``seconds``."""
    n_calls, start = 0, time.perf_counter()
    while True:
        draw()
        n_calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n_calls / elapsed, n_calls


def bench_hypercube(n: int, seconds: float, rng: np.random.Generator) -> float:
    table = RegretTable(width=2, initial_rows=n)
    table.update_entries(np.arange(n), rng.integers(0, 2, n), rng.normal(size=n))

    def draw():
        rates = table.positive()
        p_on = binary_site_probabilities(rates[:, 0], rates[:, 1])
        return rng.random(n) < p_on

    return _rate(draw, seconds)[0]


def _grow_tree_table(n_features, n_classes, depth, rng) -> StumpRegretTable:
    """A table whose sites, one round of seeded counts each, favour a tree
    about ``depth`` levels deep: at each site one unused test separates the
    labels, the others split them in the same proportions (no gain)."""
    table = StumpRegretTable(n_classes=n_classes, n_tests=n_features)
    frontier: list[tuple] = [()]
    for _ in range(depth):
        next_frontier = []
        for path in frontier:
            row = table.row(path)
            used = [v for v, _ in path]
            counts = rng.uniform(20.0, 50.0, size=n_classes)
            true_counts = counts * rng.uniform(0.3, 0.7, size=(n_features, 1))
            v = int(rng.choice([u for u in range(n_features) if u not in used]))
            true_counts[v] = counts * np.linspace(0.05, 0.95, n_classes)
            test_mask = np.ones(n_features, dtype=bool)
            test_mask[used] = False  # a test decided by the path is no edge
            correct = counts.max()  # the site is played as its majority leaf
            leaf_gains = counts - correct
            table.update(
                [row],
                leaf_gains[None],
                (leaf_gains != 0)[None],
                true_counts[None],
                counts[None],
                np.array([correct]),
                test_mask[None],
            )
            next_frontier += [path + ((v, 1),), path + ((v, 0),)]
        frontier = next_frontier
    return table


def bench_tree(n_features: int, seconds: float, rng: np.random.Generator):
    table = _grow_tree_table(n_features, 2, depth=4, rng=rng)
    sampler = HierarchicalSampler(table)
    sizes = []

    def draw():
        tree = sampler.sample(rng)
        sizes.append(str(tree).count("split"))

    rate, _ = _rate(draw, seconds)
    return rate, float(np.mean(sizes))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds",
        type=float_in_range(0, MAX_SECONDS, inclusive=(False, True)),
        default=1.0,
        help=f"of each sampler's measure (at most {MAX_SECONDS:g})",
    )
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"{'sampler':<40}{'draws/s':>12}")
    for n in (20, 200, 2000):
        rate = bench_hypercube(n, args.seconds, rng)
        print(f"{f'hypercube product, n={n}':<40}{rate:>12,.0f}")
    rate, size = bench_tree(118, args.seconds, rng)
    label = f"tree hierarchical, n=118 ({size:.1f} splits)"
    print(f"{label:<40}{rate:>12,.0f}")


if __name__ == "__main__":
    main()
