"""Wide input: trees read a bounded number of admitted columns (issue 31)."""

from __future__ import annotations

import pickle
import signal
import threading
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_localregret import LocalRegretForestClassifier, LocalRegretTreeClassifier
from sklearn_localregret._base import rounds
from sklearn_localregret._tree import wide_input
from sklearn_localregret.persistence import check_consistency
from sklearn_localregret.thresholds import AdmittedColumns

N_COLUMNS, INFORMATIVE = 40, (3, 17)


@pytest.fixture
def narrow_limits(monkeypatch):
    """Inputs of more than 16 columns are wide, read through 6 slots."""
    monkeypatch.setattr(wide_input, "WIDE_COLUMNS", 16)
    monkeypatch.setattr(wide_input, "WIDE_SLOTS", 6)


def words(n_rows=400, seed=0, n_columns=N_COLUMNS):
    """Sparse rows (12% of the cells in (0.1, 2)) labelled by whether one of
    two columns is nonzero (2% flipped)."""
    rng = np.random.default_rng(seed)
    present = rng.random((n_rows, n_columns)) < 0.12
    X = np.where(present, rng.uniform(0.1, 2.0, (n_rows, n_columns)), 0.0)
    y = X[:, list(INFORMATIVE)].any(axis=1).astype(int)
    y ^= rng.random(n_rows) < 0.02
    return sp.csr_matrix(X), y


