"""Merging decision-tree learners (:class:`LocalRegretTreeClassifier`).

The state that is a sum: the regret table (one row per path for external
regret, per ``(tree, path)`` for swap regret; the stump factors, leaf
regrets and costs of a row add up, :mod:`sklearn_localregret.engine.merge`),
its clock, the counters (rounds, rows, mistakes, chain draws) and the
hedge. A model leaf's naive Bayes counts are the site's stump factors, so
they add up with them.

Several discounts (``discount="auto"`` or a tuple): each discount is a
player (:mod:`sklearn_localregret._discount_players`) with its own table, at
its own discount and on its own clock, and its own chain draws. Player
``j``'s table is added to player ``j``'s of the other side (one part each,
:mod:`._sums`: discounted with its own discount over its own rounds), and
the AdaHedge over the players adds up as the vote/play hedge does (its
losses start at 0). The player that is active (whose state the estimator
holds, the leader at the end of the last call) stays the one it was.

What is not a sum, and what the merge does with it:

* The tests (thresholds, categories): both learners must have the same
  tests, in the same order -- a test's number is in every path. Thresholds
  come from the first rows of a stream (a quantile summary), so two learners
  that started on different rows usually differ: merge learners that grew
  from one common model (sharded learning), or binarised ones
  (``binarize=t``: the same tests for every stream), or 0/1 features. A
  mismatch is a ``ValueError`` naming the first test that differs.
* The window of recent rows of the warm start, the last played tree, the
  random state (each player's generator): this learner's are kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.merge import (
    add_rows,
    changed_rows_difference,
    check_same_layout,
    snapshot,
)
from ..thresholds.catalog import EQUALS, GREATER_OR_MISSING
from ._core import Merger, check_same_task
from ._sums import apply_sums

__all__ = [
    "TreeMerger",
    "check_no_new_tests",
    "check_same_columns",
    "tree_players",
]


def tree_players(est) -> list:
    """The tree learner's players, in discount order (one without several
    discounts): the active one's is the estimator's ``_player``."""
    return _each_players(est, "_player")


def _each_players(est, name: str) -> list:
    """Attribute ``name`` of each discount player's state, in discount order:
    the active player's is the estimator's own."""
    players = est.__dict__.get("_players")
    if players is None:
        return [getattr(est, name)]
    return [
        getattr(est, name) if j == players.active else state[name]
        for j, state in enumerate(players.states)
    ]


class TreeMerger(Merger):
    counters = ("n_rounds_", "n_samples_seen_", "n_online_mistakes_", "_weight_seen")
    # Each player's own: its chain draws (summed) and its scale of forgetting.
    player_counters = ("n_mcmc_draws",)
    player_largest = ("largest_round",)

    def check(self, dst, src) -> None:
        check_same_task(dst, src)
        _check_same_tests(dst._tests, src._tests)
        _check_same_admitted(dst._wide_columns(), src._wide_columns())
        check_same_columns(dst._columns, src._columns)
        mine, theirs = tree_players(dst), tree_players(src)
        if len(mine) != len(theirs):  # pragma: no cover - the same discount
            raise ValueError(
                f"the learners' players differ: {len(mine)} and {len(theirs)}"
            )
        for a, b in zip(mine, theirs):
            check_same_layout(a.table, b.table)

    def state(self, est):
        return est._player.table

    def parts(self, est) -> list:
        return [player.table for player in tree_players(est)]

    # The root's Gaussian model (the hedge's expert): sums, each side
    # discounted at its own last round, as the tables are.
    gaussian_sums = ("weight", "count", "total", "squares")
    # The root's linear model: its weights are the sums of its steps (each
    # side's, taken on its own rows and scaling), its columns' statistics
    # sums of the rows.
    linear_sums = ("coef", "intercept", "count", "total", "squares")

    def counter_groups(self, est) -> list:
        groups: list[tuple[Any, tuple, tuple]] = [(est, self.counters, ())]
        groups += [
            (player, self.player_counters, self.player_largest)
            for player in tree_players(est)
        ]
        for name, sums in (
            ("_root_gaussian", self.gaussian_sums),
            ("_root_linear", self.linear_sums),
        ):
            model = est.__dict__.get(name)
            if model is not None:
                groups.append((model, sums, ()))
        return groups

    def hedges(self, est) -> list:
        hedges = super().hedges(est)
        players = est.__dict__.get("_players")
        if players is not None:  # AdaHedge over the players: losses from 0
            hedges.append((players.hedge, np.zeros(len(players))))
        return hedges

    def add_state(self, dst, src, coef: float) -> None:
        add_rows(dst, src, coef)

    def snapshot(self, state):
        return snapshot(state)

    def mark(self, est):
        mark = super().mark(est)
        mark.tests = est._tests.n_tests
        return mark

    def delta(self, est, mark):
        names = est.__dict__.get("feature_names_in_")
        check_no_new_tests(est, mark.tests, names)
        return super().delta(est, mark)

    def difference(self, now, before, coef: float):
        # Sparse: a window of rounds touches the rows of the trees it played.
        return changed_rows_difference(now, before, coef)

    def apply(self, est, mark, own, total) -> None:
        apply_sums(self, est, mark, own, total)
        # The other shards' rounds decayed the whole table at once: forget
        # the sites that are quiet now, as one learner would have over those
        # rounds, so that the table follows the sites in play and not every
        # site the window's shards ever touched; before the caches are
        # refreshed, which would otherwise renew the sites forgotten next.
        for player in tree_players(est):
            forget = getattr(player, "forget_quiet_sites", None)
            if forget is not None:
                forget()
        self.refresh(est)

    def refresh(self, est) -> None:
        # Each player renews its samplers and caches around its summed table.
        for player in tree_players(est):
            player.absorbed()
        memory = est.__dict__.get("_last_proba")
        if memory is not None:
            memory[0] = None
        players = est.__dict__.get("_players")
        if players is not None:  # the players' remembered probabilities
            players.last = None

    # -- the random state (not a sum) -----------------------------------------
    def generators(self, est) -> list:
        """Each player's generator, in discount order."""
        return _each_players(est, "_rng")

    def set_generators(self, est, generators: list) -> None:
        """Give each player its generator (:meth:`generators`' order)."""
        players = est.__dict__.get("_players")
        if players is None:
            est._rng = generators[0]
            return
        for j, generator in enumerate(generators):
            if j == players.active:
                est._rng = generator
            else:
                players.states[j]["_rng"] = generator

    def keep_generators(self, new, old) -> None:
        """``new`` (a learner taken whole in a merge) draws from ``old``'s
        generators: the random state stays this learner's."""
        if "_player" in new.__dict__ and "_player" in old.__dict__:
            generators = self.generators(old)
            if len(generators) == len(self.generators(new)):
                self.set_generators(new, generators)

    def reseed(self, est, seed: int) -> None:
        # The first player draws from ``seed`` (as a learner of one discount),
        # the others from ``(seed, j)``.
        if "_player" not in est.__dict__:
            return  # not fitted: its generators are made from random_state
        count = len(self.generators(est))
        self.set_generators(
            est,
            [
                np.random.default_rng(seed if j == 0 else [seed, j])
                for j in range(count)
            ],
        )

    def ready(self, est) -> bool:
        # Tests that differ between shards cannot be added: the shards learn
        # apart once the thresholds are settled.
        tests = est.__dict__.get("_tests")
        return tests is not None and bool(tests.complete)


