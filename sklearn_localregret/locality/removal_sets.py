"""Disjunctions with removal sets: the hypercube plus "drop these literals" moves.

On the paper's hypercube a disjunction that fires on a negative row through
two or more literals has no neighbour that fixes the row: no single removal
does, and nothing else is local (paper, section "Online Disjunct Learning").
This graph adds the missing moves. Besides the ``2n`` colours of the hypercube
("set bit ``k`` to ``x``"), it keeps a pool of at most ``max_sets`` *removal
sets* ``S``, each one colour: "drop every literal of ``S``", an edge from every
disjunction ``a`` with a literal in ``S``, to ``a \\ S``. A set enters the pool
(with zero regret) when the played disjunction fires on a negative row with two
or more active literals: ``S`` is that row's true features, the move "remove
every variable true in this instance". When the pool is full a new set takes
the slot of the set with the lowest regret, if that regret is not positive
(a colour at or below zero has no rate, so ``pi`` does not change); otherwise
it is not tracked.

The guarantee (:ref:`the guarantee with removal sets <removal-sets-guarantee>`):
colored regret matching bounds the regret of every colour tracked, counted from
its entry, hence both the paper's local external regret on the hypercube and,
for every tracked set, the regret for not having dropped it. The colouring is
not admissible for the enlarged graph (one colour's edges can be on a shortest
path to a target from one disjunction and not from another), so no local
external bound on the enlarged graph is claimed.

With ``L = None`` (or ``L >= n``) the stationary distribution is drawn exactly
by the clock construction of
:mod:`~sklearn_localregret.engine.removal_clocks`; with ``L < n`` the
uniformised chain with the root redirect runs from the last played vertex
(approximate, as on the hypercube).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._random import uniforms_at
from ..engine import RegretTable, UniformizedChainSampler, binary_site_probabilities
from ..engine.compiled.clock_draw import draw_clocked_bits
from ..engine.removal_clocks import (
    draw,
    group_clock_times,
    latest_group_ring,
    marginal_on_probabilities,
    on_probabilities,
)
from .disjunct_probabilities import (
    N_CLOCK_DRAWS,
    dense_fire_probabilities,
    disjunction_fire_probabilities,
)
from .hypercube_graph import EstimatedByChain, check_round, flipped_keys, vertex_bits

# disjunction_fire_probabilities is read here by code older than its module.
__all__ = ["N_CLOCK_DRAWS", "RemovalSetColoring", "disjunction_fire_probabilities"]


def set_key(members: np.ndarray) -> bytes:
    """Key of a removal set in the pool: the bytes of its sorted features."""
    return np.asarray(members, dtype=np.int64).tobytes()


# Models saved before RegretTable.clear_rows named this subclass.
PoolRegretTable = RegretTable


class RemovalSetColoring(EstimatedByChain):
    """Colored regret matching on disjunctions with removal sets.

    :attr:`table` holds every colour in one table (one discount scale): row
    ``k < n`` is bit ``k`` (column ``x``: "set bit ``k`` to ``x``"), row
    ``n + j`` is slot ``j`` of the pool (column 0: "drop every literal of
    ``sets[j]``"; column 1 is unused and stays 0).

    Parameters
    ----------
    n_vars : int
        Number of bits (features) ``n``, at least 0.
    max_level : int or None, default=None
        The paper's ``L``. ``None`` or ``L >= n``: exact clock sampler.
        ``L < n``: approximate uniformised chain with the root redirect.
    max_sets : int, default=32
        Slots of the pool. 0 gives the hypercube's 2n colouring exactly.
    n_mcmc_steps : int, default=200
        Steps of the uniformised chain per draw when ``L < n``.
    discount : float, default=1.0
        ``lambda`` in (0, 1] of the regret table (1: undiscounted).

    Attributes
    ----------
    table : RegretTable
        The ``(n + max_sets) x 2`` colour regrets.
    sets : ndarray of uint8 of shape (max_sets, n)
        The removal set of every slot (rows of free slots are 0).
    occupied : ndarray of bool of shape (max_sets,)
    n_sets_tracked : int
        Removal sets that ever entered the pool.
    exact : bool
        Whether draws come from the exact clock sampler.
    n_updates : int
        Rounds played.

    Examples
    --------
    A negative row fired through two literals: its set enters the pool and
    gains the regret that no single removal has.

    >>> import numpy as np
    >>> graph = RemovalSetColoring(3, max_sets=2)
    >>> graph.track(np.array([[1, 1, 0]], dtype=np.uint8))
    [0]
    >>> graph.update(np.array([1, 1, 0], dtype=np.uint8), np.zeros(3),
    ...              np.array([1.0, 0.0]))
    >>> graph.set_regrets()
    array([1., 0.])
    >>> graph.positive_out_edges(bytes([1, 1, 0]))
    ([b'\\x00\\x00\\x00'], array([1.]))
    """

    _EXACT_READER = "fire_probabilities()"

    def __init__(
        self,
        n_vars: int,
        max_level: int | None = None,
        max_sets: int = 32,
        n_mcmc_steps: int = 200,
        discount: float = 1.0,
    ):
        super().__init__(n_vars, max_level)
        self.max_sets = int(max_sets)
        self.n_mcmc_steps = int(n_mcmc_steps)
        self.table = RegretTable(
            width=2, initial_rows=self.n_vars + self.max_sets, discount=discount
        )
        self.sets = np.zeros((self.max_sets, self.n_vars), dtype=np.uint8)
        self.occupied = np.zeros(self.max_sets, dtype=bool)
        self._slot_of: dict[bytes, int] = {}
        self.n_sets_tracked = 0
        self.exact = max_level is None or max_level >= self.n_vars
        self._state = self.root
        self._sampler = (
            None
            if self.exact
            else UniformizedChainSampler(self, max_level, self.n_mcmc_steps)
        )

    # The slot index is rebuilt on load: skops dicts take no bytes keys.
    def __getstate__(self):
        state = super().__getstate__()
        del state["_slot_of"]
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._slot_of = {
            set_key(np.flatnonzero(self.sets[j])): int(j)
            for j in np.flatnonzero(self.occupied)
        }

    # -- rates (stored units: the true regrets times the table's scale) ----
    @property
    def uniforms_per_round(self) -> int:
        """Uniforms one exact draw consumes: one per bit, one per slot."""
        return self.n_vars + self.max_sets

    def set_regrets(self) -> np.ndarray:
        """The biased regret ``Rtilde`` of every slot's colour (0 when free)."""
        return self.table.biased[self.n_vars :, 0]

    def _set_rates(self) -> np.ndarray:
        """``Rtilde+`` of every slot's colour, in the table's stored units."""
        return np.maximum(self.table.rates[self.n_vars :, 0], 0.0)

    def _removal_sets(self):
        return self._set_rates(), self.sets

    def _bit_rates(self):
        rates = np.maximum(self.table.rates[: self.n_vars], 0.0)
        return rates[:, 0], rates[:, 1]

    # -- the RateGraph protocol -------------------------------------------
    def positive_out_edges(self, vertex: bytes):
        """Edges with a positive colour regret out of ``vertex``, and the rates.

        Flips of single bits first, then the removal of every ringing slot
        that shares a literal with ``vertex`` (two colours may lead to the same
        disjunction: they are parallel edges and their rates add up).
        """
        bits = vertex_bits(vertex)
        rates = self.table.rates[np.arange(self.n_vars), 1 - bits]
        ks = np.flatnonzero(rates > 0)
        targets, out = flipped_keys(bits, ks), [rates[ks]]
        set_rates = self._set_rates()
        for j in np.flatnonzero(set_rates > 0):
            if np.any(bits & self.sets[j]):
                targets.append((bits & (1 - self.sets[j])).tobytes())
                out.append(set_rates[j : j + 1])
        return targets, np.concatenate(out)

    # -- sampling -----------------------------------------------------------
    def draw(self, uniforms: np.ndarray) -> np.ndarray:
        """Exact draws from uniforms (``L >= n``): the clock construction.

        ``uniforms`` has shape ``(uniforms_per_round,)`` or ``(rounds,
        uniforms_per_round)``: the first ``n`` drive the bits, the others the
        slots' clocks. Returns booleans of shape ``(n,)`` or ``(rounds, n)``.
        Every exact draw of this class goes through here, so pre-drawn
        uniforms give the same actions as :meth:`sample`. Without a ringing
        slot this is :meth:`HypercubeColoring.draw` bit for bit.
        """
        off, on = self._bit_rates()
        return draw(
            off,
            on,
            self.sets,
            self._set_rates(),
            uniforms[..., : self.n_vars],
            uniforms[..., self.n_vars :],
        )

    def _draw_one(self, uniforms: np.ndarray) -> np.ndarray:
        # draw() of one action, compiled: the same arithmetic on a few numbers.
        bits = np.empty(self.n_vars, dtype=np.uint8)
        rates = self.table.rates
        draw_clocked_bits(
            rates[: self.n_vars], rates[self.n_vars :, 0], self.sets, uniforms, bits
        )
        return bits

    def _draw_on(self, rng) -> np.ndarray:
        # draw() restricted to the bits that can be 1: the others are 0
        # whatever their uniforms and the clocks (a ring only clears bits).
        sites, n = self.on_sites(), self.n_vars
        slots = n + np.arange(self.max_sets)
        u = uniforms_at(rng, self.uniforms_per_round, np.concatenate([sites, slots]))
        rates = np.maximum(self.table.rates[sites], 0.0)
        bits = draw(
            rates[:, 0],
            rates[:, 1],
            self.sets[:, sites],
            self._set_rates(),
            u[: len(sites)],
            u[len(sites) :],
        )
        return sites[bits]

    def probabilities(self) -> np.ndarray:
        """Exact ``P(bit k = 1)`` when ``L >= n``: ``R+[k, 1] / (W_k + rho_k)``.

        ``rho_k`` is the total rate of the slots holding ``k``; without them
        it is the hypercube's product formula.
        """
        off, on = self._bit_rates()
        set_rates = self._set_rates()
        if not np.any(set_rates > 0):
            return binary_site_probabilities(off, on)
        return marginal_on_probabilities(off, on, self.sets, set_rates)

    def fire_probabilities(self, X, seed, cols=None) -> np.ndarray:
        """``P(a drawn disjunction fires on each row)`` under ``pi`` (``L >= n``).

        Exact product formula while no slot that holds a live feature of the
        rows rings; otherwise the mean, over :data:`N_CLOCK_DRAWS` draws of
        the slots' clocks (deterministic in ``seed``), of the exact
        probability given the clocks (the bits are independent given them).
        With ``cols`` (sorted bits), ``X`` holds only those columns (dense or
        sparse): the others are taken as 0. Dense rows are read by
        :func:`dense_fire_probabilities`.
        """
        rates, n = self.table.rates, self.n_vars
        if cols is None:
            bit_rates, sets = rates[:n], self.sets
        else:
            bit_rates, sets = rates[cols], self.sets[:, cols]
        if not sp.issparse(X):
            return dense_fire_probabilities(X, bit_rates, rates[n:, 0], sets, seed)
        off, on = np.maximum(bit_rates[:, 0], 0.0), np.maximum(bit_rates[:, 1], 0.0)
        set_rates = self._set_rates()
        if not np.any(set_rates > 0):
            return disjunction_fire_probabilities(X, binary_site_probabilities(off, on))
        rng = np.random.default_rng(seed)
        times = group_clock_times(set_rates, rng.random((N_CLOCK_DRAWS, self.max_sets)))
        p = on_probabilities(off, on, latest_group_ring(sets, times))
        return disjunction_fire_probabilities(X, p).mean(axis=1)

    # -- the pool -----------------------------------------------------------
    def is_tracked(self, row: np.ndarray) -> bool:
        """Whether the removal set of this 0/1 ``uint8`` row is in the pool."""
        return set_key(np.flatnonzero(row)) in self._slot_of

    def can_take_a_set(self) -> bool:
        """Whether :meth:`track` would let a new set in: a free slot, or one
        whose regret is at most 0."""
        return bool(self.max_sets) and (
            not self.occupied.all()
            or bool(np.any(self.table.rates[self.n_vars :, 0] <= 0))
        )

    def track(self, rows: np.ndarray) -> list[int]:
        """Let the removal sets of these 0/1 ``uint8`` rows enter the pool.

        A set already tracked is skipped. A new set takes a free slot, else
        the slot whose regret is lowest if it is at most 0 (its colour has no
        rate, so ``pi`` is unchanged) and was not filled by this call; else it
        is not tracked. An entering colour starts at zero regret.

        Returns
        -------
        list of int
            The slots filled, in order.
        """
        return self.track_members(np.flatnonzero(row) for row in np.asarray(rows))

    def track_members(self, members) -> list[int]:
        """:meth:`track` of sets given as sorted feature indices (sparse rows)."""
        filled: list[int] = []
        for features in members:
            key = set_key(features)
            if key in self._slot_of or not self.max_sets:
                continue
            free = np.flatnonzero(~self.occupied)
            if len(free):
                slot = int(free[0])
            else:
                regrets = self.table.rates[self.n_vars :, 0].copy()
                regrets[filled] = np.inf
                slot = int(np.argmin(regrets))
                if regrets[slot] > 0:
                    continue
                del self._slot_of[set_key(np.flatnonzero(self.sets[slot]))]
                self.table.clear_rows([self.n_vars + slot])
            self.sets[slot] = 0
            self.sets[slot, features] = 1
            self.occupied[slot] = True
            self._slot_of[key] = slot
            self.n_sets_tracked += 1
            filled.append(slot)
        return filled

    def set_edges(self, a: np.ndarray) -> np.ndarray:
        """Slots whose colour has an edge out of ``a`` (a shared literal)."""
        return self.occupied & (self.sets @ np.asarray(a, dtype=np.int64) > 0)

    # -- the update -------------------------------------------------------
    def _entries(
        self, a, gains, set_gains, every_edge
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows, columns and gains of the colours one round updates."""
        if every_edge:
            ks, slots = np.arange(self.n_vars), np.flatnonzero(self.set_edges(a))
        else:
            ks, slots = np.flatnonzero(gains), np.flatnonzero(set_gains)
        rows = np.concatenate([ks, self.n_vars + slots])
        cols = np.concatenate([1 - a[ks], np.zeros(len(slots), dtype=a.dtype)])
        return rows, cols, np.concatenate([gains[ks], set_gains[slots]])

    def update(
        self, a: np.ndarray, gains: np.ndarray, set_gains: np.ndarray, bias: float = 0.0
    ) -> None:
        """One round: add ``gain - bias`` to every colour with an edge out of
        ``a`` (after the round's discount, if any).

        ``gains[k]`` is the gain of flipping bit ``k`` (colour ``(k, 1 -
        a[k])``), ``set_gains[j]`` that of dropping slot ``j``'s set (only
        slots with an edge out of ``a`` may have one). With ``bias = 0`` only
        non-zero gains are written.
        """
        a = np.asarray(a, dtype=np.uint8)
        gains = check_round(self.n_vars, a, gains, bias)
        set_gains = check_round(self.max_sets, None, set_gains)
        self.table.advance()
        rows, cols, values = self._entries(a, gains, set_gains, bias != 0)
        self.table.update_entries(rows, cols, values, bias)
        self._note_updated(rows)
        self._state = a.tobytes()

    def update_at(
        self,
        cols: np.ndarray,
        a_cols: np.ndarray,
        gains: np.ndarray,
        set_gains: np.ndarray,
        a_on: np.ndarray,
        bias: float = 0.0,
    ) -> None:
        """:meth:`update` of a sparse round: the bit gains of ``cols`` alone.

        ``cols`` are sorted bits, ``a_cols`` the played action's bits there
        and ``gains`` their gains (every other bit has gain 0); ``a_on`` are
        the action's 1 bits. The same regrets as :meth:`update` with the full
        arrays; with ``bias = 0`` in ``O(len(cols) + max_sets)``.
        """
        set_gains = check_round(self.max_sets, None, set_gains, bias)
        if bias != 0:
            a = np.zeros(self.n_vars, dtype=np.uint8)
            a[a_on] = 1
            full = np.zeros(self.n_vars)
            full[cols] = gains
            self.update(a, full, set_gains, bias)
            return
        nz = np.flatnonzero(self.finite_gains(gains))
        slots = np.flatnonzero(set_gains)
        self.table.advance()
        self.table.update_entries(
            np.concatenate([cols[nz], self.n_vars + slots]),
            np.concatenate([1 - a_cols[nz], np.zeros(len(slots), dtype=a_cols.dtype)]),
            np.concatenate([gains[nz], set_gains[slots]]),
        )
        self._note_updated(cols[nz])
        self._played_sparse(a_on)

    def update_rounds(
        self,
        actions: np.ndarray,
        gains: np.ndarray,
        set_gains: np.ndarray,
        played=None,
        n_rounds=None,
    ) -> None:
        """:meth:`update` with ``bias = 0`` for consecutive rounds, in order.

        The regrets come out bit for bit as with one :meth:`update` per round.
        ``played[i]`` is the round (0, 1, ...) of row ``i`` among ``n_rounds``
        consecutive rounds; rounds without a row had no gains (they still
        count, and decay the regrets). By default every row is its own round.
        """
        actions = np.asarray(actions, dtype=np.uint8)
        if played is None:
            played, n_rounds = np.arange(len(actions)), len(actions)
        bit_rounds, ks = np.nonzero(self.finite_gains(gains))
        set_rounds, slots = np.nonzero(self.finite_gains(set_gains))
        rounds = np.concatenate([bit_rounds, set_rounds])
        order = np.argsort(rounds, kind="stable")  # the rounds' order, as update
        rows = np.concatenate([ks, self.n_vars + slots])[order]
        cols = np.concatenate(
            [1 - actions[bit_rounds, ks], np.zeros(len(slots), dtype=np.uint8)]
        )[order]
        values = np.concatenate([gains[bit_rounds, ks], set_gains[set_rounds, slots]])[
            order
        ]
        scales = None
        if self.table.discount != 1.0:
            of_entry = np.asarray(played)[rounds[order]]
            scales = self.table.round_scales(n_rounds)[of_entry]
        self.table.update_sequence(rows, cols, values, 0.0, scales)
        self._note_updated(rows)
        self.table.advance(n_rounds)
        if len(actions):
            self._state = actions[-1].tobytes()
