"""Sharded learning: error against shards and ``sync_every``; speed on a cluster.

Issue 29. ``--simulate`` (the default): every configuration of ``--shards`` x
``--sync-every`` learns a leaderboard stream with
:func:`~sklearn_localregret.distributed.fit_sharded` in this process (no
cluster: the shards are learnt one after the other, the same model as on a
cluster). Printed per stream and configuration, the mean over ``--seeds``
(each seed a new stream order and learner seed) of:

* ``online``: the fraction of the stream's rows the *played* trees got wrong
  (the shards' plays, from their stale tables: what the guarantee is about);
* ``holdout``: the error of the final model's ``predict`` on the
  ``--holdout`` rows that follow the stream (the same stream, never learnt);
* ``stale``: the most rounds a play missed, ``(shards - 1) * sync_every``.

One shard is the sequential learner (its table is never stale). Without
River, its streams are left out of the default ``--streams``.

``--cluster``: the goal run. ``--rows`` rows of a 20-feature stream (a seeded
tree concept on 20 real features, 5% label noise) learnt by one process
(``fit``) and by ``fit_sharded`` on a ``LocalCluster`` of ``--workers`` worker
processes (one thread each); the workers make their chunks of 50,000 rows
themselves (as they would load them), the one process the same rows. Printed:
rows/s of both and their ratio (the sharded time includes making the rows on
the workers), the holdout error of both, each worker's resident memory after
learning, and the CPU time each worker process and this one (the client, and
a ``LocalCluster``'s scheduler and nannies) used during the sharded fit,
against the span's core-seconds. Both sides start warm (the kernels loaded).

``--breakdown``: where each worker's time went, timed on the worker window by
window: summing the shards' deltas, applying the sum, learning the window's
rows, taking its delta; then, between two windows, waiting for the slower
shard to finish ("slower"), and from the moment both deltas are ready to the
start of the next window ("after": the scheduler, and the transfer and reading
of the other shard's delta). ``--no-worker-profiler`` turns dask's statistical
profiler of the workers off (it samples the worker's thread every 10 ms).

``--mmap-threshold BYTES`` (default and most 32 MiB; 0: dask's own
environment) is set as ``MALLOC_MMAP_THRESHOLD_`` in the workers' environment.
Dask's nanny sets ``MALLOC_TRIM_THRESHOLD_``, which turns glibc's adaptive
mmap threshold off: every array above 128 KiB is then mapped afresh and
faulted in, which made the rounds ~1.3x and the syncs ~4x slower on the
workers than in one process. The one process keeps glibc's defaults.

``--ceiling``: the cluster's stream and partitioning learnt by one process and
by ``--workers`` shards that never sync (one window: each learns its rows
alone, then one sum), both in this process: the shards' time divided by their
number is what a cluster of that many workers could reach with free syncs and
no cost of its own.

``--spread``: the cluster's stream and partitioning learnt in this process (no
cluster: the same model) by one process and by the shards, for each of
``--seeds``: the online errors of both, their held-out errors on the
``--holdout`` rows that follow the stream, and the differences, seed by seed
and on average; with ``--then N``, the held-out errors again after both models
learnt the next ``N`` rows in one process (how the model of the last sync
fares as it learns on).

Run (one mode at a time; ``--rows`` and ``--holdout`` at most 10,000,000,
``--shards`` and ``--workers`` at most 1,024)::

    python benchmarks/bench_sharded.py --simulate [--rows 20000] [--holdout 5000]
        [--seeds 0 1] [--shards 1 2 4 8 16 32 64] [--sync-every 1 10 100]
        [--streams kr-vs-kp shuttle]
    python benchmarks/bench_sharded.py --cluster [--rows 1000000] [--holdout 5000]
        [--workers 2] [--sync-every 1000] [--discount 0.99]
        [--mmap-threshold 33554432] [--breakdown] [--no-worker-profiler]
    python benchmarks/bench_sharded.py --ceiling [--rows 1000000] [--workers 2]
        [--discount 0.99]
    python benchmarks/bench_sharded.py --spread [--rows 300000] [--holdout 5000]
        [--seeds 0 1] [--workers 2] [--sync-every 1000] [--discount 0.99] [--then 0]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from _options import available_streams, check_stream_rows, discount_float, seed_int

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._arguments import int_in_range, positive_int
from sklearn_localregret.datasets.streams import STREAMS, load_stream
from sklearn_localregret.distributed import fit_sharded


def simulate(args) -> None:
    for name in args.streams:
        print(f"\n{name}: {args.rows} rows learnt, {args.holdout} held out")
        print(f"{'shards':>6} {'sync':>5} {'stale':>6} {'online':>7} {'holdout':>8}")
        for shards in args.shards:
            for sync in args.sync_every if shards > 1 else [args.sync_every[0]]:
                online, holdout = [], []
                for seed in args.seeds:
                    stream = load_stream(
                        name, n_rows=args.rows + args.holdout, seed=seed
                    )
                    X, y = stream.X[: args.rows], stream.y[: args.rows]
                    clf = fit_sharded(
                        LocalRegretTreeClassifier(random_state=seed),
                        X,
                        y,
                        classes=np.unique(stream.y),
                        n_shards=shards,
                        sync_every=sync,
                    )
                    online.append(clf.online_error_)
                    rest = slice(args.rows, None)
                    holdout.append(1.0 - clf.score(stream.X[rest], stream.y[rest]))
                stale = (shards - 1) * sync
                print(
                    f"{shards:>6} {sync if shards > 1 else '-':>5} {stale:>6} "
                    f"{np.mean(online):>7.3f} {np.mean(holdout):>8.3f}",
                    flush=True,
                )


CHUNK_ROWS = 50_000
MAX_ROWS = 10_000_000  # a stream is made up front (160 bytes a row)
MAX_SHARDS = 1024
MAX_MMAP = 32 * 2**20  # glibc's largest mmap threshold (64-bit)
STREAMS_ = ["kr-vs-kp", "shuttle"]  # --simulate's default


def _concept_chunk(i: int, n_rows: int):
    """Chunk ``i``: 20 real features labelled by a depth-3 tree, 5% noise."""
    rng = np.random.default_rng([0, i])
    X = rng.normal(size=(n_rows, 20))
    y = np.where(
        X[:, 0] > 0,
        np.where(X[:, 3] > 0.5, 1, X[:, 7] > -0.5),
        np.where(X[:, 11] > 0, X[:, 15] > 1.0, 1),
    ).astype(int)
    flip = rng.random(n_rows) < 0.05
    return X, np.where(flip, 1 - y, y)


def _chunk_sizes(n_rows: int) -> list[int]:
    return [min(CHUNK_ROWS, n_rows - lo) for lo in range(0, n_rows, CHUNK_ROWS)]


def _concept(n_rows: int):
    """The stream in this process."""
    parts = [_concept_chunk(i, n) for i, n in enumerate(_chunk_sizes(n_rows))]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _dask_concept(n_rows: int):
    """The same stream as Dask arrays whose chunks the workers generate."""
    import dask
    import dask.array as da

    xs, ys = [], []
    for i, n in enumerate(_chunk_sizes(n_rows)):
        part = dask.delayed(_concept_chunk, pure=True)(i, n)
        xs.append(da.from_delayed(part[0], shape=(n, 20), dtype=float))
        ys.append(da.from_delayed(part[1], shape=(n,), dtype=int))
    return da.concatenate(xs), da.concatenate(ys)


def _rss() -> int:
    import psutil

    return psutil.Process(os.getpid()).memory_info().rss


def _cpu_seconds() -> float:
    """This process's CPU time so far (user and system), in seconds."""
    import psutil

    times = psutil.Process(os.getpid()).cpu_times()
    return times.user + times.system


