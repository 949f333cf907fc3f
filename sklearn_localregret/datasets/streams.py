"""Named streams for online evaluation, each saying whether and where it drifts.

A :class:`Stream` is a finite sequence of labelled rows in a fixed order,
with the rows at which its concept changes. :func:`load_stream` builds the
named ones (:data:`STREAMS`), reproducibly from a seed:

* the paper's three datasets, drawn uniformly with replacement as in its
  experiments (one-hot boolean features);
* River's real datasets bundled in the package (no download), shuffled per
  seed;
* River's synthetic generators with abrupt, gradual or incremental drift;
* adversarial sequences for learners that trust the past.

:func:`make_stream` turns a user's data into a :class:`Stream`: an
``(X, y)`` pair, a CSV file, or an iterable of ``(x, y)`` rows. Streams built
from River need River (``pip install river``), imported only when they are
built.
"""

from __future__ import annotations

import csv
import importlib.util
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Callable

import numpy as np

from . import _stream_sources as sources

__all__ = [
    "STREAMS",
    "Stream",
    "StreamSpec",
    "load_stream",
    "make_stream",
    "stream_names",
]

DRIFT_KINDS = ("none", "abrupt", "gradual", "incremental", "adversarial")


@dataclass(frozen=True, eq=False)
class Stream:
    """A finite stream of labelled rows, in order, and where its concept drifts.

    Parameters
    ----------
    name : str
        Short name (used in tables and file names).
    X : ndarray of shape (n_rows, n_features)
        Numeric rows (booleans as 0/1), in stream order.
    y : ndarray of shape (n_rows,)
        Labels, at least two distinct ones.
    drift_points : tuple of int, default=()
        Rows at which a new concept takes over (row index of the first row of
        the new concept; the centre of a gradual change).
    drift : {"none", "abrupt", "gradual", "incremental", "adversarial"}, \
default=None
        How the concept changes: not at all, at once at each drift point,
        over ``drift_width`` rows around each drift point, continuously
        ("incremental", no points), or against the learner by construction
        ("adversarial"). None infers "abrupt" or "gradual" from the points
        and the width, "none" without points.
    drift_width : int, default=0
        Rows over which a gradual change mixes the old and new concept.
    description : str, default=""
        One line on what the stream is.
    feature_names : tuple of str or None, default=None
        Names of the columns of ``X``.

    Raises
    ------
    ValueError
        If ``X`` and ``y`` do not match, ``y`` has fewer than two classes, or a
        drift point lies outside the stream.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.datasets import Stream
    >>> X = np.array([[0], [1], [0], [1]])
    >>> s = Stream("flip", X, np.array([0, 1, 1, 0]), drift_points=(2,))
    >>> s.drift, s.n_rows, s.is_boolean, s.classes
    ('abrupt', 4, True, array([0, 1]))
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    drift_points: tuple = ()
    drift: str | None = None
    drift_width: int = 0
    description: str = ""
    feature_names: tuple | None = field(default=None)

    def __post_init__(self):
        X, y = np.asarray(self.X), np.asarray(self.y)
        if X.ndim != 2:
            raise ValueError(
                f"Stream {self.name!r}: X must be 2-D, got shape {X.shape}."
            )
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"Stream {self.name!r}: y must be 1-D with one label "
                f"per row of X; got shapes {X.shape} and {y.shape}."
            )
        if X.dtype.kind not in "biuf":
            raise ValueError(
                f"Stream {self.name!r}: X must be numeric, got dtype {X.dtype}."
            )
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                f"Stream {self.name!r} has a single class ({classes.tolist()!r} in "
                f"all {len(y)} rows): there is nothing to learn or predict."
            )
        points = tuple(int(p) for p in self.drift_points)
        if any(not 0 < p < len(y) for p in points) or list(points) != sorted(points):
            raise ValueError(
                f"Stream {self.name!r}: drift points must be increasing "
                f"rows between 1 and {len(y) - 1}, got {points}."
            )
        drift = self.drift
        if drift is None:
            drift = ("gradual" if self.drift_width else "abrupt") if points else "none"
        if drift not in DRIFT_KINDS:
            raise ValueError(
                f"Stream {self.name!r}: drift must be one of "
                f"{DRIFT_KINDS}, got {drift!r}."
            )
        if not isinstance(self.drift_width, Integral) or self.drift_width < 0:
            raise ValueError(
                f"Stream {self.name!r}: drift_width must be an "
                f"integer >= 0, got {self.drift_width!r}."
            )
        names = self.feature_names
        if names is not None and len(names) != X.shape[1]:
            raise ValueError(
                f"Stream {self.name!r}: {len(names)} feature names for "
                f"{X.shape[1]} columns."
            )
        for attr, value in [
            ("X", X),
            ("y", y),
            ("drift_points", points),
            ("drift", drift),
            ("feature_names", None if names is None else tuple(names)),
        ]:
            object.__setattr__(self, attr, value)

    @property
    def n_rows(self) -> int:
        """Rows in the stream."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Columns of ``X``."""
        return int(self.X.shape[1])

    @property
    def classes(self) -> np.ndarray:
        """The sorted distinct labels."""
        return np.unique(self.y)

    @property
    def is_binary(self) -> bool:
        """Whether the stream has exactly two classes."""
        return len(self.classes) == 2

    @property
    def is_boolean(self) -> bool:
        """Whether every feature value is 0 or 1."""
        return bool(np.isin(self.X, (0, 1)).all())


