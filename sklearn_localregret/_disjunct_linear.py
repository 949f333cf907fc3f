"""The disjunct learner's linear expert: a third expert of its hedge.

A disjunction is a narrow hypothesis class: where the concept is a weighted
vote of the features (kr-vs-kp, mushroom), it changes abruptly (the
leaderboard's STAGGER and inverted streams) or the labels alternate on one
instance (``alternating``), the best disjunction is far from the best the
stream allows. The tree's hedge weighs root models for that
(:mod:`~sklearn_localregret._tree.root_model`); the disjunct learner's hedge
weighs one: a passive-aggressive linear model of the 0/1 features
(:class:`~sklearn_localregret._tree.root_linear.RootLinear`: PA-I on
online-standardised columns), scored on every round as it predicted the
round's rows before their call, as the vote and the play are. ``predict``
is then never much worse than the best of the three (the user guide, "The
hedged prediction"); the plays, and so the local regret guarantee, do not
depend on it.

Its steps are dense in the columns (standardised columns are centred), so
it is kept only up to :data:`MAX_LINEAR_COLUMNS` features: a hashed-text
matrix of 2**20 columns would pay a million operations a row for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._hedge import PLAY_HANDICAP, AdaHedge
from ._tree.root_linear import RootLinear

__all__ = ["INITIAL_LOSSES", "MAX_LINEAR_COLUMNS", "LinearExpert"]

#: The widest input (features) that gets the linear expert.
MAX_LINEAR_COLUMNS = 4096

#: The hedge's initial losses of the vote, the play and the linear model: the
#: linear model starts level with the vote, the other deterministic
#: prediction, and the play alone carries the handicap (as in the tree's
#: hedge). On the leaderboard's binary streams that never cost more than
#: 0.003 against the vote, and where the model leads (kr-vs-kp, alternating)
#: the hedge reaches it sooner.
INITIAL_LOSSES = (0.0, PLAY_HANDICAP, 0.0)

# Sparse rows densified at a time for the linear model (bounded memory).
_DENSE_ROWS = 512


class LinearExpert:
    """The linear model as the hedge's third expert (a mixin of
    :class:`~sklearn_localregret.LocalRegretDisjunctClassifier`)."""

    _hedging: Any
    _expert_weights: Any

    def _start_linear_expert(self, n_features: int, n_classes: int) -> None:
        """Experts: the vote, the play and, for a hedging learner of two
        classes and at most :data:`MAX_LINEAR_COLUMNS` features, the linear
        model (the hedge made by the base has the first two)."""
        if self._hedging() and n_classes == 2 and n_features <= MAX_LINEAR_COLUMNS:
            self._linear_expert = RootLinear(n_classes, n_features)
            self._hedge = AdaHedge(INITIAL_LOSSES)

    def _expert_names(self) -> tuple:
        """The hedge's experts by name."""
        if "_linear_expert" in self.__dict__:
            return ("vote", "play", "linear")
        return ("vote", "play")

    def _expert_losses(self, X, y, weight) -> list | None:
        """The linear model's loss on a round's rows (dense), before it
        learns them: the weight of the rows its class gets wrong."""
        model = self.__dict__.get("_linear_expert")
        if model is None:
            return None
        return [float(weight @ (self._expert_labels(0, X) != y))]

    def _learn_experts(self, X, y, weight) -> None:
        model = self.__dict__.get("_linear_expert")
        if model is not None:
            model.learn(X, y, weight)

    def _expert_proba(self, k: int, block) -> np.ndarray:
        model = self._linear_expert  # the one further expert
        if not sp.issparse(block):
            return model.proba(block)
        parts = [
            model.proba(block[lo : lo + _DENSE_ROWS].toarray())
            for lo in range(0, block.shape[0], _DENSE_ROWS)
        ]
        return np.vstack(parts) if parts else np.zeros((0, 2))

    def _expert_labels(self, k: int, block) -> np.ndarray:
        return np.argmax(self._expert_proba(k, block), axis=1)

    @property
    def linear_weight_(self) -> float:
        """Probability that :meth:`predict` gives the linear model's class.

        AdaHedge's weight of the passive-aggressive linear model of the
        features (0 without it: ``prediction`` other than the hedge, more
        than 4,096 features, or a model saved before it).
        """
        check_is_fitted(self)
        if "_linear_expert" not in self.__dict__ or not self._expert_weights():
            return 0.0
        return self._expert_weights()[0]
