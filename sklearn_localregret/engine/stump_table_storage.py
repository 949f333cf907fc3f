"""How a :class:`~sklearn_localregret.engine.StumpRegretTable` is saved.

:class:`StumpTableStorage` is the table's persistence (a mixin of
:class:`~sklearn_localregret.engine.StumpRegretTable`): the factors of the
rows in use (:meth:`~StumpTableStorage.factors`), packed on saving
(:mod:`~sklearn_localregret.engine.saved_arrays`: ``S_false`` as its
residual from what the class totals predict) and unpacked into fresh arrays
on loading, the key index and the caches rebuilt rather than stored.
"""

from __future__ import annotations

import numpy as np

from .compiled.class_totals import majority_sums, residual_bits
from .keyed_rows import KeyedRows
from .saved_arrays import pack, unpack
from .saved_paths import (
    is_packed_paths,
    is_packed_tree_paths,
    pack_paths,
    pack_tree_paths,
    unpack_paths,
    unpack_tree_paths,
)

__all__ = ["StumpTableStorage", "class_totals"]


class StumpTableStorage(KeyedRows):
    """Saving and loading of the stump regret table (a mixin of
    :class:`~sklearn_localregret.engine.StumpRegretTable`)."""

    # The layout it saves (the table's).
    _n_tests: int
    _leaf: np.ndarray
    _true: np.ndarray
    _false: np.ndarray
    _cost: np.ndarray
    _model_scale: np.ndarray
    _reads: np.ndarray
    _missing_partner: np.ndarray
    _next_threshold: np.ndarray
    model_reads: bool

    @property
    def models(self) -> bool:  # pragma: no cover - the table's
        raise NotImplementedError

    # -- persistence ------------------------------------------------------
    # The key index is derived from the key list; the cache is derived from the
    # regrets. Neither is stored, which keeps saved models small and lets
    # skops (whose dicts take only str/int/float/bool/None keys) save path keys.
    # The factors are stored exactly but packed (engine.saved_arrays): rows in
    # use only, deflated, and S_false as its difference from what the class
    # totals predict (S_true + S_false is the same at most tests of a site).
    _DERIVED = (
        "_row_of",
        "_seen",
        "_content",
        "_cdf",
        "_total",
        "_odds",
        "_base",
        "_magnitude",
        "_measured",
    )

    def factors(self) -> dict[str, np.ndarray]:
        """The stored factors of the rows in use (copies, times :attr:`scale`).

        ``leaf`` (n_rows, 2, K) and ``cost`` (n_rows, 2, n_tests) hold the
        biased then the unbiased values; ``true`` and ``false`` are
        ``S_true``, ``S_false`` of shape (n_rows, n_tests, K); ``versions``
        (n_rows,). What a saved table holds, before packing.
        """
        n, t = self.n_rows, self._n_tests
        return {
            "leaf": self._leaf[:n].copy(),
            "true": self._true[:n, :t].copy(),
            "false": self._false[:n, :t].copy(),
            "cost": self._cost[:n, :, :t].copy(),
            "versions": self._versions[:n].copy(),
        }

    def __getstate__(self):
        return self.saved_state(packed=True)

    def saved_state(self, packed: bool = True) -> dict:
        """What pickling stores: the factors of the rows in use, without the
        key index and the caches (derived on loading).

        ``packed=False`` keeps the factors as plain arrays (views, no
        deflating): many times faster to write, larger, for what one process
        sends another (:mod:`sklearn_localregret.merging._copies`).
        """
        state = {k: v for k, v in self.__dict__.items() if k not in self._DERIVED}
        # Views, not factors()' copies: packing reads them once (a wide
        # table's factors are gigabytes).
        n, t = self.n_rows, self._n_tests
        true, false = self._true[:n, :t], self._false[:n, :t]
        keep = pack if packed else _as_is
        state["_leaf"] = keep(self._leaf[:n])
        state["_true"] = keep(true)
        if packed:
            totals = class_totals(true, false)
            # pack_residual(false, totals[:, None, :] - true), in one pass.
            residual = np.empty(true.shape, dtype=np.uint64)
            residual_bits(false.view(np.uint64), totals, true, residual)
            state["_false"] = {"totals": pack(totals), "residual": pack(residual)}
        else:
            state["_false"] = false
        state["_cost"] = keep(self._cost[:n, :, :t])
        state["_versions"] = keep(self._versions[:n])
        if self.models:
            state["_model_scale"] = self._model_scale[: self.n_rows].copy()
        else:
            state.pop("_model_scale", None)
        if self.model_reads:
            state["_reads"] = keep(self._reads[: self.n_rows].copy())
        else:
            state.pop("_reads", None)
        if packed:  # keys as arrays (skops wrote each pair as a node)
            keys = pack_paths(self._keys)
            if keys is None:
                keys = pack_tree_paths(self._keys)
            if keys is not None:
                state["_keys"] = keys
        return state

    def __setstate__(self, state):
        keys = state.get("_keys")
        if is_packed_paths(keys):
            state = {**state, "_keys": unpack_paths(keys)}
        elif is_packed_tree_paths(keys):
            state = {**state, "_keys": unpack_tree_paths(keys)}
        self.__dict__.update(state)
        if "n_leaves" not in state:  # saved before model leaves
            self.n_leaves = self.n_classes
        self.model_reads = bool(state.get("model_reads", False))  # or before reads
        if "_missing_partner" not in state:  # or before the variants' pairs
            self._missing_partner = np.full(self._n_tests, -1, dtype=np.int64)
        if "_next_threshold" not in state:  # or before the thresholds' chains
            self._next_threshold = np.full(self._n_tests, -1, dtype=np.int64)
        reads = state.get("_reads")
        self._row_of = {key: row for row, key in enumerate(self._keys)}
        rows, tests = max(len(self._keys), 8), max(self._n_tests, 8)
        # Read-only views of the inflated bytes where they can be: they are
        # copied into the table's arrays once (a wide table's are gigabytes).
        saved = {
            name: unpack(getattr(self, name), writeable=False)
            for name in ("_leaf", "_true", "_cost", "_versions")
        }
        false = self._false
        model_scale = state.get("_model_scale")
        self._allocate(rows, tests)
        if model_scale is not None:
            self._model_scale[: len(self._keys)] = model_scale
        if reads is not None:
            self._reads[: len(self._keys)] = unpack(reads)
        n, t = len(self._keys), self._n_tests
        self._leaf[:n] = saved["_leaf"]
        self._true[:n, :t] = saved["_true"]
        if isinstance(false, dict):  # packed against the class totals
            self._restore_false(false, saved["_true"])
        else:
            self._false[:n, :t] = false
        self._cost[:n, :, :t] = saved["_cost"]
        self._versions[:n] = saved["_versions"]

    def _restore_false(self, packed: dict, true: np.ndarray) -> None:
        """``S_false`` from its residual against ``totals - S_true``
        (:func:`~sklearn_localregret.engine.saved_arrays.unpack_residual`),
        written into the table's array in one pass."""
        totals = unpack(packed["totals"])
        if totals.shape != true.shape[::2]:
            raise ValueError("a damaged regret table: class totals' shape")
        residual = unpack(packed["residual"], writeable=False)
        if residual.dtype != np.uint64 or residual.shape != true.shape:
            raise ValueError("a damaged packed array: it does not fit its prediction")
        n, t = true.shape[:2]
        totals = np.ascontiguousarray(totals, dtype=np.float64)
        true = np.asarray(true, dtype=np.float64)
        residual_bits(residual, totals, true, self._false[:n, :t].view(np.uint64))