@dataclass(frozen=True)
class StreamSpec:
    """How to build one named stream (an entry of :data:`STREAMS`).

    Parameters
    ----------
    build : callable
        ``build(n_rows, rng)`` returns the keyword arguments of
        :class:`Stream` other than ``name`` and ``description``.
    description : str
        One line on the stream.
    family : str
        "paper", "river real", "river synthetic" or "adversarial".
    max_rows : int or None
        Rows available (a real dataset sampled without replacement), or None.
    needs_river : bool
        Whether building it imports River.
    """

    build: Callable
    description: str
    family: str
    max_rows: int | None = None
    needs_river: bool = False


#: The named streams, in leaderboard order.
STREAMS: dict[str, StreamSpec] = {
    "nursery": StreamSpec(
        sources.paper_dataset("nursery"),
        "UCI nursery, 27 boolean features, 5 classes, drawn with replacement",
        "paper",
    ),
    "mushroom": StreamSpec(
        sources.paper_dataset("mushroom"),
        "UCI mushroom, 117 boolean features, 2 classes, drawn with replacement",
        "paper",
    ),
    "kr-vs-kp": StreamSpec(
        sources.paper_dataset("kr-vs-kp"),
        "UCI chess kr-vs-kp, 73 boolean features, 2 classes, drawn with replacement",
        "paper",
    ),
    "phishing": StreamSpec(
        sources.river_dataset("Phishing"),
        "River Phishing: 1250 web pages, 9 numeric features, shuffled",
        "river real",
        max_rows=1250,
        needs_river=True,
    ),
    "bananas": StreamSpec(
        sources.river_dataset("Bananas"),
        "River Bananas: 5300 points, 2 numeric features, shuffled",
        "river real",
        max_rows=5300,
        needs_river=True,
    ),
    "image-segments": StreamSpec(
        sources.river_dataset("ImageSegments"),
        "River ImageSegments: 2310 regions, 18 numeric features, 7 classes, shuffled",
        "river real",
        max_rows=2310,
        needs_river=True,
    ),
    "shuttle": StreamSpec(
        sources.river_dataset("Shuttle"),
        "River Shuttle: 49097 rows, 9 numeric features, 7% positive, shuffled",
        "river real",
        max_rows=49097,
        needs_river=True,
    ),
    "sea": StreamSpec(
        sources.sea,
        "River SEA, 3 numeric features, 10% label noise, abrupt drifts at each quarter",
        "river synthetic",
        needs_river=True,
    ),
    "stagger": StreamSpec(
        sources.stagger,
        "River STAGGER, 9 boolean features, balanced, abrupt drifts at each third",
        "river synthetic",
        needs_river=True,
    ),
    "agrawal": StreamSpec(
        sources.agrawal,
        "River Agrawal, 9 numeric features, function 2 to 6, gradual drift over "
        "the middle fifth",
        "river synthetic",
        needs_river=True,
    ),
    "rbf-moving": StreamSpec(
        sources.rbf_moving,
        "River RandomRBFDrift, 10 numeric features, all 50 centroids moving",
        "river synthetic",
        needs_river=True,
    ),
    "led-drift": StreamSpec(
        sources.led_drift,
        "River LEDDrift, 24 boolean features, 10 classes, 10% noise, 7 "
        "attributes swapped gradually over the middle fifth",
        "river synthetic",
        needs_river=True,
    ),
    "alternating": StreamSpec(
        sources.alternating,
        "one boolean instance whose label alternates every 10 rows",
        "adversarial",
    ),
    "inverted": StreamSpec(
        sources.inverted,
        "a disjunction of 3 of 20 boolean features, labels inverted halfway",
        "adversarial",
    ),
}

