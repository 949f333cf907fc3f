"""The bias ``b`` of a round: the paper's one rule, shared by every learner."""

from __future__ import annotations

__all__ = ["paper_bias"]


def paper_bias(bias, L, round_weight: float) -> float:
    """The bias ``b`` of a round whose utilities span ``round_weight``.

    The one rule of every learner of the package (the classifiers'
    ``round_bias`` and :class:`~sklearn_localregret.OnlineMaxSAT`): a given
    ``bias`` as it is; ``bias=None`` means the paper's ``Delta / (L + 1)`` for
    finite ``L`` and 0 for ``L=None``, with ``Delta = round_weight``, the
    round's total weight.

    Examples
    --------
    >>> paper_bias(None, 4, 10.0), paper_bias(None, None, 10.0)
    (2.0, 0.0)
    >>> paper_bias(0.5, 4, 10.0)
    0.5
    """
    if bias is not None:
        return float(bias)
    if L is None:
        return 0.0
    return float(round_weight) / (L + 1)
