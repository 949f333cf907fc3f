"""Exact class probabilities of the hierarchical tree distribution (L = inf).

:class:`~sklearn_localregret.engine.HierarchicalSampler` draws a tree site by
site (:ref:`engine-trees`); the probability that the drawn tree gives a row
label ``c`` needs no draws. Follow the row down: a site ``S`` that has existed
for an exponential time of rate ``s`` (independent of its clock; ``s = 0``
means "stationary", the root) and started as a leaf whose label has
distribution ``m``, labels the row with distribution ::

    H_S(s) = (s m + sum_c w_c e_c + sum_v w_v H_{S,v}(s + q_v)) / (s + W)

where ``w_c`` are its leaf weights (a model leaf's weight goes to the label its
model gives the row: :ref:`engine-model-leaves`), ``w_v`` the weight of "split
on test v", ``W`` their total, ``q_v = W - w_v``, and ``H_{S,v}`` the child on
the row's branch of ``v``, started from the marginal of the label pairs of
``v`` for that branch. Each term is the probability of one content of the site
at that time (the start leaf: ``s / (s + W)``; content ``x``: ``w_x / (s +
W)``), and the age of a split's run, seen from an exponential time of rate
``s``, is exponential of rate ``s + q_v`` (the Laplace transform of the age
density of the sampler's refresh chains; :ref:`engine-predict`). A site without
a row or without positive weight keeps its start leaf: ``H = m``.

The recursion visits every row of the regret table once per batch of data
rows (all data rows reaching a site are handled together), and its cost does
not depend on any number of draws. What a site contributes apart from the
data rows (the start labels of its children, the rates) is cached per table
row and recomputed only when the row's version changes.
"""

from __future__ import annotations

import threading

import numpy as np

from .compiled.tree_labels import (
    compact_label_pool,
    label_probabilities,
    pending_label_entries,
    refresh_label_slots,
    stale_slots,
)
from .compiled.tree_labels_batch import label_probabilities_by_site as by_site
from .keyed_rows import grown_capacity
from .path_index import PathIndex
from .stump_table import StumpRegretTable

# The read scores of a walk without adaptive leaf reads: no site reads.
_NO_READS = np.zeros((0, 2))

__all__ = ["HierarchicalLabels", "check_walk"]

# From this many data rows on, the walk goes site by site.
_BY_SITE_ROWS = 32


