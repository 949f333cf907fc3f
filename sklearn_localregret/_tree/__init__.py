"""The decision-tree learner's parts.

The estimator, :class:`~sklearn_localregret.LocalRegretTreeClassifier`, is
``sklearn_localregret/_tree_classifier.py``: parameters, validation, the
loop over rounds, persistence. This room holds what it is made of:

* ``players.py`` -- :class:`~.players.TreePlayer`, the base of the regret
  modes: a player owns its regret table, colouring, rate graph, samplers and
  last played tree, and draws, plays a round, refreshes, predicts, forgets,
  takes in a merge and rebuilds after loading.
* ``external.py`` -- :class:`~.external.ExternalPlayer`, colored regret
  matching on the factored stump table with the compiled kernels.
* ``swap.py`` -- :class:`~.swap.SwapPlayer`, per-edge regrets on the graph
  of played trees with the finite chain's exact sampler.
* ``views.py`` -- the estimator's public views of a fitted model: the
  representative tree, ``export_text``, the tree distribution, diagnostic
  attributes.
* ``docstring.py`` -- the estimator's docstring (its manual).
* ``persistence.py`` -- loading models saved before the players.

:data:`PLAYERS` maps the ``regret`` parameter to the player's class, as
scikit-learn's tree maps ``splitter`` to a class of ``DENSE_SPLITTERS``.
"""

from .external import ExternalPlayer
from .players import TreePlayer
from .swap import SwapPlayer

__all__ = ["PLAYERS", "ExternalPlayer", "SwapPlayer", "TreePlayer"]

#: The player of each ``regret`` parameter.
PLAYERS: dict[str, type[TreePlayer]] = {
    "external": ExternalPlayer,
    "swap": SwapPlayer,
}
