"""Checks of plain-Python arguments shared by functions and non-estimators.

Estimators validate their parameters through scikit-learn's
``_parameter_constraints``; these serve the rest (the Max-SAT object, WalkSAT,
the evaluation loop, the stream leaderboard) with one message.
"""

from __future__ import annotations

from numbers import Integral

__all__ = ["check_positive_int"]


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
