"""The stationary distribution of a finite chain from its root, compiled.

What :class:`~sklearn_localregret.engine.FiniteChainSampler` solves after a
round moved a per-edge rate (:ref:`engine-swap`), as
:func:`~sklearn_localregret.engine.stationary_from_root` computes it with
scipy, in one pass over the edge arrays:

1. the rate matrix in compressed rows, each row's targets sorted and repeated
   targets summed (as scipy's canonical CSR);
2. the vertices reachable from the root, in the order of
   ``scipy.sparse.csgraph.breadth_first_order`` from it (so the support, and
   with it what a uniform draws, is in the same order as scipy's solve);
3. the strongly connected classes (Tarjan), whose numbering is a reverse
   topological order: every class is reached only from classes numbered
   higher, so one sweep from the root's class down meets each class after
   all the mass that flows into it;
4. per transient class, the expected time spent in each of its states
   (``x (D - Q) = inflow``) and the flow it sends on; per closed class, the
   mass absorbed times the class's own stationary distribution.

Both linear systems are solved by state elimination in the manner of
Grassmann, Taksar and Heyman (GTH): every pivot is a sum of non-negative
rates, never a difference, so no cancellation; a class of one state (the
common case, an absorbing vertex or a vertex played once) costs a division.
The elimination is dense per class: a class of more than ``max_class``
states is left to the sparse solve (the answer says so).
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = ["DENSE_CLASS_LIMIT", "chain_from_root"]

# The largest class solved densely here (O(k^2) memory, O(k^3) time); larger
# ones go to scipy's sparse solve.
DENSE_CLASS_LIMIT = 256


@kernel
def _canonical_rows(n, rows, cols, vals):
    """CSR of the edges: targets sorted within a row, repeated ones summed
    (in the order given). Two stable counting sorts, by target then row."""
    nnz = rows.shape[0]
    start = np.zeros(n + 1, dtype=np.intp)
    for e in range(nnz):
        start[cols[e] + 1] += 1
    for v in range(n):
        start[v + 1] += start[v]
    by_target = np.empty(nnz, dtype=np.intp)
    for e in range(nnz):
        by_target[start[cols[e]]] = e
        start[cols[e]] += 1
    indptr = np.zeros(n + 1, dtype=np.intp)
    for e in range(nnz):
        indptr[rows[e] + 1] += 1
    for v in range(n):
        indptr[v + 1] += indptr[v]
    fill = indptr[:n].copy()
    order = np.empty(nnz, dtype=np.intp)
    for t in range(nnz):
        e = by_target[t]
        order[fill[rows[e]]] = e
        fill[rows[e]] += 1
    ptr = np.zeros(n + 1, dtype=np.intp)
    indices = np.empty(nnz, dtype=np.intp)
    data = np.empty(nnz)
    k = 0
    for v in range(n):
        last = -1
        for t in range(indptr[v], indptr[v + 1]):
            e = order[t]
            if cols[e] == last:
                data[k - 1] += vals[e]
            else:
                indices[k] = cols[e]
                data[k] = vals[e]
                last = cols[e]
                k += 1
        ptr[v + 1] = k
    return ptr, indices[:k], data[:k]


@kernel
def _breadth_first(n, ptr, indices):
    """Vertices reachable from 0 in breadth-first order (scipy's)."""
    order = np.empty(n, dtype=np.intp)
    seen = np.zeros(n, dtype=np.bool_)
    order[0] = 0
    seen[0] = True
    head, tail = 0, 1
    while head < tail:
        v = order[head]
        head += 1
        for t in range(ptr[v], ptr[v + 1]):
            w = indices[t]
            if not seen[w]:
                seen[w] = True
                order[tail] = w
                tail += 1
    return order[:tail]


@kernel
def _strong_classes(m, ptr, indices):
    """Tarjan's strongly connected classes, without recursion: the class of
    every state and the number of classes (class ``c`` is reachable only from
    classes numbered higher)."""
    index = np.full(m, -1, dtype=np.intp)
    low = np.zeros(m, dtype=np.intp)
    on_stack = np.zeros(m, dtype=np.bool_)
    stack = np.empty(m, dtype=np.intp)
    calls = np.empty(m, dtype=np.intp)
    next_edge = np.empty(m, dtype=np.intp)
    label = np.full(m, -1, dtype=np.intp)
    n_seen = n_classes = depth = top = 0
    for root in range(m):
        if index[root] >= 0:
            continue
        index[root] = low[root] = n_seen
        n_seen += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        calls[0], next_edge[0], depth = root, ptr[root], 1
        while depth > 0:
            v = calls[depth - 1]
            t = next_edge[depth - 1]
            if t < ptr[v + 1]:
                next_edge[depth - 1] = t + 1
                w = indices[t]
                if index[w] < 0:
                    index[w] = low[w] = n_seen
                    n_seen += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    calls[depth], next_edge[depth] = w, ptr[w]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    label[w] = n_classes
                    if w == v:
                        break
                n_classes += 1
            depth -= 1
            if depth > 0 and low[v] < low[calls[depth - 1]]:
                low[calls[depth - 1]] = low[v]
    return label, n_classes


@kernel
def _transient_occupancy(members, pos, label, c, ptr, indices, data, inflow):
    """Expected time in each state of transient class ``c`` (GTH elimination
    of ``x (D - Q_cc) = inflow``)."""
    k = members.shape[0]
    rates = np.zeros((k, k))
    exits = np.zeros(k)
    b = np.empty(k)
    for a in range(k):
        i = members[a]
        b[a] = inflow[i]
        for t in range(ptr[i], ptr[i + 1]):
            j = indices[t]
            if j == i:
                continue
            if label[j] == c:
                rates[a, pos[j]] += data[t]
            else:
                exits[a] += data[t]
    pivot = np.empty(k)
    for p in range(k):
        s = exits[p]
        for q in range(p + 1, k):
            s += rates[p, q]
        pivot[p] = s
        for q in range(p + 1, k):
            b[q] += b[p] * rates[p, q] / s
        for a in range(p + 1, k):
            f = rates[a, p]
            if f == 0.0:
                continue
            f /= s
            for q in range(p + 1, k):
                if q != a:
                    rates[a, q] += f * rates[p, q]
            exits[a] += f * exits[p]
    x = np.empty(k)
    for p in range(k - 1, -1, -1):
        s = b[p]
        for a in range(p + 1, k):
            s += x[a] * rates[a, p]
        x[p] = s / pivot[p]
    return x


@kernel
def _closed_stationary(members, pos, ptr, indices, data):
    """Stationary distribution of a closed (irreducible) class, by GTH."""
    k = members.shape[0]
    rates = np.zeros((k, k))
    for a in range(k):
        i = members[a]
        for t in range(ptr[i], ptr[i + 1]):
            if indices[t] != i:
                rates[a, pos[indices[t]]] += data[t]
    pivot = np.empty(k)
    for p in range(k - 1, 0, -1):
        s = 0.0
        for q in range(p):
            s += rates[p, q]
        pivot[p] = s
        for a in range(p):
            f = rates[a, p]
            if f == 0.0:
                continue
            f /= s
            for q in range(p):
                if q != a:
                    rates[a, q] += f * rates[p, q]
    pi = np.empty(k)
    pi[0] = 1.0
    total = 1.0
    for p in range(1, k):
        s = 0.0
        for a in range(p):
            s += pi[a] * rates[a, p]
        pi[p] = s / pivot[p]
        total += pi[p]
    return pi / total


@kernel
def chain_from_root(n, rows, cols, vals, max_class):
    """Stationary distribution from vertex 0 of the chain with these edges.

    Parameters
    ----------
    n : int
        Vertices ``0 .. n - 1``; 0 is the root.
    rows, cols : ndarray of intp
        Edge ``e`` leaves ``rows[e]`` for ``cols[e]``; an edge may repeat
        (its rates add up); self-loops are ignored.
    vals : ndarray of float64
        Positive rates.
    max_class : int
        The largest strongly connected class solved here.

    Returns
    -------
    reach : ndarray of intp
        The vertices reachable from 0, in scipy's breadth-first order.
    pi : ndarray of float64
        ``lim P(X_t = reach[i] | X_0 = 0)``; empty if a class was larger than
        ``max_class``: then solve the reachable chain sparsely.
    indptr, indices, rates : ndarray
        The reachable chain in compressed rows, its states numbered as in
        ``reach`` (state ``i`` is vertex ``reach[i]``; no repeated entries).
    """
    ptr, indices, data = _canonical_rows(n, rows, cols, vals)
    reach = _breadth_first(n, ptr, indices)
    m = reach.shape[0]
    local = np.full(n, -1, dtype=np.intp)
    for i in range(m):
        local[reach[i]] = i
    # The reachable chain, its states renumbered in breadth-first order.
    lptr = np.zeros(m + 1, dtype=np.intp)
    for i in range(m):
        v = reach[i]
        lptr[i + 1] = lptr[i] + ptr[v + 1] - ptr[v]
    lind = np.empty(lptr[m], dtype=np.intp)
    ldat = np.empty(lptr[m])
    for i in range(m):
        v = reach[i]
        t0 = lptr[i] - ptr[v]
        for t in range(ptr[v], ptr[v + 1]):
            lind[t0 + t] = local[indices[t]]
            ldat[t0 + t] = data[t]
    label, n_classes = _strong_classes(m, lptr, lind)
    # Members of each class (increasing state order) and their positions.
    cstart = np.zeros(n_classes + 1, dtype=np.intp)
    for i in range(m):
        cstart[label[i] + 1] += 1
    for c in range(n_classes):
        cstart[c + 1] += cstart[c]
        if cstart[c + 1] - cstart[c] > max_class:
            return reach, np.zeros(0), lptr, lind, ldat
    members = np.empty(m, dtype=np.intp)
    pos = np.empty(m, dtype=np.intp)
    fill = cstart[:n_classes].copy()
    for i in range(m):
        c = label[i]
        pos[i] = fill[c] - cstart[c]
        members[fill[c]] = i
        fill[c] += 1
    closed = np.ones(n_classes, dtype=np.bool_)
    for i in range(m):
        for t in range(lptr[i], lptr[i + 1]):
            if label[lind[t]] != label[i]:
                closed[label[i]] = False
    inflow = np.zeros(m)
    inflow[0] = 1.0
    pi = np.zeros(m)
    absorbed = 0.0
    for c in range(n_classes - 1, -1, -1):
        group = members[cstart[c] : cstart[c + 1]]
        if closed[c]:
            mass = 0.0
            for i in group:
                mass += inflow[i]
            absorbed += mass
            if group.shape[0] == 1:
                pi[group[0]] = mass
            else:
                share = _closed_stationary(group, pos, lptr, lind, ldat)
                for a in range(group.shape[0]):
                    pi[group[a]] = mass * share[a]
            continue
        if group.shape[0] == 1:
            i = group[0]
            out = 0.0
            for t in range(lptr[i], lptr[i + 1]):
                if lind[t] != i:
                    out += ldat[t]
            x = inflow[i] / out
            for t in range(lptr[i], lptr[i + 1]):
                if lind[t] != i:
                    inflow[lind[t]] += x * ldat[t]
            continue
        occupancy = _transient_occupancy(group, pos, label, c, lptr, lind, ldat, inflow)
        for a in range(group.shape[0]):
            i = group[a]
            for t in range(lptr[i], lptr[i + 1]):
                if label[lind[t]] != c:
                    inflow[lind[t]] += occupancy[a] * ldat[t]
    for i in range(m):
        pi[i] /= absorbed
    return reach, pi, lptr, lind, ldat
