"""``solve`` against RC2's exact optimum on random weighted Max-3SAT with hard clauses.

Each instance has ``n`` variables, ``round(4.3 n)`` soft 3-clauses of integer
weight 1-10 and hard 3-clauses making 10% of all clauses (``round(soft / 9)``),
literals drawn uniformly. Every instance is written to a ``.wcnf`` file (2022
format) and solved by ``python -m sklearn_localregret solve FILE --time-limit
T`` in a subprocess, as a user runs it; the wall time includes Python's start.
Its answer is checked independently: the ``v`` line's assignment is scored
here and must agree with the last ``o`` line. In the same run:

* RC2 (python-sat, when installed) gives the exact optimum, or proves the hard
  clauses unsatisfiable;
* ``solve --flips 0`` gives the learner's answer without the WalkSAT polish;
* ``walksat`` (the package's baseline) from random starts with the polish's
  budget of flips, hard clauses weighted as by ``solve``.

The goal (issue 19): hard clauses satisfied in every instance where RC2 finds
them satisfiable, and mean soft cost at most 1.5 x RC2's mean optimum + 1,
each run within the time limit.

``--compare`` runs the second table instead (issue 31): ``solve`` against
WalkSAT alone at equal time on random 3-SAT of 5,000 and 50,000 clauses,
planted satisfiable (clauses that a hidden assignment satisfies, at 3.33
and 4.2 clauses per variable), uniform at the threshold (4.26) and
over-constrained (5 and 6). "WalkSAT alone" is the package's ``walksat``
(one walk from a random start) reading the same file in this process, with
the time ``--time-limit`` leaves after the reading; "learner" is ``solve
--flips 0``, the online passes alone, with the same limit. The goal: solve's
cost <= WalkSAT alone's on every instance. Run::

    python benchmarks/bench_solve.py [--sizes 30 50 70 100] [--seeds 5]
                                     [--time-limit 10] [--flips 100000]
                                     [--keep DIR]
    python benchmarks/bench_solve.py --compare [--time-limit 10] [--seeds 1]
                                     [--clauses 5000 50000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sklearn_localregret import WeightedFormula, read_dimacs
from sklearn_localregret._arguments import output_folder, positive_float, positive_int
from sklearn_localregret.baselines import walksat


def random_instance(n: int, seed: int) -> WeightedFormula:
    rng = np.random.default_rng(seed)
    n_soft = round(4.3 * n)
    n_hard = round(n_soft / 9)
    clauses = []
    for _ in range(n_soft + n_hard):
        variables = rng.choice(n, 3, replace=False) + 1
        clauses.append([int(v) for v in variables * rng.choice([-1, 1], 3)])
    weights = rng.integers(1, 11, n_soft + n_hard).astype(float)
    hard = np.arange(n_soft + n_hard) >= n_soft
    return WeightedFormula(clauses, n_vars=n, weights=weights, hard=hard)


def random_3sat(n: int, m: int, seed: int, planted: bool) -> WeightedFormula:
    """``m`` random 3-clauses over ``n`` variables (three distinct ones each);
    ``planted``: only clauses that a hidden random assignment satisfies."""
    rng = np.random.default_rng([seed, n, m, planted])
    hidden = rng.random(n) < 0.5
    clauses: list[list[int]] = []
    while len(clauses) < m:
        v = rng.integers(0, n, (2 * m, 3))
        positive = rng.random((2 * m, 3)) < 0.5
        ok = (v[:, 0] != v[:, 1]) & (v[:, 0] != v[:, 2]) & (v[:, 1] != v[:, 2])
        if planted:
            ok &= (hidden[v] == positive).any(axis=1)
        lits = np.where(positive, v + 1, -(v + 1))[ok]
        clauses.extend(lits[: m - len(clauses)].tolist())
    return WeightedFormula(clauses, n_vars=n)


# (name, clauses per variable, planted satisfiable)
COMPARED = [
    ("planted", 3.33, True),
    ("planted", 4.2, True),
    ("uniform", 4.26, False),
    ("over-constrained", 5.0, False),
    ("over-constrained", 6.0, False),
]


def walksat_alone(path: Path, seconds: float, seed: int) -> tuple[float, int]:
    """(cost, flips) of ``walksat`` reading ``path``, all within ``seconds``."""
    start = time.monotonic()
    formula = read_dimacs(path)
    left = seconds - (time.monotonic() - start)
    res = walksat(
        formula, max_flips=10**12, max_restarts=1, random_state=seed, time_limit=left
    )
    return res.unsatisfied_weight, res.n_flips


def compare(time_limit: float, seeds: int, sizes: list[int]) -> None:
    print(
        f"solve --time-limit {time_limit:g} against WalkSAT alone given the same "
        "time (reading included) and the learner alone (solve --flips 0); costs "
        "are falsified clauses"
    )
    header = (
        f"{'instance':<22} {'vars':>6} {'clauses':>7} {'seed':>4} {'solve':>6} "
        f"{'flips':>9} {'secs':>6} {'walksat':>7} {'flips':>9} {'learner':>7}"
    )
    print(header)
    print("-" * len(header))
    wins = ties = losses = 0
    with tempfile.TemporaryDirectory() as tmp:
        for m in sizes:
            for name, ratio, planted in COMPARED:
                n = round(m / ratio)
                for seed in range(seeds):
                    formula = random_3sat(n, m, seed, planted)
                    path = Path(tmp) / f"{name}-{ratio}-{m}-{seed}.cnf"
                    path.write_text(formula.to_dimacs())
                    limit = ["--time-limit", str(time_limit), "--seed", str(seed)]
                    _, _, cost, a, seconds, flips = run_solve(path, n, limit)
                    assert a is not None and score(formula, a) == (0, cost)
                    ws_cost, ws_flips = walksat_alone(path, time_limit, seed)
                    learner = run_solve(path, n, [*limit, "--flips", "0"])[2]
                    wins += cost < ws_cost
                    ties += cost == ws_cost
                    losses += cost > ws_cost
                    print(
                        f"{name + ' ' + str(ratio):<22} {n:>6} {m:>7} {seed:>4} "
                        f"{_fmt(cost):>6} {flips:>9} {seconds:>6.2f} "
                        f"{_fmt(ws_cost):>7} {ws_flips:>9} {_fmt(learner):>7}",
                        flush=True,
                    )
    verdict = "met" if losses == 0 else "NOT met"
    print(
        f"\nsolve better than WalkSAT alone on {wins}, equal on {ties}, worse on "
        f"{losses} instances; goal (never worse): {verdict}"
    )


def score(formula: WeightedFormula, assignment: np.ndarray) -> tuple[int, float]:
    """(violated hard clauses, falsified soft weight), computed in pure Python."""
    n_hard, cost = 0, 0.0
    for clause, weight, hard in zip(formula, formula.weights, formula.hard):
        if not any((lit > 0) == bool(assignment[abs(lit) - 1]) for lit in clause):
            if hard:
                n_hard += 1
            else:
                cost += float(weight)
    return n_hard, cost


def run_solve(path: Path, n_vars: int, extra: list[str]):
    """Run the command; (status, exit code, last o, assignment, seconds,
    WalkSAT flips)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sklearn_localregret",
            "solve",
            str(path),
            "--quiet",
            *extra,
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if "Traceback" in proc.stderr:
        raise RuntimeError(proc.stderr)
    lines = proc.stdout.splitlines()
    status = next((line[2:] for line in lines if line.startswith("s ")), None)
    if status is None:  # solve refused its input: its one-line error
        raise RuntimeError(f"solve exited {proc.returncode}: {proc.stderr.strip()}")
    costs = [float(line[2:]) for line in lines if line.startswith("o ")]
    assignment = None
    v_lines = [line for line in lines if line.startswith("v")]
    if v_lines:  # the default 0/1 string
        bits = "".join(v_lines[0].split()[1:])
        assert len(bits) == n_vars and set(bits) <= {"0", "1"}
        assignment = np.array([c == "1" for c in bits])
    work = [line.split() for line in lines if "WalkSAT flips," in line]
    flips = int(work[-1][work[-1].index("WalkSAT") - 1]) if work else 0
    last_o = costs[-1] if costs else None
    return status, proc.returncode, last_o, assignment, seconds, flips


