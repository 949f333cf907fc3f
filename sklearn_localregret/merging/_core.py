"""What every merge does: checks, sums of counters and clocks, the hedge.

A learner's own part (its tables, what else it checks, its caches) is a
:class:`Merger`, found by the learner's type (:func:`merger_of`).
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError

from ..engine.keyed_rows import KeyedRows

__all__ = [
    "Merger",
    "absorb_shards",
    "copy_model",
    "dumps",
    "merge_into",
    "merger_of",
]


class Merger:
    """How one kind of learner merges (subclassed per learner).

    ``counters`` are attributes that count what the rounds did (summed);
    ``largest`` are attributes that keep a maximum over the rounds.
    """

    counters: tuple[str, ...] = ()
    largest: tuple[str, ...] = ()

    def check(self, dst, src) -> None:
        """Raise ``ValueError`` unless ``src`` can be merged into ``dst``."""

    def state(self, est):
        """The object that holds the learner's regrets (a table, a graph)."""
        raise NotImplementedError

    def table(self, state) -> KeyedRows:
        """The regret table of a :meth:`state` (its discount clock)."""
        return state

    def add_state(self, dst, src, coef: float) -> None:
        """Add ``coef`` times the regrets of state ``src`` into state ``dst``."""
        raise NotImplementedError

    def snapshot(self, state):
        """A copy of a state that :meth:`difference` and :meth:`add_state`
        read (never learnt with)."""
        return pickle.loads(dumps(state))

    def difference(self, now, before, coef: float):
        """A new state holding ``now - coef * before`` (true units); rows with
        nothing to add may be left out."""
        out = pickle.loads(dumps(now))
        self.add_state(out, before, -coef)
        return out

    def tables(self, est) -> list[KeyedRows]:
        """The learner's regret tables (one discount clock each)."""
        return [self.table(self.state(est))]

    def add(self, dst, src, coef: float) -> None:
        """Add ``coef`` times ``src``'s regrets into ``dst``'s."""
        self.add_state(self.state(dst), self.state(src), coef)

    def refresh(self, est) -> None:
        """Renew what the learner derives from its tables (its caches)."""

    def objects(self, est) -> list:
        """Objects holding ``counters`` and ``largest`` (the learner itself)."""
        return [est]


def merger_of(est) -> Merger:
    """The :class:`Merger` of a learner, by its type."""
    # Imported here: the learners' modules import this package's entry points.
    from .._disjunct import LocalRegretDisjunctClassifier
    from .._tree_classifier import LocalRegretTreeClassifier
    from ..maxsat.online import OnlineMaxSAT
    from ._disjunct import DisjunctMerger
    from ._maxsat import MaxSATMerger
    from ._tree import TreeMerger

    for kind, merger in (
        (LocalRegretTreeClassifier, TreeMerger),
        (LocalRegretDisjunctClassifier, DisjunctMerger),
        (OnlineMaxSAT, MaxSATMerger),
    ):
        if isinstance(est, kind):
            return merger()
    raise TypeError(f"{type(est).__name__} cannot be merged")


def copy_model(est):
    """An independent copy of a learner, fitted state included (by pickling:
    locks and caches are rebuilt; see :func:`dumps`)."""
    return pickle.loads(dumps(est))


def dumps(est) -> bytes:
    """A learner as bytes for a copy or a sync, not for saving.

    As ``pickle.dumps``, but the objects that pack their arrays when saved
    (deflated, residuals: small files, slow) are stored as they are in
    memory, which is many times faster; ``pickle.loads`` reads it back.
    """
    buffer = io.BytesIO()
    _RawPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(est)
    return buffer.getvalue()


def _packed_types() -> tuple[type, ...]:
    from ..engine.stump_table import StumpRegretTable
    from ..locality.recent_rows import RecentRows
    from ..thresholds.catalog import ThresholdTests

    return (StumpRegretTable, RecentRows, ThresholdTests)


class _RawPickler(pickle.Pickler):
    _packed = None

    def reducer_override(self, obj):
        packed = _RawPickler._packed
        if packed is None:
            packed = _RawPickler._packed = _packed_types()
        if type(obj) in packed:
            return _raw_object, (type(obj), obj.__dict__)
        return NotImplemented


def _raw_object(cls, state):
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


def _is_fitted(est) -> bool:
    return hasattr(est, "n_rounds_") and (
        hasattr(est, "classes_") or not hasattr(est, "_parameter_constraints")
    )


