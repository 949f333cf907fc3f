"""What a :class:`~sklearn_localregret.engine.StumpRegretTable` tells its readers.

:class:`StumpTableReaders` is the table's read side beyond the cached site
weights (a mixin of :class:`~sklearn_localregret.engine.StumpRegretTable`):
regrets of leaves and stumps in true units, the positive stump pairs a draw
of a label pair uses and their marginals, the colours of a row with a
positive rate, and the diagnostics (dense regrets, colored regret, the
per-row maxima and magnitudes, the count of non-zero regrets, the bytes in
use). None of them changes the table.
"""

from __future__ import annotations

import numpy as np

from .compiled.magnitudes import refresh_magnitudes
from .keyed_rows import KeyedRows
from .stump_pairs import pair_values, positive_pair_marginals, positive_pair_sums

__all__ = ["StumpTableReaders"]


class StumpTableReaders(KeyedRows):
    """Read-only views and diagnostics of the stump regret table (a mixin of
    :class:`~sklearn_localregret.engine.StumpRegretTable`)."""

    # The layout it reads (the table's).
    n_classes: int
    n_leaves: int
    _n_tests: int
    _leaf: np.ndarray
    _true: np.ndarray
    _false: np.ndarray
    _cost: np.ndarray
    _magnitude: np.ndarray
    _measured: np.ndarray
    _content: np.ndarray
    _total: np.ndarray

    def refresh(self) -> None:  # the table's: its cached site weights made current
        raise NotImplementedError

    def leaf_regrets(self, row: int, unbiased: bool = False) -> np.ndarray:
        """Regret of each leaf colour of a row, shape (n_leaves,)."""
        return self._leaf[row, int(unbiased)] / self.clock.scale

    def stump_regrets(self, row: int, test: int, unbiased: bool = False) -> np.ndarray:
        """Regret of every stump colour ``(test, c_true, c_false)``, shape (K, K)."""
        return self._stored_pairs(row, test, unbiased) / self.clock.scale

    def _stored_pairs(self, row: int, test: int, unbiased: bool = False):
        return pair_values(
            self._true[row, test],
            self._false[row, test],
            self._cost[row, int(unbiased), test],
        )

    def label_marginals(
        self, row: int, tests: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Weights of the start labels of the children of splits on ``tests``.

        Row ``i`` of ``true`` (``false``) is the marginal of :meth:`pair_weights`
        of ``tests[i]`` over the false (true) child's label: how a draw of the
        split on that test labels the child on its "true" ("false") branch,
        unnormalised (times :attr:`scale`). Shape ``(len(tests), K)`` each.
        """
        tests = np.asarray(tests, dtype=np.intp)
        return positive_pair_marginals(
            self._true[row, tests], self._false[row, tests], self._cost[row, 0, tests]
        )

    def pair_weights(self, row: int, test: int) -> np.ndarray:
        """``Rtilde+`` of the stumps on ``test`` (times :attr:`scale`), flattened
        ``c_true * K + c_false``: the weights a draw of the label pair uses."""
        return np.maximum(self._stored_pairs(row, test), 0.0).reshape(-1)

    def positive_colours(
        self, row: int, leaf_mask: np.ndarray, test_mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The colours of a row that are edges and have a positive rate.

        Returns ``(leaves, stumps, rates)``: leaf labels, an ``(m, 3)`` array of
        ``(test, c_true, c_false)``, and the rates of the leaves then the stumps
        (``Rtilde+`` times :attr:`scale`).
        """
        leaf = self._leaf[row, 0]
        leaves = np.flatnonzero(leaf_mask & (leaf > 0))
        t = self._n_tests
        a, b = self._true[row, :t], self._false[row, :t]
        c = self._cost[row, 0, :t]
        live = (
            np.flatnonzero(test_mask[:t] & (a.max(axis=1) + b.max(axis=1) - c > 0))
            if t and self.n_classes
            else np.zeros(0, dtype=np.intp)
        )
        values = pair_values(a[live], b[live], c[live])
        which, c_true, c_false = np.nonzero(values > 0)
        stumps = np.column_stack((live[which], c_true, c_false))
        rates = np.concatenate((leaf[leaves], values[which, c_true, c_false]))
        return leaves, stumps, rates

    # -- diagnostics --------------------------------------------------------
    def dense_regrets(self, unbiased: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Every colour's regret, unfactored: for inspection of small tables.

        Returns
        -------
        leaves : ndarray of shape (n_rows, n_leaves)
        stumps : ndarray of shape (n_rows, n_tests, K, K)
            ``stumps[row, v, c_true, c_false]``.
        """
        n, t = self.n_rows, self._n_tests
        which, scale = int(unbiased), self.clock.scale
        return (
            self._leaf[:n, which] / scale,
            pair_values(
                self._true[:n, :t], self._false[:n, :t], self._cost[:n, which, :t]
            )
            / scale,
        )

    def colored_regret(self, unbiased: bool = True) -> float:
        """``sum_C (R[C])+`` over every colour (not yet divided by the rounds;
        discounted when ``discount < 1``)."""
        n, k, t = self.n_rows, self.n_classes, self._n_tests
        total = float(np.maximum(self._leaf[:n, int(unbiased)], 0.0).sum())
        if t and n:
            total += float(
                positive_pair_sums(
                    self._true[:n, :t].reshape(-1, k),
                    self._false[:n, :t].reshape(-1, k),
                    self._cost[:n, int(unbiased), :t].reshape(-1),
                ).sum()
            )
        return total / self.clock.scale

    def row_max_regret(self, unbiased: bool = True) -> np.ndarray:
        """``max_C (R[C])+`` per row, the per-vertex term of local swap regret."""
        n, t = self.n_rows, self._n_tests
        best = np.maximum(self._leaf[:n, int(unbiased)], 0.0).max(axis=1, initial=0.0)
        if t and n:
            stump = (
                self._true[:n, :t].max(axis=2)
                + self._false[:n, :t].max(axis=2)
                - self._cost[:n, int(unbiased), :t]
            )
            best = np.maximum(best, stump.max(axis=1))
        return best / self.clock.scale

    def row_magnitudes(self) -> np.ndarray:
        """A bound on ``|Rtilde|`` and ``|R|`` of every colour, per row.

        The largest leaf regret in absolute value, or ``|S_true| + |S_false| +
        |B|`` at its largest over the tests, whichever is larger (true units).
        Rows are measured again only when their version moved (compiled:
        :func:`~sklearn_localregret.engine.compiled.magnitudes.refresh_magnitudes`).
        """
        n = self.n_rows
        refresh_magnitudes(
            self._leaf,
            self._true,
            self._false,
            self._cost,
            self._versions,
            self._measured,
            self._magnitude,
            n,
            self._n_tests,
        )
        return self._magnitude[:n] / self.clock.scale

    def n_nonzero(self) -> int:
        """Number of colours whose biased regret is non-zero (the paper's count)."""
        n, t = self.n_rows, self._n_tests
        count = int(np.count_nonzero(self._leaf[:n, 0]))
        for start in range(0, n, 64):  # bounded temporaries
            rows = slice(start, min(start + 64, n))
            values = pair_values(
                self._true[rows, :t], self._false[rows, :t], self._cost[rows, 0, :t]
            )
            count += int(np.count_nonzero(values))
        return count

    @property
    def nbytes(self) -> int:
        """Bytes of regret state in use (the factors of every row)."""
        n, k, t = self.n_rows, self.n_classes, self._n_tests
        return 8 * n * (2 * self.n_leaves + 2 * t * k + 2 * t)

    def test_shares(self) -> np.ndarray:
        """Per test, how much of the table's draws split on it, shape (n_tests,).

        A row draws "split on test ``v``" with probability ``w[n_leaves + v]
        / sum(w)`` of its content weights; this sums that over the rows (a
        row with no weight adds nothing). Learners rank features by it.
        """
        self.refresh()
        n, t, first = self.n_rows, self._n_tests, self.n_leaves
        shares = np.zeros(t)
        for start in range(0, n, 64):  # bounded temporaries
            total = self._total[start : min(start + 64, n)]
            live = np.flatnonzero(total > 0) + start
            weights = self._content[live, first : first + t]
            shares += (weights / self._total[live, None]).sum(axis=0)
        return shares

    def site_totals(self) -> np.ndarray:
        """Total content weight (the refresh-clock rate) of every row."""
        self.refresh()
        return self._total[: self.n_rows].copy()
