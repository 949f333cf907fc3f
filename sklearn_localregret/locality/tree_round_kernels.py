"""A round of the tree colouring on flat arrays, compiled.

The statistics of :meth:`~sklearn_localregret.locality.tree_coloring.
TreeColoring.round_statistics` (which rows reach each node of the played
tree, per label, per test) and its edge masks (:meth:`~sklearn_localregret.
locality.tree_coloring.TreeColoring.available_tests`: a test is a stump colour
at a node unless the node's path already decides it, or the node splits on
it), fed to the engine's compiled update (:func:`~sklearn_localregret.engine.
compiled.stump_update.update_site`) site by site. The played tree is given as
pre-order node arrays (:class:`~sklearn_localregret.locality.flat_tree.
FlatTree`).
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.jit import kernel
from ..engine.compiled.pair_sums import refresh_row
from ..engine.compiled.stump_update import update_site

__all__ = ["available_tests", "update_played_sites"]


@kernel
def available_tests(
    node, node_test, node_parent, node_branch, feature, threshold, max_depth,
    out,
):  # fmt: skip
    """Which tests' stumps are edges at ``node``, into the bool array ``out``.

    Along the node's path every test on feature ``j`` bounds ``x_j`` to an
    interval ``lo < x_j <= hi``; a test ``x_j > t`` is available unless it is
    decided there (``t <= lo`` or ``t >= hi``). A node at depth ``max_depth``
    (``>= 0``) has none; a split never offers its own test.
    """
    n_tests = out.shape[0]
    depth = 0
    at = node
    while node_parent[at] >= 0:
        depth += 1
        at = node_parent[at]
    if 0 <= max_depth <= depth:
        out[:] = False
        return
    out[:] = True
    at = node
    while node_parent[at] >= 0:
        parent = node_parent[at]
        on_path = node_test[parent]
        j = feature[on_path]
        t = threshold[on_path]
        for v in range(n_tests):
            if out[v] and feature[v] == j:
                # The path's test on j bounds x_j from below (true branch)
                # or from above (false branch).
                if node_branch[at] == 1:
                    if threshold[v] <= t:
                        out[v] = False
                elif threshold[v] >= t:
                    out[v] = False
        at = parent
    if node_test[node] >= 0:
        out[node_test[node]] = False


@kernel
def update_played_sites(
    nodes, n_nodes, node_test, node_label, node_true, node_false, node_row,
    node_parent, node_branch, outcomes, y, weight, order, feature, threshold,
    max_depth, scale, bias, n_tests, leaf, true, false, cost, versions, seen,
    content, cdf, total,
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
    every colour that is an edge. Each updated row's content weights
    (``seen``, ``content``, ``cdf``, ``total``:
    the table's cache) are recomputed at once, while the row is in cache.
    """
    k = leaf.shape[2]
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
        if node_label[i] == y[r]:
            right[at] = weight[r]
        else:
            wrong += weight[r]
    class_counts = np.zeros(k)
    true_counts = np.zeros((n_tests, k))
    available = np.empty(n_tests, dtype=np.bool_)
    for node in nodes:
        class_counts[:] = 0.0
        true_counts[:] = 0.0
        correct = 0.0
        reached = False
        for at in range(m):
            if not reaches[node, at]:
                continue
            reached = True
            r = order[at]
            c = y[r]
            class_counts[c] += weight[r]
            correct += right[at]
            for v in range(n_tests):
                if outcomes[r, v]:
                    true_counts[v, c] += weight[r]
        available_tests(
            node, node_test, node_parent, node_branch, feature, threshold,
            max_depth, available,
        )  # fmt: skip
        update_site(
            node_row[node], class_counts, correct, true_counts,
            node_label[node] if node_test[node] < 0 else -1, available,
            reached, scale, bias, n_tests, leaf, true, false, cost, versions,
        )  # fmt: skip
        refresh_row(
            leaf, true, false, cost, versions, seen, content, cdf, total,
            node_row[node], n_tests,
        )  # fmt: skip
    return wrong
