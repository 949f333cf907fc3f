"""The hedged prediction's choice of expert for a block of rows, compiled.

Each row's uniform ``u`` picks an expert from the hedge's weights laid end
to end on ``[0, 1)``: the vote below ``ends[0]``, further expert ``k`` below
``ends[k + 1]``, the play above ``ends[-1]`` (``u`` rescaled to the play's
part, a uniform again, draws a class from the row's probabilities). The
vote and the play are classes of ``pi``'s probabilities; a further expert's
class is its own (a root model's), which the caller computes only for the
rows that pick it. One pass instead of a dozen numpy calls on a block of a
few rows, the size a stream predicts.
"""

from __future__ import annotations

from .jit import kernel

__all__ = ["hedge_picks"]


@kernel
def hedge_picks(proba, uniforms, ends, out, picked) -> None:
    """``out[i]``: row ``i``'s class where the vote or the play predicts
    it, ``-1 - k`` where further expert ``k`` does (``picked[k]`` counts
    those rows). ``ends`` has one entry more than there are further
    experts."""
    n_experts = ends.shape[0] - 1
    before_play = ends[n_experts]
    n_classes = proba.shape[1]
    for i in range(min(proba.shape[0], uniforms.shape[0], out.shape[0])):
        u = uniforms[i]
        expert = -1
        if u >= ends[0]:
            for k in range(n_experts):
                if u < ends[k + 1]:
                    expert = k
                    break
            if expert < 0 and before_play >= 1.0 and n_experts > 0:
                expert = n_experts - 1  # rounding left the play no part
        if expert >= 0:
            out[i] = -1 - expert
            picked[expert] += 1
        elif u < ends[0] or before_play >= 1.0:  # the vote: first largest
            best = 0
            for c in range(1, n_classes):
                if proba[i, c] > proba[i, best]:
                    best = c
            out[i] = best
        else:  # the play: the class whose cumulative share passes u
            fraction = (u - before_play) / (1.0 - before_play)
            total = 0.0
            drawn = n_classes - 1  # catches a cdf that ends at 1 - 1e-16
            for c in range(n_classes):
                total += proba[i, c]
                if total > fraction:
                    drawn = c
                    break
            out[i] = drawn
