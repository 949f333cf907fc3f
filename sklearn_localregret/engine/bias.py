"""The bias ``b`` of a round: the paper's one rule, shared by every learner."""

from __future__ import annotations

__all__ = ["paper_bias", "short_round_bias"]


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


def short_round_bias(bias, L, round_weight: float, span: float) -> float:
    """The bias of a tree learner's round of ``span`` of a whole round.

    A round of fewer than ``batch_size`` rows (``span = rows / batch_size``:
    a call of fewer rows, or a call's last rows) pays the bias in proportion
    to its rows, as the user guide's "Short rounds" derives it: the paper's
    ``Delta / (L + 1)`` is so already (``Delta = round_weight``); a given
    ``bias`` is ``b * span``, so that a round played in parts pays ``b``, as
    a whole one does.

    Examples
    --------
    >>> short_round_bias(0.5, None, 1.0, 0.2), short_round_bias(0.5, None, 5.0, 1.0)
    (0.1, 0.5)
    >>> short_round_bias(None, 4, 1.0, 0.2) == paper_bias(None, 4, 1.0)
    True
    """
    whole = paper_bias(bias, L, round_weight)
    return whole if bias is None else whole * min(float(span), 1.0)
