"""Factored regrets of the leaf-or-stump colouring (:ref:`engine-factored`).

A *site* (a decision-tree path; for per-edge "swap" regrets, a pair of a
tree and a path) has ``K`` leaf colours "replace the subtree here by leaf
``c``" and, for every test ``v``, ``K * K`` stump colours "replace it by the
stump ``(v, c_true, c_false)``". In a round where the stumps on ``v`` are edges
out of the played tree, the gain of the colour ``(v, c1, c2)`` is
``A_true[v, c1] + A_false[v, c2] - correct``: the weight of the rows reaching
the site that pass test ``v`` with label ``c1``, plus those failing it with
label ``c2``, minus what the played subtree gets right. Whether the colour is an
edge depends on ``(site, v)`` only, so all ``K * K`` pairs of ``v`` are updated
in the same rounds and the biased regret separates exactly, for all time::

    Rtilde[v, c1, c2] = S_true[v, c1] + S_false[v, c2] - B[v]

with ``S_true``, ``S_false`` the sums of ``A_true``, ``A_false`` and ``B`` the sum
of ``correct + b`` over those rounds. A site costs ``O(n_tests * K)`` numbers
instead of ``O(n_tests * K**2)``.

:class:`StumpRegretTable` owns this layout. Readers (the samplers, diagnostics)
use its read-only views: :meth:`~StumpRegretTable.site` (the content weights a
draw needs), :meth:`~StumpRegretTable.pair_weights`,
:meth:`~StumpRegretTable.leaf_regrets` and :meth:`~StumpRegretTable.stump_regrets`.

This module holds the layout, the update and the cache of content weights;
the other readers and the diagnostics are in ``stump_table_readers.py``
(:class:`~sklearn_localregret.engine.stump_table_readers.StumpTableReaders`),
saving and loading in ``stump_table_storage.py``
(:class:`~sklearn_localregret.engine.stump_table_storage.StumpTableStorage`):
two mixins of the class, which stays here (saved models name it here).
"""

from __future__ import annotations

import numpy as np

from .compiled.leaf_model import model_labels, model_posteriors, uncounted_labels
from .compiled.pair_sums import refresh_content
from .keyed_rows import grown_capacity
from .stump_table_checks import check_model_row, check_update
from .stump_table_links import StumpTableLinks
from .stump_table_readers import StumpTableReaders
from .stump_table_storage import StumpTableStorage

__all__ = ["StumpRegretTable"]


