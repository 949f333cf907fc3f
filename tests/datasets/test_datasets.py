"""Tests of the bundled UCI datasets and the paper's boolean encoding.

The expectations are computed independently from the raw gzipped CSV files
wherever possible, so the loaders are checked against the data rather than
against themselves.
"""

import builtins
import csv
import gzip
import math
import pickle
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils import Bunch

import sklearn_localregret.datasets as datasets
from sklearn_localregret.datasets import (
    boolean_encoder,
    load_kr_vs_kp,
    load_mushroom,
    load_nursery,
)
from sklearn_localregret.datasets._descr import N_BOOLEAN_FEATURES, PAPER_N_FEATURES

DATA_DIR = Path(datasets.__file__).parent / "data"

NURSERY_FEATURES = [
    "parents",
    "has_nurs",
    "form",
    "children",
    "housing",
    "finance",
    "social",
    "health",
]
MUSHROOM_FEATURES = [
    "cap-shape",
    "cap-surface",
    "cap-color",
    "bruises",
    "odor",
    "gill-attachment",
    "gill-spacing",
    "gill-size",
    "gill-color",
    "stalk-shape",
    "stalk-root",
    "stalk-surface-above-ring",
    "stalk-surface-below-ring",
    "stalk-color-above-ring",
    "stalk-color-below-ring",
    "veil-type",
    "veil-color",
    "ring-number",
    "ring-type",
    "spore-print-color",
    "population",
    "habitat",
]
KR_VS_KP_FEATURES = (
    "bkblk bknwy bkon8 bkona bkspr bkxbq bkxcr bkxwp blxwp bxqsq cntxt dsopp "
    "dwipd hdchk katri mulch qxmsq r2ar8 reskd reskr rimmx rkxwp rxmsq simpl "
    "skach skewr skrxp spcop stlmt thrsk wkcti wkna8 wknck wkovl wkpos wtoeg"
).split()

# name -> (loader, file, target column, feature names, shape, class counts,
#          one-hot feature count, paper's footnote count)
CASES = {
    "nursery": dict(
        loader=load_nursery,
        file="nursery.csv.gz",
        target_column="classification",
        feature_names=NURSERY_FEATURES,
        shape=(12960, 8),
        class_counts={
            "not_recom": 4320,
            "priority": 4266,
            "recommend": 2,
            "spec_prior": 4044,
            "very_recom": 328,
        },
        n_boolean=27,
        paper=28,
    ),
    "mushroom": dict(
        loader=load_mushroom,
        file="mushroom.csv.gz",
        target_column="edibility",
        feature_names=MUSHROOM_FEATURES,
        shape=(8124, 22),
        class_counts={"e": 4208, "p": 3916},
        n_boolean=117,
        paper=118,
    ),
    "kr-vs-kp": dict(
        loader=load_kr_vs_kp,
        file="kr-vs-kp.csv.gz",
        target_column="target",
        feature_names=KR_VS_KP_FEATURES,
        shape=(3196, 36),
        class_counts={"nowin": 1527, "won": 1669},
        n_boolean=73,
        paper=74,
    ),
}
NAMES = list(CASES)


