"""What the hypercube's colourings share: vertices, rounds, exact or chain draws.

Actions are bit vectors ``a`` in ``{0, 1}^n``, keyed by the bytes of their
0/1 ``uint8`` array (:func:`vertex_key`, :func:`vertex_bits`); the root is the
all-zeros vector and a vertex's level is its number of ones.

* ``HypercubeGraph`` -- the base of every regret kept on the hypercube
  (:class:`~sklearn_localregret.locality.hypercube.HypercubeColoring`,
  :class:`~sklearn_localregret.locality.removal_sets.RemovalSetColoring`,
  :class:`~sklearn_localregret.locality.hypercube_swap.HypercubeSwapRegrets`):
  the root, levels, the table's rounds and the diagnostics, and saving a
  sampler without its link back to the graph.
* ``EstimatedByChain`` -- the base of the two colourings the disjunct
  learner and Max-SAT play (the hypercube's ``2n`` colours, and the same with
  removal sets): an exact draw from uniforms for ``L >= n``, the uniformised
  chain from the last played vertex for ``L < n``, the draws of sparse rounds
  (the bits that can be 1, only), and the Monte Carlo estimate of ``pi``.
"""

from __future__ import annotations

import copy
import math
from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_scalar

from ..engine import FiniteChainSampler, RegretTable, UniformizedChainSampler
from .hypercube_chain import chain_draws

__all__ = [
    "N_ESTIMATE_DRAWS",
    "check_finite_gains",
    "check_round",
    "vertex_bits",
    "vertex_key",
]

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


def flipped_keys(bits: np.ndarray, ks: np.ndarray) -> list[bytes]:
    """Keys of the neighbours of ``bits`` along the flips ``ks``."""
    out = np.repeat(bits[None, :], len(ks), axis=0)
    out[np.arange(len(ks)), ks] ^= 1
    return [row.tobytes() for row in out]


def check_finite_gains(gains: np.ndarray, bias: float = 0.0) -> np.ndarray:
    """``gains`` as given, refused if a gain or the ``bias`` is NaN or infinite.

    One NaN would turn every regret it reaches into NaN for good (and an
    infinite one the rates), silently; an update checks before it writes.

    Examples
    --------
    >>> check_finite_gains(np.array([1.0, np.nan]))
    Traceback (most recent call last):
    ...
    ValueError: gains must be finite: 1 of 2 are NaN or infinite.
    """
    if not math.isfinite(bias):
        raise ValueError(f"bias must be finite, got {bias!r}.")
    if not np.isfinite(gains).all():
        finite = np.isfinite(gains)
        raise ValueError(
            f"gains must be finite: {finite.size - np.count_nonzero(finite)} of "
            f"{finite.size} are NaN or infinite."
        )
    return gains


class HypercubeGraph:
    """What both regret variants share: vertices, levels, the diagnostics' T."""

    # Set by each subclass: its regrets and its sampler (None: exact product).
    table: RegretTable
    _sampler: UniformizedChainSampler[bytes] | FiniteChainSampler | None

    def __init__(self, n_vars: int, max_level: int | None):
        # Refused here, not by bytes(n) below ("negative count"), nor truncated.
        check_scalar(n_vars, "n_vars", Integral, min_val=0)
        self.n_vars = int(n_vars)
        self.max_level = max_level
        self.root = bytes(self.n_vars)

    @property
    def n_updates(self) -> int:
        """Rounds played (the table counts them: :meth:`RegretTable.advance`)."""
        return int(self.table.n_rounds)  # whole rounds here

    # A subclass's sampler (if any) points back at its graph; saving it
    # without that link keeps the state acyclic, which skops needs.
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_on_cache", None)  # derived from the table (on_sites)
        state.pop("_estimate_memo", None)  # and from the chain's inputs
        if self._sampler is not None:
            state["_sampler"] = copy.copy(self._sampler)
            state["_sampler"].graph = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._sampler is not None:
            self._sampler.graph = self

    # Every update's check of its gains, as a method: a subclass needs no import.
    finite_gains = staticmethod(check_finite_gains)

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


