"""Offline and classical baselines the paper compares the local regret learners to.

* :func:`walksat` -- offline WalkSAT for weighted Max-SAT (the Max-3SAT yardstick).
"""

from .walksat import WalkSATResult, walksat

__all__ = ["WalkSATResult", "walksat"]
