"""The command line: the paper's experiments, and Max-SAT on a user's file.

::

    python -m sklearn_localregret all --out results          # everything, minutes
    python -m sklearn_localregret all --paper                 # the paper's scale
    python -m sklearn_localregret trees --quick               # a fast check
    python -m sklearn_localregret solve formula.wcnf --passes 20
    python -m sklearn_localregret streams --quick             # stream leaderboard
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ._arguments import int_in_range, non_negative_int, output_folder, positive_int
from .experiments import MAX_ROUNDS, MAX_TRIALS
from .experiments._stopping import exit_status, sigterm_as_interrupt, stopped_how
from .maxsat import command as solve_command

__all__ = ["main", "build_parser"]


# What --quick runs, for the help: (trials, rounds, what a trial is) of each
# experiment's quick scale (tests/test_cli.py checks them against the scales;
# importing the experiments here would slow every command's start).
QUICK_SCALES = {
    "maxsat": (3, 300, "instances"),
    "disjunct": (3, 300, "trials"),
    "trees": (2, 200, "trials"),
}
#: Fewer trials give no intervals (experiments._intervals.MIN_TRIALS).
MIN_TRIALS = 3


def _quick_help(names) -> str:
    def one(name):
        trials, rounds, unit = QUICK_SCALES[name]
        few = ", too few for intervals" if trials < MIN_TRIALS else ""
        return f"{name} {trials} {unit} of {rounds} rounds{few}"

    return (
        "a small run that checks everything works, in seconds (its numbers "
        "are not results): " + "; ".join(one(name) for name in names)
    )


def _rounds_help(names) -> str:
    if len(names) == 1:
        quick = str(QUICK_SCALES[names[0]][1])
    else:
        quick = ", ".join(f"{QUICK_SCALES[name][1]} for {name}" for name in names)
    return (
        f"rounds per trial, at most {MAX_ROUNDS}; default: the paper's 1000 "
        f"({quick} with --quick)"
    )


def _add_experiment_commands(sub) -> None:
    from .experiments import EXPERIMENTS

    commands = {name: help_text for name, (_, help_text) in EXPERIMENTS.items()}
    commands["all"] = "every experiment, in turn: " + ", ".join(EXPERIMENTS)
    for name, help_text in commands.items():
        names = [n for n in EXPERIMENTS if n in QUICK_SCALES and name in (n, "all")]
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        cmd.add_argument(
            "--out",
            type=output_folder,
            default=Path("results"),
            help="folder for PNG plots and CSV/JSON numbers (default: results)",
        )
        scale = cmd.add_mutually_exclusive_group()
        scale.add_argument(
            "--paper",
            "--full",
            action="store_true",
            help="the paper's full trial counts (its expected time "
            "is printed before it starts)",
        )
        scale.add_argument(
            "--quick",
            action="store_true",
            help=_quick_help(names),
        )
        cmd.add_argument(
            "--trials",
            type=int_in_range(1, MAX_TRIALS),
            default=None,
            help=f"{'instances' if name == 'maxsat' else 'trials'}"
            f"{' (instances for maxsat)' if name == 'all' else ''}, at most "
            f"{MAX_TRIALS}; default: the scale's",
        )
        cmd.add_argument(
            "--rounds",
            type=int_in_range(1, MAX_ROUNDS),
            default=None,
            help=_rounds_help(names),
        )
        cmd.add_argument(
            "--seed", type=non_negative_int, default=0, help="random seed (0)"
        )
        cmd.add_argument(
            "--jobs",
            type=positive_int,
            default=os.cpu_count() or 1,
            help="worker processes (default: one per core, "
            f"{os.cpu_count() or 1} here); the numbers do not "
            "depend on it",
        )
        cmd.add_argument(
            "--force",
            action="store_true",
            help="rerun experiments already done with the same "
            "parameters in --out (they are skipped otherwise)",
        )
        cmd.add_argument("--quiet", action="store_true", help="no progress bars")


class _OneLineErrors(argparse.ArgumentParser):
    """A parser whose usage errors are one line on stderr (exit status 2),
    as ``solve``'s exit codes promise; ``--help`` gives the usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrors(
        prog="python -m sklearn_localregret",
        description="Online learning with local regret (Bowling & Zinkevich, "
        "ICML 2012): reproduce the paper's experiments or solve Max-SAT online.",
    )
    from . import __version__

    parser.add_argument(
        "--version", action="version", version=f"sklearn-localregret {__version__}"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_experiment_commands(sub)
    from .experiments._streams_cli import add_streams_parser

    add_streams_parser(sub)
    solve_command.add_parser(sub)
    return parser


def _plan(args):
    from .experiments import EXPERIMENTS, get_experiment

    scale = "quick" if args.quick else "paper" if args.paper else "default"
    names = list(EXPERIMENTS) if args.command == "all" else [args.command]
    runs = []
    for name in names:
        experiment = get_experiment(name)
        runs.append(
            (
                experiment,
                experiment.parameters(
                    scale,
                    **{
                        experiment.trials_parameter: args.trials,
                        "n_rounds": args.rounds,
                        "seed": args.seed,
                    },
                ),
            )
        )
    return scale, runs


def _announce(scale, runs, args) -> None:
    """The plan and its expected wall time, saying what the estimate counts:
    the experiments and tasks left to run, and whose task times it uses."""
    from .experiments._checkpoint import TaskCheckpoint
    from .experiments._runner import format_duration

    def trials(experiment, parameters):
        count = parameters[experiment.trials_parameter]
        unit = "instances" if experiment.trials_parameter == "n_instances" else "trials"
        return f"{experiment.name} {count} {unit}"

    print(
        f"{scale} scale: "
        + ", ".join(trials(e, p) for e, p in runs)
        + f"; {args.jobs} job{'s' if args.jobs > 1 else ''}.",
        flush=True,
    )
    expected = 0.0
    done: list[str] = []
    partly: list[str] = []
    measured: list[str] = []
    reference: list[str] = []
    for experiment, parameters in runs:
        if not args.force and experiment.finished(args.out, parameters) is not None:
            done.append(experiment.name)
            continue
        kept: set[int] = set()
        total = len(experiment.plan(parameters))
        if not args.force:
            kept = TaskCheckpoint(
                args.out, experiment.name, experiment._identity(parameters)
            ).indices(total)
        if kept:
            partly.append(f"{experiment.name} {len(kept)} of {total} tasks")
        expected += experiment.estimate_seconds(
            parameters, args.jobs, args.out, skip=kept
        )
        source = experiment.timing_source(parameters, args.out)
        (measured if source is not None else reference).append(experiment.name)
    if done or partly:
        print(
            f"Already in {args.out}/ with these parameters (not run again): "
            + "; ".join([*([", ".join(done) + " (finished)"] if done else []), *partly])
            + ".",
            flush=True,
        )
    if measured or reference:
        sources = []
        if measured:
            sources.append(
                f"task CPU times of the earlier run in {args.out}/ "
                f"({', '.join(measured)})"
            )
        if reference:
            sources.append(
                "task CPU times of the 2-core development machine "
                f"({', '.join(reference)})"
            )
        print(
            f"Expected wall time: about {format_duration(expected)} for the rest "
            f"on {args.jobs} otherwise idle core{'s' if args.jobs > 1 else ''} "
            f"(from {' and '.join(sources)}).",
            flush=True,
        )
    if scale != "paper":
        paper = sum(
            e.estimate_seconds(e.parameters("paper", seed=args.seed), args.jobs)
            for e, _ in runs
        )
        print(
            f"The paper's scale (--paper) would take about {format_duration(paper)} "
            "from scratch (development machine's task times).",
            flush=True,
        )
    print(flush=True)


def _interrupted(finished: list, runs, out: Path, elapsed: float, how: str) -> None:
    from .experiments._checkpoint import TaskCheckpoint
    from .experiments._runner import format_duration

    done = {name for name, _ in finished}
    lines = [f"\n{how} after {format_duration(elapsed)}."]
    if finished:
        kept = [
            str(out / name)
            for exp, doc in finished
            for name in [*doc["files"], f"{exp}.json"]
        ]
        lines.append("Kept (complete): " + ", ".join(kept) + ".")
    else:
        lines.append("No experiment had finished.")
    rest = []
    for experiment, parameters in runs:
        if experiment.name in done:
            continue
        checkpoint = TaskCheckpoint(
            out, experiment.name, experiment._identity(parameters)
        )
        total = len(experiment.plan(parameters))
        saved = checkpoint.count(total)
        rest.append(
            f"{experiment.name} ({saved} of {total} tasks kept in {checkpoint.folder})"
            if saved
            else f"{experiment.name} (no task finished)"
        )
    if rest:
        lines.append(
            "Not finished: " + ", ".join(rest) + ". Run the same command again "
            "to go on: finished experiments are skipped and kept tasks are not "
            "run again."
        )
    sys.stderr.write("\n".join(lines) + "\n")


def _run_one(experiment, parameters, scale, args, runner) -> dict:
    """Run one experiment of the job, between its heading and its timing."""
    from .experiments._runner import format_duration

    print(f"== {experiment.name} ==", flush=True)
    began = time.perf_counter()
    document = experiment.run(
        args.out,
        parameters,
        runner=runner,
        progress=not args.quiet,
        resume=not args.force,
        scale=scale,
    )
    if not document["skipped"]:
        files = ", ".join([*document["files"], f"{experiment.name}.json"])
        print(
            f"({experiment.name}: {format_duration(time.perf_counter() - began)}; "
            f"wrote {files} in {args.out}/)",
            flush=True,
        )
    print(flush=True)
    return document


def run_experiments(args) -> int:
    """Run the experiments of ``args.command`` (``all``: every one), resumably."""
    from .experiments._runner import TaskRunner, format_duration

    start = time.perf_counter()
    finished, runs = [], []
    try:
        # SIGTERM (kill, a scheduler's stop) ends the job as Ctrl-C does: the
        # workers are stopped by this process, and the summary is printed.
        with sigterm_as_interrupt():
            scale, runs = _plan(args)
            _announce(scale, runs, args)
            with TaskRunner(args.jobs) as runner:
                for experiment, parameters in runs:
                    document = _run_one(experiment, parameters, scale, args, runner)
                    finished.append((experiment.name, document))
    except KeyboardInterrupt as exc:
        elapsed = time.perf_counter() - start
        _interrupted(finished, runs, args.out, elapsed, stopped_how(exc))
        return exit_status(exc)
    except MemoryError as exc:
        # A last resort: --trials and --rounds are bounded, but not their
        # product, nor the other programs sharing the memory.
        print(
            f"error: out of memory ({str(exc) or 'MemoryError'}); fewer --trials or "
            "--rounds need less (finished tasks are kept for a rerun)",
            file=sys.stderr,
        )
        return 1
    cpu = sum(doc.get("cpu_seconds", 0.0) for _, doc in finished if not doc["skipped"])
    print(
        f"Wall time: {format_duration(time.perf_counter() - start)} with "
        f"{args.jobs} job{'s' if args.jobs > 1 else ''} (the tasks used "
        f"{format_duration(cpu)} of CPU time); results in {args.out}/",
        flush=True,
    )
    return 0


def solve(args) -> int:
    """The ``solve`` command (:mod:`sklearn_localregret.maxsat.command`); the
    exit code."""
    return solve_command.run(args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sklearn_localregret`` and the console script."""
    args = build_parser().parse_args(argv)
    if args.command == "solve":
        return solve(args)
    if args.command == "streams":
        from .experiments._streams_cli import streams_command

        return streams_command(args, None if argv is None else list(argv)[1:])
    return run_experiments(args)


if __name__ == "__main__":
    sys.exit(main())
