"""Approximate sampler: the uniformised chain with the level redirect, k steps.

With colored regrets and a finite ``L`` the redirect to the root couples all
sites, so no exact product or hierarchical formula applies
(:ref:`engine-finite-l`). This sampler keeps a current vertex (the last
played action) and advances it by ``n_steps`` steps of the uniformised chain
``P = I + Q / Lambda``, where ``Lambda`` bounds every vertex's total out-rate.
Self-loops are skipped in bulk (a geometric number of them), so the cost is
that of the actual jumps.

It is *approximate*: its output is distributed as ``P^k`` applied to the start,
which approaches the stationary distribution as ``k`` grows.
"""

from __future__ import annotations

from typing import Generic

import numpy as np

from .rate_graph import RateGraph, VertexT

__all__ = ["UniformizedChainSampler"]


class UniformizedChainSampler(Generic[VertexT]):
    """Run ``n_steps`` uniformised steps of the regret-matching chain.

    Parameters
    ----------
    graph : RateGraph
    max_level : int or None
        The paper's ``L``; a move into level ``L + 1`` goes to the root instead.
    n_steps : int
        Steps of the uniformised chain per draw.
    """

    def __init__(self, graph: RateGraph[VertexT], max_level: int | None, n_steps: int):
        self.graph = graph
        self.max_level = max_level
        self.n_steps = int(n_steps)

    def sample(
        self, start: VertexT, rate_bound: float, rng: np.random.Generator
    ) -> VertexT:
        """Advance ``start`` by ``n_steps`` steps of ``I + Q / rate_bound``.

        ``rate_bound`` must be at least the out-rate of every vertex; the sum of
        all positive colour regrets is such a bound, since a vertex has at most
        one out-edge of each colour.
        """
        state = start
        remaining = self.n_steps
        if rate_bound <= 0:
            return state
        while remaining > 0:
            targets, rates = self.graph.positive_out_edges(state)
            out_rate = float(np.sum(rates))
            if out_rate <= 0:
                break
            # Steps up to and including the first move away from ``state``.
            steps = int(rng.geometric(min(out_rate / rate_bound, 1.0)))
            if steps > remaining:
                break
            remaining -= steps
            cdf = np.cumsum(rates)
            j = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
            state = targets[min(j, len(targets) - 1)]
            if self.max_level is not None and self.graph.level(state) > self.max_level:
                state = self.graph.root
        return state
