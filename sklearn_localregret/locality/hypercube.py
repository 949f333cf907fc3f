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
assignment, beside the clauses). This module keeps what they share: vertices,
their keys and levels, and the colouring.
"""

from __future__ import annotations

import copy

import numpy as np

from .._random import uniforms_at
from ..engine import (
    FiniteChainSampler,
    RegretTable,
    UniformizedChainSampler,
    binary_site_probabilities,
)
from ..engine.compiled.regret_update import draw_product_bits

__all__ = ["HypercubeColoring", "vertex_bits", "vertex_key"]

# Chain draws behind the estimate of pi when L < n (approximate sampler only).
N_ESTIMATE_DRAWS = 512


def vertex_key(a) -> bytes:
    """Hashable key of a hypercube vertex: the bytes of its 0/1 ``uint8`` array.

    Examples
    --------
    >>> vertex_key([1, 0, 1])
    b'\\x01\\x00\\x01'
    """
    return np.asarray(a, dtype=np.uint8).tobytes()


def vertex_bits(key: bytes) -> np.ndarray:
    """The 0/1 ``uint8`` array of a vertex key (a read-only view).

    Examples
    --------
    >>> vertex_bits(b"\\x00\\x01")
    array([0, 1], dtype=uint8)
    """
    return np.frombuffer(key, dtype=np.uint8)


def _flipped_keys(bits: np.ndarray, ks: np.ndarray) -> list[bytes]:
    """Keys of the neighbours of ``bits`` along the flips ``ks``."""
    out = np.repeat(bits[None, :], len(ks), axis=0)
    out[np.arange(len(ks)), ks] ^= 1
    return [row.tobytes() for row in out]


class _HypercubeGraph:
    """What both regret variants share: vertices, levels, the diagnostics' T."""

    # Set by each subclass: its regrets and its sampler (None: exact product).
    table: RegretTable
    _sampler: UniformizedChainSampler[bytes] | FiniteChainSampler | None

    def __init__(self, n_vars: int, max_level: int | None):
        self.n_vars = int(n_vars)
        self.max_level = max_level
        self.root = bytes(self.n_vars)

    @property
    def n_updates(self) -> int:
        """Rounds played (the table counts them: :meth:`RegretTable.advance`)."""
        return self.table.n_rounds

    # A subclass's sampler (if any) points back at its graph; saving it
    # without that link keeps the state acyclic, which skops needs.
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_on_cache", None)  # derived from the table (on_sites)
        if self._sampler is not None:
            state["_sampler"] = copy.copy(self._sampler)
            state["_sampler"].graph = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._sampler is not None:
            self._sampler.graph = self

    def pass_rounds(self, n_rounds: int) -> None:
        """Rounds whose every gain and bias is zero: only the clock moves.

        (A discount still decays every regret.)
        """
        self.table.advance(n_rounds)

    def level(self, vertex: bytes) -> int:
        """Number of ones of the vertex: its distance from the root."""
        return vertex.count(1)

    def colored_regret(self) -> float:
        """Time-averaged local colored regret ``sum_C (R[C])+ / T``.

        Discounted (regrets and ``T`` both) when the table has a discount.
        """
        return self.table.colored_regret() / max(self.table.effective_rounds, 1.0)

    def n_nonzero(self) -> int:
        """Number of colours (edges, for swap) with a non-zero biased regret."""
        return self.table.n_nonzero()