def rc2_optimum(formula: WeightedFormula):
    """(optimum or None if the hard clauses are unsatisfiable, seconds)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    wcnf = WCNF()
    for clause, weight, hard in zip(formula, formula.weights, formula.hard):
        if hard:
            wcnf.append(list(clause))
        else:
            wcnf.append(list(clause), weight=int(weight))
    start = time.perf_counter()
    with RC2(wcnf, adapt=True, exhaust=True, minz=True) as rc2:
        model = rc2.compute()
        cost = None if model is None else float(rc2.cost)
    return cost, time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=positive_int, nargs="+", default=[30, 50, 70, 100]
    )
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=None,
        help="instances per size (5; --compare 1)",
    )
    parser.add_argument("--time-limit", type=positive_float, default=10.0)
    parser.add_argument("--flips", type=positive_int, default=100_000)
    parser.add_argument(
        "--keep",
        type=output_folder,
        default=None,
        metavar="DIR",
        help="write the instances into DIR and keep them",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="solve against WalkSAT alone at equal time on random 3-SAT",
    )
    parser.add_argument(
        "--clauses",
        type=positive_int,
        nargs="+",
        default=[5000, 50000],
        help="clause counts of --compare's instances",
    )
    args = parser.parse_args(argv)
    if args.compare:
        compare(args.time_limit, 1 if args.seeds is None else args.seeds, args.clauses)
        return
    if args.seeds is None:
        args.seeds = 5
    try:
        import pysat  # noqa: F401

        have_rc2 = True
    except ImportError:
        have_rc2 = False
        print("python-sat is not installed: no RC2 optimum to compare with")

    header = (
        f"{'n':>4} {'seed':>4} {'hard':>4} {'soft':>4} {'RC2 opt':>7} "
        f"{'RC2 s':>6} {'solve':>6} {'exit':>4} {'secs':>6} {'s line':<14} "
        f"{'learner':>7} {'walksat':>7}"
    )
    print(
        f"solve --time-limit {args.time_limit:g} --flips {args.flips}; costs are "
        "the falsified soft weight, '-' when a hard clause is violated; secs "
        "is solve's wall time"
    )
    print(header)
    print("-" * len(header))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            tmp = args.keep
        for n in args.sizes:
            for seed in range(args.seeds):
                formula = random_instance(n, seed)
                path = Path(tmp) / f"random-{n}-{seed}.wcnf"
                path.write_text(formula.to_wcnf(style="new"))
                opt, rc2_s = rc2_optimum(formula) if have_rc2 else (None, np.nan)
                status, code, last_o, a, seconds, _ = run_solve(
                    path,
                    n,
                    [
                        "--time-limit",
                        str(args.time_limit),
                        "--flips",
                        str(args.flips),
                        "--seed",
                        str(seed),
                    ],
                )
                n_hard, cost = score(formula, a) if a is not None else (None, None)
                if a is not None:
                    assert n_hard == 0 and cost == last_o, (n_hard, cost, last_o)
                _, _, learner_o, learner_a, _, _ = run_solve(
                    path, n, ["--flips", "0", "--seed", str(seed)]
                )
                ws = walksat(
                    formula,
                    max_flips=args.flips // 10,
                    max_restarts=10,
                    random_state=seed,
                )
                ws_hard, ws_cost = score(formula, ws.assignment)
                rows.append(
                    dict(
                        n=n,
                        opt=opt,
                        cost=cost,
                        seconds=seconds,
                        learner=learner_o if learner_a is not None else None,
                        walksat=ws_cost if ws_hard == 0 else None,
                        rc2_s=rc2_s,
                    )
                )
                print(
                    f"{n:>4} {seed:>4} {int(formula.hard.sum()):>4} "
                    f"{int((~formula.hard).sum()):>4} {_fmt(opt):>7} "
                    f"{rc2_s:>6.2f} {_fmt(cost):>6} {code:>4} {seconds:>6.2f} "
                    f"{status:<14} {_fmt(rows[-1]['learner']):>7} "
                    f"{_fmt(rows[-1]['walksat']):>7}",
                    flush=True,
                )
    summarise(rows, args.time_limit)


def summarise(rows, time_limit: float) -> None:
    feasible = [r for r in rows if r["opt"] is not None]
    solved = [r for r in feasible if r["cost"] is not None]
    print()
    print(
        f"hard clauses satisfied by solve: {len(solved)} of {len(feasible)} "
        "instances where RC2 finds them satisfiable"
    )
    if solved:
        opt = np.mean([r["opt"] for r in solved])
        cost = np.mean([r["cost"] for r in solved])
        print(
            f"mean soft cost: solve {cost:.2f}, RC2 optimum {opt:.2f}; goal "
            f"<= 1.5 x {opt:.2f} + 1 = {1.5 * opt + 1:.2f}: "
            f"{'met' if cost <= 1.5 * opt + 1 else 'NOT met'}"
        )
        at_opt = sum(r["cost"] == r["opt"] for r in solved)
        print(f"solve reaches the optimum on {at_opt} of {len(solved)}")
        learner = [r["learner"] for r in solved if r["learner"] is not None]
        if learner:
            print(
                f"learner alone (--flips 0): hard clauses satisfied on "
                f"{len(learner)} of {len(solved)}, mean soft cost there "
                f"{np.mean(learner):.2f}"
            )
        ws = [r["walksat"] for r in solved if r["walksat"] is not None]
        print(
            f"walksat from random starts, same flips: hard satisfied on "
            f"{len(ws)} of {len(solved)}, mean soft cost there {np.mean(ws):.2f}"
        )
    seconds = max(r["seconds"] for r in rows)
    verdict = "within" if seconds <= time_limit else "OVER"
    print(
        f"slowest solve run {seconds:.2f} s (Python's start included) with "
        f"--time-limit {time_limit:g}: {verdict}; RC2 slowest "
        f"{np.nanmax([r['rc2_s'] for r in rows]):.2f} s"
    )


def _fmt(x) -> str:
    return "-" if x is None else f"{x:g}"


if __name__ == "__main__":
    main()
