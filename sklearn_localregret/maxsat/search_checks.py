"""What :func:`~sklearn_localregret.solve_formula` checks of its arguments.

They reach WalkSAT's compiled flips and the learner's passes: an unchecked
noise (NaN, 5, ``True``) ran silently, a string failed in numba's typing,
a negative or NaN budget skipped the walk without a word.
"""

from __future__ import annotations

from numbers import Integral, Real

from .formula import WeightedFormula
from .walksat import check_noise

__all__ = ["check_search"]


def check_search(formula, passes, flips, noise, deadline) -> float:
    """Refuse arguments of :func:`~sklearn_localregret.solve_formula` out of
    range or of the wrong type; the noise as a float.

    Examples
    --------
    >>> from sklearn_localregret import WeightedFormula
    >>> check_search(WeightedFormula([[1]]), 10, None, 0.5, None)
    0.5
    """
    if not isinstance(formula, WeightedFormula):
        raise TypeError(
            f"formula must be a WeightedFormula; got {type(formula).__name__}"
        )
    budgets = (("passes", passes), ("flips", 0 if flips is None else flips))
    for name, value in budgets:
        if not isinstance(value, Integral) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be an int >= 0; got {value!r}")
    if deadline is not None and (
        isinstance(deadline, bool) or not isinstance(deadline, Real)
    ):
        raise TypeError(f"deadline must be a time.monotonic() value; got {deadline!r}")
    return check_noise(noise)
