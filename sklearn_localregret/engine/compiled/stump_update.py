"""One site's round of the biased regret update, compiled.

The arithmetic of :meth:`~sklearn_localregret.engine.StumpRegretTable.update`
for one row, in the same order of operations, written into the table's own
arrays (``leaf``, ``true``, ``false``, ``cost``, ``versions``).
"""

from __future__ import annotations

from .jit import kernel

__all__ = ["update_site"]


@kernel
def update_site(
    row, class_counts, correct, true_counts, own_label, available, reached,
    scale, bias, n_tests, leaf, true, false, cost, versions, model_correct,
):  # fmt: skip
    """Add one round to the regrets of table row ``row``.

    Parameters
    ----------
    class_counts : (K,) weight of the rows reaching the site, per label.
    correct : weight of those the played subtree gets right.
    true_counts : (K, n_tests) weight of those passing each test, per label.
    own_label : the leaf colour the site is (no edge), or -1; ``K`` is the
        model leaf.
    available : (n_tests,) bool, tests whose stumps are edges here.
    reached : whether any row reached the site (else only the bias is paid).
    scale : the discount clock's scale; bias : the paper's ``b`` (unscaled).
    model_correct : weight of those the site's model leaf gets right (read
        only if the table has model leaves: ``leaf`` has ``K + 1`` colours).
    """
    k = class_counts.shape[0]
    n_leaves = leaf.shape[2]
    bias_scaled = bias * scale
    for c in range(n_leaves):
        if c == own_label:
            continue
        right = class_counts[c] if c < k else model_correct
        gain = (right - correct) * scale
        leaf[row, 1, c] += gain
        leaf[row, 0, c] += gain - bias_scaled
    correct_scaled = correct * scale
    for v in range(n_tests):
        if not available[v]:
            continue
        if reached:
            for c in range(k):
                passed = true_counts[c, v] * scale
                true[row, v, c] += passed
                false[row, v, c] += class_counts[c] * scale - passed
        cost[row, 1, v] += correct_scaled
        cost[row, 0, v] += correct_scaled + bias_scaled
    versions[row] += 1
