"""Forgetting that adapts: one player per discount, hedged on the stream.

A tree learner with ``discount="auto"`` (or a tuple of discounts) keeps one
*player* per discount ``lambda_j``: its own regret table, samplers and
played trees, learning every round from the same rows and the same tests.
Each player is the tree learner at its discount, with that discount's
guarantee on its own plays. The learner's probabilities are the players'
mixed by AdaHedge over their *play losses* -- the expected weight of mistakes
of a class drawn from the player's probabilities, ``sum_rows w (1 -
p_j(y | x))``, scored on each round's rows before the round is learnt. A
class drawn from the mixture is a class drawn from player ``j``'s
probabilities with AdaHedge's weight of ``j``: its expected mistakes exceed
those of the best player's play, in hindsight, by at most ``2 Delta <= S
sqrt(T ln k) + 2 S`` (rounds of weight at most ``S``; the user guide,
"Forgetting that adapts"). The vote/play hedge of ``prediction="hedge"``
then runs on the mixture as on one player.

Why several players rather than one table with several discounts: a regret
table's guarantee holds when the tree played is drawn from *that* table's
stationary distribution. Tables at other discounts updated with another
table's plays would carry no guarantee, so each discount plays its own tree.
A round costs one round of each player.

The players share the estimator's attributes by name: the estimator holds
the *active* player's state (the tree learner's ``_player``, the regret
mode's player that owns its table, samplers and last tree, and the
generator ``_rng`` it draws from), and :meth:`DiscountPlayers.activate`
swaps another player's in. Between
calls the active player is the leader (the largest weight), so that
inspection (``export_text``, ``regret_table_``, ...) shows the player that
predicts most.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from ._hedge import AdaHedge
from .engine.discount_clock import check_discount

__all__ = ["AUTO_DISCOUNTS", "DiscountPlayers", "resolve_discounts"]

#: The discounts of ``discount="auto"``: the landed default's memory of about
#: 100 rounds, and the paper's undiscounted regrets. Chosen by
#: ``benchmarks/bench_adaptive_discount.py``: the hedge of the two is within
#: 0.004 of the better one on every stream of the leaderboard.
AUTO_DISCOUNTS = (0.99, 1.0)


def resolve_discounts(discount) -> tuple[float, ...]:
    """The discounts a ``discount`` parameter asks for, one per player.

    Parameters
    ----------
    discount : float, "auto" or sequence of float
        A float in (0, 1] is one player (no hedge); ``"auto"`` is
        :data:`AUTO_DISCOUNTS`; a sequence gives distinct values in (0, 1].

    Returns
    -------
    tuple of float

    Raises
    ------
    ValueError
        For an empty sequence, a value outside (0, 1] or a repeated value.

    Examples
    --------
    >>> resolve_discounts("auto")
    (0.99, 1.0)
    >>> resolve_discounts([1.0, 0.95])
    (1.0, 0.95)
    """
    if isinstance(discount, str):
        if discount != "auto":
            raise ValueError(f"discount={discount!r}: a float, 'auto' or floats")
        return AUTO_DISCOUNTS
    if isinstance(discount, Real):
        return (check_discount(discount),)
    values = tuple(discount)
    if not values:
        raise ValueError("discount=(): give at least one discount in (0, 1]")
    for value in values:
        if not isinstance(value, Real) or isinstance(value, bool):
            raise ValueError(f"discount={discount!r}: {value!r} is not a number")
        check_discount(value, f"discount={discount!r}: each value")
    floats = tuple(float(v) for v in values)
    if len(set(floats)) != len(floats):
        raise ValueError(f"discount={discount!r}: a discount is repeated")
    return floats


class DiscountPlayers:
    """The players' states and AdaHedge over their play losses.

    Parameters
    ----------
    discounts : tuple of float
        One player per discount, in this order.
    names : tuple of str
        The estimator attributes that make a player's state.
    states : list of dict
        Each player's attributes; the estimator holds player ``0``'s (the
        active one) when this is made.

    Attributes
    ----------
    hedge : AdaHedge
        Over the players, from their play losses.
    active : int
        The player whose state the estimator holds.
    """

    def __init__(self, discounts, names, states):
        self.discounts = tuple(discounts)
        self.names = tuple(names)
        self.states = list(states)
        self.hedge = AdaHedge([0.0] * len(self.discounts))
        self.active = 0
        # (version, rows, probabilities) of the last prediction: a
        # test-then-train loop learns the rows it just predicted.
        self.last: tuple | None = None

    def __len__(self) -> int:
        return len(self.discounts)

    def activate(self, estimator, j: int) -> None:
        """Make player ``j``'s state the estimator's (the active one's kept)."""
        if j == self.active:
            return
        attributes = estimator.__dict__
        here = self.states[self.active]
        for name in self.names:
            here[name] = attributes[name]
        attributes.update(self.states[j])
        self.active = j

    def sync(self, estimator) -> None:
        """Copy the active player's state back from the estimator."""
        here = self.states[self.active]
        for name in self.names:
            here[name] = estimator.__dict__[name]

    def weights(self) -> np.ndarray:
        """The players' weights now, summing to 1."""
        return self.hedge.weights()

    def leader(self) -> int:
        """The player with the largest weight (the first among equals)."""
        return int(np.argmax(self.weights()))

    def mix(self, probas: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """The players' probabilities ``(k, n, K)`` mixed by their weights."""
        if weights is None:
            weights = self.weights()
        return np.tensordot(weights, probas, axes=1)

    def score(self, probas: np.ndarray, y: np.ndarray, weight: np.ndarray) -> None:
        """Add a round's play losses (before the round is learnt) to the hedge.

        ``probas`` has shape ``(k, n_rows, n_classes)``, ``y`` the rows' class
        indices, ``weight`` their sample weights.
        """
        rows = np.arange(len(y))
        losses = [float(weight @ (1.0 - p[rows, y])) for p in probas]
        self.hedge.update(losses)

    def saved(self, drop) -> DiscountPlayers:
        """A copy for saving: each player's state without the attributes
        ``drop`` (those the estimator rebuilds on load), no remembered
        probabilities."""
        copy = DiscountPlayers.__new__(DiscountPlayers)
        copy.__dict__.update(self.__dict__)
        copy.states = [
            {name: value for name, value in state.items() if name not in drop}
            for state in self.states
        ]
        copy.last = None
        return copy
