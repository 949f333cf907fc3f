"""
Reading the tree learned online on nursery
==========================================

:class:`~sklearn_localregret.LocalRegretTreeClassifier` learns a decision tree
over boolean features online: every round of 5 rows it plays a tree drawn from
its regret-matching distribution, then updates the regrets of every local
change (replacing a subtree by a leaf or a stump) to it. This example fits it
on the UCI nursery data through a pipeline with the paper's boolean encoding,
prints the tree that summarises what it learnt, and follows it along the
stream against scikit-learn's offline
:class:`~sklearn.tree.DecisionTreeClassifier` retrained on everything seen so
far with the same number of leaves.
"""

# %%
# A pipeline: boolean encoding, then the online tree
# --------------------------------------------------
# Nursery has 8 categorical attributes and 5 classes.
# :func:`~sklearn_localregret.datasets.boolean_encoder` turns every
# ``attribute = value`` into a 0/1 feature named ``attribute=value`` (27 of
# them). ``fit`` on the pipeline is a single online pass over the training
# rows, in their order.
#
# Two parameters differ from the defaults, so that what we print and score is
# the tree:
#
# * ``leaf_model=None``: leaves are class labels only (the paper's locality
#   graph). With three classes or more the default ``"auto"`` also lets a
#   leaf be a naive Bayes model of the rows that reach it; on nursery the
#   tree that summarises the default learner is then a single such model
#   leaf, with nothing to read (printed below, with the default's test
#   accuracy, which is lower here).
# * ``prediction="vote"``: ``predict`` gives the most probable class under the
#   learner's distribution over trees. The default ``"hedge"`` also weighs
#   models of the columns kept at the root (naive Bayes and linear models),
#   so its accuracy would not be the trees' alone.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.datasets import boolean_encoder, load_nursery

