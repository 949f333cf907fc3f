"""``python -m sklearn_localregret solve``: Max-SAT on a DIMACS file.

The command reads a CNF or WCNF file, searches an assignment with WalkSAT
(one walk, as long as the time limit allows) and, if WalkSAT's flips are spent
first, with passes of :class:`~sklearn_localregret.OnlineMaxSAT` over the
clauses, and answers in the MaxSAT Evaluation convention: ``o`` lines as the
cost improves, one ``s`` line, a ``v`` line, comments on ``c`` lines. The
search itself is :func:`~sklearn_localregret.solve_formula`
(:mod:`sklearn_localregret.maxsat.search`); this module holds the command's
parser, its output and its exit codes.

Exit codes (those of the MaxSAT Evaluations and the SAT competition):

====  ===================================================================
code  meaning
====  ===================================================================
30    ``s OPTIMUM FOUND``: cost 0, or a cost the hard clauses force
10    ``s SATISFIABLE``: every hard clause satisfied, optimality not proven
20    ``s UNSATISFIABLE``: unit propagation refutes the hard clauses
0     ``s UNKNOWN``: no assignment satisfying every hard clause was found
2     bad input (a file that cannot be read, a bad option): one line on
      stderr naming the file and line
1     an internal error, with its traceback
====  ===================================================================
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from .._arguments import non_negative_int, positive_float, positive_int
from .dimacs import DimacsError
from .reading import read_dimacs
from .search import format_number, solve_formula

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_OPTIMUM",
    "EXIT_SATISFIABLE",
    "EXIT_UNKNOWN",
    "EXIT_UNSATISFIABLE",
    "add_parser",
    "run",
]

EXIT_OPTIMUM, EXIT_SATISFIABLE, EXIT_UNSATISFIABLE, EXIT_UNKNOWN = 30, 10, 20, 0
EXIT_BAD_INPUT = 2
_EXIT = {
    "OPTIMUM FOUND": EXIT_OPTIMUM,
    "SATISFIABLE": EXIT_SATISFIABLE,
    "UNSATISFIABLE": EXIT_UNSATISFIABLE,
    "UNKNOWN": EXIT_UNKNOWN,
}

# The command's WalkSAT budget without --time-limit (with it, the clock's).
_DEFAULT_FLIPS = 100_000


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``solve`` command to the command line's subparsers."""
    parser = subparsers.add_parser(
        "solve",
        help="weighted Max-SAT on a DIMACS CNF/WCNF file",
        description="Search an assignment with WalkSAT (one walk from a "
        "random assignment), then, if its flips are spent before the time limit, "
        "with passes of the online learner OnlineMaxSAT over the clauses, and "
        "answer as Max-SAT solvers do: 'o COST' lines as the cost of the "
        "falsified soft clauses improves, one 's' line, a 'v' line, comments on "
        "'c' lines. A plain CNF file is read as Max-SAT (every clause soft, "
        "weight 1): an unsatisfiable CNF answers 's SATISFIABLE' with the least "
        "number of falsified clauses found on its 'o' line (e.g. 'o 1'), not "
        "'s UNSATISFIABLE', which means that the hard clauses of a WCNF file "
        "cannot all hold. A file without a p-line is 2022-format WCNF when its "
        "name ends in .wcnf or a line starts with 'h' (or with --format wcnf), "
        "plain CNF otherwise.",
        epilog="exit codes: 30 OPTIMUM FOUND, 10 SATISFIABLE, 20 UNSATISFIABLE, "
        "0 UNKNOWN, 2 bad input or options (one line on stderr), 1 internal "
        "error. SIGTERM or Ctrl-C stops the search and prints the best answer.",
    )
    parser.add_argument(
        "path",
        help="DIMACS .cnf or .wcnf file, optionally .gz, "
        ".bz2 or .xz; '-' reads standard input",
    )
    parser.add_argument(
        "--passes",
        type=non_negative_int,
        default=10,
        help="passes of the online learner over the clauses once WalkSAT's "
        "flips are spent (10)",
    )
    parser.add_argument(
        "--flips",
        type=non_negative_int,
        default=None,
        help="WalkSAT flips (100000; with --time-limit, as many as the time allows)",
    )
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="wall-clock limit, reading the file included (none)",
    )
    parser.add_argument(
        "--regret",
        choices=["external", "swap"],
        default="external",
        help="the learner's regret (external)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="random seed (0)"
    )
    parser.add_argument(
        "--format",
        choices=["cnf", "wcnf"],
        default=None,
        help="how to read a file without a p-line (by default, the rule above)",
    )
    parser.add_argument(
        "--max-vars",
        type=positive_int,
        default=10_000_000,
        metavar="N",
        help="refuse files with a variable index beyond N (10000000)",
    )
    parser.add_argument(
        "--v-format",
        choices=["bits", "literals"],
        default="bits",
        help="'v 101' (the MaxSAT Evaluation's form since 2020; the default) "
        "or 'v 1 -2 3 0' (the SAT competition's)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress lines on stderr"
    )
    return parser


