"""Merging disjunction learners (:class:`LocalRegretDisjunctClassifier`).

The state that is a sum: the regret table of the graph (bits, removal-set
slots, or played vertices for swap regret), its clock, the counters and the
hedge. The removal sets are matched by the set they hold
(:func:`~sklearn_localregret.merging._hypercube.add_graph`): exact while the
pool has room for both learners' sets; a set that finds no slot (every slot
holding a set of positive regret) is not kept. The last played action and
the random state are this learner's.
"""

from __future__ import annotations

from ._core import Merger, check_same_task
from ._hypercube import add_graph, check_same_graph, refresh_graph

__all__ = ["DisjunctMerger"]


class DisjunctMerger(Merger):
    counters = ("n_rounds_", "n_samples_seen_", "n_online_mistakes_", "_weight_seen")

    def check(self, dst, src) -> None:
        check_same_task(dst, src)
        check_same_graph(dst._graph, src._graph)

    def state(self, est):
        return est._graph

    def table(self, state):
        return state.table

    def add_state(self, dst, src, coef: float) -> None:
        add_graph(dst, src, coef)

    def refresh(self, est) -> None:
        refresh_graph(est._graph)
        memory = est.__dict__.get("_last_proba")
        if memory is not None:
            memory[0] = None