X, y = load_nursery(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
PARAMS = dict(leaf_model=None, prediction="vote", random_state=0)
model = make_pipeline(boolean_encoder(), LocalRegretTreeClassifier(**PARAMS))
model.fit(X_train, y_train)
tree = model[-1]
majority = y_test.value_counts(normalize=True).max()
print(
    f"test accuracy {model.score(X_test, y_test):.3f} (majority class "
    f"{majority:.3f}); online error of the played trees "
    f"{tree.online_error_:.3f} over {tree.n_rounds_} rounds"
)
default = make_pipeline(boolean_encoder(), LocalRegretTreeClassifier(random_state=0))
default.fit(X_train, y_train)
print(
    f"default parameters: test accuracy {default.score(X_test, y_test):.3f}, "
    f"representative tree {default[-1].export_text()!r}"
)

# %%
# The learned tree
# ----------------
# The learner holds a *distribution* over trees; ``predict`` uses it as a
# whole (the exact probability of each class under the distribution, computed
# without drawing trees).
# :meth:`~sklearn_localregret.LocalRegretTreeClassifier.representative_tree`
# summarises it as one tree, which
# :meth:`~sklearn_localregret.LocalRegretTreeClassifier.export_text` prints
# like :func:`sklearn.tree.export_text`, here with the encoder's feature
# names. A test ``health=not_recom <= 0.50`` reads "health is not
# not_recom".
#
# In the tree printed below, ``health=not_recom`` alone decides
# ``not_recom``, and below the other branch the first splits are on
# ``has_nurs`` (the nursery) and ``parents``. Because the summary is built
# greedily, node by node, it can in general contain a split whose two leaves
# predict the same class, or that tests a value the path has already ruled
# out (one-hot features of the same attribute exclude each other); such a
# split changes no prediction.

print(tree.export_text(feature_names=model[0].get_feature_names_out()))
print(f"depth {tree.get_depth()}, {tree.get_n_leaves()} leaves")

# %%
# Following the stream
# --------------------
# To watch the learner along the stream we use the two steps of the same
# pipeline by hand: the fitted encoder (in an online setting the attribute
# values would be known in advance) and a fresh tree fed with ``partial_fit``
# in chunks of 500 rows. Chunks hold whole rounds of 5 rows, so this plays
# exactly the rounds of ``fit`` above and ends with the same model.
#
# After each chunk we record the test accuracy, the cumulative online error of
# the played trees, and the number of leaves of the representative tree; and
# we retrain a ``DecisionTreeClassifier`` on every row seen so far, limited to
# the same number of leaves, as an offline yardstick of that size.

encoder = model[0]
X_train_bool, X_test_bool = encoder.transform(X_train), encoder.transform(X_test)
y_train_arr = np.asarray(y_train)
CHUNK = 500
stream_tree = LocalRegretTreeClassifier(**PARAMS)
seen, acc_ours, acc_offline, online_error, leaves = [], [], [], [], []
for start in range(0, len(y_train_arr), CHUNK):
    stop = min(start + CHUNK, len(y_train_arr))
    stream_tree.partial_fit(
        X_train_bool[start:stop], y_train_arr[start:stop], classes=tree.classes_
    )
    n_leaves = stream_tree.get_n_leaves()
    offline = DecisionTreeClassifier(max_leaf_nodes=max(n_leaves, 2), random_state=0)
    offline.fit(X_train_bool[:stop], y_train_arr[:stop])
    seen.append(stop)
    acc_ours.append(stream_tree.score(X_test_bool, y_test))
    acc_offline.append(offline.score(X_test_bool, y_test))
    online_error.append(stream_tree.online_error_)
    leaves.append(n_leaves)

same = np.array_equal(
    stream_tree.predict_proba(X_test_bool), tree.predict_proba(X_test_bool)
)
print(f"partial_fit in chunks gives the same model as fit: {same}")

print(f"{'rows seen':>9}  {'ours':>6}  {'offline, same leaves':>20}  {'leaves':>6}")
for i in range(len(seen)):
    print(f"{seen[i]:>9}  {acc_ours[i]:>6.3f}  {acc_offline[i]:>20.3f}  {leaves[i]:>6}")
ahead = sum(off > ours for ours, off in zip(acc_ours, acc_offline))
print(f"the offline tree is ahead after {ahead} of {len(seen)} chunks")

# %%
# The online tree's test accuracy rises over the first thousand or so rows,
# far above always predicting the majority class, and then stays about level.
# The representative tree grows fast at first, wavers for a few thousand
# rows, and then keeps the same number of leaves to the end of the stream.
# The cumulative online accuracy of the trees it actually played is lower: it
# counts the early rounds, and every round plays a random draw from the
# distribution rather than its consensus.
#
# The offline tree of the same size, retrained on every past row, does not
# beat it here: it is behind at the start, ahead after only one chunk, by
# little, and behind again once the representative tree has settled. The
# race is not quite even: the vote reads the whole distribution over trees,
# of which the representative tree whose leaves we count is a summary. Nor
# does the local regret learner's guarantee rely on what makes nursery easy
# (labels that are a fixed function of the attributes, rows in random
# order): it also holds when the stream is adversarial.

fig, (ax_acc, ax_size) = plt.subplots(1, 2, figsize=(11, 4))
ax_acc.plot(seen, acc_ours, label="local regret tree (test accuracy)")
ax_acc.plot(seen, acc_offline, label="DecisionTree, same leaves, retrained")
ax_acc.plot(
    seen,
    1 - np.array(online_error),
    label="local regret tree (online accuracy of played trees)",
)
ax_acc.axhline(majority, color="gray", linestyle=":", label="majority class")
ax_acc.set_xlabel("training rows seen")
ax_acc.set_ylabel("accuracy")
ax_acc.set_ylim(0, 1)
ax_acc.legend(loc="lower right", fontsize="small")
ax_size.step(seen, leaves, where="post")
ax_size.set_xlabel("training rows seen")
ax_size.set_ylabel("leaves of the representative tree")
fig.suptitle("LocalRegretTreeClassifier on nursery")
fig.tight_layout()
plt.show()
