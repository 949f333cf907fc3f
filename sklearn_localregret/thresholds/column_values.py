"""What the values of a column are: missing, labels, numbers; a column's kind.

The value-level rules of
:class:`~sklearn_localregret.thresholds.columns.ColumnEncoder`: which values
count as missing, which as category labels, the kind a column's first values
give it, and a numeric column's floats.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CATEGORICAL",
    "NUMERIC",
    "UNKNOWN",
    "as_array",
    "infer_kind",
    "is_category_dtype",
    "is_label",
    "is_missing",
    "numbers_of",
]

#: A column not typed yet: every value so far was missing.
UNKNOWN = 0
#: Numbers, read as they are (NaN where missing).
NUMERIC = 1
#: Categories, read as codes ``0, 1, ...`` in order of first appearance.
CATEGORICAL = 2


def is_missing(value) -> bool:
    """None, NaN, ``pandas.NA`` and ``pandas.NaT``."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(value != value)
    return type(value).__name__ in ("NAType", "NaTType")


def is_label(value) -> bool:
    """A string-like category (as opposed to a number)."""
    return isinstance(value, (str, bytes, np.str_, np.bytes_))


def is_category_dtype(dtype) -> bool:
    """A pandas ``category`` dtype (its columns are categorical whatever
    their values)."""
    return getattr(dtype, "name", None) == "category"


def as_array(X) -> np.ndarray | None:
    """A list of rows as an array; objects when it holds strings or None."""
    try:
        array = np.asarray(X)
        if array.dtype.kind in "USO":
            array = np.asarray(X, dtype=object)
    except (TypeError, ValueError):
        return None
    return array


def infer_kind(values: list, name) -> int:
    """The type of a column from its values (UNKNOWN if all are missing)."""
    labels = numbers = False
    for kind in set(map(type, values)):  # few types, many values
        if issubclass(kind, (str, bytes, np.str_, np.bytes_)):
            labels = True
        elif kind is type(None) or kind.__name__ in ("NAType", "NaTType"):
            continue
        elif issubclass(kind, (float, np.floating)):
            # NaN is missing: numbers only if some float is not NaN.
            numbers = numbers or any(v == v for v in values if type(v) is kind)
        else:
            numbers = True
    if labels and numbers:
        raise ValueError(
            f"column {name!r} mixes numbers and strings: make it all numbers "
            "or all categories (e.g. astype(str), or a pandas category)."
        )
    return CATEGORICAL if labels else NUMERIC if numbers else UNKNOWN


def numbers_of(items: list, name) -> list:
    """A numeric column's values as floats, NaN where missing.

    Each value is read by ``float()`` on its own: a sequence (a tuple, a
    list, an array) is not a number even if numpy would unpack it, and a
    value that is neither a number nor a category label (a complex number,
    a date, a period) is a ``TypeError`` naming the column.
    """
    for value in items:
        if is_label(value):
            raise ValueError(
                f"column {name!r} held numbers so far and now holds {value!r}: "
                "a column keeps its type over the stream."
            )
    numbers = []
    for value in items:
        if is_missing(value):
            numbers.append(np.nan)
            continue
        try:
            if isinstance(value, (tuple, list, dict, set, np.ndarray)):
                raise TypeError
            numbers.append(float(value))
        except OverflowError:  # an int beyond float64's range
            raise ValueError(
                f"column {name!r} holds a value beyond float64's range (about "
                f"1.8e308 in size), of type {type(value).__name__}."
            ) from None
        except (TypeError, ValueError):
            raise TypeError(
                f"column {name!r} holds {value!r} ({type(value).__name__}), "
                "which is neither a number nor a category: the argument must "
                "be a category string, a number or missing (a column holds "
                "numbers, strings or pandas categories)."
            ) from None
    return numbers
