"""A column encoder's per-column lists as arrays, for saving.

:class:`~sklearn_localregret.thresholds.ColumnEncoder` keeps a list entry
a column: its categories (None for a numeric column) and whether its
categories are numbers (None until the first). Hashed text has a million
numeric columns: skops wrote each None as a node of its JSON schema (an
encoder of 2**16 columns made a 30 MB file against 0.4 MB pickled, and a
tree of 2**20 columns carries one). Saved here as the categorical columns'
indices and lists, and the flags as an ``int8`` array.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "loaded_categories",
    "loaded_number_flags",
    "saved_categories",
    "saved_number_flags",
]


def saved_categories(categories: list) -> dict:
    """Each column's categories (a list, or None) as the indices of the
    columns that have them and their lists.

    Examples
    --------
    >>> saved = saved_categories([None, ["a", "b"], None])
    >>> saved["at"].tolist(), saved["values"]
    ([1], [['a', 'b']])
    >>> loaded_categories(saved, 3)
    [None, ['a', 'b'], None]
    """
    at = [j for j, values in enumerate(categories) if values is not None]
    return {
        "at": np.array(at, dtype=np.int64),
        "values": [list(categories[j]) for j in at],
    }


def loaded_categories(saved: dict, n_features: int) -> list:
    """:func:`saved_categories`' lists for ``n_features`` columns;
    ``ValueError`` for indices that do not fit (a damaged file)."""
    at = np.asarray(saved["at"]).tolist()
    values = list(saved["values"])
    if (
        len(at) != len(values)
        or len(set(at)) != len(at)
        or not all(type(j) is int and 0 <= j < n_features for j in at)
        or not all(isinstance(v, list) for v in values)
    ):
        raise ValueError("a damaged column encoder: its saved categories")
    categories: list = [None] * n_features
    for j, column in zip(at, values):
        categories[j] = column
    return categories


def saved_number_flags(numbers: list) -> np.ndarray:
    """Each column's flag (True, False or None) as ``int8`` (1, 0, -1).

    Examples
    --------
    >>> saved_number_flags([None, True, False]).tolist()
    [-1, 1, 0]
    >>> loaded_number_flags(saved_number_flags([None, True, False]), 3)
    [None, True, False]
    """
    return np.array([-1 if v is None else int(v) for v in numbers], dtype=np.int8)


def loaded_number_flags(saved, n_features: int) -> list:
    """:func:`saved_number_flags`' flags (a list saved before is returned
    as it is); ``ValueError`` for another length or value."""
    if isinstance(saved, list):
        return saved
    flags = np.asarray(saved)
    if flags.shape != (n_features,) or not np.isin(flags, (-1, 0, 1)).all():
        raise ValueError("a damaged column encoder: its saved number flags")
    return [None if v < 0 else bool(v) for v in flags.tolist()]
