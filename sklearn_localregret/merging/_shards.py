"""The shards of :func:`~sklearn_localregret.distributed.fit_sharded`: their
streams and learners, in this process or pinned to the workers of a
``dask.distributed`` client, and the windows they learn between two syncs
(:mod:`._sync`).

On a cluster each shard's learner stays on its worker between windows (a
window is one task and one reply); the workers fetch and sum the shards'
deltas themselves, and the client submits windows ahead of them, so that
neither the client nor the replies sit between two windows.
"""

from __future__ import annotations

import pickle
import uuid
from collections import deque
from operator import itemgetter
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._copies import dumps
from ._sync import ShardState, SyncDelta

__all__ = ["is_dask", "rows_of", "Shards"]


def is_dask(obj) -> bool:
    """Whether ``obj`` is a Dask collection (an array, a DataFrame, a Series)."""
    return hasattr(obj, "dask") and hasattr(obj, "to_delayed")


def rows_of(obj, lo: int, hi: int):
    """Rows ``lo:hi`` of an array or a pandas object."""
    return obj.iloc[lo:hi] if hasattr(obj, "iloc") else obj[lo:hi]


def _concat(parts: list):
    if hasattr(parts[0], "iloc"):
        import pandas as pd

        return pd.concat(parts)
    if sp.issparse(parts[0]):
        return sp.vstack(parts, format="csr")
    return np.concatenate([np.asarray(p) for p in parts])


def _paired(x_parts: list, y_parts: list) -> tuple:
    """A shard's rows and labels, each partition of ``X`` checked against
    its partition of ``y`` (chunked otherwise, rows would meet other rows'
    labels)."""
    for i, (x, y) in enumerate(zip(x_parts, y_parts)):
        if x.shape[0] != len(y):
            raise ValueError(
                f"a partition of X has {x.shape[0]} rows and its partition of "
                f"y {len(y)} labels (the shard's partition {i}): rechunk X and y "
                "alike (the same rows in each partition)"
            )
    return _concat(x_parts), _concat(y_parts)


def _both_rows(X, y, lo: int, hi: int):
    return rows_of(X, lo, hi), rows_of(y, lo, hi)


def _window(state: ShardState, X, y, lo: int, hi: int, classes, total):
    """One shard's window: take in the last sync's ``total`` (None: none yet;
    a list: the shards' deltas, summed here), learn rows ``lo:hi`` of its
    stream; its delta."""
    _take_in(state, total)
    state.learn(rows_of(X, lo, hi), rows_of(y, lo, hi), classes)
    return state.delta()


def _take_in(state: ShardState, total) -> None:
    """Apply the last sync's ``total`` (None: none yet); one shard alone has
    nothing to take in: it goes on as the sequential learner."""
    if isinstance(total, list) and len(total) == 1:
        state.synced()
    elif total is not None:
        state.apply(_summed(state, total))


# Rows :meth:`Shards.take` brings here in one trip (at least).
_FETCH_ROWS = 1024

# Windows the client submits ahead of the workers: they never wait for it,
# and the scheduler holds a few windows' tasks, whatever the stream's length.
_WINDOWS_AHEAD = 3

# The shards' learners on a worker, by (fit, shard): they stay where their
# rows are between windows, so that a window is one task and one reply.
_ON_WORKER: dict[tuple[str, int], ShardState] = {}

# Seconds between two checks, while the client waits for the workers, that
# every shard's worker is still in the cluster: a task pinned to a worker
# that left would wait for it forever.
_POLL_SECONDS = 2.0


def _start_on_worker(key: tuple[str, int], model: bytes, seed: int | None) -> None:
    _ON_WORKER[key] = ShardState(model, seed)


def _window_on_worker(key, X, y, lo: int, hi: int, classes, total):
    return _window(_on_worker(key), X, y, lo, hi, classes, total)


