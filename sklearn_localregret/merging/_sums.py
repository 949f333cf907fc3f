"""The sums every merge adds: regret parts, counters and hedges.

A learner's :class:`~sklearn_localregret.merging._core.Merger` says where
its sums are:

* *parts* -- regret states (a table, a graph), each with its own regret
  table and discount clock. A tree with several discounts has one part per
  player, each at its own discount and on its own clock; a learner of one
  discount has one.
* *counter groups* -- an object, the names of its attributes that are sums
  over rounds (added) and of those that keep a maximum (kept at the larger).
* *hedges* -- AdaHedge instances over experts, with the losses the experts
  start with (counted once: every side holds them).

The functions here add them, every part with its own discount over its own
rounds: :func:`add_sums` (a merge), :func:`absorb_sums` (the increments
shards learnt from one base), and a sync's :func:`mark_sums` (the state at
the last sync), :func:`delta_sums` (a window's increments),
:func:`sum_deltas` (all shards') and :func:`apply_sums` (a shard takes in
the others'). A learner made of other learners (the forest) runs them on its
own sums and on each member's.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._copies import dumps, dumps_sent

if TYPE_CHECKING:  # the merger's module imports this one
    from ._core import Merger

__all__ = [
    "Mark",
    "SyncDelta",
    "absorb_sums",
    "add_counters",
    "add_hedge",
    "add_sums",
    "apply_sums",
    "delta_sums",
    "mark_sums",
    "sum_deltas",
]


@dataclass
class Mark:
    """A learner's sums as of the last sync: what a window's increments are
    measured from."""

    parts: list  # a read-only copy of each part
    rounds: list[float]  # each part's clock
    counters: list[dict]  # per counter group, {name: value}
    hedges: list[tuple]  # per hedge, (losses, gap, hedge_loss)
    members: list = field(default_factory=list)  # a forest's, per member
    tests: int = -1  # a tree's number of tests (-1: not a tree)


@dataclass
class SyncDelta:
    """What one window added to a learner (or to all of them, summed)."""

    parts: list  # per part, its increments (true units)
    rounds: list[float]  # per part, the rounds its clock moved on
    counters: list[dict]  # per counter group, {name: increment}
    hedges: list[tuple]  # per hedge, (losses, gap, hedge_loss) increments
    members: list = field(default_factory=list)  # a forest's, per member

    @staticmethod
    def sum(deltas: list[SyncDelta], merger: Merger) -> SyncDelta:
        """The sum of the shards' deltas (a new delta; theirs are unchanged)."""
        return merger.sum_deltas(deltas)

    def __reduce__(self):
        # Sent between workers at every sync: plain arrays of the rows in use
        # (what a saved table packs is many times slower to write and read).
        fields = (self.parts, self.rounds, self.counters, self.hedges, self.members)
        return _sent_delta, (dumps_sent(fields),)


def _sent_delta(sent: bytes) -> SyncDelta:
    return SyncDelta(*pickle.loads(sent))


def _copied(value):
    """A counter's value as it is now (an array is changed in place)."""
    return value.copy() if isinstance(value, np.ndarray) else value


def add_counters(merger: Merger, dst, src, coef: int) -> None:
    """Add ``coef`` times ``src``'s counters to ``dst``'s (maxima: kept at
    the larger when adding)."""
    for (mine, names, largest), (theirs, _, _) in zip(
        merger.counter_groups(dst), merger.counter_groups(src)
    ):
        # A root model's sums are taken from its columns' first values:
        # moved to ``dst``'s before they are added.
        sums_for = getattr(theirs, "sums_for", None)
        values = sums_for(mine, names) if sums_for else None
        for name in names:
            value = getattr(theirs, name) if values is None else values[name]
            setattr(mine, name, getattr(mine, name) + coef * value)
        if coef > 0:
            for name in largest:
                setattr(mine, name, max(getattr(mine, name), getattr(theirs, name)))


def add_hedge(hedge, other, coef: float, initial) -> None:
    """The hedge's cumulative losses and mixability gap are sums over rounds.

    ``initial`` are the losses ``other``'s experts started with: ``hedge``
    keeps its own, so each expert's is counted once. Its bound ``hedge_loss
    - L_k <= 2 gap`` holds for each side, hence for the sum.
    """
    hedge._losses = [
        float(a + coef * (b - c))
        for a, b, c in zip(hedge._losses, other._losses, np.asarray(initial).tolist())
    ]
    hedge.gap = max(hedge.gap + coef * other.gap, 0.0)
    hedge.hedge_loss += coef * other.hedge_loss


def _add_hedges(merger: Merger, dst, src, coef: float) -> None:
    for (hedge, _), (other, initial) in zip(merger.hedges(dst), merger.hedges(src)):
        add_hedge(hedge, other, coef, initial)


def add_sums(merger: Merger, dst, src) -> None:
    """``dst`` absorbs ``src``'s sums: each part row by row (true units, each
    side at its own last round) and its clock, the counters, the hedges."""
    for mine, theirs in zip(merger.parts(dst), merger.parts(src)):
        merger.add_state(mine, theirs, 1.0)
        merger.table(mine).clock.n_rounds += merger.table(theirs).clock.n_rounds
    add_counters(merger, dst, src, 1)
    _add_hedges(merger, dst, src, 1.0)


