"""``python -m sklearn_localregret streams``: the stream leaderboard's command.

::

    python -m sklearn_localregret streams                   # the default run
    python -m sklearn_localregret streams --quick           # all of it, tiny
    python -m sklearn_localregret streams --streams sea stagger --learners lr-tree sgd
    python -m sklearn_localregret streams --csv mine.csv --label-column y
    python -m sklearn_localregret streams --python mypackage.data:stream

Bad input (an unknown name, a CSV without its label column, a stream with one
class, ...) prints one line on stderr and exits with status 2. Ctrl-C or
SIGTERM stops the runs and their processes, says how far they got, and exits
with status 130 or 143, writing nothing: a leaderboard needs every run.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from .._arguments import int_in_range, non_negative_int, output_folder, positive_int
from ..datasets.streams import MIN_ROWS
from . import MAX_SEEDS, MAX_STREAM_ROWS
from ._stopping import exit_status, sigterm_as_interrupt, stopped_how
from ._task_runner import format_duration

__all__ = ["add_streams_parser", "streams_command"]


def add_streams_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``streams`` subcommand to ``subparsers``."""
    text = (
        "stream leaderboard: progressive validation of our learners and "
        "River / scikit-learn peers on real, drifting and adversarial streams"
    )
    cmd = subparsers.add_parser("streams", help=text, description=text + ".")
    cmd.add_argument(
        "--out",
        type=output_folder,
        default=Path("results"),
        help="folder for the CSV/JSON/markdown/PNG files (results); the "
        "streams_*.png figures of an earlier leaderboard there are removed",
    )
    cmd.add_argument(
        "--quick",
        action="store_true",
        help="every stream and learner on 100 rows and 2 seeds",
    )
    cmd.add_argument(
        "--seeds",
        type=int_in_range(1, MAX_SEEDS),
        default=None,
        metavar="N",
        help=f"seeds per stream, at most {MAX_SEEDS} (3; 2 with --quick)",
    )
    cmd.add_argument("--seed", type=non_negative_int, default=0, help="first seed (0)")
    cmd.add_argument(
        "--rows",
        type=int_in_range(MIN_ROWS, MAX_STREAM_ROWS),
        default=None,
        metavar="N",
        help=f"rows per named stream, at most {MAX_STREAM_ROWS} (3000; 100 with "
        "--quick)",
    )
    cmd.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        metavar="B",
        help="rows per round, predicted then learned (10)",
    )
    cmd.add_argument(
        "--window",
        type=positive_int,
        default=None,
        metavar="W",
        help="rows of the moving error window (500; 50 with --quick)",
    )
    cmd.add_argument(
        "--streams",
        nargs="+",
        default=None,
        metavar="NAME",
        help="named streams to run, or 'all' (default: all, or none "
        "when --csv/--python add streams)",
    )
    cmd.add_argument(
        "--learners",
        nargs="+",
        default=None,
        metavar="NAME",
        help="learners to run, or 'all' (default: all installed)",
    )
    cmd.add_argument(
        "--csv",
        action="append",
        default=[],
        metavar="PATH",
        help="add a stream from a CSV file with a header ('-' reads stdin); repeatable",
    )
    cmd.add_argument(
        "--label-column",
        default=None,
        metavar="COLUMN",
        help="label column of the --csv files (default: the last)",
    )
    cmd.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="MODULE:NAME",
        help="add a stream from Python: a Stream, an (X, y) pair, an "
        "iterable of (x, y) rows, or a function returning one; "
        "repeatable",
    )
    cmd.add_argument(
        "--drift-points",
        type=non_negative_int,
        nargs="+",
        default=(),
        metavar="ROW",
        help="drift points of the added streams",
    )
    cmd.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help="runs at once (1: the timings do not compete)",
    )
    cmd.add_argument(
        "--no-isolate",
        action="store_true",
        help="run in this process (no peak-memory measurement)",
    )
    cmd.add_argument(
        "--list",
        action="store_true",
        help="list the named streams and learners, and exit",
    )
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    return cmd


def _listing() -> str:
    from ..datasets.streams import STREAMS, stream_names
    from .stream_learners import LEARNERS, learner_names

    streams, learners = stream_names(available=True), learner_names(available=True)
    lines = ["streams:"]
    lines += [
        f"  {name:<16}{spec.description}"
        + ("" if name in streams else " [needs River]")
        for name, spec in STREAMS.items()
    ]
    lines += ["learners:"]
    lines += [
        f"  {name:<20}{learner.description}"
        + ("" if name in learners else " [needs River]")
        for name, learner in LEARNERS.items()
    ]
    return "\n".join(lines)


def _python_source(spec: str):
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--python expects MODULE:NAME, got {spec!r}.")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--python {spec}: cannot import {module_name!r} ({exc}).")
    try:
        source = getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"--python {spec}: {module_name!r} has no {attribute!r}.")
    return source() if callable(source) else source


