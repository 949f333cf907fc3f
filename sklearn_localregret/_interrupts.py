"""Ctrl-C between rounds, never inside one.

A round updates the regret table, the samplers' caches and the counters; a
``KeyboardInterrupt`` raised in the middle would leave them disagreeing. While
a learner plays rounds, :class:`deferred_interrupt` holds SIGINT back; once a
round and its bookkeeping are complete, :meth:`deferred_interrupt.deliver`
(or :func:`deliver_held`, which finds the deferral in force) hands a held
signal to whatever handler was there before (Python's default raises
``KeyboardInterrupt`` then; a handler that ignores SIGINT still ignores it).
"""

from __future__ import annotations

import importlib
import signal
import threading
from typing import Literal

# CPython's C function under signal.signal, without the wrapper's enum
# conversions: they were 25 of the 57 us of an interactive Max-SAT round.
try:
    _set_handler = importlib.import_module("_signal").signal
except (ImportError, AttributeError):  # pragma: no cover - other interpreters
    _set_handler = signal.signal

__all__ = ["deferred_interrupt", "deliver_held"]

# The deferral in force in the main thread (the innermost), if any.
_active: deferred_interrupt | None = None


def deliver_held() -> None:
    """Act now on a SIGINT held by the deferral in force (a round is complete).

    A check of one flag when nothing is held: cheap enough for every round.
    """
    active = _active
    if active is not None and active._held:
        active.deliver()


class deferred_interrupt:  # noqa: N801 (used as a context manager, like a function)
    """Hold SIGINT back while a block of rounds runs (main thread only).

    Examples
    --------
    >>> with deferred_interrupt() as interrupt:
    ...     pass  # play rounds, update counters
    ...     interrupt.deliver()  # a Ctrl-C that came meanwhile acts here
    """

    __slots__ = ("_held", "_previous", "_outer")

    def __enter__(self) -> deferred_interrupt:
        global _active
        self._held = False
        self._previous = None
        self._outer = None
        # Signals reach the main thread only; elsewhere there is nothing to do.
        if threading.current_thread() is threading.main_thread():
            previous = _set_handler(signal.SIGINT, self._hold)
            if previous in (signal.SIG_IGN, None):  # ignored (or not ours): keep
                _set_handler(signal.SIGINT, previous)
            else:
                self._previous = previous
                self._outer, _active = _active, self
        return self

    def _hold(self, signum, frame) -> None:
        self._held = True

    def deliver(self) -> None:
        """Act on a held SIGINT now (the round it arrived in is complete)."""
        # Only the main thread can deliver (signal.signal raises elsewhere): a
        # member of a forest learning in a worker thread leaves it held there.
        if (
            self._held
            and self._previous is not None
            and threading.current_thread() is threading.main_thread()
        ):
            self._held = False
            signal.signal(signal.SIGINT, self._previous)
            try:
                signal.raise_signal(signal.SIGINT)
            finally:
                signal.signal(signal.SIGINT, self._hold)

    def __exit__(self, *exc_info) -> Literal[False]:
        global _active
        if self._previous is not None:
            _set_handler(signal.SIGINT, self._previous)
            self._previous = None
            _active, self._outer = self._outer, None
        return False
