"""Interop with dask-ml: ``Incremental`` feeds dask blocks to ``partial_fit``.

dask-ml is imported by the test, not at collection: importing it takes ~4 s,
which every pytest-xdist worker would pay for a test that only one runs.
"""

import numpy as np
import pytest

from sklearn_localregret import LocalRegretDisjunctClassifier

N_FEATURES, CHUNK = 10, 50
PLANTED = [1, 4, 8]


def _planted_disjunction(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n_rows, N_FEATURES)) < 0.2).astype(np.uint8)
    y = X[:, PLANTED].any(axis=1).astype(int)
    return X, y


def test_incremental_learns_and_equals_sequential_partial_fit():
    pytest.importorskip("dask_ml")
    import dask
    import dask.array as da
    from dask_ml.wrappers import Incremental

    X, y = _planted_disjunction(400)
    X_test, y_test = X[300:], y[300:]
    X_train, y_train = X[:300], y[:300]
    dX = da.from_array(X_train, chunks=(CHUNK, N_FEATURES))
    dy = da.from_array(y_train, chunks=CHUNK)

    with dask.config.set(scheduler="synchronous"):
        inc = Incremental(
            LocalRegretDisjunctClassifier(batch_size=1, random_state=0),
            shuffle_blocks=False,
        )
        inc.fit(dX, dy, classes=[0, 1])

    sequential = LocalRegretDisjunctClassifier(batch_size=1, random_state=0)
    for start in range(0, len(X_train), CHUNK):
        stop = start + CHUNK
        sequential.partial_fit(X_train[start:stop], y_train[start:stop], classes=[0, 1])

    fitted = inc.estimator_
    assert fitted.n_features_in_ == N_FEATURES
    np.testing.assert_array_equal(fitted.classes_, [0, 1])
    np.testing.assert_allclose(
        fitted.predict_proba(X_test), sequential.predict_proba(X_test)
    )
    # It learned the planted disjunction well above the majority rate.
    majority = max(y_test.mean(), 1 - y_test.mean())
    assert fitted.score(X_test, y_test) > majority + 0.1
    # Incremental's own predict works blockwise on dask arrays.
    pred = inc.predict(da.from_array(X_test, chunks=(CHUNK, N_FEATURES)))
    np.testing.assert_array_equal(
        np.asarray(pred.compute()), sequential.predict(X_test)
    )
