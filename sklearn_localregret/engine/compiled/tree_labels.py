"""Exact class probabilities of hierarchical trees, compiled (:ref:`engine-predict`).

The walk of :class:`~sklearn_localregret.engine.HierarchicalLabels` over flat
arrays. A site ``S`` (a table row) reached with age rate ``s``, start labels
``m`` and probability ``reach`` gives the data row the labels ::

    reach / (s + W) * (s m + sum_c w_c e_c + sum_v w_v H_{S,v}(s + q_v))

and ``H_{S,v}`` is the child on the data row's branch of test ``v``, started
from the label marginal of the split's pairs for that branch. A child without a
row (or without weight) keeps its start labels, so it contributes the marginal
itself. What a site contributes apart from the data row sits in a *label
pool*, written by :func:`refresh_label_slots` when the row changes: per test
with positive weight (an *entry*) its weight ``w_v``, ``q_v = W - w_v`` and
both branches' start labels ``m_true``, ``m_false`` scaled to sum to ``w_v``.

Summing the start labels of every test on the row's branch would cost
``O(tests x K)`` per site. Instead a site keeps ``offset = sum_c w_c e_c +
sum_v m_false[v]`` and, per *group* of tests whose outcomes are monotone (the
thresholds of one feature, in increasing order: a row passes a prefix of
them), the running sums of ``m_true[v] - m_false[v]``: a row adds one
running sum per group, found by bisection. The tests whose child site has a
row (few) are listed apart: the walk follows those children and takes their
branch's start labels back out.

Pool layout, entry ``e`` of row ``r`` (``e`` from ``slot_start[r]``, for
``slot_len[r]`` entries, ordered by group): ``pool_int[e] = (test, length of
the group starting here or 0, offset of the f-th followed entry if e is the
f-th of the slot)``; ``pool_float[e] = (w, q, m_true (K), m_false (K),
running sum (K))``; ``offset[r]`` (K) and ``follow_len[r]``.
"""

from __future__ import annotations

import numpy as np

from .jit import inline_kernel, kernel
from .leaf_model import model_label_passed, passed_tests, read_label
from .pair_sums import DIRECT_PAIR_CLASSES, ROUNDING, pair_marginals
from .sort_order import sorted_order

__all__ = [
    "compact_label_pool",
    "label_probabilities",
    "pending_label_entries",
    "refresh_label_slots",
    "stale_slots",
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
    n_rows, versions, seen, content, total, true, false, cost, n_tests, n_leaves,
    child, test_order, test_group, slot_start, slot_len, follow_len, offset,
    pool_int, pool_float, used,
):  # fmt: skip
    """Rewrite the label pool entries of every row whose version moved.

    ``test_order`` lists the tests group by group (in each group, the order in
    which a row passes a prefix); ``test_group`` gives each test's group.
    ``child`` is the :class:`~sklearn_localregret.engine.PathIndex` links. A
    stale row's entries are appended at ``used`` (its old ones become
    garbage); returns the new ``used``, or ``-1 - count`` if a row needing
    ``count`` entries found no room (the rows done so far are consistent:
    compact the pool with :func:`compact_label_pool`, grow it if need be, and
    call again). ``q_v`` is summed from the other weights when ``v`` holds
    nearly all, so that it is exactly 0 when ``v`` holds all.
    """
    k = true.shape[2]
    capacity = min(pool_int.shape[0], pool_float.shape[0])
    # Counts clamped to the arrays; widths, class axes: the caller's (unchecked).
    n_rows = min(
        n_rows, versions.shape[0], seen.shape[0], content.shape[0],
        total.shape[0], true.shape[0], child.shape[0], slot_start.shape[0],
        slot_len.shape[0], follow_len.shape[0], offset.shape[0],
    )  # fmt: skip
    n_tests = min(
        n_tests, true.shape[1], child.shape[1], test_order.shape[0],
        content.shape[1] - n_leaves,
    )  # fmt: skip
    first = np.empty(k)
    second = np.empty(k)
    for r in range(n_rows):
        if seen[r] == versions[r]:
            continue
        count = 0
        for v in range(n_tests):
            if content[r, n_leaves + v] > 0.0:
                count += 1
        if used + count > capacity:
            return -1 - count
        slot_start[r] = used
        big = total[r]
        for c in range(k):
            offset[r, c] = content[r, c]
        n_follow = 0
        group_start = -1
        for i in range(n_tests):
            v = test_order[i]
            if v >= n_tests or v >= test_group.shape[0]:
                continue
            w = content[r, n_leaves + v]
            if w <= 0.0:
                continue
            _stored_pair_marginals(true, false, cost, r, v, k, first, second)
            q = big - w
            if q <= 1e-9 * big:  # cancellation: sum the others directly
                q = 0.0
                for x in range(n_leaves + n_tests):
                    if x != n_leaves + v:
                        q += content[r, x]
            sum_first = 0.0
            sum_second = 0.0
            for c in range(k):
                sum_first += first[c]
                sum_second += second[c]
            new_group = (
                group_start < 0 or test_group[pool_int[group_start, 0]] != test_group[v]
            )
            pool_int[used, 0] = v
            pool_int[used, 1] = 0
            if new_group:
                group_start = used
            pool_int[group_start, 1] += 1
            pool_float[used, 0] = w
            pool_float[used, 1] = q
            for c in range(k):
                # Shares first (each <= 1): a tiny sum never overflows w / sum.
                m_true = w * (first[c] / sum_first) if sum_first > 0.0 else 0.0
                m_false = w * (second[c] / sum_second) if sum_second > 0.0 else 0.0
                pool_float[used, 2 + c] = m_true
                pool_float[used, 2 + k + c] = m_false
                running = 0.0 if new_group else pool_float[used - 1, 2 + 2 * k + c]
                pool_float[used, 2 + 2 * k + c] = running + (m_true - m_false)
                offset[r, c] += m_false
            if child[r, v, 0] >= 0 or child[r, v, 1] >= 0:
                pool_int[slot_start[r] + n_follow, 2] = used - slot_start[r]
                n_follow += 1
            used += 1
        slot_len[r] = used - slot_start[r]
        follow_len[r] = n_follow
        seen[r] = versions[r]
    return used


