"""The exact prediction walk for many data rows at once, site by site.

:func:`~sklearn_localregret.engine.compiled.tree_labels.label_probabilities`
walks each data row down its sites; for a large batch the label pool (tens of
megabytes with many classes) is then read once per row. Everything a site
contributes apart from the data row -- its age rate, its reach, its start
labels -- depends only on the site, so here the sites are walked once, each
with the block of data rows that reach it: a site's pool entries are read
once per block. Every row gets the same terms in the same order as in the
row-by-row walk, so the numbers are the same.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel
from .leaf_model import passed_tests, read_label
from .tree_labels import add_start_labels, followed_entry, live_child, site_labels

__all__ = ["label_probabilities_by_site"]

# Data rows walked together (bounds the buffer of row subsets).
BLOCK_ROWS = 256


@kernel
def _reads_model(reads, site) -> bool:
    """Whether table row ``site``'s leaves read its model (adaptive reads)."""
    return 0 <= site < reads.shape[0] and reads[site, 0] > reads[site, 1]


@kernel
def label_probabilities_by_site(
    outcomes, root, root_label, content, total, child, slot_start, slot_len,
    follow_len, offset, pool_int, pool_float, n_rows, tolerance, n_leaves,
    odds, base, reads, out,
):  # fmt: skip
    """The row-by-row walk's probabilities, site by site, ``BLOCK_ROWS`` rows
    at a time (see ``tree_labels.label_probabilities``; with ``tolerance > 0``
    each row prunes the same sites as there: it meets them in the same
    order, with what is left of its own tolerance)."""
    k = out.shape[1]
    n_sites = min(
        total.shape[0], content.shape[0], child.shape[0], slot_start.shape[0],
        slot_len.shape[0], follow_len.shape[0], offset.shape[0],
    )  # fmt: skip
    if n_leaves > k:
        n_sites = min(n_sites, odds.shape[0], base.shape[0])
    n_entries = min(pool_int.shape[0], pool_float.shape[0])
    n_tests = min(outcomes.shape[1], child.shape[1])
    room = 2 * n_rows + 2  # a site is pushed once per branch of its parent
    stack_site = np.empty(room, dtype=np.int64)
    stack_rate = np.empty(room)
    stack_reach = np.empty(room)
    stack_entry = np.empty(room, dtype=np.int64)
    stack_branch = np.empty(room, dtype=np.int64)
    stack_lo = np.empty(room, dtype=np.int64)
    stack_hi = np.empty(room, dtype=np.int64)
    here = np.empty(k)
    scores = np.empty(k)
    passed = np.empty(outcomes.shape[1], dtype=np.int64)
    buffer = np.empty(4 * BLOCK_ROWS, dtype=np.int64)
    left = np.full(outcomes.shape[0], tolerance)  # each row's own tolerance
    for first in range(0, outcomes.shape[0], BLOCK_ROWS):
        last = min(first + BLOCK_ROWS, outcomes.shape[0])
        for i in range(last - first):
            buffer[i] = first + i
        top = 1
        stack_site[0] = root
        stack_rate[0] = 0.0
        stack_reach[0] = 1.0
        stack_entry[0] = -1
        stack_branch[0] = 0
        stack_lo[0] = 0
        stack_hi[0] = last - first
        while top > 0:
            top -= 1
            site = stack_site[top]
            s = stack_rate[top]
            reach = stack_reach[top]
            entry = stack_entry[top]
            labels = 2 if stack_branch[top] else 2 + k
            lo = stack_lo[top]
            hi = stack_hi[top]  # the rows above hi belong to finished frames
            rate = total[site] if 0 <= site < n_sites else 0.0
            if rate <= 0.0 or s + rate <= 0.0:  # the start leaf for ever
                reading = _reads_model(reads, site)
                for i in range(lo, hi):
                    r = buffer[i]
                    read = -1
                    if reading:
                        n_passed = passed_tests(outcomes[r], n_tests, passed)
                        read = read_label(
                            reads, odds, base, site, passed, n_passed, scores
                        )
                    if read >= 0:  # a leaf that reads its site's model
                        out[r, read] += reach
                    else:
                        add_start_labels(
                            out[r], reach, entry, labels, root_label, pool_float
                        )
                continue
            if tolerance > 0.0:  # the rows that prune this site leave the frame
                kept = lo
                for i in range(lo, hi):
                    r = buffer[i]
                    if reach <= left[r]:
                        add_start_labels(
                            out[r], reach, entry, labels, root_label, pool_float
                        )
                        left[r] -= reach
                    else:
                        buffer[kept] = r
                        kept += 1
                hi = kept
            start = slot_start[site]
            end = min(start + slot_len[site], n_entries) if start >= 0 else start
            n_follow = min(follow_len[site], max(end - start, 0))
            norm = s + rate  # fractions of it first (see tree_labels._walk)
            # The tests a row passes, where a model reads them (else unused).
            models = _reads_model(reads, site) or (
                n_leaves > k and content[site, k] > 0.0
            )
            for i in range(lo, hi):
                went = outcomes[buffer[i]]
                n_passed = passed_tests(went, n_tests, passed) if models else 0
                site_labels(
                    here, went, site, s, entry, labels, root_label, offset,
                    start, end, n_follow, pool_int, pool_float, child, total,
                    n_sites, n_tests, content, n_leaves, odds, base, scores,
                    reads, passed, n_passed,
                )  # fmt: skip
                row_out = out[buffer[i]]
                for c in range(k):
                    row_out[c] += reach * (here[c] / norm)
            # The children, each with the rows on its branch: pushed in the
            # order of the row-by-row walk, so each row meets its sites in
            # the same order there and here.
            free = hi
            for f in range(n_follow):
                at = followed_entry(pool_int, start, end, f, n_tests)
                if at < 0:
                    continue
                v = pool_int[at, 0]
                for goes in (1, 0):
                    below = live_child(child, total, reads, site, v, goes, n_sites)
                    if below < 0 or top >= room:
                        continue
                    if free + (hi - lo) > buffer.shape[0]:
                        grown = np.empty(2 * (free + hi - lo), dtype=np.int64)
                        for i in range(free):  # (a loop: a slice copy compiles strings)
                            grown[i] = buffer[i]
                        buffer = grown
                    n_going = 0
                    for i in range(lo, hi):
                        if (1 if outcomes[buffer[i], v] else 0) == goes:
                            buffer[free + n_going] = buffer[i]
                            n_going += 1
                    if n_going == 0:
                        continue
                    stack_site[top] = below
                    stack_rate[top] = s + pool_float[at, 1]
                    stack_reach[top] = reach * (pool_float[at, 0] / norm)
                    stack_entry[top] = at
                    stack_branch[top] = goes
                    stack_lo[top] = free
                    stack_hi[top] = free + n_going
                    free += n_going
                    top += 1
    return out
