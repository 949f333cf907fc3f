"""Named streams: reproducible, drifting exactly where they say; user streams."""

import io
from itertools import combinations

import numpy as np
import pytest

from sklearn_localregret.datasets import Stream, load_stream, make_stream, stream_names
from sklearn_localregret.datasets import _stream_sources as sources
from sklearn_localregret.datasets.streams import MIN_ROWS, STREAMS


def _available():
    return stream_names(available=True)


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_every_named_stream_is_reproducible_and_well_formed(name):
    if name not in _available():
        pytest.skip(f"{name} needs River")
    a = load_stream(name, n_rows=240, seed=3)
    b = load_stream(name, n_rows=240, seed=3)
    c = load_stream(name, n_rows=240, seed=4)
    assert a.name == name and a.description == STREAMS[name].description
    assert a.n_rows == 240 and a.X.shape == (240, a.n_features)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not (np.array_equal(a.X, c.X) and np.array_equal(a.y, c.y))
    assert len(a.classes) >= 2 and np.isfinite(a.X).all()
    assert all(0 < p < 240 for p in a.drift_points)
    # Points exactly for the drifts that happen at points.
    assert bool(a.drift_points) == (a.drift in ("abrupt", "gradual"))


def test_real_datasets_are_capped_at_their_size_and_shuffled_per_seed():
    pytest.importorskip("river")
    full = load_stream("phishing", n_rows=10**6, seed=0)
    assert full.n_rows == STREAMS["phishing"].max_rows == 1250
    other = load_stream("phishing", n_rows=10**6, seed=1)
    # The same rows in another order.
    assert sorted(map(tuple, full.X)) == sorted(map(tuple, other.X))
    assert not np.array_equal(full.X, other.X)


def test_abrupt_schedule_switches_exactly_at_the_points():
    rng = np.random.default_rng(0)
    schedule = sources.concept_schedule(100, (30, 31, 70), 0, rng)
    assert schedule.tolist() == [0] * 30 + [1] + [2] * 39 + [3] * 30


def test_gradual_schedule_mixes_only_inside_the_span():
    rng = np.random.default_rng(0)
    schedule = sources.concept_schedule(4000, (2000,), 1000, rng)
    assert (schedule[:1500] == 0).all() and (schedule[2500:] == 1).all()
    # The share of the new concept rises linearly across the span: about 1/4
    # in its first half and 3/4 in its second (binomial, 500 rows each: the
    # tolerance is more than 5 standard deviations, sqrt(0.19 / 500) = 0.019).
    assert abs(schedule[1500:2000].mean() - 0.25) < 0.1
    assert abs(schedule[2000:2500].mean() - 0.75) < 0.1


def test_sea_concepts_change_exactly_at_the_quarters():
    pytest.importorskip("river")
    built = sources.sea(2000, np.random.default_rng(0), noise=0.0)
    X, y = built["X"], built["y"]
    assert built["drift_points"] == (500, 1000, 1500)
    thresholds = [8.0, 9.0, 7.0, 9.5]  # SEA's variants 0-3
    for k, lo in enumerate((0, 500, 1000, 1500)):
        rows = slice(lo, lo + 500)
        assert (y[rows] == (X[rows, 0] + X[rows, 1] > thresholds[k])).all()


def test_stagger_concepts_change_exactly_at_the_thirds():
    pytest.importorskip("river")
    s = load_stream("stagger", n_rows=900, seed=0)
    assert s.drift_points == (300, 600) and s.is_boolean
    onehot = s.X.reshape(-1, 3, 3)  # size, color, shape: one-hot over 0, 1, 2
    size, color, shape = (onehot.argmax(axis=2)).T
    concepts = [
        (size == 0) & (color == 0),  # River's STAGGER functions 0-2
        (color == 2) | (shape == 0),
        (size == 1) | (size == 2),
    ]
    for k, lo in enumerate((0, 300, 600)):
        assert (s.y[lo : lo + 300] == concepts[k][lo : lo + 300]).all()
    # Each row is one value per attribute.
    assert (onehot.sum(axis=2) == 1).all()


