"""Merging forests (:class:`LocalRegretForestClassifier`).

A forest is its members (trees of external regret that predict with their
hedge) and the combination over them. What is a sum:

* Member ``k`` is merged as a tree into member ``k`` of the other side
  (:mod:`._tree`: its regret tables, each at its own discount and on its own
  clock, its counters, its hedges).
* The forest's counters: rounds, rows, expected mistakes, weight seen, and
  ``n_drifts_`` (the drifts detected in all the rounds learnt, counted).
* The combination's AdaHedge over the vote and the members: its losses
  (the members' initial handicap counted once), its gap and its loss. A
  member taken from the other side (below) is a new expert in its slot, as
  after a replacement: the slot's loss goes on.

What must match: the parameters (but ``random_state`` and ``n_jobs``), the
classes, the features and their columns, and the members' subspaces
(``estimators_features_``, drawn from ``random_state`` when ``max_features``
is below all the columns: such forests merge only if they grew from one
model or share ``random_state``); a member merged as a tree has the tree's
checks (the same tests). A mismatch is a ``ValueError``, before any change.

What is not a sum: the bagging generators and the forest's generator are
this learner's (for ``absorb_shards``, the first shard's), and so is each
member's drift detector, unless the member is taken from the other side:
then its detector comes with it. A member taken whole draws from the
generators of the member it replaces (the random state stays this
learner's).

A member is taken whole, not added, when it is not the same tree on both
sides:

* **Replaced after a drift.** A detected drift says the old member's
  concept is gone. In ``merge``, the side whose member ``k`` has more drifts
  (``n_drifts_[k]``) wins: its member (and detector) is member ``k`` of the
  result, the other side's is dropped; with equal counts the members are
  merged as trees (they then need the same tests). In ``absorb_shards`` and
  the syncs of sharded learning, a shard that replaced member ``k`` since
  the base gives the result's member ``k`` with its detector, and the other
  shards' increments of the old member ``k`` are dropped; of several such
  shards, the one with the most drifts of it, the first on ties.
* **Unfitted on one side** (its rows so far all weighed 0): the fitted one
  is taken. In ``absorb_shards`` and the syncs, a member not settled in the
  base -- unfitted, or its tests still entering from its first rows (a tree
  replaced after a drift, for its first 256 rows) -- is taken whole from
  the first shard where it is fitted, and the other shards' rounds of it are
  dropped: their tests come from each shard's own rows and could not be
  added. Once settled, it is added as a tree.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass

import numpy as np

from ._copies import copy_model, dumps
from ._core import Merger, check_same_task
from ._sums import (
    Mark,
    SyncDelta,
    absorb_sums,
    add_sums,
    apply_sums,
    delta_sums,
    mark_sums,
    sum_deltas,
)
from ._tree import TreeMerger, check_no_new_tests, check_same_columns

__all__ = ["ForestMerger", "Taken"]


@dataclass
class Taken:
    """A member sent whole by a shard (a drift, or not settled at the sync)."""

    member: bytes  # dumps((member, detector))
    drifts: int  # its drifts in the window (0: sent as it was not settled)
    fitted: bool


def _fitted(member) -> bool:
    return getattr(member, "classes_", None) is not None


class ForestMerger(Merger):
    counters = (
        "n_rounds_",
        "n_samples_seen_",
        "n_online_mistakes_",
        "_weight_seen",
        "n_drifts_",
    )
    tree = TreeMerger()

    # -- the forest's own sums (its members' are the tree's) --------------
    def parts(self, est) -> list:
        return []  # the tables are the members'

    def counter_groups(self, est) -> list:
        # The root models' statistics and weights are sums too (the tree's).
        groups = super().counter_groups(est)
        for name, sums in (
            ("_root_gaussian", self.tree.gaussian_sums),
            ("_root_linear", self.tree.linear_sums),
        ):
            model = est.__dict__.get(name)
            if model is not None:
                groups.append((model, sums, ()))
        return groups

    # -- checks -------------------------------------------------------------
    def check(self, dst, src) -> None:
        _check_same_forest(dst, src)
        for k, (mine, theirs) in enumerate(zip(dst.estimators_, src.estimators_)):
            if _merge_choice(dst, src, k) == "merge":
                self._check_member(k, mine, theirs)

    def check_shard(self, base, shard) -> None:
        _check_same_forest(base, shard)
        for k, (mine, theirs) in enumerate(zip(base.estimators_, shard.estimators_)):
            if shard.n_drifts_[k] == base.n_drifts_[k] and self.tree.ready(mine):
                self._check_member(k, mine, theirs)

    def _check_member(self, k: int, mine, theirs) -> None:
        try:
            self.tree.check(mine, theirs)
        except ValueError as error:
            raise ValueError(f"member {k}: {error}") from error

    # -- merge and absorb ---------------------------------------------------
    def merge(self, dst, src) -> None:
        choices = [_merge_choice(dst, src, k) for k in range(len(dst.estimators_))]
        add_sums(self, dst, src)  # n_drifts_ too: decided before
        for k, choice in enumerate(choices):
            if choice == "merge":
                self.tree.merge(dst.estimators_[k], src.estimators_[k])
            elif choice == "take":
                self._take(dst, k, copy_model(src.estimators_[k]), src._detectors[k])

    def absorb(self, result, base, shards: list) -> None:
        n = len(base.estimators_)
        choices = [_shard_choice(self.tree, base, shards, k) for k in range(n)]
        absorb_sums(self, result, base, shards)
        for k, winner in enumerate(choices):
            if winner is None:
                members = [shard.estimators_[k] for shard in shards]
                self.tree.absorb(result.estimators_[k], base.estimators_[k], members)
            elif winner > 0:  # the result is a copy of the first shard
                shard = shards[winner]
                self._take(
                    result, k, copy_model(shard.estimators_[k]), shard._detectors[k]
                )

    def _take(self, est, k: int, member, detector) -> None:
        """Member ``k`` of ``est`` becomes ``member`` (a copy), with its
        detector; it draws from the generators of the member it replaces."""
        self.tree.keep_generators(member, est.estimators_[k])
        est.estimators_[k] = member
        est._detectors[k] = copy.deepcopy(detector)

    # -- syncs ----------------------------------------------------------------
    def mark(self, est) -> Mark:
        mark = mark_sums(self, est)
        mark.members = [
            (int(drifts), self.tree.mark(member) if self.tree.ready(member) else None)
            for member, drifts in zip(est.estimators_, est.n_drifts_)
        ]
        return mark

    def delta(self, est, mark: Mark) -> SyncDelta:
        delta = delta_sums(self, est, mark)
        for k, (member, (drifts, before)) in enumerate(
            zip(est.estimators_, mark.members)
        ):
            new_drifts = int(est.n_drifts_[k]) - drifts
            if new_drifts > 0 or before is None:
                whole = dumps((member, est._detectors[k]))
                delta.members.append(Taken(whole, new_drifts, _fitted(member)))
            else:
                check_no_new_tests(
                    member,
                    before.tests,
                    est.__dict__.get("feature_names_in_"),
                    est.estimators_features_[k],
                )
                delta.members.append(self.tree.delta(member, before))
        return delta

    def sum_deltas(self, deltas: list[SyncDelta]) -> SyncDelta:
        total = sum_deltas(self, deltas)
        total.members = [
            self._sum_member([delta.members[k] for delta in deltas])
            for k in range(len(deltas[0].members))
        ]
        return total

    def _sum_member(self, entries: list):
        """Member ``k``'s entries of the shards: a member taken whole (the
        most drifts, the first on ties; else the first fitted), or the sum
        of the tree's deltas."""
        taken = [entry for entry in entries if isinstance(entry, Taken)]
        if not taken:
            return self.tree.sum_deltas(entries)
        drifted = [entry for entry in taken if entry.drifts > 0]
        if drifted:
            return max(drifted, key=lambda entry: entry.drifts)
        fitted = [entry for entry in taken if entry.fitted]
        return fitted[0] if fitted else taken[0]

    def apply(self, est, mark: Mark, own: SyncDelta, total: SyncDelta) -> None:
        apply_sums(self, est, mark, own, total)
        for k, entry in enumerate(total.members):
            if isinstance(entry, Taken):
                member, detector = pickle.loads(entry.member)
                self._take(est, k, member, detector)
            else:
                member = est.estimators_[k]
                self.tree.apply(member, mark.members[k][1], own.members[k], entry)

    # -- shards -------------------------------------------------------------
    def reseed(self, est, seed: int) -> None:
        # The forest's generator from ``seed``; each member's draws and
        # bagging weights from seeds spawned from it.
        est._rng = np.random.default_rng(seed)
        n = len(est.estimators_)
        seeds = np.random.SeedSequence(seed).generate_state(2 * n, dtype=np.uint64)
        for k, member in enumerate(est.estimators_):
            self.tree.reseed(member, int(seeds[k]))
            est._bagging_rngs[k] = np.random.default_rng(int(seeds[n + k]))

    def ready(self, est) -> bool:
        return all(self.tree.ready(member) for member in est.estimators_)


