"""Sparse input to the disjunct learner: read in its nonzeros, the dense model.

The contract: for the same seed, CSR/CSC input gives the model that the same
rows give dense (same plays, regrets, removal sets, mistakes and
predictions), and a wide sparse matrix is never densified over its width.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_localregret import LocalRegretDisjunctClassifier
from sklearn_localregret._random import uniforms_at
from sklearn_localregret._sparse_blocks import sparse_row_uniforms
from sklearn_localregret.engine.compiled.row_uniforms import row_uniforms
from sklearn_localregret.locality import sparse_rounds

# Wider than uniforms_at's smallest skip, so that draws skip uniforms.
N_FEATURES = 2200


def text_like(n_rows, n_features, seed, density=0.01):
    """Sparse 0/1 rows labelled by a disjunction of 5 features, with noise."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n_rows, n_features)) < density).astype(np.uint8)
    y = X[:, :5].any(axis=1).astype(int)
    flip = rng.random(n_rows) < 0.05
    return X, np.where(flip, 1 - y, y)


CONFIGS = {
    "removal-sets hedge": {"prediction": "hedge"},
    "removal-sets vote": {"prediction": "vote"},
    "hypercube hedge": {"graph": "hypercube", "prediction": "hedge"},
    "hypercube vote": {"graph": "hypercube", "prediction": "vote"},
    "swap": {"regret": "swap"},
    "removal-sets batches": {"batch_size": 7, "prediction": "vote"},
    "hypercube batches": {"graph": "hypercube", "batch_size": 7, "prediction": "hedge"},
    # Per round on both sides: the bulk path sums a discount's terms in
    # another order (equal to rounding only).
    "discount": {"discount": 0.98, "prediction": "hedge"},
    "bias": {"bias": 0.25, "graph": "hypercube", "prediction": "vote"},
    "removal-sets bias": {"bias": 0.25, "prediction": "hedge"},
    "chain L=3": {"L": 3, "prediction": "hedge"},
    "sample": {"prediction": "sample"},
}


def assert_same_model(dense, sparse, X):
    np.testing.assert_array_equal(
        dense.regret_table_.biased, sparse.regret_table_.biased
    )
    np.testing.assert_array_equal(
        dense.regret_table_.unbiased, sparse.regret_table_.unbiased
    )
    assert dense.n_rounds_ == sparse.n_rounds_
    assert dense.online_error_ == pytest.approx(sparse.online_error_, abs=1e-12)
    assert dense.n_removal_sets_ == sparse.n_removal_sets_
    if dense.n_removal_sets_:
        np.testing.assert_array_equal(dense._graph.sets, sparse._graph.sets)
    assert dense.vote_weight_ == pytest.approx(sparse.vote_weight_, abs=1e-12)
    # The next play: the random streams are where the dense one left it.
    assert dense._rng.random() == sparse._rng.random()
    reference = dense.predict_proba(X)
    for rows in (X, sp.csr_matrix(X), sp.csc_matrix(X)):
        for model in (dense, sparse):
            np.testing.assert_allclose(
                model.predict_proba(rows), reference, rtol=0, atol=1e-12
            )
            np.testing.assert_array_equal(model.predict(rows), dense.predict(X))


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_sparse_input_learns_the_dense_model(config):
    X, y = text_like(200, N_FEATURES, seed=1)
    weight = np.random.default_rng(2).choice([0.5, 1.0, 2.0], size=len(y))
    dense = LocalRegretDisjunctClassifier(random_state=0, **config)
    sparse = LocalRegretDisjunctClassifier(random_state=0, **config)
    dense.fit(X, y, sample_weight=weight)
    sparse.fit(sp.csr_matrix(X), y, sample_weight=weight)
    assert dense.n_nonzero_regrets_ > 0
    assert_same_model(dense, sparse, X)


def test_the_sparse_paths_are_exercised():
    """Removal sets that ring (the clocks' predict) and skipped uniforms (the
    per-row uniforms of randomised predictions: the "sample" config)."""
    X, y = text_like(200, N_FEATURES, seed=1)
    model = LocalRegretDisjunctClassifier(random_state=0).fit(sp.csr_matrix(X), y)
    assert np.any(model._graph._set_rates() > 0)
    assert 0 < len(model._graph.on_sites()) < N_FEATURES // 4


def test_dense_and_sparse_calls_mix_in_one_stream():
    X, y = text_like(120, N_FEATURES, seed=3)
    dense = LocalRegretDisjunctClassifier(random_state=5)
    mixed = LocalRegretDisjunctClassifier(random_state=5)
    for lo in range(0, len(y), 30):
        rows = slice(lo, lo + 30)
        dense.partial_fit(X[rows], y[rows], classes=[0, 1])
        chunk = X[rows] if lo % 60 else sp.csc_matrix(X[rows])
        mixed.partial_fit(chunk, y[rows], classes=[0, 1])
    assert_same_model(dense, mixed, X)


def test_one_class_sparse_stream():
    X, _ = text_like(50, N_FEATURES, seed=4)
    y = np.ones(50, dtype=int)
    dense = LocalRegretDisjunctClassifier(random_state=0, bias=0.5).fit(X, y)
    sparse = LocalRegretDisjunctClassifier(random_state=0, bias=0.5)
    sparse.fit(sp.csr_matrix(X), y)
    assert_same_model(dense, sparse, X)


