"""Merging disjunction learners (:class:`LocalRegretDisjunctClassifier`).

The state that is a sum: the regret table of the graph (bits, removal-set
slots, or played vertices for swap regret), its clock, the counters and the
hedge. The removal sets are matched by the set they hold
(:func:`~sklearn_localregret.merging._hypercube.add_graph`): exact while the
pool has room for both learners' sets; a set that finds no slot (every slot
holding a set of positive regret) is not kept. The last played action and
the random state are this learner's. The hedge's linear expert is summed
as the tree's root linear model is (:mod:`~sklearn_localregret.merging._tree`):
its column statistics exactly, its weights as the sum of both sides' steps.
"""

from __future__ import annotations

from typing import Any

from ._core import check_same_task
from ._hypercube import GraphMerger, check_same_graph
from ._tree import TreeMerger

__all__ = ["DisjunctMerger"]


class DisjunctMerger(GraphMerger):
    counters = ("n_rounds_", "n_samples_seen_", "n_online_mistakes_", "_weight_seen")

    def check(self, dst, src) -> None:
        check_same_task(dst, src)
        check_same_graph(dst._graph, src._graph)

    def counter_groups(self, est) -> list:
        groups: list[tuple[Any, tuple, tuple]] = super().counter_groups(est)
        model = est.__dict__.get("_linear_expert")
        if model is not None:  # summed as the tree's root linear model
            groups.append((model, TreeMerger.linear_sums, ()))
        return groups

    def refresh(self, est) -> None:
        super().refresh(est)
        memory = est.__dict__.get("_last_proba")
        if memory is not None:
            memory[0] = None
