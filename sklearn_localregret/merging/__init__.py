"""Merging learners: one learner's state absorbs another's.

Every learner's state is, for the most part, a sum over the rounds it
learnt: regret tables, their clocks, counters of rows and mistakes, the
hedge's cumulative losses. Two learners of the same task (same classes,
features and parameters) that learnt disjoint streams therefore add up to
the learner of both streams, exactly where the state is a sum and the
rounds had the same plays. What is not a sum (the last played action, a
window of recent rows, the threshold summary of a stream's first rows) is
said in each learner's module.

* :func:`merge_into` -- ``dst`` absorbs ``src`` (what ``est.merge(other)``
  calls).
* :func:`absorb_shards` -- the sum of the increments that shards learnt from
  one common starting model (what sharded learning does at each sync).

One small module per learner (:mod:`._tree`, :mod:`._forest`,
:mod:`._disjunct`, :mod:`._maxsat`) says which tables it has (a tree with
several discounts: one per player, each with its own discount clock; a
forest: its members') and how its caches are renewed; :mod:`._sums` adds
them, each table at its own discount; the table arithmetic is
:mod:`sklearn_localregret.engine.merge`.
"""

from ._core import absorb_shards, merge_into

__all__ = ["absorb_shards", "merge_into"]
