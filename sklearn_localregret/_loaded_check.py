"""A loaded object checks itself once, at its first use.

``pickle.load``, ``skops.io.load`` and ``copy`` rebuild an object through
``__setstate__`` without :func:`~sklearn_localregret.persistence.load`'s
check: a forged file of trusted types would then fail deep in a kernel with
an ``IndexError``. :class:`ChecksWhenLoaded` marks a loaded object, and its
first prediction or learning call runs
:func:`~sklearn_localregret.persistence.check_consistency` (a clear
``ValueError`` naming what disagrees, at every call until the model is sound).
"""

from __future__ import annotations

__all__ = ["ChecksWhenLoaded"]


class ChecksWhenLoaded:
    """Mixin: ``__setstate__`` marks the object, :meth:`_check_loaded` checks it.

    The mark is a one-element list (``_unchecked``), never saved, so that a
    sound model pickles the same before and after its check.
    """

    def __getstate__(self):
        # A copy, never the live __dict__ (object has no __getstate__ before
        # Python 3.11).
        parent = getattr(super(), "__getstate__", None)
        state = dict(self.__dict__ if parent is None else parent())
        state.pop("_unchecked", None)
        return state

    def __setstate__(self, state):
        parent = getattr(super(), "__setstate__", None)
        if parent is None:
            self.__dict__.update(state)
        else:
            parent(state)
        self._unchecked = [True]

    def _check_loaded(self) -> None:
        """Check a loaded object once, before its first prediction or
        learning call; until the check passes, every call raises its error."""
        holder = self.__dict__.get("_unchecked")
        if holder is None or not holder[0]:
            return
        from .persistence import check_consistency

        holder[0] = False  # the check itself predicts
        try:
            check_consistency(self)
        except BaseException:
            holder[0] = True
            raise
