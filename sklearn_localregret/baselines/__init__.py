"""Offline and classical baselines the paper compares the local regret learners to.

* :class:`Winnow2Classifier` -- Littlestone's Winnow2, the disjunct-learning yardstick.
* :func:`walksat` -- offline WalkSAT for weighted Max-SAT (the Max-3SAT yardstick).
"""

from .walksat import WalkSATResult, walksat
from .winnow2 import Winnow2Classifier

__all__ = ["WalkSATResult", "Winnow2Classifier", "walksat"]
