"""The hypercube locality graph: disjunctions and truth assignments.

Actions are bit vectors ``a`` in ``{0, 1}^n`` (a disjunction over ``n`` boolean
features, or an assignment of ``n`` variables), the root is the all-zeros vector
(the empty disjunction, the all-false assignment), the level of a vertex is its
number of ones and an edge flips one bit (paper, Examples "Online Max-3SAT" and
"Online Disjunct Learning"). Vertices are keyed by the bytes of their 0/1
``uint8`` array.

Two ways of keeping regret on it:

* :class:`HypercubeColoring` -- the admissible ``2n`` colouring: colour
  ``(k, x)`` is "set bit ``k`` to ``x``", stored in a
  :class:`~sklearn_localregret.engine.RegretTable` of width 2 (row ``k``,
  column ``x``). With ``L >= n`` (or ``L = None``) the stationary distribution
  is a product and is sampled exactly; with ``L < n`` the root redirect couples
  the bits and a :class:`~sklearn_localregret.engine.UniformizedChainSampler`
  (approximate, ``n_mcmc_steps`` per draw) runs from the last played vertex.
* :class:`~sklearn_localregret.locality.hypercube_swap.HypercubeSwapRegrets`
  -- a regret per edge (local swap regret): one table row per played vertex,
  column ``k`` = flip bit ``k``, sampled exactly by
  :class:`~sklearn_localregret.engine.FiniteChainSampler`
  (:mod:`~sklearn_localregret.locality.hypercube_swap`).

The utilities, ``u(flip_k a) - u(a)`` for every ``k`` vectorised with numpy,
have modules of their own: :mod:`~sklearn_localregret.locality.disjunct_rounds`
(rows classified by a disjunction) and
:mod:`sklearn_localregret.maxsat.rounds` (weighted clauses satisfied by an
assignment, beside the clauses). What every hypercube colouring shares --
vertices, their keys and levels, the table's rounds, the exact-or-chain
sampling -- is :mod:`~sklearn_localregret.locality.hypercube_graph`'s; this
module keeps the colouring.
"""

from __future__ import annotations

import numpy as np

from .._random import uniforms_at
from ..engine import RegretTable, UniformizedChainSampler, binary_site_probabilities
from ..engine.compiled.regret_update import draw_product_bits
from .hypercube_graph import (
    N_ESTIMATE_DRAWS,
    EstimatedByChain,
    HypercubeGraph,
    check_round,
    flipped_keys,
    vertex_bits,
    vertex_key,
)

# The shared pieces are also read from here by code older than their module.
__all__ = [
    "HypercubeColoring",
    "N_ESTIMATE_DRAWS",
    "EstimatedByChain",
    "HypercubeGraph",
    "flipped_keys",
    "vertex_bits",
    "vertex_key",
]


