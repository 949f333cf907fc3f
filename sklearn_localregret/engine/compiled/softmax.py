"""A row of log scores to probabilities, in place: the posteriors' last step."""

from __future__ import annotations

import math

from .jit import kernel

__all__ = ["softmax_row"]


@kernel
def softmax_row(out, i, k) -> None:
    """``out[i, :k]``: ``exp(score - max)`` normalised over the ``k``
    classes (the same for every class if every score is ``-inf``)."""
    best = out[i, 0]
    for c in range(1, k):
        best = max(best, out[i, c])
    if best == -math.inf:
        for c in range(k):
            out[i, c] = 1.0 / k
        return
    norm = 0.0
    for c in range(k):
        out[i, c] = math.exp(out[i, c] - best)
        norm += out[i, c]
    for c in range(k):
        out[i, c] /= norm
