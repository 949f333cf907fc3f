"""The threads a forest's members learn and predict in.

The members' compiled kernels release the GIL, and the members share no
state, so they can run side by side; each member is only ever touched by one
task at a time, so the result is the same in any thread and any order.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["map_in_threads", "n_threads"]

_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _forget_pools_in_child() -> None:
    """A forked child has the pools but none of their threads: a task given
    to one would never run (a forest learning in the parent, then in a
    ``multiprocessing`` worker, hung). The child makes its own."""
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()  # (the parent's may have been held)


os.register_at_fork(after_in_child=_forget_pools_in_child)


def n_threads(n_jobs, n_tasks: int) -> int:
    """Threads for ``n_jobs`` as joblib counts them (None is 1, -1 all cores,
    -2 all but one), at most one per task.

    Examples
    --------
    >>> n_threads(None, 10), n_threads(4, 3), n_threads(1, 10)
    (1, 3, 1)
    """
    jobs = 1 if n_jobs is None else int(n_jobs)
    if jobs < 0:
        jobs = (os.cpu_count() or 1) + 1 + jobs
    return max(1, min(jobs, n_tasks))


def _pool(size: int) -> ThreadPoolExecutor:
    """A process-wide pool of ``size`` threads (made once per size, kept)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(size)
        if pool is None:
            pool = ThreadPoolExecutor(size, thread_name_prefix="lr-forest")
            _POOLS[size] = pool
        return pool


def map_in_threads(task, n_tasks: int, size: int) -> list:
    """``[task(k) for k in range(n_tasks)]``, in ``size`` threads if above 1.

    Examples
    --------
    >>> map_in_threads(lambda k: k * k, 4, 2)
    [0, 1, 4, 9]
    """
    if size <= 1:
        return [task(k) for k in range(n_tasks)]
    return list(_pool(size).map(task, range(n_tasks)))