class EstimatedByChain(HypercubeGraph):
    """A colouring sampled exactly for ``L >= n``, by a chain for ``L < n``.

    Both hypercube colourings: a subclass sets ``exact``, the last played
    vertex ``_state`` and the
    :class:`~sklearn_localregret.engine.UniformizedChainSampler` ``_sampler``
    (None when exact), and defines the exact draw :meth:`draw` from
    ``uniforms_per_round`` uniforms. ``_EXACT_READER`` names what to read
    instead of the estimate of ``pi`` when ``pi`` is exact.
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

    def note_played(self, a: np.ndarray, changed: np.ndarray) -> None:
        """The bookkeeping of ``update`` for a round that a compiled kernel
        applied to :attr:`table`: the rows it ``changed`` and the played
        vertex ``a``."""
        self._note_updated(changed)
        self._state = a.tobytes()

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
        drawn = self._chain(self._state, rng, 1)[0]
        self._state = drawn.tobytes()
        return drawn

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
        # The estimate is a function of these alone: a model read twice
        # between two rounds (predict_proba then predict) runs the chain once.
        chain = (self._sampler.max_level, self._sampler.n_steps)
        inputs = (repr(seed), int(n_draws), chain, self._state, self._chain_inputs())
        memo = self.__dict__.get("_estimate_memo")
        if memo is not None and memo[0] == inputs:
            return memo[1].copy(), memo[2].copy()
        draws = self._chain(self._state, np.random.default_rng(seed), int(n_draws))
        # Sorted by their keys (numpy's unique over rows sorts wide rows as
        # void records: seconds for 512 rows of 2,000 bits).
        keys = np.array([row.tobytes() for row in draws], dtype=object)
        keys, counts = np.unique(keys, return_counts=True)
        support = np.array([vertex_bits(k) for k in keys], dtype=np.uint8)
        support = support.reshape(len(keys), self.n_vars)
        probs = counts / counts.sum()
        self._estimate_memo = (inputs, support.copy(), probs.copy())
        return support, probs

    def _chain(self, start: bytes, rng, n_draws: int) -> np.ndarray:
        """``n_draws`` successive draws of the ``_sampler``'s chain from
        ``start``, compiled (:func:`~.hypercube_chain.chain_draws`, the same
        draws from the same ``rng``), as rows of 0/1 ``uint8``; in Python for
        a legacy ``RandomState``, which numba cannot take."""
        assert self._sampler is not None  # the chain of L < n
        sampler, rates, bound = self._sampler, self.table.rates, self._rate_bound()
        if not isinstance(rng, np.random.Generator):  # a RandomState: in Python
            rows, state = [], start
            for _ in range(n_draws):
                state = sampler.sample(state, bound, rng)
                rows.append(vertex_bits(state))
            return np.array(rows, dtype=np.uint8).reshape(n_draws, self.n_vars)
        set_rates, sets = self._removal_sets()
        draws = np.empty((n_draws, self.n_vars), dtype=np.uint8)
        chain_draws(
            vertex_bits(start).copy(),
            rng,
            n_draws,
            sampler.n_steps,
            bound,
            -1 if sampler.max_level is None else sampler.max_level,
            np.ascontiguousarray(rates[: self.n_vars]),
            np.ascontiguousarray(set_rates),
            np.ascontiguousarray(sets),
            draws,
        )
        return draws

    def _removal_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """The chain's moves besides the bit flips: the removal sets' rates
        (``Rtilde+``) and literals. None on the plain hypercube."""
        return np.zeros(0), np.zeros((0, self.n_vars), dtype=np.uint8)

    def _chain_inputs(self) -> bytes:
        """What the chain's moves read besides its state: the rates, and the
        removal sets' literals (a slot may be reused)."""
        return self.table.rates.tobytes() + self._removal_sets()[1].tobytes()


def check_round(n: int, a: np.ndarray | None, gains, bias: float = 0.0) -> np.ndarray:
    """A round's gains as floats, refused before the round starts (its
    discount, its count) unless one per variable (or slot: ``n``), with an
    action ``a`` (if given) of one 0/1 bit per variable, and finite, as the
    ``bias`` must be."""
    gains = np.asarray(gains, dtype=float)
    if gains.shape != (n,) or (a is not None and a.shape != (n,)):
        shapes = f"gains of shape {gains.shape}" + (
            "" if a is None else f" and an action of shape {a.shape}"
        )
        raise ValueError(f"{shapes} for {n} variables (or slots): one each")
    if a is not None and n and a.max() > 1:
        raise ValueError("the action's bits must be 0 or 1")
    return check_finite_gains(gains, bias)