DEFAULT_ROWS = 5000


def _river_installed() -> bool:
    return importlib.util.find_spec("river") is not None


def stream_names(*, available: bool = False) -> list[str]:
    """Names of the named streams; ``available=True`` leaves out those that
    need River when it is not installed.

    Examples
    --------
    >>> stream_names()[:3]
    ['nursery', 'mushroom', 'kr-vs-kp']
    """
    river = _river_installed() if available else True
    return [name for name, spec in STREAMS.items() if river or not spec.needs_river]


def load_stream(name: str, *, n_rows: int | None = None, seed: int = 0) -> Stream:
    """Build the named stream, reproducibly.

    Parameters
    ----------
    name : str
        A key of :data:`STREAMS` (see :func:`stream_names`).
    n_rows : int or None, default=None
        Rows to generate (5000 when None); a real dataset sampled without
        replacement gives at most all its rows.
    seed : int, default=0
        Seeds the sample, the order and River's generators: the same seed
        gives the same stream.

    Returns
    -------
    Stream

    Raises
    ------
    ValueError
        For an unknown name or a bad ``n_rows``.
    ImportError
        If the stream needs River and River is not installed.

    Examples
    --------
    >>> from sklearn_localregret.datasets import load_stream
    >>> s = load_stream("inverted", n_rows=1000, seed=0)
    >>> s.drift, s.drift_points, s.X.shape
    ('abrupt', (500,), (1000, 20))
    """
    if name not in STREAMS:
        raise ValueError(
            f"Unknown stream {name!r}; the named streams are {', '.join(STREAMS)}."
        )
    if n_rows is None:
        n_rows = DEFAULT_ROWS
    if isinstance(n_rows, bool) or not isinstance(n_rows, Integral) or n_rows < 2:
        raise ValueError(f"n_rows must be an integer >= 2, got {n_rows!r}.")
    spec = STREAMS[name]
    if spec.needs_river and not _river_installed():
        raise ImportError(f"The stream {name!r} is built with River: pip install river")
    if spec.max_rows is not None:
        n_rows = min(n_rows, spec.max_rows)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _salt(name)]))
    return Stream(
        name=name, description=spec.description, **spec.build(int(n_rows), rng)
    )


def _salt(name: str) -> int:
    """A stable integer per name, so that streams get independent draws."""
    return sum(ord(c) * 31**i for i, c in enumerate(name)) % (2**31)


# -- a user's own stream ----------------------------------------------------


