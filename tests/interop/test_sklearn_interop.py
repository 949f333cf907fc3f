"""Interop with scikit-learn's meta-estimators, pipelines and model selection."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline

from sklearn_localregret import (
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
)
from sklearn_localregret.datasets import (
    boolean_encoder,
    load_mushroom,
    load_nursery,
)

pytest.importorskip("pandas")

TREE_KW = dict(max_depth=3, n_predict_trees=20)


def _subsample(loader, n, seed=0, classes=None):
    X, y = loader(return_X_y=True, as_frame=True)
    if classes is not None:
        keep = y.isin(classes).to_numpy()
        X, y = X[keep], y[keep]
    idx = np.random.default_rng(seed).permutation(len(X))[:n]
    return X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)


def _majority_rate(y):
    return y.value_counts(normalize=True).max()


@pytest.mark.parametrize("loader, n_train", [(load_mushroom, 600), (load_nursery, 800)])
def test_pipeline_beats_majority(loader, n_train):
    X, y = _subsample(loader, n_train + 200)
    pipe = make_pipeline(
        boolean_encoder(), LocalRegretTreeClassifier(random_state=0, **TREE_KW)
    )
    pipe.fit(X[:n_train], y[:n_train])
    X_test, y_test = X[n_train:], y[n_train:]
    assert set(pipe.classes_) <= set(y)
    assert pipe.score(X_test, y_test) > _majority_rate(y_test) + 0.1
    proba = pipe.predict_proba(X_test)
    assert proba.shape == (len(X_test), len(pipe.classes_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("estimator", ["tree", "disjunct"])
def test_sparse_encoder_matches_dense(estimator):
    X, y = _subsample(load_mushroom, 500)

    def make(sparse):
        if estimator == "tree":
            clf = LocalRegretTreeClassifier(random_state=0, **TREE_KW)
        else:
            clf = LocalRegretDisjunctClassifier(random_state=0)
        return make_pipeline(boolean_encoder(sparse_output=sparse), clf)

    dense = make(False).fit(X[:400], y[:400])
    sparse = make(True).fit(X[:400], y[:400])
    # The sparse encoder really produces a sparse matrix.
    assert hasattr(sparse[0].transform(X[:5]), "tocsr")
    np.testing.assert_array_equal(sparse.predict(X[400:]), dense.predict(X[400:]))
    np.testing.assert_allclose(
        sparse.predict_proba(X[400:]), dense.predict_proba(X[400:])
    )


def test_grid_search_over_our_parameters():
    X, y = _subsample(load_mushroom, 300)
    pipe = make_pipeline(
        boolean_encoder(), LocalRegretTreeClassifier(random_state=0, **TREE_KW)
    )
    # Two batch sizes and both regrets: four candidates set through the
    # pipeline. Neither batch size is the default (5), so a parameter that did
    # not reach the learner fails the refit check below whichever candidate
    # wins. (Small batches only make it slower: batch_size=1 is 200 rounds a
    # fit, and the swap learner's rounds are the costly ones.)
    grid = {
        "localregrettreeclassifier__batch_size": [10, 20],
        "localregrettreeclassifier__regret": ["external", "swap"],
    }
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert len(search.cv_results_["params"]) == 4
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_params_ in search.cv_results_["params"]
    assert search.best_score_ > _majority_rate(y)
    # refit=True: the best pipeline is fitted with the best parameters.
    best = search.best_estimator_[-1]
    assert (
        best.batch_size == search.best_params_["localregrettreeclassifier__batch_size"]
    )
    assert search.score(X, y) > _majority_rate(y)


def test_cross_val_score():
    X, y = _subsample(load_mushroom, 450)
    pipe = make_pipeline(
        boolean_encoder(), LocalRegretTreeClassifier(random_state=0, **TREE_KW)
    )
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,)
    assert scores.mean() > _majority_rate(y) + 0.1


def test_one_vs_rest_disjunct_three_classes():
    classes = ["not_recom", "priority", "spec_prior"]
    X, y = _subsample(load_nursery, 900, classes=classes)
    enc = boolean_encoder().fit(X)
    Xb = enc.transform(X)
    ovr = OneVsRestClassifier(
        LocalRegretDisjunctClassifier(binarize=0.5, random_state=0)
    )
    ovr.fit(Xb[:700], y[:700])
    assert list(ovr.classes_) == classes
    assert len(ovr.estimators_) == 3
    assert all(isinstance(e, LocalRegretDisjunctClassifier) for e in ovr.estimators_)
    y_test = y[700:]
    assert ovr.score(Xb[700:], y_test) > _majority_rate(y_test)
    proba = ovr.predict_proba(Xb[700:])
    assert proba.shape == (len(y_test), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
