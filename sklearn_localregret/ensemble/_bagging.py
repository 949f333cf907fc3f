"""Online bagging: the members' feature subspaces and their Poisson weights.

Each member of a forest learns on its own random subset of the columns (the
random subspace method, Ho 1998, chosen once at the first fit) and weighs
each row by a Poisson draw (online bagging, Oza and Russell 2001; ARF and
leveraging bagging use rate 6). The draws come from one generator per
member, seeded from the forest's: a member's weights depend on the rows it
has seen, never on how the stream was cut into calls nor on which thread
learns it.

A member's subspace picks columns of the table as the forest reads it, a
categorical column once, coded (:func:`subspace_encoder`): a member that gets
it gets all its categories, never a part of a one-hot encoding.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from ..thresholds.columns import ColumnEncoder

__all__ = ["draw_subspaces", "poisson_weights", "subspace_encoder", "subspace_size"]


def subspace_size(max_features, n_features: int) -> int:
    """Columns each member sees, as scikit-learn's forests count them.

    ``"sqrt"``: ``max(1, int(sqrt(n)))``; ``"log2"``: ``max(1, int(log2(n)))``;
    an int: itself; a float in (0, 1]: ``max(1, int(max_features * n))``;
    None: all ``n``. Never more than ``n``.

    Examples
    --------
    >>> subspace_size("sqrt", 9), subspace_size("log2", 9), subspace_size(None, 9)
    (3, 3, 9)
    >>> subspace_size(0.5, 9), subspace_size(20, 9), subspace_size("sqrt", 2)
    (4, 9, 1)
    """
    n = int(n_features)
    if max_features is None:
        size = n
    elif max_features == "sqrt":
        size = int(math.sqrt(n))
    elif max_features == "log2":
        size = int(math.log2(n)) if n > 0 else 0
    elif isinstance(max_features, Integral):
        size = int(max_features)
    elif isinstance(max_features, Real):
        size = int(float(max_features) * n)
    else:
        raise ValueError(f"max_features={max_features!r} is not supported.")
    return min(max(1, size), n)


def draw_subspaces(
    rng: np.random.Generator, n_features: int, size: int, n_members: int
) -> list[np.ndarray]:
    """Sorted column indices of each member's subspace, ``size`` of ``n_features``.

    All columns (no draw) when ``size == n_features``: one read-only array,
    the same for every member.

    Examples
    --------
    >>> import numpy as np
    >>> spaces = draw_subspaces(np.random.default_rng(0), 5, 2, 3)
    >>> [s.tolist() for s in spaces]
    [[3, 4], [1, 4], [0, 4]]
    """
    if size >= n_features:  # one array for all, read only (pickled once):
        every = np.arange(n_features)  # hashed text has a million columns
        every.flags.writeable = False
        return [every] * n_members
    return [
        np.sort(rng.choice(n_features, size=size, replace=False))
        for _ in range(n_members)
    ]


def poisson_weights(
    rng: np.random.Generator, rate: float, sample_weight: np.ndarray, cap: float
) -> np.ndarray:
    """A member's weights of the rows: ``sample_weight`` times Poisson(``rate``).

    Drawn one per row in order, so the same rows give the same weights
    whether they come in one call or many. Clipped at ``cap`` (the learners'
    weight limit: only huge ``sample_weight`` can reach it).

    Examples
    --------
    >>> import numpy as np
    >>> a = poisson_weights(np.random.default_rng(0), 6.0, np.ones(4), 1e100)
    >>> rng = np.random.default_rng(0)
    >>> b = [poisson_weights(rng, 6.0, np.ones(n), 1e100) for n in (1, 3)]
    >>> bool((a == np.concatenate(b)).all())
    True
    """
    draws = rng.poisson(rate, size=sample_weight.shape[0])
    return np.minimum(draws * sample_weight, cap)


def subspace_encoder(encoder: ColumnEncoder, columns: np.ndarray) -> ColumnEncoder:
    """The part of the forest's ``encoder`` that describes ``columns``.

    A member reads the forest's coded rows restricted to its columns; this
    encoder tells it which of them are categorical (and names their
    categories), so that it offers their equality tests ``x_j == c``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, "a", "x"], [2.0, "b", None]], dtype=object)
    >>> encoder = ColumnEncoder().encode(X, learning=True)[1]
    >>> part = subspace_encoder(encoder, np.array([0, 2]))
    >>> part.n_features, part.categorical.tolist(), part.categories
    (2, [False, True], [None, ['x', None]])
    """
    columns = np.asarray(columns)
    if not encoder.has_categories:  # no categories to name: no lists to copy
        if len(columns) == encoder.n_features:  # all of them, in order
            return encoder  # read only (hashed text: a million columns)
        part = ColumnEncoder.numeric(len(columns), encoder.max_categories)
        part.kinds = encoder.kinds[columns].copy()  # numeric or not typed yet
        return part
    part = ColumnEncoder.__new__(ColumnEncoder)
    part.__setstate__(
        {
            "max_categories": encoder.max_categories,
            "n_features": len(columns),
            "kinds": encoder.kinds[columns].copy(),
            "categories": [
                None if encoder.categories[j] is None else list(encoder.categories[j])
                for j in columns
            ],
            "numbers": [encoder.numbers[j] for j in columns],
        }
    )
    return part
