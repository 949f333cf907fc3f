"""The biased update of a plain regret table, compiled.

The arithmetic of :meth:`~sklearn_localregret.engine.RegretTable.update_entries`
(one round's edges out of the played action, each its own colour) and the
exact product draw of the hypercube's sites (:ref:`engine-hypercube`), in
loops over a few entries: an interactive round (one clause,
one row) touches a handful of colours, where numpy's per-call cost was most
of the time.
"""

from __future__ import annotations

from .jit import inline_kernel, kernel

__all__ = ["add_entries", "add_entry", "add_row", "draw_product_bits"]


@inline_kernel
def add_entry(unbiased, biased, r, c, g, bias, scale) -> None:
    """One entry of the biased update: ``g - bias`` to ``biased[r, c]``,
    ``g`` to ``unbiased[r, c]``, times ``scale`` (nothing multiplied at
    scale 1, as in the numpy update, so the sums are bit for bit the same)."""
    if scale == 1.0:
        unbiased[r, c] += g
        biased[r, c] += g - bias
    else:
        unbiased[r, c] += g * scale
        biased[r, c] += (g - bias) * scale


@kernel
def add_entries(unbiased, biased, rows, cols, gains, bias, scale, n_rows) -> int:
    """Add ``gains - bias`` to ``biased`` and ``gains`` to ``unbiased`` at
    ``(rows[e], cols[e])``, times ``scale``; -1, or nothing written if an
    entry is out of range (a row past ``n_rows``, a column past the width,
    or ``cols`` and ``gains`` shorter than ``rows``): the first such entry.

    The colours must be distinct (an admissible colouring has one edge per
    colour out of a vertex). With ``scale == 1`` nothing is multiplied, as in
    the numpy update, so the sums are bit for bit the same.
    """
    n_rows = min(n_rows, unbiased.shape[0], biased.shape[0])
    width = min(unbiased.shape[1], biased.shape[1])
    n = rows.shape[0]
    for e in range(n):
        if e >= cols.shape[0] or e >= gains.shape[0]:
            return e
        if not (0 <= rows[e] < n_rows and 0 <= cols[e] < width):
            return e
    for e in range(n):
        add_entry(unbiased, biased, rows[e], cols[e], gains[e], bias, scale)
    return -1


@kernel
def add_row(unbiased, biased, row, gains, bias, scale):
    """:func:`add_entries` on every colour of ``row`` (``gains[c]`` for
    column ``c``), with the same arithmetic; whether a positive rate moved,
    and the largest ``|gains[c]|``. The caller checks ``row`` and the width
    of ``gains`` (:meth:`~sklearn_localregret.engine.RegretTable.update_row`).

    A rate moved when its value changed and it is positive before or after:
    the row's positive out-edges, what a chain sampler reads, changed. A
    zero gain with no bias (most columns of a Max-SAT round) moves nothing.
    """
    moved = False
    largest = 0.0
    for c in range(gains.shape[0]):
        g = gains[c]
        before = biased[row, c]
        add_entry(unbiased, biased, row, c, g, bias, scale)
        after = biased[row, c]
        if after != before and (after > 0.0 or before > 0.0):
            moved = True
        if abs(g) > largest:
            largest = abs(g)
    return moved, largest


@kernel
def draw_product_bits(rates, uniforms, out):
    """``out[k] = 1`` iff ``u_k (R+[k, 0] + R+[k, 1]) < R+[k, 1]``: bit ``k``
    drawn from its site's regret matching (0, the root's bit, without regret).
    """
    for k in range(out.shape[0]):
        off = rates[k, 0] if rates[k, 0] > 0.0 else 0.0
        on = rates[k, 1] if rates[k, 1] > 0.0 else 0.0
        out[k] = 1 if uniforms[k] * (off + on) < on else 0
