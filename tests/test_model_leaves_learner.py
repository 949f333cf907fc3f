"""The tree learner with model leaves: defaults, accuracy, predictions, saving.

The engine's side (the enlarged graph's sampler, walk and update against
their definitions) is in ``tests/engine/test_model_leaves.py``.
"""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sklearn_localregret import LocalRegretTreeClassifier


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    return X[order], y[order]


def _error(model, X, y, batch=5):
    wrong = 0
    for lo in range(0, len(y), batch):
        if lo:
            wrong += int(
                (model.predict(X[lo : lo + batch]) != y[lo : lo + batch]).sum()
            )
        model.partial_fit(X[lo : lo + batch], y[lo : lo + batch], classes=np.unique(y))
    return wrong / len(y)


def test_auto_means_models_from_three_classes_with_external_regret():
    X = np.random.default_rng(0).random((30, 3))
    three, two = np.arange(30) % 3, np.arange(30) % 2
    assert LocalRegretTreeClassifier().fit(X, three).regret_table_.leaf_model
    assert not LocalRegretTreeClassifier().fit(X, two).regret_table_.leaf_model
    forced = LocalRegretTreeClassifier(leaf_model="naive_bayes").fit(X, two)
    assert forced.regret_table_.leaf_model
    swap = LocalRegretTreeClassifier("swap", L=2).fit(X, three)
    assert not swap.regret_table_.leaf_model
    with pytest.raises(ValueError, match="regret='external'"):
        LocalRegretTreeClassifier("swap", leaf_model="naive_bayes").fit(X, three)


def test_models_learn_digits_where_labels_cannot(digits):
    # The case: ten classes, 64 features, one pass in rounds of 5.
    # Label leaves stay far from the concept for the whole pass; the root's
    # model takes over within the first half (measured: 0.09-0.11 error in
    # each later 300 rows, labels 0.57-0.62).
    X, y = digits
    models = LocalRegretTreeClassifier(random_state=0)
    # (Its vote: the hedge's root Gaussian model would learn digits too.)
    labels = LocalRegretTreeClassifier(
        random_state=0, leaf_model=None, leaf_prediction="label", prediction="vote"
    )
    late_models, late_labels = 0, 0
    for lo in range(0, len(y), 5):
        at = slice(lo, lo + 5)
        if lo >= 1000:
            late_models += int((models.predict(X[at]) != y[at]).sum())
            late_labels += int((labels.predict(X[at]) != y[at]).sum())
        models.partial_fit(X[at], y[at], classes=np.arange(10))
        labels.partial_fit(X[at], y[at], classes=np.arange(10))
    n_late = len(y) - 1000
    assert late_models / n_late < 0.2 and late_labels / n_late > 0.4


def test_sampled_predictions_average_the_model_leaves(digits):
    # n_predict_trees=N: the fraction of N drawn trees (model leaves asking
    # their sites' models) that give each label; against the exact walk,
    # Hoeffding per entry at total false-alarm probability 1e-6. (After 400
    # rows this seed's root is a model leaf with probability 0.58, and pi
    # spreads every row over several labels.)
    X, y = digits
    model = LocalRegretTreeClassifier(random_state=2)
    for lo in range(0, 400, 5):
        model.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=np.arange(10))
    exact = model.pi_proba(X[1000:1100])
    assert ((exact > 0.02) & (exact < 0.98)).any(axis=1).mean() > 0.5
    n = 4000
    sampled = model.set_params(n_predict_trees=n).pi_proba(X[1000:1100])
    tolerance = np.sqrt(np.log(2 * exact.size / 1e-6) / (2 * n))
    assert np.abs(sampled - exact).max() <= tolerance
    # A planted bug, the model leaves read as label 0, is caught by it.
    model._player.table.model_labels = lambda rows, outcomes: np.zeros(len(rows), int)
    wrong = model.pi_proba(X[1000:1100])
    assert np.abs(wrong - exact).max() > tolerance


def test_saved_model_predicts_and_learns_on_as_the_original(digits):
    X, y = digits
    model = LocalRegretTreeClassifier(random_state=2)
    model.partial_fit(X[:200], y[:200], classes=np.arange(10))
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.pi_proba(X[200:300]), model.pi_proba(X[200:300]))
    model.partial_fit(X[200:400], y[200:400])
    copy.partial_fit(X[200:400], y[200:400])
    np.testing.assert_array_equal(copy.pi_proba(X[400:500]), model.pi_proba(X[400:500]))
    table, copied = model._player.table, copy._player.table
    for name, value in table.__getstate__().items():  # the same table
        assert pickle.dumps(copied.__getstate__()[name]) == pickle.dumps(value)


def test_export_text_names_the_model_leaf(digits):
    from sklearn_localregret.locality.decision_tree import Leaf, Split

    X, y = digits
    model = LocalRegretTreeClassifier(random_state=1).fit(X[:300], y[:300])
    k = len(model.classes_)  # the model leaf's label
    assert model.export_text(Leaf(k)) == "|--- class: naive Bayes"
    text = model.export_text(Split(0, Leaf(k), Leaf(0))).splitlines()
    assert text[1] == "|   |--- class: 0" and text[3] == "|   |--- class: naive Bayes"


def test_a_class_of_no_weight_is_not_predicted_by_the_root_model():
    # The root site's naive Bayes model is one of every row learnt; its
    # smoothed prior let a label no row brought (of weight 0 here, or
    # declared and not met yet) win rows on likelihoods never measured, and
    # the hedge gave that class on 7 of these 100 rows. Its prior is 0 there
    # now, as in scikit-learn's naive Bayes.
    rng = np.random.default_rng(3)
    rng.normal(size=(100, 2)), rng.normal(size=(300, 3))  # (the report's draws)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    tree = LocalRegretTreeClassifier(random_state=0)
    tree.fit(X, y, sample_weight=np.where(y == 1, 0.0, 1.0))
    assert (tree.predict(X) == 0).all()
    assert tree._root_expert_proba("model", X, None)[:, 1].max() == 0.0
    # A model that has counted every label is as before (the prior smoothed).
    seen = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    table = seen._player.table
    outcomes = seen._tests.outcomes(X)
    root = table.find(())
    np.testing.assert_array_equal(
        seen._root_expert_proba("model", X, outcomes),
        table.row_model_proba(root, outcomes),
    )
