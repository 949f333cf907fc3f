"""Arrays of a saved model in fewer bytes, exactly: what ``__getstate__`` stores.

:func:`pack` turns an array into a small dict that pickle and skops both
store (str keys, ints, strs and a ``uint8`` array), and :func:`unpack` gives
back an array equal to the original bit for bit, with its dtype and shape:

* booleans are stored as bits (:func:`numpy.packbits`);
* integers in the smallest integer type that holds their range;
* then the bytes are deflated (:mod:`zlib`, level 1: fast, and most of what
  level 6 saves on regret tables) when that makes them smaller.

Floats are never rounded: a regret table's factors repeat the same few sums
across its tests, which deflating finds. :func:`pack_residual` stores an
array as the bitwise difference (exclusive or) from a prediction of it that
the loader can compute exactly, which is all zeros where the prediction holds.

Loading checks sizes and never inflates past the size the header announces,
so a damaged or forged file is a ``ValueError``, not a huge allocation.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["pack", "unpack", "pack_residual", "unpack_residual", "is_packed"]

_FORMAT = "sklearn_localregret.packed_array.1"
_DEFLATE_FROM = 256  # bytes; below this the zlib header is not worth it
_INTEGERS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32)


def is_packed(value) -> bool:
    """Whether ``value`` is what :func:`pack` returns (else: a plain array)."""
    return isinstance(value, dict) and value.get("format") == _FORMAT


def _narrowest(array: np.ndarray) -> np.dtype:
    if array.size == 0:
        return array.dtype
    low, high = array.min(), array.max()
    for dtype in _INTEGERS:
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return np.dtype(dtype) if dtype().itemsize < array.itemsize else array.dtype
    return array.dtype


def pack(array: np.ndarray) -> dict:
    """An exact, smaller record of ``array`` (see the module's docstring).

    Parameters
    ----------
    array : ndarray
        Booleans, integers or floats.

    Returns
    -------
    dict
        Read it back with :func:`unpack`.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.zeros(1000, dtype=np.int64)
    >>> counts[::7] = 3
    >>> packed = pack(counts)
    >>> packed["data"].nbytes < counts.nbytes // 20
    True
    >>> np.array_equal(unpack(packed), counts) and unpack(packed).dtype == np.int64
    True
    """
    array = np.ascontiguousarray(array)
    # The stored words as a contiguous array, not bytes: zlib reads its buffer
    # (a copy fewer of what may be gigabytes).
    if array.dtype == bool:
        stored = "bits"
        words = np.packbits(array.reshape(-1))
    elif array.dtype.kind in "iu":
        narrow = _narrowest(array)
        stored = narrow.str
        words = array.astype(narrow, copy=False)
    elif array.dtype.kind == "f":
        stored = array.dtype.str
        words = array
    else:
        raise TypeError(f"cannot pack an array of dtype {array.dtype}")
    data = words.reshape(-1).view(np.uint8)
    deflated = data.size >= _DEFLATE_FROM
    if deflated:
        smaller = zlib.compress(data.data, 1)  # the buffer, not a copy
        deflated = len(smaller) < data.size
        if deflated:
            data = np.frombuffer(smaller, dtype=np.uint8)
    return {
        "format": _FORMAT,
        "dtype": array.dtype.str,
        "shape": [int(n) for n in array.shape],
        "stored": stored,
        "deflated": bool(deflated),
        "data": data.copy(),
    }


def unpack(packed, writeable: bool = True) -> np.ndarray:
    """The array that :func:`pack` recorded (a plain array passes through).

    ``writeable=False``: the array may be a read-only view of the inflated
    bytes (no copy), for a caller that copies it anyway.

    Raises
    ------
    ValueError
        The record is damaged: its bytes do not make the announced shape.
    """
    if not is_packed(packed):
        return packed  # saved before arrays were packed
    try:
        dtype = np.dtype(packed["dtype"])
        shape = tuple(int(n) for n in packed["shape"])
        stored = packed["stored"]
        size = int(np.prod(shape, dtype=np.int64))
        if min(shape, default=0) < 0:
            raise ValueError("a negative dimension")
        if stored == "bits":
            expected = (size + 7) // 8
        else:
            expected = size * np.dtype(stored).itemsize
        raw = np.asarray(packed["data"], dtype=np.uint8).tobytes()
        if packed["deflated"]:
            inflate = zlib.decompressobj()
            raw = inflate.decompress(raw, expected)
            if inflate.unconsumed_tail or not inflate.eof:
                raise ValueError("more bytes than the shape holds")
        if len(raw) != expected:
            raise ValueError(f"{len(raw)} bytes for {expected}")
        if stored == "bits":
            bits = np.frombuffer(raw, dtype=np.uint8)
            array = np.unpackbits(bits, count=size).astype(bool)
        else:
            array = np.frombuffer(raw, dtype=stored).astype(dtype, copy=writeable)
    except (KeyError, TypeError, zlib.error) as exc:
        raise ValueError(f"a damaged packed array: {exc}") from exc
    except ValueError as exc:
        raise ValueError(f"a damaged packed array: {exc}") from exc
    return array.reshape(shape)


def pack_residual(array: np.ndarray, prediction: np.ndarray) -> dict:
    """Record float64 ``array`` as its bits exclusive-or those of ``prediction``.

    Where the prediction is exact the stored words are zero, which deflate to
    almost nothing; elsewhere nothing is lost. The loader must compute the
    same ``prediction`` bit for bit (:func:`unpack_residual`).
    """
    bits = np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)
    guess = np.ascontiguousarray(prediction, dtype=np.float64).view(np.uint64)
    return pack(bits ^ guess)


def unpack_residual(packed, prediction: np.ndarray) -> np.ndarray:
    """The float64 array that :func:`pack_residual` recorded against ``prediction``."""
    bits = unpack(packed)
    guess = np.ascontiguousarray(prediction, dtype=np.float64)
    if bits.dtype != np.uint64 or bits.shape != guess.shape:
        raise ValueError("a damaged packed array: it does not fit its prediction")
    return (bits ^ guess.view(np.uint64)).view(np.float64)
