"""Rows addressed by key under one discount clock: what every regret table shares.

A regret table keeps one row of numbers per site (a hypercube variable, a tree
path, or for per-edge "swap" regrets a played vertex), created on demand and
addressed by any hashable key, and one :class:`DiscountClock` whose scale
multiplies every stored regret (:ref:`engine-discounting`). :class:`KeyedRows`
owns that bookkeeping -- the key index, the per-row versions that readers cache
against, the clock with its renormalisation, and :meth:`KeyedRows.forget`,
which drops rows and compacts the rest -- so that
:class:`~sklearn_localregret.engine.RegretTable` and
:class:`~sklearn_localregret.engine.StumpRegretTable` only define their
per-row arrays and their updates.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from .discount_clock import DiscountClock

__all__ = [
    "KeyedRows",
    "FORGET_EVERY",
    "FORGET_TOLERANCE",
    "forget_tolerance",
    "grown_capacity",
]

# Per-edge ("swap") learners with a discount forget, every FORGET_EVERY
# rounds, the rows none of whose regrets exceeds FORGET_TOLERANCE * Delta
# (Delta: the largest range of a round's utilities, bias included).
FORGET_EVERY = 256
FORGET_TOLERANCE = 1e-6


def grown_capacity(capacity: int, needed: int) -> int:
    """The size an array of ``capacity`` rows grows to, to hold ``needed``.

    By half again (at least ``needed``, at least 8): the tree's tables add
    sites every round and hold thousands, so that doubling left up to half
    of every per-site array unused (a forest holds ten such tables), while
    copies stay amortised O(1) per row.

    Examples
    --------
    >>> grown_capacity(4096, 4097), grown_capacity(4096, 9000), grown_capacity(0, 1)
    (6144, 9000, 8)
    """
    return max(int(needed), capacity + capacity // 2, 8)


def forget_tolerance(table: KeyedRows, delta: float) -> float | None:
    """The bound below which a per-edge learner forgets rows now, or None.

    ``FORGET_TOLERANCE * delta`` in the round whose :meth:`~KeyedRows.advance`
    reached a multiple of ``FORGET_EVERY`` rounds, in a discounted table
    (``delta``: the largest range of a round's utilities so far, bias
    included); None in the other rounds and without a discount (undiscounted
    regrets never decay).

    Examples
    --------
    >>> from sklearn_localregret.engine import RegretTable
    >>> table = RegretTable(width=1, discount=0.9)
    >>> table.advance(FORGET_EVERY - 1)
    >>> forget_tolerance(table, 5.0) is None
    True
    >>> table.advance()
    >>> forget_tolerance(table, 4.0)
    4e-06
    """
    if table.discount == 1.0:
        return None
    # The last tick crossed a multiple of FORGET_EVERY (ticks may be fractions
    # of a round, or jumps over many).
    n, last = table.n_rounds, table.clock.last_tick
    if n // FORGET_EVERY == (n - last) // FORGET_EVERY:
        return None
    return FORGET_TOLERANCE * delta


class KeyedRows:
    """Base of the regret tables: keyed rows, their versions and one clock.

    A subclass lists its per-row arrays (first axis = row, allocated with
    spare capacity) in ``_ROW_ARRAYS``, those that hold regrets times the
    clock's scale in ``_SCALED`` and what an unused row holds, where not 0, in
    ``_FILL``; it creates them (with ``_versions``) and
    calls :meth:`_start_rows` in its constructor, and grows them to hold
    at least ``needed`` rows in :meth:`_grow_rows`.
    """

    _ROW_ARRAYS: tuple[str, ...] = ("_versions",)
    _SCALED: tuple[str, ...] = ()
    _FILL: dict[str, int] = {}  # what an unused row holds, where not 0
    _versions: np.ndarray

    def _start_rows(self, discount: float, keys=()) -> None:
        self.clock = DiscountClock(discount)
        self._keys: list[Hashable] = list(keys)
        self._row_of: dict[Hashable, int] = {k: i for i, k in enumerate(self._keys)}

    def _grow_rows(self, needed: int) -> None:  # pragma: no cover - defined
        raise NotImplementedError

    def reserve(self, n_rows: int) -> None:
        """Make room for ``n_rows`` rows in one growth (rows that :meth:`row`
        then creates copy nothing): for callers that add many rows at once.

        Examples
        --------
        >>> from sklearn_localregret.engine import RegretTable
        >>> table = RegretTable(width=2)
        >>> table.reserve(1000)
        >>> capacity = table._versions.shape[0]
        >>> rows = [table.row(key) for key in range(1000)]
        >>> table._versions.shape[0] == capacity >= 1000
        True
        """
        if n_rows > self._versions.shape[0]:
            self._grow_rows(int(n_rows))

    # -- rows ---------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        """Number of rows in use."""
        return len(self._keys)

    @property
    def versions(self) -> np.ndarray:
        """Per-row counters that every update of the row increases (read-only).

        Readers cache what they derive from a row against its version.
        """
        view = self._versions[: self.n_rows]
        view.flags.writeable = False
        return view

    def keys(self) -> list[Hashable]:
        """Keys of the rows, in row order."""
        return list(self._keys)

    def find(self, key: Hashable) -> int:
        """Row of ``key``, or -1 if no row was created for it (all regrets 0)."""
        return self._row_of.get(key, -1)

    def row(self, key: Hashable) -> int:
        """Row of ``key``, created with zero regrets if it does not exist yet."""
        row = self._row_of.get(key)
        if row is None:
            row = len(self._keys)
            if row == self._versions.shape[0]:
                self._grow_rows(row + 1)
            self._keys.append(key)
            self._row_of[key] = row
        return row

    def forget(self, rows) -> np.ndarray:
        """Drop ``rows`` (their keys read as never created again); keep the rest.

        The kept rows move down, in order, to fill the gaps; their values and
        versions move with them. Anyone holding row numbers must renumber them
        with the returned map.

        Parameters
        ----------
        rows : sequence of int

        Returns
        -------
        ndarray of int of shape (n_rows before the call,)
            The new number of every old row, -1 for a forgotten one.

        Examples
        --------
        >>> from sklearn_localregret.engine import RegretTable
        >>> table = RegretTable(width=1)
        >>> for key in "abc":
        ...     table.update_entries([table.row(key)], [0], [ord(key) - 96.0])
        >>> table.forget([1])
        array([ 0, -1,  1])
        >>> table.keys(), table.biased.ravel().tolist(), table.find("b")
        (['a', 'c'], [1.0, 3.0], -1)
        """
        n = self.n_rows
        keep = np.ones(n, dtype=bool)
        keep[np.asarray(rows, dtype=np.intp)] = False
        kept = np.flatnonzero(keep)
        renumber = np.full(n, -1, dtype=np.intp)
        renumber[kept] = np.arange(kept.size)
        for name in self._ROW_ARRAYS:
            array = getattr(self, name)
            array[: kept.size] = array[kept]
            array[kept.size : n] = self._FILL.get(name, 0)
        self._keys = [self._keys[i] for i in kept.tolist()]
        self._row_of = {key: i for i, key in enumerate(self._keys)}
        return renumber

    # -- rounds and the discount --------------------------------------------
    @property
    def discount(self) -> float:
        return self.clock.discount

    @property
    def scale(self) -> float:
        """The common factor of the stored regrets (``lambda^-t``, reset now
        and then); what the samplers read carries it."""
        return self.clock.scale

    @property
    def n_rounds(self) -> float:
        """Rounds started with :meth:`advance` (a fraction for short rounds)."""
        return self.clock.n_rounds

    @property
    def effective_rounds(self) -> float:
        """``sum_{s <= t} lambda^(t - s)``: ``n_rounds`` when undiscounted."""
        return self.clock.effective_rounds

    def advance(self, n: float = 1) -> None:
        """Start ``n`` rounds: every regret is multiplied by ``lambda^n`` (lazily).

        Call it before the updates of a round (and for rounds without updates:
        their regrets decay too). ``n`` may be a fraction (a round shorter
        than a full one).
        """
        if self.clock.tick(n):
            self._renormalize()
            if self.clock.tick(n):
                # More rounds than a scale can hold (a sync's jump over the
                # other shards' rounds): the rows decay by lambda^n now.
                self._rescale(self.clock.discount**n)
                self.clock.n_rounds += n
                self.clock.last_tick = n

    def _rescale(self, factor: float) -> None:
        """Multiply the stored regrets by ``factor`` (the scale stays)."""
        n = self.n_rows
        for name in self._SCALED:
            getattr(self, name)[:n] *= factor
        self._versions[:n] += 1  # what readers derived is in the old units

    def _renormalize(self) -> None:
        """Divide the stored regrets by the scale, which restarts at 1."""
        self._rescale(1.0 / self.clock.scale)
        self.clock.reset()
