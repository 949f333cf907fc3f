"""The checks of command-line arguments, one set for every command.

Each is an ``argparse`` ``type``: it returns the value or raises
``argparse.ArgumentTypeError``, which argparse prints as one line naming the
option. Used by :mod:`sklearn_localregret.cli` (the experiments) and by the
``solve`` command (:mod:`sklearn_localregret.maxsat.command`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = [
    "int_at_least",
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


def output_folder(text: str) -> Path:
    """A folder to write into: a file of that name, or a place where none
    can be made, is refused here rather than after minutes of work. Whether
    it can be made is tried, and what was made for that is taken away (a
    command makes it when it writes its first file)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    made = [folder for folder in (path, *path.parents) if not folder.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise argparse.ArgumentTypeError(
            f"cannot make the folder {text!r}: {exc.strerror or exc}"
        ) from None
    for folder in made:  # the deepest first
        folder.rmdir()
    return path


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