def _time_windows() -> None:
    """On a worker: time each window's phases (``_shards._window``'s steps,
    in its order), kept in the module for :func:`_window_times`."""
    from sklearn_localregret.merging import _shards

    _shards.WINDOW_TIMES = []

    def timed(state, X, y, lo, hi, classes, total):
        start = time.perf_counter()  # (a clock every process on the machine shares)
        summed = applied = start
        if total is not None:
            delta_sum = _shards._summed(state, total)
            summed = time.perf_counter()
            state.apply(delta_sum)
            applied = time.perf_counter()
        state.learn(_shards.rows_of(X, lo, hi), _shards.rows_of(y, lo, hi), classes)
        learnt = time.perf_counter()
        delta = state.delta()
        _shards.WINDOW_TIMES.append(
            (start, summed, applied, learnt, time.perf_counter())
        )
        return delta

    _shards._window = timed


def _window_times() -> list:
    from sklearn_localregret.merging import _shards

    return _shards.WINDOW_TIMES


def _print_breakdown(times: dict) -> None:
    """Per worker, where its windows' time went: summing the shards' deltas,
    applying the sum, learning, taking its delta; waiting for the slower
    shard to finish the window; and from the moment both deltas were ready
    to the start of its next window (the scheduler, and the transfer and
    reading of the other shard's delta)."""
    spans = [np.array(times[w]) for w in sorted(times)]
    if len({len(s) for s in spans}) != 1:
        print("breakdown: the workers ran different numbers of windows")
        return
    both_done = np.max([s[:-1, 4] for s in spans], axis=0)
    print(
        f"{'worker':>6} {'windows':>7} {'sum s':>6} {'apply s':>7} {'learn s':>7} "
        f"{'delta s':>7} {'slower s':>8} {'after s':>7} {'span s':>6}"
    )
    for i, s in enumerate(spans):
        phases = np.diff(s, axis=1).sum(axis=0)
        print(
            f"{i:>6} {len(s):>7} {phases[0]:>6.2f} {phases[1]:>7.2f} "
            f"{phases[2]:>7.2f} {phases[3]:>7.2f} "
            f"{(both_done - s[:-1, 4]).sum():>8.2f} "
            f"{(s[1:, 0] - both_done).sum():>7.2f} {s[-1, 4] - s[0, 0]:>6.2f}"
        )