@kernel
def pending_label_entries(n_rows, versions, seen, content, n_tests, n_leaves):
    """How many pool entries :func:`refresh_label_slots` will append: the
    tests with positive weight of every row whose version moved. Sizing the
    pool once for them spares a rebuild of every slot (a loaded model, a
    wide table) one compaction and one copy per growth of the pool."""
    n_rows = min(n_rows, versions.shape[0], seen.shape[0], content.shape[0])
    n_tests = min(n_tests, content.shape[1] - n_leaves)
    count = 0
    for r in range(n_rows):
        if seen[r] == versions[r]:
            continue
        for v in range(n_tests):
            if content[r, n_leaves + v] > 0.0:
                count += 1
    return count


@kernel
def compact_label_pool(n_rows, slot_start, slot_len, pool_int, pool_float):
    """Move every row's live entries to the front, in row order; the new
    ``used``. (A row's new place never lies after its old one; entries refer
    to each other by offsets within their slot, which a move keeps.)"""
    n_rows = min(n_rows, slot_start.shape[0], slot_len.shape[0])
    capacity = min(pool_int.shape[0], pool_float.shape[0])
    # Any sort: the starts of the slots that are copied differ.
    order = sorted_order(slot_start[:n_rows])
    at = 0
    for r in order:
        length = slot_len[r]
        start = slot_start[r]
        if length <= 0 or start < 0 or start + length > capacity:
            slot_len[r] = 0  # (only an inconsistent slot: dropped, not copied)
            continue
        for i in range(length):  # (loops: a row copy compiles strings)
            for j in range(pool_int.shape[1]):
                pool_int[at + i, j] = pool_int[start + i, j]
            for j in range(pool_float.shape[1]):
                pool_float[at + i, j] = pool_float[start + i, j]
        slot_start[r] = at
        at += length
    return at


@kernel
def add_start_labels(target, amount, entry, labels, root_label, pool_float):
    """``target += amount * m``: ``m`` the start labels of a site, the root
    leaf (``entry < 0``) or column ``labels`` of its parent's pool entry
    scaled to sum to 1."""
    if entry < 0:
        target[root_label] += amount
        return
    # m_c / w first (at most 1): amount / w overflows where the parent's
    # weight has decayed to 1e-300 under an age rate of 1e18.
    w = pool_float[entry, 0]
    for c in range(target.shape[0]):
        target[c] += amount * (pool_float[entry, labels + c] / w)


@kernel
def followed_entry(pool_int, start, end, f, n_tests):
    """Pool entry of the ``f``-th followed test of a slot (-1 if the slot is
    inconsistent: an index outside it, or a test outside the data row)."""
    at = start + pool_int[start + f, 2]
    if not start <= at < end:
        return -1
    v = pool_int[at, 0]
    if not 0 <= v < n_tests:
        return -1
    return at


