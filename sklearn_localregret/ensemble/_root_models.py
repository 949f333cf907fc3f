"""The forest's root models: experts of its combination beside its members.

The tree's hedge weighs root models, its root site's naive Bayes model, a
Gaussian naive Bayes and a passive-aggressive linear model of every row
learnt (:mod:`sklearn_localregret._tree.root_model`); its members, whose
forest combines their vote and play itself, keep two experts. The forest
keeps the same Gaussian and linear models of every row it learns, and reads
its members' root sites: the mean of their naive Bayes posteriors (each of
its member's columns and bagged rows, recorded by the member before each
round) is a third. Its combination weighs them as three more experts after
its members: each round, before they learn it, each is scored by the weight
of the rows its class (the first most probable under its posterior) gets
wrong, as the forest's vote is. The bound of the combination holds with
``K + 4`` experts (the user guide, "The forest").
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
    leaf_prediction: Any
    classes_: Any
    estimators_: list
    _columns: Any
    _fitted: Any
    _columns_of: Any

    def _start_root_models(self, n_features: int, n_classes: int) -> None:
        discount = resolve_discounts(self.discount)[0]
        self._root_gaussian = RootGaussian(n_classes, n_features, discount)
        self._root_linear = RootLinear.of_columns(n_classes, self._columns)
        # The members' sites keep naive Bayes models with adaptive reads.
        self._members_model_expert = self.leaf_prediction == "adaptive"

    def _root_models(self) -> list:
        """The root models the forest has (none if saved before them)."""
        return [self.__dict__[name] for name in ROOT_MODELS if name in self.__dict__]

    def _n_root_experts(self) -> int:
        """The combination's experts after the members: the root models and
        the members' root naive Bayes models (a forest saved before them
        has not that one)."""
        members = self.__dict__.get("_members_model_expert", False)
        return len(self._root_models()) + int(members)

    def _members_model_posterior(self, X: np.ndarray) -> np.ndarray:
        """The mean of the fitted members' root naive Bayes posteriors of rows
        ``X`` (uniform before any member has one)."""
        posteriors = []
        for k, member in enumerate(self.estimators_):
            if self._fitted(k) and member._player.table.models:
                outcomes = member._tests.outcomes(self._columns_of(X, k))
                posteriors.append(member._root_model_proba(outcomes))
        return _mean_posterior(posteriors, X.shape[0], len(self.classes_))

    def _members_model_loss(self, records: list, y: np.ndarray, weight) -> list:
        """The members' root naive Bayes expert's loss on a round, from the
        posteriors each member recorded before learning it ([] without the
        expert)."""
        if not self.__dict__.get("_members_model_expert", False):
            return []
        posteriors = [record[2] for record in records if record[2] is not None]
        mean = _mean_posterior(posteriors, len(y), len(self.classes_))
        return [float(weight @ (np.argmax(mean, axis=1) != y))]

    def _numeric_columns(self) -> np.ndarray | None:
        return self._columns.not_categorical

    def _root_posteriors(self, X: np.ndarray) -> list:
        """Each root expert's class probabilities of rows ``X``: the root
        models', then the members' root naive Bayes models' mean."""
        columns = self._numeric_columns()
        out = [model.proba(X, columns) for model in self._root_models()]
        if self.__dict__.get("_members_model_expert", False):
            out.append(self._members_model_posterior(X))
        return out

    def _root_losses(self, X: np.ndarray, y: np.ndarray, weight) -> list:
        """Each root model's loss on a round's rows, before it learns them:
        the weight of the rows whose first most probable class is wrong."""
        columns = self._numeric_columns()
        return [
            float(weight @ (np.argmax(model.proba(X, columns), axis=1) != y))
            for model in self._root_models()
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


def _mean_posterior(posteriors: list, n_rows: int, n_classes: int) -> np.ndarray:
    if not posteriors:
        return np.full((n_rows, n_classes), 1.0 / n_classes)
    return np.mean(posteriors, axis=0)
