"""Exact class probabilities of hierarchical trees, compiled (:ref:`engine-predict`).

The walk of :class:`~sklearn_localregret.engine.HierarchicalLabels` over flat
arrays. A site ``S`` (a table row) reached with age rate ``s``, start labels
``m`` and probability ``reach`` gives the data row the labels ::

    reach / (s + W) * (s m + sum_c w_c e_c + sum_v w_v H_{S,v}(s + q_v))

and ``H_{S,v}`` is the child on the data row's branch of test ``v``, started
from the label marginal of the split's pairs for that branch. A child without a
row (or without weight) keeps its start labels, so it contributes the marginal
itself. What a site contributes apart from the data row -- per test with
positive weight its weight ``w_v``, ``q_v = W - w_v`` and both branches' start
labels scaled to sum to ``w_v`` -- sits in a *label pool*: the slice
``slot_start[r] : slot_start[r] + slot_len[r]`` of the pool arrays, written
by :func:`refresh_label_slots` when the row changes.
"""

from __future__ import annotations

import numpy as np

from .jit import inline_kernel, kernel
from .pair_sums import DIRECT_PAIR_CLASSES, ROUNDING, pair_marginals

__all__ = [
    "compact_label_pool",
    "label_probabilities",
    "refresh_label_slots",
]


@inline_kernel
def _stored_pair_marginals(true, false, cost, r, v, k, first, second) -> None:
    """:func:`~sklearn_localregret.engine.compiled.pair_sums.pair_marginals`
    of test ``v`` of table row ``r``, read in place."""
    if k > DIRECT_PAIR_CLASSES:
        pair_marginals(true[r, v], false[r, v], cost[r, 0, v], first, second)
        return
    c = cost[r, 0, v]
    for j in range(k):
        second[j] = 0.0
    for i in range(k):
        a = true[r, v, i]
        row_sum = 0.0
        for j in range(k):
            b = false[r, v, j]
            value = a + b - c
            if value > ROUNDING * (abs(a) + abs(b) + abs(c)):
                row_sum += value
                second[j] += value
        first[i] = row_sum


@kernel
def refresh_label_slots(
    n_rows, versions, seen, content, total, true, false, cost, n_tests,
    slot_start, slot_len, pool_test, pool_weight, pool_others, pool_true,
    pool_false, used,
):  # fmt: skip
    """Rewrite the label pool entries of every row whose version moved.

    A stale row's new entries are appended at ``used`` (its old ones become
    garbage); returns the new ``used``, or ``-1 - count`` if a row needing
    ``count`` entries found no room (the rows done so far are consistent:
    compact the pool with :func:`compact_label_pool`, grow it if need be, and
    call again). Per test ``v`` with
    positive weight ``w_v``: ``pool_test = v``, ``pool_weight = w_v``,
    ``pool_others = q_v`` (``W - w_v``, summed from the other weights when
    ``v`` holds nearly all, so that it is exactly 0 when ``v`` holds all), and
    the true and false children's start labels (the marginals of the positive
    pair values) scaled to sum to ``w_v``.
    """
    k = true.shape[2]
    capacity = pool_test.shape[0]
    first = np.empty(k)
    second = np.empty(k)
    for r in range(n_rows):
        if seen[r] == versions[r]:
            continue
        count = 0
        for v in range(n_tests):
            if content[r, k + v] > 0.0:
                count += 1
        if used + count > capacity:
            return -1 - count
        slot_start[r] = used
        slot_len[r] = count
        big = total[r]
        for v in range(n_tests):
            w = content[r, k + v]
            if w <= 0.0:
                continue
            _stored_pair_marginals(true, false, cost, r, v, k, first, second)
            q = big - w
            if q <= 1e-9 * big:  # cancellation: sum the others directly
                q = 0.0
                for x in range(k + n_tests):
                    if x != k + v:
                        q += content[r, x]
            sum_first = 0.0
            sum_second = 0.0
            for c in range(k):
                sum_first += first[c]
                sum_second += second[c]
            scale_first = w / (sum_first if sum_first > 0.0 else 1.0)
            scale_second = w / (sum_second if sum_second > 0.0 else 1.0)
            for c in range(k):
                pool_true[used, c] = first[c] * scale_first
                pool_false[used, c] = second[c] * scale_second
            pool_test[used] = v
            pool_weight[used] = w
            pool_others[used] = q
            used += 1
        seen[r] = versions[r]
    return used


