"""One way to turn ``random_state`` into a :class:`numpy.random.Generator`."""

from __future__ import annotations

import hashlib
from numbers import Integral

import numpy as np

from ._pcg64_skip import pcg64_uniforms_at, seeded_grid_columns

__all__ = ["check_generator", "generator_key", "seeded_uniform_columns", "uniforms_at"]


def check_generator(random_state) -> np.random.Generator:
    """A ``numpy.random.Generator`` for ``random_state``.

    ``None`` gives fresh entropy, an int seeds a new generator, a ``Generator``
    is used as is, and a legacy ``RandomState`` (what scikit-learn's
    ``random_state`` parameters also accept) seeds a new generator from its
    stream, so the same ``RandomState`` state gives the same draws.

    Examples
    --------
    >>> a = check_generator(0).integers(1000, size=3)
    >>> b = check_generator(0).integers(1000, size=3)
    >>> bool((a == b).all())
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**32, dtype=np.uint64))
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return np.random.default_rng(int(random_state))
    raise ValueError(
        "random_state must be None, an int, a numpy.random.Generator or a "
        f"numpy.random.RandomState, got {random_state!r}"
    )


def generator_key(rng: np.random.Generator) -> int:
    """A 64-bit key from ``rng``'s current state, drawing nothing from it.

    Generators in the same state give the same key: a seeded learner keys
    its randomised predictions without moving the stream of its plays.

    Examples
    --------
    >>> generator_key(check_generator(0)) == generator_key(check_generator(0))
    True
    >>> generator_key(check_generator(0)) == generator_key(check_generator(1))
    False
    """
    digest = hashlib.blake2b(repr(rng.bit_generator.state).encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "little")


def uniforms_at(rng: np.random.Generator, n_total: int, positions) -> np.ndarray:
    """``rng.random(n_total)[positions]``, skipping the uniforms not asked for.

    The generator ends in the state ``rng.random(n_total)`` leaves, so the
    draws that follow are the same: a round of a wide model that reads a few
    of its ``n_total`` uniforms costs the few, not ``n_total``. Skipping needs
    numpy's PCG64 bit generator (``default_rng``'s, and what every int or
    ``RandomState`` seed gives here); another one draws all ``n_total``.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_total : int
        Uniforms the call stands for.
    positions : array-like of int
        Sorted, distinct positions in ``[0, n_total)``.

    Returns
    -------
    ndarray of shape (len(positions),)

    Examples
    --------
    >>> a, b = check_generator(0), check_generator(0)
    >>> full = a.random(100_000)[[3, 70_000]]
    >>> bool((uniforms_at(b, 100_000, [3, 70_000]) == full).all())
    True
    >>> bool(a.random() == b.random())
    True
    """
    bitgen = rng.bit_generator
    # A jump costs about what 20 drawn uniforms do.
    if type(bitgen) is not np.random.PCG64 or 20 * len(positions) >= n_total:
        return rng.random(n_total)[np.asarray(positions, dtype=np.intp)]
    return pcg64_uniforms_at(bitgen, n_total, positions)


def seeded_uniform_columns(seed, n_rows: int, n_cols: int, columns) -> np.ndarray:
    """``default_rng(seed).random((n_rows, n_cols))[:, columns]``, fast.

    A seed given as a sequence of non-negative ints (``[key, round]``) is
    expanded by a compiled copy of numpy's ``SeedSequence`` and only the
    uniforms of ``columns`` (sorted, distinct) are computed, jumping over the
    others (:func:`~sklearn_localregret._pcg64_skip.seeded_grid_columns`):
    the same numbers, bit for bit. Any other seed goes through numpy.

    Examples
    --------
    >>> import numpy as np
    >>> full = np.random.default_rng([7, 12]).random((3, 5))[:, [1, 4]]
    >>> bool((seeded_uniform_columns([7, 12], 3, 5, [1, 4]) == full).all())
    True
    """
    columns = np.asarray(columns, dtype=np.intp)
    plain = isinstance(seed, (list, tuple)) and all(
        isinstance(v, Integral) and not isinstance(v, bool) and int(v) >= 0
        for v in seed
    )
    if not plain or not len(columns) or not len(seed):
        return np.random.default_rng(seed).random((n_rows, n_cols))[:, columns]
    return seeded_grid_columns(seed, n_rows, n_cols, columns)
