"""The interface between a locality graph and the chain-based samplers."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol, TypeVar

import numpy as np

__all__ = ["RateGraph"]

#: The type of a graph's vertices (bit strings, trees, ...).
VertexT = TypeVar("VertexT", bound=Hashable)


class RateGraph(Protocol[VertexT]):
    """A locality graph whose edges carry the current regret-matching rates.

    Vertices are hashable actions. ``positive_out_edges(v)`` lists the edges
    out of ``v`` with a positive rate ``Rtilde+`` (of the edge, or of its colour)
    and those rates; ``level(v)`` is the unweighted distance from ``root``.
    """

    root: VertexT

    def level(self, vertex: VertexT) -> int: ...

    def positive_out_edges(
        self, vertex: VertexT
    ) -> tuple[Sequence[VertexT], np.ndarray]: ...
