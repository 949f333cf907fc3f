"""Draw a tree from the hierarchical stationary distribution, compiled.

The exact top-down draw of
:class:`~sklearn_localregret.engine.HierarchicalSampler` (:ref:`engine-trees`)
over the table's arrays, with the table rows of a path's children read from a
:class:`~sklearn_localregret.engine.path_index.PathIndex`. It reads the
uniforms in exactly the order of the Python draw, so that the same seed plays
the same trees: per site with positive weight, the clock (when the site's
horizon is finite), the content, and for a split its label pair and its age
(one uniform with an infinite horizon and ``q > 0``, none with ``q = 0``, two
with a finite horizon). The drawn tree is written in pre-order (true child
first) into node arrays.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel
from .pair_sums import ROUNDING
from .sort_order import search_right

__all__ = ["NEED_UNIFORMS", "draw_tree"]

# draw_tree's answer when the uniforms given ran out (give more, draw again).
NEED_UNIFORMS = -1


@kernel
def _truncated_exponential(rate, upper, u):
    """Exp(``rate``) conditioned on ``<= upper``, by inversion of ``u``."""
    if rate * upper <= 0.0:
        return u * upper
    return -math.log1p(u * math.expm1(-rate * upper)) / rate


@kernel
def _choose(cdf, weights, u):
    """Index ``i`` with probability ``weights[i] / sum`` (``cdf``: running sums)."""
    n = weights.shape[0]
    index = search_right(cdf, u * cdf[n - 1])  # (np.searchsorted's "right")
    # The float edge u * total == cdf[-1], and zero-weight tails.
    while index >= n or weights[index] <= 0.0:
        index -= 1
    return index


@kernel
def _pair_weights(a, b, c, out, running):
    """``Rtilde+`` of the label pairs ``(i, j)`` at ``i * K + j``, rounding as
    ``stump_pairs``, and their running sums."""
    k = a.shape[0]
    total = 0.0
    for i in range(k):
        for j in range(k):
            value = a[i] + b[j] - c
            if not (
                value > 0.0 and value > ROUNDING * (abs(a[i]) + abs(b[j]) + abs(c))
            ):
                value = 0.0
            out[i * k + j] = value
            total += value
            running[i * k + j] = total


@kernel
def draw_tree(
    root, root_label, content, cdf, total, child, true, false, cost, n_tests,
    n_leaves, uniforms, node_test, node_label, node_true, node_false, node_row,
    node_parent, node_branch,
):  # fmt: skip
    """Draw one tree; return its number of nodes, or ``NEED_UNIFORMS``.

    Node ``i`` (pre-order, 0 the root) is a split on ``node_test[i]`` with
    children ``node_true[i]``, ``node_false[i]``, or a leaf ``node_label[i]``
    (``node_test[i] = -1``; the table's leaf colours: label ``K`` is the model
    leaf when ``n_leaves = K + 1``); ``node_row[i]`` is its site's table row (-1 if the
    site has none: then it is a leaf), ``node_parent[i]`` and
    ``node_branch[i]`` its parent and the branch it hangs on (-1 at the root).
    The node arrays need room for ``2 * n_rows + 1`` nodes.
    """
    k = true.shape[2]
    pairs = np.empty(k * k)
    pair_cdf = np.empty(k * k)
    width = n_leaves + n_tests
    n = node_test.shape[0]
    # Pending sites: parent node, branch, row, start label, horizon.
    stack_parent = np.empty(n, dtype=np.int64)
    stack_branch = np.empty(n, dtype=np.int64)
    stack_row = np.empty(n, dtype=np.int64)
    stack_label = np.empty(n, dtype=np.int64)
    stack_horizon = np.empty(n)
    stack_parent[0] = -1
    stack_branch[0] = -1
    stack_row[0] = root
    stack_label[0] = root_label
    stack_horizon[0] = math.inf
    top = 1
    used = 0  # uniforms read
    nodes = 0
    while top > 0:
        top -= 1
        node = nodes
        nodes += 1
        parent = stack_parent[top]
        node_parent[node] = parent
        node_branch[node] = stack_branch[top]
        if parent >= 0:
            if stack_branch[top] == 1:
                node_true[parent] = node
            else:
                node_false[parent] = node
        row = stack_row[top]
        start = stack_label[top]
        horizon = stack_horizon[top]
        node_row[node] = row
        node_test[node] = -1
        node_label[node] = start
        node_true[node] = -1
        node_false[node] = -1
        if row < 0 or total[row] <= 0.0:
            continue
        rate = total[row]
        if horizon < math.inf:
            # The clock (rate W) never rang during the horizon: the start leaf.
            if used == uniforms.shape[0]:
                return NEED_UNIFORMS
            used += 1
            if uniforms[used - 1] < math.exp(-rate * horizon):
                continue
        if used == uniforms.shape[0]:
            return NEED_UNIFORMS
        used += 1
        chosen = _choose(cdf[row, :width], content[row, :width], uniforms[used - 1])
        if chosen < n_leaves:
            node_label[node] = chosen
            continue
        v = chosen - n_leaves
        w = content[row, chosen]
        q = rate - w
        if q <= 1e-9 * rate:  # cancellation: exactly 0 when v holds all
            before = 0.0
            for x in range(chosen):
                before += content[row, x]
            after = 0.0
            for x in range(chosen + 1, width):
                after += content[row, x]
            q = before + after
        _pair_weights(true[row, v], false[row, v], cost[row, 0, v], pairs, pair_cdf)
        if used == uniforms.shape[0]:
            return NEED_UNIFORMS
        used += 1
        pair = _choose(pair_cdf, pairs, uniforms[used - 1])
        # The age of the split's run (its children's horizon).
        if horizon == math.inf:
            if q > 0.0:
                if used == uniforms.shape[0]:
                    return NEED_UNIFORMS
                used += 1
                age = -math.log1p(-uniforms[used - 1]) / q
            else:
                age = math.inf
        else:
            if used + 2 > uniforms.shape[0]:
                return NEED_UNIFORMS
            used += 2
            ever = math.expm1(-rate * horizon)
            # (rate * horizon can underflow to 0: then the ratio's limit q / W)
            fresh = math.expm1(-q * horizon) / ever if ever != 0.0 else q / rate
            if uniforms[used - 2] < fresh:
                age = _truncated_exponential(q, horizon, uniforms[used - 1])
            else:
                age = horizon - _truncated_exponential(w, horizon, uniforms[used - 1])
        node_test[node] = v
        node_label[node] = -1
        # The false child waits below the true one: pre-order, true first.
        for branch in range(2):
            stack_parent[top] = node
            stack_branch[top] = branch
            stack_row[top] = child[row, v, branch]
            stack_label[top] = pair % k if branch == 0 else pair // k
            stack_horizon[top] = age
            top += 1
    return nodes