class StumpRegretTable(StumpTableStorage, StumpTableReaders, StumpTableLinks):
    """Biased and unbiased regrets of leaf and stump colours, one row per site.

    Rows are created on demand and addressed by any hashable key; tests can be
    added at any time (:meth:`add_tests`) and start with zero regret in all
    their colours, as if their edges had always existed with no regret.

    **The one layout.** Per row: ``n_leaves`` leaf regrets (the ``K`` labels,
    then the model leaf if there is one); per test ``v`` the factors
    ``S_true[v]`` (K), ``S_false[v]`` (K) and ``B[v]``; the same again without
    the bias, for the unbiased regrets that diagnostics report.

    **The content weights and their cache.** A draw at a site needs the weight
    of each content: ``w[c] = Rtilde+[leaf c]`` for ``c < n_leaves`` and
    ``w[n_leaves + v] = sum_{c1, c2} Rtilde+[v, c1, c2]`` (split on test
    ``v``). They
    are cached per row. A row's cached weights are valid while its entry in
    :attr:`versions` is the one they were computed at; only :meth:`update`
    changes a row, and it increases the row's version. :meth:`refresh`
    recomputes every stale row in one compiled pass; :meth:`site` refreshes
    first, so readers always see current weights. Adding tests does not
    invalidate anything (a new test's weight is 0).

    **Discounting.** As in :class:`~sklearn_localregret.engine.RegretTable`:
    the factors are stored times a global scale ``lambda^-t``
    (:meth:`advance`); the content weights and pair weights the samplers read
    carry that common factor, the regrets returned by :meth:`leaf_regrets`,
    :meth:`stump_regrets`, :meth:`dense_regrets` and the diagnostics do not.
    The stump formula is linear in the factors, so it holds for the scaled
    factors too.

    Parameters
    ----------
    n_classes : int
        ``K``.
    n_tests : int, default=0
        Tests present from the start.
    discount : float, default=1.0
        ``lambda`` in (0, 1]; 1 is the paper's undiscounted algorithm.
    leaf_model : bool, default=False
        Whether every site has one more leaf colour, ``K``: "replace the
        subtree here by a leaf that predicts with naive Bayes over the tests"
        (:ref:`engine-model-leaves`). Its regret is a leaf regret like the
        others (the caller gives its gains); its model is read off the
        site's stump factors and cached with the content weights
        (:mod:`~sklearn_localregret.engine.compiled.leaf_model`).
    model_reads : bool, default=False
        Whether every site keeps that naive Bayes model's cache without (or
        besides) the model leaf colour, and two prequential scores
        (:attr:`read_scores`): the weight of the rows reaching the site that
        its model, as it stood before each round, got right, and the weight
        its majority label got right. Readers may let a site's leaves predict
        with its model where the model leads (adaptive leaf reads, as River's
        Hoeffding trees' ``"nba"`` leaves); the regrets do not depend on it.

    Examples
    --------
    >>> import numpy as np
    >>> table = StumpRegretTable(n_classes=2, n_tests=1)
    >>> row = table.row(())
    >>> # One round at the root leaf 0: two rows of class 1, one passes test 0.
    >>> table.update([row], leaf_gains=np.array([[0.0, 2.0]]),
    ...              leaf_mask=np.array([[False, True]]),
    ...              true_counts=np.array([[[0.0, 1.0]]]),
    ...              class_counts=np.array([[0.0, 2.0]]), correct=np.array([0.0]),
    ...              test_mask=np.array([[True]]))
    >>> table.stump_regrets(row, 0)
    array([[0., 1.],
           [1., 2.]])
    >>> table.site(row)[0]
    array([0., 2., 4.])
    """

    _ROW_ARRAYS = (
        "_leaf",
        "_true",
        "_false",
        "_cost",
        "_versions",
        "_seen",
        "_content",
        "_cdf",
        "_total",
        "_odds",
        "_base",
        "_model_scale",
        "_reads",
        "_magnitude",
        "_measured",
    )
    # (_model_scale is the scale of each row's last update that counted rows:
    # rescaled with the factors, so that it stays "the scale then" in the new
    # units.)
    _SCALED = ("_leaf", "_true", "_false", "_cost", "_model_scale", "_reads")
    _FILL = {"_seen": -1, "_measured": -1}  # never refreshed, never measured

    def __init__(
        self,
        n_classes: int,
        n_tests: int = 0,
        discount: float = 1.0,
        leaf_model: bool = False,
        model_reads: bool = False,
    ):
        self.n_classes = int(n_classes)
        self.n_leaves = self.n_classes + int(bool(leaf_model))
        self.model_reads = bool(model_reads)
        self._n_tests = int(n_tests)
        self._allocate(8, max(self._n_tests, 8))
        self._start_rows(discount)
        # Per test, its missing-value variant and its column's next threshold
        # (-1: none); see pair_missing_variants, chain_thresholds. Saved.
        self._missing_partner = np.full(self._n_tests, -1, dtype=np.int64)
        self._next_threshold = np.full(self._n_tests, -1, dtype=np.int64)

    @property
    def leaf_model(self) -> bool:
        """Whether every site has a model leaf (leaf colour ``K``)."""
        return self.n_leaves > self.n_classes

    @property
    def models(self) -> bool:
        """Whether every site keeps a naive Bayes cache (model leaves or
        model reads)."""
        return self.leaf_model or self.model_reads

    @property
    def read_scores(self) -> np.ndarray:
        """Per row, the weight its model and its majority label got right
        (shape ``(n_rows, 2)``, in real units; zeros without model reads)."""
        return self._reads[: self.n_rows] / self.clock.scale

    def _allocate(self, rows: int, tests: int) -> None:
        k, n_leaves = self.n_classes, self.n_leaves
        self._leaf = np.zeros((rows, 2, n_leaves))  # [biased, unbiased]
        self._true = np.zeros((rows, tests, k))
        self._false = np.zeros((rows, tests, k))
        self._cost = np.zeros((rows, 2, tests))  # B: [biased, unbiased]
        self._versions = np.zeros(rows, dtype=np.int64)
        self._seen = np.full(rows, -1, dtype=np.int64)
        self._content = np.zeros((rows, n_leaves + tests))
        self._cdf = np.zeros((rows, n_leaves + tests))
        self._total = np.zeros(rows)
        # The sites' naive Bayes cache (none without model leaves or reads).
        model = self.models
        self._odds = np.zeros((rows, tests if model else 0, k))
        self._base = np.zeros((rows, k if model else 0))
        self._model_scale = np.zeros(rows)  # 0: never updated
        self._reads = np.zeros((rows, 2))  # [model right, majority right]
        # row_magnitudes' cache: stored units, valid where _measured == _versions.
        self._magnitude = np.zeros(rows)
        self._measured = np.full(rows, -1, dtype=np.int64)

    # -- rows and tests -----------------------------------------------------
    @property
    def n_tests(self) -> int:
        return self._n_tests

    def _grow_rows(self, needed: int) -> None:
        # A site holds 2 T K numbers, and a learner adds sites every round;
        # each growth copies (and faults in) the whole table.
        rows = self._leaf.shape[0]
        self._grow(grown_capacity(rows, needed), self._true.shape[1])

    def forget(self, rows) -> np.ndarray:
        """Drop ``rows`` (:meth:`KeyedRows.forget`); a table left less than a
        quarter full gives its memory back, down to twice its rows, so that
        it follows the sites in play after a peak."""
        renumber = super().forget(rows)
        rows_kept = max(self.n_rows, 8)
        if self._leaf.shape[0] > 4 * rows_kept:
            for name in self._ROW_ARRAYS:  # rows beyond n_rows hold the fill
                setattr(self, name, getattr(self, name)[: 2 * rows_kept].copy())
        return renumber

    def add_tests(self, count: int) -> None:
        """Append ``count`` tests, with zero regret in all their colours."""
        old_end = self.n_leaves + self._n_tests
        needed = self._n_tests + int(count)
        if needed > self._true.shape[1]:
            self._grow(self._leaf.shape[0], max(needed, 2 * self._true.shape[1]))
        self._n_tests = needed
        unlinked = np.full(needed - self._missing_partner.size, -1, dtype=np.int64)
        self._missing_partner = np.concatenate((self._missing_partner, unlinked))
        self._next_threshold = np.concatenate((self._next_threshold, unlinked))
        # The cached weights stay valid: a new test weighs 0, so the cumulative
        # sums carry on flat over its column.
        n = self.n_rows
        if old_end:
            self._cdf[:n, old_end : self.n_leaves + needed] = self._cdf[
                :n, old_end - 1 : old_end
            ]

    def _grow(self, rows: int, tests: int) -> None:
        old = {name: getattr(self, name) for name in self._ROW_ARRAYS}
        n, t, k = old["_leaf"].shape[0], old["_true"].shape[1], self.n_leaves
        self._allocate(rows, tests)
        self._leaf[:n] = old["_leaf"]
        self._true[:n, :t] = old["_true"]
        self._false[:n, :t] = old["_false"]
        self._cost[:n, :, :t] = old["_cost"]
        self._versions[:n] = old["_versions"]
        self._seen[:n] = old["_seen"]
        self._content[:n, : k + t] = old["_content"]
        self._cdf[:n, : k + t] = old["_cdf"]
        self._total[:n] = old["_total"]
        self._odds[:n, : old["_odds"].shape[1]] = old["_odds"]
        self._base[:n] = old["_base"]
        self._model_scale[:n] = old["_model_scale"]
        self._reads[:n] = old["_reads"]
        self._magnitude[:n] = old["_magnitude"]
        self._measured[:n] = old["_measured"]

    # -- the update -------------------------------------------------------
    def update(
        self,
        rows,
        leaf_gains: np.ndarray,
        leaf_mask: np.ndarray,
        true_counts: np.ndarray,
        class_counts: np.ndarray,
        correct: np.ndarray,
        test_mask: np.ndarray,
        bias: float = 0.0,
    ) -> None:
        """One round of the biased regret update at the sites ``rows``.

        Parameters
        ----------
        rows : sequence of int
            Distinct rows (one per node of the played tree).
        leaf_gains : ndarray of shape (n_rows, n_leaves)
            Gain of replacing each node's subtree by leaf colour ``c`` (the
            labels, then the model leaf if the table has one).
        leaf_mask : ndarray of bool of shape (n_rows, n_leaves)
            Which leaf colours are edges (not the leaf the node already is).
        true_counts : ndarray of shape (n_rows, n_tests, K)
            ``A_true``: weight of the rows reaching the node that pass test
            ``v``, per label.
        class_counts : ndarray of shape (n_rows, K)
            Weight of the rows reaching the node, per label
            (``A_false = class_counts - A_true``).
        correct : ndarray of shape (n_rows,)
            Weight the played subtree at the node gets right.
        test_mask : ndarray of bool of shape (n_rows, n_tests)
            Tests whose stumps are edges at the node.
        bias : float, default=0.0
            The paper's ``b``, subtracted from every colour that is an edge.
        """
        rows = np.asarray(rows, dtype=np.intp)
        t = self._n_tests
        check_update(
            self,
            rows,
            leaf_gains,
            leaf_mask,
            true_counts,
            class_counts,
            correct,
            test_mask,
        )
        scale = self.clock.scale
        if scale != 1.0:
            leaf_gains, true_counts = leaf_gains * scale, true_counts * scale
            class_counts, correct = class_counts * scale, correct * scale
            bias = bias * scale
        gains = np.where(leaf_mask, leaf_gains, 0.0)
        leaf = self._leaf[rows]
        leaf[:, 1] += gains
        leaf[:, 0] += gains - bias * leaf_mask if bias else gains
        self._leaf[rows] = leaf
        # Sites no row reached only pay the bias: their counts are zero.
        reached = np.flatnonzero(
            class_counts.any(axis=1) | true_counts.any(axis=(1, 2))
        )
        if t:
            if reached.size:
                at, mask = rows[reached], test_mask[reached, :, None]
                true = true_counts[reached]
                self._true[at, :t] += np.where(mask, true, 0.0)
                self._false[at, :t] += np.where(
                    mask, class_counts[reached, None, :] - true, 0.0
                )
            cost = np.where(test_mask, correct[:, None], 0.0)
            both = self._cost[rows, :, :t]
            both[:, 1] += cost
            both[:, 0] += cost + bias * test_mask if bias else cost
            self._cost[rows, :, :t] = both
        if self.models:
            # A model's smoothing is in the units of its counts' last change.
            self._model_scale[rows[reached]] = scale
        self._versions[rows] += 1

    # -- reading ----------------------------------------------------------
    def refresh(self) -> None:
        """Recompute the cached content weights of every stale row (compiled)."""
        refresh_content(
            self._leaf,
            self._true,
            self._false,
            self._cost,
            self._versions,
            self._seen,
            self._content,
            self._cdf,
            self._total,
            self.n_rows,
            self._n_tests,
            self._model_scale,
            self._odds,
            self._base,
            self.missing_partners,
            self.next_thresholds,
        )

    def site(self, row: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Content weights of a row, their cumulative sums and their total.

        Content ``c < K`` is the leaf ``c``, content ``K`` the model leaf if
        the table has one; content ``n_leaves + v`` is "split on test ``v``".
        Returns read-only views, current as of this call.
        """
        if self._seen[row] != self._versions[row]:
            self.refresh()
        end = self.n_leaves + self._n_tests
        return self._content[row, :end], self._cdf[row, :end], float(self._total[row])

    def model_labels(self, rows, outcomes: np.ndarray) -> np.ndarray:
        """The sites' models' labels: data row ``i`` (test outcomes) at table
        row ``rows[i]``, shape (n,). Tables with model leaves or reads only."""
        if not self.models:
            raise ValueError("this table keeps no naive Bayes models")
        self.refresh()
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size and not (0 <= rows.min() and rows.max() < self.n_rows):
            raise IndexError("a table row out of range")
        out = np.zeros(rows.shape[0], dtype=np.int64)
        outcomes = np.ascontiguousarray(outcomes, dtype=bool)
        model_labels(self._odds, self._base, rows, outcomes, self._n_tests, out)
        return out

    def row_model_labels(self, row: int, outcomes: np.ndarray) -> np.ndarray:
        """:meth:`model_labels` of every data row at the one table ``row``
        (a row :meth:`find` gave)."""
        check_model_row(self, row)
        self.refresh()
        out = np.empty(outcomes.shape[0], dtype=np.int64)
        rows = np.full(outcomes.shape[0], row, dtype=np.int64)
        outcomes = np.ascontiguousarray(outcomes, dtype=bool)
        model_labels(self._odds, self._base, rows, outcomes, self._n_tests, out)
        return out

    def row_model_proba(
        self, row: int, outcomes: np.ndarray, counted_only: bool = False
    ) -> np.ndarray:
        """The posteriors of the model at the one table ``row`` (a row
        :meth:`find` gave) for every data row (test outcomes): shape (n, K),
        the softmax of the scores :meth:`row_model_labels` maximises; with
        ``counted_only``, those of :meth:`counted_model`."""
        if counted_only:
            odds, base = self.counted_model(row)
            row = 0
        else:
            check_model_row(self, row)
            self.refresh()
            odds, base = self._odds, self._base
        out = np.empty((outcomes.shape[0], base.shape[1]))
        outcomes = np.ascontiguousarray(outcomes, dtype=bool)
        model_posteriors(odds, base, row, outcomes, self._n_tests, out)
        return out

    def counted_model(self, row: int) -> tuple:
        """Row ``row``'s naive Bayes cache as a one-row table ``(odds, base)``
        in which a label the row never counted (while it counted another)
        has prior 0, as in scikit-learn's naive Bayes: the root site's model
        is one of every row learnt, and its smoothed prior let a label of no
        weight win rows on likelihoods never measured."""
        check_model_row(self, row)
        self.refresh()
        odds, base = self._odds[row : row + 1], self._base[row : row + 1]
        unseen = np.empty(self._true.shape[2], dtype=bool)
        counted = uncounted_labels(self._true, self._false, row, self._n_tests, unseen)
        if 0 < counted < unseen.shape[0]:
            base = base.copy()
            base[0, unseen] = -np.inf
        return odds, base

    def model_arrays(self) -> tuple:
        """The naive Bayes models' cache, current: the log odds per row,
        test and label, the log score of failing every test per row and
        label, and the number of tests (read-only use: the compiled kernels
        of :mod:`~sklearn_localregret.engine.compiled.leaf_model`)."""
        self.refresh()
        return self._odds, self._base, self._n_tests
