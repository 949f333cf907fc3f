"""A round of the tree colouring on flat arrays, compiled.

The statistics of
:meth:`~sklearn_localregret.locality.tree_coloring.TreeColoring.round_statistics`
(which rows reach each node of the played tree, per label, per test) and its
edge masks
(:meth:`~sklearn_localregret.locality.tree_coloring.TreeColoring.available_tests`:
a test is a stump colour at a node unless the node's path already decides it,
or the node splits on it), fed to the engine's compiled update
(:func:`~sklearn_localregret.engine.compiled.stump_update.update_site`) site by
site. The played tree is given as pre-order node arrays
(:class:`~sklearn_localregret.locality.flat_tree.FlatTree`).
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.jit import kernel
from ..engine.compiled.leaf_model import (
    majority_label,
    model_label,
    model_label_passed,
    passed_tests,
)
from ..engine.compiled.pair_sums import refresh_row
from ..engine.compiled.stump_update import update_site

__all__ = ["path_masks", "update_played_sites"]


# Kinds of test (sklearn_localregret.thresholds.catalog), as the kernels read
# them from ``feature_kind = _N_KINDS * feature + kind``.
_GREATER, _GREATER_OR_MISSING, _EQUALS, _N_KINDS = 0, 1, 2, 3


@kernel
def _undecided(lo, hi, missing, t, kind):
    """Whether ``x > t`` (``kind``) goes both ways on ``lo < x <= hi`` plus,
    if ``missing``, the missing value."""
    passes = fails = False
    if lo < hi:  # values are left
        if lo < t < hi:
            return True
        passes, fails = t <= lo, t >= hi
    if missing:
        if kind == _GREATER_OR_MISSING:
            passes = True
        else:
            fails = True
    return passes and fails


@kernel
def _check_tree(n_nodes, node_test, node_parent, node_branch, n_tests, n_rows):
    """Refuse a compiled tree the kernels would index out of bounds with:
    arrays shorter than its nodes (or ``n_rows`` fewer), a test that is not
    one of ``n_tests``, a parent that does not come before its child."""
    if (
        n_nodes > n_rows
        or n_nodes > node_test.shape[0]
        or n_nodes > node_parent.shape[0]
        or n_nodes > node_branch.shape[0]
    ):
        raise ValueError("a compiled tree: arrays shorter than its nodes")
    for i in range(n_nodes):
        if not (-1 <= node_test[i] < n_tests and -1 <= node_parent[i] < i):
            raise ValueError("a compiled tree: a test or a parent out of range")


@kernel
def path_masks(n_nodes, node_test, node_parent, node_branch, feature, threshold, out):
    """Which tests each node's path leaves undecided, into ``out[node]``.

    ``feature`` is each test's ``3 * column + kind``
    (:attr:`~sklearn_localregret.thresholds.ThresholdTests.feature_kind`).
    Along a path the threshold tests of column ``j`` bound ``x_j`` to
    ``lo < x_j <= hi`` and say whether a missing ``x_j`` can still be there
    (it took the branch of each test where missing rows go); a threshold test
    is undecided when some of those values pass it and some fail. An equality
    test ``x_j == c`` is decided once the path passed an equality test on
    ``j``, or failed this one. Nodes are in pre-order: a node's mask is its
    parent's, narrowed on the column of the parent's test, so only that
    column's tests are looked at again (listed by column once per call).
    """
    n_tests = out.shape[1]
    _check_tree(n_nodes, node_test, node_parent, node_branch, n_tests, out.shape[0])
    if feature.shape[0] < n_tests or threshold.shape[0] < n_tests:
        raise ValueError("path_masks: feature and threshold need one entry a test")
    # The tests of each column, grouped (a counting sort): by_column[first[j]:
    # first[j + 1]].
    n_columns = 0
    for v in range(n_tests):
        n_columns = max(n_columns, feature[v] // _N_KINDS + 1)
    first = np.zeros(n_columns + 1, dtype=np.int64)
    for v in range(n_tests):
        first[feature[v] // _N_KINDS + 1] += 1
    for j in range(n_columns):
        first[j + 1] += first[j]
    by_column = np.empty(n_tests, dtype=np.int64)
    filled = first[:n_columns].copy()
    for v in range(n_tests):
        j = feature[v] // _N_KINDS
        by_column[filled[j]] = v
        filled[j] += 1
    for v in range(n_tests):
        out[0, v] = True
    for node in range(1, n_nodes):
        parent = node_parent[node]
        for v in range(n_tests):
            out[node, v] = out[parent, v]
        on_path = node_test[parent]
        j = feature[on_path] // _N_KINDS
        above = node_branch[node] == 1  # the parent's test passed here
        if feature[on_path] % _N_KINDS == _EQUALS:
            for at in range(first[j], first[j + 1]):
                v = by_column[at]
                if out[node, v]:
                    out[node, v] = not above and v != on_path
            continue
        # The bounds on column j along the path, from the node up.
        lo, hi, missing = -np.inf, np.inf, True
        child = node
        while child > 0:
            up = node_parent[child]
            u = node_test[up]
            if feature[u] // _N_KINDS == j and feature[u] % _N_KINDS != _EQUALS:
                passes_missing = feature[u] % _N_KINDS == _GREATER_OR_MISSING
                if node_branch[child] == 1:
                    lo = max(lo, threshold[u])
                    missing = missing and passes_missing
                else:
                    hi = min(hi, threshold[u])
                    missing = missing and not passes_missing
            child = up
        for at in range(first[j], first[j + 1]):
            v = by_column[at]
            kind = feature[v] % _N_KINDS
            if out[node, v] and kind != _EQUALS:
                out[node, v] = _undecided(lo, hi, missing, threshold[v], kind)


@kernel
def _node_depth(node, node_parent):
    depth = 0
    while node_parent[node] >= 0:
        depth += 1
        node = node_parent[node]
    return depth


@kernel
def update_played_sites(
    nodes, n_nodes, node_test, node_label, node_true, node_false, node_row,
    node_parent, node_branch, outcomes, y, weight, order, feature, threshold,
    max_depth, scale, bias, n_tests, leaf, true, false, cost, versions, seen,
    content, cdf, total, odds, base, model_scale, reads, score_reads, partner,
    next_threshold,
):  # fmt: skip
    """One update of the sites of ``nodes`` of the played tree; the weight of
    the rows it gets wrong.

    The rows ``order[0], order[1], ...`` of ``outcomes``, class indices ``y``
    and ``weight`` (in that order: a ring buffer is read oldest first, without
    a copy) are routed down the played tree. Each node of ``nodes`` gains,
    for the rows that reach it, the leaf and stump gains of
    :class:`~sklearn_localregret.engine.StumpRegretTable` (leaf ``c``: class
    weight minus what the played subtree gets right; stump ``(v, c1, c2)``:
    the factors ``S_true``, ``S_false`` and ``B``), with the bias ``bias`` on
    every colour that is an edge; a node no row reaches is left as it is
    when ``bias`` is 0 (nothing to add). Each updated row's content weights
    (``seen``, ``content``, ``cdf``, ``total``, and with model leaves the
    naive Bayes cache ``odds``, ``base``: the table's cache) are recomputed
    at once, while the row is in cache; ``model_scale[row]`` records the
    scale of the row's last update that counted rows (its model's
    smoothing), and a node no weight reached keeps its fresh model cache;
    ``partner`` and ``next_threshold`` are the table's pairs of missing-value
    variants and chains of thresholds.

    With model leaves (``leaf`` has ``K + 1`` colours), a node labelled ``K``
    is a model leaf: it predicts with its site's naive Bayes model as it
    stood before the round, and every node's model leaf colour gains what
    that model gets right minus what the played subtree gets right.

    With ``score_reads`` (a table with model reads: a naive Bayes cache
    without model leaves, or with them), each node's site also adds, in
    stored units, the weight of its rows that its model as it stood before
    the round gets right to ``reads[row, 0]`` and the weight its majority
    label (:func:`majority_label`) gets right to ``reads[row, 1]``: the
    prequential scores that adaptive leaf reads compare. A site that has
    counted no row yet scores nothing.
    """
    k = true.shape[2]
    # A NaN or infinite weight (or scale, bias) would turn the regrets it
    # reaches into NaN for good: refused before any write, like the rows.
    if not (np.isfinite(scale) and np.isfinite(bias)):
        raise ValueError("update_played_sites: a scale or bias not finite")
    for at in range(order.shape[0]):  # the rows read: in range, labels classes
        r = order[at]
        if not (0 <= r < min(y.shape[0], weight.shape[0], outcomes.shape[0])):
            raise ValueError("update_played_sites: a row out of range")
        if not 0 <= y[r] < k:
            raise ValueError("update_played_sites: a label that is not a class")
        if not np.isfinite(weight[r]):
            raise ValueError("update_played_sites: a weight that is not finite")
    shortest = min(node_label.shape[0], node_true.shape[0], node_false.shape[0])
    _check_tree(n_nodes, node_test, node_parent, node_branch, n_tests, shortest)
    for node in nodes:
        if not (0 <= node < n_nodes and 0 <= node_row[node] < true.shape[0]):
            raise ValueError("update_played_sites: a node or its site out of range")
    model = leaf.shape[2] > k
    cache = odds.shape[1] > 0  # a naive Bayes cache per site
    score_reads = score_reads and cache
    scores = np.empty(k)
    m = order.shape[0]
    # Route every row: which nodes it reaches, and the played tree's answer.
    reaches = np.zeros((n_nodes, m), dtype=np.bool_)
    right = np.zeros(m)
    wrong = 0.0
    for at in range(m):
        r = order[at]
        i = 0
        while True:
            reaches[i, at] = True
            v = node_test[i]
            if v < 0:
                break
            i = node_true[i] if outcomes[r, v] else node_false[i]
        label = node_label[i]
        if label == k:  # a model leaf
            label = model_label(odds, base, node_row[i], outcomes[r], n_tests, scores)
        if label == y[r]:
            right[at] = weight[r]
        else:
            wrong += weight[r]
    masks = np.empty((n_nodes, n_tests), dtype=np.bool_)
    path_masks(n_nodes, node_test, node_parent, node_branch, feature, threshold, masks)
    class_counts = np.zeros(k)
    true_counts = np.zeros((k, n_tests))  # per label: contiguous over tests
    available = np.empty(n_tests, dtype=np.bool_)
    # The tests each row passes: a site's model reads sum their log odds only.
    # Only a model leaf or scored reads read them (not a warm start's
    # hundreds of rows, whose m x n_tests list would cost more than the round).
    reads_models = cache and (model or score_reads)
    passed = np.empty((m, n_tests if reads_models else 0), dtype=np.int64)
    n_passed = np.zeros(m, dtype=np.int64)
    if reads_models:
        for at in range(m):
            n_passed[at] = passed_tests(outcomes[order[at]], n_tests, passed[at])
    for node in nodes:
        class_counts[:] = 0.0
        true_counts[:] = 0.0
        correct = 0.0
        model_correct = 0.0
        majority_correct = 0.0
        majority = -1
        n_reached = 0  # (a count: a bool flag would type as literal False
        # first, and update_site would be compiled once more for that)
        for at in range(m):
            if not reaches[node, at]:
                continue
            if score_reads and n_reached == 0:  # read once, and only if reached
                majority = majority_label(true, false, node_row[node], n_tests)
            n_reached += 1
            r = order[at]
            c = y[r]
            w = weight[r]
            class_counts[c] += w
            correct += right[at]
            if (model or majority >= 0) and (
                model_label_passed(
                    odds, base, node_row[node], passed[at], n_passed[at], scores
                )
                == c
            ):
                model_correct += w
            if majority == c:
                majority_correct += w
            for v in range(n_tests):  # adding 0.0 where it fails: no branch
                true_counts[c, v] += w * outcomes[r, v]
        if n_reached == 0 and bias == 0.0:
            # Nothing to add (a node its rows miss in a round without bias,
            # ``L=None``; a warm start's site no recent row reaches): the
            # site, its version and its caches stay as they are.
            continue
        # Stump colours are edges where the path leaves the test undecided,
        # the node does not split on it, and the depth limit allows.
        if 0 <= max_depth <= _node_depth(node, node_parent):
            available[:] = False
        else:
            # A loop, not ``available[:] = masks[node]``: numba's array copy
            # compiles a shape-mismatch message (strings: ~2 s cold).
            for v in range(n_tests):
                available[v] = masks[node, v]
            if node_test[node] >= 0:
                available[node_test[node]] = False
        row = node_row[node]
        # No weight reached the site: its counts, hence its naive Bayes model
        # (smoothed at the scale of their last change), stay as they are, and
        # so does its cache if it was fresh (most played nodes of a round).
        counted = class_counts.sum() > 0.0
        model_fresh = cache and not counted and seen[row] == versions[row]
        update_site(
            row, class_counts, correct, true_counts,
            node_label[node] if node_test[node] < 0 else -1, available,
            n_reached > 0, scale, bias, n_tests, leaf, true, false, cost, versions,
            model_correct,
        )  # fmt: skip
        if majority >= 0 and n_reached > 0 and row < reads.shape[0]:
            reads[row, 0] += scale * model_correct
            reads[row, 1] += scale * majority_correct
        if cache and counted:
            model_scale[row] = scale
        refresh_row(
            leaf, true, false, cost, versions, seen, content, cdf, total,
            row, n_tests, model_scale, odds, base, partner, next_threshold,
            model_fresh,
        )  # fmt: skip
    return wrong
