"""Running tasks: serially or in worker processes, longest first, with a progress bar.

A :class:`Task` is a module-level function called with plain arguments and
seeded from them alone, so its result does not depend on where or when it
runs: several worker processes give exactly the numbers of a serial run.
:class:`TaskRunner` runs them (longest first, so the workers finish together)
and shows one `tqdm <https://tqdm.github.io>`_ bar per experiment on stderr;
:mod:`._runner` builds an experiment's tasks and runs them here.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral

__all__ = ["Task", "TaskRunner", "check_n_jobs", "format_duration"]


@dataclass(frozen=True)
class Task:
    """One unit of work: ``function(*args)``, run in any process.

    ``kind`` names what it computes (e.g. ``"nursery: local swap"``): tasks of
    one kind take about the same time, which the progress bar and the time
    estimates use.
    """

    kind: str
    function: Callable
    args: tuple


def _call(indexed: tuple[int, Task]) -> tuple[int, float, float, object]:
    index, task = indexed
    start, start_cpu = time.perf_counter(), time.process_time()
    result = task.function(*task.args)
    return (index, time.perf_counter() - start, time.process_time() - start_cpu, result)


def _init_worker() -> None:
    # Ctrl-C is the parent's to handle: it ends the workers itself. One BLAS
    # thread per worker, so that n_jobs workers use n_jobs cores.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


class _NoBar:
    def update(self, n=1):
        pass

    def set_postfix_str(self, text, refresh=True):
        pass

    def close(self):
        pass


def _progress_bar(total: float, desc: str, enabled: bool):
    if not enabled:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        sys.stderr.write(
            "tqdm is not installed: no progress bars (pip install "
            "'sklearn-localregret[plot]')\n"
        )
        return _NoBar()
    # The bar advances by each task's expected seconds, so that its time left
    # is meaningful when tasks differ in cost; the task count is the postfix.
    return tqdm(
        total=total,
        desc=desc,
        file=sys.stderr,
        dynamic_ncols=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]",
    )


def check_n_jobs(n_jobs) -> int:
    """``None`` means 1 and ``-1`` every core, as in scikit-learn."""
    if n_jobs is None:
        return 1
    if (
        not isinstance(n_jobs, Integral)
        or isinstance(n_jobs, bool)
        or n_jobs == 0
        or n_jobs < -1
    ):
        raise ValueError(
            f"n_jobs must be a positive integer, -1 or None, got {n_jobs!r}."
        )
    return multiprocessing.cpu_count() if n_jobs == -1 else int(n_jobs)


class TaskRunner:
    """Runs tasks serially or in worker processes; results in task order.

    Use as a context manager: on leaving it the workers are closed, or killed
    at once if an exception (such as ``KeyboardInterrupt``) is passing through.

    Parameters
    ----------
    n_jobs : int, default=1
        Worker processes; 1 runs every task in this process. ``-1``: one per
        core.
    """

    def __init__(self, n_jobs: int | None = 1):
        self.n_jobs = check_n_jobs(n_jobs)
        self._pool = None

    def __enter__(self) -> TaskRunner:
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        if self._pool is not None:
            if exc_type is None:
                self._pool.close()
            else:
                self._pool.terminate()
            self._pool.join()
            self._pool = None

    def _workers(self):
        if self._pool is None:
            # Workers are started with Ctrl-C ignored (an ignored signal stays
            # ignored in a new interpreter), so that none prints a traceback.
            main = threading.current_thread() is threading.main_thread()
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
            try:
                self._pool = multiprocessing.get_context("spawn").Pool(
                    self.n_jobs, initializer=_init_worker
                )
            finally:
                if main:
                    signal.signal(signal.SIGINT, previous)
        return self._pool

    def run(
        self,
        tasks: Sequence[Task],
        *,
        expected: Sequence[float] | None = None,
        desc: str = "",
        progress: bool = True,
        finished: Mapping[int, tuple[object, float, float]] | None = None,
        on_result: Callable[[int, object, float, float], None] | None = None,
    ) -> tuple[list, list[float], list[float]]:
        """Run every task; return results, wall and CPU seconds, in task order.

        Parameters
        ----------
        tasks : sequence of Task
        expected : sequence of float, default=None
            Expected seconds of each task: the longest start first, and the
            progress bar advances by them. Equal when None.
        desc : str
            Progress bar label.
        progress : bool
            Show the bar (stderr).
        finished : mapping, default=None
            ``{index: (result, seconds, cpu seconds)}`` of tasks already done
            (kept by an interrupted run): not run again. An index that is not
            one of ``tasks``' raises ``ValueError``.
        on_result : callable, default=None
            ``on_result(index, result, seconds, cpu_seconds)``, called in this
            process as each task finishes (to keep it).
        """
        n = len(tasks)
        finished = dict(finished or {})
        outside = [i for i in finished if not (isinstance(i, Integral) and 0 <= i < n)]
        if outside:
            raise ValueError(
                f"finished holds indices of no task (0 to {n - 1}): {outside[:5]}."
            )
        expected = [1.0] * n if expected is None else [float(e) for e in expected]
        order = sorted(
            (i for i in range(n) if i not in finished), key=lambda i: -expected[i]
        )
        results: list = [None] * n
        seconds, cpu = [0.0] * n, [0.0] * n
        for index, (result, elapsed, used) in finished.items():
            results[index], seconds[index], cpu[index] = result, elapsed, used
        indexed = [(i, tasks[i]) for i in order]
        if self.n_jobs == 1 or len(indexed) <= 1:
            done_tasks = map(_call, indexed)
        else:
            done_tasks = self._workers().imap_unordered(_call, indexed)
        # Integer hundredths of expected seconds: the bar ends at 100% exactly.
        steps = [max(round(e * 100), 1) for e in expected]
        bar = _progress_bar(sum(steps), desc, progress)
        bar.update(sum(steps[i] for i in finished))
        bar.set_postfix_str(f"{len(finished)}/{n} tasks")
        try:
            for done, (index, elapsed, used, result) in enumerate(
                done_tasks, start=len(finished) + 1
            ):
                results[index], seconds[index], cpu[index] = result, elapsed, used
                if on_result is not None:
                    on_result(index, result, elapsed, used)
                bar.set_postfix_str(f"{done}/{n} tasks", refresh=False)
                bar.update(steps[index])
        finally:
            bar.close()
        return results, seconds, cpu


def format_duration(seconds: float) -> str:
    """Seconds as ``"45 s"``, ``"8 min 5 s"`` or ``"1 h 12 min"``.

    Examples
    --------
    >>> format_duration(44.6), format_duration(485), format_duration(4330)
    ('45 s', '8 min 5 s', '1 h 12 min')
    """
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"
