"""The interface of a source of candidate thresholds."""

from __future__ import annotations

import numpy as np

__all__ = ["ThresholdSource"]


class ThresholdSource:
    """Proposes thresholds ``t`` for the tests ``x_j > t``, as rows arrive.

    A source sees the feature values of every round before the round is played
    (never the round's labels;
    :class:`~sklearn_localregret.thresholds.AdmittedColumns` reads those of past
    rounds, learnt by the tree) and answers with new ``(feature, threshold)`` pairs.
    Candidates only ever enter: a test, once proposed, stays, so the locality
    graph only grows. The proposals must depend on the rounds only (their
    rows, in order), not on how the rounds were grouped into calls, so that
    ``fit`` and ``partial_fit`` on chunks of whole rounds learn the same
    model. Calls of other lengths make other rounds (one row a call: rounds
    of one row), and a source may then propose otherwise: the quantile
    source's 0/1 test reads the first round, and its checkpoints fall on the
    first round boundary at or past their row counts.

    Subclasses implement :meth:`start` and :meth:`observe`, and set
    ``complete`` once they will never propose again (the learner then stops
    calling them).
    """

    complete: bool = False

    def start(self, n_features: int) -> None:
        """Reset for a stream of rows with ``n_features`` features."""
        raise NotImplementedError

    def observe(
        self, X: np.ndarray, rank=None, numeric=None
    ) -> list[tuple[int, float]]:
        """Candidates ``(feature, threshold)`` that enter before this round.

        Parameters
        ----------
        X : ndarray of shape (n_rows, n_features)
            The finite, real-valued rows of one round.
        rank : callable, default=None
            ``rank()`` returns a score per feature (shape ``(n_features,)``,
            higher first) from what the learner has learnt so far; a source
            may use it to choose the features it refines. It depends on past
            rounds only, so proposals still depend on the rows in order.
        numeric : ndarray of bool of shape (n_features,), default=None
            The features that are numbers (default all): the others (a
            catalog's categorical columns, NaN in ``X``) need no threshold.

        Returns
        -------
        list of (int, float)
            New candidates, possibly none.
        """
        raise NotImplementedError
