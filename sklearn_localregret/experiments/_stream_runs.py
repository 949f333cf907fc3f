"""One leaderboard run (a learner on a stream), and many, each in a forked process.

:func:`evaluate_run` is progressive validation of one learner on one stream,
its failure recorded rather than raised. :func:`run_isolated` runs many in
freshly forked processes (Linux: :func:`can_isolate`), each measuring the
peak memory it added, shared libraries' pages left out; :func:`warm_up`
first loads what the learners need in the parent. :mod:`.streams` plans
the runs and collects their records.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import traceback
import warnings
from multiprocessing.connection import Connection, wait
from typing import cast

import numpy as np

from ..datasets.streams import Stream
from ..evaluate import progressive_score
from ._stream_records import RunRecord
from .stream_learners import Learner

#: Points per stored learning curve.
CURVE_POINTS = 100


# -- one run --------------------------------------------------------------------


def _curve(result) -> tuple[list, list]:
    """The windowed error at up to CURVE_POINTS round ends, the last included."""
    n = len(result.rows)
    at = np.unique(np.linspace(0, n - 1, min(n, CURVE_POINTS)).round().astype(int))
    return result.rows[at].tolist(), result.windowed_error[at].tolist()


def evaluate_run(
    stream: Stream, name: str, learner: Learner, seed: int, batch_size: int, window: int
) -> RunRecord:
    """Progressive validation of one learner on one stream; failures recorded."""
    record = RunRecord(stream.name, name, seed)
    if learner.binary_only and not stream.is_binary:
        record.status = "n/a"
        record.message = f"binary only; the stream has {len(stream.classes)} classes"
        return record
    X, y = stream.X, stream.y
    if learner.max_rows is not None and learner.max_rows < len(y):
        X, y = X[: learner.max_rows], y[: learner.max_rows]
    try:
        with warnings.catch_warnings():
            # Learners' numerical warnings (GaussianNB on constant features,
            # convergence notes) would drown the progress bar.
            warnings.simplefilter("ignore")
            result = progressive_score(
                learner.make(seed),
                X,
                y,
                batch_size=batch_size,
                classes=stream.classes,
                window=window,
            )
    except Exception as exc:  # the suite goes on; the message is the result
        record.status = "failed"
        record.message = f"{type(exc).__name__}: {exc}".strip()
        return record
    record.status = "ok"
    record.n_rows = result.n_rows
    record.error = result.error
    record.window_error = result.window_error
    record.seconds = result.seconds
    record.rows_per_second = result.rows_per_second
    record.curve_rows, record.curve = _curve(result)
    # Our learners also record the error of the randomised plays their
    # guarantee is about (each drawn before its round's labels, inside
    # partial_fit); predict follows the learner's `prediction` rule.
    played = getattr(result.estimator, "online_error_", None)
    record.played_error = None if played is None else float(played)
    return record


# -- running many, each in a forked process ---------------------------------------

#: Rows of each stream every learner learns once before the runs (warm_up).
WARM_UP_ROWS = 30


def warm_up(plan) -> None:
    """Load what the learners need before the runs fork: modules, and our
    learners' compiled kernels (numba compiles them, or loads them from its cache,
    at their first call), by learning and predicting the first
    ``WARM_UP_ROWS`` rows of each stream once. A forked run then inherits
    them: its peak memory is what learning its stream adds to a loaded
    library, and its rows/s leave out compilation, as for learners without
    kernels. Other learners are only made (their modules imported): a
    learner of unknown code learns in its own process only (it may crash)."""
    for learner in plan.learners.values():
        try:
            learner.make(plan.seeds[0])
        except Exception:
            pass
        if learner.family != "local regret":
            continue
        for versions in plan.streams.values():
            stream = versions[0]
            if learner.binary_only and not stream.is_binary:
                continue
            X, y = stream.X[:WARM_UP_ROWS], stream.y[:WARM_UP_ROWS]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = learner.make(plan.seeds[0])
                    model.partial_fit(X, y, classes=stream.classes)
                    model.predict(X)
            except Exception:  # a failing learner fails in its runs
                pass


def _memory_kib() -> dict:
    values = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssFile"):
                values[key] = int(rest.split()[0])
    return values


def _peak_private_kib(before: dict, after: dict) -> int:
    """The peak resident memory a forked run added, less the pages of files
    (shared libraries' code, mapped files) it mapped back in.

    A forked child starts without the parent's page table entries of
    file-backed mappings: every page of library code it runs (numpy's, numba's
    kernels' support, Python's own) faults in again and counts in its
    resident set (megabytes: most for our compiled learners, some for
    River's), though it is shared with every other process and no memory is
    added. Those pages stay mapped, so their growth at the end is
    taken off the peak (``RssFile`` where the kernel reports it).
    """
    peak = after["VmHWM"] - before["VmRSS"]
    if "RssFile" in before and "RssFile" in after:
        peak -= max(after["RssFile"] - before["RssFile"], 0)
    return max(peak, 0)


def can_isolate() -> bool:
    return (
        sys.platform.startswith("linux")
        and os.path.exists("/proc/self/status")
        and "fork" in multiprocessing.get_all_start_methods()
    )


#: Held back in the parent while it forks: a child must not get them before
#: it has set its own handlers (_child), and the parent acts on them after.
_STOPS = {signal.SIGINT, signal.SIGTERM}


def _child(task, connection) -> None:
    """Forked child: reset the peak-memory mark, run, send the record back."""
    # A terminal's Ctrl-C reaches the whole process group: the parent handles
    # it and ends the children. SIGTERM (the parent ending it) ends a child at
    # once, rather than raising the parent's Terminated in it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    try:
        try:
            with open("/proc/self/clear_refs", "w") as handle:
                handle.write("5")  # resets VmHWM to the current VmRSS
        except OSError:
            pass
        before = _memory_kib()
        record = evaluate_run(*task)
        after = _memory_kib()
        record.peak_memory_mb = _peak_private_kib(before, after) / 1024
        connection.send(record)
    except BaseException:
        connection.send(_failed(task, traceback.format_exc(limit=2).strip()))
    finally:
        connection.close()


def _failed(task, message: str) -> RunRecord:
    """The record of a run that raised or whose process died."""
    stream, name, _, seed = task[:4]
    return RunRecord(stream.name, name, seed, status="failed", message=message)


def run_isolated(tasks, jobs, on_record) -> None:
    """Run ``tasks``, at most ``jobs`` at once, each in a forked child, and call
    ``on_record(record)`` as each ends. If anything ends this early (Ctrl-C,
    SIGTERM turned into a ``KeyboardInterrupt``), the children still running
    are killed first: none outlives it."""
    context = multiprocessing.get_context("fork")
    pending = iter(tasks)
    running: dict[Connection, tuple] = {}
    try:
        while True:
            while len(running) < jobs:
                task = next(pending, None)
                if task is None:
                    break
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(task, send), daemon=True)
                blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
                try:
                    process.start()
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                send.close()
                running[receive] = (process, task)
            if not running:
                return
            # wait() returns some of the connections it was given.
            for connection in cast("list[Connection]", wait(list(running))):
                process, task = running[connection]
                try:
                    record = connection.recv()
                except EOFError:
                    process.join()
                    message = f"the run's process died (exit code {process.exitcode})"
                    record = _failed(task, message)
                process.join()
                connection.close()
                del running[connection]
                on_record(record)
    finally:
        for connection, (process, _) in running.items():
            process.kill()
            process.join()
            connection.close()
