"""Merging Max-SAT learners (:class:`OnlineMaxSAT`).

The state that is a sum: the regret table (one row per variable, or per
played assignment for swap regret), its clock, the rounds and the weights
satisfied and seen. An assignment drawn and not yet scored is dropped: the
next one is drawn from the merged ``pi``. The random state is this learner's.
"""

from __future__ import annotations

from ._hypercube import GraphMerger, check_same_graph

__all__ = ["MaxSATMerger"]

# What two learners of one task share (OnlineMaxSAT is not a scikit-learn
# estimator: its parameters are read one by one).
_PARAMETERS = ("n_vars", "regret", "L", "bias", "n_mcmc_steps", "discount")


class MaxSATMerger(GraphMerger):
    counters = ("n_rounds_", "satisfied_weight_", "total_weight_")

    def check(self, dst, src) -> None:
        differ = [
            f"{name}={getattr(dst, name)!r} vs {getattr(src, name)!r}"
            for name in _PARAMETERS
            if getattr(dst, name) != getattr(src, name)
        ]
        if differ:
            raise ValueError(f"the learners' parameters differ: {', '.join(differ)}")
        check_same_graph(dst._graph, src._graph)

    def refresh(self, est) -> None:
        super().refresh(est)
        est._pending = None