class HypercubeColoring(EstimatedByChain):
    """Colored regret matching on the hypercube with the ``2n`` colouring.

    Row ``k`` of :attr:`table` is variable ``k``; column ``x`` is the colour
    "set bit ``k`` to ``x``". After playing ``a`` with gains
    ``g[k] = u(flip_k a) - u(a)`` the colours ``(k, 1 - a_k)`` receive
    ``g[k] - b`` (paper, Definition of (b, L, C)-colored-regret-matching). This
    colouring is admissible, so local external regret is at most the local
    colored regret divided by ``n`` (paper, Theorem on colored regret).

    Parameters
    ----------
    n_vars : int
        Number of bits ``n``, at least 0.
    max_level : int or None, default=None
        The paper's ``L``. ``None`` or ``L >= n`` never redirects: the sites are
        independent and :meth:`sample` is exact. ``L < n`` uses the approximate
        uniformised chain with the root redirect.
    n_mcmc_steps : int, default=200
        Steps of the uniformised chain per draw when ``L < n``.
    discount : float, default=1.0
        ``lambda`` in (0, 1] of the regret table (1: undiscounted).

    Attributes
    ----------
    table : RegretTable
        The ``n x 2`` colour regrets.
    exact : bool
        Whether draws come from the exact product distribution.
    n_updates : int
        Rounds played (the ``T`` of the time averages).

    Examples
    --------
    >>> import numpy as np
    >>> cube = HypercubeColoring(3)
    >>> cube.update(np.array([0, 0, 1], dtype=np.uint8), np.array([2.0, -1.0, 1.0]))
    >>> cube.table.biased
    array([[ 0.,  2.],
           [ 0., -1.],
           [ 1.,  0.]])
    >>> cube.probabilities()
    array([1., 0., 0.])
    """

    def __init__(
        self,
        n_vars: int,
        max_level: int | None = None,
        n_mcmc_steps: int = 200,
        discount: float = 1.0,
    ):
        super().__init__(n_vars, max_level)
        self.n_mcmc_steps = int(n_mcmc_steps)
        self.table = RegretTable(width=2, initial_rows=self.n_vars, discount=discount)
        self.exact = max_level is None or max_level >= self.n_vars
        self._state = self.root
        self._sampler = (
            None
            if self.exact
            else UniformizedChainSampler(self, max_level, self.n_mcmc_steps)
        )

    # -- the RateGraph protocol -------------------------------------------
    def positive_out_edges(self, vertex: bytes):
        """Flips with a positive colour regret out of ``vertex``, and the rates."""
        bits = vertex_bits(vertex)
        rates = self.table.rates[np.arange(self.n_vars), 1 - bits]
        ks = np.flatnonzero(rates > 0)
        return flipped_keys(bits, ks), rates[ks]

    # -- sampling -----------------------------------------------------------
    def probabilities(self, cols=None) -> np.ndarray:
        """``P(bit k = 1)`` under the product distribution (exact when ``L >= n``).

        ``R+[k, 1] / (R+[k, 0] + R+[k, 1])``, or 0 (the root's bit) when both
        are 0 (:ref:`engine-hypercube`); of the bits ``cols`` alone if given.
        For ``L < n`` see :meth:`estimate_distribution`.
        """
        rates = self.table.rates if cols is None else self.table.rates[cols]
        return binary_site_probabilities(
            np.maximum(rates[:, 0], 0.0), np.maximum(rates[:, 1], 0.0)
        )

    def draw(self, uniforms: np.ndarray) -> np.ndarray:
        """Exact product draws from uniforms: bit ``k`` is 1 iff ``u_k < P(bit k)``.

        Computed as ``u_k (R+[k, 0] + R+[k, 1]) < R+[k, 1]`` (no division; a
        site without regret keeps the root's 0). ``uniforms`` has shape
        ``(n,)`` or ``(rounds, n)``; returns booleans of the same shape. Every
        exact draw of this class goes through here, so pre-drawn uniforms give
        the same actions as :meth:`sample`.
        """
        rates = np.maximum(self.table.rates, 0.0)
        on = rates[:, 1]
        return uniforms * (rates[:, 0] + on) < on

    def _draw_on(self, rng) -> np.ndarray:
        sites = self.on_sites()
        u = uniforms_at(rng, self.uniforms_per_round, sites)
        rates = np.maximum(self.table.rates[sites], 0.0)
        return sites[u * (rates[:, 0] + rates[:, 1]) < rates[:, 1]]

    def _draw_one(self, uniforms: np.ndarray) -> np.ndarray:
        # The same comparison as draw, compiled: one round's draw is a few
        # numbers, where numpy's calls were most of the time.
        bits = np.empty(self.n_vars, dtype=np.uint8)
        draw_product_bits(self.table.rates, uniforms, bits)
        return bits

    # -- the update -------------------------------------------------------
    def update(self, a: np.ndarray, gains: np.ndarray, bias: float = 0.0) -> None:
        """One round: add ``gains[k] - bias`` to colour ``(k, 1 - a[k])`` for
        every ``k`` (after the round's discount, if any).

        With ``bias = 0`` only the non-zero gains are written (adding 0 changes
        nothing), which makes sparse utilities (one clause, one row) cheap.
        """
        a = np.asarray(a, dtype=np.uint8)
        gains = check_round(self.n_vars, a, gains, bias)
        self.table.advance()
        if bias == 0:
            ks = np.flatnonzero(gains)
            self.table.update_entries(ks, 1 - a[ks], gains[ks])
        else:
            ks = np.arange(self.n_vars)
            self.table.update_entries(ks, 1 - a, gains, bias)
        self._note_updated(ks)
        self._state = a.tobytes()

    def update_at(
        self,
        cols: np.ndarray,
        a_cols: np.ndarray,
        gains: np.ndarray,
        a_on: np.ndarray,
        bias: float = 0.0,
    ) -> None:
        """:meth:`update` of a sparse round: the gains of the bits ``cols`` alone.

        ``cols`` are sorted bits, ``a_cols`` the played action's bits there
        and ``gains`` their gains; every other bit has gain 0. ``a_on`` are the
        action's 1 bits. The same regrets as :meth:`update` with the full
        arrays; with ``bias = 0`` in ``O(len(cols))``.
        """
        if bias != 0:
            a = np.zeros(self.n_vars, dtype=np.uint8)
            a[a_on] = 1
            full = np.zeros(self.n_vars)
            full[cols] = gains
            self.update(a, full, bias)
            return
        if not len(cols) == len(a_cols) == len(gains):
            raise ValueError("cols, a_cols and gains: one entry each")
        nz = np.flatnonzero(self.finite_gains(gains))
        ks = cols[nz]
        self.table.advance()
        self.table.update_entries(ks, 1 - a_cols[nz], gains[nz])
        self._note_updated(ks)
        self._played_sparse(a_on)

    def update_rounds(
        self,
        actions: np.ndarray,
        gains: np.ndarray,
        bias: float = 0.0,
        played=None,
        n_rounds=None,
    ) -> None:
        """:meth:`update` for several consecutive rounds (rows), in order.

        The regrets come out bit for bit as with one :meth:`update` per round.
        ``played[i]`` is the round (0, 1, ...) of row ``i`` among ``n_rounds``
        consecutive rounds; rounds without a row had no gains (they still count,
        and decay the regrets). By default every row is its own round.
        """
        actions = np.asarray(actions, dtype=np.uint8)
        self.finite_gains(gains, bias)
        if played is None:
            played, n_rounds = np.arange(len(actions)), len(actions)
        if bias == 0:
            rounds, ks = np.nonzero(gains)
        else:
            rounds, ks = np.indices(actions.shape).reshape(2, -1)
        scales = (
            self.table.round_scales(n_rounds)[np.asarray(played)[rounds]]
            if self.table.discount != 1.0
            else None
        )
        self.table.update_sequence(
            ks, 1 - actions[rounds, ks], gains[rounds, ks], bias, scales
        )
        self._note_updated(ks)
        self.table.advance(n_rounds)
        if len(actions):
            self._state = actions[-1].tobytes()
