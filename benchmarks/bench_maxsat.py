"""Rounds per second of OnlineMaxSAT on random planted 3-SAT streams.

One clause per round (the paper's online Max-3SAT), ``n = 20`` and
``n = 1000`` variables, ``4.26 n`` clauses drawn uniformly. Three ways of
driving the solver: ``run`` over a whole stream, ``partial_fit`` with batches
of 10 clauses, and the per-round ``assignment()`` + ``observe(clause)`` loop
(which validates every clause on its own). ``regret="swap"`` is measured on a
short stream: it re-solves its chain exactly every round (``--swap-rounds
0`` leaves it out; it runs for ``n <= 64`` only). Before any timing, each
driver learns 300 clauses of the first size untimed (swap: 50, of the first
size it runs at): the compiled kernels load on a solver's first rounds.
Run::

    python benchmarks/bench_maxsat.py [--rounds 20000] [--swap-rounds 300]
        [--sizes 20 1000] [--seed 0]

(``--rounds``: 20 to 10,000,000; ``--sizes``: 3 to 100,000 variables.)
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager

import numpy as np
from _options import seed_int

from sklearn_localregret import OnlineMaxSAT
from sklearn_localregret._arguments import int_in_range, non_negative_int

#: Fewest rounds: ``partial_fit`` learns the first 80% in whole batches of
#: 10 clauses (one at least), then the last 20%.
MIN_ROUNDS = 20
MAX_ROUNDS = 10_000_000  # the stream is a list made up front
MAX_VARIABLES = 100_000  # its 4.26 n clauses are drawn one by one
WARM_ROUNDS = 300


def planted_stream(n: int, n_rounds: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    planted = rng.integers(0, 2, n).astype(bool)
    clauses = []
    while len(clauses) < int(4.26 * n):
        variables = rng.choice(n, 3, replace=False)
        literals = (variables + 1) * (2 * rng.integers(0, 2, 3) - 1)
        if np.any((literals > 0) == planted[variables]):
            clauses.append([int(lit) for lit in literals])
    return [clauses[i] for i in rng.integers(0, len(clauses), n_rounds)]


# The bulk path before issue 14, timed by bench_stream_loop.py (section 5).
@contextmanager
def bulk_as_before():
    """OnlineMaxSAT's bulk rounds as they were played before issue 14: the
    clauses flattened through scipy's incidence matrix, every round scored by
    numpy (``maxsat_round``)."""
    from sklearn_localregret.maxsat import online
    from sklearn_localregret.maxsat.clause_matrix import clause_matrix
    from sklearn_localregret.maxsat.rounds import maxsat_round

    def rounds(formula, batch_size):
        signed = clause_matrix(formula.clauses, n_vars=formula.n_vars)
        csr = signed.signed.tocsr()
        n_neg = signed.n_neg.astype(np.float64)
        var_of = csr.indices.astype(np.intp)
        sign_of = csr.data.astype(np.float64)
        clause_of = np.repeat(np.arange(len(formula)), np.diff(csr.indptr))
        weights = formula.weights
        for start in range(0, len(formula), batch_size):
            stop = min(start + batch_size, len(formula))
            lo, hi = csr.indptr[start], csr.indptr[stop]
            args = (
                clause_of[lo:hi] - start,
                var_of[lo:hi],
                sign_of[lo:hi],
                n_neg[start:stop],
                weights[start:stop],
            )
            yield (
                (lambda a, args=args: maxsat_round(a, *args)),
                float(weights[start:stop].sum()),
            )

    saved = online.formula_rounds
    online.formula_rounds = rounds
    try:
        yield
    finally:
        online.formula_rounds = saved


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int_in_range(MIN_ROUNDS, MAX_ROUNDS), default=20_000
    )
    parser.add_argument("--swap-rounds", type=non_negative_int, default=300)
    parser.add_argument(
        "--sizes",
        type=int_in_range(3, MAX_VARIABLES),
        nargs="+",
        default=[20, 1000],
        help="variables (3 at least: a clause has 3 distinct ones)",
    )
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)

    # Untimed: the compiled kernels load on a solver's first rounds, which
    # the first configuration timed paid. Each driver, on the first size.
    n = args.sizes[0]
    warm = planted_stream(n, WARM_ROUNDS, args.seed)
    OnlineMaxSAT(n, random_state=args.seed).run(warm)
    OnlineMaxSAT(n, random_state=args.seed).partial_fit(warm, batch_size=10)
    solver = OnlineMaxSAT(n, random_state=args.seed)
    for clause in warm[:50]:
        solver.assignment()
        solver.observe(clause)
    small = [size for size in args.sizes if size <= 64]  # swap's sizes
    if small and args.swap_rounds > 0:
        warm = planted_stream(small[0], 50, args.seed)
        OnlineMaxSAT(small[0], regret="swap", random_state=args.seed).run(warm)

    header = (
        f"{'n':>5} {'regret':>8} {'driver':>18} {'rounds':>7} "
        f"{'rounds/s':>10} {'sat. last 20%':>14} {'non-zero':>9}"
    )
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        stream = planted_stream(n, args.rounds, args.seed)
        tail = slice(int(0.8 * len(stream)), None)

        solver = OnlineMaxSAT(n, random_state=args.seed)
        out = []
        seconds = timed(lambda: out.append(solver.run(stream)))
        rows = [
            (
                "external",
                "run",
                len(stream),
                seconds,
                out[0][tail].mean(),
                solver.n_nonzero_regrets_,
            )
        ]

        solver = OnlineMaxSAT(n, random_state=args.seed)
        cut = int(0.8 * len(stream)) // 10 * 10  # the last 20%, whole batches
        before = []

        def in_batches():
            solver.partial_fit(stream[:cut], batch_size=10)
            before.append((solver.satisfied_weight_, solver.total_weight_))
            solver.partial_fit(stream[cut:], batch_size=10)

        seconds = timed(in_batches)
        satisfied = solver.satisfied_weight_ - before[0][0]
        rows.append(
            (
                "external",
                "partial_fit(b=10)",
                len(stream) // 10,
                seconds,
                satisfied / (solver.total_weight_ - before[0][1]),
                solver.n_nonzero_regrets_,
            )
        )

        solver = OnlineMaxSAT(n, random_state=args.seed)
        short = stream[: max(1, len(stream) // 4)]
        got = np.zeros(len(short))

        def per_round():
            for t, clause in enumerate(short):
                solver.assignment()
                got[t] = solver.observe(clause)

        seconds = timed(per_round)
        rows.append(
            (
                "external",
                "assignment+observe",
                len(short),
                seconds,
                got[int(0.8 * len(got)) :].mean(),
                solver.n_nonzero_regrets_,
            )
        )

        if n <= 64 and args.swap_rounds > 0:
            swap_stream = stream[: args.swap_rounds]
            solver = OnlineMaxSAT(n, regret="swap", random_state=args.seed)
            out = []
            seconds = timed(lambda: out.append(solver.run(swap_stream)))
            rows.append(
                (
                    "swap",
                    "run",
                    len(swap_stream),
                    seconds,
                    out[0][int(0.8 * len(swap_stream)) :].mean(),
                    solver.n_nonzero_regrets_,
                )
            )

        for regret, driver, rounds, seconds, sat, nonzero in rows:
            print(
                f"{n:>5} {regret:>8} {driver:>18} {rounds:>7} "
                f"{rounds / seconds:>10,.0f} {sat:>14.3f} {nonzero:>9}"
            )


if __name__ == "__main__":
    main()
