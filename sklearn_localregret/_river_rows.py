"""River's dict rows as the rows of a learner (the River adapter's reading).

Kept apart from :mod:`sklearn_localregret.river`, which builds its adapter
only when River is imported: reading a row needs no River.
"""

from __future__ import annotations

import warnings
from collections import deque
from numbers import Real

import numpy as np
from sklearn.utils.multiclass import unique_labels

from .thresholds.column_values import is_missing
from .thresholds.columns import NUMERIC

__all__ = [
    "check_label",
    "checked_learner",
    "dict_row",
    "labels_with",
    "loaded_replay_rows",
    "saved_replay_rows",
    "sorted_names",
    "warn_ignored_keys",
]


def dict_row(x, names, estimator, fitted=None, absent: str = "zero") -> np.ndarray:
    """``x`` as a row of shape ``(1, len(names))``, not yet encoded.

    A missing name or the value None reads as 0 (``absent="zero"``) or as a
    missing value (``"missing"``); for a learner that reads categories, as
    missing in a categorical column or one not typed yet, where a NaN is
    None too (a NaN in a row of floats would type its column numbers). The
    row is float64, or objects when it holds strings (categories) or
    missing categories.

    Parameters
    ----------
    x : dict
        Feature name -> value.
    names : list
        The columns, in order.
    estimator : estimator
        The learner's parameters (what it reads: ``_allow_nan``,
        ``_reads_categories``).
    fitted : estimator or None
        The fitted learner, if any (its columns' types).
    absent : {"zero", "missing"}

    Raises
    ------
    TypeError
        ``x`` is not a dict, or a value the learner does not read.
    ValueError
        An infinity (or NaN, for a learner that does not read it).

    Examples
    --------
    >>> from sklearn_localregret import LocalRegretTreeClassifier
    >>> dict_row({"a": 1, "b": "red"}, ["a", "b", "c"], LocalRegretTreeClassifier())
    array([[1.0, 'red', None]], dtype=object)
    """
    if not isinstance(x, dict):
        raise TypeError(f"x must be a dict of feature values, got {type(x).__name__}.")
    fill = np.nan if absent == "missing" else 0.0
    values = [x.get(name) for name in names]
    try:
        row = np.array(values)
    except (TypeError, ValueError):  # e.g. sequences of unequal length
        row = None
    if (
        row is not None
        and row.dtype.kind == "f"
        and estimator._reads_categories
        and np.isnan(row).any()
    ):
        # A NaN (missing) in a column of no type yet, or of categories, is
        # None there, as a DataFrame's would leave it: a row of floats
        # would make it a column of numbers.
        numeric = _numeric_columns(len(names), estimator, fitted)
        if not all(numeric[j] for j in np.flatnonzero(np.isnan(row)).tolist()):
            row = None
    if row is None or row.ndim != 1 or row.dtype.kind not in "biuf":
        numeric = _numeric_columns(len(names), estimator, fitted)
        values = [
            _cell(name, value, numeric[j], fill, estimator)
            for j, (name, value) in enumerate(zip(names, values))
        ]
        labels = any(v is None or isinstance(v, str) for v in values)
        row = np.array(values, dtype=object if labels else np.float64)
    row = row.reshape(1, -1)
    if row.dtype != object:
        row = row.astype(np.float64)
        numbers = row[0]
    else:
        numbers = np.array(
            [np.nan if v is None or isinstance(v, str) else v for v in row[0]], float
        )
    allow_nan = estimator._allow_nan
    bad = np.isinf(numbers) if allow_nan else ~np.isfinite(numbers)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        wanted = "numbers (NaN if missing)" if allow_nan else "finite numbers"
        raise ValueError(
            f"feature {names[at]!r} is {numbers[at]}: values must be {wanted}."
        )
    return row


def _numeric_columns(n: int, estimator, fitted) -> list:
    """Which columns ``absent`` applies to: all of them for a learner of
    numbers; for one that reads categories, those known to be numeric."""
    if not estimator._reads_categories:
        return [True] * n
    columns = getattr(fitted, "_columns", None)
    if columns is None or columns.n_features != n:
        return [False] * n
    return (columns.kinds == NUMERIC).tolist()


def _cell(name, value, numeric: bool, fill: float, estimator):
    """A value of a row of objects: None, or a NaN outside a ``numeric``
    column, is a missing category (None; ``fill`` in a numeric column)."""
    if value is None:
        return fill if numeric else None
    if not numeric and isinstance(value, (float, np.floating)) and value != value:
        return None
    return _value(name, value, estimator)


