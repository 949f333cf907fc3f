"""Copies of learners and of their states, for merges and syncs.

:func:`dumps` pickles as ``pickle.dumps`` does, except that the objects that
pack their arrays when saved (deflated, residuals: small files, slow) are
stored as they are in memory, which is many times faster; ``pickle.loads``
reads it back. It is for copies and for what shards send each other, never
for saving.
"""

from __future__ import annotations

import io
import pickle

__all__ = ["copy_model", "dumps"]


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
        return NotImplemented


def _raw_object(cls, state):
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj
