"""Merging the hypercube graphs that disjunctions and Max-SAT share.

:class:`~sklearn_localregret.locality.HypercubeColoring` keeps one row per
bit (colours "set to 0", "set to 1"),
:class:`~sklearn_localregret.locality.RemovalSetColoring` adds a pool of
removal sets, and :class:`~sklearn_localregret.locality.HypercubeSwapRegrets`
one row per played vertex. The regrets add up row by key (bits and vertices
alike); the pool's slots are matched by the set they hold (see
:func:`add_graph`).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..engine.merge import add_rows
from ..locality.hypercube_swap import HypercubeSwapRegrets
from ..locality.removal_sets import RemovalSetColoring, set_key
from ._core import Merger

__all__ = ["GraphMerger", "add_graph", "check_same_graph", "refresh_graph"]


def check_same_graph(dst, src) -> None:
    """``ValueError`` unless the two graphs can be added."""
    if type(dst) is not type(src):
        raise ValueError(
            f"the learners' locality graphs differ: {type(dst).__name__} and "
            f"{type(src).__name__}"
        )
    if dst.n_vars != src.n_vars:
        raise ValueError(
            f"the learners' numbers of variables differ: {dst.n_vars} and {src.n_vars}"
        )
    if isinstance(dst, RemovalSetColoring) and dst.max_sets != src.max_sets:
        raise ValueError(
            f"the learners' pools differ: {dst.max_sets} and {src.max_sets} slots"
        )


def add_graph(dst, src, coef: float) -> int:
    """Add ``coef`` times ``src``'s regrets into ``dst``; sets not kept.

    A removal set of ``src`` goes to the slot of ``dst`` that holds the same
    set; a set ``dst`` lacks takes a free slot, else a slot whose regret is
    at most 0 (that colour has no rate: ``pi`` is unchanged, as when a set
    enters the pool while learning) and its regret starts from 0 there; with
    no such slot it is not kept (returned count). Subtracting (``coef < 0``)
    a set that ``dst`` no longer holds does nothing.
    """
    if isinstance(dst, RemovalSetColoring):
        key_map, dropped = _slot_map(dst, src, coef)
        add_rows(dst.table, src.table, coef, key_map)
        return dropped
    add_rows(dst.table, src.table, coef)
    if isinstance(dst, HypercubeSwapRegrets) and coef > 0:
        dst._largest_round = max(dst._largest_round, src._largest_round)
    return 0


def _slot_map(dst: RemovalSetColoring, src: RemovalSetColoring, coef: float):
    n = dst.n_vars
    slot_of: dict[int, int | None] = {}
    new: list[int] = []
    for j in np.flatnonzero(src.occupied).tolist():
        slot = dst._slot_of.get(set_key(np.flatnonzero(src.sets[j])))
        slot_of[j] = slot
        if slot is None and coef > 0:
            new.append(j)
    taken = {s for s in slot_of.values() if s is not None}
    regrets = dst.table.rates[n:, 0]
    free = [int(s) for s in np.flatnonzero(~dst.occupied)]
    spare = [
        int(s)
        for s in np.argsort(regrets, kind="stable")
        if dst.occupied[s] and regrets[s] <= 0 and int(s) not in taken
    ]
    dropped = 0
    for j in new:
        if free:
            slot = free.pop(0)
        elif spare:
            slot = spare.pop(0)
            del dst._slot_of[set_key(np.flatnonzero(dst.sets[slot]))]
        else:
            dropped += 1
            continue
        dst.table.clear_rows([n + slot])
        dst.sets[slot] = src.sets[j]
        dst.occupied[slot] = True
        dst._slot_of[set_key(np.flatnonzero(src.sets[j]))] = slot
        dst.n_sets_tracked += 1
        slot_of[j] = slot

    def key_map(key):
        key = int(key)
        if key < n:
            return key
        slot = slot_of.get(key - n)
        return None if slot is None else n + slot

    return key_map, dropped


def refresh_graph(graph) -> None:
    """Renew what the graph derives from its table."""
    graph.__dict__.pop("_on_cache", None)  # rebuilt from the rates
    if isinstance(graph, HypercubeSwapRegrets):
        sampler = graph._sampler
        sampler.invalidate()
        vertices, probs = sampler.distribution()
        keys = cast("list[bytes]", vertices)  # this graph's vertex keys
        support = np.frombuffer(bytearray(b"".join(keys)), dtype=np.uint8)
        graph._support = support.reshape(len(vertices), graph.n_vars)
        graph._probs = probs
        graph._cdf = np.cumsum(probs)


class GraphMerger(Merger):
    """A learner whose state is its hypercube graph (``est._graph``): the
    disjunct learner and ``OnlineMaxSAT``; a subclass says what must match
    (:meth:`check`) and what else a merge clears (:meth:`refresh`)."""

    def state(self, est):
        return est._graph

    def table(self, state):
        return state.table

    def add_state(self, dst, src, coef: float) -> None:
        add_graph(dst, src, coef)

    def refresh(self, est) -> None:
        refresh_graph(est._graph)
