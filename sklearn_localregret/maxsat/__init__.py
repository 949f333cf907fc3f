"""Max-SAT: clauses, their reading, and the learners and searches that satisfy them.

A clause goes down these modules and never back up:

* :mod:`~sklearn_localregret.maxsat.formula` -- :class:`WeightedFormula`, the
  formula type (validated DIMACS clauses, weights, hard clauses; written back
  as CNF or WCNF), and the one check of a clause and of weights;
* :mod:`~sklearn_localregret.maxsat.dimacs` and
  :mod:`~sklearn_localregret.maxsat.reading` -- all reading of clauses: DIMACS
  CNF and WCNF files (:func:`read_dimacs`, :class:`DimacsError`) and every
  shape a user hands over (``as_formula``);
* :mod:`~sklearn_localregret.maxsat.clause_matrix` -- the one representation
  that scores clauses: their signed incidence entries;
* :mod:`~sklearn_localregret.maxsat.rounds` -- the gains of every flip in a
  round of clauses on the hypercube;
* :mod:`~sklearn_localregret.maxsat.online` -- :class:`OnlineMaxSAT`, the
  online learner with local regret (paper, Example "Online Max-3SAT");
* :mod:`~sklearn_localregret.maxsat.walksat` -- offline WalkSAT
  (:func:`walksat`), the paper's yardstick;
* :mod:`~sklearn_localregret.maxsat.search` -- :func:`solve_formula`, WalkSAT
  then the learner on a whole formula, and
  :mod:`~sklearn_localregret.maxsat.command` -- its command line,
  ``python -m sklearn_localregret solve``.

The learner composes the hypercube colouring of
:mod:`sklearn_localregret.locality` with the engine, as the classifiers do;
nothing here imports the classifiers.
"""

from .dimacs import DimacsError
from .formula import WeightedFormula
from .online import OnlineMaxSAT
from .reading import as_formula, read_dimacs
from .search import MaxSATAnswer, solve_formula
from .walksat import WalkSATResult, walksat

__all__ = [
    "DimacsError",
    "MaxSATAnswer",
    "OnlineMaxSAT",
    "WalkSATResult",
    "WeightedFormula",
    "as_formula",
    "read_dimacs",
    "solve_formula",
    "walksat",
]
