"""Checks of plain-Python arguments shared by functions and non-estimators.

Estimators validate their parameters through scikit-learn's
``_parameter_constraints``; these serve the rest (the Max-SAT object, WalkSAT,
the evaluation loop, the stream leaderboard) with one message.
"""

from __future__ import annotations

import os
from numbers import Integral

__all__ = ["check_fits_in_memory", "check_positive_int", "physical_memory"]


def check_positive_int(value, name: str) -> int:
    """``value`` as an ``int`` if it is an integer >= 1 (not a bool).

    Raises
    ------
    ValueError
        Naming ``name`` and the value given.

    Examples
    --------
    >>> check_positive_int(3, "n_vars")
    3
    >>> check_positive_int(0, "n_vars")
    Traceback (most recent call last):
    ...
    ValueError: n_vars must be an integer >= 1, got 0.
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    return int(value)


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine (None where the system does
    not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not POSIX, or unknown
        return None


def check_fits_in_memory(n_bytes: float, what: str) -> None:
    """``MemoryError`` naming ``what`` if ``n_bytes`` exceed the machine's
    physical memory: an allocation that large is not refused on Linux, whose
    out-of-memory killer ends the process later without a Python error.

    Examples
    --------
    >>> check_fits_in_memory(2**20, "a small table")
    """
    total = physical_memory()
    if total is not None and n_bytes > total:
        raise MemoryError(
            f"{what} needs about {n_bytes / 2**30:.3g} GiB, more than this "
            f"machine's {total / 2**30:.3g} GiB of memory"
        )
