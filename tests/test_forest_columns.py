"""The forest reads missing values and categorical columns as the tree does.

The forest codes the table once (its ``ColumnEncoder``) and each member reads
the coded columns of its subspace with its part of the encoder: a
categorical column is one column, so a member that has it has all its
categories (never a part of a one-hot encoding), and offers its equality
tests. Bad tables raise and leave the forest, members included, unchanged.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_localregret import LocalRegretForestClassifier


def forest(**params) -> LocalRegretForestClassifier:
    params.setdefault("n_estimators", 3)
    params.setdefault("random_state", 0)
    return LocalRegretForestClassifier(**params)


def missing_stream(n=600, seed=0):
    """The label is whether x0 is missing; x1, x2 are noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).round(2)
    X[rng.random(n) < 0.5, 0] = np.nan
    return X, np.isnan(X[:, 0]).astype(int)


def table_stream(n=600, seed=0):
    """Colour (a category of 5), shape (strings with None), size (NaN);
    label: colour is red or violet, which no single threshold on a code of
    colour separates (codes follow first appearance)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "violet", "black"], n)
    shape = rng.choice(["round", "square", None], n).astype(object)
    size = rng.normal(1, 1, n).round(2)
    size[rng.random(n) < 0.2] = np.nan
    frame = pd.DataFrame(
        {"colour": pd.Categorical(colour), "shape": shape, "size": size}
    )
    return frame, np.isin(colour, ["red", "violet"]).astype(int)


def test_tags_and_missing_values_reach_the_members():
    assert forest().__sklearn_tags__().input_tags.allow_nan
    X, y = missing_stream()
    model = forest().fit(X, y)
    # Only where x0 is missing tells the label: the members learnt that test.
    assert model.score(X, y) == 1.0
    assert model.online_error_ < 0.1
    assert np.isnan(model.predict_proba(np.full((1, 3), np.nan))).sum() == 0


def test_categories_are_coded_once_and_each_member_has_all_of_its_columns():
    frame, y = table_stream()
    model = forest(max_features=2).fit(frame, y)
    full = model.categories_
    assert set(full[0]) == {"red", "green", "blue", "violet", "black"}
    assert set(full[1]) == {"round", "square", None} and full[2] is None
    with_colour = 0
    for member, columns in zip(model.estimators_, model.estimators_features_):
        # Its columns' categories, in the forest's codes, whole.
        assert member.categories_ == [full[j] for j in columns]
        if 0 in columns:  # colour: read by equality tests only, one a colour
            with_colour += 1
            own = int(np.flatnonzero(columns == 0)[0])
            mine = member.test_features_ == own
            assert set(member.test_kinds_[mine]) == {"=="}
            assert mine.sum() == len(full[0])
    assert with_colour
    assert model.score(frame, y) > 0.95


def test_chunks_threads_and_object_arrays_give_the_frames_model():
    frame, y = table_stream(n=300, seed=1)
    whole = forest().fit(frame, y)
    chunks = forest(n_jobs=2)  # and in threads, in calls of 7 whole rounds
    step = 7 * chunks.batch_size
    for lo in range(0, 300, step):
        chunks.partial_fit(
            frame.iloc[lo : lo + step], y[lo : lo + step], classes=[0, 1]
        )
    objects = forest().fit(frame.to_numpy(object), y)
    for other in (chunks, objects):
        assert other.categories_ == whole.categories_
        assert other.n_online_mistakes_ == whole.n_online_mistakes_
        assert [pickle.dumps(m._tests) for m in other.estimators_] == [
            pickle.dumps(m._tests) for m in whole.estimators_
        ]


def test_a_column_typed_late_reaches_the_members():
    pd = pytest.importorskip("pandas")
    frame, y = table_stream(n=300, seed=2)
    late = frame.assign(shape=frame["shape"].where(np.arange(300) >= 100, None))
    model = forest().partial_fit(late.iloc[:100], y[:100], classes=[0, 1])
    assert model.categories_[1] is None  # all missing so far: not typed
    model.partial_fit(late.iloc[100:], y[100:])
    assert model.categories_[1] is not None
    for member, columns in zip(model.estimators_, model.estimators_features_):
        assert member.categories_ == [model.categories_[j] for j in columns]
    assert isinstance(late, pd.DataFrame)


BAD = [
    ("inf", lambda f: f.assign(size=np.inf), "infinity"),
    ("numbers_become_strings", lambda f: f.assign(size="big"), "held numbers"),
    ("mixed", lambda f: f.assign(size=["a", 1.0] * (len(f) // 2)), "held numbers"),
    ("width", lambda f: f.drop(columns="size"), "feature"),
]


@pytest.mark.parametrize("change, match", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_tables_raise_and_change_nothing(change, match):
    frame, y = table_stream(n=100)
    model = forest().fit(frame.iloc[:60], y[:60])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=match):
        model.partial_fit(change(frame.iloc[60:]), y[60:])
    assert pickle.dumps(model) == before
    with pytest.raises(ValueError, match="categorical"):
        model.partial_fit(sp.csr_matrix(np.ones((2, 3))), [0, 1])
    assert pickle.dumps(model) == before


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_predicting_unseen_categories_changes_nothing_and_saves(tmp_path):
    frame, y = table_stream(n=200, seed=4)
    model = forest().fit(frame, y)
    before = pickle.dumps(model)
    model.predict(frame.assign(shape="unseen"))
    assert pickle.dumps(model) == before
    skops = pytest.importorskip("skops.io")
    from sklearn_localregret.persistence import load

    skops.dump(model, tmp_path / "forest.skops")
    loaded = load(tmp_path / "forest.skops")
    np.testing.assert_array_equal(
        loaded.predict_proba(frame), model.predict_proba(frame)
    )
    assert loaded.categories_ == model.categories_
    loaded.partial_fit(frame, y)  # learns on
    model.partial_fit(frame, y)
    assert loaded.n_online_mistakes_ == model.n_online_mistakes_


def test_river_rows_with_strings_and_missing_values():
    pytest.importorskip("river")
    from sklearn_localregret.river import RiverAdapter

    frame, y = table_stream(n=100, seed=5)
    # The adapter takes its columns from the first row: give it all three.
    frame.loc[0, ["shape", "size"]] = ["round", 1.0]
    adapter = RiverAdapter(forest(), classes=[0, 1], absent="missing")
    reference = forest()
    objects = frame.to_numpy(object)
    for i, (x, label) in enumerate(zip(frame.to_dict("records"), y)):
        x = {k: v for k, v in x.items() if not (isinstance(v, float) and np.isnan(v))}
        adapter.learn_one(x, int(label))
        reference.partial_fit(objects[i : i + 1], y[i : i + 1], classes=[0, 1])
    assert adapter.estimator_.categories_ == reference.categories_
    assert adapter.estimator_.n_online_mistakes_ == reference.n_online_mistakes_
    np.testing.assert_array_equal(
        adapter.estimator_.predict_proba(objects), reference.predict_proba(objects)
    )
    assert adapter.predict_one({"colour": "purple"}) in (0, 1)
