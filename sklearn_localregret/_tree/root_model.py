"""The hedge's third expert: the root site's naive Bayes model.

Where the tree's sites keep naive Bayes models (adaptive leaf reads or model
leaves), the root site's model is a classifier of every row learnt, as River's
Hoeffding tree predicts at its one leaf before it splits. The hedged
prediction weighs it with the vote and the play (AdaHedge over three experts,
each scored on every round before the round is learnt), so that ``predict``
is never much worse than the best of the three on the stream (the user
guide, "The hedged prediction"). The plays, and so the local regret
guarantee, do not depend on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._hedge import PLAY_HANDICAP, AdaHedge

__all__ = ["RootModelExpert"]


class RootModelExpert:
    """The root model as the hedge's third expert (a mixin of
    :class:`~sklearn_localregret.LocalRegretTreeClassifier`)."""

    _hedge: AdaHedge
    _player: Any
    _tests: Any
    _hedging: Any
    _model_weight: Any

    def _start_model_expert(self) -> None:
        """A hedge of three experts (the vote, the play, the root model) when
        the tree hedges and its sites keep models; forest members, whose
        forest scores their vote and play, keep two."""
        if (
            self._hedging()
            and self._player.table.models
            and self.__dict__.get("_root_model_expert", True)
        ):
            self._hedge = AdaHedge((0.0, PLAY_HANDICAP, PLAY_HANDICAP))

    def _has_model_expert(self) -> bool:
        return self._hedge.n_experts == 3

    def _root_model_labels(self, outcomes: np.ndarray) -> np.ndarray:
        """The root site's model's class indices of rows with these test
        outcomes (class 0 before the root has a site)."""
        table = self._player.table
        root = table.find(())
        if root < 0:
            return np.zeros(outcomes.shape[0], dtype=np.int64)
        return table.row_model_labels(root, outcomes)

    def _model_expert_labels(self, block: np.ndarray) -> np.ndarray:
        return self._root_model_labels(self._tests.outcomes(block))

    @property
    def model_weight_(self) -> float:
        """Probability that :meth:`predict` gives the root site's model's
        class: AdaHedge's weight of that expert (0 without it: a tree whose
        sites keep no models, ``prediction`` other than the hedge, or a
        model saved before the expert)."""
        check_is_fitted(self)
        return self._model_weight()
