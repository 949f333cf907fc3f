"""Drift detection per member: when a member's mistakes say its concept moved.

Each member has a detector fed with the member's own 0/1 loss on every row
of positive weight, the loss of its vote (the class it finds most probable)
before it learnt the row, as ARF feeds its trees' detectors. When the
detector fires on a row, the member is replaced, after that row's round, by
a fresh tree (seeded from the old one's seed, so that the forest stays a
function of ``random_state``) with a fresh detector. Detection is decided
from the member's own rows only: it does not depend on the other members,
on the thread that learns the member, nor on how the stream was cut into
calls.
"""

from __future__ import annotations

import numpy as np

from ._adwin import ADWIN

__all__ = ["DRIFT_DETECTORS", "make_detector", "next_seed", "round_of_drift"]

#: ARF's drift detector: ADWIN with ``delta=0.001`` (River's
#: ``forest.ARFClassifier``; its warning detector, 0.01, is not used here),
#: acting only when the error rises (as MOA's ARF): a member learning a
#: stream makes fewer mistakes, and that is no drift.
DRIFT_DETECTORS = {"adwin": {"delta": 0.001, "rising_only": True}}


def make_detector(name: str | None) -> ADWIN | None:
    """A fresh detector of kind ``name`` (None: no detection).

    Examples
    --------
    >>> make_detector("adwin").delta, make_detector(None)
    (0.001, None)
    """
    if name is None:
        return None
    return ADWIN(**DRIFT_DETECTORS[name])


def next_seed(seed: int) -> int:
    """The seed of the member that replaces one seeded ``seed``.

    Examples
    --------
    >>> next_seed(0) == next_seed(0) != next_seed(1)
    True
    """
    return int(np.random.SeedSequence(int(seed)).generate_state(1)[0])


def round_of_drift(
    detector: ADWIN, records: list, y: np.ndarray, weight: np.ndarray, batch: int
) -> int | None:
    """Feed ``detector`` the member's rounds; the round in which it fires.

    Parameters
    ----------
    detector : ADWIN
        The member's detector, fed in place up to the row it fires on.
    records : list of (proba, vote_weight, ...)
        The member's rounds, each first its class probabilities of the
        round's rows before it learnt them.
    y : ndarray of int
        The rows' class indices, from the first round's first row.
    weight : ndarray
        The rows' sample weights: a row of weight 0 is no evidence.
    batch : int
        Rows per round.

    Returns
    -------
    int or None
        The index of the round of the first detection, or None.

    Examples
    --------
    >>> import numpy as np
    >>> right, wrong = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> records = [(right, 1.0)] * 400 + [(wrong, 1.0)] * 100
    >>> round_of_drift(ADWIN(), records, np.zeros(500, int), np.ones(500), 1)
    415
    """
    n = sum(len(record[0]) for record in records)
    if len(records) == 1:  # a streaming call: one round
        votes = np.argmax(records[0][0], axis=1)
    else:
        votes = np.concatenate([np.argmax(record[0], axis=1) for record in records])
    wrong = votes != y[:n]
    evidence = weight[:n] > 0
    if evidence.all():  # the usual case: every row counts
        at = detector.update_many(wrong)
        return None if at is None else at // batch
    rows = np.flatnonzero(evidence)
    at = detector.update_many(wrong[rows])
    return None if at is None else int(rows[at]) // batch
