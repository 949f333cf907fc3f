"""Ensembles of local-regret learners: the forest.

:class:`LocalRegretForestClassifier` bags
:class:`~sklearn_localregret.LocalRegretTreeClassifier` members online, each
on a random subspace of the features and on Poisson weights of the rows
(:mod:`._bagging`), replaces a member when a drift detector on its own
mistakes fires (:mod:`._drift`, with our ADWIN in :mod:`._adwin`), and
predicts with a no-regret combination of its vote and its members
(:mod:`._combination`). The members are used through the tree's
estimator interface; nothing here reaches into the engine. The estimator
(:mod:`._forest`) is made of its docstring (:mod:`._forest_docstring`), its
members' plumbing (:mod:`._members`) and its prediction (:mod:`._prediction`).
"""

from ._forest import LocalRegretForestClassifier

__all__ = ["LocalRegretForestClassifier"]
