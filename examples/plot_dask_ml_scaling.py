"""
Streaming dask arrays through partial_fit with dask-ml
======================================================

Data that does not fit in memory is often held as a chunked
`dask <https://www.dask.org>`_ array. :class:`dask_ml.wrappers.Incremental`
trains any estimator that has ``partial_fit`` on such an array one block at a
time, so only one block is in memory at once. The local regret learners are
online learners, so they fit this pattern directly. This example streams
the mushroom data through
:class:`~sklearn_localregret.LocalRegretTreeClassifier` with ``Incremental``,
checks that the result is exactly the model of plain ``partial_fit`` calls on
the same chunks, and follows accuracy and time block by block next to an
:class:`~sklearn.linear_model.SGDClassifier` wrapped the same way.
"""

# %%
# A chunked dask array
# --------------------
# The mushroom data, one boolean feature per attribute value (117 features),
# split into a training part held as a dask array of 250-row blocks and a test
# part. We use dask's synchronous scheduler: the blocks are computed in the
# calling thread, in order, with no cluster to start, which keeps the example
# deterministic. With a distributed cluster the same code would read the
# blocks from the workers.

import time

import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from dask_ml.wrappers import Incremental
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.datasets import load_mushroom

X, y = load_mushroom(return_X_y=True, one_hot=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
CHUNK = 250
dX = da.from_array(X_train, chunks=(CHUNK, X.shape[1]))
dy = da.from_array(y_train, chunks=CHUNK)
classes = np.unique(y)
print(
    f"training data: {dX.shape[0]} rows in {dX.numblocks[0]} blocks of "
    f"at most {CHUNK}; test data: {len(y_test)} rows"
)

# %%
# ``Incremental.fit`` equals ``partial_fit`` on the same chunks
# -------------------------------------------------------------
# ``Incremental.fit`` calls ``partial_fit`` once per block, passing on keyword
# arguments such as ``classes``. Two settings matter for an online learner:
#
# * ``shuffle_blocks=False``: by default ``Incremental`` visits the blocks in
#   a random order; an online learner's model depends on the order of its
#   rounds, so we keep the stream's order.
# * chunks that hold whole rounds: ``LocalRegretTreeClassifier`` plays one
#   round per ``batch_size=5`` rows, and a call's last round is short if its
#   rows do not fill it. Blocks of 250 rows (a multiple of 5) make the rounds
#   of the blocked stream the rounds of the whole stream.
#
# Then the wrapped model is exactly the one that calling ``partial_fit`` by
# hand on the same chunks gives.

with dask.config.set(scheduler="synchronous"):
    inc = Incremental(LocalRegretTreeClassifier(random_state=0), shuffle_blocks=False)
    inc.fit(dX, dy, classes=classes)

by_hand = LocalRegretTreeClassifier(random_state=0)
for start in range(0, len(y_train), CHUNK):
    by_hand.partial_fit(
        X_train[start : start + CHUNK], y_train[start : start + CHUNK], classes=classes
    )

fitted = inc.estimator_
print(
    "same rounds and mistakes:",
    (fitted.n_rounds_, fitted.n_online_mistakes_)
    == (by_hand.n_rounds_, by_hand.n_online_mistakes_),
)
print(
    "same predicted probabilities:",
    np.array_equal(fitted.predict_proba(X_test), by_hand.predict_proba(X_test)),
)

# %%
# ``Incremental`` also predicts block by block, returning a lazy dask array.

with dask.config.set(scheduler="synchronous"):
    dX_test = da.from_array(X_test, chunks=(1000, X.shape[1]))
    predicted = inc.predict(dX_test).compute()
print(f"test accuracy of the streamed tree: {np.mean(predicted == y_test):.3f}")

# %%
# Block by block
# --------------
# ``Incremental.partial_fit`` passes one dask array (here, one block) to the
# wrapped estimator, so calling it per block lets us look at the model
# between blocks. We do so for the local regret tree and for a linear
# ``SGDClassifier``, recording the test accuracy after each block and the
# time each block took to learn.

learners = {
    "LocalRegretTreeClassifier": LocalRegretTreeClassifier(random_state=0),
    "SGDClassifier": SGDClassifier(random_state=0),
}
curves = {}
with dask.config.set(scheduler="synchronous"):
    for name, estimator in learners.items():
        wrapped = Incremental(estimator, shuffle_blocks=False)
        accuracy, seconds = [], []
        for block in range(dX.numblocks[0]):
            tic = time.perf_counter()
            wrapped.partial_fit(dX.blocks[block], dy.blocks[block], classes=classes)
            seconds.append(time.perf_counter() - tic)
            accuracy.append(wrapped.estimator_.score(X_test, y_test))
        curves[name] = (np.array(accuracy), np.array(seconds))

rows_seen = np.minimum(np.arange(1, dX.numblocks[0] + 1) * CHUNK, len(y_train))
shown = [1, 5, 10, dX.numblocks[0]]  # blocks after which the errors are printed
print(f"{'':<27}{f'test rows wrong (of {len(y_test)}) after block':^36}")
print(f"{'learner':<27}" + "".join(f"{block:>9}" for block in shown) + "  ms per block")
for name, (accuracy, seconds) in curves.items():
    wrong = np.rint((1 - accuracy) * len(y_test)).astype(int)
    print(
        f"{name:<27}"
        + "".join(f"{wrong[block - 1]:>9}" for block in shown)
        + f"{1000 * np.median(seconds):>14.1f}"
    )
print("(ms per block: the median over the blocks)")

# %%
# Both learners end with fewer test errors than after the first block. On
# mushroom the tree is the more accurate at every printed block, and at the
# end it classifies every test row right; the linear model starts with
# several times the tree's errors, improves unevenly (the plot), and still
# misses a few rows at the end. The linear model is the cheaper per block:
# one pass of gradient steps, where the tree plays 50 rounds of 5 rows. The
# times include dask's overhead of materialising each block and vary from
# run to run; the last block is shorter than the others.

fig, (ax_acc, ax_time) = plt.subplots(1, 2, figsize=(11, 4))
for name, (accuracy, seconds) in curves.items():
    ax_acc.plot(rows_seen, accuracy, marker=".", label=name)
    ax_time.plot(rows_seen, 1000 * seconds, marker=".", label=name)
ax_acc.set_xlabel("training rows streamed")
ax_acc.set_ylabel("test accuracy")
ax_acc.legend()
ax_time.set_xlabel("training rows streamed")
ax_time.set_ylabel("milliseconds to learn the block")
ax_time.legend()
fig.suptitle("dask-ml Incremental on mushroom, 250-row blocks")
fig.tight_layout()
plt.show()
