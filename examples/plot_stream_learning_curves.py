"""
Learning curves on a stream of disjunctions
===========================================

:class:`~sklearn_localregret.LocalRegretDisjunctClassifier` learns a
disjunction ``x_i OR x_j OR ...`` of boolean features online, one
``partial_fit`` call per chunk of the stream. This example compares it with
two other online learners that take the same chunks:
:class:`~sklearn.linear_model.SGDClassifier` (a linear model) and
:class:`~sklearn_localregret.baselines.Winnow2Classifier` (the classical
online disjunction learner), on two streams:

* a disjunction of 3 of 20 features whose labels are flipped at random
  (label noise), and
* the paper's "Winnow killer": no disjunction is perfect, and the stream is
  built so that Winnow2's multiplicative updates keep going wrong.

Local regret promises, with no assumption on how the stream is generated, to
do about as well as every disjunction one literal away from the ones played;
the curves show what that buys on these two streams.
"""

# %%
# Two streams
# -----------
# Both streams have 20 boolean features and 3000 rows, and arrive in chunks
# of 25 rows. In the first one each feature is on with probability 0.2, the
# label is ``x0 OR x3 OR x7`` (true for about half of the rows), and 10% of the
# labels are flipped at random: no predictor can expect to err on fewer than
# 10% of the rows, and the planted disjunction errs on exactly the flipped
# ones.
#
# The Winnow killer draws each row from 21 fixed ones: the 20 rows with a
# single feature on (label 1) and the row with every feature on (label 0).
# A disjunction that contains a feature is wrong on the all-ones row, and the
# empty disjunction is wrong on all the others, so the best disjunction (all
# 20 features) errs on the all-ones rows only, about 1/21 of the stream.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import SGDClassifier

from sklearn_localregret import LocalRegretDisjunctClassifier
from sklearn_localregret.baselines import Winnow2Classifier

N_FEATURES, N_ROWS, CHUNK = 20, 3000, 25
NOISE = 0.1
rng = np.random.default_rng(0)


def noisy_disjunction_stream():
    X = (rng.random((N_ROWS, N_FEATURES)) < 0.2).astype(np.uint8)
    y = X[:, [0, 3, 7]].any(axis=1).astype(int)
    flip = rng.random(N_ROWS) < NOISE
    y[flip] = 1 - y[flip]
    # The planted disjunction errs exactly on the flipped rows.
    return X, y, ("planted disjunction", flip.mean())


def winnow_killer_stream():
    pool = np.vstack(
        [np.eye(N_FEATURES, dtype=np.uint8), np.ones((1, N_FEATURES), dtype=np.uint8)]
    )
    labels = np.r_[np.ones(N_FEATURES, dtype=int), 0]
    rows = rng.integers(0, N_FEATURES + 1, size=N_ROWS)
    y = labels[rows]
    # The best disjunction is all features (wrong on the all-ones rows) or the
    # empty one (wrong on all the others).
    best = min(np.mean(y == 0), np.mean(y == 1))
    return pool[rows], y, ("best disjunction", best)


streams = {
    "x0 OR x3 OR x7, 10% label noise": noisy_disjunction_stream(),
    "Winnow killer": winnow_killer_stream(),
}

# %%
# Prequential evaluation
# ----------------------
# Every learner sees the stream in the same chunks. Each chunk is first
# predicted by the current model, then learned with ``partial_fit`` (the
# "test-then-train" or prequential protocol), so every prediction is made
# before the learner has seen the label. We record the cumulative error rate:
# mistakes so far divided by rows so far. The first chunk, seen before any
# training, counts as half wrong for everyone.
#
# ``SGDClassifier`` uses ``average=True``: under label noise the last iterate
# of plain SGD moves around a lot, and averaging gives it a fairer chance.
# The local regret learner uses its defaults: as in the paper, ``L = inf``,
# ``b = 0`` and one round per row, but not the paper's locality graph. The
# default ``graph="auto"`` means ``"removal-sets"`` with external regret:
# to the paper's hypercube of one-literal changes it adds moves that drop
# several literals at once, every literal true in a negative row that the
# played disjunction fired on through two or more literals (a pool of at
# most 32 such sets). ``graph="hypercube"`` is the paper's algorithm. The
# regret for not having added or removed single literals stays bounded with
# the larger graph.


