"""Sharded learning: workers learn their rows apart, their increments summed.

:func:`fit_sharded` splits a stream into shards (a Dask array's or
DataFrame's partitions, dealt to the shards in turn), and learns them in
*windows*: in each window every shard learns its next ``sync_every`` rounds
on its own learner, then the shards' increments (the regret rows the window
touched, the counters) are summed and every shard takes in the others'
(:mod:`sklearn_localregret.merging._sync`): after each sync all shards hold
the regrets of :func:`~sklearn_localregret.merging.absorb_shards` of the
window. The shards run on the workers of a ``dask.distributed`` client,
where their learners and rows stay, or one after the other in this process
when no client is given (the same result: it is a function of the data, the
partitioning, ``sync_every`` and ``random_state``, never of timing).

The guarantee with stale tables is in the user guide ("Learning on a
cluster"): every shard plays from a table that misses at most
``(n_shards - 1) * sync_every`` rounds of the other shards, and the local
regret bound pays a factor ``sqrt(1 + 2 tau)`` on its vanishing term for a
delay of ``tau`` rounds.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ._base.input_checks import check_labels_present
from .merging._core import dumps, merger_of
from .merging._shards import Shards, is_dask, rows_of

__all__ = ["fit_sharded"]


def fit_sharded(
    estimator,
    X,
    y,
    *,
    classes=None,
    sync_every: int = 50,
    client=None,
    n_shards: int | None = None,
):
    """Learn ``X, y`` on shards that sync every ``sync_every`` rounds.

    Parameters
    ----------
    estimator : LocalRegretTreeClassifier, LocalRegretForestClassifier or \