def test_inverted_labels_flip_exactly_halfway():
    s = load_stream("inverted", n_rows=1000, seed=5)
    assert s.drift_points == (500,) and s.drift == "abrupt"
    consistent = [
        c
        for c in combinations(range(20), 3)
        if (s.X[:500, list(c)].any(axis=1) == s.y[:500]).all()
    ]
    assert len(consistent) == 1  # the planted disjunction
    target = s.X[:, list(consistent[0])].any(axis=1)
    assert (s.y[500:] == 1 - target[500:]).all()


def test_alternating_flips_every_ten_rows_on_one_instance():
    s = load_stream("alternating", n_rows=100, seed=0)
    assert (s.X == s.X[0]).all()
    assert s.y.tolist() == ([1] * 10 + [0] * 10) * 5
    assert s.drift == "adversarial"


def test_gradual_streams_declare_their_span():
    pytest.importorskip("river")
    for name in ("agrawal", "led-drift"):
        s = load_stream(name, n_rows=500, seed=0)
        assert s.drift == "gradual" and s.drift_points == (250,)
        assert s.drift_width == 100


@pytest.mark.parametrize("name", ["sea", "stagger", "agrawal", "rbf-moving"])
def test_the_shortest_drifting_streams_hold_every_concept(name):
    if STREAMS[name].needs_river:
        pytest.importorskip("river")
    stream = load_stream(name, n_rows=MIN_ROWS, seed=0)
    assert stream.X.shape[0] == MIN_ROWS
    assert all(0 < point < MIN_ROWS for point in stream.drift_points)


def test_load_stream_refuses_bad_input():
    with pytest.raises(ValueError, match="Unknown stream 'sae'.*sea"):
        load_stream("sae")
    for bad in (0, 1, -5, 2.5, True):
        with pytest.raises(ValueError, match="n_rows must be an integer >= 20"):
            load_stream("inverted", n_rows=bad)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        load_stream("inverted", seed=-1)  # numpy's unnamed message before


# -- a user's stream -------------------------------------------------------------


def test_make_stream_from_arrays_and_dataframes():
    X = np.array([[0.5, 1], [1.5, 0], [2.5, 1]])
    s = make_stream((X, ["a", "b", "a"]), name="mine", drift_points=[1])
    assert s.name == "mine" and s.drift == "abrupt" and s.drift_points == (1,)
    np.testing.assert_array_equal(s.X, X)
    assert s.feature_names == ("x0", "x1")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"size": [1.0, 2.0, 3.0], "colour": ["red", "blue", "red"]})
    s = make_stream((frame, [0, 1, 0]))
    assert s.feature_names == ("size", "colour=blue", "colour=red")
    assert s.X.tolist() == [[1, 0, 1], [2, 1, 0], [3, 0, 1]]


def test_make_stream_from_rows():
    dict_rows = [({"a": 1, "b": "x"}, 1), ({"a": 0, "b": "y"}, 0)] * 3
    s = make_stream(iter(dict_rows))
    assert s.name == "custom" and s.feature_names == ("a", "b=x", "b=y")
    assert s.is_boolean and s.n_rows == 6
    # Two rows in a tuple are rows, not an (X, y) pair.
    s = make_stream((([0.0, 1.0], 1), ([1.0, 0.0], 0)))
    assert s.X.tolist() == [[0.0, 1.0], [1.0, 0.0]] and s.y.tolist() == [1, 0]
    # Dict rows' keys in any order (River's rows): read by name.
    s = make_stream([({"a": 1, "b": 2}, 0), ({"b": 3, "a": 4}, 1)])
    assert s.feature_names == ("a", "b") and s.X.tolist() == [[1, 2], [4, 3]]


