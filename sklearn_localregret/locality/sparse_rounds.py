"""Disjunct rounds on sparse rows: a round's work in the columns its rows hold.

A feature that is 0 in every row of a round has gain 0 in every colour
(adding or removing it changes no row's prediction) and meets no removal set
through an active literal. So a round of CSR rows is played on its rows
densified over their columns ``cols`` alone (``m x len(cols)``), by the same
functions as a dense round (:func:`~.disjunct_rounds.disjunction_round`,
:func:`~.removal_set_rounds.removal_set_gains`), and the graph writes those
columns alone (``update_at``). The action is its sorted 1 bits, drawn by
``sample_on`` from the uniforms of the bits that can be 1. A round costs the
nonzeros of its rows plus what is in play, never the number of features, and
leaves the model a dense round leaves: the same arithmetic, column by column.
"""

from __future__ import annotations

import numpy as np

from .disjunct_rounds import disjunction_round
from .hypercube_swap import HypercubeSwapRegrets
from .removal_set_rounds import removal_set_gains
from .removal_sets import RemovalSetColoring

__all__ = ["SparseRows", "play_sparse_round"]


class SparseRows:
    """Consecutive rows of a canonical CSR matrix (sorted, distinct indices).

    Parameters
    ----------
    indptr, indices, data : ndarray
        The rows' CSR arrays; ``indptr`` starts at 0.
    width : int
        Number of features.

    Examples
    --------
    >>> import numpy as np
    >>> rows = SparseRows(np.array([0, 2, 3]), np.array([1, 5, 1]),
    ...                   np.ones(3, dtype=np.uint8), 8)
    >>> cols, dense = rows.densified()
    >>> cols.tolist(), dense.tolist()
    ([1, 5], [[1, 1], [1, 0]])
    """

    __slots__ = ("data", "indices", "indptr", "width")

    def __init__(self, indptr, indices, data, width: int):
        self.indptr, self.indices, self.data, self.width = indptr, indices, data, width

    @classmethod
    def of(cls, X, lo: int, hi: int) -> SparseRows:
        """Rows ``lo:hi`` of CSR ``X``, as views of its arrays."""
        start, stop = X.indptr[lo], X.indptr[hi]
        return cls(
            X.indptr[lo : hi + 1] - start,
            X.indices[start:stop],
            X.data[start:stop],
            X.shape[1],
        )

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    def densified(self) -> tuple[np.ndarray, np.ndarray]:
        """The sorted columns the rows hold and the rows over those columns."""
        if self.n_rows == 1:  # canonical: already sorted and distinct
            return self.indices, self.data[None, :]
        cols, where = np.unique(self.indices, return_inverse=True)
        dense = np.zeros((self.n_rows, len(cols)), dtype=self.data.dtype)
        dense[np.repeat(np.arange(self.n_rows), np.diff(self.indptr)), where] = (
            self.data
        )
        return cols, dense


def play_sparse_round(graph, a_on, rows: SparseRows, y, w, bias: float) -> float:
    """Play the action with 1 bits ``a_on`` on a round's sparse rows.

    The same update as a dense round
    (:meth:`LocalRegretDisjunctClassifier._play_round`): gains, new removal
    sets, regrets.

    Parameters
    ----------
    graph : HypercubeColoring, RemovalSetColoring or HypercubeSwapRegrets
    a_on : ndarray of int
        The played disjunction's literals, sorted.
    rows : SparseRows
        The round's 0/1 rows.
    y : ndarray of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : ndarray of shape (m,)
        Row weights.
    bias : float

    Returns
    -------
    float
        Weight of the rows the action got wrong.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.locality.hypercube import HypercubeColoring
    >>> graph = HypercubeColoring(1000)
    >>> rows = SparseRows(np.array([0, 2]), np.array([3, 700]),
    ...                   np.ones(2, dtype=np.uint8), 1000)
    >>> play_sparse_round(graph, np.array([], dtype=int), rows, np.array([1]),
    ...                   np.ones(1), 0.0)
    1.0
    >>> graph.on_sites().tolist()
    [3, 700]
    """
    cols, dense = rows.densified()
    a_cols = np.isin(cols, a_on).astype(np.uint8)
    if isinstance(graph, RemovalSetColoring):
        active = dense.astype(np.int64) @ a_cols
        spawning = np.flatnonzero((y != 1) & (w > 0) & (active >= 2))
        if len(spawning):
            graph.track_members(cols[dense[i] != 0] for i in spawning)
        gains, set_gains, wrong = removal_set_gains(
            a_cols, dense, y, w, graph.sets[:, cols]
        )
        set_gains = np.where(graph.occupied, set_gains, 0.0)
        graph.update_at(cols, a_cols, gains, set_gains, a_on, bias)
        return wrong
    gains, wrong = disjunction_round(a_cols, dense, y, w)
    if isinstance(graph, HypercubeSwapRegrets):
        # A regret per edge of every played vertex: O(n) a round by nature.
        a = np.zeros(graph.n_vars, dtype=np.uint8)
        a[a_on] = 1
        full = np.zeros(graph.n_vars)
        full[cols] = gains
        graph.update(a, full, bias)
    else:
        graph.update_at(cols, a_cols, gains, a_on, bias)
    return wrong