def cluster(args) -> None:
    import dask
    from distributed import Client, LocalCluster

    X, y = _concept(args.rows + args.holdout)
    X_test, y_test = X[args.rows :], y[args.rows :]
    X, y = X[: args.rows], y[: args.rows]
    params = dict(random_state=0, discount=args.discount)
    LocalRegretTreeClassifier(**params).fit(X[:2000], y[:2000])  # warm

    start = time.perf_counter()
    one = LocalRegretTreeClassifier(**params).fit(X, y)
    one_time = time.perf_counter() - start
    print(f"one process: {args.rows / one_time:,.0f} rows/s ({one_time:.1f} s)")

    environ = "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_"
    mmap = {environ: args.mmap_threshold} if args.mmap_threshold else {}
    if args.no_worker_profiler:
        mmap["distributed.worker.profile.enabled"] = False
    print(
        f"workers' MALLOC_MMAP_THRESHOLD_: {args.mmap_threshold:,}"
        if args.mmap_threshold
        else "workers' environment: dask's own"
    )
    if args.no_worker_profiler:
        print("workers' profiler: off")
    with (
        dask.config.set(mmap),
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
        ) as local,
        Client(local) as client,
    ):
        before = client.run(_rss)
        # Warm the workers: the compiled kernels load once per process.
        client.run(
            lambda: (
                LocalRegretTreeClassifier().fit(
                    np.random.default_rng(0).normal(size=(500, 20)), np.arange(500) % 2
                )
                and None
            )
        )
        if args.breakdown:
            client.run(_time_windows)
        cpu_before = client.run(_cpu_seconds), _cpu_seconds()
        start = time.perf_counter()
        Xd, yd = _dask_concept(args.rows)
        sharded = fit_sharded(
            LocalRegretTreeClassifier(**params),
            Xd,
            yd,
            classes=[0, 1],
            client=client,
            sync_every=args.sync_every[0],
        )
        sharded_time = time.perf_counter() - start
        cpu_after = client.run(_cpu_seconds), _cpu_seconds()
        after = client.run(_rss)
        times = client.run(_window_times) if args.breakdown else None
    print(
        f"{args.workers} workers: {args.rows / sharded_time:,.0f} rows/s "
        f"({sharded_time:.1f} s, sync_every={args.sync_every[0]}): "
        f"{one_time / sharded_time:.2f}x one process"
    )
    one_error = 1 - one.score(X_test, y_test)
    sharded_error = 1 - sharded.score(X_test, y_test)
    print(
        f"online error: one process {one.online_error_:.4f}, sharded "
        f"{sharded.online_error_:.4f} (difference "
        f"{sharded.online_error_ - one.online_error_:+.4f}); holdout error "
        f"{one_error:.4f} and {sharded_error:.4f}; regret table "
        f"{one.regret_nbytes_ / 2**20:,.0f} and "
        f"{sharded.regret_nbytes_ / 2**20:,.0f} MiB ({one.n_sites_:,} and "
        f"{sharded.n_sites_:,} sites)"
    )
    for worker in sorted(after):
        print(
            f"worker {worker}: {after[worker] / 2**20:,.0f} MiB resident "
            f"({before[worker] / 2**20:,.0f} MiB before learning)"
        )
    _print_cpu(cpu_before, cpu_after, sharded_time, one_time)
    if times is not None:
        _print_breakdown(times)


