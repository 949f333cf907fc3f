"""Exact stationary distribution of a finite chain started at the root.

For per-edge ("swap") regrets only vertices that were played have a positive
out-rate, so the chain reachable from the root is finite (ENGINE.md section 4).
Its stationary distribution started at the root (Requirement 2 of the paper) is
the absorption probability into each closed class times that class's own
stationary distribution; both come from sparse linear algebra.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse.linalg import spsolve

from .rate_graph import RateGraph

__all__ = ["reachable_generator", "stationary_from_root", "FiniteChainSampler"]


def reachable_generator(
    graph: RateGraph, max_level: int | None = None
) -> tuple[list[Hashable], sparse.csr_matrix]:
    """Vertices reachable from the root and the rate matrix among them.

    A transition into a vertex of level ``max_level + 1`` is redirected to the
    root (Requirement 2(d)). Vertex 0 is the root.

    Returns
    -------
    vertices : list
        Reachable vertices, root first.
    rates : csr_matrix of shape (n, n)
        Off-diagonal transition rates (the generator without its diagonal).
    """
    index = {graph.root: 0}
    vertices = [graph.root]
    rows, cols, vals = [], [], []
    frontier = [graph.root]
    while frontier:
        vertex = frontier.pop()
        i = index[vertex]
        targets, rates = graph.positive_out_edges(vertex)
        for target, rate in zip(targets, rates):
            if max_level is not None and graph.level(target) > max_level:
                target = graph.root
            j = index.get(target)
            if j is None:
                j = index[target] = len(vertices)
                vertices.append(target)
                frontier.append(target)
            if j != i:
                rows.append(i)
                cols.append(j)
                vals.append(rate)
    n = len(vertices)
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(n, n))
    matrix.sum_duplicates()
    return vertices, matrix


def stationary_from_root(rates: sparse.spmatrix) -> np.ndarray:
    """Stationary distribution of the chain with these rates, started at state 0.

    Parameters
    ----------
    rates : sparse matrix of shape (n, n)
        Non-negative off-diagonal rates; the diagonal is ignored.

    Returns
    -------
    ndarray of shape (n,)
        ``lim_{t -> inf} P(X_t = j | X_0 = 0)``.

    Examples
    --------
    Root 0 moves to an absorbing vertex 1 at rate 1 and to the cycle {2, 3} at
    rate 3; the cycle spends twice as long in 3 as in 2:

    >>> from scipy import sparse
    >>> q = sparse.csr_matrix(([1.0, 3.0, 2.0, 1.0], ([0, 0, 2, 3], [1, 2, 3, 2])),
    ...                       shape=(4, 4))
    >>> stationary_from_root(q).round(4)
    array([0.  , 0.25, 0.25, 0.5 ])
    """
    rates = sparse.csr_matrix(rates, dtype=float)
    rates.setdiag(0.0)
    rates.eliminate_zeros()
    n = rates.shape[0]
    n_comp, labels = csgraph.connected_components(
        rates, directed=True, connection="strong"
    )
    coo = rates.tocoo()
    leaving = labels[coo.row] != labels[coo.col]
    closed = np.ones(n_comp, dtype=bool)
    closed[labels[coo.row[leaving]]] = False

    pi = np.zeros(n)
    if closed[labels[0]]:
        absorbed = {labels[0]: 1.0}
    else:
        absorbed = _absorption_from_root(rates, labels, closed)
    # Members of every class at once (a per-class scan would be quadratic: with
    # per-edge regrets most vertices are lone absorbing classes).
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(n_comp + 1))
    for comp, mass in absorbed.items():
        if mass <= 0.0:
            continue
        members = order[bounds[comp] : bounds[comp + 1]]
        if members.size == 1:
            pi[members] = mass
            continue
        pi[members] = mass * _irreducible_stationary(rates[members][:, members])
    return pi


def _absorption_from_root(rates, labels, closed) -> dict[int, float]:
    """Probability that the chain from state 0 ends in each closed class."""
    transient = np.flatnonzero(~closed[labels])
    out_rate = np.asarray(rates.sum(axis=1)).ravel()
    q_tt = rates[transient][:, transient] - sparse.diags(out_rate[transient])
    start = np.zeros(len(transient))
    start[np.searchsorted(transient, 0)] = 1.0
    # Expected time spent in each transient state: x (-Q_TT) = e_root.
    occupancy = np.atleast_1d(spsolve((-q_tt).T.tocsc(), start))
    flow = sparse.csr_matrix(occupancy[None, :]) @ rates[transient]
    flow = np.asarray(flow.todense()).ravel()
    absorbed: dict[int, float] = {}
    for j in np.flatnonzero(flow > 0):
        comp = int(labels[j])
        if closed[comp]:
            absorbed[comp] = absorbed.get(comp, 0.0) + float(flow[j])
    total = sum(absorbed.values())
    return {comp: mass / total for comp, mass in absorbed.items()}


def _irreducible_stationary(rates) -> np.ndarray:
    """Stationary distribution of an irreducible chain (pi Q = 0, sum pi = 1)."""
    m = rates.shape[0]
    if m == 1:
        return np.ones(1)
    scale = rates.max()
    q = (rates - sparse.diags(np.asarray(rates.sum(axis=1)).ravel())) / scale
    system = sparse.lil_matrix(q.T)
    system[m - 1, :] = np.ones(m)
    rhs = np.zeros(m)
    rhs[m - 1] = 1.0
    pi = spsolve(system.tocsc(), rhs)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


class FiniteChainSampler:
    """Exact sampler for per-edge regrets over any locality graph.

    Rebuilds the reachable chain from the graph's current rates and solves for
    its stationary distribution from the root. Cost grows with the number of
    vertices ever played: swap regret is the expensive variant by nature.

    Parameters
    ----------
    graph : RateGraph
    max_level : int or None
        The paper's ``L`` (None = infinity: no redirect).
    """

    def __init__(self, graph: RateGraph, max_level: int | None = None):
        self.graph = graph
        self.max_level = max_level

    def distribution(self) -> tuple[list[Hashable], np.ndarray]:
        """Vertices with positive stationary probability, and the probabilities."""
        vertices, rates = reachable_generator(self.graph, self.max_level)
        pi = stationary_from_root(rates)
        keep = np.flatnonzero(pi > 0)
        return [vertices[i] for i in keep], pi[keep] / pi[keep].sum()

    def sample(self, rng: np.random.Generator) -> Hashable:
        """Draw one vertex from the stationary distribution."""
        vertices, probs = self.distribution()
        return vertices[int(rng.choice(len(vertices), p=probs))]
