"""Copies of learners and of their states, for merges and syncs.

:func:`dumps` pickles as ``pickle.dumps`` does, except that the objects that
pack their arrays when saved (deflated, residuals: small files, slow) are
stored as they are in memory, which is many times faster; ``pickle.loads``
reads it back. It is for copies and for what shards send each other, never
for saving. :func:`dumps_sent` is for increments one process sends another
(a sync's deltas): a stump table's factors only, in the compact form of
:mod:`._sent_tables` (no spare capacity, no caches: they are rebuilt on
loading; no deflating: fast).
"""

from __future__ import annotations

import io
import pickle

from ._sent_tables import compact_state, expanded_state

__all__ = ["copy_model", "dumps", "dumps_sent"]


def copy_model(est):
    """An independent copy of a learner, fitted state included (by pickling:
    locks and caches are rebuilt; see :func:`dumps`)."""
    return pickle.loads(dumps(est))


def dumps(est) -> bytes:
    """A learner as bytes for a copy or a sync, not for saving.

    As ``pickle.dumps``, but the objects that pack their arrays when saved
    (deflated, residuals: small files, slow) are stored as they are in
    memory, which is many times faster; ``pickle.loads`` reads it back.
    """
    buffer = io.BytesIO()
    _RawPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(est)
    return buffer.getvalue()


def dumps_sent(obj) -> bytes:
    """``obj`` as bytes for another process: as :func:`dumps`, but a stump
    regret table holds only the factors of its rows (plain arrays), which
    are read again into a new table by ``pickle.loads``."""
    buffer = io.BytesIO()
    _SentPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def _packed_types() -> tuple[type, ...]:
    from ..engine.stump_table import StumpRegretTable
    from ..locality.recent_rows import RecentRows
    from ..thresholds.catalog import ThresholdTests

    return (StumpRegretTable, RecentRows, ThresholdTests)


class _RawPickler(pickle.Pickler):
    _packed = None

    def reducer_override(self, obj):
        packed = _RawPickler._packed
        if packed is None:
            packed = _RawPickler._packed = _packed_types()
        if type(obj) in packed:
            return _raw_object, (type(obj), obj.__dict__)
        if hasattr(obj, "_reduce_in_place") and not isinstance(obj, type):
            return obj._reduce_in_place()  # a classifier: its tables in here
        return NotImplemented


def _raw_object(cls, state):
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


class _SentPickler(_RawPickler):
    def reducer_override(self, obj):
        from ..engine.stump_table import StumpRegretTable

        if type(obj) is StumpRegretTable:
            state = compact_state(obj.saved_state(packed=False))
            return _loaded_table, (type(obj), state)
        return super().reducer_override(obj)


def _loaded_table(cls, state):
    obj = cls.__new__(cls)
    obj.__setstate__(expanded_state(state))
    return obj