def test_wide_sparse_input_is_never_densified(monkeypatch):
    """2**20 columns: the rounds see their rows' columns, memory stays small."""
    n_features, n_rows = 2**20, 300
    rng = np.random.default_rng(0)
    cols = rng.integers(0, n_features, size=(n_rows, 40))
    X = sp.csr_matrix(
        (np.ones(cols.size), cols.ravel(), np.arange(0, cols.size + 1, 40)),
        shape=(n_rows, n_features),
    )
    X.sum_duplicates()
    y = np.isin(cols, cols[:30, 0]).any(axis=1).astype(int)
    widths = []
    for name in ("disjunction_round", "removal_set_gains"):
        original = getattr(sparse_rounds, name)

        def recording(a, X, *args, _original=original):
            widths.append(X.shape[1])
            return _original(a, X, *args)

        monkeypatch.setattr(sparse_rounds, name, recording)
    tracemalloc.start()
    model = LocalRegretDisjunctClassifier(random_state=0).fit(X, y)
    model.predict_proba(X)
    model.decision_function(X)
    model.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(widths) == n_rows and max(widths) <= 40
    assert model.online_error_ < 0.5
    # The model itself holds ~200 MB at this width (the colours' regrets and
    # the removal sets' rows); one dense 4,096-row block would take 4 GiB,
    # a clock-draw prediction over every column 4 GiB more.
    assert peak < 400e6, peak


def test_uniforms_at_is_the_full_draw():
    for buffered in (False, True):
        full, skipping = np.random.default_rng(7), np.random.default_rng(7)
        if buffered:  # a 32-bit draw leaves half a word in the buffer
            full.integers(10), skipping.integers(10)
        positions = np.sort(
            np.random.default_rng(0).choice(10**6, size=40, replace=False)
        )
        positions = np.r_[positions, 10**6 - 1]
        expected = full.random(10**6)[positions]
        np.testing.assert_array_equal(uniforms_at(skipping, 10**6, positions), expected)
        assert (
            full.integers(1000, size=5).tolist()
            == skipping.integers(1000, size=5).tolist()
        )
        assert full.random() == skipping.random()
    # A generator that cannot skip draws everything, with the same values.
    full = np.random.Generator(np.random.MT19937(1))
    other = np.random.Generator(np.random.MT19937(1))
    np.testing.assert_array_equal(
        uniforms_at(other, 5000, [4, 4999]), full.random(5000)[[4, 4999]]
    )
    assert full.random() == other.random()


@pytest.mark.parametrize("width", [1, 7, 8, 9, 63, 1000])
def test_sparse_row_uniforms_hash_the_dense_rows(width):
    rng = np.random.default_rng(width)
    X = (rng.random((20, width)) < 0.2).astype(np.uint8)
    np.testing.assert_array_equal(
        sparse_row_uniforms(sp.csr_matrix(X), 99), row_uniforms(X, 99)
    )


def _stored_twice(X, value: float) -> sp.csr_matrix:
    """CSR whose every nonzero of ``X`` is stored twice, each entry ``value``
    (scipy reads a cell as the sum of its entries, as ``toarray`` does)."""
    r, c = np.nonzero(X)
    order = np.argsort(np.r_[r, r], kind="stable")
    indptr = np.r_[0, np.cumsum(np.bincount(np.r_[r, r], minlength=X.shape[0]))]
    return sp.csr_matrix(
        (np.full(2 * r.size, value), np.r_[c, c][order], indptr), shape=X.shape
    )


@pytest.mark.parametrize(
    "value, params", [(0.5, {"binarize": 0.7}), (0.5, {"binarize": None}), (1.0, {})]
)
def test_repeated_entries_are_one_cell_their_sum(value, params):
    """Entries were thresholded one by one, then summed: 0.5 + 0.5 read as
    two values below 0.7 (nothing learnt), or as a non-0/1 input."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(600, 6))
    y = X[:, 0] | X[:, 3]
    S = _stored_twice(X, value)
    assert not S.has_canonical_format
    dense = LocalRegretDisjunctClassifier(random_state=0, **params).fit(S.toarray(), y)
    model = LocalRegretDisjunctClassifier(random_state=0, **params).fit(S, y)
    assert model.disjunction() == dense.disjunction() == ["x0", "x3"]
    np.testing.assert_array_equal(model.predict_proba(S), dense.predict_proba(X))
    assert not S.has_canonical_format  # the caller's matrix is left as it was


def test_wide_rows_draw_from_their_nonzeros_dense_or_sparse():
    # Beyond 2**14 columns a row's uniform hashes its nonzeros: the hash of
    # its every byte cost its width (0.7 ms a row at 2**20 columns).
    from sklearn_localregret._base.hedged_prediction import WIDE_ROW_HASH
    from sklearn_localregret._sparse_blocks import nonzero_row_uniforms

    width = WIDE_ROW_HASH + 1
    X = sp.random(200, width, density=30 / width, format="csr", random_state=0)
    X.data[:] = 1.0
    y = (np.asarray(X[:, : width // 2].sum(axis=1)).ravel() > 14).astype(int)
    model = LocalRegretDisjunctClassifier(prediction="sample", random_state=0)
    model.fit(X, y)
    rows = X[:20].astype(np.uint8)
    coo = rows.tocoo()  # with an explicit zero at (0, 5): no nonzero
    stored_zero = sp.csr_matrix(
        (np.r_[coo.data, 0], (np.r_[coo.row, 0], np.r_[coo.col, 5])), shape=rows.shape
    )
    assert stored_zero.nnz == rows.nnz + (rows[0, 5] == 0)
    for block in (rows, rows.toarray(), stored_zero):
        np.testing.assert_array_equal(
            model._row_uniforms(block, 7),
            nonzero_row_uniforms(sp.csr_matrix(rows, dtype=np.float64), 7),
        )
    np.testing.assert_array_equal(
        model.predict(X[:20].toarray()), model.predict(X[:20])
    )
