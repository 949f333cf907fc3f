"""A table's path keys as two integer arrays, for saving.

The external tree's regret table keys its rows by paths: tuples of ``(test,
branch)`` pairs of ints. Saved as a list of tuples, skops writes every pair
as a node of its JSON schema (a streamed tree's 13,000 paths made a 106 MB
schema beside 4.4 MB of arrays); as arrays they are stored as ``.npy``, and
a pickle is smaller and faster too. Keys of any other form (the swap
table's ``(tree, path)`` pairs) are saved as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["is_packed_paths", "pack_paths", "unpack_paths"]

_PACKED = "sklearn_localregret.paths.1"


def pack_paths(keys: Sequence) -> dict | None:
    """``keys`` as ``{"steps": (n_steps, 2), "lengths": (n_keys,)}``
    integer arrays (each of the smallest signed type that holds it) if
    every key is a tuple of ``(int, int)`` pairs; None otherwise.

    Examples
    --------
    >>> packed = pack_paths([(), ((3, 1),), ((3, 0), (1, 1))])
    >>> packed["steps"].tolist(), packed["lengths"].tolist()
    ([[3, 1], [3, 0], [1, 1]], [0, 1, 2])
    >>> packed["steps"].dtype.name
    'int8'
    >>> unpack_paths(packed)
    [(), ((3, 1),), ((3, 0), (1, 1))]
    >>> pack_paths([("a", 1)]) is None
    True
    """
    lengths = np.empty(len(keys), dtype=np.int64)
    steps: list = []
    for i, key in enumerate(keys):
        if type(key) is not tuple:
            return None
        for step in key:
            if (
                type(step) is not tuple
                or len(step) != 2
                or type(step[0]) is not int
                or type(step[1]) is not int
            ):
                return None
        lengths[i] = len(key)
        steps.extend(key)
    array = np.array(steps, dtype=np.int64).reshape(-1, 2)
    return {_PACKED: True, "steps": _narrow(array), "lengths": _narrow(lengths)}


def _narrow(array: np.ndarray) -> np.ndarray:
    """``array`` in the smallest signed integer type that holds its values
    (tests and depths are small numbers: a byte each, mostly)."""
    if array.size == 0:
        return array.astype(np.int8)
    low, high = int(array.min()), int(array.max())
    for dtype in (np.int8, np.int16, np.int32):
        if np.iinfo(dtype).min <= low and high <= np.iinfo(dtype).max:
            return array.astype(dtype)
    return array


def is_packed_paths(saved) -> bool:
    """Whether ``saved`` (a table's saved keys) is :func:`pack_paths`' form."""
    return isinstance(saved, dict) and saved.get(_PACKED) is True


def unpack_paths(packed: dict) -> list:
    """The keys :func:`pack_paths` was given (tuples of tuples of ints);
    ``ValueError`` if the arrays do not fit together (a damaged file)."""
    steps = np.asarray(packed["steps"])
    lengths = np.asarray(packed["lengths"])
    if (
        steps.ndim != 2
        or steps.shape[1] != 2
        or steps.dtype.kind not in "iu"
        or lengths.ndim != 1
        or lengths.dtype.kind not in "iu"
        or (lengths < 0).any()
        or int(lengths.sum()) != steps.shape[0]
    ):
        raise ValueError("a damaged regret table: its saved paths do not fit")
    pairs = list(map(tuple, steps.tolist()))
    ends = np.cumsum(lengths).tolist()
    starts = [end - n for end, n in zip(ends, lengths.tolist())]
    return [tuple(pairs[lo:hi]) for lo, hi in zip(starts, ends)]
