"""Per-row bounds on the size of a factored stump table's regrets, compiled.

What :meth:`~sklearn_localregret.engine.StumpRegretTable.row_magnitudes`
reads to forget quiet sites: one pass over the rows whose version moved since
they were last measured, no temporaries (the numpy version allocated three
row-by-test arrays per block, and its ``max`` reductions over a table of a few
thousand sites were a fifth of a one-row streaming round, amortised).
"""

from __future__ import annotations

from .jit import kernel

__all__ = ["refresh_magnitudes"]


@kernel
def refresh_magnitudes(
    leaf, true, false, cost, versions, measured, magnitude, n_rows, n_tests
) -> None:  # fmt: skip
    """``magnitude[r]`` for every row ``r < n_rows`` with ``measured[r] !=
    versions[r]``, then ``measured[r] = versions[r]``.

    ``magnitude[r]`` is the largest of ``|leaf[r, b, c]|`` over both
    regrets ``b`` (biased, unbiased) and every leaf colour ``c``, and of
    ``max_k |true[r, v, k]| + max_k |false[r, v, k]| + max_b |cost[r, b, v]|``
    over the tests ``v``: a bound on the absolute regret of every colour of
    the row, in stored units. ``n_rows`` and ``n_tests`` are clamped to the
    arrays' sizes.
    """
    n_rows = min(
        n_rows, leaf.shape[0], true.shape[0], false.shape[0], cost.shape[0],
        versions.shape[0], measured.shape[0], magnitude.shape[0],
    )  # fmt: skip
    n_tests = min(n_tests, true.shape[1], false.shape[1], cost.shape[2])
    k = true.shape[2]
    for r in range(n_rows):
        if measured[r] == versions[r]:
            continue
        bound = 0.0
        for b in range(leaf.shape[1]):
            for c in range(leaf.shape[2]):
                bound = max(bound, abs(leaf[r, b, c]))
        for v in range(n_tests):
            top_true = 0.0
            top_false = 0.0
            for j in range(k):
                top_true = max(top_true, abs(true[r, v, j]))
                top_false = max(top_false, abs(false[r, v, j]))
            top_cost = 0.0
            for b in range(cost.shape[1]):
                top_cost = max(top_cost, abs(cost[r, b, v]))
            bound = max(bound, top_true + top_false + top_cost)
        magnitude[r] = bound
        measured[r] = versions[r]