def run(args, stdout=None, stderr=None) -> int:
    """Run the ``solve`` command for parsed ``args``; returns the exit code."""
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    try:
        return _run(args, stdout, stderr)
    except KeyboardInterrupt:  # before the search began (it answers itself)
        print("interrupted", file=stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _run(args, stdout, stderr) -> int:
    start = time.monotonic()
    deadline = None if args.time_limit is None else start + args.time_limit
    # A path, never text: a file may be named "42" or "c" (read_dimacs
    # takes a str that looks like DIMACS for the text itself).
    source = sys.stdin.buffer if args.path == "-" else Path(args.path)
    try:
        formula = read_dimacs(source, format=args.format, max_vars=args.max_vars)
    except DimacsError as exc:
        if args.path == "-":
            exc = DimacsError(exc.reason, "<stdin>", exc.line)
        print(f"error: {exc}", file=stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"error: {args.path}: {exc.strerror or exc}", file=stderr)
        return EXIT_BAD_INPUT

    def say(line: str) -> None:
        print(line, file=stdout, flush=True)

    soft = ~formula.hard
    say(f"c sklearn_localregret solve {'<stdin>' if args.path == '-' else args.path}")
    say(
        f"c {formula.n_vars} variables, {len(formula)} clauses: "
        f"{int(formula.hard.sum())} hard, {int(soft.sum())} soft of total weight "
        f"{format_number(formula.weights[soft].sum())}"
    )
    progress = None if args.quiet else _Progress(stderr, start)
    try:
        answer = solve_formula(
            formula,
            passes=args.passes,
            flips=(
                args.flips
                if args.flips is not None
                else None
                if deadline is not None
                else _DEFAULT_FLIPS
            ),
            regret=args.regret,
            seed=args.seed,
            deadline=deadline,
            on_cost=lambda cost: say(f"o {format_number(cost)}"),
            on_progress=progress,
        )
    except MemoryError as exc:  # beyond the machine's memory, said before
        print(f"error: {args.path}: {exc}", file=stderr)
        return EXIT_BAD_INPUT
    if answer.interrupted:
        say("c interrupted: the answer is the best found so far")
    say(f"s {answer.status}")
    if answer.status in ("OPTIMUM FOUND", "SATISFIABLE"):
        assert answer.assignment is not None  # found: only UNSATISFIABLE has none
        _write_v_line(stdout, answer.assignment, args.v_format)
    elif answer.status == "UNKNOWN":
        assert answer.cost is not None  # a best assignment exists
        say(
            f"c the best assignment found violates {answer.n_hard_violated} of "
            f"{int(formula.hard.sum())} hard clauses (soft cost "
            f"{format_number(answer.cost)}); it is no solution and is not printed"
        )
    else:
        say("c unit propagation on the hard clauses derives a conflict")
    say(
        f"c {answer.n_rounds} online rounds, {answer.n_flips} WalkSAT flips, "
        f"{time.monotonic() - start:.2f} s"
    )
    return _EXIT[answer.status]


class _Progress:
    """Progress lines on stderr for long runs: after 2 s, then every 2 s."""

    def __init__(self, stream, start: float, every: float = 2.0):
        self.stream, self.start, self.every = stream, start, every
        self.next = start + every

    def __call__(self, text: str) -> None:
        now = time.monotonic()
        if now >= self.next:
            self.next = now + self.every
            print(f"c [{now - self.start:6.1f} s] {text}", file=self.stream, flush=True)


def _write_v_line(stream, assignment: np.ndarray, v_format: str) -> None:
    # Written in blocks: a million variables need no ten-megabyte string.
    stream.write("v")
    block = 1 << 16
    for lo in range(0, len(assignment), block):
        values = assignment[lo : lo + block]
        if v_format == "bits":
            bits = (values.astype(np.uint8) + ord("0")).tobytes().decode()
            stream.write(("" if lo else " ") + bits)
        else:
            lits = np.arange(lo + 1, lo + len(values) + 1)
            lits[~values] *= -1
            stream.write(" " + " ".join(map(str, lits.tolist())))
    stream.write(" 0\n" if v_format == "literals" else "\n")
    stream.flush()