LocalRegretDisjunctClassifier
        The learner; a clone is fitted (``estimator`` is not changed).
    X : {dask array, dask DataFrame, array-like, sparse matrix, pandas DataFrame}
        Rows. A Dask collection's partitions (row chunks) are dealt to the
        shards in turn: partition ``p`` to shard ``p % n_shards``, each
        shard's stream being its partitions in order. An in-memory array is
        cut into ``n_shards`` contiguous blocks.
    y : {dask array, dask Series, array-like, pandas Series}
        Labels, partitioned as ``X``.
    classes : array-like or None, default=None
        All the classes; None computes them from ``y`` (one pass).
    sync_every : int, default=50
        Rounds each shard learns between two syncs (``sync_every *
        batch_size`` rows). Smaller: the shards' models are fresher (closer
        to the sequential learner) and the syncs more frequent.
    client : distributed.Client or None, default=None
        The cluster. None: the shards are learnt one after the other in this
        process (the same model as on a cluster).
    n_shards : int or None, default=None
        Number of shards. None: the client's workers (1 without a client).
        Each shard's windows run on one worker (shard ``i`` on worker ``i %
        n_workers``), where its rows stay.

    Returns
    -------
    estimator
        A fitted learner, as ``fit`` returns: ``partial_fit``, ``predict``,
        ``merge`` and saving work as usual.

    Notes
    -----
    The rounds before the learner's tests are settled (the tree's
    thresholds come from its first 256 rows, a late column's up to 65,536
    rows after; a forest's, every member's)
    are learnt in one process from the first shard's rows (the stream's
    first rows, as ``fit`` learns them, when the partitions are in stream
    order; the next shard's when the first runs out): tests that differ
    between shards could not be added, and the shards start from the model
    ``fit`` would have at that point, thresholds included. A column whose
    first missing value, or a category first met, comes after that is a
    ``ValueError`` at the next sync (its new tests differ between shards):
    encode such columns, or set ``binarize``. A forest's member replaced after a drift
    on a shard is sent whole at the next sync (the other shards' rounds of
    the old member are dropped), and so, at each sync until its tests are
    settled, is the first shard's copy of it
    (:mod:`sklearn_localregret.merging._forest`).

    A shard's learner lives on its worker between syncs: a worker that
    leaves the cluster during the fit takes it along, and ``fit_sharded``
    raises ``RuntimeError`` (within seconds: it checks the shards' workers
    while it waits) instead of waiting for windows no worker may run; run
    it again.

    At a sync each worker fetches the shards' increments and sums them
    itself, in shard order (every shard holds the same sum; nothing passes
    through the client): the regret rows the window touched (a tree's
    played paths), not the whole table, so its cost grows with
    ``sync_every`` far more slowly than the rounds' own work. The shards'
    learners differ only in what is not a sum (the window of recent rows of
    the tree's warm start, the last played action, the random state, a
    forest's drift detectors); the learner returned is the first shard's.

    Keep ``(n_shards - 1) * sync_every`` within the learner's memory
    (``1 / (1 - discount)`` rounds): with longer windows the shards' tables
    settle apart, and their sum may play neither's trees until it learns
    more rows (the user guide, "Learning on a cluster"). On dask, start the
    workers with ``MALLOC_MMAP_THRESHOLD_`` set (for example
    ``dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_":
    2**25})`` before the cluster starts): the nanny's
    ``MALLOC_TRIM_THRESHOLD_`` turns glibc's adaptive mmap threshold off,
    and the rounds then ran ~1.3x and the syncs ~4x slower on the workers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret import LocalRegretTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(4000, 6))
    >>> y = X[:, 0] & X[:, 1] | X[:, 2]
    >>> clf = fit_sharded(LocalRegretTreeClassifier(random_state=0), X, y,
    ...                   n_shards=4, sync_every=20)
    >>> clf.n_samples_seen_, round(clf.score(X, y), 3)
    (4000, 1.0)

    On a cluster (``pip install "sklearn-localregret[distributed]"``):

    >>> from distributed import Client, LocalCluster  # doctest: +SKIP
    >>> import dask.array as da  # doctest: +SKIP
    >>> with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, \\
    ...         Client(cluster) as client:  # doctest: +SKIP
    ...     Xd = da.from_array(X, chunks=(1000, -1))
    ...     yd = da.from_array(y, chunks=1000)
    ...     clf = fit_sharded(LocalRegretTreeClassifier(random_state=0),
    ...                       Xd, yd, client=client, sync_every=20)
    """
    _check_learner(estimator)
    if not isinstance(sync_every, Integral) or isinstance(sync_every, bool):
        raise TypeError(f"sync_every must be an int; got {sync_every!r}")
    if sync_every < 1:
        raise ValueError(f"sync_every must be >= 1; got {sync_every}")
    workers = _workers(client)
    if client is not None and not workers:
        raise ValueError(
            "the client's cluster has no workers (yet): wait for them first, "
            "for example client.wait_for_workers(2)"
        )
    if n_shards is None:
        n_shards = len(workers) if workers else 1
    if not isinstance(n_shards, Integral) or isinstance(n_shards, bool):
        raise TypeError(f"n_shards must be an int or None; got {n_shards!r}")
    if n_shards < 1:
        raise ValueError(f"n_shards must be >= 1; got {n_shards}")
    if classes is None:
        classes = _classes(y)
    streams = _shard_streams(X, y, int(n_shards))
    model = clone(estimator)
    shards = Shards(streams, client, workers)
    if sum(shards.lengths) == 0:
        shards.close()
        raise ValueError("X has no rows (0 samples): there is nothing to learn")
    rows = sync_every * model.batch_size
    # Before the tests are settled, one process learns the first rows, as
    # ``fit`` would (see Notes).
    while not shards.done() and not _ready(model):
        part = shards.take(shards.first_with_rows(), model.batch_size)
        model.partial_fit(*part, classes=classes)
    if shards.done():
        shards.close()
        return model
    merger_of(model).check(model, model)  # what cannot be merged cannot shard
    seeds: list = [None]  # one shard: the sequential learner, its own draws
    if len(streams) > 1:
        seeds = list(
            np.random.default_rng(_seed(model)).integers(2**63, size=len(streams))
        )
    try:
        shards.start(dumps(model), seeds)
        last = None  # the last window's deltas
        while not shards.done():
            last = shards.window(rows, classes, last)
        return shards.finish(last)
    finally:
        shards.close()


def _check_learner(estimator) -> None:
    from . import (
        LocalRegretDisjunctClassifier,
        LocalRegretForestClassifier,
        LocalRegretTreeClassifier,
    )

    kinds = (
        LocalRegretTreeClassifier,
        LocalRegretForestClassifier,
        LocalRegretDisjunctClassifier,
    )
    if not isinstance(estimator, kinds):
        raise TypeError(
            "fit_sharded learns a LocalRegretTreeClassifier, "
            "LocalRegretForestClassifier or LocalRegretDisjunctClassifier; got "
            f"{type(estimator).__name__} (its state is not a sum the shards "
            "could add up)"
        )


# -- the shards' streams --------------------------------------------------
def _classes(y) -> np.ndarray:
    try:
        if is_dask(y):
            import dask.array as da

            values = y.to_dask_array(lengths=True) if hasattr(y, "to_dask_array") else y
            return np.asarray(da.unique(values).compute())
        check_labels_present(y)
        return np.unique(np.asarray(y))
    except TypeError:  # None beside strings, or labels of mixed types
        raise ValueError(
            "y's labels cannot be sorted: a missing label (None) or labels of "
            "mixed types; drop the rows of missing labels, or give classes="
        ) from None


def _shard_streams(X, y, n_shards: int) -> list:
    """Per shard, the (X, y) partitions it learns, in order (lazy for Dask)."""
    if is_dask(X) != is_dask(y):
        raise TypeError("X and y must both be Dask collections or neither")
    if is_dask(X):
        x_parts, y_parts = _partitions(X), _partitions(y)
        if len(x_parts) != len(y_parts):
            raise ValueError(
                f"X and y have different partitions: {len(x_parts)} and "
                f"{len(y_parts)}; rechunk them alike"
            )
        return [
            (x_parts[i::n_shards], y_parts[i::n_shards])
            for i in range(min(n_shards, len(x_parts)))
        ]
    if sp.issparse(X):  # rows sliced: CSR (a COO matrix has no rows)
        X = sp.csr_matrix(X)
    elif not hasattr(X, "shape"):  # lists of rows, as fit takes them
        X = np.asarray(X)
    if not hasattr(y, "shape"):
        y = np.asarray(y)
    n = len(y)
    if getattr(X, "shape", (n,))[0] != n:
        raise ValueError(f"X and y have different lengths: {X.shape[0]} and {n}")
    bounds = np.linspace(0, n, n_shards + 1).round().astype(int)
    return [
        ([rows_of(X, lo, hi)], [rows_of(y, lo, hi)])
        for lo, hi in zip(bounds[:-1], bounds[1:])
        if hi > lo
    ]


def _partitions(obj) -> list:
    if obj.ndim == 2 and hasattr(obj, "rechunk"):  # a Dask array: whole rows
        obj = obj.rechunk({1: -1})
    return list(np.ravel(obj.to_delayed()))


def _workers(client) -> list:
    if client is None:
        return []
    if not hasattr(client, "scheduler_info"):
        raise TypeError(
            f"client must be a dask.distributed.Client or None; got {client!r}"
        )
    return sorted(client.scheduler_info()["workers"])


def _ready(model) -> bool:
    """Whether the shards may learn apart: the model is fitted, its tests
    settled (a forest's: every member's)."""
    if not hasattr(model, "n_rounds_"):
        return False
    try:
        merger = merger_of(model)
    except TypeError:
        return True  # refused when the shards would start
    return merger.ready(model)


def _seed(model) -> int:
    """A seed for the shards' draws, from the learner's ``random_state``."""
    rng = model.__dict__.get("_rng")
    if rng is None:
        rs = model.random_state
        rng = np.random.default_rng(int(rs) if isinstance(rs, Integral) else None)
    return int(rng.integers(2**63))
