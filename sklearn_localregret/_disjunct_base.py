"""How the disjunct learner plays its graph: rounds and predictions.

:class:`BaseDisjunctClassifier` is the plumbing of
:class:`~sklearn_localregret.LocalRegretDisjunctClassifier` between
:class:`~sklearn_localregret._base.BaseLocalRegretClassifier` and the graph:
it cuts a call into the rounds the graph's player plays (one dense round, the
rounds of sparse rows, units of bulk rounds), holds the model lock around
them, and reads ``pi``'s probabilities of rows back, all through the player
of the graph in ``_graph``
(:func:`~sklearn_localregret.locality.disjunct_players.player_of`), never a
branch on the graph's type. A subclass builds ``_graph`` and
``_estimate_seed`` in ``_init_model``.

A streaming call (one dense round, a few dense rows predicted) of an exact
graph runs compiled kernels alone and skips the BLAS context; the paths that
multiply blocks of rows enter
:func:`~sklearn_localregret._base.concurrency.one_blas_thread` themselves.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp

from ._base import BaseLocalRegretClassifier
from ._base.concurrency import one_blas_thread
from ._base.rounds import round_slices
from .locality.disjunct_players import DisjunctPlayer, player_of
from .locality.hypercube import HypercubeColoring
from .locality.hypercube_swap import HypercubeSwapRegrets
from .locality.removal_sets import RemovalSetColoring
from .locality.sparse_rounds import SparseRows

__all__ = ["BaseDisjunctClassifier"]


# Bulk units (see _play_blocks) of _BULK_CELLS cells (rows x columns), at
# least _BULK_ROUNDS rounds: a Ctrl-C waits a fraction of a second even on
# wide rows (~2M cells: 10-100 ms), a unit's fixed cost (a few ms) stays
# small against its work, and the units, so the model, are a function of
# the calls alone (the discount clock scales a unit's rounds at once: units
# cut by their timing left the regrets' last bits to the machine's load).
_BULK_ROUNDS = 256
_BULK_CELLS = 1 << 21


class BaseDisjunctClassifier(BaseLocalRegretClassifier):
    """Rounds and predictions of a disjunct learner's graph (not public)."""

    # Sparse input is read in its nonzeros (locality/sparse_rounds.py).
    _accepts_sparse_blocks = True

    # What the first call builds the graph from.
    _BUILT_FROM: tuple[str, ...] = ("regret", "graph", "max_removal_sets", "discount")
    _BUILT_FROM += ("L", "n_mcmc_steps")

    # Made by the subclass's _init_model: the graph (the saved state) and
    # the key of the Monte Carlo estimates of pi.
    _graph: HypercubeColoring | RemovalSetColoring | HypercubeSwapRegrets
    _estimate_seed: int

    @property
    def _player(self) -> DisjunctPlayer:
        return player_of(self._graph)

    def _seed(self) -> list[int]:
        """What seeds the Monte Carlo estimates of ``pi``: the model's key
        and round, so that a fitted model predicts the same every time."""
        return [self._estimate_seed, self.n_rounds_]

    def _literals(self, threshold: float) -> list[tuple[str, float]]:
        """The features whose probability of being a literal exceeds
        ``threshold``, most probable first (ties in feature order): each
        one's name (``feature_names_in_``, or ``x0, x1, ...``) and
        probability. Only these are named (a hashed text model has 2**20
        features)."""
        probs = self.feature_probabilities_
        kept = np.flatnonzero(probs > threshold)
        kept = kept[np.argsort(-probs[kept], kind="stable")]
        names = getattr(self, "feature_names_in_", None)
        return [
            (f"x{k}" if names is None else str(names[k]), float(probs[k]))
            for k in kept.tolist()
        ]

    def _blas_context(self):
        # See the module's docstring: the block paths enter it themselves.
        return nullcontext()

    def _compiled(self, X) -> bool:
        """Whether rows ``X`` are read by compiled kernels alone: dense rows,
        two classes, an exact graph (no BLAS call)."""
        return (
            not sp.issparse(X)
            and len(self.classes_) == 2
            and self._player.exact(self._graph)
        )

    # -- rounds -------------------------------------------------------------
    def _play_round(self, X, y, weight) -> float:
        bias = self.round_bias(weight.sum())
        if len(self.classes_) == 1:
            self._player.play_idle_round(self._graph, bias, self._rng)
            return 0.0
        return self._player.play_round(self._graph, X, y, weight, bias, self._rng)

    def _play_rounds(self, X, y, weight) -> None:
        if len(y) <= self.batch_size and self._compiled(X):
            super()._play_rounds(X, y, weight)  # one round (streaming calls)
            return
        with one_blas_thread():
            self._play_blocks(X, y, weight)

    def _play_blocks(self, X, y, weight) -> None:
        if sp.issparse(X):
            self._play_sparse_rounds(X, y, weight)
            return
        # A single round (streaming calls) is cheaper without the block
        # machinery; both consume the random stream identically.
        if (
            len(self.classes_) == 1
            or self._hedging()
            or "_linear_expert" in self.__dict__  # it learns round by round
            or not self._player.exact(self._graph)
            or len(y) <= self.batch_size
        ):
            super()._play_rounds(X, y, weight)
            return
        batch = self.batch_size
        # Bulk units, each counted when done, so that a Ctrl-C acts within
        # one unit; their size is the rows' shape's (_BULK_CELLS). A unit's
        # rounds draw their uniforms in one call from the same stream.
        rounds = max(_BULK_ROUNDS, _BULK_CELLS // (batch * max(1, X.shape[1])))
        for lo in range(0, len(y), batch * rounds):
            rows = slice(lo, lo + batch * rounds)
            with self._model_lock():  # readers see complete units of rounds
                self._play_bulk(X[rows], y[rows], weight[rows])

    def _play_sparse_rounds(self, X, y, weight) -> None:
        """The rounds of a canonical CSR block, one at a time.

        The same plays and regrets as the dense rounds (per round, or bulk:
        they consume the random stream alike), at a cost that follows the
        rows' nonzeros and the literals in play, not ``n_features_in_``.
        """
        graph, player, batch = self._graph, self._player, self.batch_size
        hedging = self._hedging()
        linear = "_linear_expert" in self.__dict__  # (inputs of few columns)
        lock = self._model_lock()
        # A streaming call is scored as the one prediction a caller makes of it.
        given, given_losses = (
            self._sparse_call_predictions(X, y, weight) if hedging else (None, None)
        )
        for at, lo in enumerate(range(0, X.shape[0], batch)):
            hi = min(lo + batch, X.shape[0])
            rows = SparseRows.of(X, lo, hi)
            y_round, w_round = y[lo:hi], weight[lo:hi]
            with lock:  # readers in other threads see complete rounds
                if hedging or linear:
                    cols, dense = rows.densified()
                if linear:  # the linear model reads whole rows
                    whole = self._whole_rows(dense, cols, X.shape[1])
                if given is not None:
                    proba, extra = given[lo:hi], given_losses[at]
                elif hedging:
                    proba = self._proba_at(dense, cols)
                    extra = (
                        self._expert_losses(whole, y_round, w_round) if linear else None
                    )
                bias = self.round_bias(w_round.sum())
                # One class: every disjunction predicts it, every gain is 0.
                utility_weight = w_round if len(self.classes_) > 1 else 0.0 * w_round
                wrong = player.play_sparse_round(
                    graph, rows, y_round, utility_weight, bias, self._rng
                )
                if hedging:
                    self._score_predictions(proba, y_round, w_round, extra)
                if linear:
                    self._learn_experts(whole, y_round, w_round)
                self._count_rounds(w_round, wrong)

    def _sparse_call_predictions(self, X, y, weight) -> tuple:
        """:meth:`_call_predictions` of a CSR call: ``pi``'s probabilities of
        its rows before it and each round's linear model loss."""
        if not self._streaming_call(X):
            return None, None
        batch = self.batch_size
        with self._model_lock():
            cols, dense = SparseRows.of(X, 0, X.shape[0]).densified()
            proba = self._proba_at(dense, cols)
            rounds = round_slices(X.shape[0], batch)
            if "_linear_expert" not in self.__dict__:
                return proba, [None] * len(rounds)
            whole = self._whole_rows(dense, cols, X.shape[1])
            losses = [self._expert_losses(whole[r], y[r], weight[r]) for r in rounds]
        return proba, losses

    @staticmethod
    def _whole_rows(dense, cols, n_features: int) -> np.ndarray:
        """Rows that hold the features ``cols`` (``dense``) as whole rows."""
        whole = np.zeros((dense.shape[0], n_features), dtype=dense.dtype)
        whole[:, cols] = dense
        return whole

    def _play_bulk(self, X, y, weight) -> None:
        """Rounds drawn and applied together (exact samplers): one unit."""
        batch = self.batch_size
        biases: np.ndarray | float
        if self.bias is None and self.L is not None:
            round_weights = np.add.reduceat(weight, np.arange(0, len(weight), batch))
            biases = np.array([self.round_bias(rw) for rw in round_weights])
        else:  # round_bias does not depend on the round's weight
            biases = self.round_bias(0.0)
        wrong = self._player.play_rounds(
            self._graph, X, y, weight, batch, biases, self._rng
        )
        self._count_rounds(weight, wrong)

    # -- predictions --------------------------------------------------------
    def _predict_proba_encoded(self, X) -> np.ndarray:
        if self._compiled(X):
            return self._proba_at(X, None)
        with one_blas_thread():
            if not sp.issparse(X):
                return self._proba_at(X, None)
            # Only the columns the rows hold, renumbered: a CSR block of them.
            cols, where = np.unique(X.indices, return_inverse=True)
            shape = (X.shape[0], len(cols))
            return self._proba_at(sp.csr_matrix((X.data, where, X.indptr), shape), cols)

    def _proba_at(self, X, cols) -> np.ndarray:
        """Class probabilities of rows ``X`` that hold the features ``cols``
        alone (dense or CSR); all features if ``cols`` is None."""
        if len(self.classes_) == 1:
            return np.ones((X.shape[0], 1))
        positive = self._player.fire_probabilities(self._graph, X, cols, self._seed())
        return np.column_stack([1.0 - positive, positive])
