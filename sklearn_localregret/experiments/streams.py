"""The stream leaderboard: progressive validation of many learners on many streams.

Every learner of :data:`~.stream_learners.LEARNERS` runs on every stream of
:data:`~sklearn_localregret.datasets.streams.STREAMS` (or the ones asked for),
for several seeds, with :func:`~sklearn_localregret.evaluate.progressive_score`:
rounds of ``batch_size`` rows, each predicted before it is learned. The result
is a :class:`~._stream_report.Leaderboard`: the error over the whole stream and
over its last ``window`` rows, rows per second and peak memory per run, 95%
confidence intervals over seeds, written as CSV, JSON, a markdown table and a
PNG of learning curves per stream.

A learner that raises on a stream (for instance one that needs boolean
features, on numeric rows) is recorded as failed there, with its error
message, and the suite goes on. A binary-only learner is "n/a" on streams with
more classes.

On Linux each run happens in a freshly forked process, which measures the peak
resident memory the run added (``VmHWM``, less the pages of shared libraries
the child maps back in after the fork: ``RssFile``) without slowing it down,
and keeps a crashing learner from taking the suite with it; elsewhere runs happen in
process and memory is not measured. Before the runs each of our learners
learns the first rows of each stream once (``WARM_UP_ROWS``), so that modules
and compiled kernels are loaded in the parent: a run's memory and speed are those
of learning its stream, not of loading the library.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path

from .._arguments import folder_problem
from .._checks import check_positive_int
from ..datasets.streams import STREAMS, Stream, load_stream, stream_names
from . import MAX_SEEDS, MAX_STREAM_ROWS
from ._stream_report import Leaderboard, RunRecord
from ._stream_runs import CURVE_POINTS as CURVE_POINTS
from ._stream_runs import WARM_UP_ROWS as WARM_UP_ROWS
from ._stream_runs import can_isolate, evaluate_run, run_isolated, warm_up
from .stream_learners import LEARNERS, Learner, learner_names

__all__ = [
    "DEFAULTS",
    "QUICK",
    "Leaderboard",
    "RunRecord",
    "StreamPlan",
    "evaluate_run",
    "plan_streams",
    "run_plan",
    "run_streams",
]

#: The default run: about 10 minutes on a 2-core machine (see the README).
DEFAULTS = {"n_seeds": 3, "n_rows": 3000, "batch_size": 10, "window": 500}
#: ``quick=True``: every stream and learner, tiny; a check that all runs.
QUICK = {"n_seeds": 2, "n_rows": 100, "batch_size": 10, "window": 50}


@dataclass
class StreamPlan:
    """Everything a run needs, validated: built by :func:`plan_streams`."""

    streams: dict  # name -> list of Stream, one per seed
    learners: dict  # name -> Learner
    seeds: list
    batch_size: int
    window: int
    settings: dict


def plan_streams(
    *,
    streams=None,
    learners=None,
    n_seeds=None,
    seed: int = 0,
    n_rows=None,
    batch_size=None,
    window=None,
    quick: bool = False,
) -> StreamPlan:
    """Validate a leaderboard request and build its streams.

    Parameters are those of :func:`run_streams`. Raises ``ValueError`` (or
    ``ImportError`` for a named stream that needs River) on bad input, before
    anything runs.
    """
    base = QUICK if quick else DEFAULTS
    n_seeds = check_positive_int(
        base["n_seeds"] if n_seeds is None else n_seeds, "n_seeds"
    )
    n_rows = check_positive_int(base["n_rows"] if n_rows is None else n_rows, "n_rows")
    for name, value, largest in (
        ("n_seeds", n_seeds, MAX_SEEDS),
        ("n_rows", n_rows, MAX_STREAM_ROWS),
    ):
        if value > largest:  # every copy of every stream is built up front
            raise ValueError(f"{name} must be at most {largest}, got {value!r}.")
    batch_size = check_positive_int(
        base["batch_size"] if batch_size is None else batch_size, "batch_size"
    )
    window = check_positive_int(base["window"] if window is None else window, "window")
    if isinstance(seed, bool) or not isinstance(seed, Integral):
        raise ValueError(f"seed must be an integer, got {seed!r}.")
    if not 0 <= seed <= 2**32 - n_seeds:  # numpy's and River's seeds
        raise ValueError(
            f"seed must be in [0, 2**32 - n_seeds], the seeds used {seed}.. "
            f"{seed + n_seeds - 1} (a random_state is below 2**32)."
        )
    seeds = [int(seed) + i for i in range(n_seeds)]

    if streams is None:
        streams = stream_names(available=True)
    # (lists: an iterator would be used up by the checks below)
    streams = [streams] if isinstance(streams, (str, Stream)) else list(streams)
    if learners is None:
        learners = learner_names(available=True)
    if isinstance(learners, Learner):
        raise TypeError("a Learner needs a name: learners=[(name, Learner(...))].")
    learners = [learners] if isinstance(learners, str) else list(learners)
    # Every name is checked before any stream is built.
    names = []
    for entry in streams:
        if isinstance(entry, Stream):
            names.append(entry.name)
        elif isinstance(entry, str):
            if entry not in STREAMS:
                raise ValueError(
                    f"Unknown stream {entry!r}; the named streams are "
                    f"{', '.join(STREAMS)}."
                )
            names.append(entry)
        else:
            raise TypeError(
                "streams must hold stream names or Stream objects, got "
                f"{type(entry).__name__}."
            )
    if len(set(names)) < len(names):
        raise ValueError(f"A stream name is listed twice: {names}.")
    chosen: dict[str, Learner] = {}
    for entry in learners:
        if isinstance(entry, tuple) and len(entry) == 2:
            name, learner = entry
        elif isinstance(entry, str):
            if entry not in LEARNERS:
                raise ValueError(
                    f"Unknown learner {entry!r}; the learners are "
                    f"{', '.join(LEARNERS)}."
                )
            name, learner = entry, LEARNERS[entry]
        else:
            raise TypeError(
                "learners must hold learner names or (name, Learner) "
                f"pairs, got {type(entry).__name__}."
            )
        if not isinstance(learner, Learner):
            raise TypeError(f"Learner {name!r} is not a Learner.")
        if name in chosen:
            raise ValueError(f"Learner {name!r} is listed twice.")
        chosen[name] = learner
    built: dict[str, list[Stream]] = {}
    for entry in streams:
        if isinstance(entry, Stream):
            built[entry.name] = [entry] * n_seeds
        else:
            built[entry] = [load_stream(entry, n_rows=n_rows, seed=s) for s in seeds]
    if not built or not chosen:
        raise ValueError("Nothing to run: no streams or no learners.")
    for name, copies in built.items():
        shortest = min(len(stream.y) for stream in copies)
        if batch_size >= shortest:
            raise ValueError(
                f"batch_size {batch_size} is not below the {shortest} rows of "
                f"stream {name!r}: the whole stream would be one round, "
                "predicted by learners that learnt nothing yet (every row a "
                "mistake); take a smaller batch size."
            )
    settings = {
        "n_seeds": n_seeds,
        "seeds": seeds,
        "n_rows": n_rows,
        "batch_size": batch_size,
        "window": window,
        "quick": bool(quick),
    }
    return StreamPlan(built, chosen, seeds, batch_size, window, settings)


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        sys.stderr.write(
            "tqdm is not installed: no progress bar (pip install "
            "'sklearn-localregret[plot]')\n"
        )
        return None
    return tqdm(
        total=total, desc="streams", unit="run", file=sys.stderr, dynamic_ncols=True
    )


def run_plan(
    plan: StreamPlan,
    *,
    progress: bool = True,
    isolate=None,
    jobs: int = 1,
    on_record: Callable[[RunRecord], object] | None = None,
) -> Leaderboard:
    """Run a validated :class:`StreamPlan` and collect the records.

    ``on_record(record)`` is called as each run ends (the command counts
    them, to say how far an interrupted leaderboard got). Ctrl-C (a
    ``KeyboardInterrupt``) ends the runs, their forked processes included,
    and passes through.
    """
    jobs = check_positive_int(jobs, "jobs")
    if isolate is None:
        isolate = can_isolate()
    elif isolate and not can_isolate():
        raise ValueError("isolate=True needs Linux with fork and /proc.")
    tasks = [
        (versions[i], name, learner, seed, plan.batch_size, plan.window)
        for versions in plan.streams.values()
        for i, seed in enumerate(plan.seeds)
        for name, learner in plan.learners.items()
    ]
    warm_up(plan)
    records = []
    bar = _progress_bar(len(tasks), progress)
    start = time.perf_counter()

    def add(record):
        records.append(record)
        if on_record is not None:
            on_record(record)
        if bar is not None:
            bar.set_postfix_str(f"{record.stream} / {record.learner}", refresh=False)
            bar.update()

    try:
        if isolate:
            run_isolated(tasks, jobs, add)
        else:
            for task in tasks:
                add(evaluate_run(*task))
    finally:
        if bar is not None:
            bar.close()
    settings = dict(
        plan.settings,
        isolated=bool(isolate),
        jobs=jobs,
        wall_seconds=time.perf_counter() - start,
    )
    order = {
        (s, n, seed): k
        for k, (s, n, seed) in enumerate((t[0].name, t[1], t[3]) for t in tasks)
    }
    records.sort(key=lambda r: order[(r.stream, r.learner, r.seed)])
    streams = {name: versions[0] for name, versions in plan.streams.items()}
    return Leaderboard(records, streams, plan.learners, settings)


def run_streams(
    out: str | Path | None = "results",
    *,
    streams=None,
    learners=None,
    n_seeds=None,
    seed: int = 0,
    n_rows=None,
    batch_size=None,
    window=None,
    quick: bool = False,
    progress: bool = True,
    isolate=None,
    jobs: int = 1,
    command: str | None = None,
) -> Leaderboard:
    """Run the stream leaderboard, write its files and print its tables.

    Parameters
    ----------
    out : path or None, default="results"
        Folder for ``streams.csv`` (one row per run), ``streams_summary.csv``
        (mean and 95% CI over seeds), ``streams_curves.csv``, ``streams.json``
        (all of it), ``streams.md`` (the leaderboard) and
        ``streams_<stream>.png`` (characters other than letters, digits,
        ``_``, ``.`` and ``-`` replaced by ``_``; ``-2``, ``-3``, ... added to
        a name another stream's figure took); None writes nothing. The
        ``streams_<name>.png`` files of an earlier leaderboard there are
        removed: the folder holds this one's figures only.
    streams : list of str or Stream, default=None
        Named streams (:func:`~sklearn_localregret.datasets.stream_names`) or
        your own (:func:`~sklearn_localregret.datasets.make_stream`); None
        means every named stream whose dependencies are installed. A named
        stream is rebuilt for each seed; a ``Stream`` object is the same for
        all seeds, whose only role is then to seed the learners.
    learners : list of str or (name, Learner), default=None
        Registered learner names or your own; None means every registered
        learner whose dependencies are installed.
    n_seeds : int, default=3 (2 with ``quick``)
        Seeds ``seed, seed + 1, ...``: each seeds a stream and the learners;
        at most 100.
    seed : int, default=0
        First seed.
    n_rows : int, default=3000 (100 with ``quick``)
        Rows per named stream (real datasets may have fewer), at most
        1000000.
    batch_size : int, default=10
        Rows per round: predicted together, then learned together.
    window : int, default=500 (50 with ``quick``)
        Rows of the moving window of the learning curves and of the final
        window error.
    quick : bool, default=False
        The small defaults: checks that everything runs in well under a minute.
    progress : bool, default=True
        A progress bar on stderr (needs tqdm).
    isolate : bool or None, default=None
        Run each (stream, learner, seed) in a forked process and measure its
        peak memory; None means whenever possible (Linux).
    jobs : int, default=1
        Runs at the same time when isolated. More than one makes the rows per
        second of concurrent runs compete for the cores.
    command : str, default=None
        The command line to quote in the markdown leaderboard.

    Returns
    -------
    Leaderboard

    Examples
    --------
    >>> from sklearn_localregret.experiments import run_streams
    >>> board = run_streams(None, streams=["inverted"], learners=["lr-tree", "sgd"],
    ...                     n_rows=400, n_seeds=2, window=100,
    ...                     progress=False)  # doctest: +ELLIPSIS
    # Stream leaderboard
    ...
    | inverted | abrupt at 200 | **0.1... n/a (2 trials)** | 0.1... n/a (2 trials) |
    ...
    >>> [(r.learner, r.seed, round(r.error, 3)) for r in board.records]
    [('lr-tree', 0, ...), ('sgd', 0, 0.163), ('lr-tree', 1, ...), ('sgd', 1, 0.2)]
    """
    problem = None if out is None else folder_problem(out)
    if problem is not None:  # refused before the runs, not after them
        raise ValueError(f"out: {problem}.")
    plan = plan_streams(
        streams=streams,
        learners=learners,
        n_seeds=n_seeds,
        seed=seed,
        n_rows=n_rows,
        batch_size=batch_size,
        window=window,
        quick=quick,
    )
    board = run_plan(plan, progress=progress, isolate=isolate, jobs=jobs)
    board.command = command
    if out is not None:
        board.write(out)
    print(board.markdown())
    return board