def check_same_columns(mine, theirs) -> None:
    """The same kinds of columns and categories, coded alike (``ValueError``)."""
    if mine.kinds.tolist() != theirs.kinds.tolist() or [
        list(c) if c is not None else None for c in mine.categories
    ] != [list(c) if c is not None else None for c in theirs.categories]:
        raise ValueError(
            "the learners' categorical columns differ (their categories or "
            "the codes of them): merge learners that grew from one model"
        )


def check_no_new_tests(est, n_tests: int, names=None, columns=None) -> None:
    """A shard's tests are those it started with: a test entering in its
    window (a column's first missing value, a category first met) would make
    the shards' trees differ (``ValueError`` saying which and what to do).

    ``names``: the columns' names, if any; ``columns``: the column of each
    of ``est``'s features (a forest member's subspace), if not the same.
    """
    tests = est._tests
    if n_tests < 0 or tests.n_tests <= n_tests:  # (n_tests < 0: not marked)
        return
    width = tests.n_features if columns is None else None
    if names is not None and width is not None and len(names) != width:
        names = None  # a wide input's slots: not the columns
    what = []
    for test in range(n_tests, tests.n_tests):
        feature, kind = int(tests.feature[test]), int(tests.kind[test])
        if columns is not None:
            feature = int(columns[feature])
        column = f"column {feature if names is None else repr(str(names[feature]))}"
        if kind == EQUALS:
            what.append(f"a category of {column} first met")
        elif kind == GREATER_OR_MISSING:
            what.append(f"{column}'s first missing value")
        else:  # pragma: no cover - thresholds are settled before sharding
            what.append(f"a threshold of {column}")
    raise ValueError(
        "a shard met tests that entered after the shards started ("
        + "; ".join(dict.fromkeys(what))
        + "): the shards' trees would be on different tests. Encode such "
        "columns before sharding (an imputer with a missing indicator, a "
        "one-hot encoder), or let the first rows, which settle the tests, "
        "show every category and missing value (fit_sharded's Notes)."
    )


def _check_same_admitted(mine, theirs) -> None:
    """A wide input's tests read the same columns (``ValueError``)."""
    if mine is None and theirs is None:
        return
    same = mine is not None and theirs is not None
    if not same or not np.array_equal(mine.columns, theirs.columns):
        raise ValueError(
            "the learners' admitted columns differ (wide input): merge learners "
            "grown from one model once its slots are all filled"
        )


def _check_same_tests(mine, theirs) -> None:
    """Same tests, numbered alike: ``ValueError`` naming the first that differs."""
    n, m = mine.n_tests, theirs.n_tests
    if not np.array_equal(mine.missing, theirs.missing):  # (first: it adds tests)
        raise ValueError(
            "the learners' columns with missing values differ: one met a "
            "column's first missing value (which adds its tests' missing-value "
            "variants) that the other did not"
        )
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