def _print_cpu(before, after, span: float, one_time: float) -> None:
    """Where the machine's CPU went during the sharded fit: each worker's
    process, and this one (the client, and with a LocalCluster its scheduler
    and nannies too), against the core-seconds the span offered."""
    workers = {w: after[0][w] - before[0][w] for w in sorted(after[0])}
    here = after[1] - before[1]
    cores = os.cpu_count() or 1
    used = sum(workers.values()) + here
    print(
        f"CPU during the sharded fit: {used:.1f} of the {cores * span:.1f} "
        f"core-seconds of {cores} cores over {span:.1f} s; learning all rows "
        f"took one process {one_time:.1f} s"
    )
    for i, (worker, seconds) in enumerate(workers.items()):
        print(
            f"  worker {i} ({worker}): {seconds:.1f} s busy, "
            f"{span - seconds:.1f} s idle"
        )
    print(f"  client, scheduler and nannies (this process): {here:.1f} s")


def ceiling(args) -> None:
    X, y = _concept(args.rows)
    Xd, yd = _dask_concept(args.rows)
    params = dict(random_state=0, discount=args.discount)
    LocalRegretTreeClassifier(**params).fit(X[:2000], y[:2000])  # warm
    start = time.perf_counter()
    one = LocalRegretTreeClassifier(**params).fit(X, y)
    one_time = time.perf_counter() - start
    start = time.perf_counter()
    alone = fit_sharded(
        LocalRegretTreeClassifier(**params),
        Xd,
        yd,
        classes=[0, 1],
        n_shards=args.workers,
        sync_every=args.rows,  # more rounds than a shard has: never synced
    )
    shard_time = (time.perf_counter() - start) / args.workers
    print(
        f"one process: {one_time:.1f} s; {args.workers} shards that never sync: "
        f"{shard_time:.1f} s each on average: a ceiling of "
        f"{one_time / shard_time:.2f}x (online error {one.online_error_:.4f} "
        f"and {alone.online_error_:.4f})"
    )


