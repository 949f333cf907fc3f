"""Threads: an estimator's locks, and BLAS on one thread while it learns.

Readers (predict, predict_proba, decision_function, score) may run in any
number of threads while one thread learns: a learner holds its model lock
for each round (or bulk unit), a reader for each block it predicts, so a
reader sees the model of complete rounds. Learning calls hold the call
lock throughout (:class:`~sklearn_localregret._base.BaseOnlineClassifier`).
"""

from __future__ import annotations

import threading

__all__ = ["lock_of", "one_blas_thread"]

_BLAS_LIBRARIES = None


class _OneBlasThread:
    """A context in which BLAS runs on one thread (see :func:`one_blas_thread`)."""

    __slots__ = ("_restore",)

    def __enter__(self):
        global _BLAS_LIBRARIES
        if _BLAS_LIBRARIES is None:
            from threadpoolctl import ThreadpoolController

            _BLAS_LIBRARIES = (
                ThreadpoolController().select(user_api="blas").lib_controllers
            )
        self._restore = []
        for library in _BLAS_LIBRARIES:
            threads = library.num_threads
            if threads is not None and threads != 1:
                library.set_num_threads(1)
                self._restore.append((library, threads))
        return self

    def __exit__(self, *exc_info):
        for library, threads in self._restore:
            library.set_num_threads(threads)
        return False


def one_blas_thread() -> _OneBlasThread:
    """A context in which BLAS runs on one thread.

    The learners multiply small matrices (a round's rows, a window of recent
    rows) many times; a multi-threaded BLAS gains nothing there and, on a busy
    machine, its threads spin-wait: measured 5x slower under load on 2 cores.
    The libraries are found once (a few ms); entering and leaving the context
    costs ~10 us (threadpoolctl's ``limit`` costs ~40 us), nothing when BLAS
    already runs on one thread.
    """
    return _OneBlasThread()


def lock_of(estimator, name: str) -> threading.RLock:
    """The estimator's lock ``name``, made on first use (``dict.setdefault``
    is atomic: two threads that ask at once get the same lock). Not made in
    ``__init__`` (scikit-learn's estimators set only their parameters there)
    nor saved (``__getstate__`` drops it)."""
    lock = estimator.__dict__.get(name)
    if lock is None:
        lock = estimator.__dict__.setdefault(name, threading.RLock())
    return lock
