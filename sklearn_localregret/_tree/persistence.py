"""Loading tree learners saved before the players owned their parts."""

from __future__ import annotations

from . import PLAYERS

__all__ = ["take_players_of_old_layout"]

# The estimator's attributes that held a player's parts before the players,
# and the player's own before the players owned them.
OLD_PLAYER_ATTRIBUTES = (
    "_table", "_coloring", "_graph", "_sampler", "_chain", "_labels",
    "_flat", "last_tree_", "n_mcmc_draws_", "_largest_round",
)  # fmt: skip


def take_players_of_old_layout(estimator) -> None:
    """A model saved before the players held their parts itself (and each
    discount player's in ``_players.states``): make players of them."""
    cls, attributes = PLAYERS[estimator.regret], estimator.__dict__
    L, n_mcmc_steps = estimator.L, estimator.n_mcmc_steps
    estimator._player = cls.saved_before_players(attributes, L, n_mcmc_steps)
    for name in OLD_PLAYER_ATTRIBUTES:
        attributes.pop(name, None)
    players = estimator._players
    if players is not None:
        players.states = [
            {
                "_player": cls.saved_before_players(saved, L, n_mcmc_steps),
                "_rng": saved["_rng"],
            }
            for saved in players.states
        ]
        players.names = estimator._PLAYER_STATE
        players.states[players.active] = {
            name: attributes[name] for name in players.names
        }