@kernel
def compact_label_pool(
    n_rows, slot_start, slot_len, pool_test, pool_weight, pool_others,
    pool_true, pool_false,
):  # fmt: skip
    """Move every row's live entries to the front, in row order; the new
    ``used``. (A row's new place never lies after its old one.)"""
    order = np.argsort(slot_start[:n_rows])
    at = 0
    for r in order:
        length = slot_len[r]
        if length == 0:
            continue
        start = slot_start[r]
        for i in range(length):
            pool_test[at + i] = pool_test[start + i]
            pool_weight[at + i] = pool_weight[start + i]
            pool_others[at + i] = pool_others[start + i]
            pool_true[at + i] = pool_true[start + i]
            pool_false[at + i] = pool_false[start + i]
        slot_start[r] = at
        at += length
    return at


@kernel
def _walk(
    went, root, root_label, content, total, child, slot_start, slot_len,
    pool_test, pool_weight, pool_others, pool_true, pool_false, out,
    stack_row, stack_rate, stack_reach, stack_entry, stack_branch, here,
):  # fmt: skip
    """Add the label probabilities of one data row (outcomes ``went``) to ``out``.

    Depth first from the root; a stack entry is a site, its age rate, its
    reach and where its start labels are: ``entry = -1`` for the root leaf
    ``root_label``, else the pool entry (and branch) of its parent's split.
    """
    k = out.shape[0]
    top = 1
    stack_row[0] = root
    stack_rate[0] = 0.0
    stack_reach[0] = 1.0
    stack_entry[0] = -1
    stack_branch[0] = 0
    while top > 0:
        top -= 1
        row = stack_row[top]
        s = stack_rate[top]
        reach = stack_reach[top]
        entry = stack_entry[top]
        branch = stack_branch[top]
        rate = total[row] if row >= 0 else 0.0
        if rate <= 0.0 or s + rate <= 0.0:  # the start leaf for ever
            if entry < 0:
                out[root_label] += reach
            elif branch:
                scale = reach / pool_weight[entry]
                for c in range(k):
                    out[c] += scale * pool_true[entry, c]
            else:
                scale = reach / pool_weight[entry]
                for c in range(k):
                    out[c] += scale * pool_false[entry, c]
            continue
        for c in range(k):
            here[c] = content[row, c]
        if s > 0.0:  # the start leaf, still there: s m
            if entry < 0:
                here[root_label] += s
            elif branch:
                scale = s / pool_weight[entry]
                for c in range(k):
                    here[c] += scale * pool_true[entry, c]
            else:
                scale = s / pool_weight[entry]
                for c in range(k):
                    here[c] += scale * pool_false[entry, c]
        share = reach / (s + rate)
        for at in range(slot_start[row], slot_start[row] + slot_len[row]):
            v = pool_test[at]
            goes = 1 if went[v] else 0
            below = child[row, v, goes]
            if below >= 0 and total[below] > 0.0:
                stack_row[top] = below
                stack_rate[top] = s + pool_others[at]
                stack_reach[top] = share * pool_weight[at]
                stack_entry[top] = at
                stack_branch[top] = goes
                top += 1
            elif goes:
                for c in range(k):
                    here[c] += pool_true[at, c]
            else:
                for c in range(k):
                    here[c] += pool_false[at, c]
        for c in range(k):
            out[c] += share * here[c]


@kernel
def label_probabilities(
    outcomes, root, root_label, content, total, child, slot_start, slot_len,
    pool_test, pool_weight, pool_others, pool_true, pool_false, n_rows, out,
):  # fmt: skip
    """Class probabilities of every data row of ``outcomes`` into ``out``.

    ``out`` has shape ``(len(outcomes), K)`` and starts at 0; ``n_rows`` is
    the number of table rows (a walk visits each at most once).
    """
    k = out.shape[1]
    size = n_rows + 1
    stack_row = np.empty(size, dtype=np.int64)
    stack_rate = np.empty(size)
    stack_reach = np.empty(size)
    stack_entry = np.empty(size, dtype=np.int64)
    stack_branch = np.empty(size, dtype=np.int64)
    here = np.empty(k)
    for i in range(outcomes.shape[0]):
        _walk(
            outcomes[i], root, root_label, content, total, child, slot_start,
            slot_len, pool_test, pool_weight, pool_others, pool_true, pool_false,
            out[i], stack_row, stack_rate, stack_reach, stack_entry,
            stack_branch, here,
        )  # fmt: skip
