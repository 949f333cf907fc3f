"""The forest's root models: experts of its combination beside its members.

The tree's hedge weighs root models, a Gaussian naive Bayes and a
passive-aggressive linear model of every row learnt
(:mod:`sklearn_localregret._tree.root_model`); its members, whose forest
combines their vote and play itself, keep two experts. The forest keeps the
same two models of every row it learns, and its combination weighs them as
two more experts after its members: each round, before they learn it, each
is scored by the weight of the rows its class (the first most probable
under its posterior) gets wrong, as the forest's vote is. The bound of the
combination holds with ``K + 3`` experts (the user guide, "The forest").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._discount_players import resolve_discounts
from .._tree.root_gaussian import RootGaussian
from .._tree.root_linear import RootLinear

__all__ = ["ForestRootModels"]

# The root models, in the combination's order (after the vote and members).
ROOT_MODELS = ("_root_gaussian", "_root_linear")


class ForestRootModels:
    """The forest's Gaussian and linear models of every row (a mixin of
    :class:`~sklearn_localregret.LocalRegretForestClassifier`)."""

    discount: Any
    batch_size: Any
    _columns: Any

    def _start_root_models(self, n_features: int, n_classes: int) -> None:
        discount = resolve_discounts(self.discount)[0]
        self._root_gaussian = RootGaussian(n_classes, n_features, discount)
        self._root_linear = RootLinear.of_columns(n_classes, self._columns)

    def _root_models(self) -> list:
        """The root models the forest has (none if saved before them)."""
        return [self.__dict__[name] for name in ROOT_MODELS if name in self.__dict__]

    def _numeric_columns(self) -> np.ndarray | None:
        categorical = self._columns.categorical
        return None if categorical is None else ~categorical

    def _root_posteriors(self, X: np.ndarray) -> list:
        """Each root model's class probabilities of rows ``X``."""
        columns = self._numeric_columns()
        return [model.proba(X, columns) for model in self._root_models()]

    def _root_losses(self, X: np.ndarray, y: np.ndarray, weight) -> list:
        """Each root model's loss on a round's rows, before it learns them:
        the weight of the rows whose first most probable class is wrong."""
        return [
            float(weight @ (np.argmax(posterior, axis=1) != y))
            for posterior in self._root_posteriors(X)
        ]

    def _learn_root_models(self, X: np.ndarray, y: np.ndarray, weight) -> None:
        """The root models learn a round's rows (the Gaussian model decayed
        as the members' tables are)."""
        gaussian = self.__dict__.get("_root_gaussian")
        if gaussian is not None:
            gaussian.learn(
                X, y, weight, gaussian.discount ** (len(y) / self.batch_size)
            )
        linear = self.__dict__.get("_root_linear")
        if linear is not None:
            linear.learn(X, y, weight, self._numeric_columns())