def _user_streams(args) -> list:
    from ..datasets.streams import Stream, make_stream

    if not (args.csv or args.python):
        for option, value in (
            ("--drift-points", args.drift_points),
            ("--label-column", args.label_column),
        ):
            if value:
                raise ValueError(
                    f"{option} applies to the streams --csv or --python add; "
                    "none is given."
                )
    streams = []
    for path in args.csv:
        with _naming("--csv", path):
            source, name = (sys.stdin, "stdin") if path == "-" else (path, None)
            streams.append(
                make_stream(
                    source,
                    name=name,
                    label_column=args.label_column,
                    drift_points=args.drift_points,
                )
            )
    for spec in args.python:
        with _naming("--python", spec):
            source = _python_source(spec)
            if isinstance(source, Stream):
                streams.append(source)
            else:
                name = spec.partition(":")[2]
                streams.append(
                    make_stream(source, name=name, drift_points=args.drift_points)
                )
    return streams


@contextmanager
def _naming(option: str, value: str):
    """Errors of the stream an option adds name the option and its value."""
    try:
        yield
    except (ValueError, TypeError, OSError) as exc:
        message = (
            str(exc)
            if isinstance(exc, (ValueError, TypeError))
            else (f"{exc.strerror or exc}: {exc.filename or value!r}")
        )
        if message.startswith(option):
            raise
        raise ValueError(f"{option} {value}: {message}") from None


def _without_river(args) -> str | None:
    """What a run leaves out because River is not installed (None: nothing).

    Only the defaults are trimmed silently by ``available=True``; a name asked
    for by hand fails loudly in ``plan_streams`` instead.
    """
    from ..datasets.streams import stream_names
    from .stream_learners import learner_names

    streams = []
    if (
        args.streams is None
        and not (args.csv or args.python)
        or (args.streams is not None and "all" in args.streams)
    ):
        streams = sorted(set(stream_names()) - set(stream_names(available=True)))
    learners = []
    if args.learners is None or "all" in args.learners:
        learners = sorted(set(learner_names()) - set(learner_names(available=True)))
    if not streams and not learners:
        return None
    parts = []
    if streams:
        parts.append(
            f"{len(streams)} of {len(stream_names())} streams ({', '.join(streams)})"
        )
    if learners:
        parts.append(
            f"{len(learners)} of {len(learner_names())} learners "
            f"({', '.join(learners)})"
        )
    return (
        "River is not installed: left out "
        + " and ".join(parts)
        + ". Install it to run them: pip install 'sklearn-localregret[river]' "
        "(or pip install river)."
    )


def streams_command(args, argv=None) -> int:
    """Run the ``streams`` subcommand; 2 on bad input, 130 or 143 when stopped
    by Ctrl-C or SIGTERM, 0 otherwise."""
    if args.list:
        print(_listing())
        return 0
    start = time.perf_counter()
    # How far it got, for the message if it is stopped: the runs planned and
    # finished, and whether the files were being written.
    progress = {"runs": None, "finished": 0, "writing": False}
    try:
        with sigterm_as_interrupt():
            return _leaderboard(args, argv, progress)
    except KeyboardInterrupt as exc:
        elapsed = format_duration(time.perf_counter() - start)
        if progress["writing"]:
            what = (
                f"while writing its files: each file in {args.out}/ is whole, "
                "but some may be an earlier run's"
            )
        else:
            done = (
                "before any run"
                if progress["runs"] is None
                else f"{progress['finished']} of {progress['runs']} runs had finished"
            )
            what = (
                f"{done}; nothing written to {args.out}/ (a leaderboard needs "
                "every run). The same command runs them all again"
            )
        print(f"\n{stopped_how(exc)} after {elapsed}, {what}.", file=sys.stderr)
        return exit_status(exc)
    except MemoryError as exc:
        print(
            f"error: out of memory ({str(exc) or 'MemoryError'}); fewer --seeds, "
            "--rows or streams need less",
            file=sys.stderr,
        )
        return 1


def _leaderboard(args, argv, progress: dict) -> int:
    from .streams import plan_streams, run_plan

    try:
        user = _user_streams(args)
        named: list[str] | None
        if args.streams is None:
            named = None if not user else []
        elif "all" in args.streams:
            named = None
        else:
            named = list(args.streams)
        if named is None:
            from ..datasets.streams import stream_names

            named = stream_names(available=True)
        every = args.learners is None or "all" in args.learners
        plan = plan_streams(
            streams=named + user,
            learners=None if every else args.learners,
            n_seeds=args.seeds,
            seed=args.seed,
            n_rows=args.rows,
            batch_size=args.batch_size,
            window=args.window,
            quick=args.quick,
        )
    except (ValueError, TypeError, ImportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    left_out = _without_river(args)
    if left_out:
        print(left_out, file=sys.stderr, flush=True)
    progress["runs"] = len(plan.streams) * len(plan.seeds) * len(plan.learners)

    def finished(record) -> None:
        progress["finished"] += 1

    board = run_plan(
        plan,
        progress=not args.quiet,
        isolate=False if args.no_isolate else None,
        jobs=args.jobs,
        on_record=finished,
    )
    words = ["python", "-m", "sklearn_localregret", "streams"]
    if left_out:
        board.settings["left_out"] = left_out
    board.command = shlex.join(words + list(argv if argv is not None else sys.argv[2:]))
    progress["writing"] = True
    paths = board.write(args.out)
    progress["writing"] = False
    print(board.markdown())
    print(
        f"\n({board.settings['wall_seconds']:.0f} s; {len(paths)} files in "
        f"{args.out}/)",
        flush=True,
    )
    return 0
