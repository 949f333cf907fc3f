"""The checks of command-line arguments, one set for every command.

Each is an ``argparse`` ``type``: it returns the value or raises
``argparse.ArgumentTypeError``, which argparse prints as one line naming the
option. Used by :mod:`sklearn_localregret.cli` (the experiments) and by the
``solve`` command (:mod:`sklearn_localregret.maxsat.command`).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = [
    "folder_problem",
    "int_at_least",
    "int_in_range",
    "non_negative_int",
    "output_folder",
    "positive_float",
    "positive_int",
]

_T = TypeVar("_T", int, float)


def positive_int(text: str) -> int:
    """An integer >= 1.

    Examples
    --------
    >>> positive_int("3")
    3
    >>> positive_int("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer >= 1, got '0'
    """
    return _checked(int, text, lambda v: v >= 1, "an integer >= 1")


def non_negative_int(text: str) -> int:
    """An integer >= 0 (a count that may be zero, a seed)."""
    return _checked(int, text, lambda v: v >= 0, "an integer >= 0")


def int_at_least(minimum: int) -> Callable[[str], int]:
    """The check of an integer >= ``minimum`` (a stream's rows, at least 2).

    Examples
    --------
    >>> int_at_least(2)("1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer >= 2, got '1'
    """

    def check(text: str) -> int:
        return _checked(int, text, lambda v: v >= minimum, f"an integer >= {minimum}")

    return check


def int_in_range(minimum: int, maximum: int) -> Callable[[str], int]:
    """The check of an integer from ``minimum`` to ``maximum`` (a count whose
    larger values would only exhaust the memory or the user's patience).

    Examples
    --------
    >>> int_in_range(1, 100)("100")
    100
    >>> int_in_range(1, 100)("101")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer from 1 to 100, got '101'
    """

    def check(text: str) -> int:
        return _checked(
            int,
            text,
            lambda v: minimum <= v <= maximum,
            f"an integer from {minimum} to {maximum}",
        )

    return check


def folder_problem(path: str | os.PathLike) -> str | None:
    """Why files cannot be written into the folder ``path`` (None: they can).

    A file of that name, a folder that cannot be made, or one that exists but
    refuses new files. Writing is tried (a temporary file, removed at once),
    not judged from the permission bits, which root ignores and which miss
    read-only file systems; the folders made for the try are taken away again
    (a command makes them when it writes its first file).

    Examples
    --------
    >>> import tempfile
    >>> folder_problem(tempfile.gettempdir()) is None
    True
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        return f"{str(path)!r} is a file, not a folder"
    made = [folder for folder in (path, *path.parents) if not folder.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=path, prefix=".write-test-")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        what = "make" if path in made and not path.is_dir() else "write in"
        return f"cannot {what} the folder {str(path)!r}: {exc.strerror or exc}"
    finally:
        for folder in made:  # the deepest first
            if folder.is_dir():
                folder.rmdir()
    return None


def output_folder(text: str) -> Path:
    """A folder to write into: a file of that name, a place where none can
    be made, or a folder that refuses new files is refused here rather than
    after minutes of work (see :func:`folder_problem`)."""
    problem = folder_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds)."""
    return _checked(float, text, lambda v: 0 < v < float("inf"), "a finite number > 0")


def _checked(kind: Callable[[str], _T], text: str, ok, what: str) -> _T:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value