def _as_is(array: np.ndarray) -> np.ndarray:
    return array


def class_totals(true: np.ndarray, false: np.ndarray) -> np.ndarray:
    """Per row and class, the most frequent ``S_true + S_false`` over the tests.

    All tests of a site that were edges in the same rounds share it (the
    weight of each class that reached the site), so ``totals - S_true``
    predicts ``S_false`` exactly at most tests: what a saved table stores is
    the residual of that prediction. Shape ``(n_rows, K)``; 0 without tests.
    """
    n, t, k = true.shape
    if t == 0:
        return np.zeros((n, k))
    # A value that more than half the tests hold is the mode (the usual case):
    # found without sorting. The other columns are sorted.
    modes = np.zeros((n, k), dtype=np.uint64)
    found = np.zeros((n, k), dtype=bool)
    majority_sums(true, false, modes, found)
    rows, classes = np.nonzero(~found)
    if rows.size:
        sums = true[rows, :, classes] + false[rows, :, classes]  # (columns, t)
        modes[rows, classes] = _sorted_modes(sums)
    return modes.view(np.float64)


def _sorted_modes(sums: np.ndarray) -> np.ndarray:
    """The bits of the most frequent value of each row of ``sums`` (the
    smallest bits among equally frequent ones), by sorting the bits: equal
    sums are equal bit patterns, and a run's length is where the next one
    starts."""
    bits = np.sort(np.ascontiguousarray(sums).view(np.uint64), axis=1)
    t = bits.shape[1]
    starts = np.ones(bits.shape, dtype=bool)
    starts[:, 1:] = bits[:, 1:] != bits[:, :-1]
    modes = np.empty(bits.shape[0], dtype=np.uint64)
    for i in range(bits.shape[0]):
        begin = np.flatnonzero(starts[i])
        runs = np.diff(np.append(begin, t))
        modes[i] = bits[i, begin[runs.argmax()]]
    return modes
