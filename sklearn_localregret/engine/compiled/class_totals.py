"""The class totals a saved stump table predicts ``S_false`` from, compiled.

A saved :class:`~sklearn_localregret.engine.StumpRegretTable` stores
``S_false`` as its residual from ``totals - S_true``, ``totals[r, c]`` the
most frequent ``S_true + S_false`` over the tests of row ``r``
(:func:`~sklearn_localregret.engine.stump_table_storage._class_totals`).
At a wide site most tests were edges in the same rounds, so one value holds
more than half of them: :func:`majority_sums` finds it in two passes (a
majority vote, then a count), without sorting every row's sums.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = ["majority_sums", "residual_bits"]


@kernel
def majority_sums(true, false, out, found) -> None:
    """Per row ``r`` and class ``c``, the bits of the value of
    ``true[r, :, c] + false[r, :, c]`` that more than half the tests hold,
    into ``out[r, c]`` (uint64) with ``found[r, c] = True``; where no value
    holds a majority, ``found[r, c] = False``. Values are compared bit for
    bit (``-0.0`` is not ``0.0``), as the sort of the bits that this spares.
    """
    n = min(true.shape[0], false.shape[0], out.shape[0], found.shape[0])
    t = min(true.shape[1], false.shape[1])
    k = min(true.shape[2], false.shape[2], out.shape[1], found.shape[1])
    value = np.zeros(1)
    bits = value.view(np.uint64)  # a float's bits, through one shared word
    for r in range(n):
        for c in range(k):
            candidate = bits[0]
            votes = 0
            for v in range(t):  # Boyer-Moore: the majority, if there is one
                value[0] = true[r, v, c] + false[r, v, c]
                if votes == 0:
                    candidate = bits[0]
                    votes = 1
                elif bits[0] == candidate:
                    votes += 1
                else:
                    votes -= 1
            count = 0
            for v in range(t):
                value[0] = true[r, v, c] + false[r, v, c]
                if bits[0] == candidate:
                    count += 1
            found[r, c] = 2 * count > t
            out[r, c] = candidate


@kernel
def residual_bits(words, totals, true, out) -> None:
    """``out[r, v, c] = words[r, v, c] ^ bits(totals[r, c] - true[r, v, c])``.

    With ``words`` the bits of ``S_false`` (viewed as uint64) it writes the
    residual that
    :func:`~sklearn_localregret.engine.saved_arrays.pack_residual` stores
    against ``totals - S_true``, without that prediction's array (a wide
    table's factors are gigabytes); a xor is its own inverse, so with
    ``words`` the saved residual it writes ``S_false``'s bits back (``out``
    may be the table's ``S_false`` viewed as uint64).
    """
    n = min(words.shape[0], true.shape[0], totals.shape[0], out.shape[0])
    t = min(words.shape[1], true.shape[1], out.shape[1])
    k = min(words.shape[2], true.shape[2], totals.shape[1], out.shape[2])
    value = np.zeros(1)
    bits = value.view(np.uint64)
    for r in range(n):
        for v in range(t):
            for c in range(k):
                value[0] = totals[r, c] - true[r, v, c]
                out[r, v, c] = words[r, v, c] ^ bits[0]