def _value(name, value, estimator):
    if isinstance(value, str) and estimator._reads_categories:
        return value
    if not isinstance(value, (Real, np.bool_)):
        hint = (
            "strings are categories; other values are not read"
            if estimator._reads_categories
            else "encode it first (e.g. river.preprocessing.OneHotEncoder)"
        )
        raise TypeError(f"feature {name!r} has value {value!r}, not a number: {hint}.")
    try:
        return float(value)
    except OverflowError:  # an int beyond float64's range
        raise ValueError(
            f"feature {name!r} has a value beyond float64's range (about "
            f"1.8e308 in size), of type {type(value).__name__}."
        ) from None


def check_label(y) -> None:
    """A label of a row: present (not None, NaN or ``pandas.NA``), and a
    string, number or bool, as scikit-learn's classes are (a tuple would
    become a row of the classes' array)."""
    if y is None or is_missing(y):
        raise ValueError(f"y is {y!r} (a missing label): give a label.")
    if not isinstance(y, (str, Real, np.bool_)):
        raise TypeError(
            f"label {y!r} is a {type(y).__name__}: labels are strings, numbers "
            "or bools (scikit-learn's classes); map it to one, e.g. str(y)."
        )


def warn_ignored_keys(adapter, x) -> None:
    """Warn, once for the adapter, when a row learnt has a key not among its
    columns (those of the first row learnt): it is ignored, and so are the
    later ones. River's ``OneHotEncoder`` adds a key for each category it
    meets, which the first row's columns never hold."""
    columns = adapter.__dict__.get("_column_set")  # (saved before it: none)
    if columns is None:
        columns = frozenset(adapter.feature_names_)
    if columns.issuperset(x):
        return
    key = next(k for k in x if k not in columns)
    adapter._warned_keys = True
    warnings.warn(
        f"RiverAdapter: a row has the key {key!r}, not among the columns (the "
        "keys of the first row learnt): it is ignored, as are later keys not "
        "among them (warned once). River's OneHotEncoder adds a key for each "
        "category it meets: give it the categories, or give the tree and the "
        "forest the raw values (they read strings as categories).",
        UserWarning,
        stacklevel=3,
    )


def sorted_names(x) -> list:
    """The feature names of a row in a fixed order, whatever the dict's order
    (sets order by inclusion only: they sort by their sorted elements)."""
    if not any(isinstance(name, (set, frozenset)) for name in x):
        try:
            return sorted(x)
        except TypeError:  # names of several types
            pass
    return sorted(x, key=_name_key)


def _name_key(name) -> tuple:
    if isinstance(name, (set, frozenset)):
        return type(name).__name__, repr(sorted(map(repr, name)))
    return type(name).__name__, repr(name)


def checked_learner(estimator, learning: bool = False):
    """``estimator`` (fitted) after the checks its own ``partial_fit``
    (``learning``) or ``predict`` makes first: a loaded file's consistency,
    and a built parameter set since it was built."""
    if learning:
        estimator._check_before_learning()
    else:
        estimator._check_loaded()
    return estimator


def labels_with(classes: list, y) -> list:
    """``classes`` and the new label ``y``, sorted (a ``ValueError`` naming
    ``y`` if it cannot be sorted with them)."""
    try:
        return unique_labels([*classes, y]).tolist()
    except (TypeError, ValueError):
        raise ValueError(
            f"label {y!r} ({type(y).__name__}) is not of the type of the "
            f"labels learnt, {classes!r}: give labels of one type."
        ) from None


def saved_replay_rows(recent) -> list | dict:
    """The adapter's replay rows ((row, label) pairs) as saved: rows of
    numbers as one array (skops writes an object a row), else a list (skops
    rebuilt a deque empty and unbounded)."""
    rows = [row for row, _ in recent]
    if rows and all(
        row.dtype == np.float64 and row.shape == rows[0].shape for row in rows
    ):
        return {"rows": np.concatenate(rows), "labels": [y for _, y in recent]}
    return list(recent)


def loaded_replay_rows(saved, maxlen: int) -> deque:
    """:func:`saved_replay_rows`' rows as the adapter keeps them."""
    if isinstance(saved, dict):
        rows, labels = np.asarray(saved["rows"]), list(saved["labels"])
        if rows.ndim != 2 or rows.shape[0] != len(labels):
            raise ValueError("a damaged RiverAdapter: its replay rows")
        saved = [(rows[i : i + 1].copy(), y) for i, y in enumerate(labels)]
    return deque(saved, maxlen=maxlen)
