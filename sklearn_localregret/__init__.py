"""Online learners with local regret guarantees (Bowling & Zinkevich, ICML 2012).

* :class:`LocalRegretDisjunctClassifier` -- disjunctions of boolean features.
* :class:`LocalRegretTreeClassifier` -- decision trees over threshold tests on
  real-valued (or 0/1) features.
* :class:`LocalRegretForestClassifier` -- online bagging of those trees, on
  random feature subspaces, combined with a regret guarantee.
* :class:`OnlineMaxSAT` -- assignments for clauses that arrive one by one.

All three play, every round, an action drawn from the stationary distribution
of colored regret matching over a locality graph
(:mod:`sklearn_localregret.engine`, :mod:`sklearn_localregret.locality`).
Max-SAT (the formula type, DIMACS reading, the learner, WalkSAT and the
``solve`` search) lives in :mod:`sklearn_localregret.maxsat`. Baselines of
the paper live in :mod:`sklearn_localregret.baselines`, its data
sets in :mod:`sklearn_localregret.datasets` and its experiments in
:mod:`sklearn_localregret.experiments`.
"""

from ._base import BinarizeWarning
from ._disjunct import LocalRegretDisjunctClassifier
from ._moved import install_moved_modules
from ._tree_classifier import LocalRegretTreeClassifier
from .ensemble import LocalRegretForestClassifier
from .maxsat import (
    DimacsError,
    OnlineMaxSAT,
    WeightedFormula,
    read_dimacs,
    solve_formula,
)

__version__ = "0.1.0.dev0"

# Saved models name the modules their classes were defined in: the old paths
# keep loading (pickle, skops) after a move.
install_moved_modules()

__all__ = [
    "BinarizeWarning",
    "DimacsError",
    "LocalRegretDisjunctClassifier",
    "LocalRegretForestClassifier",
    "LocalRegretTreeClassifier",
    "OnlineMaxSAT",
    "WeightedFormula",
    "read_dimacs",
    "solve_formula",
    "__version__",
]
