"""Regret tables: one biased and one unbiased regret per colour.

A colour is addressed as ``(row, column)``: a *row* groups the colours of one site
(a hypercube variable, a decision-tree path, or, for per-edge "swap" regrets, one
vertex) and the columns enumerate that site's colours. Rows are created on demand
and addressed by any hashable key, so infinite colourings (decision trees) only
pay for the sites that were ever touched.

**Discounting** (:ref:`engine-discounting`). With a discount ``lambda < 1`` every
regret becomes ``lambda * R + r`` each round. The table stores ``Q = R * s`` with
one global scale ``s = lambda^-t``: a round multiplies ``s`` by ``1 / lambda``
(:meth:`RegretTable.advance`) and an update adds ``r * s``, so a round costs
nothing per untouched colour. Every stationary distribution the samplers compute
is unchanged when all rates are multiplied by one positive number, so they read
the stored ``Q`` (:attr:`RegretTable.rates`); the true regrets are ``Q / s``
(:attr:`RegretTable.biased`). When ``s`` passes 1e100 the table is multiplied by
``1 / s`` once and ``s`` restarts at 1.
"""

from __future__ import annotations

import copy

import numpy as np

from .compiled.regret_update import add_entries, add_row
from .discount_clock import DiscountClock
from .keyed_rows import KeyedRows
from .saved_paths import is_packed_bytes, pack_bytes, unpack_bytes

__all__ = ["RegretTable", "DiscountClock"]


