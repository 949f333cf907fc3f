"""
Tuning an online tree with GridSearchCV
=======================================

The local regret learners are ordinary scikit-learn estimators: they go into
a :class:`~sklearn.pipeline.Pipeline`, and their parameters can be tuned with
:class:`~sklearn.model_selection.GridSearchCV` and checked with
:func:`~sklearn.model_selection.cross_val_score`. This example tunes the two
parameters of :class:`~sklearn_localregret.LocalRegretTreeClassifier` that
shape what it learns the most: ``L``, the number of levels of the locality
graph in play (which also sets the default bias ``b = Delta / (L + 1)``), and
``batch_size``, the number of rows per online round, on the chess endgame
data set kr-vs-kp.
"""

# %%
# Data and pipeline
# -----------------
# kr-vs-kp has 36 categorical attributes and 2 classes (can white win or
# not). To keep the example fast we take 1200 random rows for the search and
# keep 1000 other rows, never used to choose the parameters, for a final
# check. The pipeline encodes every ``attribute = value`` as a boolean feature
# (:func:`~sklearn_localregret.datasets.boolean_encoder`), then learns a tree
# online. ``fit`` is one online pass over the training rows.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.datasets import boolean_encoder, load_kr_vs_kp

X, y = load_kr_vs_kp(return_X_y=True)  # arrays of strings
rows = np.random.default_rng(0).permutation(len(y))
search_rows, check_rows = rows[:1200], rows[1200:2200]
X_search, y_search = X[search_rows], y[search_rows]
X_check, y_check = X[check_rows], y[check_rows]

pipe = make_pipeline(boolean_encoder(), LocalRegretTreeClassifier(random_state=0))

# %%
# The grid search
# ---------------
# ``L`` bounds how far from the single-leaf tree the played trees may go
# (a level is a number of internal nodes) and sets the bias subtracted from
# the regrets each round: small ``L`` means small trees and a large bias;
# ``L=None`` means no bound and no bias (the exact sampler). ``batch_size``
# trades the number of rounds (updates) against the amount of evidence in
# each. The parameters of a pipeline step are addressed as
# ``<step name>__<parameter>``. Three-fold stratified cross-validation with a
# fixed shuffle keeps the search deterministic.

param_grid = {
    "localregrettreeclassifier__L": [1, 3, 10, 30, 100, None],
    "localregrettreeclassifier__batch_size": [5, 25],
}
cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
search = GridSearchCV(pipe, param_grid, cv=cv).fit(X_search, y_search)

results = pd.DataFrame(search.cv_results_)
results = results.rename(
    columns={
        "param_localregrettreeclassifier__L": "L",
        "param_localregrettreeclassifier__batch_size": "batch_size",
    }
)
results["L"] = results["L"].map(lambda L: "inf" if L is None else str(L))
print(
    results[
        ["L", "batch_size", "mean_test_score", "std_test_score", "mean_fit_time"]
    ].to_string(index=False, float_format="%.3f")
)
print("best parameters:", search.best_params_)

# %%
# The figure shows the mean cross-validated accuracy of each setting, with
# one standard deviation across the folds as error bars. Very small ``L``
# costs accuracy: with ``L=1`` and rounds of 25 rows the bias is so large
# that the learner ends up predicting the root leaf's label, ``classes_[0]``
# (``'nowin'``, here slightly the minority class), for every row. From
# moderate ``L`` on, the scores vary a lot from fold to fold: one online pass
# depends on the order of the rows and on the learner's random draws, so the
# differences between these settings are of the order of the error bars. On
# this data the larger rounds tend to score higher.

fig, ax = plt.subplots(figsize=(7, 4))
L_labels = results["L"].unique()
positions = np.arange(len(L_labels))
for shift, (batch_size, group) in zip([-0.05, 0.05], results.groupby("batch_size")):
    group = group.set_index("L").loc[L_labels]
    ax.errorbar(
        positions + shift,
        group["mean_test_score"],
        yerr=group["std_test_score"],
        marker="o",
        capsize=3,
        label=f"batch_size={batch_size}",
    )
ax.set_xticks(positions, L_labels)
ax.set_xlabel("L (levels of the locality graph)")
ax.set_ylabel("mean CV accuracy (3 folds)")
ax.set_title("GridSearchCV over LocalRegretTreeClassifier on kr-vs-kp")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# A check on rows the search never saw
# ------------------------------------
# A search's best score is optimistic: it is the best of 12 noisy estimates.
# :func:`~sklearn.model_selection.cross_val_score` on the 1000 held-out rows
# gives a fresh estimate for the tuned pipeline, the default one, and, as an
# offline yardstick, a :class:`~sklearn.tree.DecisionTreeClassifier` in the
# same pipeline.

candidates = {
    "tuned local regret tree": search.best_estimator_,
    "default local regret tree": pipe,
    "DecisionTreeClassifier": make_pipeline(
        boolean_encoder(), DecisionTreeClassifier(random_state=0)
    ),
}
for name, estimator in candidates.items():
    scores = cross_val_score(estimator, X_check, y_check, cv=cv)
    print(f"{name:<27} accuracy {scores.mean():.3f} +- {scores.std():.3f}")

# %%
# Tuning helps the online learner here, and the offline decision tree, which
# sees every training row at once and may revisit it, is more accurate still
# on this i.i.d. sample. What the local regret learner offers instead is a
# guarantee that does not assume i.i.d. rows, and learning from a stream with
# ``partial_fit`` without storing or revisiting past rows.
