"""A user's own stream: :func:`make_stream` from ``(X, y)``, a CSV file or rows.

The source is read into named columns; numeric columns stay as they are, the
others are one-hot encoded (one boolean feature ``"column=value"`` per value).
"""

from __future__ import annotations

import csv
import itertools
import reprlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..thresholds.column_values import is_missing
from ._stream import Stream

__all__ = ["make_stream"]

#: Cells read as missing values (pandas.read_csv's defaults, and UCI's "?"):
#: in a column of numbers, or as a label, they are refused, not categories.
MISSING_MARKERS = frozenset(
    "#N/A|#N/A N/A|#NA|-1.#IND|-1.#QNAN|-NaN|-nan|1.#IND|1.#QNAN|<NA>|N/A|NA"
    "|NULL|NaN|None|n/a|nan|null|?".split("|")
)
#: Rows read from an iterable of rows at most (an endless generator, such as
#: River's synthetic streams, would fill the memory).
MAX_ROWS = 1_000_000


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
          column), the others are features; cells are read without the
          spaces around them, blank lines are skipped;
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
        different lengths or keys, a single class, a missing label, a column
        of numbers holding a missing value (:data:`MISSING_MARKERS`, such as
        ``NA`` or ``?``), or more than :data:`MAX_ROWS` rows from an
        iterable of rows.
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
        with path.open(newline="", encoding="utf-8-sig") as handle:
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
        _check_not_a_pair(source)
        columns, y = _row_columns(source)
    X, feature_names = _encode(columns, len(y))
    return Stream(
        name=name or "custom",
        X=X,
        y=_as_labels(y),
        drift_points=drift_points
        if np.ndim(drift_points) == 0
        else tuple(drift_points),
        drift=drift,
        drift_width=drift_width,
        description=description,
        feature_names=feature_names,
    )


def _is_arrays(X, y) -> bool:
    """Whether a 2-tuple is an ``(X, y)`` pair rather than two ``(x, y)`` rows."""
    if (hasattr(X, "columns") and hasattr(X, "iloc")) or sp.issparse(X):
        return True  # a DataFrame, or a sparse matrix (refused as X)
    try:
        # (A 1-D X with labels as long is a pair too: its own error says so.)
        return np.ndim(y) == 1 and (
            np.ndim(X) == 2 or (np.ndim(X) == 1 and len(X) == len(y) != 2)
        )
    except (ValueError, TypeError):  # ragged: rows of (x, y)
        return False


def _read_csv(handle, path, label_column):
    # Stripped cells, blank lines skipped (each row with its line number for
    # the messages); a byte-order mark is not a name's.
    lines = csv.reader(handle)
    reader = ((lines.line_num, [cell.strip() for cell in row]) for row in lines if row)
    _, header = next(reader, (0, None))
    if not header:
        raise ValueError(f"CSV file {path} is empty: a header row is needed.")
    header[0] = header[0].lstrip("\ufeff")
    if len(header) == 1 and ";" in header[0]:
        raise ValueError(
            f"CSV file {path} has one column, {header[0]!r}: its fields are "
            "separated by ';'; commas are read (e.g. pandas.read_csv(path, "
            "sep=';').to_csv(new_path, index=False))."
        )
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:  # which is the label, which a feature: say it
        names = ", ".join(map(repr, repeated))
        raise ValueError(
            f"CSV file {path} names more than one column {names}: "
            "column names must be distinct."
        )
    label = header[-1] if label_column is None else label_column
    if label not in header:
        raise ValueError(
            f"CSV file {path} has no label column {label!r}; its "
            f"columns are {', '.join(header)}."
        )
    rows = []
    for number, row in reader:
        if len(row) != len(header):
            raise ValueError(
                f"CSV file {path}, line {number}: {len(row)} fields, "
                f"the header has {len(header)}."
            )
        if "" in row:
            raise ValueError(
                f"CSV file {path}, line {number}: empty field "
                "(missing values are not supported)."
            )
        rows.append(row)
    if not rows:
        raise ValueError(f"CSV file {path} has a header but no rows.")
    at = header.index(label)
    columns = [(h, [row[j] for row in rows]) for j, h in enumerate(header) if j != at]
    return columns, [row[at] for row in rows]


def _array_columns(X):
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a DataFrame
        return [(str(c), X[c].tolist()) for c in X.columns]
    if sp.issparse(X):
        raise ValueError(
            "X is a sparse matrix: a stream's features are dense columns "
            "(X.toarray(), if it fits in memory)."
        )
    X = np.asarray(X, dtype=object)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}.")
    return [(f"x{j}", X[:, j].tolist()) for j in range(X.shape[1])]


def _check_not_a_pair(source) -> None:
    """Refuse, with what is wrong, two items that would be an ``(X, y)``
    pair but for their form (a list, a column of labels): read as rows, the
    first row's error would quote a whole array."""
    if not (isinstance(source, (list, tuple)) and len(source) == 2):
        return
    try:
        shapes = [np.shape(item) for item in source]
    except ValueError:  # ragged: rows of (x, y)
        return
    if len(shapes[0]) == 2 and len(shapes[1]) >= 1 and shapes[1][0] == shapes[0][0]:
        raise ValueError(
            "An (X, y) pair must be a tuple of a 2-D X and a 1-D y; got a "
            f"{type(source).__name__} of shapes {shapes[0]} and {shapes[1]}."
        )


