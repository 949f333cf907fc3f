"""
Learning on a cluster: sharded trees on dask.distributed
========================================================

:func:`~sklearn_localregret.distributed.fit_sharded` learns a stream on
several workers at once: each worker (a *shard*) learns its own partitions of
a Dask array, and every ``sync_every`` rounds the workers' increments of the
regret tables are summed into one model, which all shards start the next
window from. Because the learners' state is a sum over rounds, the summed
model is exactly the table of all the rounds played; what sharding costs is
that each shard plays from a table that misses the other shards' latest
rounds (see the user guide, "Learning on a cluster").

Here: the chess endgame stream kr-vs-kp (73 boolean features) on a
``LocalCluster`` of two workers, then, in one process, how the error of the
plays grows with the number of shards and ``sync_every``.
"""

# %%
# Two workers of a LocalCluster
# -----------------------------
# The rows are a Dask array of 1,000-row chunks; the chunks are dealt to the
# shards in turn. ``processes=False`` keeps the example light (threads of
# this process); a real cluster uses worker processes or machines, and
# gives the same model: the result depends on the data, the partitioning,
# ``sync_every`` and ``random_state``, never on timing.
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.datasets.streams import load_stream
from sklearn_localregret.distributed import fit_sharded

stream = load_stream("kr-vs-kp", n_rows=10_000, seed=0)
X, y = stream.X[:8000], stream.y[:8000]
X_test, y_test = stream.X[8000:], stream.y[8000:]
Xd = da.from_array(X, chunks=(1000, -1))
yd = da.from_array(y, chunks=1000)

with (
    LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster,
    Client(cluster) as client,
):
    sharded = fit_sharded(
        LocalRegretTreeClassifier(random_state=0), Xd, yd, client=client, sync_every=20
    )

sequential = LocalRegretTreeClassifier(random_state=0).fit(X, y)
print(f"sharded on 2 workers: {sharded.n_rounds_} rounds learnt")
for name, clf in [("one process", sequential), ("2 shards", sharded)]:
    print(
        f"{name:>12}: online error {clf.online_error_:.3f}, "
        f"held-out error {1 - clf.score(X_test, y_test):.3f}"
    )

# %%
# The result is an ordinary fitted learner: it predicts, learns on with
# ``partial_fit``, merges with another (``merge``) and saves as any other.
sharded.partial_fit(X_test[:100], y_test[:100])
print(f"after partial_fit: {sharded.n_samples_seen_} rows")

# %%
# More shards, staler tables
# --------------------------
# Without a client, ``fit_sharded`` learns the shards one after the other in
# this process: the same model as a cluster of ``n_shards`` workers would
# learn. A shard's plays miss at most ``(n_shards - 1) * sync_every`` rounds
# of the others; the error of the plays (the online error) grows with that
# staleness (the user guide's "Learning on a cluster" measures the final
# model's held-out error too).
shard_counts = [1, 4, 16]
fig, ax = plt.subplots(figsize=(6, 3.5))
for sync_every in (5, 50):
    online = []
    for n_shards in shard_counts:
        clf = fit_sharded(
            LocalRegretTreeClassifier(random_state=0),
            X,
            y,
            n_shards=n_shards,
            sync_every=sync_every,
        )
        online.append(clf.online_error_)
    ax.plot(shard_counts, online, marker="o", label=f"sync_every={sync_every}")
    print(f"sync_every={sync_every}: online error", np.round(online, 3))
ax.set_xscale("log", base=2)
ax.set_xlabel("shards")
ax.set_ylabel("online error of the plays")
ax.set_title("kr-vs-kp, 8,000 rows")
ax.legend()
fig.tight_layout()