def test_make_stream_from_csv(tmp_path):
    path = tmp_path / "weather.csv"
    path.write_text("outlook,temp,play\nsunny,30,no\nrain,18,yes\nsunny,21,yes\n")
    s = make_stream(path)
    assert s.name == "weather" and s.y.tolist() == ["no", "yes", "yes"]
    assert s.feature_names == ("outlook=rain", "outlook=sunny", "temp")
    s = make_stream(str(path), label_column="outlook")
    assert s.y.tolist() == ["sunny", "rain", "sunny"]
    assert s.feature_names == ("temp", "play=no", "play=yes")
    # Integer labels become ints; an open file works as well as a path.
    s = make_stream(io.StringIO("x,label\n0.5,1\n1.5,0\n"))
    assert s.y.tolist() == [1, 0] and s.y.dtype.kind == "i"
    # Beyond int64 they stay text (an OverflowError before).
    s = make_stream(io.StringIO("x,label\n0.5,99999999999999999999\n1.5,0\n"))
    assert s.y.tolist() == ["99999999999999999999", "0"]


def test_make_stream_refuses_bad_input_clearly(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,0\n0,1\n")
    with pytest.raises(ValueError, match="no label column 'y'; its columns are a, b"):
        make_stream(path, label_column="y")
    path.write_text("a,b\n1,0\n0,\n")
    with pytest.raises(ValueError, match="line 3: empty field"):
        make_stream(path)
    path.write_text("a,b\n1,0\n0\n")
    with pytest.raises(ValueError, match="line 3: 1 fields"):
        make_stream(path)
    path.write_text("a,b\n1,0\n0,0\n")
    with pytest.raises(ValueError, match="single class"):
        make_stream(path)
    path.write_text("")
    with pytest.raises(ValueError, match="empty"):
        make_stream(path)
    with pytest.raises(FileNotFoundError):
        make_stream(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="Row 1 has 1 features; the first row has 2"):
        make_stream([([1, 2], 0), ([1], 1)])
    with pytest.raises(ValueError, match="Row 1 has features"):
        make_stream([({"a": 1}, 0), ({"b": 1}, 1)])
    with pytest.raises(ValueError, match="not an \\(x, y\\) pair"):
        make_stream([([1, 2], 0), 5])
    with pytest.raises(ValueError, match="no rows"):
        make_stream([])
    with pytest.raises(ValueError, match="missing or infinite"):
        make_stream((np.array([[np.nan], [1.0]]), [0, 1]))
    with pytest.raises(ValueError, match="label_column applies to CSV files only"):
        make_stream((np.eye(2), [0, 1]), label_column="y")
    for missing in (None, np.nan):  # ("'<' not supported" for None before)
        with pytest.raises(ValueError, match="Row 1's label is missing"):
            make_stream(([[1], [2], [3]], [0, missing, 1]))
    # A missing value in a text column became a category "c=nan".
    rows = [({"c": "a"}, 0), ({"c": float("nan")}, 1), ({"c": "b"}, 0)]
    with pytest.raises(ValueError, match="Feature 'c' has missing values"):
        make_stream(rows)
    with pytest.raises(ValueError, match="X must be 2-D"):  # not "(x, y) pair"
        make_stream((np.arange(6.0), [0, 1, 0, 1, 0, 1]))
    with pytest.raises(ValueError, match="same name as text"):
        make_stream([({1: 0.0, "1": 1.0}, 0), ({1: 1.0, "1": 0.0}, 1)])
    # A column named "a=x" and column a's category x: two features "a=x".
    with pytest.raises(ValueError, match="Two features would be named 'a=x'"):
        make_stream([({"a=x": 1, "a": "x"}, 0), ({"a=x": 0, "a": "z"}, 1)])


def test_stream_validates_itself():
    X, y = np.eye(4), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="drift points must be increasing rows"):
        Stream("s", X, y, drift_points=(4,))
    with pytest.raises(ValueError, match="drift points must be increasing rows"):
        Stream("s", X, y, drift_points=(3, 2))
    with pytest.raises(ValueError, match="drift must be one of"):
        Stream("s", X, y, drift="sudden")
    with pytest.raises(ValueError, match="drift='none' with drift points"):
        Stream("s", X, y, drift="none", drift_points=(2,))
    with pytest.raises(ValueError, match="drift points are rows"):
        Stream("s", X, y, drift_points=(2.7,))  # was read as row 2
    with pytest.raises(ValueError, match="one label per row"):
        Stream("s", X, y[:3])
    with pytest.raises(ValueError, match="single class"):
        Stream("s", X, np.zeros(4))
    with pytest.raises(ValueError, match="X must be numeric"):
        Stream("s", X.astype(str), y)
    s = Stream("s", X, y, drift_points=(2,), drift_width=2)
    assert s.drift == "gradual" and s.is_binary and s.is_boolean


