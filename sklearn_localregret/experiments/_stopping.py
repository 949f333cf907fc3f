"""Ctrl-C and SIGTERM end a command alike: a summary, exit code 130 or 143.

Inside :func:`sigterm_as_interrupt`, SIGTERM (``kill``, a scheduler's stop)
raises :class:`Terminated`, a ``KeyboardInterrupt``: the code that stops
workers or forked runs on Ctrl-C does it on SIGTERM too, and the command
catches both in one place (:func:`exit_status` and :func:`stopped_how` tell
them apart).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Terminated", "exit_status", "sigterm_as_interrupt", "stopped_how"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into what Ctrl-C raises, so that both end a job alike."""


def _terminate(signum, frame) -> None:
    raise Terminated


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` while the block runs (main thread
    only: elsewhere signals cannot be handled, and nothing changes)."""
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        yield
    finally:
        if main_thread:
            signal.signal(
                signal.SIGTERM, signal.SIG_DFL if previous is None else previous
            )


def exit_status(exc: KeyboardInterrupt) -> int:
    """128 plus the signal's number, as a shell reports a job the signal killed.

    Examples
    --------
    >>> exit_status(KeyboardInterrupt()), exit_status(Terminated())
    (130, 143)
    """
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def stopped_how(exc: KeyboardInterrupt) -> str:
    """``"Terminated (SIGTERM)"`` or ``"Interrupted"``: the summary's first words."""
    return "Terminated (SIGTERM)" if isinstance(exc, Terminated) else "Interrupted"