def _check_same_forest(dst, src) -> None:
    # n_jobs: the model is the same for every n_jobs.
    check_same_task(dst, src, ignore=("random_state", "n_jobs"))
    check_same_columns(dst._columns, src._columns)
    for k, (mine, theirs) in enumerate(
        zip(dst.estimators_features_, src.estimators_features_)
    ):
        if not np.array_equal(mine, theirs):
            raise ValueError(
                f"the forests' subspaces differ: member {k} reads columns "
                f"{mine.tolist()} here and {theirs.tolist()} in the other "
                "(estimators_features_ are drawn from random_state: merge "
                "forests grown from one model, or of the same random_state)"
            )


def _merge_choice(dst, src, k: int) -> str:
    """``merge`` of member ``k``: "keep" this side's, "take" the other's, or
    "merge" them as trees."""
    mine, theirs = int(dst.n_drifts_[k]), int(src.n_drifts_[k])
    if mine != theirs:  # the side with more drifts has the newer concept
        return "take" if theirs > mine else "keep"
    if not _fitted(src.estimators_[k]):
        return "keep"
    if not _fitted(dst.estimators_[k]):
        return "take"
    return "merge"


def _shard_choice(tree: TreeMerger, base, shards: list, k: int) -> int | None:
    """``absorb_shards`` of member ``k``: the shard whose member is taken
    whole, or None to add the shards' increments as trees."""
    before = int(base.n_drifts_[k])
    drifts = [int(shard.n_drifts_[k]) - before for shard in shards]
    if max(drifts) > 0:
        return drifts.index(max(drifts))  # the first with the most
    if not tree.ready(base.estimators_[k]):  # not settled in the base
        fitted = [i for i, shard in enumerate(shards) if _fitted(shard.estimators_[k])]
        return fitted[0] if fitted else 0
    return None
