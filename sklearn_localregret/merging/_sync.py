"""Shards that keep their learner between syncs and exchange increments only.

A :class:`ShardState` holds one shard's learner and a copy of its regrets at
the last sync. After a window of rounds it reports a :class:`SyncDelta`:
what the window added (the regret rows it touched, the counters, the hedge's
losses, the rounds). The deltas of all shards are summed (:meth:`SyncDelta.
sum`) and every shard applies the sum (:meth:`ShardState.apply`), after
which all shards hold the same regrets and counters: those of
:func:`~sklearn_localregret.merging.absorb_shards` of the window, i.e. in true
units ``lambda^S base + sum_i d_i`` (``d_i`` shard ``i``'s increments, ``S``
all the window's rounds). What is not a sum (a window of recent rows, the
last played action, the random state) stays each shard's own.

A sync costs the size of what the window touched, not of the model: a
tree's table can hold thousands of paths, a window of rounds touches the
paths of the trees it played.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import numpy as np

from ._core import dumps, merger_of, model_lock_of

__all__ = ["ShardState", "SyncDelta"]


@dataclass
class SyncDelta:
    """What one window added to a learner (or to all of them, summed)."""

    state: object  # a table or graph of increments (true units)
    counters: list  # per object of the merger, {name: increment}
    hedge: tuple | None  # (losses, gap, hedge_loss) increments
    rounds: int

    @staticmethod
    def sum(deltas: list[SyncDelta], merger) -> SyncDelta:
        """The sum of the shards' deltas (a new delta)."""
        total = SyncDelta(
            pickle.loads(dumps(deltas[0].state)),
            [dict(c) for c in deltas[0].counters],
            deltas[0].hedge,
            deltas[0].rounds,
        )
        for delta in deltas[1:]:
            merger.add_state(total.state, delta.state, 1.0)
            for mine, theirs in zip(total.counters, delta.counters):
                for name, value in theirs.items():
                    mine[name] += value
            if total.hedge is not None and delta.hedge is not None:
                total.hedge = tuple(
                    np.add(a, b) if isinstance(a, list) else a + b
                    for a, b in zip(total.hedge, delta.hedge)
                )
            total.rounds += delta.rounds
        return total


class ShardState:
    """One shard's learner, and its regrets as of the last sync.

    Parameters
    ----------
    model : bytes
        The common learner (:func:`~sklearn_localregret.merging._core.dumps`).
    seed : int or None
        Seeds the shard's draws (None: keep the learner's random state).
    """

    def __init__(self, model: bytes, seed: int | None = None):
        self.model = pickle.loads(model)
        if seed is not None and hasattr(self.model, "_rng"):
            self.model._rng = np.random.default_rng(seed)
        self.merger = merger_of(self.model)
        self._own: SyncDelta | None = None
        self._mark()

    def _mark(self) -> None:
        """Remember the regrets and counters as they are now (a sync)."""
        merger, model = self.merger, self.model
        self._before = merger.snapshot(merger.state(model))
        self._counters = [
            {name: getattr(obj, name) for name in merger.counters}
            for obj in merger.objects(model)
        ]
        hedge = model.__dict__.get("_hedge")
        self._hedge = (
            None
            if hedge is None
            else (list(hedge._losses), hedge.gap, hedge.hedge_loss)
        )
        self._rounds = merger.tables(model)[0].clock.n_rounds

    def learn(self, X, y, classes) -> None:
        """Learn the rows of a window (none: nothing)."""
        if len(y):
            self.model.partial_fit(X, y, classes=classes)

    def delta(self) -> SyncDelta:
        """What the rounds since the last sync added (kept for :meth:`apply`)."""
        merger, model = self.merger, self.model
        table = merger.tables(model)[0]
        rounds = table.clock.n_rounds - self._rounds
        state = merger.difference(
            merger.state(model), self._before, table.discount**rounds
        )
        counters = [
            {name: getattr(obj, name) - before[name] for name in merger.counters}
            for obj, before in zip(merger.objects(model), self._counters)
        ]
        hedge = model.__dict__.get("_hedge")
        change = None
        if hedge is not None and self._hedge is not None:
            losses, gap, loss = self._hedge
            change = (
                list(np.subtract(hedge._losses, losses)),
                hedge.gap - gap,
                hedge.hedge_loss - loss,
            )
        self._own = SyncDelta(state, counters, change, rounds)
        return self._own

    def apply(self, total: SyncDelta) -> None:
        """Take in the other shards' increments: ``total`` (all shards' sum)
        minus this shard's own; the base decays by all the window's rounds."""
        own = self._own
        if own is None:
            raise RuntimeError("apply() needs this shard's delta() first")
        merger, model = self.merger, self.model
        with model_lock_of(model):
            state = merger.state(model)
            table = merger.table(state)
            discount = table.discount
            if discount != 1.0:
                decay = discount**total.rounds - discount**own.rounds
                merger.add_state(state, self._before, decay)
            merger.add_state(state, total.state, 1.0)
            merger.add_state(state, own.state, -1.0)
            table.clock.n_rounds += total.rounds - own.rounds
            for obj, all_, mine in zip(
                merger.objects(model), total.counters, own.counters
            ):
                for name in merger.counters:
                    setattr(obj, name, getattr(obj, name) + all_[name] - mine[name])
            hedge = model.__dict__.get("_hedge")
            if hedge is not None and total.hedge is not None and own.hedge:
                hedge._losses = [
                    float(v)
                    for v in np.add(
                        hedge._losses, np.subtract(total.hedge[0], own.hedge[0])
                    )
                ]
                hedge.gap = max(hedge.gap + total.hedge[1] - own.hedge[1], 0.0)
                hedge.hedge_loss += total.hedge[2] - own.hedge[2]
            merger.refresh(model)
        self._own = None
        self._mark()