def spread(args) -> None:
    """The errors of one process and of the shards across seeds, in process:
    one seed's difference says little where the learner's own error moves
    from seed to seed."""
    X, y = _concept(args.rows + args.holdout + args.then)
    X_test, y_test = (
        X[args.rows : args.rows + args.holdout],
        y[args.rows : args.rows + args.holdout],
    )
    X_then, y_then = X[args.rows + args.holdout :], y[args.rows + args.holdout :]
    X, y = X[: args.rows], y[: args.rows]
    Xd, yd = _dask_concept(args.rows)  # the cluster's partitioning
    LocalRegretTreeClassifier().fit(X[:2000], y[:2000])  # warm
    print(
        f"{args.rows:,} rows, {args.workers} shards (the cluster's partitions), "
        f"sync_every={args.sync_every[0]}, discount={args.discount}; "
        f"held out: the {args.holdout:,} rows that follow"
        + (
            f"; then both learn {args.then:,} more rows in one process"
            if args.then
            else ""
        )
    )
    groups = ["online error", "held-out error"] + (
        ["held-out, then"] if args.then else []
    )
    print(
        f"{'':>4}" + "".join(f" {g:^32}" for g in groups) + "\n"
        f"{'seed':>4}"
        + f" {'one process':>12} {'sharded':>8} {'difference':>10}"
        * len(groups)
    )
    errors = []  # per seed: one process and sharded, per group
    for seed in args.seeds:
        params = dict(random_state=seed, discount=args.discount)
        one = LocalRegretTreeClassifier(**params).fit(X, y)
        sharded = fit_sharded(
            LocalRegretTreeClassifier(**params),
            Xd,
            yd,
            classes=[0, 1],
            n_shards=args.workers,
            sync_every=args.sync_every[0],
        )
        row = [one.online_error_, sharded.online_error_]
        row += [1 - m.score(X_test, y_test) for m in (one, sharded)]
        if args.then:
            for m in (one, sharded):
                m.partial_fit(X_then, y_then)
            row += [1 - m.score(X_test, y_test) for m in (one, sharded)]
        errors.append(row)
        print(f"{seed:>4}" + _spread_columns(row), flush=True)
    table = np.array(errors)
    print("mean" + _spread_columns(table.mean(axis=0)))
    for col, name in enumerate(groups):
        one_col, sharded_col = table[:, 2 * col], table[:, 2 * col + 1]
        print(
            f"{name}: one process from {one_col.min():.4f} to {one_col.max():.4f}; "
            f"sharded from {sharded_col.min():.4f} to {sharded_col.max():.4f}"
        )


def _spread_columns(errors) -> str:
    """Pairs of errors (one process, sharded) with their difference."""
    pairs = zip(errors[0::2], errors[1::2])
    return "".join(f" {a:>12.4f} {b:>8.4f} {b - a:>+10.4f}" for a, b in pairs)


#: Each mode's function, and its default --rows and --sync-every.
MODES = {
    "simulate": (simulate, 20_000, [1, 10, 100]),
    "cluster": (cluster, 1_000_000, [1000]),
    "ceiling": (ceiling, 1_000_000, None),
    "spread": (spread, 300_000, [1000]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    modes = parser.add_mutually_exclusive_group()
    for mode in MODES:
        modes.add_argument(f"--{mode}", action="store_true")
    parser.add_argument("--rows", type=int_in_range(1, MAX_ROWS), default=None)
    parser.add_argument("--holdout", type=int_in_range(1, MAX_ROWS), default=5000)
    parser.add_argument("--then", type=int_in_range(0, MAX_ROWS), default=0)
    parser.add_argument("--seeds", type=seed_int, nargs="+", default=[0, 1])
    shards = int_in_range(1, MAX_SHARDS)
    parser.add_argument(
        "--shards", type=shards, nargs="+", default=[1, 2, 4, 8, 16, 32, 64]
    )
    parser.add_argument("--sync-every", type=positive_int, nargs="+", default=None)
    parser.add_argument("--workers", type=shards, default=2)
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--no-worker-profiler", action="store_true")
    parser.add_argument("--discount", type=discount_float, default=0.99)
    parser.add_argument(
        "--mmap-threshold", type=int_in_range(0, MAX_MMAP), default=MAX_MMAP
    )
    parser.add_argument("--streams", nargs="+", choices=list(STREAMS), metavar="NAME")
    args = parser.parse_args()
    mode = next((mode for mode in MODES if getattr(args, mode)), "simulate")
    run, rows, sync_every = MODES[mode]
    args.rows, args.sync_every = args.rows or rows, args.sync_every or sync_every
    if mode == "simulate":
        streams = available_streams(parser, "--streams", args.streams, STREAMS_)
        check_stream_rows(
            parser, "--rows + --holdout", streams, args.rows + args.holdout
        )
        args.streams = streams
    run(args)


if __name__ == "__main__":
    main()