def make_learners():
    return {
        "local regret (external)": LocalRegretDisjunctClassifier(random_state=0),
        "Winnow2": Winnow2Classifier(),
        "SGDClassifier (averaged)": SGDClassifier(average=True, random_state=0),
    }


def prequential_curve(model, X, y):
    mistakes = []
    for start in range(0, len(y), CHUNK):
        X_chunk, y_chunk = X[start : start + CHUNK], y[start : start + CHUNK]
        if start == 0:
            mistakes.append(len(y_chunk) / 2)
        else:
            mistakes.append(np.sum(model.predict(X_chunk) != y_chunk))
        model.partial_fit(X_chunk, y_chunk, classes=[0, 1])
    rows = np.minimum(np.arange(1, len(mistakes) + 1) * CHUNK, len(y))
    return rows, np.cumsum(mistakes) / rows


curves, fitted = {}, {}
for stream_name, (X, y, _) in streams.items():
    learners = make_learners()
    curves[stream_name] = {
        name: prequential_curve(model, X, y) for name, model in learners.items()
    }
    fitted[stream_name] = learners

# %%
# Results
# -------
# The table shows each learner's cumulative prequential error over the whole
# stream, and the reference disjunction's error. The lines below it show, for
# the local regret learner, ``online_error_``, the error of the disjunctions
# it actually *played* (random draws from its distribution, one per row),
# which ``partial_fit`` records by itself; the disjunction it learned; and
# ``linear_weight_`` (see below).

print(f"{'stream':<34}{'learner':<26}{'cumulative error':>17}")
for stream_name, by_learner in curves.items():
    for name, (rows, error) in by_learner.items():
        print(f"{stream_name:<34}{name:<26}{error[-1]:>17.3f}")
    reference, reference_error = streams[stream_name][2]
    print(f"{stream_name:<34}{reference:<26}{reference_error:>17.3f}")
for stream_name, learners in fitted.items():
    model = learners["local regret (external)"]
    literals = model.disjunction()
    shown = " OR ".join(literals[:4]) + (" OR ..." if len(literals) > 4 else "")
    print(
        f"{stream_name}: online_error_ = {model.online_error_:.3f}; "
        f"learned a disjunction of {len(literals)} features: {shown or 'empty'}; "
        f"linear_weight_ = {model.linear_weight_:.3f}"
    )

# %%
# On the noisy stream the local regret learner finds the planted disjunction
# and its error comes down close to the noise level, as does averaged SGD;
# Winnow2, whose weights move after every mistake, including the ones the
# noise causes, stays clearly above it. On the Winnow killer the local regret
# learner's plays settle on the disjunction of all 20 features, the best one
# (``online_error_`` near its 1/21), while Winnow2 is wrong on most rows.
# The Winnow killer is linearly separable (negative weights and a positive
# intercept separate it), so SGDClassifier, which is not restricted to
# disjunctions, does better than any disjunction there; so does the local
# regret learner's ``predict``, whose default hedge weighs a linear model of
# the features beside the disjunctions' vote and play and follows the one
# that errs least on the stream (``linear_weight_``, printed above: all of
# the weight on the Winnow killer, none on the noisy stream;
# ``prediction="vote"`` predicts with the disjunctions alone).

fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, (stream_name, by_learner) in zip(axes, curves.items()):
    for name, (rows, error) in by_learner.items():
        ax.plot(rows, error, label=name)
    reference, reference_error = streams[stream_name][2]
    ax.axhline(reference_error, color="k", linestyle=":", label=reference)
    ax.set_title(stream_name)
    ax.set_xlabel("rows seen")
    ax.set_ylim(0, 1)
    ax.legend()
axes[0].set_ylabel("cumulative prequential error")
fig.tight_layout()
plt.show()