def same_model(a, b, X) -> None:
    assert np.array_equal(a.test_features_, b.test_features_)
    assert np.array_equal(a.test_thresholds_, b.test_thresholds_)
    np.testing.assert_array_equal(a.pi_proba(X), b.pi_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_wide_input_admits_the_informative_columns(narrow_limits):
    X, y = words()
    tree = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    wide = tree._wide_columns()
    assert wide is not None and wide.n_slots == 6
    assert tree._tests.n_features == 6  # the model reads the slots
    assert set(INFORMATIVE) <= set(tree.test_features_.tolist())
    assert tree.test_features_.max() < N_COLUMNS
    X_test, y_test = words(seed=1)
    assert tree.score(X_test, y_test) > 0.9
    # The printed tree names input columns, not slots.
    names = [f"word{j}" for j in range(N_COLUMNS)]
    text = tree.export_text(feature_names=names)
    assert "word3" in text or "word17" in text


def test_inputs_up_to_the_limit_are_read_as_they_are(narrow_limits, monkeypatch):
    monkeypatch.setattr(wide_input, "WIDE_COLUMNS", N_COLUMNS)
    X, y = words()
    tree = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    assert tree._wide_columns() is None
    assert tree._tests.n_features == N_COLUMNS


def test_sparse_dense_and_chunked_input_learn_the_same_model(narrow_limits):
    X, y = words()
    params = dict(random_state=3)
    whole = LocalRegretTreeClassifier(**params).fit(X, y)
    dense = LocalRegretTreeClassifier(**params).fit(X.toarray(), y)
    same_model(whole, dense, X)
    chunked = LocalRegretTreeClassifier(**params)
    for start in range(0, X.shape[0], 35):  # chunks of whole rounds
        chunked.partial_fit(X[start : start + 35], y[start : start + 35], [0, 1])
    same_model(whole, chunked, X)
    # Prediction reads sparse and dense rows, alone or in blocks, alike.
    one = np.vstack([chunked.predict_proba(X[i]) for i in range(5)])
    np.testing.assert_array_equal(one, chunked.predict_proba(X[:5].toarray()))


def test_saved_wide_models_learn_on_alike_and_forged_ones_are_refused(narrow_limits):
    X, y = words(600)
    tree = LocalRegretTreeClassifier(random_state=0).fit(X[:300], y[:300])
    loaded = pickle.loads(pickle.dumps(tree))
    check_consistency(loaded)
    tree.partial_fit(X[300:], y[300:])
    loaded.partial_fit(X[300:], y[300:])
    same_model(tree, loaded, X)
    for forge in (
        lambda wide: wide.columns.__setitem__(0, N_COLUMNS + 5),  # out of range
        lambda wide: wide.columns.__setitem__(1, wide.columns[0]),  # twice
        lambda wide: setattr(wide, "_hits", wide._hits[:, :1]),  # one class
    ):
        forged = pickle.loads(pickle.dumps(tree))
        forge(forged._wide_columns())
        with pytest.raises(ValueError, match="admitted columns"):
            check_consistency(forged)


def test_merge_refuses_different_admitted_columns(narrow_limits):
    X, y = words(300)
    a = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    b = LocalRegretTreeClassifier(random_state=0).fit(X[:, ::-1], y)
    with pytest.raises(ValueError, match="admitted columns differ"):
        a.merge(b)


def hashed_rows(n_rows=200, width=2**20, seed=0):
    """Sparse 0/1 rows of 30 random columns; column 77 marks class 1."""
    rng = np.random.default_rng(seed)
    columns = rng.integers(0, width, size=(n_rows, 30))
    columns[: n_rows // 2, 0] = 77
    X = sp.csr_matrix(
        (np.ones(columns.size), columns.ravel(), np.arange(0, columns.size + 1, 30)),
        shape=(n_rows, width),
    )
    X.sum_duplicates()
    X.data[:] = 1.0
    y = np.repeat([1, 0], [n_rows // 2, n_rows - n_rows // 2])
    order = rng.permutation(n_rows)
    return X[order], y[order]


@pytest.mark.parametrize(
    "make, most_mb",
    [
        (lambda: LocalRegretTreeClassifier(random_state=0), 150),
        (lambda: LocalRegretForestClassifier(n_estimators=3, random_state=0), 300),
    ],
    ids=["tree", "forest"],
)
def test_hashed_text_width_costs_memory_in_the_slots_not_the_columns(make, most_mb):
    # 2**20 columns, default limits: densifying 200 rows would take 1.7 GB.
    X, y = hashed_rows()
    make().fit(X[:20], y[:20])  # the kernels' first compilation or load
    tracemalloc.start()
    model = make().fit(X, y)
    model.predict(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    trees = getattr(model, "estimators_", [model])
    assert all(77 in tree.test_features_ for tree in trees)
    # Each tree's evidence (2 classes x 2**20 float64 and a row count per
    # column: 20 MiB), its slot map (4 MiB), chunks of projected rows and
    # its table: 68 MB (tree) and 152 MB (forest) when written.
    assert peak < most_mb * 1e6


@pytest.mark.parametrize("threshold", [0.0, 0.5, -0.5])
def test_scores_are_the_gini_decrease_of_each_columns_split(threshold):
    rng = np.random.default_rng(int(10 * threshold) + 5)
    X = np.where(rng.random((60, 9)) < 0.3, rng.normal(size=(60, 9)), 0.0)
    X[5, 2] = np.nan
    y = rng.integers(0, 3, 60)
    w = rng.random(60) + 0.5
    sparse = AdmittedColumns(9, 3, n_slots=4, threshold=threshold, min_rows=1)
    dense = AdmittedColumns(9, 3, n_slots=4, threshold=threshold, min_rows=1)
    sparse.learn(sp.csr_matrix(X), y, w)
    dense.learn(X, y, w)

    def gini(weights):
        total = weights.sum()
        return 0.0 if total == 0 else total - (weights**2).sum() / total

    expected = []
    for j in range(9):
        with np.errstate(invalid="ignore"):
            above = X[:, j] > threshold
        by_class = [np.bincount(y[m], w[m], minlength=3) for m in (above, ~above)]
        expected.append(gini(np.bincount(y, w)) - gini(by_class[0]) - gini(by_class[1]))
    np.testing.assert_allclose(dense.scores(), expected, atol=1e-12)
    np.testing.assert_allclose(sparse.scores(), expected, atol=1e-12)


def test_admission_halves_the_free_slots_at_each_checkpoint():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 30))
    y = (X[:, :20] > 0).sum(axis=1) % 2
    source = AdmittedColumns(30, 2, n_slots=8, first_checkpoint=16)
    source.start(8)
    admitted = []
    for start in range(0, 64, 16):
        source.learn(X[start : start + 16], y[start : start + 16], np.ones(16))
        admitted.append(source.admit_if_due())
    # 16 rows: 4 of 8; 32: 2 of 4; 48: none due; 64: 1 of 2.
    assert admitted == [4, 2, 0, 1]
    assert len(set(source.columns.tolist())) == 7
    assert source.observe(np.zeros((1, 8))) == [(s, 0.0) for s in range(7)]
    projected = source.project(sp.csr_matrix(X))
    np.testing.assert_array_equal(projected[:, :7], X[:, source.columns])
    np.testing.assert_array_equal(projected[:, 7], 0.0)
    np.testing.assert_array_equal(projected, source.project(X))


def test_a_forest_reads_wide_input_through_its_members_slots(narrow_limits):
    X, y = words(500)
    params = dict(n_estimators=3, random_state=0)
    forest = LocalRegretForestClassifier(**params).fit(X, y)
    assert forest._accepts_sparse_blocks and not forest._root_models()
    assert all(m._wide_columns() is not None for m in forest.estimators_)
    assert forest.score(*words(seed=1)) > 0.85
    # Dense and sparse rows: the same forest, the same predictions.
    dense = LocalRegretForestClassifier(**params).fit(X.toarray(), y)
    np.testing.assert_array_equal(forest.predict_proba(X), dense.predict_proba(X))
    np.testing.assert_array_equal(forest.predict(X), dense.predict(X.toarray()))
    alone = np.concatenate([forest.predict(X[i]) for i in range(10)])
    np.testing.assert_array_equal(alone, forest.predict(X[:10]))
    loaded = pickle.loads(pickle.dumps(forest))
    check_consistency(loaded)
    forest.partial_fit(*words(100, seed=2))
    loaded.partial_fit(*words(100, seed=2))
    np.testing.assert_array_equal(forest.predict_proba(X), loaded.predict_proba(X))


def test_an_interrupted_wide_call_keeps_the_evidence_of_the_rounds_learnt(
    narrow_limits, monkeypatch
):
    # Ctrl-C in the 3rd block of 60 rows (a round of 5 completes, then it
    # acts): the model is byte for byte that of the rows learnt, evidence
    # included (the admissions after it depend on it).
    monkeypatch.setattr(rounds, "DENSE_CHUNK_ROWS", 60)
    monkeypatch.setattr(wide_input, "wide_chunk_rows", lambda: 60)
    X, y = words(500)
    interrupted = LocalRegretTreeClassifier(random_state=0).fit(X[:10], y[:10])
    play, calls = LocalRegretTreeClassifier._play_block_rounds, []

    def play_rounds(self, X, y, weight):
        calls.append(len(calls))
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)
        return play(self, X, y, weight)

    with monkeypatch.context() as patch:
        patch.setattr(LocalRegretTreeClassifier, "_play_block_rounds", play_rounds)
        with pytest.raises(KeyboardInterrupt):
            interrupted.partial_fit(X[10:], y[10:])
    learnt = interrupted.n_samples_seen_
    assert 10 < learnt < 500
    reference = LocalRegretTreeClassifier(random_state=0).fit(X[:10], y[:10])
    reference.partial_fit(X[10:learnt], y[10:learnt])
    assert pickle.dumps(interrupted) == pickle.dumps(reference)
    interrupted.partial_fit(X[learnt:], y[learnt:])
    reference.partial_fit(X[learnt:], y[learnt:])
    assert pickle.dumps(interrupted) == pickle.dumps(reference)


def test_readers_in_threads_leave_a_learning_wide_tree_alone(narrow_limits):
    X, y = words(400)
    model = LocalRegretTreeClassifier(random_state=0).fit(X[:10], y[:10])
    stop, errors, answers = threading.Event(), [], []

    def read():
        try:
            while not stop.is_set():
                answers.append(model.predict_proba(X[:7]))
                model.predict(X[:30])
        except BaseException as exc:  # pragma: no cover - what the test catches
            errors.append(repr(exc))

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    for lo in range(10, 400, 5):  # admissions happen while they read
        model.partial_fit(X[lo : lo + 5], y[lo : lo + 5])
    stop.set()
    for reader in readers:
        reader.join()
    assert not errors and answers
    assert all(np.allclose(a.sum(axis=1), 1.0) for a in answers)
    alone = LocalRegretTreeClassifier(random_state=0).fit(X[:10], y[:10])
    for lo in range(10, 400, 5):
        alone.partial_fit(X[lo : lo + 5], y[lo : lo + 5])
    same_model(model, alone, X)


def test_sparse_rows_skip_validation_only_where_it_would_pass_them(
    narrow_limits, monkeypatch
):
    X, y = words(300)
    fast = LocalRegretTreeClassifier(random_state=0).fit(X[:20], y[:20])
    full = LocalRegretTreeClassifier(random_state=0).fit(X[:20], y[:20])
    assert fast._is_plain_sparse(X[20]) and fast._is_plain_sparse(sp.csr_array(X[20]))
    assert not fast._is_plain_sparse(X[20].tocsc())
    assert not fast._is_plain_sparse(X[20][:, :-1])  # the wrong width
    probas = []
    for i in range(20, 300):
        probas.append(fast.predict_proba(X[i]))
        fast.partial_fit(X[i], y[i : i + 1])
    with monkeypatch.context() as patch:  # the same calls, fully validated
        patch.setattr(LocalRegretTreeClassifier, "_is_plain_sparse", lambda s, X: False)
        for i in range(20, 300):
            np.testing.assert_array_equal(full.predict_proba(X[i]), probas[i - 20])
            full.partial_fit(X[i], y[i : i + 1])
    same_model(fast, full, X)
    # What validation refuses still raises, and changes nothing.
    bad = X[:1].copy()
    bad.data[0] = np.inf
    before = pickle.dumps(fast)
    for call in (lambda: fast.predict(bad), lambda: fast.partial_fit(bad, y[:1])):
        with pytest.raises(ValueError, match="infinity"):
            call()
    with pytest.raises(ValueError, match="features"):
        fast.partial_fit(X[:1, :-1], y[:1])
    assert pickle.dumps(fast) == before
