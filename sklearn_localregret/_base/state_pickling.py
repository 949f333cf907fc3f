"""A classifier's state pickled apart from its pickle, references to itself
included.

:meth:`BaseOnlineClassifier.__reduce_ex__` pickles the state to bytes while
it holds the model lock (pickle reads a reduced state only after
``__reduce_ex__`` returns, and a round learnt in between left files that did
not load). That inner pickle has a memo of its own: an object in the state
that refers back to the estimator (scikit-learn's metadata requests keep
their ``owner``) met the estimator again, reduced it again, and recursed
without end. Here the estimator is a persistent reference, bound again to
the object being rebuilt.
"""

from __future__ import annotations

import io
import pickle

__all__ = ["pickled_state", "unpickled_state"]

_OWNER = "sklearn_localregret:owner"


class _StatePickler(pickle.Pickler):
    def __init__(self, file, protocol: int, owner):
        super().__init__(file, protocol)
        self._owner = owner

    def persistent_id(self, obj):
        return _OWNER if obj is self._owner else None


class _StateUnpickler(pickle.Unpickler):
    def __init__(self, file, owner):
        super().__init__(file)
        self._owner = owner

    def persistent_load(self, pid):
        if pid != _OWNER:
            raise pickle.UnpicklingError(f"unknown persistent reference {pid!r}")
        return self._owner


def pickled_state(owner, state, protocol: int) -> bytes:
    """``state`` pickled, each reference to ``owner`` a persistent one.

    Examples
    --------
    >>> class Node:
    ...     pass
    >>> node = Node()
    >>> node.me = node
    >>> data = pickled_state(node, {"me": node, "n": 1}, 4)
    >>> twin = Node()
    >>> state = unpickled_state(twin, data)
    >>> state["me"] is twin, state["n"]
    (True, 1)
    """
    buffer = io.BytesIO()
    _StatePickler(buffer, protocol, owner).dump(state)
    return buffer.getvalue()


def unpickled_state(owner, data: bytes):
    """The state :func:`pickled_state` saved, its references to the owner
    bound to ``owner`` (a state pickled plainly loads as it is)."""
    return _StateUnpickler(io.BytesIO(data), owner).load()