@kernel
def live_child(child, total, reads, site, v, goes, n_sites):
    """The child row on branch ``goes`` of test ``v`` if the walk follows it,
    else -1: if it has weight, or (adaptive reads) if its model leads -- a
    leaf for ever then, but one that reads its model."""
    below = child[site, v, goes]
    if 0 <= below < n_sites:
        if total[below] > 0.0:
            return below
        if below < reads.shape[0] and reads[below, 0] > reads[below, 1]:
            return below
    return -1


@inline_kernel
def site_labels(
    here, went, site, s, entry, labels, root_label, offset, start, end,
    n_follow, pool_int, pool_float, child, total, n_sites, n_tests, content,
    n_leaves, odds, base, scores, reads, passed, n_passed,
):  # fmt: skip
    """What a site gives one data row (outcomes ``went``, of which the tests
    it passes are ``passed[:n_passed]``), times ``s + W``,
    into ``here``: its start labels (``s m``), its leaves (the model leaf's
    weight on its label for the row), and the start labels of its splits on
    the row's branches -- except those of the children the walk follows
    (they take them). Where the site's leaves read its model
    (:func:`read_label`), the start leaf's and the labels' weight go to the
    model's label instead."""
    k = here.shape[0]
    for c in range(k):
        here[c] = offset[site, c]
    read = read_label(reads, odds, base, site, passed, n_passed, scores)
    if read >= 0:  # every leaf here reads the model: move the labels' weight
        moved = 0.0
        for c in range(k):
            moved += content[site, c]
            # offset - content: the splits' start labels (0 when rounding
            # would leave a trace below it).
            here[c] = max(here[c] - content[site, c], 0.0)
        here[read] += moved + (s if s > 0.0 else 0.0)
    if n_leaves > k and content[site, k] > 0.0:
        model = model_label_passed(odds, base, site, passed, n_passed, scores)
        here[model] += content[site, k]
    if s > 0.0 and read < 0:  # the start leaf, still there: s m
        add_start_labels(here, s, entry, labels, root_label, pool_float)
    at = start
    while at < end:  # one running sum per group of tests
        length = min(max(pool_int[at, 1], 1), end - at)
        lo, hi = 0, length
        while lo < hi:  # the row passes a prefix of the group
            mid = (lo + hi) // 2
            v = pool_int[at + mid, 0]
            if 0 <= v < n_tests and went[v]:
                lo = mid + 1
            else:
                hi = mid
        if lo > 0:
            for c in range(k):
                here[c] += pool_float[at + lo - 1, 2 + 2 * k + c]
        at += length
    for f in range(n_follow):
        at = followed_entry(pool_int, start, end, f, n_tests)
        if at < 0:
            continue
        goes = 1 if went[pool_int[at, 0]] else 0
        if live_child(child, total, reads, site, pool_int[at, 0], goes, n_sites) >= 0:
            column = 2 if goes else 2 + k
            for c in range(k):
                here[c] -= pool_float[at, column + c]
    for c in range(k):  # a followed child's labels taken off: rounding leaves
        if here[c] < 0.0:  # a trace below 0 (a probability of -5e-17)
            here[c] = 0.0


