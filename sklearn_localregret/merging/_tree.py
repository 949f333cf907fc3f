"""Merging decision-tree learners (:class:`LocalRegretTreeClassifier`).

The state that is a sum: the regret table (one row per path for external
regret, per ``(tree, path)`` for swap regret; the stump factors, leaf
regrets and costs of a row add up, :mod:`sklearn_localregret.engine.merge`),
its clock, the counters (rounds, rows, mistakes, chain draws) and the
hedge. A model leaf's naive Bayes counts are the site's stump factors, so
they add up with them.

What is not a sum, and what the merge does with it:

* The tests (thresholds, categories): both learners must have the same
  tests, in the same order -- a test's number is in every path. Thresholds
  come from the first rows of a stream (a quantile summary), so two learners
  that started on different rows usually differ: merge learners that grew
  from one common model (sharded learning), or binarised ones
  (``binarize=t``: the same tests for every stream), or 0/1 features. A
  mismatch is a ``ValueError`` naming the first test that differs.
* The window of recent rows of the warm start, the last played tree, the
  random state: this learner's are kept.
"""

from __future__ import annotations

import numpy as np

from ..engine.merge import (
    add_rows,
    changed_rows_difference,
    check_same_layout,
    snapshot,
)
from ._core import Merger, check_same_task

__all__ = ["TreeMerger"]


class TreeMerger(Merger):
    counters = (
        "n_rounds_",
        "n_samples_seen_",
        "n_online_mistakes_",
        "_weight_seen",
        "n_mcmc_draws_",
    )
    largest = ("_largest_round",)

    def check(self, dst, src) -> None:
        for est in (dst, src):
            if est.__dict__.get("_players") is not None:
                raise ValueError(
                    "cannot merge a tree with several discount players "
                    f"(discount={est.discount!r}): each player has its own table "
                    "and plays; merge learners of one discount"
                )
        check_same_task(dst, src)
        _check_same_tests(dst._tests, src._tests)
        mine, theirs = dst._columns, src._columns
        if mine.kinds.tolist() != theirs.kinds.tolist() or [
            list(c) if c is not None else None for c in mine.categories
        ] != [list(c) if c is not None else None for c in theirs.categories]:
            raise ValueError(
                "the learners' categorical columns differ (their categories or "
                "the codes of them): merge learners that grew from one model"
            )
        check_same_layout(dst._player.table, src._player.table)

    def state(self, est):
        return est._player.table

    def add_state(self, dst, src, coef: float) -> None:
        add_rows(dst, src, coef)

    def snapshot(self, state):
        return snapshot(state)

    def difference(self, now, before, coef: float):
        # Sparse: a window of rounds touches the rows of the trees it played.
        return changed_rows_difference(now, before, coef)

    def refresh(self, est) -> None:
        # The player renews its samplers and caches around the summed table.
        est._player.absorbed()
        memory = est.__dict__.get("_last_proba")
        if memory is not None:
            memory[0] = None


def _check_same_tests(mine, theirs) -> None:
    """Same tests, numbered alike: ``ValueError`` naming the first that differs."""
    n, m = mine.n_tests, theirs.n_tests
    for i in range(min(n, m)):
        a = (int(mine.feature[i]), float(mine.threshold[i]), int(mine.kind[i]))
        b = (int(theirs.feature[i]), float(theirs.threshold[i]), int(theirs.kind[i]))
        if a != b:
            raise ValueError(
                f"the learners' tests differ: test {i} is (feature, threshold, "
                f"kind) {a} here and {b} in the other; trees on different tests "
                "cannot be added (merge learners grown from one model, or set "
                "binarize)"
            )
    if n != m:
        raise ValueError(
            f"the learners' tests differ: {n} tests here and {m} in the other"
        )
    if not np.array_equal(mine.missing, theirs.missing):
        raise ValueError("the learners' columns with missing values differ")
