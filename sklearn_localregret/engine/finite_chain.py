"""Exact stationary distribution of a finite chain started at the root.

For per-edge ("swap") regrets only vertices that were played have a positive
out-rate, so the chain reachable from the root is finite (:ref:`engine-swap`).
Its stationary distribution started at the root (Requirement 2 of the paper) is
the absorption probability into each closed class times that class's own
stationary distribution; both come from sparse linear algebra.

:func:`reachable_generator` builds the chain from scratch.
:class:`FiniteChainSampler` keeps it between draws: in a round of per-edge
regret matching only the edges out of the played vertex change, so the sampler
caches every vertex's out-edges and re-asks the graph only for the vertices it
is told about (:meth:`FiniteChainSampler.invalidate`), and solves the cached
chain with the compiled
:func:`~sklearn_localregret.engine.compiled.chain_solve.chain_from_root` (the
same answer as :func:`stationary_from_root`, exact to rounding).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse.linalg import spsolve

from .compiled.chain_solve import DENSE_CLASS_LIMIT, chain_from_root
from .rate_graph import RateGraph
from .saved_chain import pack_chain_cache, unpack_chain_cache

__all__ = ["reachable_generator", "stationary_from_root", "FiniteChainSampler"]

# A solved chain: support ids, probabilities, cdf, support vertices (or None).
_Solved = tuple[np.ndarray, np.ndarray, np.ndarray, list[Hashable] | None]
#: Rates below this fraction of a chain's largest are 0 in its solve.
NEGLIGIBLE_RATE = 1e-200

_NO_IDS = np.zeros(0, dtype=np.intp)

# The cache is cut back to the vertices reachable from the root once it holds
# more than twice as many plus this slack: a solve then costs O(reachable),
# amortised, however many vertices a long stream has met.
_CACHE_SLACK = 256


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
        if len(rates) != len(targets):
            raise ValueError(
                f"the out-edges of {vertex!r}: {len(targets)} targets, "
                f"{len(rates)} rates"
            )
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

    Notes
    -----
    With per-edge regrets almost every state is absorbing (never played), so
    the work is vectorised over states: only the transient states enter a
    linear solve, the mass flowing out of them is spread over the closed
    classes with one sparse product, and only closed classes of two or more
    states (rare) get a solve of their own.

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
    rates.setdiag(0.0)  # (a generator's negative diagonal is ignored)
    rates.eliminate_zeros()
    if not (rates.data >= 0).all() or not np.isfinite(rates.data).all():
        raise ValueError("the off-diagonal rates must be finite and non-negative")
    n_comp, labels = csgraph.connected_components(
        rates, directed=True, connection="strong"
    )
    coo = rates.tocoo()
    leaving = labels[coo.row] != labels[coo.col]
    closed = np.ones(n_comp, dtype=bool)
    closed[labels[coo.row[leaving]]] = False

    if closed[labels[0]]:
        mass = np.zeros(n_comp)
        mass[labels[0]] = 1.0
    else:
        mass = _absorption_from_root(rates, labels, closed)
    # Singleton closed classes (absorbing states) take their class's mass as
    # is; only larger closed classes need their own stationary distribution.
    size = np.bincount(labels, minlength=n_comp)
    pi = np.where(size[labels] == 1, mass[labels], 0.0)
    for comp in np.flatnonzero((mass > 0.0) & (size > 1)):
        members = np.flatnonzero(labels == comp)
        pi[members] = mass[comp] * _irreducible_stationary(rates[members][:, members])
    return pi


def _absorption_from_root(rates, labels, closed) -> np.ndarray:
    """Probability that the chain from state 0 ends in each closed class."""
    in_closed = closed[labels]
    transient = np.flatnonzero(~in_closed)
    out_of_transient = rates[transient]
    out_rate = np.asarray(out_of_transient.sum(axis=1)).ravel()
    q_tt = out_of_transient[:, transient] - sparse.diags(out_rate)
    start = np.zeros(len(transient))
    start[np.searchsorted(transient, 0)] = 1.0
    # Expected time spent in each transient state: x (-Q_TT) = e_root.
    occupancy = np.atleast_1d(spsolve((-q_tt).T.tocsc(), start))
    # Probability flow into every state, kept for the closed ones.
    flow = out_of_transient.T @ occupancy
    flow[~in_closed] = 0.0
    mass = np.bincount(labels, weights=flow, minlength=len(closed))
    return mass / mass.sum()


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

    Solves the chain reachable from the root for its stationary distribution
    from the root (:ref:`engine-swap`), incrementally: the out-edges of every
    vertex met so far are cached (already redirected to the root where they
    leave level ``max_level``), and a draw re-asks the graph only for the
    out-edges of vertices passed to :meth:`invalidate` since the last solve,
    and of vertices it has not met yet. Reachability and the solve are then
    integer and sparse work over the cache; if no cached edge list actually
    changed, the last distribution is reused. Vertices that are no longer
    reachable from the root leave the cache once they outnumber the reachable
    ones (they are asked about again if reached again), so the cache stays
    proportional to the reachable chain on a long stream.

    The contract: call :meth:`invalidate` with a vertex after changing the
    rates of the edges out of it (a per-edge regret learner invalidates the
    vertex it played, after updating its regrets). ``invalidate()`` with no
    argument forgets the whole cache.

    Parameters
    ----------
    graph : RateGraph
    max_level : int or None
        The paper's ``L`` (None = infinity: no redirect).

    Examples
    --------
    >>> import numpy as np
    >>> class Graph:
    ...     root = "r"
    ...     edges = {"r": (["a", "b"], np.array([1.0, 3.0]))}
    ...     def level(self, v):
    ...         return 0 if v == "r" else 1
    ...     def positive_out_edges(self, v):
    ...         return self.edges.get(v, ([], np.zeros(0)))
    >>> graph = Graph()
    >>> sampler = FiniteChainSampler(graph)
    >>> sampler.distribution()
    (['a', 'b'], array([0.25, 0.75]))
    >>> graph.edges["a"] = (["b"], np.array([2.0]))  # "a" was played
    >>> sampler.invalidate("a")
    >>> sampler.distribution()
    (['b'], array([1.]))
    """

    def __init__(self, graph: RateGraph, max_level: int | None = None):
        self.graph = graph
        self.max_level = max_level
        self.invalidate()

    # -- the cache ----------------------------------------------------------
    def invalidate(self, vertex: Hashable | None = None) -> None:
        """Forget the cached out-edges of ``vertex`` (of every vertex if None).

        The next draw asks the graph for them again. A vertex the sampler has
        not met needs no call: it is asked about when first reached.
        """
        if vertex is None:
            # Vertex ids: 0 is the root. A vertex above max_level maps to -1
            # (it is never in the chain: edges into it go to the root).
            self._ids: dict[Hashable, int] = {self.graph.root: 0}
            self._vertices: list[Hashable] = [self.graph.root]
            # Out-edges (target ids, rates) of every vertex with a positive
            # out-rate; vertices absent here are absorbing (or not yet asked).
            self._edges: dict[int, tuple[np.ndarray, np.ndarray]] = {}
            self._pending: list[int] = [0]  # ids whose out-edges to (re)read
            # The last solve: support ids, probabilities, their cdf and the
            # support's vertices (listed on first request).
            self._result: _Solved | None = None
            return
        i = self._ids.get(vertex, -1)
        if i >= 0:
            self._pending.append(i)

    def _id(self, vertex: Hashable) -> int:
        """Id of a target vertex, meeting it (and queueing it) if new."""
        i = self._ids.get(vertex)
        if i is None:
            max_level = self.max_level
            if max_level is not None and self.graph.level(vertex) > max_level:
                i = -1
            else:
                i = len(self._vertices)
                self._vertices.append(vertex)
                self._pending.append(i)
            self._ids[vertex] = i
        return i

    def _read(self, i: int) -> bool:
        """Re-read the out-edges of vertex ``i``; whether they changed."""
        targets, rates = self.graph.positive_out_edges(self._vertices[i])
        rates = np.asarray(rates, dtype=float)
        if rates.shape != (len(targets),) or not (rates >= 0).all():
            raise ValueError(
                f"the out-edges of {self._vertices[i]!r}: {len(targets)} targets "
                f"with rates {rates!r}; a rate each, finite or 0, not negative"
            )
        if not np.isfinite(rates).all():
            raise ValueError(f"an out-edge rate of {self._vertices[i]!r} is infinite")
        ids = np.fromiter(map(self._id, targets), dtype=np.intp, count=len(targets))
        ids[ids < 0] = 0  # the level-(max_level + 1) redirect
        rates = np.asarray(rates, dtype=float)
        keep = ids != i  # a redirect from the root to itself is no transition
        ids, rates = ids[keep], rates[keep]
        old = self._edges.get(i)
        if ids.size == 0:
            if old is None:
                return False
            del self._edges[i]
            return True
        self._edges[i] = ids, rates
        return not (
            old is not None
            and np.array_equal(old[0], ids)
            and np.array_equal(old[1], rates)
        )

    def refresh(self) -> None:
        """Bring the cache and the solved distribution up to date.

        Drawing calls this itself; a learner may call it right after its
        update so that later reads of the distribution write to nothing.
        """
        while self._pending:  # reading may meet new vertices: they queue up
            i = self._pending.pop()
            try:
                if self._read(i):
                    self._result = None  # (at once: a later read may fail)
            except ValueError:  # read again next time, nothing changed
                self._pending.append(i)
                raise
        if self._result is None:
            self._result = self._solve()

    # -- the solve ----------------------------------------------------------
    def _solve(self) -> _Solved:
        n = len(self._vertices)
        sources = np.fromiter(self._edges, dtype=np.intp, count=len(self._edges))
        lists = list(self._edges.values())
        if lists:
            lengths = [len(ids) for ids, _ in lists]
            rows = np.repeat(sources, lengths)
            cols = np.concatenate([ids for ids, _ in lists])
            vals = np.concatenate([rates for _, rates in lists])
        else:
            rows = cols = _NO_IDS
            vals = np.zeros(0)
        vals = _relative_rates(vals)
        if vals.size and not vals.all():  # the solve takes positive rates
            rows, cols, vals = rows[vals > 0], cols[vals > 0], vals[vals > 0]
        # The vertices reachable from the root (root first; the cache also
        # holds vertices that were reachable once but no longer are) and pi
        # over them, compiled; a class too large for its dense elimination
        # takes the sparse solve.
        reach, pi, *chain = chain_from_root(n, rows, cols, vals, DENSE_CLASS_LIMIT)
        if pi.size == 0:
            shape = (reach.size, reach.size)
            pi = stationary_from_root(sparse.csr_matrix(tuple(chain[::-1]), shape))
        if n > 2 * reach.size + _CACHE_SLACK:
            reach = self._keep_only(reach)
        keep = np.flatnonzero(pi > 0)
        probs = pi[keep] / pi[keep].sum()
        cdf = np.cumsum(probs)
        cdf /= cdf[-1]
        return reach[keep], probs, cdf, None

    def _keep_only(self, reach: np.ndarray) -> np.ndarray:
        """Drop every cached vertex outside ``reach``; its new ids.

        Kept vertices keep their relative order, so the solve's matrix and
        the support's order are those the full cache would give. Every target
        of a reachable vertex is reachable, so the kept edge lists stay whole.
        """
        kept = np.sort(reach)
        renumber = np.full(len(self._vertices), -1, dtype=np.intp)
        renumber[kept] = np.arange(kept.size)
        self._vertices = [self._vertices[i] for i in kept.tolist()]
        # Vertices above max_level (id -1) go too: they are met again if needed.
        self._ids = {vertex: i for i, vertex in enumerate(self._vertices)}
        self._edges = {
            int(renumber[i]): (renumber[ids], rates)
            for i, (ids, rates) in self._edges.items()
            if renumber[i] >= 0
        }
        return renumber[reach]

    def __getstate__(self):
        # The support as a list of vertices is built on demand from the ids;
        # leaving it out keeps the pickled state the same whether or not the
        # distribution was read (reading a model must not change it).
        state = self.__dict__.copy()
        if state["_result"] is not None:
            state["_result"] = state["_result"][:3] + (None,)
        # The id of a vertex is its place in _vertices: the index is rebuilt
        # on load (saving it would store every vertex twice -- skops does not
        # share equal objects -- and skops takes no dict with vertex keys).
        # Vertices above max_level are met again when reached.
        # The vertices and edges as arrays (skops writes a node a tree node).
        del state["_ids"]
        return pack_chain_cache(state)

    def __setstate__(self, state):
        self.__dict__.update(unpack_chain_cache(state))
        self._ids = {vertex: i for i, vertex in enumerate(self._vertices)}

    def distribution(self) -> tuple[list[Hashable], np.ndarray]:
        """Vertices with positive stationary probability, and the probabilities."""
        self.refresh()
        assert self._result is not None  # refresh() solves
        ids, probs, cdf, vertices = self._result
        if vertices is None:
            vertices = [self._vertices[i] for i in ids.tolist()]
            self._result = ids, probs, cdf, vertices
        return vertices, probs

    def sample(self, rng: np.random.Generator) -> Hashable:
        """Draw one vertex from the stationary distribution.

        One uniform from ``rng`` per draw, as ``rng.choice(n, p=probs)``
        would use (and with the same outcome).
        """
        self.refresh()
        assert self._result is not None  # refresh() solves
        ids, _, cdf, _ = self._result
        k = int(np.searchsorted(cdf, rng.random(), side="right"))
        return self._vertices[int(ids[min(k, len(ids) - 1)])]


def _relative_rates(vals: np.ndarray) -> np.ndarray:
    """The rates over the largest: the stationary distribution is the same
    (scaling every rate scales time only), and the solve's arithmetic stays
    in normal floats. A rate below :data:`NEGLIGIBLE_RATE` of the largest is
    0 (no edge): a subnormal one (a tiny discount's decay) made the dense
    elimination overflow, and ``pi`` came out NaN."""
    top = float(vals.max()) if vals.size else 0.0
    if not 0.0 < top < np.inf:
        return vals
    relative = vals / top
    relative[relative < NEGLIGIBLE_RATE] = 0.0
    return relative
