"""Models saved before the compiled kernels load, predict and learn on exactly.

``tests/fixtures/tree_saved_v0.1.pkl`` is a tree learner pickled by the pure
Python engine (``tests/fixtures/record_saved_tree.py``), with the
probabilities it gave then, and after learning 200 more rows. The compiled
engine rebuilds its derived state (path index, label pool, flat tree) on
load.
"""

import pickle
from pathlib import Path

import numpy as np
from fixtures.record_saved_tree import stream

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_model_saved_by_the_python_engine_predicts_and_learns_on():
    with open(FIXTURES / "tree_saved_v0.1.pkl", "rb") as f:
        saved = pickle.load(f)
    model = pickle.loads(saved["model"])
    X, y = stream()
    np.testing.assert_allclose(
        model.predict_proba(X[400:]), saved["proba"], rtol=0, atol=1e-12
    )
    model.partial_fit(X[400:], y[400:])  # the same rounds, the same trees
    np.testing.assert_allclose(
        model.predict_proba(X[400:]), saved["proba_after"], rtol=0, atol=1e-12
    )
