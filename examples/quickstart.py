"""Quickstart: an online decision tree on mushroom, and online Max-SAT.

Run ``python examples/quickstart.py``; the README shows its output.
"""

from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from sklearn_localregret import LocalRegretTreeClassifier, OnlineMaxSAT
from sklearn_localregret.datasets import boolean_encoder, load_mushroom

# One boolean feature per attribute value, as in the paper, then a tree learned
# online: every round of 5 rows plays a tree drawn from the regret-matching
# distribution, then updates the regrets of every local change to it.
mushroom = load_mushroom()  # NumPy arrays: the quickstart needs no pandas
X, y = mushroom.data, mushroom.target
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
model = make_pipeline(boolean_encoder(), LocalRegretTreeClassifier(random_state=0))
model.fit(X_train, y_train)
tree = model[-1]
print(
    f"test accuracy {model.score(X_test, y_test):.3f}; online error while "
    f"learning {tree.online_error_:.3f} over {tree.n_rounds_} rounds"
)
print(
    tree.export_text(
        tree.representative_tree(),
        feature_names=model[0].get_feature_names_out(mushroom.feature_names),
    )
)

# Online Max-SAT: clauses (DIMACS literals) arrive one per round.
solver = OnlineMaxSAT(n_vars=3, random_state=0)
satisfied = solver.run([[1, 2], [-1], [-2, 3], [3]] * 50)
print(
    f"satisfied {satisfied[-100:].mean():.2f} of the last 100 clauses; "
    f"most probable assignment {solver.most_probable_assignment_.astype(int)}"
)
