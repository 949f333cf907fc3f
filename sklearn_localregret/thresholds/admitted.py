"""The columns of a wide input that the tree reads, admitted by their evidence."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..engine.compiled.jit import kernel
from ..engine.saved_arrays import pack, unpack
from ._base import ThresholdSource

__all__ = ["AdmittedColumns"]


@kernel
def _project_csr(indptr, indices, data, slot_of, out):
    # The stored entries of admitted columns into their slots (out is zeros).
    for i in range(out.shape[0]):
        for p in range(indptr[i], indptr[i + 1]):
            slot = slot_of[indices[p]]
            if slot >= 0:
                out[i, slot] = data[p]


@kernel
def _count_csr(indptr, indices, data, y, weight, threshold, hits, hit_rows):
    # Per column and class, the weight of the rows whose stored entry's test
    # outcome differs from an absent entry's (0 > threshold).
    zero_passes = 0.0 > threshold
    for i in range(y.shape[0]):
        for p in range(indptr[i], indptr[i + 1]):
            if (data[p] > threshold) != zero_passes:
                j = indices[p]
                hits[j, y[i]] += weight[i]
                hit_rows[j] += 1


class AdmittedColumns(ThresholdSource):
    """Columns of a wide input admitted into a bounded number of slots, each
    with the test ``x_j > threshold``, as the rows show they separate the labels.

    An input of many columns (hashed text: 2**20) cannot give every column a
    test, since every site of the tree's table holds every test's counts. The
    tree reads such an input through this source: ``n_slots`` slots, filled
    in order of admission; the rows the tree's rounds, tests, recent rows and
    root models read are the rows projected onto the slots (:meth:`project`;
    a free slot reads 0). For every input column the source keeps, by class,
    the weight of the rows learnt whose outcome of ``x_j > threshold``
    differs from that of a 0 (for ``threshold >= 0``: the rows where the
    column is above it; a sparse row's stored entries alone). At checkpoints,
    ``first_checkpoint`` rows learnt and then every doubling, it admits up to
    half of the free slots (rounded up): the columns not yet admitted whose
    split ``x_j > threshold`` lowers the Gini impurity of the labels learnt so
    far the most, among those where that outcome differed from a 0's in at
    least ``min_rows`` rows, ties to the lower column. A column admitted
    keeps its slot; its test enters before the next round
    (:meth:`observe`), one test a slot, so the tree's graph only grows, as
    with thresholds. Once every slot is filled the source is complete.

    Which columns enter depends on the labels of past rows only, so a
    round's tests are known before it is played: the tree's guarantee holds
    over the tests available at each round, as for thresholds (user guide,
    "Wide input").

    Parameters
    ----------
    n_columns : int
        Columns of the input.
    n_classes : int
    n_slots : int
        Most columns admitted.
    threshold : float, default=0.0
        The tests' threshold (the tree's ``binarize`` if set).
    first_checkpoint : int, default=16
        Rows learnt at the first admission.
    min_rows : int, default=2
        Fewest rows of evidence a column needs to be admitted.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> source = AdmittedColumns(6, n_classes=2, n_slots=2, first_checkpoint=4)
    >>> source.start(n_features=2)
    >>> X = sp.csr_matrix(np.array([[0, 1, 0, 0, 3, 0],
    ...                             [0, 0, 0, 0, 2, 1],
    ...                             [0, 1, 0, 0, 0, 1],
    ...                             [0, 0, 0, 0, 0, 1]], dtype=float))
    >>> y = np.array([1, 0, 1, 0])
    >>> source.learn(X, y, np.ones(4))
    >>> source.admit_if_due()   # 4 rows: half of the 2 slots
    1
    >>> source.columns          # column 1 separates the labels; 4 and 5 half
    array([1])
    >>> source.observe(np.zeros((1, 2)))   # its test enters the tree
    [(0, 0.0)]
    >>> source.project(X).tolist()
    [[1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]
    """

    def __init__(
        self,
        n_columns: int,
        n_classes: int,
        n_slots: int,
        threshold: float = 0.0,
        first_checkpoint: int = 16,
        min_rows: int = 2,
    ):
        self.n_columns = int(n_columns)
        self.n_slots = int(n_slots)
        self.threshold = float(threshold)
        self.min_rows = int(min_rows)
        self.columns = np.zeros(0, dtype=np.intp)  # the column of each slot
        self._hits = np.zeros((self.n_columns, int(n_classes)))
        self._hit_rows = np.zeros(self.n_columns, dtype=np.int32)
        self._class_weight = np.zeros(int(n_classes))
        self._rows = 0  # rows learnt
        self._checkpoint = int(first_checkpoint)  # rows at the next admission
        self._proposed = 0  # slots whose test has entered
        self._rebuild_index()

    def _rebuild_index(self) -> None:
        self._slot_of = np.full(self.n_columns, -1, dtype=np.int32)
        self._slot_of[self.columns] = np.arange(self.columns.shape[0])

    # Saved packed (the evidence of unseen columns is zeros, which deflate);
    # the slot of each column is rebuilt from the columns.
    _PACKED = ("columns", "_hits", "_hit_rows")

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_slot_of"]
        for name in self._PACKED:
            state[name] = pack(state[name])
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in self._PACKED:
            setattr(self, name, unpack(getattr(self, name)))
        self._rebuild_index()

    # -- ThresholdSource --------------------------------------------------
    def start(self, n_features: int) -> None:
        if n_features != self.n_slots:
            raise ValueError(f"{self.n_slots} slots read, not {n_features} features")

    @property
    def complete(self) -> bool:  # type: ignore[override]
        """Whether every slot is filled and its test has entered."""
        return self._proposed == self.n_slots

    def observe(
        self, X: np.ndarray, rank=None, numeric=None
    ) -> list[tuple[int, float]]:
        """The tests of the slots admitted since the last call."""
        start, self._proposed = self._proposed, self.columns.shape[0]
        return [(slot, self.threshold) for slot in range(start, self._proposed)]

    # -- reading ----------------------------------------------------------
    def project(self, X) -> np.ndarray:
        """Rows of the input (dense or CSR of ``n_columns`` columns) read
        through the slots: float64 of shape ``(n_rows, n_slots)``, C-ordered."""
        X = self._input(X)
        out = np.zeros((X.shape[0], self.n_slots))
        if sp.issparse(X):
            _project_csr(X.indptr, X.indices, X.data, self._slot_of, out)
        else:
            out[:, : self.columns.shape[0]] = np.asarray(X)[:, self.columns]
        return out

    def _input(self, X):
        """``X`` of the source's width (refused otherwise: the kernels index
        by column), CSR in canonical form (duplicate entries summed, as a
        dense row holds them)."""
        if np.ndim(X) != 2 or X.shape[1] != self.n_columns:
            raise ValueError(
                f"rows of shape {np.shape(X)}; the source reads "
                f"{self.n_columns} columns"
            )
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
        return X

    # -- evidence ---------------------------------------------------------
    def rows_to_checkpoint(self) -> int | None:
        """Rows to learn before the next admission (None: none will come)."""
        if self.columns.shape[0] == self.n_slots:
            return None
        return max(0, self._checkpoint - self._rows)

    def learn(self, X, y: np.ndarray, weight: np.ndarray) -> None:
        """Add rows ``X`` (input columns; dense or CSR) with class indices
        ``y`` and ``weight`` to the evidence."""
        X = self._input(X)
        y = np.asarray(y, dtype=np.intp)
        weight = np.asarray(weight, dtype=np.float64)
        k = self._class_weight.shape[0]
        if y.shape != (X.shape[0],) or weight.shape != (X.shape[0],):
            raise ValueError(
                f"{X.shape[0]} rows, labels of shape {y.shape} and weights of "
                f"shape {weight.shape}: one each"
            )
        if y.size and not (0 <= y.min() and y.max() < k):
            raise ValueError(f"class indices must be in [0, {k})")
        self._rows += X.shape[0]
        np.add.at(self._class_weight, y, weight)
        if self.columns.shape[0] == self.n_slots:
            return  # every slot filled: the evidence is no longer read
        if sp.issparse(X):
            _count_csr(
                X.indptr, X.indices, X.data, y, weight, self.threshold,
                self._hits, self._hit_rows,
            )  # fmt: skip
            return
        with np.errstate(invalid="ignore"):
            hit = (np.asarray(X) > self.threshold) != (0.0 > self.threshold)
        by_class = np.zeros((X.shape[0], self._hits.shape[1]))
        by_class[np.arange(X.shape[0]), y] = weight
        self._hits += hit.T @ by_class
        self._hit_rows += hit.sum(axis=0)

    def admit_if_due(self) -> int:
        """Admit columns if a checkpoint is reached; how many were admitted."""
        ahead = self.rows_to_checkpoint()
        if ahead is None or ahead > 0:
            return 0
        self._checkpoint *= 2
        free = self.n_slots - self.columns.shape[0]
        scores = self.scores()
        candidates = np.flatnonzero(scores > 0.0)
        order = candidates[np.argsort(-scores[candidates], kind="stable")]
        chosen = np.sort(order[: (free + 1) // 2])
        self.columns = np.concatenate((self.columns, chosen))
        self._rebuild_index()
        return int(chosen.shape[0])

    def scores(self) -> np.ndarray:
        """Per input column, how much its split lowers the labels' Gini
        impurity (in weight: ``N gini(all) - P gini(above) - A gini(rest)``);
        0 for the columns admitted or with fewer than ``min_rows`` rows of
        evidence."""
        scores = np.zeros(self.n_columns)
        # The columns with evidence (on text, the words met: a small part).
        candidates = np.flatnonzero(self._hit_rows >= self.min_rows)
        hits, total = self._hits[candidates], self._class_weight
        if self.threshold < 0:  # a 0 is above: the hits are the rows below
            above, rest = total - hits, hits
        else:
            above, rest = hits, total - hits
        rest = np.maximum(rest, 0.0)  # rounding
        with np.errstate(invalid="ignore", divide="ignore"):
            purity = (above**2).sum(axis=1) / above.sum(axis=1)
            purity += (rest**2).sum(axis=1) / rest.sum(axis=1)
        purity = np.nan_to_num(purity, nan=0.0)
        whole = (total**2).sum() / total.sum() if total.sum() > 0 else 0.0
        scores[candidates] = np.maximum(purity - whole, 0.0)
        scores[self.columns] = 0.0
        return scores
