"""Shards that keep their learner between syncs and exchange increments only.

A :class:`ShardState` holds one shard's learner and a copy of its sums at
the last sync (its :meth:`~._core.Merger.mark`). After a window of rounds it
reports a :class:`SyncDelta`: what the window added (the regret rows it
touched, per regret table, the counters, the hedges' losses, the rounds of
each table). The deltas of all shards are summed (:meth:`SyncDelta.sum`)
and every shard applies the sum (:meth:`ShardState.apply`), after which all
shards hold the same regrets and counters: those of
:func:`~sklearn_localregret.merging.absorb_shards` of the window, i.e. in true
units ``lambda^S base + sum_i d_i`` for every table at its own discount
(``d_i`` shard ``i``'s increments, ``S`` all the window's rounds). What is
not a sum (a window of recent rows, the last played action, the random
state, a forest's drift detectors) stays each shard's own; a forest's member
replaced after a drift is sent whole (:mod:`._forest`).

A sync costs the size of what the window touched, not of the model: a
tree's table can hold thousands of paths, a window of rounds touches the
paths of the trees it played.
"""

from __future__ import annotations

import pickle

from ._core import merger_of, model_lock_of
from ._sums import SyncDelta

__all__ = ["ShardState", "SyncDelta"]


class ShardState:
    """One shard's learner, and its sums as of the last sync.

    Parameters
    ----------
    model : bytes
        The common learner (:func:`~sklearn_localregret.merging._core.dumps`).
    seed : int or None
        Seeds the shard's draws (None: keep the learner's random state).
    """

    def __init__(self, model: bytes, seed: int | None = None):
        self.model = pickle.loads(model)
        self.merger = merger_of(self.model)
        if seed is not None:
            self.merger.reseed(self.model, seed)
        self._own: SyncDelta | None = None
        self._mark()

    def _mark(self) -> None:
        """Remember the sums as they are now (a sync)."""
        self._before = self.merger.mark(self.model)

    def learn(self, X, y, classes) -> None:
        """Learn the rows of a window (none: nothing)."""
        if len(y):
            self.model.partial_fit(X, y, classes=classes)

    def delta(self) -> SyncDelta:
        """What the rounds since the last sync added (kept for :meth:`apply`)."""
        self._own = self.merger.delta(self.model, self._before)
        return self._own

    def synced(self) -> None:
        """A sync with nothing to take in (the only shard): the sums as they
        are now are the synced ones."""
        self._own = None
        self._mark()

    def apply(self, total: SyncDelta) -> None:
        """Take in the other shards' increments: ``total`` (all shards' sum)
        minus this shard's own; every table as of the last sync decays by
        all the window's rounds of it."""
        own = self._own
        if own is None:
            raise RuntimeError("apply() needs this shard's delta() first")
        with model_lock_of(self.model):
            self.merger.apply(self.model, self._before, own, total)
        self._own = None
        self._mark()