def _on_worker(key) -> ShardState:
    state = _ON_WORKER.get(key)
    if state is None:  # the worker restarted: its learner is gone
        raise RuntimeError(
            f"shard {key[1]}'s learner is not on its worker (the worker "
            "restarted?): sharded learning cannot go on without it; run "
            "fit_sharded again"
        )
    return state


def _summed(state: ShardState, total):
    """The sum of the shards' deltas (each worker sums them itself, in shard
    order: the same sum everywhere, and no trip through the client)."""
    return SyncDelta.sum(total, state.merger) if isinstance(total, list) else total


def _finish_on_worker(key, total) -> bytes:
    state = _on_worker(key)
    del _ON_WORKER[key]
    _take_in(state, total)
    return dumps(state.model)


def _drop_on_worker(key) -> None:
    _ON_WORKER.pop(key, None)


class Shards:
    """The shards' streams, in this process or pinned to workers."""

    def __init__(self, streams: list, client, workers: list):
        self.client, self.workers = client, workers
        self.n_shards = len(streams)
        self.lengths: list[int] = []
        self.offsets = [0] * len(streams)  # rows of each stream learnt
        self.data: list[Any] = []
        self._ahead: deque[list] = deque()  # windows submitted, not yet checked
        self._fetched: dict[int, tuple] = {}  # per shard: first row, rows here
        for i, (x_parts, y_parts) in enumerate(streams):
            if client is None:
                x, y = _paired(_computed(x_parts), _computed(y_parts))
                self.data.append((x, y))
                self.lengths.append(len(y))
            else:
                import dask

                where = [workers[i % len(workers)]]
                both = dask.delayed(_paired)(x_parts, y_parts)
                both = client.compute(both, workers=where)
                x = client.submit(itemgetter(0), both, workers=where)
                y = client.submit(itemgetter(1), both, workers=where)
                self.data.append((x, y))
                self.lengths.append(self._result(client.submit(len, y, workers=where)))

    def done(self) -> bool:
        return all(at >= n for at, n in zip(self.offsets, self.lengths))

    def first_with_rows(self) -> int:
        """The first shard whose stream has rows left (not :meth:`done`)."""
        return next(
            i for i, (at, n) in enumerate(zip(self.offsets, self.lengths)) if at < n
        )

    def _next(self, i: int, rows: int) -> tuple[int, int]:
        """Rows ``lo:hi`` of shard ``i``'s stream it learns next (and skips)."""
        lo = self.offsets[i]
        hi = min(lo + rows, self.lengths[i])
        self.offsets[i] = hi
        return lo, hi

    def take(self, i: int, rows: int):
        """The next ``rows`` rows of shard ``i``, here (None: it has no more)."""
        lo, hi = self._next(i, rows)
        if lo >= hi:
            return None
        x, y = self.data[i]
        if self.client is None:
            return rows_of(x, lo, hi), rows_of(y, lo, hi)
        start, xs, ys = self._fetched.get(i, (0, None, None))
        if ys is None or not start <= lo <= hi <= start + len(ys):
            # The settling rounds take a few rows each: one trip for many.
            end = min(lo + max(hi - lo, _FETCH_ROWS), self.lengths[i])
            where = [self.workers[i % len(self.workers)]]
            part = self.client.submit(_both_rows, x, y, lo, end, workers=where)
            start, (xs, ys) = lo, self._result(part)
            self._fetched[i] = (start, xs, ys)
        return rows_of(xs, lo - start, hi - start), rows_of(ys, lo - start, hi - start)

    def start(self, model: bytes, seeds) -> None:
        """Every shard starts from the common model, its draws seeded (a
        seed of None: the model's own random state goes on)."""
        seeds = [None if seed is None else int(seed) for seed in seeds]
        if self.client is None:
            self.states = [ShardState(model, seed) for seed in seeds]
            return
        fit = uuid.uuid4().hex
        self.keys = [(fit, i) for i in range(len(seeds))]
        shared = self.client.scatter(model, broadcast=True)
        self._check(
            [
                self.client.submit(
                    _start_on_worker,
                    key,
                    shared,
                    seed,
                    workers=self._where(i),
                    pure=False,
                )
                for i, (key, seed) in enumerate(zip(self.keys, seeds))
            ]
        )

    def _where(self, i: int) -> list:
        return [self.workers[i % len(self.workers)]]

    def window(self, rows: int, classes, last) -> list:
        """Every shard's next window after the sync of the ``last`` window's
        deltas (None: the first); their deltas (on a cluster, futures: the
        workers fetch and sum them, the client never holds them)."""
        bounds = [self._next(i, rows) for i in range(len(self.lengths))]
        if self.client is None:
            total = last  # (None, or the only shard's: nothing to sum)
            if last is not None and len(last) > 1:
                total = SyncDelta.sum(last, self.states[0].merger)
            return [
                _window(state, x, y, lo, hi, classes, total)
                for state, (x, y), (lo, hi) in zip(self.states, self.data, bounds)
            ]
        futures = [
            self.client.submit(
                _window_on_worker,
                key,
                *self.data[i],
                lo,
                hi,
                classes,
                last,
                workers=self._where(i),
                pure=False,
            )
            for i, (key, (lo, hi)) in enumerate(zip(self.keys, bounds))
        ]
        # The workers go on from window to window by themselves (each window
        # waits for the last one's deltas on the scheduler, not for this
        # process); the client stays a few windows ahead of them, no more.
        self._ahead.append(futures)
        if len(self._ahead) > _WINDOWS_AHEAD:
            self._check(self._ahead.popleft())
        return futures

    def _check(self, futures: list) -> None:
        """Wait for tasks of the shards (a window on each); a shard's error
        is raised here."""
        self._wait(futures)
        for future in futures:
            if future.status == "error":
                future.result()  # raises the shard's error here

    def finish(self, last):
        """The first shard after the sync of the ``last`` window: the learner
        of all the rows."""
        if self.client is None:
            _take_in(self.states[0], last)
            return self.states[0].model
        while self._ahead:
            self._check(self._ahead.popleft())
        done = self.client.submit(
            _finish_on_worker, self.keys[0], last, workers=self._where(0), pure=False
        )
        return pickle.loads(self._result(done))

    def _wait(self, futures: list) -> None:
        """Wait for ``futures`` (done or failed), checking every
        ``_POLL_SECONDS`` that the shards' workers are still there."""
        from distributed import wait

        while True:
            try:
                wait(futures, timeout=_POLL_SECONDS)
                return
            except TimeoutError:
                self._check_workers()

    def _result(self, future):
        self._wait([future])
        return future.result()

    def _check_workers(self) -> None:
        """``RuntimeError`` if a worker that holds a shard left the cluster
        (its learner, and the windows pinned to it, are lost)."""
        alive = set(self.client.scheduler_info()["workers"])
        for i in range(self.n_shards):
            worker = self._where(i)[0]
            if worker not in alive:
                raise RuntimeError(
                    f"worker {worker}, which held shard {i}'s learner, left "
                    "the cluster: sharded learning cannot go on without it "
                    "(a shard's learner lives on its worker between syncs); "
                    "run fit_sharded again"
                )

    def close(self) -> None:
        if self.client is None:
            return
        from distributed import wait

        for future in (f for pair in self.data for f in pair):
            future.release()  # (a cancel races the deltas that depend on them)
        alive = set(self.client.scheduler_info()["workers"])
        dropped = [
            self.client.submit(_drop_on_worker, key, workers=self._where(i), pure=False)
            for i, key in enumerate(getattr(self, "keys", []))
            if self._where(i)[0] in alive  # (a worker gone took its learner)
        ]
        try:
            wait(dropped, timeout=5 * _POLL_SECONDS)
        except TimeoutError:  # a worker left meanwhile: nothing to drop there
            pass


def _computed(parts: list) -> list:
    if is_dask(parts[0]) or hasattr(parts[0], "compute"):
        import dask

        parts = list(dask.compute(*parts))
    return parts
