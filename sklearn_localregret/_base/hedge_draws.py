"""The hedged prediction's draw: which expert predicts each row.

:class:`~sklearn_localregret._hedge.AdaHedge` weighs the experts; a row's
uniform (a function of the row, ``random_state`` and the rounds learnt) picks
one of them with its weight: the vote, a further expert (the tree's root
models) or the play, a class drawn from ``pi``'s probabilities of the row.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..engine.compiled.hedge_picks import hedge_picks

__all__ = ["hedge_block", "hedged_classes"]


def hedged_classes(
    proba: np.ndarray,
    vote_weight: float,
    uniforms: np.ndarray,
    expert_labels=(),
    expert_weights=(),
) -> np.ndarray:
    """Class indices of the hedged prediction, one uniform per row.

    A row's uniform ``u`` below ``vote_weight`` picks the vote (the most
    probable class, the first on ties, as ``argmax``); the next
    ``expert_weights[0]``, ``expert_weights[1]``, ... of ``[0, 1)`` pick
    the further experts' labels (the tree's root models); the rest, ``u``
    rescaled to it and again uniform, draws a class from the row's
    probabilities (the play).

    Parameters
    ----------
    proba : ndarray of shape (n_rows, n_classes)
        Class probabilities of the rows under ``pi``.
    vote_weight : float
        Probability of the vote, in [0, 1].
    uniforms : ndarray of shape (n_rows,)
        Uniforms in [0, 1).
    expert_labels : sequence of ndarray of shape (n_rows,) of int, default=()
        Further experts' class indices (read only where their segment is
        picked).
    expert_weights : sequence of float, default=()
        Their probabilities.

    Returns
    -------
    ndarray of shape (n_rows,) of int

    Examples
    --------
    >>> import numpy as np
    >>> proba = np.array([[0.6, 0.4], [0.6, 0.4]])
    >>> hedged_classes(proba, 0.5, np.array([0.1, 0.9])).tolist()
    [0, 1]
    >>> model = np.array([1, 1])  # a further expert at weight 0.5
    >>> hedged_classes(proba, 0.25, np.array([0.1, 0.5]), [model], [0.5]).tolist()
    [0, 1]
    """
    if vote_weight >= 1.0 or proba.shape[0] == 0:
        return np.argmax(proba, axis=1)
    out, picked = hedge_block(proba, vote_weight, expert_weights, uniforms)
    for k, count in enumerate(picked):
        if count:
            rows = out == -1 - k
            out[rows] = np.asarray(expert_labels[k])[rows]
    return out


def hedge_block(proba, vote_weight, expert_weights, uniforms) -> tuple:
    """The first step of :func:`hedged_classes`: class indices where the
    vote or the play predicts a row, ``-1 - k`` where further expert ``k``
    does, and how many rows each further expert predicts (a list), so that
    the caller computes an expert's classes only where it predicts."""
    # The sums np.cumsum makes, in plain floats.
    ends = list(itertools.accumulate([float(vote_weight), *expert_weights]))
    n = proba.shape[0]
    if n == 1:  # one row (streaming): plain floats, the same classes
        k = _pick(float(uniforms[0]), ends)
        picked = [0] * len(expert_weights)
        if k >= 0:
            picked[k] = 1
            return np.array([-1 - k]), picked
        return np.array([_vote_or_play(proba[0], ends, float(uniforms[0]))]), picked
    out = np.empty(n, dtype=np.int64)
    counts = np.zeros(len(expert_weights), dtype=np.int64)
    hedge_picks(np.ascontiguousarray(proba), uniforms, np.array(ends), out, counts)
    return out, counts.tolist()


def _pick(u: float, ends: list) -> int:
    """The further expert a uniform picks, or -1 (the vote or the play)."""
    if u < ends[0]:
        return -1
    for k, end in enumerate(ends[1:]):
        if u < end:
            return k
    if ends[-1] >= 1.0 and len(ends) > 1:  # rounding left the play no part
        return len(ends) - 2
    return -1


def _vote_or_play(row, ends, u: float) -> int:
    """:func:`hedge_picks` of one row (``row`` its probabilities) that no
    further expert predicts."""
    before_play = ends[-1]
    if u < ends[0] or before_play >= 1.0:
        return int(row.argmax())
    fraction = (u - before_play) / (1.0 - before_play)
    total, last = 0.0, len(row) - 1
    for c, p in enumerate(row.tolist()):
        total += p
        if total > fraction:
            return c
    return last
