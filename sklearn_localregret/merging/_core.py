"""What every merge does: checks, the learner's merger, the entry points.

A learner's own part (which sums it holds, what else it checks, its caches)
is a :class:`Merger`, found by the learner's type (:func:`merger_of`); the
sums are added by :mod:`._sums`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError

from .._base.built_params import same_setting
from ..engine.keyed_rows import KeyedRows
from ._copies import copy_model, dumps
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

__all__ = [
    "Merger",
    "absorb_shards",
    "check_same_task",
    "copy_model",
    "dumps",
    "merge_into",
    "merger_of",
]


class Merger:
    """How one kind of learner merges (subclassed per learner).

    A learner's sums (:mod:`._sums`) are its :meth:`parts` (regret states,
    each with its own table and discount clock), its :meth:`counter_groups`
    and its :meth:`hedges`. ``counters`` are the learner's attributes that
    count what the rounds did (summed); ``largest`` those that keep a
    maximum over the rounds. The operations (:meth:`merge`, :meth:`absorb`
    and the sync's :meth:`mark`, :meth:`delta`, :meth:`sum_deltas`,
    :meth:`apply`) add the sums; a learner made of others (the forest)
    overrides them to run its members' mergers too.
    """

    counters: tuple[str, ...] = ()
    largest: tuple[str, ...] = ()

    # -- what must match ------------------------------------------------------
    def check(self, dst, src) -> None:
        """Raise ``ValueError`` unless ``src`` can be merged into ``dst``."""

    def check_shard(self, base, shard) -> None:
        """Raise ``ValueError`` unless ``shard``'s increments since ``base``
        can be absorbed (:func:`absorb_shards`)."""
        self.check(base, shard)

    # -- the sums -------------------------------------------------------------
    def state(self, est):
        """The object that holds the learner's regrets (a table, a graph)."""
        raise NotImplementedError

    def parts(self, est) -> list:
        """The learner's regret states, each with its own table and discount
        clock (matched by position between two learners of one task)."""
        return [self.state(est)]

    def table(self, state) -> KeyedRows:
        """The regret table of a state (its discount clock)."""
        return state

    def add_state(self, dst, src, coef: float) -> None:
        """Add ``coef`` times the regrets of state ``src`` into state ``dst``."""
        raise NotImplementedError

    def snapshot(self, state):
        """A copy of a state that :meth:`difference` and :meth:`add_state`
        read (never learnt with)."""
        return copy_model(state)

    def difference(self, now, before, coef: float):
        """A new state holding ``now - coef * before`` (true units); rows with
        nothing to add may be left out."""
        out = copy_model(now)
        self.add_state(out, before, -coef)
        return out

    def tables(self, est) -> list[KeyedRows]:
        """The learner's regret tables (one discount clock each)."""
        return [self.table(part) for part in self.parts(est)]

    def add(self, dst, src, coef: float) -> None:
        """Add ``coef`` times ``src``'s regrets into ``dst``'s, part by part."""
        for mine, theirs in zip(self.parts(dst), self.parts(src)):
            self.add_state(mine, theirs, coef)

    def objects(self, est) -> list:
        """Objects holding ``counters`` and ``largest`` (the learner itself)."""
        return [est]

    def counter_groups(self, est) -> list[tuple[Any, tuple, tuple]]:
        """``(object, summed names, maximum names)`` of every counter."""
        return [(obj, self.counters, self.largest) for obj in self.objects(est)]

    def hedges(self, est) -> list[tuple[Any, np.ndarray]]:
        """``(AdaHedge, initial losses)`` of every hedge: the hedge of the
        hedged prediction (the vote, the play and any further expert), if
        the learner has one."""
        hedge = est.__dict__.get("_hedge")
        if hedge is None:
            return []
        return [(hedge, hedge.initial_losses())]

    def refresh(self, est) -> None:
        """Renew what the learner derives from its tables (its caches)."""

    def reseed(self, est, seed: int) -> None:
        """Seed the learner's draws (a shard's own: :class:`~._sync.ShardState`)."""
        if hasattr(est, "_rng"):
            est._rng = np.random.default_rng(seed)

    def ready(self, est) -> bool:
        """Whether shards may learn apart from this fitted learner (a tree
        waits for its tests to be settled)."""
        return True

    # -- the operations (after the checks) ------------------------------------
    def merge(self, dst, src) -> None:
        """``dst`` absorbs ``src``'s sums."""
        add_sums(self, dst, src)
        self.refresh(dst)

    def absorb(self, result, base, shards: list) -> None:
        """``result`` (a copy of ``shards[0]``) takes in the other shards'
        increments since ``base``."""
        absorb_sums(self, result, base, shards)
        self.refresh(result)

    def mark(self, est) -> Mark:
        """The learner's sums at a sync."""
        return mark_sums(self, est)

    def delta(self, est, mark: Mark) -> SyncDelta:
        """What the learner added since ``mark``."""
        return delta_sums(self, est, mark)

    def sum_deltas(self, deltas: list[SyncDelta]) -> SyncDelta:
        """The shards' deltas summed."""
        return sum_deltas(self, deltas)

    def apply(self, est, mark: Mark, own: SyncDelta, total: SyncDelta) -> None:
        """Take in the other shards' increments (``total`` minus ``own``)."""
        apply_sums(self, est, mark, own, total)
        self.refresh(est)


