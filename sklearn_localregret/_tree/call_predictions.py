"""The tree's experts' predictions of a streaming call, made before the call.

The hedge scores every round of a streaming call on the predictions a
test-then-train caller gets of its rows
(:meth:`~sklearn_localregret._base.rounds.OnlineRounds._call_predictions`):
for the tree, ``pi``'s probabilities (with several discounts, the players'
mixture) and the root models' losses, all read before the call's first
round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._base.hedged_prediction import same_rows
from .._base.rounds import round_slices

__all__ = ["CallPredictions"]


class CallPredictions:
    """The tree's predictions of a streaming call's rows (a mixin of
    :class:`~sklearn_localregret.LocalRegretTreeClassifier`)."""

    batch_size: Any
    _players: Any
    _tests: Any
    _model_lock: Any
    _proba_version: Any
    _remembered_proba: Any
    _round_proba_from: Any
    _predict_proba_now: Any
    _hedging: Any
    _streaming_call: Any
    _scores_root_models: Any
    _linear_inputs: Any
    _round_expert_losses: Any

    def _call_predictions(self, X, y, weight) -> tuple:
        """``pi``'s probabilities of a streaming call's rows ``X`` before the
        call (with several discounts, the players' mixed by their weights
        before the call, as :meth:`predict` reads them) and each round's root
        model losses (None without them); ``(None, None)`` for a call of one
        round or a bulk call, without the hedge, or for a forest's member
        (the forest scores its members round by round). (Several discounts'
        players are scored round by round: their hedge is about the plays,
        which each round draws after the call's earlier rounds.)"""
        batch = self.batch_size
        if not (self._hedging() and self._streaming_call(X)):
            return None, None
        if "_round_recorder" in self.__dict__:  # a forest's member: its rounds
            return None, None  # are scored one by one, its calls are the forest's
        with self._model_lock():
            outcomes = self._tests.outcomes(X)
            if self._players is None:
                proba = self._round_proba_from(X, outcomes)
            else:
                proba = self._remembered_proba(X)
                if proba is None:
                    proba = self._predict_proba_now(X)
            rounds = round_slices(X.shape[0], batch)
            if not self._scores_root_models():
                return proba, [None] * len(rounds)
            linear = self._linear_inputs(X)
            losses = [
                self._round_expert_losses(
                    X[r],
                    outcomes[r],
                    y[r],
                    weight[r],
                    None if linear is None else (linear[0][r], linear[1]),
                )
                for r in rounds
            ]
        return proba, losses

    def _remembered_player_probas(self, X) -> np.ndarray | None:
        """The players' probabilities of rows ``X`` if the last prediction was
        of these rows (its first ones) under this very model."""
        assert self._players is not None  # several discounts
        last = self._players.last
        if last is None:
            return None
        version, block, probas = last
        if version == self._proba_version() and same_rows(block, X):
            return probas[:, : X.shape[0]]
        return None