class RegretTable(KeyedRows):
    """Growable table of colour regrets with the paper's biased update.

    Keeps, for every colour ``C``, the biased regret ``Rtilde[C]`` that drives the
    play (paper, Definition of (b, L, C)-colored-regret-matching) and the unbiased
    regret ``R[C]`` used to report the time-averaged local colored regret.

    Parameters
    ----------
    width : int
        Number of colours per row.
    initial_rows : int, default=0
        Rows to allocate (and key ``0 .. initial_rows - 1``) up front.
    discount : float, default=1.0
        ``lambda`` in (0, 1]: each round every regret becomes ``lambda R + r``
        (see :meth:`advance`). 1 is the paper's undiscounted algorithm.

    Attributes
    ----------
    n_rows : int
        Number of rows in use.
    biased : ndarray of shape (n_rows, width)
        The biased regrets ``Rtilde`` (read-only).
    unbiased : ndarray of shape (n_rows, width)
        The unbiased regrets ``R`` (read-only).
    rates : ndarray of shape (n_rows, width)
        ``Rtilde`` times the table's common positive factor ``scale``: what
        the samplers read (a view; do not write to it).
    versions : ndarray of int of shape (n_rows,)
        A counter per row that every update of the row increases (and a
        renormalisation of the whole table), so that readers can cache what they
        derive from a row (a view; do not write).
    n_rounds : int
        Rounds started with :meth:`advance`.

    Examples
    --------
    >>> import numpy as np
    >>> table = RegretTable(width=2, initial_rows=3)
    >>> table.update_entries([0, 1, 2], [1, 1, 0], [2.0, -1.0, 0.5], bias=0.5)
    >>> table.biased
    array([[ 0. ,  1.5],
           [ 0. , -1.5],
           [ 0. ,  0. ]])
    >>> table.colored_regret()
    2.5
    """

    _ROW_ARRAYS = ("_biased", "_unbiased", "_versions")
    _SCALED = ("_biased", "_unbiased")

    def __init__(self, width: int, initial_rows: int = 0, discount: float = 1.0):
        self.width = int(width)
        capacity = max(int(initial_rows), 8)
        self._biased = np.zeros((capacity, self.width))
        self._unbiased = np.zeros((capacity, self.width))
        self._versions = np.zeros(capacity, dtype=np.int64)
        self._start_rows(discount, range(initial_rows))

    # -- persistence ------------------------------------------------------
    # The key -> row index is derived from the key list, so it is rebuilt on
    # load rather than stored: that keeps pickles smaller and lets skops, whose
    # dicts take only str/int/float/bool/None keys, save tree-path keys.
    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_row_of"]
        packed = pack_bytes(self._keys)  # (skops: a file a key of bytes)
        if packed is not None:
            state["_keys"] = packed
        return state

    def __setstate__(self, state):
        if is_packed_bytes(state["_keys"]):
            state = {**state, "_keys": unpack_bytes(state["_keys"])}
        # A saved table shorter than its keys, or of another width, would be
        # read and written past its ends by the compiled kernels.
        rows, width = len(state["_keys"]), int(state["width"])
        for name in self._ROW_ARRAYS:
            shape = np.shape(state[name])
            if shape[0] < rows or (name in self._SCALED and shape[1:] != (width,)):
                raise ValueError(
                    f"a regret table's {name} has shape {shape} for {rows} rows "
                    f"of {width} colours (a forged or damaged file?)"
                )
        self.__dict__.update(state)
        self._row_of = {key: row for row, key in enumerate(self._keys)}

    # -- rows -------------------------------------------------------------
    @property
    def rates(self) -> np.ndarray:
        return self._biased[: self.n_rows]

    @property
    def biased(self) -> np.ndarray:
        return self._true(self._biased)

    @property
    def unbiased(self) -> np.ndarray:
        return self._true(self._unbiased)

    def _true(self, stored: np.ndarray) -> np.ndarray:
        view = stored[: self.n_rows]
        scale = self.clock.scale
        return view if scale == 1.0 else view / scale

    def round_scales(self, n: int) -> np.ndarray:
        """Factors for the gains of the next ``n`` rounds, for
        :meth:`update_sequence` (``scale`` of round ``k = 1..n`` ahead); call
        :meth:`advance` with ``n`` afterwards."""
        if self.clock.needs_renormalizing(n):
            self._renormalize()
        return self.clock.scales(n)

    def _grow_rows(self, needed: int) -> None:
        capacity = max(2 * self._biased.shape[0], needed)
        for name in self._ROW_ARRAYS:
            old = getattr(self, name)
            new = np.zeros((capacity,) + old.shape[1:], dtype=old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)

    # -- the update -------------------------------------------------------
    def update_entries(self, rows, cols, gains, bias: float = 0.0) -> None:
        """Add ``gains - bias`` to the biased and ``gains`` to the unbiased regret.

        Each ``(rows[e], cols[e])`` is the colour of one edge ``(i, j)`` out of the
        played action ``i`` and ``gains[e] = u(j) - u(i)``. The colours must be
        distinct (an admissible colouring has at most one edge per colour out of a
        vertex).
        """
        rows = np.asarray(rows, dtype=np.intp)
        cols, gains = np.asarray(cols, dtype=np.intp), np.asarray(gains, dtype=float)
        if not len(rows) == len(cols) == len(gains):
            raise ValueError(
                f"rows, cols and gains have lengths {len(rows)}, {len(cols)} and "
                f"{len(gains)}: one entry each"
            )
        bad = add_entries(
            self._unbiased,
            self._biased,
            rows,
            cols,
            gains,
            float(bias),
            float(self.clock.scale),
            self.n_rows,
        )
        if bad >= 0:  # nothing written
            raise IndexError(
                f"entry {bad} at row {rows[bad]}, column {cols[bad]}: the table "
                f"has {self.n_rows} rows of {self.width} colours"
            )
        self._versions[rows] += 1  # once per row, repeated or not

    def update_row(
        self, row: int, gains: np.ndarray, bias: float = 0.0
    ) -> tuple[bool, float]:
        """:meth:`update_entries` on every colour of one row, ``gains[c]`` on
        column ``c`` (bit for bit the same regrets).

        Returns
        -------
        moved : bool
            Whether a positive rate of the row changed (a chain sampler must
            then re-read the row's edges).
        largest : float
            ``max |gains|``: the round's range of utilities, which a per-edge
            learner keeps for forgetting (:func:`forget_tolerance`).

        Examples
        --------
        >>> table = RegretTable(width=2, initial_rows=1)
        >>> table.update_row(0, np.array([0.0, 2.0]))
        (True, 2.0)
        >>> table.update_row(0, np.array([-1.0, 0.0]))  # 0 -> -1: no edge moved
        (False, 1.0)
        """
        if not 0 <= row < self.n_rows or np.shape(gains) != (self.width,):
            raise IndexError(
                f"row {row} with {np.size(gains)} gains: the table has "
                f"{self.n_rows} rows of {self.width} colours"
            )
        moved, largest = add_row(
            self._unbiased,
            self._biased,
            int(row),
            np.asarray(gains, dtype=float),
            float(bias),
            float(self.clock.scale),
        )
        self._versions[row] += 1
        return bool(moved), float(largest)

    def stored_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(unbiased, biased, versions)``, the stored arrays themselves.

        For a compiled round that applies :meth:`update_entries`'s
        arithmetic in place (times :attr:`scale`, versions included), after
        :meth:`advance`; rows beyond :attr:`n_rows` are spare capacity. Valid
        until the table grows or forgets rows.
        """
        return self._unbiased, self._biased, self._versions

    def update_sequence(self, rows, cols, gains, bias=0.0, scales=None) -> None:
        """Several rounds of :meth:`update_entries` at once, applied in order.

        Unlike :meth:`update_entries` a colour may repeat (it was updated in
        several rounds): the entries are added one after the other
        (``np.add.at``), giving bit for bit the regrets that one
        :meth:`update_entries` call per round would. Each touched row's version
        increases. With a discount, ``scales[e]`` is the factor of the round of
        entry ``e`` (:meth:`round_scales`); ``bias`` may be per entry too.

        Examples
        --------
        >>> table = RegretTable(width=2, initial_rows=1)
        >>> table.update_sequence([0, 0, 0], [1, 1, 0], [2.0, -0.5, 1.0])
        >>> table.biased
        array([[1. , 1.5]])
        """
        rows = self._checked_rows(rows)
        cols = np.asarray(cols, dtype=np.intp)
        if cols.size and not (0 <= cols.min() and cols.max() < self.width):
            raise IndexError(f"a column out of range (the width is {self.width})")
        gains = np.asarray(gains, dtype=float)
        biased = gains - bias
        if scales is not None:
            gains, biased = gains * scales, biased * scales
        elif self.clock.scale != 1.0:
            gains, biased = gains * self.clock.scale, biased * self.clock.scale
        np.add.at(self._unbiased, (rows, cols), gains)
        np.add.at(self._biased, (rows, cols), biased)
        self._versions[rows] += 1

    def _checked_rows(self, rows) -> np.ndarray:
        """``rows`` as indices, refused if one is not a row of the table
        (numpy would wrap a negative one, and write the spare capacity)."""
        rows = np.asarray(rows, dtype=np.intp)
        if rows.size and not (0 <= rows.min() and rows.max() < self.n_rows):
            raise IndexError(f"a row out of range (the table has {self.n_rows})")
        return rows

    def update_rows(self, rows, gains, edge_mask, bias: float = 0.0) -> None:
        """Row-wise update: ``gains[r, c]`` for every colour where ``edge_mask``.

        Colours outside ``edge_mask`` (no edge of that colour leaves the played
        action) are left untouched, as the paper's update demands.
        """
        rows = self._checked_rows(rows)
        gains = np.where(edge_mask, gains, 0.0) * self.clock.scale
        self._unbiased[rows] += gains
        if bias:
            gains -= np.where(edge_mask, bias * self.clock.scale, 0.0)
        self._biased[rows] += gains
        self._versions[rows] += 1

    def clear_rows(self, rows) -> None:
        """Set both regrets of every colour of ``rows`` to exactly 0.

        For a row reused by a new colour (a removal-set slot): an update by
        minus the stored value would leave rounding behind.
        """
        rows = self._checked_rows(rows)
        self._biased[rows] = 0.0
        self._unbiased[rows] = 0.0
        self._versions[rows] += 1

    # -- reading ----------------------------------------------------------
    def positive(self, rows=None) -> np.ndarray:
        """``rates+`` of the given rows (all rows if None): the chain's rates,
        ``Rtilde+`` up to the table's common factor."""
        rates = self.rates if rows is None else self._biased[rows]
        return np.maximum(rates, 0.0)

    def colored_regret(self) -> float:
        """Local colored regret ``sum_C (R[C])+`` (not yet divided by the
        rounds; discounted when ``discount < 1``)."""
        return float(np.maximum(self.unbiased, 0.0).sum())

    def row_max_regret(self) -> np.ndarray:
        """``max_C (R[C])+`` per row, the per-vertex term of local swap regret."""
        if self.n_rows == 0:
            return np.zeros(0)
        return np.maximum(self.unbiased, 0.0).max(axis=1)

    def row_magnitudes(self) -> np.ndarray:
        """``max_C max(|Rtilde[C]|, |R[C]|)`` per row (true units)."""
        n = self.n_rows
        if n == 0:
            return np.zeros(0)
        stored = np.maximum(np.abs(self._biased[:n]), np.abs(self._unbiased[:n]))
        return stored.max(axis=1) / self.clock.scale

    def n_nonzero(self) -> int:
        """Number of colours whose biased regret is non-zero (the paper's count)."""
        return int(np.count_nonzero(self.rates))

    def copy(self) -> RegretTable:
        """An independent copy (used to roll back a failed update)."""
        new = RegretTable.__new__(RegretTable)
        new.clock = copy.copy(self.clock)
        new.width = self.width
        new._biased = self._biased.copy()
        new._unbiased = self._unbiased.copy()
        new._versions = self._versions.copy()
        new._keys = list(self._keys)
        new._row_of = dict(self._row_of)
        return new
