"""The interface between a locality graph and the chain-based samplers."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol

import numpy as np

__all__ = ["RateGraph"]


class RateGraph(Protocol):
    """A locality graph whose edges carry the current regret-matching rates.

    Vertices are hashable actions. ``positive_out_edges(v)`` lists the edges
    out of ``v`` with a positive rate ``Rtilde+`` (of the edge, or of its colour)
    and those rates; ``level(v)`` is the unweighted distance from ``root``.
    """

    root: Hashable

    def level(self, vertex: Hashable) -> int: ...

    def positive_out_edges(
        self, vertex: Hashable
    ) -> tuple[Sequence[Hashable], np.ndarray]: ...
