"""A round of disjunct learning on the regret table's arrays, compiled.

One round plays a disjunction ``a`` on a few 0/1 rows and updates every
colour with an edge out of ``a``: the ``2n`` bit colours of the hypercube
(:func:`~sklearn_localregret.locality.disjunct_rounds.disjunction_round`)
and, on the removal-set graph, the slots of the pool
(:func:`~sklearn_localregret.locality.removal_set_rounds.removal_set_gains`).
A streaming call is one round of one row, where numpy's per-call cost on
arrays of ``n`` numbers was the time; these kernels do it in two passes over
the rows. The learners call them on rounds of one row, where every gain is
a single term, so the regrets are bit for bit those of the numpy rounds (on
several rows the sums run row after row, an order numpy's reductions do not
promise: a sum that cancels there to exactly 0 may leave 1e-16 here):

* :func:`round_activity` -- each row's active literals, and whether a
  negative row fires through two or more of them (its set then enters the
  pool, in Python, before the update);
* :func:`apply_round` -- the gains of every colour, the weight misclassified,
  and the biased update of the table
  (:meth:`~sklearn_localregret.engine.RegretTable.update_entries`'s arithmetic,
  versions included).
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.jit import kernel
from ..engine.compiled.regret_update import add_entry

__all__ = [
    "apply_round",
    "check_bulk_rounds",
    "check_compiled_round",
    "play_compiled_round",
    "round_activity",
]


@kernel
def round_activity(X, positive, w, a, active):
    """``active[i]``: the literals of ``a`` true in row ``i``.

    Returns whether some negative row of positive weight has two or more
    (a removal set to track).
    """
    spawning = False
    n = a.shape[0]
    for k in range(n):  # (the action indexes columns 1 - a[k] after this)
        if a[k] > 1:
            raise ValueError("the action's bits must be 0 or 1")
    for i in range(X.shape[0]):
        count = 0
        for k in range(n):
            if a[k] != 0 and X[i, k] != 0:
                count += 1
        active[i] = count
        if count >= 2 and not positive[i] and w[i] > 0.0:
            spawning = True
    return spawning


@kernel
def apply_round(
    X,
    positive,
    w,
    a,
    active,
    sets,
    occupied,
    unbiased,
    biased,
    versions,
    bias,
    scale,
    gains,
    set_gains,
    touched,
):
    """Score the round of ``a`` and apply its update; the misclassified weight.

    ``gains[k]`` (out) is ``u(flip_k a) - u(a)``, ``set_gains[j]`` (out)
    ``u(a minus S_j) - u(a)`` for every occupied slot (0 elsewhere), ``u``
    the weight classified right. The colours updated are those with a
    non-zero gain when ``bias == 0`` (adding 0 changes nothing), else every
    bit colour ``(k, 1 - a[k])`` and every slot sharing a literal with
    ``a``: ``gain - bias`` to the biased regret and ``gain`` to the unbiased
    one, times ``scale`` unless it is 1. Their table rows go to ``touched``
    (bits first, then ``n + slot``, increasing); returns ``(wrong,
    n_touched)``.
    """
    n = a.shape[0]
    m = sets.shape[0]
    for k in range(n):
        gains[k] = 0.0
    for j in range(m):
        set_gains[j] = 0.0
    wrong = 0.0
    for i in range(X.shape[0]):
        signed = w[i] if positive[i] else -w[i]
        fires = active[i] > 0
        if fires != positive[i]:
            wrong += w[i]
        if signed == 0.0:
            continue
        if active[i] == 0:
            # Adding k turns the row positive where x_k = 1.
            for k in range(n):
                if X[i, k] != 0:
                    gains[k] += signed
        elif active[i] == 1:
            # Removing its only active literal turns the row negative.
            for k in range(n):
                if a[k] != 0 and X[i, k] != 0:
                    gains[k] -= signed
        if fires:
            # Dropping S_j turns the row negative if S_j holds every active
            # literal.
            for j in range(m):
                if not occupied[j]:
                    continue
                covered = True
                for k in range(n):
                    if a[k] != 0 and X[i, k] != 0 and sets[j, k] == 0:
                        covered = False
                        break
                if covered:
                    set_gains[j] -= signed
    for k in range(n):
        gains[k] += 0.0  # no -0.0
    for j in range(m):
        set_gains[j] += 0.0
    count = 0
    every_edge = bias != 0.0
    for k in range(n):
        if every_edge or gains[k] != 0.0:
            _add(unbiased, biased, versions, k, 1 - a[k], gains[k], bias, scale)
            touched[count] = k
            count += 1
    for j in range(m):
        if every_edge:
            edge = False
            if occupied[j]:
                for k in range(n):
                    if a[k] != 0 and sets[j, k] != 0:
                        edge = True
                        break
        else:
            edge = set_gains[j] != 0.0
        if edge:
            _add(unbiased, biased, versions, n + j, 0, set_gains[j], bias, scale)
            touched[count] = n + j
            count += 1
    return wrong, count


@kernel
def _add(unbiased, biased, versions, r, c, g, bias, scale):
    add_entry(unbiased, biased, r, c, g, bias, scale)
    versions[r] += 1


def check_compiled_round(graph, a, X, positive, w) -> None:
    """Refuse a one-row round the kernels would read or write out of bounds
    with: an action or a row of another width than ``graph``'s variables,
    labels or weights not one per row (O(1) checks; :func:`round_activity`
    refuses a bit that is not 0/1 before anything is written)."""
    n = graph.n_vars
    if a.ndim != 1 or a.shape[0] != n or X.ndim != 2 or X.shape[1] != n:
        raise ValueError(
            f"an action of shape {a.shape} and rows of shape {X.shape} for a "
            f"graph of {n} variables: one bit per variable"
        )
    if not X.shape[0] == positive.shape[0] == w.shape[0]:
        raise ValueError(
            f"{X.shape[0]} rows, {positive.shape[0]} labels, {w.shape[0]} weights"
        )  # (the bits are checked by round_activity, compiled)


def play_compiled_round(graph, a, X, positive, w, active, sets, occupied, bias):
    """Apply a scored round of ``a`` to ``graph``'s table; the weight it got wrong.

    ``graph`` is a hypercube colouring or a removal-set graph (``sets`` and
    ``occupied`` its pool; no rows for the hypercube), ``active`` the rows'
    counts from :func:`round_activity`, any set to track already in the
    pool. The round starts
    (:meth:`~sklearn_localregret.engine.RegretTable.advance`) and is applied by
    :func:`apply_round`; the graph notes the rows it changed and the played
    vertex (``note_played``), as its ``update`` does.
    """
    table = graph.table
    table.advance()
    unbiased, biased, versions = table.stored_arrays()
    n, m = a.shape[0], sets.shape[0]
    touched = np.empty(n + m, dtype=np.intp)
    wrong, count = apply_round(
        X,
        positive,
        w,
        a,
        active,
        sets,
        occupied,
        unbiased,
        biased,
        versions,
        float(bias),
        float(table.scale),
        np.empty(n),
        np.empty(m),
        touched,
    )
    graph.note_played(a, touched[:count])
    return wrong


def check_bulk_rounds(graph, X, batch_size) -> None:
    """Refuse bulk rounds that would not be the per-round definition's: a
    graph whose sampler is not exact (``L < n``: the bulk draws would ignore
    ``L``), rows of another width, or rounds of no row."""
    if not graph.exact:
        raise ValueError(
            "bulk rounds draw from the exact sampler: the graph's L must be "
            f"None or at least its {graph.n_vars} variables (got {graph.max_level})"
        )
    if np.ndim(X) != 2 or np.shape(X)[1] != graph.n_vars:
        raise ValueError(f"rows of shape {np.shape(X)} for {graph.n_vars} variables")
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1; got {batch_size!r}")