def read_raw(file_name):
    """Header and non-empty rows of a bundled CSV, read independently."""
    with gzip.open(DATA_DIR / file_name, "rt", encoding="utf-8", newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    return rows[0], rows[1:]


def raw_split(name):
    """(feature matrix, target vector) straight from the raw CSV."""
    case = CASES[name]
    header, rows = read_raw(case["file"])
    t = header.index(case["target_column"])
    X = [[v for j, v in enumerate(row) if j != t] for row in rows]
    y = [row[t] for row in rows]
    return X, y


@pytest.fixture(params=NAMES)
def name(request):
    return request.param


# --------------------------------------------------------------------------
# raw files
# --------------------------------------------------------------------------


def test_raw_headers():
    """The target is the first column of mushroom, the last of the others."""
    header, _ = read_raw("mushroom.csv.gz")
    assert header[0] == "edibility"
    assert header[1:] == MUSHROOM_FEATURES
    header, _ = read_raw("nursery.csv.gz")
    assert header == NURSERY_FEATURES + ["classification"]
    header, _ = read_raw("kr-vs-kp.csv.gz")
    assert header == [f"V{i}" for i in range(1, 37)] + ["target"]


def test_raw_shapes(name):
    case = CASES[name]
    header, rows = read_raw(case["file"])
    n_samples, n_features = case["shape"]
    assert len(rows) == n_samples
    assert len(header) == n_features + 1
    assert all(len(row) == n_features + 1 for row in rows)


# --------------------------------------------------------------------------
# loaders
# --------------------------------------------------------------------------


def test_bunch_contents(name):
    case = CASES[name]
    bunch = case["loader"]()
    assert isinstance(bunch, Bunch)
    assert bunch.data.shape == case["shape"]
    assert bunch.target.shape == (case["shape"][0],)
    assert bunch.data.dtype == object and bunch.target.dtype == object
    assert all(isinstance(v, str) for v in bunch.data.ravel())
    assert all(isinstance(v, str) for v in bunch.target)
    assert bunch.feature_names == case["feature_names"]
    assert bunch.attribute_names == case["feature_names"]
    assert list(bunch.target_names) == sorted(case["class_counts"])
    assert bunch.frame is None
    assert bunch.encoder is None
    assert bunch.filename == case["file"]
    assert (resources.files(bunch.data_module) / bunch.filename).is_file()


def test_values_match_raw_csv(name):
    X_raw, y_raw = raw_split(name)
    bunch = CASES[name]["loader"]()
    np.testing.assert_array_equal(bunch.data, np.array(X_raw, dtype=object))
    np.testing.assert_array_equal(bunch.target, np.array(y_raw, dtype=object))


def test_class_counts(name):
    bunch = CASES[name]["loader"]()
    assert dict(Counter(bunch.target)) == CASES[name]["class_counts"]
    assert list(bunch.target_names) == sorted(set(bunch.target))


def test_first_targets():
    assert list(load_nursery().target[:3]) == ["recommend", "priority", "not_recom"]
    assert list(load_mushroom().target[:3]) == ["p", "e", "e"]
    assert list(load_kr_vs_kp().target[:3]) == ["won", "won", "won"]


def test_mushroom_missing_values_kept_as_category():
    bunch = load_mushroom()
    stalk_root = bunch.feature_names.index("stalk-root")
    missing = bunch.data == "?"
    assert missing.sum() == 2480
    assert missing[:, stalk_root].sum() == 2480
    assert sorted(set(bunch.data[:, stalk_root])) == ["?", "b", "c", "e", "r"]


def test_no_missing_values_in_nursery_and_kr_vs_kp():
    for loader in (load_nursery, load_kr_vs_kp):
        data = loader().data
        assert not np.isin(data, ["?", "", "NA", "nan"]).any()


def test_nursery_is_complete_factorial():
    """Every combination of values occurs once (used in DESCR's analysis)."""
    data = load_nursery().data
    n_values = [len(set(column)) for column in data.T]
    assert n_values == [3, 5, 4, 4, 3, 2, 3, 3]
    assert math.prod(n_values) == len(data) == len({tuple(row) for row in data})


def test_return_X_y(name):
    loader = CASES[name]["loader"]
    bunch = loader()
    X, y = loader(return_X_y=True)
    np.testing.assert_array_equal(X, bunch.data)
    np.testing.assert_array_equal(y, bunch.target)
    X, y = loader(return_X_y=True, one_hot=True)
    np.testing.assert_array_equal(X, loader(one_hot=True).data)
    np.testing.assert_array_equal(y, bunch.target)


def test_as_frame(name):
    pd = pytest.importorskip("pandas")
    case = CASES[name]
    bunch = case["loader"](as_frame=True)
    array_bunch = case["loader"]()
    assert isinstance(bunch.data, pd.DataFrame)
    assert isinstance(bunch.target, pd.Series)
    assert bunch.data.shape == case["shape"]
    assert list(bunch.data.columns) == case["feature_names"]
    assert all(isinstance(dtype, pd.CategoricalDtype) for dtype in bunch.data.dtypes)
    assert bunch.target.name == case["target_column"]
    assert list(bunch.target.cat.categories) == sorted(case["class_counts"])
    np.testing.assert_array_equal(bunch.data.to_numpy(dtype=object), array_bunch.data)
    np.testing.assert_array_equal(
        bunch.target.to_numpy(dtype=object), array_bunch.target
    )
    assert list(bunch.frame.columns) == case["feature_names"] + [case["target_column"]]
    # check_exact: the values are category strings, equal or not; without it
    # pandas compares categoricals value by value in Python (seconds a frame).
    # Dtypes and categories are checked either way (check_categorical).
    exact = dict(check_exact=True)
    pd.testing.assert_frame_equal(bunch.frame.iloc[:, :-1], bunch.data, **exact)
    pd.testing.assert_series_equal(bunch.frame.iloc[:, -1], bunch.target, **exact)

    X, y = case["loader"](return_X_y=True, as_frame=True)
    pd.testing.assert_frame_equal(X, bunch.data, **exact)
    pd.testing.assert_series_equal(y, bunch.target, **exact)


def test_as_frame_one_hot(name):
    pd = pytest.importorskip("pandas")
    case = CASES[name]
    bunch = case["loader"](as_frame=True, one_hot=True)
    array_bunch = case["loader"](one_hot=True)
    assert bunch.data.shape == (case["shape"][0], case["n_boolean"])
    assert list(bunch.data.columns) == array_bunch.feature_names
    assert (bunch.data.dtypes == np.uint8).all()
    np.testing.assert_array_equal(bunch.data.to_numpy(), array_bunch.data)
    assert bunch.frame.shape == (case["shape"][0], case["n_boolean"] + 1)
    assert isinstance(bunch.target, pd.Series)


def test_as_frame_without_pandas(monkeypatch):
    real_import = builtins.__import__

    def import_without_pandas(name, *args, **kwargs):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    # `import pandas` fails; sys.modules is left alone for scikit-learn's sake
    monkeypatch.setattr(builtins, "__import__", import_without_pandas)
    with pytest.raises(ImportError, match=r"load_mushroom\(as_frame=True\) requires"):
        load_mushroom(as_frame=True)
    # pandas is not needed otherwise
    assert load_mushroom().data.shape == (8124, 22)
    assert load_mushroom(one_hot=True).data.shape == (8124, 117)


@pytest.mark.parametrize("flag", ["return_X_y", "as_frame", "one_hot"])
def test_flags_must_be_bool(flag):
    with pytest.raises(TypeError, match=flag):
        load_nursery(**{flag: "yes"})


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        load_nursery(True)


def test_loading_twice_gives_equal_independent_results(name):
    loader = CASES[name]["loader"]
    first = loader()
    reference_data = first.data.copy()
    reference_target = first.target.copy()
    reference_names = list(first.feature_names)

    first.data[:] = "modified"
    first.target[:] = "modified"
    first.feature_names.append("modified")
    first.target_names[:] = "modified"

    second = loader()
    np.testing.assert_array_equal(second.data, reference_data)
    np.testing.assert_array_equal(second.target, reference_target)
    assert second.feature_names == reference_names
    assert list(second.target_names) == sorted(CASES[name]["class_counts"])
    assert not np.shares_memory(first.data, second.data)

    X1, _ = loader(return_X_y=True, one_hot=True)
    reference = X1.copy()
    X1[:] = 7
    X2, _ = loader(return_X_y=True, one_hot=True)
    np.testing.assert_array_equal(X2, reference)


def test_loading_twice_as_frame_independent():
    pytest.importorskip("pandas")
    first = load_mushroom(as_frame=True)
    expected = first.frame.copy()
    first.frame.iloc[0, 0] = first.frame.iloc[1, 0]
    del first.data["odor"]
    second = load_mushroom(as_frame=True)
    assert second.frame.equals(expected)
    assert "odor" in second.data.columns


# --------------------------------------------------------------------------
# boolean (one-hot) features
# --------------------------------------------------------------------------


def test_one_hot_count_equals_distinct_values_in_raw_csv(name):
    """n_features = sum over attributes of distinct values, from the raw CSV."""
    X_raw, _ = raw_split(name)
    expected = sum(len({row[j] for row in X_raw}) for j in range(len(X_raw[0])))
    bunch = CASES[name]["loader"](one_hot=True)
    assert bunch.data.shape == (len(X_raw), expected)
    assert len(bunch.feature_names) == expected
    assert expected == CASES[name]["n_boolean"] == N_BOOLEAN_FEATURES[name]


def test_one_hot_count_versus_paper(name):
    """Ours is exactly one below the paper's footnote, for every dataset."""
    assert PAPER_N_FEATURES[name] == CASES[name]["paper"]
    assert CASES[name]["paper"] - CASES[name]["n_boolean"] == 1


def test_mushroom_alternative_counts_do_not_give_paper_count():
    """The alternatives ruled out in DESCR's analysis really give 116/115."""
    data = load_mushroom().data
    attributes = load_mushroom().feature_names
    n_values = {a: len(set(data[:, j])) for j, a in enumerate(attributes)}
    total = sum(n_values.values())
    assert total == 117
    assert n_values["veil-type"] == 1
    without_missing = total - 1  # drop the '?' category of stalk-root
    without_constant = total - n_values["veil-type"]
    assert (without_missing, without_constant, total - 2) == (116, 116, 115)
    assert PAPER_N_FEATURES["mushroom"] not in (without_missing, without_constant)


def test_one_hot_one_per_attribute(name):
    bunch = CASES[name]["loader"](one_hot=True)
    X = bunch.data
    assert isinstance(X, np.ndarray) and X.dtype == np.uint8
    assert set(np.unique(X)) <= {0, 1}
    sizes = [len(categories) for categories in bunch.encoder.categories_]
    assert sum(sizes) == X.shape[1]
    assert len(sizes) == len(bunch.attribute_names) == CASES[name]["shape"][1]
    start = 0
    for size in sizes:
        np.testing.assert_array_equal(X[:, start : start + size].sum(axis=1), 1)
        start += size


def test_one_hot_feature_names_and_values_match_raw(name):
    X_raw, _ = raw_split(name)
    bunch = CASES[name]["loader"](one_hot=True)
    attributes = CASES[name]["feature_names"]
    assert bunch.attribute_names == attributes
    column = {feature: k for k, feature in enumerate(bunch.feature_names)}
    assert len(column) == len(bunch.feature_names)  # names are unique
    # every name is "<attribute>=<value>" and "=" is unambiguous
    for feature in bunch.feature_names:
        attribute, value = feature.split("=")
        assert attribute in attributes
    assert not any("=" in v for row in X_raw for v in row)
    # the 1s are exactly at "<attribute>=<raw value>"
    expected = np.zeros_like(bunch.data)
    for i, row in enumerate(X_raw):
        for attribute, value in zip(attributes, row):
            expected[i, column[f"{attribute}={value}"]] = 1
    np.testing.assert_array_equal(bunch.data, expected)
    assert bunch.target_names.tolist() == sorted(CASES[name]["class_counts"])


def test_mushroom_one_hot_special_features():
    bunch = load_mushroom(one_hot=True)
    names = bunch.feature_names
    missing = bunch.data[:, names.index("stalk-root=?")]
    assert missing.sum() == 2480
    assert bunch.data[:, names.index("veil-type=p")].all()  # constant feature
    assert [n for n in names if n.startswith("veil-type=")] == ["veil-type=p"]


def test_one_hot_encoder_round_trip(name):
    case = CASES[name]
    raw = case["loader"]()
    bunch = case["loader"](one_hot=True)
    np.testing.assert_array_equal(bunch.encoder.inverse_transform(bunch.data), raw.data)
    names = bunch.encoder.get_feature_names_out(bunch.attribute_names)
    assert list(names) == bunch.feature_names


# --------------------------------------------------------------------------
# boolean_encoder
# --------------------------------------------------------------------------


def test_boolean_encoder_configuration():
    encoder = boolean_encoder()
    assert isinstance(encoder, OneHotEncoder)
    params = encoder.get_params()
    assert params["handle_unknown"] == "ignore"
    assert params["dtype"] is np.uint8
    assert params["drop"] is None
    assert params["sparse_output"] is False
    assert params["categories"] == "auto"
    assert boolean_encoder(sparse_output=True).sparse_output is True


def test_boolean_encoder_unknown_values_and_sparse():
    X = np.array([["a", "x"], ["b", "y"]], dtype=object)
    encoder = boolean_encoder(sparse_output=True).fit(X)
    out = encoder.transform(np.array([["c", "x"]], dtype=object))
    assert sp.issparse(out)
    np.testing.assert_array_equal(out.toarray(), [[0, 0, 1, 0]])


def test_boolean_encoder_fixed_categories():
    encoder = boolean_encoder(categories=[["a", "b", "c"]])
    out = encoder.fit_transform(np.array([["a"], ["a"]], dtype=object))
    np.testing.assert_array_equal(out, [[1, 0, 0], [1, 0, 0]])
    assert list(encoder.get_feature_names_out(["f"])) == ["f=a", "f=b", "f=c"]


def test_boolean_encoder_clone_and_pickle():
    X, _ = load_nursery(return_X_y=True)
    fitted = boolean_encoder().fit(X)
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.transform(X), fitted.transform(X))
    assert list(restored.get_feature_names_out(["a"] * 8))[:2] == [
        "a=great_pret",
        "a=pretentious",
    ]
    np.testing.assert_array_equal(clone(fitted).fit_transform(X), fitted.transform(X))


