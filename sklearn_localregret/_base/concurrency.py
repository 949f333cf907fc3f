"""Threads: an estimator's locks, and BLAS on one thread while it learns.

Readers (predict, predict_proba, decision_function, score) may run in any
number of threads while one thread learns: a learner holds its model lock
for each round (or bulk unit), a reader for each block it predicts, so a
reader sees the model of complete rounds. Learning calls hold the call
lock throughout (:class:`~sklearn_localregret._base.BaseOnlineClassifier`).
A refit (``fit`` on a fitted model) replaces the model: readers read again
if one ran meanwhile (:func:`reads_model`).
"""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager

__all__ = [
    "lock_of",
    "one_blas_thread",
    "reads_model",
    "refitting",
    "restore_attributes",
]

_BLAS_LIBRARIES = None
# BLAS's thread count is a setting of the process, not of a thread: the
# context counts the threads inside it, the first in sets one thread and
# the last out restores the counts. (Each thread restoring what it found
# would let a reader that leaves restore two threads under a learner still
# inside, whose sums then change in their last bits: a model learnt with
# readers would differ from one learnt alone.)
_BLAS_STATE = threading.Lock()
_inside = 0
_restore: list = []


def _blas_libraries():
    global _BLAS_LIBRARIES
    if _BLAS_LIBRARIES is None:
        from threadpoolctl import ThreadpoolController

        _BLAS_LIBRARIES = ThreadpoolController().select(user_api="blas").lib_controllers
    return _BLAS_LIBRARIES


def _set_threads(library, threads: int) -> None:
    """Set ``library``'s thread count from any thread. threadpoolctl (3.8)
    lets only the thread that first set OpenBLAS's count set it again, and
    silently ignores the others: a reader's thread would read with every
    core. The count of threads inside the context decides who sets it, so
    the control is handed to the calling thread, and given up after."""
    release = getattr(type(library), "clear_controlling_thread", None)
    if release is not None:
        release(force=True)
    library.set_num_threads(threads)
    if release is not None:
        release(force=True)


class _OneBlasThread:
    """A context in which BLAS runs on one thread (see :func:`one_blas_thread`)."""

    __slots__ = ()

    def __enter__(self):
        global _inside, _restore
        with _BLAS_STATE:
            if _inside == 0:
                _restore = []
                for library in _blas_libraries():
                    threads = library.num_threads
                    if threads is not None and threads != 1:
                        _set_threads(library, 1)
                        _restore.append((library, threads))
            _inside += 1
        return self

    def __exit__(self, *exc_info):
        global _inside, _restore
        with _BLAS_STATE:
            _inside -= 1
            if _inside == 0:
                for library, threads in _restore:
                    _set_threads(library, threads)
                _restore = []
        return False


_ONE_BLAS_THREAD = _OneBlasThread()


def one_blas_thread() -> _OneBlasThread:
    """A context in which BLAS runs on one thread.

    The learners multiply small matrices (a round's rows, a window of recent
    rows) many times; a multi-threaded BLAS gains nothing there and, on a busy
    machine, its threads spin-wait: measured 5x slower under load on 2 cores.
    The libraries are found once (a few ms); entering and leaving the context
    costs ~10 us (threadpoolctl's ``limit`` costs ~40 us), nothing when BLAS
    already runs on one thread. The thread count is the process's: while any
    thread is inside the context, every thread's BLAS calls run on one
    thread, and the last thread to leave restores the counts it found.
    """
    return _ONE_BLAS_THREAD


def lock_of(estimator, name: str) -> threading.RLock:
    """The estimator's lock ``name``, made on first use (``dict.setdefault``
    is atomic: two threads that ask at once get the same lock). Not made in
    ``__init__`` (scikit-learn's estimators set only their parameters there)
    nor saved (``__getstate__`` drops it)."""
    lock = estimator.__dict__.get(name)
    if lock is None:
        lock = estimator.__dict__.setdefault(name, threading.RLock())
    return lock


def reads_model(method):
    """A reader method: what it returns was read from one fitted model.

    A reader validates its rows against the fitted model, then predicts them
    block by block under the model lock. A refit (``fit`` on a fitted
    model) replaces the model under that lock for its whole length, and
    counts its start and end in the estimator's ``_refits`` (odd while one
    is under way): a reader that sees the count move while it ran (it may
    have found no model, or another model's columns and classes) reads
    again, and one that comes during a refit waits for it first. The
    refitting thread reads through.
    """

    @functools.wraps(method)
    def reader(self, *args, **kwargs):
        state = self.__dict__
        while True:
            refits = state.get("_refits", 0)
            if refits % 2 and state.get("_refitter") != threading.get_ident():
                with lock_of(self, "_lock_model"):  # held by the refit
                    continue
            try:
                result = method(self, *args, **kwargs)
            except Exception:
                if state.get("_refits", 0) != refits:
                    continue
                raise
            if state.get("_refits", 0) == refits:
                return result

    return reader


@contextmanager
def refitting(estimator):
    """A refit of ``estimator`` under way (its caller holds the model lock):
    counted in ``_refits`` for :func:`reads_model`, odd until it ends."""
    state = estimator.__dict__
    state["_refits"] = state.get("_refits", 0) + 1
    state["_refitter"] = threading.get_ident()
    try:
        yield
    finally:
        state.pop("_refitter", None)
        state["_refits"] = state["_refits"] + 1


# What reads_model reads of a refit: never taken out of the estimator.
_REFIT_COUNTS = ("_refits", "_refitter")


def restore_attributes(estimator, saved: dict) -> None:
    """Put back ``estimator``'s attributes as ``saved`` (a copy of its
    ``__dict__``), in their order (a pickle of it is the one before), in
    place: a reader validating meanwhile (outside the model lock) does not
    find the estimator empty, as a cleared dict would show it. Attributes
    deleted and set again since (a refit's) are put back in ``saved``'s
    order one by one, the refit's count staying where it is throughout."""
    state = estimator.__dict__
    state.update(saved)
    for name in [name for name in state if name not in saved]:
        del state[name]
    if list(state) != list(saved):
        for name, value in saved.items():
            if name not in _REFIT_COUNTS:
                del state[name]
                state[name] = value