def merger_of(est) -> Merger:
    """The :class:`Merger` of a learner, by its type."""
    # Imported here: the learners' modules import this package's entry points.
    from .._disjunct import LocalRegretDisjunctClassifier
    from .._tree_classifier import LocalRegretTreeClassifier
    from ..ensemble import LocalRegretForestClassifier
    from ..maxsat.online import OnlineMaxSAT
    from ._disjunct import DisjunctMerger
    from ._forest import ForestMerger
    from ._maxsat import MaxSATMerger
    from ._tree import TreeMerger

    for kind, merger in (
        (LocalRegretTreeClassifier, TreeMerger),
        (LocalRegretForestClassifier, ForestMerger),
        (LocalRegretDisjunctClassifier, DisjunctMerger),
        (OnlineMaxSAT, MaxSATMerger),
    ):
        if isinstance(est, kind):
            return merger()
    raise TypeError(f"{type(est).__name__} cannot be merged")


def is_fitted(est) -> bool:
    """Whether a learner has learnt (a scikit-learn classifier: its classes)."""
    return hasattr(est, "n_rounds_") and (
        hasattr(est, "classes_") or not hasattr(est, "_parameter_constraints")
    )


def check_compatible(dst, src, *, shard: bool = False) -> Merger:
    """Every check of a merge of ``src`` into ``dst`` (``shard``: of the
    increments of ``src`` since ``dst``); the learner's merger."""
    if type(src) is not type(dst):
        raise TypeError(
            f"cannot merge a {type(src).__name__} into a {type(dst).__name__}"
        )
    merger = merger_of(dst)
    for which, est in (("this learner", dst), ("the other learner", src)):
        if not is_fitted(est):
            raise NotFittedError(f"{which} is not fitted: there is nothing to merge")
    if shard:
        merger.check_shard(dst, src)
    else:
        merger.check(dst, src)
    return merger


def _different_params(dst, src, ignore) -> list[str]:
    """Names of the parameters (``get_params``) that differ."""
    mine, theirs = dst.get_params(deep=False), src.get_params(deep=False)
    return [
        name
        for name in mine
        if name not in ignore and not same_setting(mine[name], theirs[name])
    ]


def check_same_task(dst, src, ignore=("random_state",)) -> None:
    """A scikit-learn classifier's task: parameters (but ``ignore``), classes
    and features."""
    names = _different_params(dst, src, ignore)
    if names:
        detail = ", ".join(
            f"{n}={getattr(dst, n)!r} vs {getattr(src, n)!r}" for n in names
        )
        raise ValueError(f"the learners' parameters differ: {detail}")
    if not np.array_equal(dst.classes_, src.classes_):
        raise ValueError(
            f"the learners' classes differ: {dst.classes_.tolist()} and "
            f"{src.classes_.tolist()}"
        )
    if dst.n_features_in_ != src.n_features_in_:
        raise ValueError(
            f"the learners' numbers of features differ: {dst.n_features_in_} and "
            f"{src.n_features_in_}"
        )
    mine = getattr(dst, "feature_names_in_", None)
    theirs = getattr(src, "feature_names_in_", None)
    if (mine is None or theirs is None) and mine is not theirs:
        raise ValueError("the learners' feature names differ")
    if mine is not None and not np.array_equal(mine, np.asarray(theirs)):
        raise ValueError("the learners' feature names differ")
    experts = [_hedge_experts(est) for est in (dst, src)]
    if experts[0] != experts[1]:
        raise ValueError(
            "the learners' hedged predictions weigh different experts "
            f"({experts[0]} and {experts[1]}): one was saved before a root "
            "model became an expert; refit it to merge"
        )
    mine, theirs = (getattr(est, "_hedge", None) for est in (dst, src))
    if (
        mine is not None
        and theirs is not None
        and not np.array_equal(mine.prior, theirs.prior)
    ):
        # Each side's bound holds with its own prior; their sum with neither.
        raise ValueError(
            "the learners' hedged predictions weigh their experts with "
            "different priors: one was saved before the forest's members "
            "shared one expert's prior; refit it to merge"
        )