def check_compatible(dst, src) -> Merger:
    """Every check of a merge of ``src`` into ``dst``; the learner's merger."""
    if type(src) is not type(dst):
        raise TypeError(
            f"cannot merge a {type(src).__name__} into a {type(dst).__name__}"
        )
    merger = merger_of(dst)
    for which, est in (("this learner", dst), ("the other learner", src)):
        if not _is_fitted(est):
            raise NotFittedError(f"{which} is not fitted: there is nothing to merge")
    merger.check(dst, src)
    return merger


def _different_params(dst, src, ignore=("random_state",)) -> list[str]:
    """Names of the parameters (``get_params``) that differ."""
    mine, theirs = dst.get_params(deep=False), src.get_params(deep=False)
    return [name for name in mine if name not in ignore and mine[name] != theirs[name]]


def check_same_task(dst, src) -> None:
    """A scikit-learn classifier's task: parameters, classes and features."""
    names = _different_params(dst, src)
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


def _add_hedge(dst, src, coef: float, initial: np.ndarray) -> None:
    """The hedge's cumulative losses and mixability gap are sums over rounds.

    ``initial`` are the losses the experts start with, counted once. Its
    bound ``hedge_loss - L_k <= 2 gap`` holds for each side, hence for the sum.
    """
    hedge, other = dst.__dict__.get("_hedge"), src.__dict__.get("_hedge")
    if hedge is None or other is None:
        return
    hedge._losses = [
        float(a + coef * (b - c))
        for a, b, c in zip(hedge._losses, other._losses, initial.tolist())
    ]
    hedge.gap = max(hedge.gap + coef * other.gap, 0.0)
    hedge.hedge_loss += coef * other.hedge_loss


def _add_counters(merger: Merger, dst, src, coef: int) -> None:
    for mine, theirs in zip(merger.objects(dst), merger.objects(src)):
        for name in merger.counters:
            setattr(mine, name, getattr(mine, name) + coef * getattr(theirs, name))
        if coef > 0:
            for name in merger.largest:
                setattr(mine, name, max(getattr(mine, name), getattr(theirs, name)))


def _initial_losses(est) -> np.ndarray:
    hedge = est.__dict__.get("_hedge")
    if hedge is None:
        return np.zeros(0)
    from .._hedge import PLAY_HANDICAP

    return np.array([0.0, PLAY_HANDICAP])


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
    merger = check_compatible(dst, src)
    with model_lock_of(dst), model_lock_of(src):
        merger.add(dst, src, 1.0)
        for mine, theirs in zip(merger.tables(dst), merger.tables(src)):
            mine.clock.n_rounds += theirs.clock.n_rounds
        _add_counters(merger, dst, src, 1)
        _add_hedge(dst, src, 1.0, _initial_losses(dst))
        merger.refresh(dst)
    return dst


def absorb_shards(base, shards: list, *, copy: bool = True) -> Any:
    """The model of ``base`` plus the increments ``shards`` learnt from it.

    Every shard started as a copy of ``base`` and learnt its own rounds; the
    result is ``base`` with the sum of the shards' increments: in true units,
    every regret is ``lambda^S base + sum_i (shard_i - lambda^(s_i) base)``,
    ``s_i`` the rounds shard ``i`` learnt and ``S`` their sum (one global
    clock: the shards' rounds count one after the other, and each shard's
    own increments keep the discount of its own rounds). Undiscounted, that
    is ``base + sum_i (shard_i - base)``. Counters and the hedge add the
    same way; what is not a sum (the last played action, a window of recent
    rows, the random state) is the first shard's.

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
    result = copy_model(shards[0]) if copy else shards[0]
    if not _is_fitted(base):
        for shard in shards[1:]:
            merge_into(result, shard)
        return result
    merger = merger_of(base)
    for shard in shards:
        check_compatible(base, shard)
    base_tables = merger.tables(base)
    rounds = [
        merger.tables(shard)[0].clock.n_rounds - base_tables[0].clock.n_rounds
        for shard in shards
    ]
    discount = base_tables[0].discount
    with model_lock_of(result):
        # result = shard 0 = lambda^s0 base + its increments: the base must
        # decay to lambda^S, and every other shard adds its increments.
        if discount != 1.0:
            merger.add(result, base, discount ** sum(rounds) - discount ** rounds[0])
        for table in merger.tables(result):
            table.clock.n_rounds += sum(rounds[1:])
        initial = _initial_losses(result)
        for shard, own_rounds in zip(shards[1:], rounds[1:]):
            merger.add(result, shard, 1.0)
            # The base as the shard holds it at its end: decayed by its rounds.
            merger.add(result, base, -(discount**own_rounds))
            _add_counters(merger, result, shard, 1)
            _add_counters(merger, result, base, -1)
            _add_hedge(result, shard, 1.0, initial)
            _add_hedge(result, base, -1.0, initial)
        merger.refresh(result)
    return result
