"""The streaming case of raw categories: rows whose every value has its code.

A learner reading raw strings codes each call's rows before anything else;
when every column is categorical and every value is known, that is a
dictionary lookup a cell, straight into floats, with no copy of the
encoder. A stream predicts its rows, then learns the same rows: the last
small call's values are kept with their codes, and equal rows take them
again (equal values have equal codes, and a known value's code never
changes: an index only grows).
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .column_values import CATEGORICAL

__all__ = ["known_codes"]

# Rows of a call whose values and codes are kept for the next call (a
# streaming call's; a large call's values would double its memory).
CACHED_ROWS = 64


def known_codes(encoder, array: np.ndarray) -> np.ndarray | None:
    """The codes of object ``array`` (2-D) given by ``encoder`` (a
    :class:`~sklearn_localregret.thresholds.ColumnEncoder`) if its columns
    are all categorical and its every value has its code already (what
    coding it gives, the encoder unchanged); None otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.thresholds import ColumnEncoder
    >>> rows = np.array([["red", "s"], ["blue", "m"]], dtype=object)
    >>> _, encoder = ColumnEncoder().encode(rows, learning=True)
    >>> known_codes(encoder, rows[::-1]).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    >>> known_codes(encoder, np.array([["green", "s"]], dtype=object)) is None
    True
    """
    getters = _code_getters(encoder)
    if getters is None:
        return None
    n_rows, n_columns = array.shape
    values = array.T.tolist()
    last = encoder.__dict__.get("_last_codes")
    if last is not None and _equal_lists(last[0], values):
        return last[1].copy()
    lookups = map(map, getters, values)
    try:
        codes = np.fromiter(chain.from_iterable(lookups), float, array.size)
    except (KeyError, TypeError):  # missing, new, of another type or
        return None  # unhashable: the general path says what it is
    codes = codes.reshape(n_columns, n_rows).T.copy()
    if n_rows <= CACHED_ROWS:
        encoder._last_codes = (values, codes.copy())
    return codes


def _code_getters(encoder) -> tuple | None:
    """Each column's ``index.__getitem__`` if every column is categorical,
    else None; kept by the encoder until it forgets its kinds (an index only
    grows in place after its column turned categorical)."""
    getters = encoder.__dict__.get("_getters")
    if getters is None:
        kinds = encoder.kinds.tolist()
        indexes = [index for index in encoder._index if index is not None]
        getters = ()  # kept too: not every column is categorical
        if kinds.count(CATEGORICAL) == len(kinds) == len(indexes):
            getters = tuple(index.__getitem__ for index in indexes)
        encoder._getters = getters
    return getters or None


def _equal_lists(a: list, b: list) -> bool:
    """Whether two lists of columns' values are equal, value by value; False
    where a comparison fails (``pd.NA``, an array in a cell)."""
    try:
        return bool(a == b)
    except Exception:  # a value whose == raises or is ambiguous
        return False
