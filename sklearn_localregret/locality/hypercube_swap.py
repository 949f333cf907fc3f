"""Per-edge ("swap") regrets on the hypercube: one row per played vertex.

(b, L)-regret matching with a regret per edge of the hypercube (local swap
regret), used by :class:`~sklearn_localregret.OnlineMaxSAT` and
:class:`~sklearn_localregret.LocalRegretDisjunctClassifier` with
``regret="swap"``; its vertices, keys and levels are those of
:mod:`~sklearn_localregret.locality.hypercube`.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..engine import FiniteChainSampler, RegretTable, forget_tolerance
from .hypercube_graph import (
    N_ESTIMATE_DRAWS,
    HypercubeGraph,
    check_round,
    vertex_key,
)

__all__ = ["HypercubeSwapRegrets"]


class HypercubeSwapRegrets(HypercubeGraph):
    """(b, L)-regret matching with a regret per hypercube edge (local swap).

    Row ``v`` of :attr:`table` belongs to the played vertex ``v`` (created the
    first time it is played), column ``k`` to the edge flipping bit ``k``. The
    stationary distribution from the root with the level-``L + 1`` redirect is
    solved exactly by :class:`~sklearn_localregret.engine.FiniteChainSampler`
    (:ref:`engine-swap`) after every update that moved a positive rate: it
    re-reads only the row of the updated vertex (an update that moves none,
    most one-clause Max-SAT rounds, keeps the last solve).
    With a discount, every ``FORGET_EVERY`` rounds the vertices none of whose
    regrets exceeds ``FORGET_TOLERANCE * Delta`` in absolute value are
    forgotten (``Delta``: the largest ``|gain| + bias`` of a round so far), so
    the table and the solve stay bounded on a long stream (a vertex not
    played for ``ln(1 / (FORGET_TOLERANCE (1 - lambda))) / ln(1 / lambda) +
    FORGET_EVERY`` rounds is gone); undiscounted, they grow with the number
    of vertices ever played.

    Parameters
    ----------
    n_vars : int
        Number of bits ``n``, at least 0.
    max_level : int or None, default=None
        The paper's ``L`` (None = infinity).
    discount : float, default=1.0
        ``lambda`` in (0, 1] of the regret table (1: undiscounted).

    Attributes
    ----------
    table : RegretTable
        Per-edge regrets, one row per played vertex.
    n_updates : int
        Rounds played.

    Examples
    --------
    >>> import numpy as np
    >>> swap = HypercubeSwapRegrets(2)
    >>> swap.update(np.array([0, 0], dtype=np.uint8), np.array([1.0, 3.0]))
    >>> support, probs = swap.distribution()
    >>> support
    array([[1, 0],
           [0, 1]], dtype=uint8)
    >>> probs
    array([0.25, 0.75])
    """

    _sampler: FiniteChainSampler  # exact, over the played vertices

    def __init__(
        self, n_vars: int, max_level: int | None = None, discount: float = 1.0
    ):
        super().__init__(n_vars, max_level)
        self.table = RegretTable(width=self.n_vars, discount=discount)
        self._largest_round = 0.0  # Delta so far, the scale of forgetting
        self._sampler = FiniteChainSampler(self, max_level)
        self._support = np.zeros((1, self.n_vars), dtype=np.uint8)
        self._probs = np.ones(1)
        self._cdf = np.ones(1)

    def positive_out_edges(self, vertex: bytes):
        """Flips with a positive edge regret out of ``vertex``, and the rates."""
        row = self.table.find(vertex)
        if row < 0:
            return [], np.zeros(0)
        rates = self.table.rates[row]
        ks = np.flatnonzero(rates > 0)
        # A played vertex has a few positive edges: flipping bytes in Python
        # is cheaper than numpy's calls.
        bits = bytearray(vertex)
        targets = []
        for k in ks.tolist():
            bits[k] ^= 1
            targets.append(bytes(bits))
            bits[k] ^= 1
        return targets, rates[ks]

    def distribution(self):
        """The exact ``pi``: its support (one vertex per row) and probabilities."""
        return self._support, self._probs

    def mixture(self, seed=None, n_draws: int = N_ESTIMATE_DRAWS):
        """``pi`` as ``(support, probabilities)``: exact, so ``seed`` is unused."""
        return self.distribution()

    def sample(self, rng) -> np.ndarray:
        """Draw the action to play from ``pi`` (a fresh 0/1 ``uint8`` array)."""
        cdf = self._cdf
        i = int(cdf.searchsorted(rng.random() * cdf[-1], side="right"))
        return self._support[min(i, len(cdf) - 1)].copy()

    def update(self, a: np.ndarray, gains: np.ndarray, bias: float = 0.0) -> None:
        """Add ``gains[k] - bias`` to every edge out of ``a``; re-solve ``pi``."""
        a = np.asarray(a, dtype=np.uint8)
        gains = check_round(self.n_vars, a, gains, bias)
        key = vertex_key(a)
        row = self.table.row(key)
        resets = self.table.clock.n_resets
        self.table.advance()
        if self.table.clock.n_resets != resets:  # every stored rate changed
            self._sampler.invalidate()
        # Only the edges out of ``a`` can change: when a positive rate moved
        # the sampler re-reads that row and re-solves (most one-clause rounds
        # move none: their gains are 0 off the clause).
        moved, largest_gain = self.table.update_row(row, gains, bias)
        if moved:
            self._sampler.invalidate(key)
        self._forget_quiet_vertices(largest_gain + bias)
        vertices, probs = self._sampler.distribution()
        if probs is not self._probs:  # a new solve (else the same arrays)
            keys = cast("list[bytes]", vertices)  # this graph's vertex keys
            support = np.frombuffer(bytearray(b"".join(keys)), dtype=np.uint8)
            self._support = support.reshape(len(vertices), self.n_vars)
            self._probs = probs
            self._cdf = np.cumsum(probs)

    def _forget_quiet_vertices(self, round_range: float) -> None:
        """With a discount, drop the rows whose regrets decayed to nothing."""
        self._largest_round = max(self._largest_round, round_range)
        tolerance = forget_tolerance(self.table, self._largest_round)
        if tolerance is None:
            return
        table = self.table
        quiet = np.flatnonzero(table.row_magnitudes() <= tolerance)
        if quiet.size:
            keys = table.keys()
            table.forget(quiet)
            for i in quiet.tolist():
                self._sampler.invalidate(keys[i])

    def swap_regret(self) -> float:
        """Time-averaged local swap regret ``sum_i max_j R+[i, j] / T``
        (discounted, regrets and ``T``, when the table has a discount)."""
        return float(self.table.row_max_regret().sum()) / max(
            self.table.effective_rounds, 1.0
        )
