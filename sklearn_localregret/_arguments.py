"""The checks of command-line arguments, one set for every command.

Each is an ``argparse`` ``type``: it returns the value or raises
``argparse.ArgumentTypeError``, which argparse prints as one line naming the
option. Used by :mod:`sklearn_localregret.cli` (the experiments) and by the
``solve`` command (:mod:`sklearn_localregret.maxsat.command`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

__all__ = ["non_negative_int", "positive_float", "positive_int"]

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


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds)."""
    return _checked(float, text, lambda v: 0 < v < float("inf"), "a positive number")


def _checked(kind: Callable[[str], _T], text: str, ok, what: str) -> _T:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value