def _row_columns(rows):
    try:
        rows = list(itertools.islice(rows, MAX_ROWS + 1))
    except TypeError:
        raise TypeError(
            "A stream source must be an (X, y) pair, a CSV path or an "
            f"iterable of (x, y) rows, got {type(rows).__name__}."
        )
    if not rows:
        raise ValueError("The stream has no rows.")
    if len(rows) > MAX_ROWS:
        raise ValueError(
            f"The stream yields more than {MAX_ROWS:,} rows (an endless "
            "generator?): give a finite one, e.g. River's stream.take(n)."
        )
    xs, ys = [], []
    for number, row in enumerate(rows):
        try:
            x, label = row
        except (TypeError, ValueError):
            raise ValueError(
                f"Row {number} is not an (x, y) pair: {reprlib.repr(row)}."
            ) from None
        xs.append(x)
        ys.append(label)
    if isinstance(xs[0], dict):
        keys, names = list(xs[0]), set(xs[0])
        for number, x in enumerate(xs):  # the same names, in any order
            if not isinstance(x, dict) or x.keys() != names:
                raise ValueError(
                    f"Row {number} has features {list(x)!r}; the first "
                    f"row has {keys!r}."
                )
        if len({str(k) for k in keys}) < len(keys):  # e.g. 1 and "1"
            raise ValueError(f"Two features have the same name as text: {keys!r}.")
        return [(str(k), [x[k] for x in xs]) for k in keys], ys
    for number, x in enumerate(xs):
        if not hasattr(x, "__len__"):
            raise TypeError(
                f"Row {number}'s features {x!r} are neither a dict nor a "
                "sequence of values."
            )
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
        if any(v is None or is_missing(v) for v in values):  # NaN, pandas.NA
            raise ValueError(f"Feature {column!r} has missing values.")
        _refuse_marked_numbers(column, values)
        text = np.array([str(v) for v in values])
        categories = np.unique(text)
        blocks.append((text[:, None] == categories).astype(np.float64))
        names.extend(f"{column}={c}" for c in categories)
    if not blocks:
        raise ValueError("The stream has no feature columns.")
    if len(set(names)) < len(names):  # "a=x": a column's own name, and a's x
        twice = next(name for name in names if names.count(name) > 1)
        raise ValueError(
            f"Two features would be named {twice!r}: a column of that name and "
            "a category's indicator column (named column=value); rename the "
            "column."
        )
    return np.hstack(blocks), tuple(names)


def _refuse_marked_numbers(column, values) -> None:
    """A ``ValueError`` for a column of numbers but for missing-value
    markers (``NA``, ``?``): one-hot, each number would be a category."""
    marked = [i for i, v in enumerate(values) if str(v).strip() in MISSING_MARKERS]
    if marked and len(marked) < len(values):
        marks = set(marked)
        rest = [v for i, v in enumerate(values) if i not in marks]
        if _as_float(rest) is not None:
            raise ValueError(
                f"Feature {column!r} holds numbers and missing values "
                f"({values[marked[0]]!r} in row {marked[0]}): missing values "
                "are not supported; fill or drop them first."
            )


def _as_labels(y):
    """Labels as an array; text labels that are all integers (of int64)
    become ints. A missing label (None, NaN) is a ``ValueError``."""
    y = np.asarray(y)
    if y.dtype.kind in "Of":
        missing = [i for i, v in enumerate(y.tolist()) if v is None or is_missing(v)]
        if missing:
            raise ValueError(
                f"Row {missing[0]}'s label is missing ({y.tolist()[missing[0]]!r}): "
                "every row of a stream needs its label."
            )
    if y.dtype.kind in "US":
        y = np.char.strip(y.astype(str))
        texts = y.tolist()
        marked = [i for i, v in enumerate(texts) if v in MISSING_MARKERS]
        if marked:
            raise ValueError(
                f"Row {marked[0]}'s label is missing ({texts[marked[0]]!r}): "
                "every row of a stream needs its label."
            )
        return _numeric_labels(y)
    return y


def _numeric_labels(y: np.ndarray) -> np.ndarray:
    """Text labels as numbers if each is a number as Python writes it (ints
    where all are whole: ``"0"`` and ``"0.0"`` are one class; ``"007"``
    stays text); else as they are."""
    try:
        values = y.astype(np.float64)
    except (ValueError, OverflowError):
        return y
    if not np.isfinite(values).all():
        return y
    texts, numbers = y.tolist(), values.tolist()
    if not all(
        t == repr(v) or (v.is_integer() and t == str(int(v)))
        for t, v in zip(texts, numbers)
    ):
        return y
    if all(v.is_integer() and abs(v) < 2**53 for v in numbers):
        return values.astype(np.int64)
    return values