# --------------------------------------------------------------------------
# DESCR and package
# --------------------------------------------------------------------------

DOIS = {
    "nursery": "10.24432/C5P88W",
    "mushroom": "10.24432/C5959T",
    "kr-vs-kp": "10.24432/C5DK5C",
}


def test_descr(name):
    case = CASES[name]
    descr = case["loader"]().DESCR
    assert f"https://doi.org/{DOIS[name]}" in descr
    assert "https://archive.ics.uci.edu/dataset/" in descr
    assert "CC BY 4.0" in descr
    assert "UCI Machine Learning Repository" in descr
    assert f":Number of Instances: {case['shape'][0]}" in descr
    assert f"{case['shape'][1]} categorical attributes" in descr
    for label, count in case["class_counts"].items():
        assert any(
            line.split()[:2] == [label, str(count)] for line in descr.splitlines()
        ), (label, count)
    assert f":Boolean features: {case['n_boolean']}" in descr
    assert str(case["paper"]) in descr
    assert "Our analysis" in descr
    assert ":Missing Attribute Values:" in descr
    # the loader docstring states the counts as well
    assert f"{case['n_boolean']} boolean" in case["loader"].__doc__
    assert f"n = {case['paper']}" in case["loader"].__doc__


def test_mushroom_descr_documents_missing_values():
    descr = load_mushroom().DESCR
    assert "2480" in descr and "'?'" in descr and "stalk-root=?" in descr


def test_public_api():
    assert sorted(datasets.__all__) == [
        "Stream",
        "boolean_encoder",
        "load_kr_vs_kp",
        "load_mushroom",
        "load_nursery",
        "load_stream",
        "make_stream",
        "stream_names",
    ]
    assert datasets.__doc__
    for public in datasets.__all__:
        assert getattr(datasets, public).__doc__