class _EstimatedByChain(_HypercubeGraph):
    """A colouring sampled exactly for ``L >= n``, by a chain for ``L < n``.

    Both hypercube colourings: a subclass sets ``exact``, the last played
    vertex ``_state`` and the :class:`~sklearn_localregret.engine.
    UniformizedChainSampler` ``_sampler`` (None when exact), and defines the
    exact draw :meth:`draw` from ``uniforms_per_round`` uniforms.
    ``_EXACT_READER`` names what to read instead of the estimate of ``pi``
    when ``pi`` is exact.
    """

    _EXACT_READER = "probabilities()"
    exact: bool
    _state: bytes
    _sampler: UniformizedChainSampler[bytes] | None

    @property
    def uniforms_per_round(self) -> int:
        """Uniforms one exact draw consumes (one per bit here)."""
        return self.n_vars

    # -- wide, sparse rounds -----------------------------------------------
    def on_sites(self) -> np.ndarray:
        """Sorted bits whose colour "set to 1" has a positive rate.

        Only these bits can be 1 in an exact draw (a bit without that rate
        keeps the root's 0 whatever its uniform), so a sparse round draws
        them alone. Kept from one call to the next in ``_on_cache``, a
        superset of the answer that :meth:`_note_updated` extends with every
        bit an update of this graph makes positive (a rate only turns
        positive through an update of its own bit); valid while the table is
        written through this graph's methods, as the learners do.
        """
        rates = self.table.rates
        cache = self.__dict__.get("_on_cache")
        if cache is None:
            cache = np.flatnonzero(rates[: self.n_vars, 1] > 0)
        else:
            cache = cache[rates[cache, 1] > 0]
        self._on_cache = cache
        return cache

    def _note_updated(self, ks: np.ndarray) -> None:
        """Keep :meth:`on_sites`'s cache a superset after bits ``ks`` changed."""
        cache = self.__dict__.get("_on_cache")
        if cache is None:
            return
        ks = np.asarray(ks)
        ks = ks[ks < self.n_vars]
        grown = ks[self.table.rates[ks, 1] > 0]
        if len(grown):
            self._on_cache = np.union1d(cache, grown)

    def sample_on(self, rng) -> np.ndarray:
        """:meth:`sample`'s action as its sorted 1 bits, for a sparse round.

        The same action from the same random stream; an exact sampler draws
        only the uniforms of :meth:`on_sites` (and skips the others,
        :func:`~sklearn_localregret._random.uniforms_at`), so a round costs
        what is in play, not ``n``.
        """
        if not self.exact:
            return np.flatnonzero(self.sample(rng))
        return self._draw_on(rng)

    def _draw_on(self, rng) -> np.ndarray:
        raise NotImplementedError

    def _played_sparse(self, a_on: np.ndarray) -> None:
        """Remember the played vertex of a sparse round where it is read.

        Only the approximate chain (``L < n``) starts from it; an exact
        sampler never reads it, and its ``n`` bytes would cost a sparse
        round ``O(n)``.
        """
        if not self.exact:
            a = np.zeros(self.n_vars, dtype=np.uint8)
            a[a_on] = 1
            self._state = a.tobytes()

    def draw(self, uniforms: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _draw_one(self, uniforms: np.ndarray) -> np.ndarray:
        """:meth:`draw` of one action, as a fresh 0/1 ``uint8`` array."""
        return self.draw(uniforms).astype(np.uint8)

    def sample(self, rng) -> np.ndarray:
        """Draw the action to play from ``pi`` (a fresh 0/1 ``uint8`` array).

        Exact for ``L >= n`` (:meth:`draw` from ``uniforms_per_round``
        uniforms). For ``L < n`` the chain advances ``n_mcmc_steps`` steps
        from the last played vertex.
        """
        if self.exact:
            return self._draw_one(rng.random(self.uniforms_per_round))
        assert self._sampler is not None  # the chain of L < n
        self._state = self._sampler.sample(self._state, self._rate_bound(), rng)
        return vertex_bits(self._state).copy()

    def _rate_bound(self) -> float:
        """Sum of all positive colour rates: bounds every vertex's out-rate."""
        return float(np.maximum(self.table.rates, 0.0).sum())

    def mixture(self, seed, n_draws: int = N_ESTIMATE_DRAWS):
        """``pi`` as ``(support, probabilities)``, or None when it is exact.

        With ``L < n`` a Monte Carlo estimate deterministic in ``seed``.
        """
        return None if self.exact else self.estimate_distribution(n_draws, seed)

    def estimate_distribution(self, n_draws: int, seed):
        """Monte Carlo estimate of ``pi`` for ``L < n`` (deterministic in ``seed``).

        Runs the uniformised chain from the last played vertex and keeps every
        ``n_mcmc_steps``-th state, without touching the chain used for play.

        Returns
        -------
        support : ndarray of uint8 of shape (n_distinct, n_vars)
        probs : ndarray of shape (n_distinct,)
        """
        if self.exact:
            raise ValueError(f"pi is exact here: use {self._EXACT_READER}")
        assert self._sampler is not None  # the chain of L < n
        rng = np.random.default_rng(seed)
        bound, state, draws = self._rate_bound(), self._state, []
        for _ in range(int(n_draws)):
            state = self._sampler.sample(state, bound, rng)
            draws.append(state)
        keys, counts = np.unique(np.array(draws, dtype=object), return_counts=True)
        support = np.array([vertex_bits(k) for k in keys], dtype=np.uint8)
        return support.reshape(len(keys), self.n_vars), counts / counts.sum()


class HypercubeColoring(_EstimatedByChain):
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
        Number of bits ``n``.
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
        return _flipped_keys(bits, ks), rates[ks]

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
        nz = np.flatnonzero(gains)
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