def _hedge_experts(est):
    """The experts of a learner's hedge: their names where the learner names
    them (the tree), else how many (0 without a hedge)."""
    hedge = getattr(est, "_hedge", None)
    if hedge is None:
        return 0
    names = getattr(est, "_expert_names", None)
    return names() if names is not None else hedge.n_experts


def model_lock_of(est):
    lock = getattr(est, "_model_lock", None)
    if lock is None:
        from contextlib import nullcontext

        return nullcontext()
    return lock()


def merge_into(dst, src) -> Any:
    """Make ``dst`` the learner of its rounds and ``src``'s (see the learners'
    ``merge``); ``src`` is not changed. Every check comes first: after an
    error, ``dst`` is unchanged."""
    if src is dst:
        raise ValueError(
            f"a {type(dst).__name__} cannot merge itself: a merge adds another "
            "learner's rounds, of a disjoint stream (merging a copy would count "
            "every round twice)"
        )
    for side in (dst, src):  # a loaded model is checked before it is read
        check_loaded = getattr(side, "_check_loaded", None)
        if check_loaded is not None:
            check_loaded()
    merger = check_compatible(dst, src)
    with model_lock_of(dst), model_lock_of(src):
        merger.merge(dst, src)
    return dst


def absorb_shards(base, shards: list, *, copy: bool = True) -> Any:
    """The model of ``base`` plus the increments ``shards`` learnt from it.

    Every shard started as a copy of ``base`` and learnt its own rounds; the
    result is ``base`` with the sum of the shards' increments: in true units,
    every regret is ``lambda^S base + sum_i (shard_i - lambda^(s_i) base)``,
    ``s_i`` the rounds shard ``i`` learnt and ``S`` their sum (one global
    clock: the shards' rounds count one after the other, and each shard's
    own increments keep the discount of its own rounds). Each regret table
    does so at its own discount and over its own rounds (a tree with several
    discounts: each player's; a forest: each member's). Undiscounted, that
    is ``base + sum_i (shard_i - base)``. Counters and the hedges add the
    same way; what is not a sum (the last played action, a window of recent
    rows, the random state, a forest's drift detectors) is the first
    shard's, and a forest's member replaced after a drift is taken whole
    (:mod:`sklearn_localregret.merging._forest`).

    Parameters
    ----------
    base : learner
        The model the shards started from (unchanged). If it is unfitted, the
        shards learnt from scratch and the result is the first shard with the
        others merged into it.
    shards : list of learners
        The shards' models, in shard order.
    copy : bool, default=True
        False: the first shard becomes the result (it is changed), which
        saves a copy of the model.

    Returns
    -------
    learner
    """
    if not shards:
        raise ValueError("no shards to absorb")
    if not is_fitted(base):
        result = copy_model(shards[0]) if copy else shards[0]
        for shard in shards[1:]:
            merge_into(result, shard)
        return result
    merger = merger_of(base)
    for i, shard in enumerate(shards):
        check_compatible(base, shard, shard=True)
        _check_grown_from(base, shard, i)
    result = copy_model(shards[0]) if copy else shards[0]
    with model_lock_of(result):
        merger.absorb(result, base, shards)
    return result


def _check_grown_from(base, shard, i: int) -> None:
    """A shard has learnt at least what ``base`` had: fewer rounds or rows
    than the base, and it did not start from it (its increments would be
    negative)."""
    for name in ("n_rounds_", "n_samples_seen_"):
        had, has = getattr(base, name, None), getattr(shard, name, None)
        if had is not None and has is not None and has < had:
            raise ValueError(
                f"shard {i} has {name}={has}, fewer than the base's {had}: "
                "a shard starts as a copy of the base and only learns more"
            )
