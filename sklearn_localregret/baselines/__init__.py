"""Offline and classical baselines the paper compares the local regret learners to.

* :class:`Winnow2Classifier` -- Littlestone's Winnow2, the disjunct-learning yardstick.
* :func:`walksat` -- offline WalkSAT for weighted Max-SAT (the Max-3SAT yardstick),
  at home in :mod:`sklearn_localregret.maxsat` and shown here beside the others.
"""

from ..maxsat.walksat import WalkSATResult, walksat
from .winnow2 import Winnow2Classifier

__all__ = ["WalkSATResult", "Winnow2Classifier", "walksat"]
