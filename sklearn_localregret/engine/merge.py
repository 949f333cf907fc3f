"""Arithmetic on regret tables: adding one table's regrets into another.

Every regret a table holds is a sum over rounds of the increments of the
rounds (the paper's biased update, :ref:`engine-factored` for the stump
factors), so two tables learnt on disjoint rounds add up to the table of all
the rounds, row by row, as long as the increments were the same: the same
plays. :func:`add_rows` is that sum. It works in *true* units (each table's
stored values divided by its own discount scale), so two tables with
different scales, or different ages of their discount clocks, add what each
reports; with ``discount < 1`` that aligns the two tables' last rounds (the
rounds of both streams are taken to have run side by side, ending together).

Rows are matched by key (a hypercube bit, a tree path, a played vertex),
and a key the destination lacks gets a new row, started at zero regrets:
a colour one side never saw has no regret there, which is what the other
side's update of it would have been added to.

The function knows only tables; which tables a learner has, and what else
its state holds, is :mod:`sklearn_localregret.merging`'s.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable

import numpy as np

from .keyed_rows import KeyedRows
from .regret_table import RegretTable
from .stump_table import StumpRegretTable

__all__ = [
    "add_rows",
    "changed_rows_difference",
    "check_same_layout",
    "empty_like",
    "snapshot",
]


def check_same_layout(dst: KeyedRows, src: KeyedRows) -> None:
    """Raise ``ValueError`` unless ``src`` can be added into ``dst``.

    Same kind of table, same discount, and the same columns: the width of a
    :class:`RegretTable`; the classes, leaf colours and tests of a
    :class:`StumpRegretTable` (tests matched by number: the caller checks that
    the numbers mean the same tests).
    """
    if type(dst) is not type(src):
        raise ValueError(
            f"cannot add a {type(src).__name__} into a {type(dst).__name__}"
        )
    if dst.discount != src.discount:
        raise ValueError(
            f"the tables' discounts differ: {dst.discount!r} and {src.discount!r}"
        )
    if isinstance(dst, RegretTable):
        assert isinstance(src, RegretTable)
        if dst.width != src.width:
            raise ValueError(
                f"the tables' widths differ: {dst.width} and {src.width} colours"
            )
    elif isinstance(dst, StumpRegretTable):
        assert isinstance(src, StumpRegretTable)
        for name in ("n_classes", "n_leaves", "n_tests", "model_reads"):
            mine, theirs = getattr(dst, name), getattr(src, name)
            if mine != theirs:
                raise ValueError(f"the tables' {name} differ: {mine} and {theirs}")
    else:  # pragma: no cover - every table of the package is one of the two
        raise TypeError(f"no table arithmetic for {type(dst).__name__}")


def add_rows(
    dst: KeyedRows,
    src: KeyedRows,
    coef: float = 1.0,
    key_map: Callable[[Hashable], Hashable | None] | None = None,
) -> np.ndarray:
    """Add ``coef`` times the regrets of ``src`` into ``dst``, row by key.

    Parameters
    ----------
    dst, src : RegretTable or StumpRegretTable
        Tables of the same layout (:func:`check_same_layout`).
    coef : float, default=1.0
        Factor of ``src``'s regrets (``-1`` subtracts them).
    key_map : callable or None, default=None
        The key in ``dst`` of each key of ``src`` (None: the same key), one to
        one; a returned None skips that row.

    Returns
    -------
    ndarray of int
        The rows of ``dst`` that changed (their versions are increased, so
        every cache derived from them is recomputed).

    Examples
    --------
    >>> from sklearn_localregret.engine import RegretTable
    >>> a, b = RegretTable(width=2), RegretTable(width=2)
    >>> a.update_entries([a.row("x")], [1], [2.0], bias=0.5)
    >>> b.update_entries([b.row("y")], [0], [1.0])
    >>> b.update_entries([b.row("x")], [1], [3.0])
    >>> add_rows(a, b)  # the rows of "y" (new) and "x"
    array([1, 0])
    >>> a.keys(), a.biased.tolist()
    (['x', 'y'], [[0.0, 4.5], [1.0, 0.0]])
    """
    check_same_layout(dst, src)
    keys = src.keys()
    if key_map is not None:
        pairs = [(i, key_map(key)) for i, key in enumerate(keys)]
        pairs = [(i, key) for i, key in pairs if key is not None]
    else:
        pairs = list(enumerate(keys))
    if key_map is not None and len({key for _, key in pairs}) < len(pairs):
        raise ValueError("key_map sends two keys of src to one key of dst")
    src_rows = np.array([i for i, _ in pairs], dtype=np.intp)
    # Rows are created first: creating one may grow (reallocate) the arrays;
    # room for all of them is made at once.
    dst.reserve(dst.n_rows + sum(1 for _, key in pairs if dst.find(key) < 0))
    dst_rows = np.array([dst.row(key) for _, key in pairs], dtype=np.intp)
    if dst_rows.size == 0:
        return dst_rows
    # True units on both sides: stored / scale.
    factor = float(coef) * dst.clock.scale / src.clock.scale
    if isinstance(dst, RegretTable):
        assert isinstance(src, RegretTable)
        for name in RegretTable._SCALED:
            getattr(dst, name)[dst_rows] += factor * getattr(src, name)[src_rows]
    else:
        assert isinstance(dst, StumpRegretTable)
        assert isinstance(src, StumpRegretTable)
        _add_stump_rows(dst, src, dst_rows, src_rows, factor)
    dst._versions[dst_rows] += 1
    return dst_rows


def _add_stump_rows(
    dst: StumpRegretTable,
    src: StumpRegretTable,
    dst_rows: np.ndarray,
    src_rows: np.ndarray,
    factor: float,
) -> None:
    """The factors ``leaf``, ``S_true``, ``S_false`` and ``B`` add up: the
    stump regret ``S_true[c1] + S_false[c2] - B`` is linear in them."""
    t = dst.n_tests
    dst._leaf[dst_rows] += factor * src._leaf[src_rows]
    dst._true[dst_rows, :t] += factor * src._true[src_rows, :t]
    dst._false[dst_rows, :t] += factor * src._false[src_rows, :t]
    dst._cost[dst_rows, :, :t] += factor * src._cost[src_rows, :, :t]
    dst._reads[dst_rows] += factor * src._reads[src_rows]  # scores add up too
    if dst.models:
        # A model leaf reads its counts in the units of the row's last update:
        # the sums are in today's units now.
        dst._model_scale[dst_rows] = dst.clock.scale


def empty_like(table: KeyedRows) -> KeyedRows:
    """A table of the same layout as ``table``, with no rows, at scale 1.

    Examples
    --------
    >>> from sklearn_localregret.engine import StumpRegretTable
    >>> empty_like(StumpRegretTable(n_classes=3, n_tests=4)).n_tests
    4
    """
    if isinstance(table, StumpRegretTable):
        empty = StumpRegretTable(
            table.n_classes,
            table.n_tests,
            table.discount,
            table.leaf_model,
            table.model_reads,
        )
        empty.pair_missing_variants(table.missing_partners)
        empty.chain_thresholds(table.next_thresholds)
        return empty
    assert isinstance(table, RegretTable)
    return RegretTable(table.width, discount=table.discount)


def changed_rows_difference(
    now: KeyedRows, before: KeyedRows, coef: float = 1.0
) -> KeyedRows:
    """``now - coef * before`` on the rows ``now`` changed since ``before``.

    ``before`` is an earlier copy of ``now``; a row changed if it is new or
    its version moved on (every update increases it). The other rows of
    ``now`` are ``before``'s decayed by the discount of the rounds between, so
    with ``coef = lambda^rounds`` their difference is zero and they are left
    out: the result is a new table (true units) holding the increments of the
    rounds between, in the rows they touched.

    Examples
    --------
    >>> from sklearn_localregret.engine import RegretTable
    >>> now = RegretTable(width=1)
    >>> for key in "ab":
    ...     now.update_entries([now.row(key)], [0], [1.0])
    >>> before = RegretTable(width=1)
    >>> add_rows(before, now)
    array([0, 1])
    >>> before._versions[:2] = now._versions[:2]  # an exact copy
    >>> now.update_entries([now.row("b"), now.row("c")], [0, 0], [2.0, 5.0])
    >>> delta = changed_rows_difference(now, before)
    >>> delta.keys(), delta.biased.ravel().tolist()
    (['b', 'c'], [2.0, 5.0])
    """
    versions = now.versions
    keys = now.keys()
    changed = set()
    for row, key in enumerate(keys):
        old = before.find(key)
        if old < 0 or before.versions[old] != versions[row]:
            changed.add(key)
    out = empty_like(now)
    pick = changed.__contains__
    add_rows(out, now, 1.0, lambda key: key if pick(key) else None)
    add_rows(out, before, -coef, lambda key: key if pick(key) else None)
    return out


def snapshot(table: KeyedRows) -> KeyedRows:
    """A read-only copy of a table's keys, versions and regrets, for
    :func:`changed_rows_difference` and :func:`add_rows` (as ``src``).

    Only the rows in use and the arrays that hold regrets are copied (no
    spare capacity; caches of its own, empty): a memory copy of the regrets.

    Examples
    --------
    >>> from sklearn_localregret.engine import RegretTable
    >>> table = RegretTable(width=1)
    >>> table.update_entries([table.row("a")], [0], [1.0])
    >>> before = snapshot(table)
    >>> table.update_entries([table.row("a")], [0], [2.0])
    >>> before.biased.ravel().tolist(), table.biased.ravel().tolist()
    ([1.0], [3.0])
    """
    n = table.n_rows
    out = object.__new__(type(table))
    out.__dict__.update(table.__dict__)
    out._keys = list(table._keys)
    out._row_of = dict(table._row_of)
    out.clock = copy.copy(table.clock)
    kept = (*type(table)._SCALED, "_versions")
    for name in kept:
        setattr(out, name, getattr(table, name)[:n].copy())
    # Caches of its own, stale (the table's were shared: each side's reads
    # overwrote the other's, and a forget renumbered both).
    fill = getattr(type(table), "_FILL", {})
    for name in type(table)._ROW_ARRAYS:
        if name not in kept:
            old = getattr(table, name)
            fresh = np.zeros((n, *old.shape[1:]), old.dtype)  # (lazily zeroed)
            if name in fill:  # _seen -1: every read recomputes
                fresh[:] = fill[name]
            setattr(out, name, fresh)
    return out