def absorb_sums(merger: Merger, result, base, shards: list) -> None:
    """``result`` (a copy of ``shards[0]``) takes in the other shards' sums
    learnt from ``base``: per part, at its discount ``lambda`` and with
    ``s_i`` the rounds shard ``i``'s clock of it moved on, ``lambda^S base +
    sum_i (shard_i - lambda^(s_i) base)``, ``S`` the sum of the ``s_i``."""
    shard_parts = [merger.parts(shard) for shard in shards]
    for j, (mine, before) in enumerate(zip(merger.parts(result), merger.parts(base))):
        table = merger.table(before)
        discount, start = table.discount, table.clock.n_rounds
        rounds = [
            merger.table(parts[j]).clock.n_rounds - start for parts in shard_parts
        ]
        # result = shard 0 = lambda^s0 base + its increments: the base must
        # decay to lambda^S, and every other shard adds its increments.
        if discount != 1.0:
            merger.add_state(
                mine, before, discount ** sum(rounds) - discount ** rounds[0]
            )
        merger.table(mine).clock.n_rounds += sum(rounds[1:])
        for parts, own in zip(shard_parts[1:], rounds[1:]):
            merger.add_state(mine, parts[j], 1.0)
            # The base as the shard holds it at its end: decayed by its rounds.
            merger.add_state(mine, before, -(discount**own))
    for shard in shards[1:]:
        add_counters(merger, result, shard, 1)
        add_counters(merger, result, base, -1)
        _add_hedges(merger, result, shard, 1.0)
        _add_hedges(merger, result, base, -1.0)


def mark_sums(merger: Merger, est) -> Mark:
    """The learner's sums now (copies), for the next window's :func:`delta_sums`."""
    parts = merger.parts(est)
    return Mark(
        [merger.snapshot(part) for part in parts],
        [merger.table(part).clock.n_rounds for part in parts],
        [
            {name: _copied(getattr(obj, name)) for name in names}
            for obj, names, _ in merger.counter_groups(est)
        ],
        [(list(h._losses), h.gap, h.hedge_loss) for h, _ in merger.hedges(est)],
    )


def delta_sums(merger: Merger, est, mark: Mark) -> SyncDelta:
    """What the rounds since ``mark`` added: per part, its increments in the
    rows they touched (the part as marked decayed by its own rounds)."""
    parts, rounds = [], []
    for part, before, start in zip(merger.parts(est), mark.parts, mark.rounds):
        table = merger.table(part)
        n = table.clock.n_rounds - start
        parts.append(merger.difference(part, before, table.discount**n))
        rounds.append(n)
    counters = [
        {name: getattr(obj, name) - before[name] for name in names}
        for (obj, names, _), before in zip(merger.counter_groups(est), mark.counters)
    ]
    hedges = [
        (list(np.subtract(h._losses, losses)), h.gap - gap, h.hedge_loss - loss)
        for (h, _), (losses, gap, loss) in zip(merger.hedges(est), mark.hedges)
    ]
    return SyncDelta(parts, rounds, counters, hedges)


def sum_deltas(merger: Merger, deltas: list[SyncDelta]) -> SyncDelta:
    """The sum of the shards' deltas, part by part (theirs are unchanged)."""
    first = deltas[0]
    total = SyncDelta(
        [pickle.loads(dumps(part)) for part in first.parts],
        list(first.rounds),
        [dict(c) for c in first.counters],
        list(first.hedges),
    )
    for delta in deltas[1:]:
        for part, other in zip(total.parts, delta.parts):
            merger.add_state(part, other, 1.0)
        total.rounds = [a + b for a, b in zip(total.rounds, delta.rounds)]
        for mine, theirs in zip(total.counters, delta.counters):
            for name, value in theirs.items():
                mine[name] = mine[name] + value  # never in place: a shard's own
        total.hedges = [
            (list(np.add(a[0], b[0])), a[1] + b[1], a[2] + b[2])
            for a, b in zip(total.hedges, delta.hedges)
        ]
    return total


def apply_sums(
    merger: Merger, est, mark: Mark, own: SyncDelta, total: SyncDelta
) -> None:
    """Take in the other shards' increments: ``total`` (all shards' sum)
    minus this shard's ``own``; each part decays by the other shards' rounds
    of it (as marked, it has decayed by this shard's own already)."""
    parts = zip(merger.parts(est), mark.parts, own.parts, total.parts)
    for (part, _marked, mine, everyone), n_own, n_all in zip(
        parts, own.rounds, total.rounds
    ):
        table = merger.table(part)
        # lambda^n_all base + everyone, from lambda^n_own base + mine: the
        # clock decays the whole table by the other shards' rounds at once
        # (no pass over its rows), and this shard's own increments, decayed
        # with it, are replaced by everyone's (rows the window touched only).
        others = n_all - n_own
        table.advance(others)
        merger.add_state(part, everyone, 1.0)
        merger.add_state(part, mine, -(table.discount**others))
    for (obj, names, _), all_, mine_ in zip(
        merger.counter_groups(est), total.counters, own.counters
    ):
        for name in names:
            setattr(obj, name, getattr(obj, name) + all_[name] - mine_[name])
    for (hedge, _), every, its in zip(merger.hedges(est), total.hedges, own.hedges):
        losses = np.add(hedge._losses, np.subtract(every[0], its[0]))
        hedge._losses = [float(v) for v in losses]
        hedge.gap = max(hedge.gap + every[1] - its[1], 0.0)
        hedge.hedge_loss += every[2] - its[2]
