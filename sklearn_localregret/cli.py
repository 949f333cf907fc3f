"""The command line: the paper's experiments, and Max-SAT on a user's file.

::

    python -m sklearn_localregret all --out results          # everything
    python -m sklearn_localregret trees --quick               # a fast check
    python -m sklearn_localregret solve formula.wcnf --passes 20
    python -m sklearn_localregret streams --quick             # stream leaderboard
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import _solve

__all__ = ["main", "build_parser"]

EXPERIMENTS = ("maxsat", "disjunct", "trees")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_localregret",
        description="Online learning with local regret (Bowling & Zinkevich, "
        "ICML 2012): reproduce the paper's experiments or solve Max-SAT online.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in [
        ("maxsat", "online Max-3SAT (paper Figure: 3cnf regret and results)"),
        ("disjunct", "online disjunct learning: random disjunction, Winnow killer"),
        ("trees", "online decision trees on nursery, mushroom, kr-vs-kp, "
                  "alternating labels"),
        ("all", "all three experiments"),
    ]:
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        cmd.add_argument("--out", type=Path, default=Path("results"),
                         help="folder for PNG plots and CSV/JSON numbers "
                         "(default: results)")
        cmd.add_argument("--trials", type=int, default=None,
                         help="trials (instances for maxsat); default: the paper's")
        cmd.add_argument("--rounds", type=int, default=None,
                         help="rounds per trial; default: the paper's 1000")
        cmd.add_argument("--seed", type=int, default=0, help="random seed (0)")
        cmd.add_argument("--quick", action="store_true",
                         help="a small run that finishes in seconds")
        cmd.add_argument("--quiet", action="store_true", help="no progress bars")
    from .experiments._streams_cli import add_streams_parser

    add_streams_parser(sub)
    _solve.add_parser(sub)
    return parser


def _experiment_kwargs(args, name):
    kwargs = {"seed": args.seed, "quick": args.quick, "progress": not args.quiet}
    if args.trials is not None:
        kwargs["n_instances" if name == "maxsat" else "n_trials"] = args.trials
    if args.rounds is not None:
        kwargs["n_rounds"] = args.rounds
    return kwargs


def run_experiment(name: str, args) -> None:
    from . import experiments

    runner = getattr(experiments, f"run_{name}")
    print(f"== {name} ==", flush=True)
    start = time.perf_counter()
    runner(args.out, **_experiment_kwargs(args, name))
    print(f"({name}: {time.perf_counter() - start:.1f} s; results in {args.out}/)\n",
          flush=True)


def solve(args) -> int:
    """The ``solve`` command (:mod:`sklearn_localregret._solve`); the exit code."""
    return _solve.run(args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sklearn_localregret`` and the console script."""
    args = build_parser().parse_args(argv)
    if args.command == "solve":
        return solve(args)
    if args.command == "streams":
        from .experiments._streams_cli import streams_command

        return streams_command(args, None if argv is None else list(argv)[1:])
    for name in EXPERIMENTS if args.command == "all" else (args.command,):
        run_experiment(name, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