class HierarchicalLabels:
    """Exact class probabilities of :class:`HierarchicalSampler`'s trees.

    ``probabilities(outcomes)[i, c]`` is the probability that a tree drawn by
    :meth:`HierarchicalSampler.sample` (same table, same ``root_label``) gives
    data row ``i`` the label ``c``: exact up to floating point, without draws.

    The per-site cache is brought up to date by :meth:`refresh`; a learner
    calls it once a call. Reading a table changed since (mid-call, a loaded
    model, a table updated by hand) refreshes first. :attr:`lock` (re-entrant)
    is held while refreshing and walking; a learner holds it while it plays a
    round, so that readers in other threads see complete rounds.

    Parameters
    ----------
    table : StumpRegretTable
        Row keys are paths, tuples of ``(test, branch)`` pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.engine import StumpRegretTable
    >>> table = StumpRegretTable(n_classes=2, n_tests=1)
    >>> # Test 0 separates the labels: true -> 1, false -> 0.
    >>> table.update([table.row(())], np.zeros((1, 2)), np.zeros((1, 2), bool),
    ...              true_counts=np.array([[[0.0, 3.0]]]),
    ...              class_counts=np.array([[3.0, 3.0]]), correct=np.array([3.0]),
    ...              test_mask=np.ones((1, 1), bool))
    >>> HierarchicalLabels(table).probabilities(np.array([[True], [False]]))
    array([[0., 1.],
           [1., 0.]])
    """

    def __init__(self, table: StumpRegretTable):
        self.table = table
        self._clear()
        # Held by a learner while it plays a round, and by readers while they
        # refresh and walk: a reader sees the model of a completed round.
        self.lock = threading.RLock()

    def _clear(self) -> None:
        """The path links and an empty cache, groups of tests included."""
        table = self.table
        self.paths = PathIndex(table)
        k = table.n_classes
        # Per table row: the version its pool slot was filled at, the slot,
        # how many of its entries have a child row, and its offset labels.
        self._seen = np.full(0, -1, dtype=np.int64)
        self._slot_start = np.zeros(0, dtype=np.int64)
        self._slot_len = np.zeros(0, dtype=np.int64)
        self._follow_len = np.zeros(0, dtype=np.int64)
        self._offset = np.zeros((0, k))
        # The pool: one entry per (row, test with positive weight); see
        # compiled.tree_labels for the columns. Its integers (a test, a group
        # length, an offset within the slot) fit 32 bits: a wide table's pool
        # holds an entry per site and test, gigabytes written on every rebuild.
        self._pool_int = np.zeros((0, 3), dtype=np.int32)
        self._pool_float = np.zeros((0, 2 + 3 * k))
        self._pool_used = 0
        # Groups of tests with monotone outcomes (none given: one per test).
        self._group = np.zeros(0, dtype=np.int64)
        self._rank = np.zeros(0)
        self._test_order = np.zeros(0, dtype=np.int64)
        self._test_group = np.zeros(0, dtype=np.int64)

    # The cache is derived from the table: not saved.
    def __getstate__(self):
        return {"table": self.table}

    def __setstate__(self, state):
        self.__init__(state["table"])

    def reset(self) -> None:
        """Start over from the table: after it forgot rows and renumbered the
        rest (:meth:`~sklearn_localregret.engine.KeyedRows.forget`), the path
        links and every cached slot are rebuilt on the next read. The lock and
        the groups of tests are kept."""
        with self.lock:
            group, rank = self._group, self._rank
            self._clear()
            if group.size:
                self.group_tests(group, rank)

    @property
    def pool_size(self) -> int:
        """Pool entries in use (a measure of the cache's memory)."""
        return self._pool_used

    def group_tests(self, group: np.ndarray, rank: np.ndarray) -> None:
        """Declare groups of tests whose outcomes are monotone.

        Tests with the same ``group[v]``, in increasing ``rank[v]``, are
        passed by every data row as a prefix (the thresholds ``x_j > t`` of one
        feature, ranked by ``t``): a row's walk then costs one bisection per
        group at a site instead of one step per test. Tests beyond
        ``len(group)`` form groups of their own. The probabilities do not
        depend on the grouping, only their cost does -- provided the
        outcomes really are monotone.

        Parameters
        ----------
        group, rank : ndarray of shape (n_tests_so_far,)
        """
        with self.lock:
            self._group = np.asarray(group, dtype=np.int64).copy()
            self._rank = np.asarray(rank, dtype=float).copy()
            self._test_order = np.zeros(0, dtype=np.int64)  # rebuilt
            self._seen[:] = -1  # every slot is laid out by group

    def probabilities(
        self,
        outcomes: np.ndarray,
        root_label: int = 0,
        tolerance: float = 0.0,
        reads: bool = False,
    ) -> np.ndarray:
        """Class probabilities of the data rows, shape ``(n_rows, n_classes)``.

        Parameters
        ----------
        outcomes : ndarray of shape (n_rows, n_tests)
            Test outcomes of the data rows (true: the ``branch = 1`` child).
        root_label : int, default=0
            The leaf the root site starts as.
        tolerance : float, default=0.0
            0: exact. Else every probability is within ``tolerance`` of the
            exact one: sites whose reach fits in the row's tolerance left are
            not walked, their reach goes to their start labels
            (:ref:`engine-predict`).
        reads : bool, default=False
            Adaptive leaf reads, for a table with ``model_reads``: a leaf at a
            site whose naive Bayes model has got more weight right than its
            majority label (:attr:`StumpRegretTable.read_scores`) predicts
            the model's label for the row (:ref:`engine-model-reads`).
        """
        table = self.table
        outcomes = np.ascontiguousarray(outcomes, dtype=bool)
        check_walk(outcomes, root_label, table)
        proba = np.zeros((outcomes.shape[0], table.n_classes))
        if outcomes.shape[0] == 0:
            return proba
        with self.lock:
            if self._stale():
                self._refresh()
            # Many rows: site by site, so that a site's cache is read once
            # per block of rows (the same numbers as row by row).
            walk = label_probabilities if len(outcomes) < _BY_SITE_ROWS else by_site
            walk(
                outcomes,
                self.paths.root,
                int(root_label),
                table._content,
                table._total,
                self.paths.child,
                *self._slots(),
                table.n_rows,
                float(tolerance),
                table.n_leaves,
                table._odds,
                table._base,
                table._reads if reads else _NO_READS,
                proba,
            )
        return proba

    # -- the per-row cache -------------------------------------------------
    def _slots(
        self,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The slot and pool arrays, in the order the kernels take them."""
        return (
            self._slot_start,
            self._slot_len,
            self._follow_len,
            self._offset,
            self._pool_int,
            self._pool_float,
        )

    def _stale(self) -> bool:
        table = self.table
        n = table.n_rows
        return (
            self._seen.shape[0] < n
            or self.paths.child.shape[1] < table.n_tests
            or self._test_order.shape[0] != table.n_tests
            or self.paths.has_new_parents()
            or stale_slots(self._seen, table._versions, n)
        )

    def refresh(self) -> None:
        """Bring the cache up to date with the table (only changed rows)."""
        with self.lock:
            self._refresh()

    def _refresh(self) -> None:
        table = self.table
        table.refresh()
        self.paths.update()
        n = table.n_rows
        self._grow_rows(n)
        # A row that gained a child lists the children to follow anew.
        self._seen[self.paths.take_new_parents()] = -1
        if self._test_order.shape[0] != table.n_tests:
            self._order_tests(table.n_tests)
        self._make_room(
            pending_label_entries(
                n,
                table._versions,
                self._seen,
                table._content,
                table.n_tests,
                table.n_leaves,
            )  # fmt: skip
        )
        while True:
            used = refresh_label_slots(
                n,
                table._versions,
                self._seen,
                table._content,
                table._total,
                table._true,
                table._false,
                table._cost,
                table.n_tests,
                table.n_leaves,
                self.paths.child,
                self._test_order,
                self._test_group,
                *self._slots(),
                self._pool_used,
            )
            if used >= 0:
                self._pool_used = used
                return
            self._make_room(-1 - used)  # no room for a row of that many

    def _make_room(self, needed: int) -> None:
        """Room for ``needed`` more pool entries: if they do not fit, drop the
        garbage, and grow the pool if it would then be more than two thirds
        full (a third free: a compaction per O(pool) entries written)."""
        capacity = self._pool_int.shape[0]
        if self._pool_used + needed <= capacity:
            return
        self._pool_used = compact_label_pool(
            self.table.n_rows,
            self._slot_start,
            self._slot_len,
            self._pool_int,
            self._pool_float,
        )
        live = self._pool_used + needed
        if 3 * live > 2 * capacity:
            self._grow_pool(max(64, grown_capacity(capacity, 3 * live // 2 + 1)))

    def _order_tests(self, n_tests: int) -> None:
        """The tests group by group, each group in increasing rank."""
        group = np.arange(-n_tests, 0, dtype=np.int64)  # alone: unique ids
        rank = np.zeros(n_tests)
        given = min(n_tests, self._group.shape[0])
        group[:given] = self._group[:given]
        rank[:given] = self._rank[:given]
        self._test_order = np.lexsort((rank, group)).astype(np.int64)
        self._test_group = group
        self._seen[:] = -1  # every slot is laid out in this order

    def _grow_rows(self, n: int) -> None:
        old = self._seen.shape[0]
        if n <= old:
            return
        size = grown_capacity(old, n)
        for name, fill in (
            ("_seen", -1),
            ("_slot_start", 0),
            ("_slot_len", 0),
            ("_follow_len", 0),
        ):
            grown = np.full(size, fill, dtype=np.int64)
            grown[:old] = getattr(self, name)
            setattr(self, name, grown)
        offset = np.zeros((size, self.table.n_classes))
        offset[:old] = self._offset
        self._offset = offset

    def _grow_pool(self, size: int) -> None:
        used = self._pool_used
        for name in ("_pool_int", "_pool_float"):
            array = getattr(self, name)
            grown = np.zeros((size,) + array.shape[1:], dtype=array.dtype)
            grown[:used] = array[:used]
            setattr(self, name, grown)


def check_walk(outcomes: np.ndarray, root_label, table) -> None:
    """Refuse what the compiled walks would read or write out of bounds: a
    root label that is not a class, outcomes that are not one column per
    test (a narrower row dropped the subtrees of the tests it lacks)."""
    if outcomes.ndim != 2 or outcomes.shape[1] < table.n_tests:
        raise ValueError(
            f"outcomes must be 2-D with a column per test ({table.n_tests}); "
            f"got shape {outcomes.shape}"
        )
    if not 0 <= root_label < table.n_classes:
        raise ValueError(
            f"root_label must be a class index in [0, {table.n_classes}); "
            f"got {root_label!r}"
        )
