"""The disjunct learner's graphs behind one interface: a player per graph.

:class:`~sklearn_localregret.LocalRegretDisjunctClassifier` keeps one graph,
its saved state: :class:`~.removal_sets.RemovalSetColoring` (the default),
:class:`~.hypercube.HypercubeColoring` (the paper's algorithm) or
:class:`~.hypercube_swap.HypercubeSwapRegrets` (swap regret). What the
learner does with it -- play a round of dense or sparse rows, play many
rounds at once, give the probability that the played disjunction fires on
rows and the probability of every literal -- it asks of the graph's player
(:func:`player_of`): a small object without state, picked from
:data:`PLAYERS` by the graph's type, as scikit-learn's trees pick their
splitter from a table. The learner holds no branch on its graph; a new
disjunct graph is a new player here.

Every player consumes the learner's random stream as the rounds it replaced
did: one draw of the graph per round
(:meth:`~.hypercube_graph.EstimatedByChain.sample`, or ``sample_on`` for sparse
rows), and, in bulk, one call for a block of rounds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .disjunct_probabilities import dense_fire_probabilities
from .disjunct_rounds import disjunction_round, hypercube_round, play_disjunction_rounds
from .hypercube import HypercubeColoring
from .hypercube_swap import HypercubeSwapRegrets
from .removal_set_rounds import play_removal_set_rounds, removal_set_round
from .removal_sets import RemovalSetColoring, disjunction_fire_probabilities
from .sparse_rounds import SparseRows, play_sparse_round

__all__ = [
    "PLAYERS",
    "DisjunctPlayer",
    "HypercubePlayer",
    "RemovalSetPlayer",
    "SwapPlayer",
    "new_graph",
    "player_of",
]


class DisjunctPlayer:
    """What the disjunct learner does with its graph (the interface).

    Every method takes the graph (the state) and, where it draws, the
    learner's generator ``rng``; rows are 0/1 (``uint8``), ``y`` holds 1 for
    the positive class and 0 for the negative one, ``w`` the rows' weights
    and ``bias`` the round's ``b``. A player holds nothing.
    """

    def exact(self, graph) -> bool:
        """Whether ``pi`` is drawn and predicted exactly: then dense rounds
        of one row and dense predictions run compiled kernels alone (no
        BLAS call), and blocks of rounds may be played in bulk."""
        return False

    def play_round(self, graph, X, y, w, bias: float, rng) -> float:
        """Draw a disjunction, play it on one round's dense rows, update;
        the weight of the rows it got wrong."""
        raise NotImplementedError

    def play_idle_round(self, graph, bias: float, rng) -> None:
        """A round of a single class: every disjunction predicts it, every
        gain is 0 (the bias, if any, still applies)."""
        a = graph.sample(rng)
        graph.update(a, np.zeros(graph.n_vars), bias)

    def play_sparse_round(self, graph, rows: SparseRows, y, w, bias: float, rng):
        """:meth:`play_round` of a round's CSR rows, in the columns they hold
        (:mod:`~sklearn_localregret.locality.sparse_rounds`)."""
        a_on = graph.sample_on(rng)
        return play_sparse_round(graph, a_on, rows, y, w, bias)

    def play_rounds(self, graph, X, y, w, batch_size: int, biases, rng) -> float:
        """Consecutive rounds of an exact graph at once, as :meth:`play_round`
        one after the other would play them; the weight got wrong."""
        raise NotImplementedError

    def fire_probabilities(self, graph, X, cols, seed) -> np.ndarray:
        """``P(a disjunction drawn from pi fires)`` on rows ``X`` (dense or
        CSR) that hold the features ``cols`` alone (all if None).

        ``seed`` makes a Monte Carlo estimate deterministic (the chain of a
        finite ``L``, the removal sets' clocks).
        """
        mixture = graph.mixture(seed)
        if mixture is None:
            if cols is not None:
                # A feature that cannot be a literal adds nothing: its
                # factor in P(no literal fires) is exactly 1.
                live = graph.table.rates[cols, 1] > 0
                cols, X = cols[live], X[:, live]
            return self._exact_fire_probabilities(graph, X, cols, seed)
        support, probs = mixture
        if cols is not None:
            support = support[:, cols]
        X = X.astype(np.float64)
        positive = ((X @ support.T.astype(np.float64)) > 0) @ probs
        return np.clip(positive, 0.0, 1.0)

    def _exact_fire_probabilities(self, graph, X, cols, seed) -> np.ndarray:
        raise NotImplementedError

    def feature_probabilities(self, graph, seed) -> np.ndarray:
        """``P(feature k is a literal)`` under ``pi`` for every feature."""
        mixture = graph.mixture(seed)
        if mixture is None:
            return graph.probabilities()
        support, probs = mixture
        return probs @ support

    def n_removal_sets(self, graph) -> int:
        """Removal sets that ever entered the graph's pool (0: no pool)."""
        return 0

    def swap_regret(self, graph) -> float:
        """Time-averaged local swap regret (kept by swap regret only)."""
        raise AttributeError("swap_regret_ is only kept with regret='swap'.")


class HypercubePlayer(DisjunctPlayer):
    """The paper's algorithm: the hypercube's ``2n`` colouring.

    Exact for ``L >= n`` (a product distribution); for ``L < n`` the
    approximate chain plays and predicts (a mixture).
    """

    def exact(self, graph) -> bool:
        return bool(graph.exact)

    def play_round(self, graph, X, y, w, bias, rng) -> float:
        return hypercube_round(graph, graph.sample(rng), X, y, w, bias)

    def play_rounds(self, graph, X, y, w, batch_size, biases, rng) -> float:
        return play_disjunction_rounds(graph, X, y, w, batch_size, biases, rng)

    def _exact_fire_probabilities(self, graph, X, cols, seed) -> np.ndarray:
        rates = graph.table.rates if cols is None else graph.table.rates[cols]
        if sp.issparse(X):
            probabilities = graph.probabilities(cols)
            return disjunction_fire_probabilities(X.astype(np.float64), probabilities)
        no_sets = np.zeros((0, rates.shape[0]), dtype=np.uint8)
        return dense_fire_probabilities(X, rates, np.zeros(0), no_sets, seed)


class RemovalSetPlayer(HypercubePlayer):
    """The hypercube and its pool of removal sets (the default graph)."""

    def play_round(self, graph, X, y, w, bias, rng) -> float:
        return removal_set_round(graph, graph.sample(rng), X, y, w, bias)

    def play_idle_round(self, graph, bias, rng) -> None:
        a = graph.sample(rng)
        graph.update(a, np.zeros(graph.n_vars), np.zeros(graph.max_sets), bias)

    def play_rounds(self, graph, X, y, w, batch_size, biases, rng) -> float:
        return play_removal_set_rounds(graph, X, y, w, batch_size, biases, rng)

    def _exact_fire_probabilities(self, graph, X, cols, seed) -> np.ndarray:
        return graph.fire_probabilities(X, seed, cols)

    def n_removal_sets(self, graph) -> int:
        return int(graph.n_sets_tracked)


class SwapPlayer(DisjunctPlayer):
    """Swap regret: a regret per hypercube edge, ``pi`` solved exactly over
    the disjunctions played (always a mixture), rounds one at a time."""

    def play_round(self, graph, X, y, w, bias, rng) -> float:
        a = graph.sample(rng)
        gains, wrong = disjunction_round(a, X, y, w)
        graph.update(a, gains, bias)
        return wrong

    def play_sparse_round(self, graph, rows, y, w, bias, rng):
        a_on = np.flatnonzero(graph.sample(rng))
        return play_sparse_round(graph, a_on, rows, y, w, bias)

    def swap_regret(self, graph) -> float:
        return graph.swap_regret()


# The player of each graph type.
PLAYERS: dict[type, DisjunctPlayer] = {
    HypercubeColoring: HypercubePlayer(),
    RemovalSetColoring: RemovalSetPlayer(),
    HypercubeSwapRegrets: SwapPlayer(),
}


def new_graph(
    name: str,
    n_features: int,
    L: int | None,
    max_removal_sets: int,
    n_mcmc_steps: int,
    discount: float,
) -> HypercubeColoring | RemovalSetColoring | HypercubeSwapRegrets:
    """A fresh graph: ``"removal-sets"``, ``"hypercube"`` or ``"swap"`` (the
    hypercube with a regret per edge), with the learner's parameters.

    Examples
    --------
    >>> graph = new_graph("removal-sets", 4, None, 8, 200, 1.0)
    >>> type(graph).__name__, graph.max_sets, graph.exact
    ('RemovalSetColoring', 8, True)
    """
    if name == "swap":
        return HypercubeSwapRegrets(n_features, L, discount)
    if name == "hypercube":
        return HypercubeColoring(n_features, L, n_mcmc_steps, discount)
    return RemovalSetColoring(n_features, L, max_removal_sets, n_mcmc_steps, discount)


def player_of(graph) -> DisjunctPlayer:
    """The player of ``graph`` (:data:`PLAYERS`).

    Examples
    --------
    >>> type(player_of(RemovalSetColoring(3))).__name__
    'RemovalSetPlayer'
    """
    return PLAYERS[type(graph)]