@kernel
def _walk(
    went, root, root_label, content, total, child, slot_start, slot_len,
    follow_len, offset, pool_int, pool_float, tolerance, n_leaves, odds, base,
    out, stack_row, stack_rate, stack_reach, stack_entry, stack_branch, here,
    scores, reads, passed,
):  # fmt: skip
    """Add the label probabilities of one data row (outcomes ``went``) to ``out``.

    Depth first from the root; a stack entry is a site, its age rate, its
    reach and where its start labels are: ``entry = -1`` for the root leaf
    ``root_label``, else the pool entry (and branch) of its parent's split.

    ``tolerance > 0`` prunes: a site whose reach fits in what is left of the
    tolerance gives its reach to its start labels instead of being walked.
    Its subtree would have given the row that same reach spread over the
    classes, so every class probability moves by at most the reach, and the
    pruned reaches add up to at most ``tolerance``.

    Every index read from the arrays is checked against their sizes first: a
    reader racing a learner that grows them gets a wrong number, never a read
    outside memory.
    """
    k = out.shape[0]
    n_sites = min(
        total.shape[0], content.shape[0], child.shape[0], slot_start.shape[0],
        slot_len.shape[0], follow_len.shape[0], offset.shape[0],
    )  # fmt: skip
    if n_leaves > k:
        n_sites = min(n_sites, odds.shape[0], base.shape[0])
    n_entries = min(pool_int.shape[0], pool_float.shape[0])
    n_tests = min(went.shape[0], child.shape[1])
    # The tests the row passes, once: every model read sums over them.
    n_passed = passed_tests(went, n_tests, passed)
    room = stack_row.shape[0]
    top = 1
    stack_row[0] = root
    stack_rate[0] = 0.0
    stack_reach[0] = 1.0
    stack_entry[0] = -1
    stack_branch[0] = 0
    left = tolerance
    while top > 0:
        top -= 1
        row = stack_row[top]
        s = stack_rate[top]
        reach = stack_reach[top]
        entry = stack_entry[top]
        # Column of the start labels in pool_float: m_true or m_false.
        labels = 2 if stack_branch[top] else 2 + k
        rate = total[row] if 0 <= row < n_sites else 0.0
        pruned = tolerance > 0.0 and reach <= left
        if pruned or rate <= 0.0 or s + rate <= 0.0:  # the start leaf for ever
            read = -1 if pruned else read_label(
                reads, odds, base, row, passed, n_passed, scores
            )  # fmt: skip
            if read >= 0:  # a leaf that reads its site's model
                out[read] += reach
            else:
                add_start_labels(out, reach, entry, labels, root_label, pool_float)
            if pruned:
                left -= reach
            continue
        start = slot_start[row]
        end = min(start + slot_len[row], n_entries) if start >= 0 else start
        n_follow = min(follow_len[row], max(end - start, 0))
        site_labels(
            here, went, row, s, entry, labels, root_label, offset, start, end,
            n_follow, pool_int, pool_float, child, total, n_sites, n_tests,
            content, n_leaves, odds, base, scores, reads, passed, n_passed,
        )  # fmt: skip
        # Fractions of s + W first (each at most 1): reach / (s + W) overflows
        # where a site's weights have decayed to 1e-300 (long discounted
        # streams), and inf * 0 made the probabilities NaN.
        norm = s + rate
        for f in range(n_follow):
            at = followed_entry(pool_int, start, end, f, n_tests)
            if at < 0:
                continue
            goes = 1 if went[pool_int[at, 0]] else 0
            below = live_child(child, total, reads, row, pool_int[at, 0], goes, n_sites)
            if below >= 0 and top < room:
                stack_row[top] = below
                stack_rate[top] = s + pool_float[at, 1]
                stack_reach[top] = reach * (pool_float[at, 0] / norm)
                stack_entry[top] = at
                stack_branch[top] = goes
                top += 1
        for c in range(k):
            out[c] += reach * (here[c] / norm)


@kernel
def stale_slots(seen, versions, n_rows):
    """Whether a row of the first ``n_rows`` (both arrays hold them) changed
    since its slot was filled: ``(seen[:n_rows] != versions[:n_rows]).any()``
    without numpy's temporaries (a one-row walk's budget)."""
    # Branch-free, so that the loop vectorises: the usual answer is False,
    # read to the end anyway.
    diff = 0
    for r in range(min(n_rows, seen.shape[0], versions.shape[0])):
        diff |= seen[r] ^ versions[r]
    return diff != 0


@kernel
def label_probabilities(
    outcomes, root, root_label, content, total, child, slot_start, slot_len,
    follow_len, offset, pool_int, pool_float, n_rows, tolerance, n_leaves,
    odds, base, reads, out,
):  # fmt: skip
    """Class probabilities of every data row of ``outcomes`` into ``out``.

    ``out`` has shape ``(len(outcomes), K)`` and starts at 0; ``n_rows`` is
    the number of table rows (a walk visits each at most once). With
    ``tolerance > 0`` each probability is within ``tolerance`` of the exact
    one (see ``_walk``); 0 is exact. ``n_leaves``, ``odds``, ``base``: the
    table's leaf colours and naive Bayes cache; ``reads``: the sites' read
    scores (:func:`read_label`; a table without model reads has them 0).
    """
    k = out.shape[1]
    size = n_rows + 1
    stack_row = np.empty(size, dtype=np.int64)
    stack_rate = np.empty(size)
    stack_reach = np.empty(size)
    stack_entry = np.empty(size, dtype=np.int64)
    stack_branch = np.empty(size, dtype=np.int64)
    here = np.empty(k)
    scores = np.empty(k)
    passed = np.empty(outcomes.shape[1], dtype=np.int64)
    for i in range(outcomes.shape[0]):
        _walk(
            outcomes[i], root, root_label, content, total, child, slot_start,
            slot_len, follow_len, offset, pool_int, pool_float, tolerance,
            n_leaves, odds, base, out[i], stack_row, stack_rate, stack_reach,
            stack_entry, stack_branch, here, scores, reads, passed,
        )  # fmt: skip
