"""A finite chain sampler's cache as arrays, for saving.

:class:`~sklearn_localregret.engine.finite_chain.FiniteChainSampler` caches
every vertex it met (a swap tree's: tens of thousands of trees after a
thousand rounds) and the out-edges of those with a positive out-rate (a
dict of small arrays). Saved as they are, skops writes every tree node and
every small array as a node of its JSON schema or a file of its own: a swap
tree's skops file after 1,000 rows of agrawal held 193 MB for its sampler
against 3.8 MB pickled. Here the vertices are saved as their distinct nodes
(:func:`~sklearn_localregret.engine.saved_paths.pack_tree_nodes`, when they
are trees; as one array of bytes when they are bytes of one length, a
hypercube's) and the edges as four arrays, in the dict's order (the solve
reads them in that order).
"""

from __future__ import annotations

import numpy as np

from .saved_paths import (
    is_packed_bytes,
    is_packed_tree_nodes,
    pack_bytes,
    pack_tree_nodes,
    unpack_bytes,
    unpack_tree_nodes,
)

__all__ = ["pack_chain_cache", "unpack_chain_cache"]

_EDGES = "sklearn_localregret.chain_edges.1"


def pack_chain_cache(state: dict) -> dict:
    """A sampler's saved state with its ``_vertices`` and ``_edges`` packed
    (the vertices as they are if they are neither trees nor bytes).

    Examples
    --------
    >>> import numpy as np
    >>> state = {"_vertices": ["a", "b"], "_edges": {0: (np.array([1]), np.ones(1))}}
    >>> packed = pack_chain_cache(state)
    >>> packed["_vertices"], packed["_edges"]["targets"].tolist()
    (['a', 'b'], [1])
    >>> unpack_chain_cache(packed)["_edges"]
    {0: (array([1]), array([1.]))}
    """
    state = dict(state)
    vertices = state["_vertices"]
    packed = pack_tree_nodes(vertices)
    if packed is None:
        packed = pack_bytes(vertices)
    if packed is not None:
        state["_vertices"] = packed
    edges = state["_edges"]
    ids = [pair[0] for pair in edges.values()]
    rates = [pair[1] for pair in edges.values()]
    state["_edges"] = {
        _EDGES: True,
        "sources": np.fromiter(edges, dtype=np.intp, count=len(edges)),
        "lengths": np.array([len(i) for i in ids], dtype=np.intp),
        "targets": np.concatenate(ids) if ids else np.zeros(0, dtype=np.intp),
        "rates": np.concatenate(rates) if rates else np.zeros(0),
    }
    return state


def unpack_chain_cache(state: dict) -> dict:
    """:func:`pack_chain_cache`'s state as the sampler keeps it (a state
    saved before, unpacked, is returned as it is); ``ValueError`` for arrays
    that do not fit (a damaged file)."""
    state = dict(state)
    if is_packed_tree_nodes(state["_vertices"]):
        state["_vertices"] = unpack_tree_nodes(state["_vertices"])
    elif is_packed_bytes(state["_vertices"]):
        state["_vertices"] = unpack_bytes(state["_vertices"])
    edges = state["_edges"]
    if isinstance(edges, dict) and edges.get(_EDGES) is True:
        sources = np.asarray(edges["sources"]).tolist()
        lengths = np.asarray(edges["lengths"])
        targets = np.asarray(edges["targets"], dtype=np.intp)
        rates = np.asarray(edges["rates"], dtype=np.float64)
        n = len(state["_vertices"])
        if (
            lengths.shape != (len(sources),)
            or (lengths < 0).any()
            or int(lengths.sum()) != targets.shape[0]
            or targets.shape != rates.shape
            or not all(0 <= i < n for i in sources)
            or len(set(sources)) != len(sources)
            or (targets.size and not (0 <= targets.min() and targets.max() < n))
            or not (np.isfinite(rates) & (rates >= 0)).all()
        ):
            raise ValueError("a damaged chain: its saved edges do not fit")
        ends = np.cumsum(lengths).tolist()
        starts = [end - k for end, k in zip(ends, lengths.tolist())]
        state["_edges"] = {
            i: (targets[lo:hi].copy(), rates[lo:hi].copy())
            for i, lo, hi in zip(sources, starts, ends)
        }
    return state
