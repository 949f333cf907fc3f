"""The forest's combination: AdaHedge over its vote, its members and its root models.

The experts are the forest's *vote* (the class the members' mean
probability favours, what a random forest predicts) and each member's own
hedged prediction (its vote with probability ``v_k``, its
:attr:`~sklearn_localregret.LocalRegretTreeClassifier.vote_weight_`, else a
class drawn from its probabilities). Each round, before the members learn
it, every expert is scored on the round's rows: the vote by the weight of
the rows it gets wrong, member ``k`` by its expected weight of mistakes

``v_k [argmax p_k(x) != y] + (1 - v_k) (1 - p_k(y | x))``

summed over the rows. :class:`~sklearn_localregret._hedge.AdaHedge` weighs
the experts from these losses, and the forest predicts a class drawn from
the weighted mixture of the experts' prediction distributions
(:func:`prediction_distribution`): its expected loss in a round is the
hedge's, so its cumulative expected mistakes exceed the best expert's by at
most the hedge's ``2 Delta`` (the user guide, "The forest"). The members
start with the handicap :data:`~sklearn_localregret._hedge.PLAY_HANDICAP`:
until one of them makes that many fewer mistakes than the vote (or a root
model), the forest predicts deterministically.

The forest's root models (``_root_models.py``) are experts after the
members, scored and drawn as the vote is (the class first most probable
under the model's posterior) and, deterministic as it is, start level with
it; the functions here take the vote's and the members' part of the
weights, the forest adds theirs.

The prior: the vote, the members together and each root model get equal
shares, and the members split theirs evenly (:func:`combination_prior`).
The members are bagged trees of the same stream; their losses stay close to
one another, and under a uniform prior ten of them would outweigh a
different expert (a root model) ten to one until their losses fell far
behind it. On the leaderboard's adversarial ``alternating`` stream that is
what the forest's prediction lost against the tree's: 0.557 against 0.514,
its linear root model erring on half the rows. The prior gives each member
``1 / (m K)`` of the weight (``m`` slots, ``K`` members), so the bound
against a member grows from ``2 Delta`` to ``Delta (1 + ln(m K) / ln(K +
m - 1))`` and shrinks against the vote and the root models.

Why both kinds of expert: the vote averages the members' probabilities and
is the better guess on a stationary stream, but it is deterministic and an
adversary can make it wrong on every row; a member's hedged prediction keeps
the member's randomised plays (and its own bound against its vote and
play), so the forest inherits their behaviour on adversarial streams.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "combination_prior",
    "draw_classes",
    "expert_losses",
    "hedged_picks",
    "prediction_distribution",
]


def combination_prior(n_members: int, n_roots: int) -> list[float]:
    """The combination's prior: the vote, the members together and each root
    model in equal shares, the members' split evenly.

    Examples
    --------
    >>> combination_prior(2, 2)
    [0.25, 0.125, 0.125, 0.25, 0.25]
    """
    slots = 2 + n_roots
    return (
        [1.0 / slots]
        + [1.0 / (slots * n_members)] * n_members
        + [1.0 / slots] * n_roots
    )


def expert_losses(
    probas: np.ndarray, vote_weights: np.ndarray, y: np.ndarray, weight: np.ndarray
) -> np.ndarray:
    """One round's losses of the experts: the forest's vote, then each member.

    Parameters
    ----------
    probas : ndarray of shape (n_members, n_rows, n_classes)
        The members' class probabilities of the round's rows, before the
        round is learnt.
    vote_weights : ndarray of shape (n_members,)
        Each member's probability of predicting its vote at that time.
    y : ndarray of shape (n_rows,) of int
        The rows' class indices.
    weight : ndarray of shape (n_rows,)
        The rows' sample weights (not the members' bagging weights).

    Returns
    -------
    ndarray of shape (n_members + 1,)

    Examples
    --------
    >>> import numpy as np
    >>> probas = np.array([[[0.9, 0.1]], [[0.2, 0.8]]])  # two members, one row
    >>> expert_losses(probas, np.array([1.0, 0.5]), np.array([1]), np.ones(1))
    array([1. , 1. , 0.1])
    """
    n_rows = y.shape[0]
    rows = np.arange(n_rows)
    mean = probas.mean(axis=0)
    vote_wrong = weight @ (np.argmax(mean, axis=1) != y)
    member_vote_wrong = (np.argmax(probas, axis=2) != y) @ weight
    member_play_wrong = (1.0 - probas[:, rows, y]) @ weight
    members = vote_weights * member_vote_wrong + (1.0 - vote_weights) * (
        member_play_wrong
    )
    return np.concatenate(([vote_wrong], members)).astype(float)


def _one_hot(indices: np.ndarray, n_classes: int) -> np.ndarray:
    out = np.zeros(indices.shape + (n_classes,))
    np.put_along_axis(out, indices[..., None], 1.0, axis=-1)
    return out


def prediction_distribution(
    probas: np.ndarray, vote_weights: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """The probability of each class under the forest's randomised prediction.

    ``weights[0]`` on the forest's vote, ``weights[k + 1]`` on member ``k``'s
    hedged prediction (its vote with probability ``vote_weights[k]``, else a
    class drawn from ``probas[k]``).

    Returns
    -------
    ndarray of shape (n_rows, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> probas = np.array([[[0.6, 0.4]], [[0.3, 0.7]]])
    >>> q = prediction_distribution(
    ...     probas, np.array([1.0, 0.0]), np.array([0.5, 0.25, 0.25]))
    >>> q.round(3).tolist()
    [[0.325, 0.675]]
    """
    n_classes = probas.shape[2]
    mean = probas.mean(axis=0)
    q = weights[0] * _one_hot(np.argmax(mean, axis=1), n_classes)
    votes = _one_hot(np.argmax(probas, axis=2), n_classes)
    v = vote_weights[:, None, None]
    members = v * votes + (1.0 - v) * probas
    return q + np.tensordot(weights[1:], members, axes=1)


def draw_classes(q: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """A class per row drawn from ``q`` with the row's uniform (inverse cdf).

    Examples
    --------
    >>> import numpy as np
    >>> q = np.array([[0.25, 0.75], [0.25, 0.75]])
    >>> draw_classes(q, np.array([0.1, 0.5])).tolist()
    [0, 1]
    """
    cdf = np.cumsum(q, axis=1)
    # The last column catches rounding (a cdf that ends at 1 - 1e-16).
    drawn = (cdf <= uniforms[:, None]).sum(axis=1)
    return np.minimum(drawn, q.shape[1] - 1)


def hedged_picks(
    probas: np.ndarray,
    vote_weights: np.ndarray,
    weights: np.ndarray,
    roots: list,
    uniforms: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's class under the forest's randomised prediction, and the
    probabilities of the expert that made it.

    A row's uniform ``u`` picks an expert with its weight (``weights``: the
    vote, each member, each root expert, in that order); ``u`` rescaled to
    the expert's part of ``[0, 1)``, again uniform, makes member ``k``'s
    hedged prediction: its vote below ``vote_weights[k]``, else a class
    drawn from its probabilities. Each class comes with the probability
    :func:`prediction_distribution` gives it (so the forest's expected loss
    is the hedge's), and the row's probabilities are those of the expert
    picked (the members' mean for the vote): their first most probable class
    is the row's class but where a member's play draws another, as a tree's
    ``predict_proba`` does for its play.

    Parameters
    ----------
    probas : ndarray of shape (n_members, n_rows, n_classes)
    vote_weights : ndarray of shape (n_members,)
    weights : ndarray of shape (n_members + 1 + len(roots),)
    roots : list of ndarray of shape (n_rows, n_classes)
        The root experts' posteriors (each predicts its first most probable
        class).
    uniforms : ndarray of shape (n_rows,)

    Returns
    -------
    classes : ndarray of shape (n_rows,) of int
    proba : ndarray of shape (n_rows, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> probas = np.array([[[0.6, 0.4]] * 3, [[0.2, 0.8]] * 3])  # 2 members
    >>> root = np.array([[0.9, 0.1]] * 3)
    >>> weights = np.array([0.5, 0.0, 0.25, 0.25])  # vote, members, root
    >>> classes, proba = hedged_picks(
    ...     probas, np.zeros(2), weights, [root], np.array([0.1, 0.6, 0.9]))
    >>> classes.tolist(), proba.round(3).tolist()
    ([1, 1, 0], [[0.4, 0.6], [0.2, 0.8], [0.9, 0.1]])
    """
    n_members, n_rows, _ = probas.shape
    experts = np.concatenate(
        [probas.mean(axis=0)[None], probas] + [np.asarray(r)[None] for r in roots]
    )
    # Among the experts of positive weight: a zero-weight expert's empty part
    # of [0, 1) can be found only by rounding at the end.
    weighed = np.flatnonzero(weights > 0.0)
    ends = np.cumsum(weights[weighed])
    at = np.minimum(np.searchsorted(ends, uniforms, side="right"), len(ends) - 1)
    picked = weighed[at]
    starts = ends[at] - weights[picked]
    inner = np.clip((uniforms - starts) / weights[picked], 0.0, np.nextafter(1.0, 0))
    rows = np.arange(n_rows)
    proba = experts[picked, rows]
    classes = np.argmax(proba, axis=1)
    member = (picked >= 1) & (picked <= n_members)
    v = np.where(member, vote_weights[np.clip(picked - 1, 0, n_members - 1)], 1.0)
    plays = member & (inner >= v)
    if plays.any():
        again = (inner[plays] - v[plays]) / (1.0 - v[plays])
        classes[plays] = draw_classes(proba[plays], again)
    return classes, proba