def test_make_stream_refuses_a_csv_header_naming_a_column_twice():
    """The label was the first of two columns named as the last one."""
    with pytest.raises(ValueError, match="more than one column 'y'"):
        make_stream(io.StringIO("y,a,y\n1,x,0\n2,z,1\n"))


@pytest.mark.parametrize(
    "source, error, match",
    [
        ([(0, "a"), (1, "b"), (0, "a")], TypeError, "Row 0's features 0 are neither"),
        (
            [np.array([[0], [1], [1]]), np.array([0, 1, 1])],
            ValueError,
            "a list of shapes",
        ),
        (
            (np.zeros((3, 1)), np.array([[0], [1], [0]])),
            ValueError,
            r"shapes \(3, 1\) and \(3, 1\)",
        ),
    ],
)
def test_make_stream_says_what_is_wrong_with_near_miss_sources(source, error, match):
    with pytest.raises(error, match=match):
        make_stream(source)


def test_make_stream_reads_csv_files_as_users_write_them(tmp_path):
    # A byte-order mark, spaces around cells, "0" and "0.0" labels, blank
    # lines at the end: a BOM in the first name, four classes, an error.
    path = tmp_path / "d.csv"
    path.write_bytes("\ufeffa , b, y\n1.5, x , 0\n2.5,z,1.0 \n0.5, x,1\n\n\n".encode())
    s = make_stream(path, label_column="y")
    assert s.feature_names == ("a", "b=x", "b=z")
    assert s.y.tolist() == [0, 1, 1] and s.y.dtype.kind == "i"
    s = make_stream(io.StringIO("a,y\n1, no\n2,yes\n3,no \n"))
    assert s.y.tolist() == ["no", "yes", "no"]
    s = make_stream(io.StringIO("a,y\n1,0.5\n2,1.5\n3,007\n"))
    assert s.y.tolist() == ["0.5", "1.5", "007"]  # "007" is not how 7 is written
    # "?" and "NA" are categories in a text column, missing in one of numbers.
    s = make_stream(io.StringIO("a,y\nNA,0\n?,1\nx,0\n"))
    assert s.feature_names == ("a=?", "a=NA", "a=x")
    for marker in ("NA", "?", "null"):
        with pytest.raises(
            ValueError, match=f"'b' holds numbers and missing.*{marker}"
        ):
            make_stream(io.StringIO(f"b,y\n1.5,0\n{marker},1\n2,0\n"))
        with pytest.raises(ValueError, match=f"Row 1's label is missing \\('{marker}"):
            make_stream(io.StringIO(f"b,y\n1.5,0\n2,{marker}\n2,1\n"))
    with pytest.raises(ValueError, match="separated by ';'"):
        make_stream(io.StringIO("a;b;y\n1;2;0\n2;1;1\n"), label_column="y")
    # A message names the file's own line, blank lines counted.
    with pytest.raises(ValueError, match="line 5: 1 fields"):
        make_stream(io.StringIO("a,y\n\n1,0\n\n2\n"))


def test_make_stream_refuses_sparse_x_and_endless_rows(monkeypatch):
    import itertools

    import scipy.sparse as sp

    from sklearn_localregret.datasets import _user_streams

    with pytest.raises(ValueError, match="X is a sparse matrix"):
        make_stream((sp.csr_matrix(np.eye(4)), [0, 1, 0, 1]))
    monkeypatch.setattr(_user_streams, "MAX_ROWS", 50)
    endless = ((np.array([i % 3]), i % 2) for i in itertools.count())
    with pytest.raises(ValueError, match="more than 50 rows"):
        make_stream(endless)
    s = make_stream((np.array([i % 3]), i % 2) for i in range(50))
    assert s.n_rows == 50
    with pytest.raises(ValueError, match=r"not an \(x, y\) pair: array") as error:
        make_stream((np.zeros((500, 3)), np.zeros(500), np.zeros(500)))
    assert len(str(error.value)) < 120  # not the whole array
