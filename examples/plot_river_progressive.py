"""
Progressive validation with River
=================================

`River <https://riverml.xyz>`_ is a library for learning from streams one
row at a time. Its :func:`river.compat.convert_sklearn_to_river` wraps any
scikit-learn estimator with ``partial_fit`` as a River classifier, so the
local regret learners can be evaluated with River's tools and compared with
River's own models. This example runs River's progressive validation
(predict each row, then learn it) on the kr-vs-kp chess data for
:class:`~sklearn_localregret.LocalRegretTreeClassifier`, River's
:class:`~river.tree.HoeffdingTreeClassifier` and River's Bernoulli naive
Bayes, and plots the accuracy along the stream.
"""

# %%
# A stream of dicts
# -----------------
# River models read one row at a time as a ``dict`` of feature name to value.
# :func:`river.stream.iter_array` turns arrays into such a stream. We use
# kr-vs-kp with one boolean feature per attribute value (73 features, named
# ``attribute=value``), in a fixed random order, and keep 1200 of its 3196
# rows so the example runs quickly.

import time

import matplotlib.pyplot as plt
from river import compat, evaluate, metrics, naive_bayes, stream, tree

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.datasets import load_kr_vs_kp

X, y = load_kr_vs_kp(return_X_y=True, as_frame=True, one_hot=True)
X = X.sample(n=1200, random_state=0)
y = y.loc[X.index]
classes = sorted(y.unique())


def rows():
    """A fresh stream of (features dict, label) pairs."""
    return stream.iter_array(X.to_numpy(), y.to_numpy(), feature_names=list(X.columns))


x_first, y_first = next(rows())
print(
    f"{len(X)} rows, {len(x_first)} features per row, label {y_first!r}; "
    f"classes {classes}"
)

# %%
# The models
# ----------
# ``convert_sklearn_to_river`` needs the list of classes up front; it passes
# them to ``partial_fit``. Every ``learn_one`` is one ``partial_fit`` call
# with a single row, a short round of its own that learns its row at once;
# the tree learner goes on playing the tree it drew until such rounds make
# ``batch_size`` rows (one tree per ``batch_size`` rows, as in a call of
# that many). Every ``predict_one`` is one ``predict`` call:
# the tree learner computes the probability of each class under its
# distribution over trees exactly, without drawing trees.


def make_models():
    local_regret = LocalRegretTreeClassifier(random_state=0)
    return {
        "LocalRegretTreeClassifier": compat.convert_sklearn_to_river(
            local_regret, classes=classes
        ),
        "river HoeffdingTreeClassifier": tree.HoeffdingTreeClassifier(),
        "river BernoulliNB": naive_bayes.BernoulliNB(),
    }


# %%
# Progressive validation
# ----------------------
# :func:`river.evaluate.iter_progressive_val_score` predicts each row before
# learning it and yields a checkpoint every ``step`` rows. The metric in the
# checkpoints is one object updated in place, so we read its value with
# ``.get()`` as each checkpoint arrives.

STEP = 50
curves, seconds = {}, {}
for name, model in make_models().items():
    tic = time.perf_counter()
    checkpoints = evaluate.iter_progressive_val_score(
        rows(), model, metrics.Accuracy(), step=STEP
    )
    steps, accuracy = [], []
    for checkpoint in checkpoints:
        steps.append(checkpoint["Step"])
        accuracy.append(checkpoint["Accuracy"].get())
    seconds[name] = time.perf_counter() - tic
    curves[name] = (steps, accuracy)

print(f"{'model':<32}{'after 500 rows':>16}{f'after {len(X)} rows':>17}{'seconds':>9}")
for name, (steps, accuracy) in curves.items():
    print(
        f"{name:<32}{accuracy[steps.index(500)]:>16.3f}{accuracy[-1]:>17.3f}"
        f"{seconds[name]:>9.1f}"
    )

# %%
# Progressive accuracy counts every prediction made so far, so early
# mistakes weigh on it for the whole stream. On this sample the local regret
# tree is ahead of the Hoeffding tree, which waits for statistical evidence
# before each split, and of the simple naive Bayes model, whose per-row cost
# is the lowest of the three. The local regret tree is the slowest of the
# three here: each ``learn_one`` and ``predict_one`` is a scikit-learn call on
# one row (with its input validation, and a round of its own), and each
# prediction visits the sites of the regret table on the row's paths.

fig, ax = plt.subplots(figsize=(8, 4.5))
for name, (steps, accuracy) in curves.items():
    ax.plot(steps, accuracy, label=name)
majority = y.value_counts(normalize=True).max()
ax.axhline(majority, color="gray", linestyle=":", label="majority class")
ax.set_xlabel("rows seen")
ax.set_ylabel("progressive accuracy")
ax.set_title("River progressive validation on kr-vs-kp")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()