def make_stream(
    source,
    *,
    name: str | None = None,
    label_column=None,
    drift_points=(),
    drift: str | None = None,
    drift_width: int = 0,
    description: str = "",
) -> Stream:
    """A :class:`Stream` from a user's data.

    Parameters
    ----------
    source : (X, y) pair, str or path, text file, or iterable of (x, y) rows
        * ``(X, y)``: array-likes (a DataFrame ``X`` gives the feature names);
        * a path to a CSV file with a header row, or an open text file of
          one: the label is the column ``label_column`` (default: the last
          column), the others are features;
        * any other iterable of ``(x, y)`` pairs, ``x`` a dict (feature name to
          value, as River yields them) or a sequence of values.

        Non-numeric feature columns are one-hot encoded, one boolean feature
        ``"column=value"`` per value, the package's encoding of categories.
    name : str, default=None
        Name of the stream; default the file's stem, or "custom".
    label_column : str, default=None
        CSV only: the label column's name.
    drift_points, drift, drift_width, description
        As in :class:`Stream`.

    Returns
    -------
    Stream

    Raises
    ------
    ValueError
        For a CSV file without the label column or with an empty cell, rows of
        different lengths or keys, or a single class.
    FileNotFoundError
        If the CSV file does not exist.

    Examples
    --------
    >>> from sklearn_localregret.datasets import make_stream
    >>> rows = [({"colour": "red", "size": 1.5}, "yes"),
    ...         ({"colour": "blue", "size": 0.5}, "no")]
    >>> s = make_stream(rows, name="toy")
    >>> s.feature_names, s.X.tolist()
    (('colour=blue', 'colour=red', 'size'), [[0.0, 1.0, 1.5], [1.0, 0.0, 0.5]])
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        with path.open(newline="") as handle:
            columns, y = _read_csv(handle, path, label_column)
        name = name or path.stem
    elif hasattr(source, "read"):  # an open text file (e.g. sys.stdin)
        columns, y = _read_csv(source, getattr(source, "name", "<file>"), label_column)
    elif label_column is not None:
        raise ValueError("label_column applies to CSV files only.")
    elif isinstance(source, tuple) and len(source) == 2 and _is_arrays(*source):
        X, y = source
        columns = _array_columns(X)
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {y.shape}.")
    else:
        columns, y = _row_columns(source)
    X, feature_names = _encode(columns, len(y))
    return Stream(
        name=name or "custom",
        X=X,
        y=_as_labels(y),
        drift_points=tuple(drift_points),
        drift=drift,
        drift_width=drift_width,
        description=description,
        feature_names=feature_names,
    )


def _is_arrays(X, y) -> bool:
    """Whether a 2-tuple is an ``(X, y)`` pair rather than two ``(x, y)`` rows."""
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a DataFrame
        return True
    try:
        return np.ndim(X) == 2 and np.ndim(y) == 1
    except ValueError:  # ragged: rows of (x, y)
        return False


def _read_csv(handle, path, label_column):
    reader = csv.reader(handle)
    header = next(reader, None)
    if not header:
        raise ValueError(f"CSV file {path} is empty: a header row is needed.")
    label = header[-1] if label_column is None else label_column
    if label not in header:
        raise ValueError(
            f"CSV file {path} has no label column {label!r}; its "
            f"columns are {', '.join(header)}."
        )
    rows = list(reader)
    for number, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise ValueError(
                f"CSV file {path}, line {number}: {len(row)} fields, "
                f"the header has {len(header)}."
            )
        if any(cell.strip() == "" for cell in row):
            raise ValueError(
                f"CSV file {path}, line {number}: empty field "
                "(missing values are not supported)."
            )
    if not rows:
        raise ValueError(f"CSV file {path} has a header but no rows.")
    at = header.index(label)
    columns = [(h, [row[j] for row in rows]) for j, h in enumerate(header) if j != at]
    return columns, [row[at] for row in rows]


def _array_columns(X):
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a DataFrame
        return [(str(c), X[c].tolist()) for c in X.columns]
    X = np.asarray(X, dtype=object)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}.")
    return [(f"x{j}", X[:, j].tolist()) for j in range(X.shape[1])]


def _row_columns(rows):
    try:
        rows = list(rows)
    except TypeError:
        raise TypeError(
            "A stream source must be an (X, y) pair, a CSV path or an "
            f"iterable of (x, y) rows, got {type(rows).__name__}."
        )
    if not rows:
        raise ValueError("The stream has no rows.")
    xs, ys = [], []
    for number, row in enumerate(rows):
        try:
            x, label = row
        except (TypeError, ValueError):
            raise ValueError(f"Row {number} is not an (x, y) pair: {row!r}.")
        xs.append(x)
        ys.append(label)
    if isinstance(xs[0], dict):
        keys = list(xs[0])
        for number, x in enumerate(xs):
            if not isinstance(x, dict) or list(x) != keys:
                raise ValueError(
                    f"Row {number} has features {list(x)!r}; the first "
                    f"row has {keys!r}."
                )
        return [(str(k), [x[k] for x in xs]) for k in keys], ys
    width = len(xs[0])
    for number, x in enumerate(xs):
        if len(x) != width:
            raise ValueError(
                f"Row {number} has {len(x)} features; the first row has {width}."
            )
    return [(f"x{j}", [x[j] for x in xs]) for j in range(width)], ys


def _as_float(values):
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _encode(columns, n_rows: int):
    """Numeric columns as they are, the others one-hot; the feature names."""
    blocks, names = [], []
    for column, values in columns:
        if len(values) != n_rows:
            raise ValueError(
                f"Feature {column!r} has {len(values)} values for {n_rows} labels."
            )
        numeric = _as_float(values)
        if numeric is not None:
            if not np.isfinite(numeric).all():
                raise ValueError(f"Feature {column!r} has missing or infinite values.")
            blocks.append(numeric[:, None])
            names.append(column)
            continue
        if any(v is None for v in values):
            raise ValueError(f"Feature {column!r} has missing values.")
        text = np.array([str(v) for v in values])
        categories = np.unique(text)
        blocks.append((text[:, None] == categories).astype(np.float64))
        names.extend(f"{column}={c}" for c in categories)
    if not blocks:
        raise ValueError("The stream has no feature columns.")
    return np.hstack(blocks), tuple(names)


def _as_labels(y):
    """Labels as an array; text labels that are all integers become ints."""
    y = np.asarray(y)
    if y.dtype.kind in "US":
        try:
            as_int = y.astype(np.int64)
        except ValueError:
            return y
        if (as_int.astype(str) == np.char.strip(y.astype(str))).all():
            return as_int
    return y
