"""Exact reference computations for the engine tests (not a test module).

Everything here is written *independently* of the engine's own solvers: the
locality graphs are enumerated from their definitions (docs/engine.rst,
the paper's Examples "Online Decision Tree Learning" and "Colored Decision Tree
Learning"), levels come from a breadth-first search over *all* edges, and the
stationary distribution from the root (Requirement 2) comes from dense matrix
powers of the uniformised chain, not from the closed-class decomposition that
:func:`sklearn_localregret.engine.stationary_from_root` uses. Only the
regret tables' public views are read, to get the rates (for trees, every
colour's regret through ``StumpRegretTable.leaf_regrets`` and
``stump_regrets``).

Trees are nested tuples, the engine's default: ``("leaf", c)`` and
``("split", v, true_child, false_child)``. A path is a tuple of
``(variable, branch)`` pairs, ``branch`` 1 for the "variable is true" child.

>>> len(enumerate_trees(2, 2)), len(enumerate_trees(1, 2)), len(enumerate_trees(0, 3))
(74, 6, 3)
>>> tv_bound({"a": 0.5, "b": 0.5}, 10_000) < 0.04
True
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, deque
from collections.abc import Hashable, Iterable, Mapping

import numpy as np

# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------


def tv_bound(
    probs: Mapping[Hashable, float] | np.ndarray, n_draws: int, delta: float = 1e-6
) -> float:
    r"""Threshold for TV(empirical of ``n_draws`` i.i.d. draws, ``probs``).

    The returned value ``t`` satisfies ``P(TV > t) <= delta`` when the draws
    really come from ``probs``. Derivation (every step is a theorem, nothing is
    tuned):

    * Mean. With counts ``N_i ~ Binomial(N, p_i)`` the total variation is
      ``TV = 0.5 * sum_i |N_i / N - p_i|`` and, by Jensen (Cauchy-Schwarz),
      ``E|N_i / N - p_i| <= sqrt(Var(N_i / N)) = sqrt(p_i (1 - p_i) / N)``, so
      ``E[TV] <= 0.5 * sum_i sqrt(p_i (1 - p_i) / N)``. Outcomes with
      ``p_i = 0`` never occur and contribute nothing.
    * Deviation. TV is a function of the ``N`` independent draws, and replacing
      one draw moves one unit of mass ``1/N`` from one outcome to another, which
      changes TV by at most ``1/N``. McDiarmid's bounded-differences inequality
      gives ``P(TV - E[TV] >= s) <= exp(-2 s^2 / (N (1/N)^2)) = exp(-2 N s^2)``;
      solving ``exp(-2 N s^2) = delta`` gives ``s = sqrt(ln(1/delta) / (2N))``.

    Hence ``t = 0.5 * sum_i sqrt(p_i (1 - p_i) / N) + sqrt(ln(1/delta) / (2N))``.
    With ``delta = 1e-6`` a correct sampler fails a single check with
    probability at most one in a million (and the tests use fixed seeds, so a
    pass is reproducible).

    >>> round(tv_bound([0.25, 0.75], 100), 4)
    0.3061
    """
    p = np.asarray(
        list(probs.values()) if isinstance(probs, Mapping) else probs, dtype=float
    )
    p = np.clip(p, 0.0, 1.0)
    mean = 0.5 * float(np.sum(np.sqrt(p * (1.0 - p) / n_draws)))
    return mean + math.sqrt(math.log(1.0 / delta) / (2.0 * n_draws))


def empirical(draws: Iterable[Hashable]) -> dict[Hashable, float]:
    """Empirical distribution of hashable draws.

    >>> empirical(["a", "b", "a", "a"])
    {'a': 0.75, 'b': 0.25}
    """
    counts = Counter(draws)
    total = sum(counts.values())
    return {key: n / total for key, n in counts.items()}


def total_variation(p: Mapping[Hashable, float], q: Mapping[Hashable, float]) -> float:
    """``0.5 * sum_x |p(x) - q(x)|`` over the union of the supports.

    >>> total_variation({"a": 1.0}, {"a": 0.5, "b": 0.5})
    0.5
    """
    keys = set(p) | set(q)
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in keys)


# ---------------------------------------------------------------------------
# dense chains
# ---------------------------------------------------------------------------


def bfs_levels(vertices, neighbours: Mapping, root) -> dict:
    """Unweighted distance from ``root`` over all edges (rates are irrelevant).

    >>> bfs_levels("abc", {"a": ["b"], "b": ["c"], "c": []}, "a")
    {'a': 0, 'b': 1, 'c': 2}
    """
    level = {root: 0}
    queue = deque([root])
    while queue:
        vertex = queue.popleft()
        for target in neighbours[vertex]:
            if target not in level:
                level[target] = level[vertex] + 1
                queue.append(target)
    return {v: level[v] for v in vertices if v in level}


def rate_matrix(
    vertices: list,
    rated_edges: Mapping,
    root,
    levels: Mapping | None = None,
    max_level: int | None = None,
) -> np.ndarray:
    """Dense off-diagonal rate matrix, with the level-(L+1) redirect to root.

    ``rated_edges[v]`` is a list of ``(target, rate)``; rates <= 0 are dropped,
    a target of level ``> max_level`` is replaced by ``root`` (Requirement 2(d)),
    parallel edges add up and self-loops are dropped.
    """
    index = {v: i for i, v in enumerate(vertices)}
    rates = np.zeros((len(vertices), len(vertices)))
    for v in vertices:
        for target, rate in rated_edges[v]:
            if rate <= 0.0:
                continue
            if max_level is not None and levels[target] > max_level:
                target = root
            rates[index[v], index[target]] += rate
    np.fill_diagonal(rates, 0.0)
    return rates


def uniformized(rates: np.ndarray, rate_bound: float | None = None) -> np.ndarray:
    """``P = I + Q / Lambda`` with ``Lambda = rate_bound`` or 2 x max out-rate.

    The factor 2 leaves every state a self-loop of probability >= 1/2, so ``P``
    is aperiodic and ``P^k`` converges to the limit of the continuous chain.
    """
    out = rates.sum(axis=1)
    lam = 2.0 * out.max() if rate_bound is None else float(rate_bound)
    if lam <= 0.0:
        return np.eye(len(rates))
    return np.eye(len(rates)) + (rates - np.diag(out)) / lam


def stationary_by_squaring(
    rates: np.ndarray, root: int = 0, squarings: int = 64
) -> np.ndarray:
    """``lim_t P(X_t = . | X_0 = root)`` as row ``root`` of ``P^(2^squarings)``.

    Rows are renormalised after every squaring so that rounding cannot inflate
    the row sums (they would otherwise double their error each squaring).

    >>> q = np.array([[0, 1.0, 3.0, 0], [0, 0, 0, 0], [0, 0, 0, 2.0], [0, 0, 1.0, 0]])
    >>> stationary_by_squaring(q).round(6)
    array([0.  , 0.25, 0.25, 0.5 ])
    """
    p = uniformized(rates)
    for _ in range(squarings):
        p = p @ p
        np.clip(p, 0.0, None, out=p)
        p /= p.sum(axis=1, keepdims=True)
    return p[root].copy()


def k_step_distribution(
    rates: np.ndarray, start: int, n_steps: int, rate_bound: float
) -> np.ndarray:
    """Row ``start`` of ``(I + Q / rate_bound)^n_steps``: the law after k MCMC steps."""
    p = uniformized(rates, rate_bound)
    dist = np.zeros(len(rates))
    dist[start] = 1.0
    for _ in range(n_steps):
        dist = dist @ p
    return dist


def as_dict(vertices: list, probs: np.ndarray, tol: float = 0.0) -> dict:
    """``{vertex: probability}`` for the probabilities above ``tol``."""
    return {v: float(p) for v, p in zip(vertices, probs) if p > tol}


class DictRateGraph:
    """A :class:`~sklearn_localregret.engine.RateGraph` from explicit edges.

    Parameters
    ----------
    root : hashable
    regrets : dict ``{vertex: {target: regret}}``
        Every edge of the locality graph with its (per-edge or colour) regret;
        the rate is its positive part. Edges with regret <= 0 still count for
        the levels. Every vertex must be a key.
    """

    def __init__(self, root, regrets: Mapping):
        self.root = root
        self.vertices = list(regrets)
        self.regrets = {v: dict(t) for v, t in regrets.items()}
        self.levels = bfs_levels(self.vertices, self.regrets, root)
        self._positive = {}
        for v, targets in self.regrets.items():
            pos = [(t, float(r)) for t, r in targets.items() if r > 0]
            self._positive[v] = (
                [t for t, _ in pos],
                np.array([r for _, r in pos], dtype=float),
            )

    def level(self, vertex) -> int:
        return self.levels[vertex]

    def positive_out_edges(self, vertex):
        return self._positive[vertex]

    def rated_edges(self) -> dict:
        return {
            v: [(t, max(r, 0.0)) for t, r in tg.items()]
            for v, tg in self.regrets.items()
        }

    def exact(self, max_level: int | None = None) -> dict:
        """Exact stationary distribution from the root, by matrix squaring."""
        rates = rate_matrix(
            self.vertices, self.rated_edges(), self.root, self.levels, max_level
        )
        root = self.vertices.index(self.root)
        return as_dict(self.vertices, stationary_by_squaring(rates, root), 1e-13)


# ---------------------------------------------------------------------------
# hypercube
# ---------------------------------------------------------------------------


def hypercube_vertices(n: int) -> list[tuple[int, ...]]:
    """All bit tuples, the root (all zeros) first."""
    return list(itertools.product((0, 1), repeat=n))


def flip(vertex: tuple, k: int) -> tuple:
    return vertex[:k] + (1 - vertex[k],) + vertex[k + 1 :]


def hypercube_colored_regrets(n: int, biased: np.ndarray) -> dict:
    """2n colouring: the edge setting bit ``k`` to ``x`` has regret ``biased[k, x]``."""
    return {
        v: {flip(v, k): float(biased[k, 1 - v[k]]) for k in range(n)}
        for v in hypercube_vertices(n)
    }


# ---------------------------------------------------------------------------
# decision trees
# ---------------------------------------------------------------------------


def leaf(c: int) -> tuple:
    return ("leaf", c)


def split(v: int, true_child: tuple, false_child: tuple) -> tuple:
    return ("split", v, true_child, false_child)


def enumerate_trees(
    n_features: int, n_classes: int, used: frozenset = frozenset(), n_models: int = 0
) -> list[tuple]:
    """Every tree over the features not in ``used`` (no variable repeated).

    With ``n_models = 1`` a leaf may also be the model leaf ``leaf(K)``.
    """
    trees = [leaf(c) for c in range(n_classes + n_models)]
    for v in range(n_features):
        if v in used:
            continue
        below = enumerate_trees(n_features, n_classes, used | {v}, n_models)
        trees.extend(split(v, t, f) for t in below for f in below)
    return trees


def n_internal(tree: tuple) -> int:
    if tree[0] == "leaf":
        return 0
    return 1 + n_internal(tree[2]) + n_internal(tree[3])


def nodes(tree: tuple, path: tuple = ()):
    """``(path, subtree)`` for every node, pre-order."""
    yield path, tree
    if tree[0] == "split":
        v = tree[1]
        yield from nodes(tree[2], path + ((v, 1),))
        yield from nodes(tree[3], path + ((v, 0),))


def replace(tree: tuple, path: tuple, new: tuple) -> tuple:
    """``tree`` with the subtree at ``path`` replaced by ``new``."""
    if not path:
        return new
    (v, branch), rest = path[0], path[1:]
    assert tree[0] == "split" and tree[1] == v
    if branch == 1:
        return split(v, replace(tree[2], rest, new), tree[3])
    return split(v, tree[2], replace(tree[3], rest, new))


def column(
    replacement: tuple, n_features: int, n_classes: int, n_models: int = 0
) -> int:
    """Column of a colour in a row: leaves first (the labels, then the model
    leaf), then stumps v by v, (ct, cf)."""
    if replacement[0] == "leaf":
        return replacement[1]
    _, v, ct, cf = replacement
    return n_classes + n_models + v * n_classes * n_classes + ct * n_classes + cf


def tree_edges(tree: tuple, n_features: int, n_classes: int, n_models: int = 0):
    """Edges out of ``tree`` as ``(path, replacement, new_tree)``.

    ``replacement`` is ``("leaf", c)`` or ``("stump", v, c_true, c_false)``.
    Excluded, as in the paper: a replacement that leaves the tree unchanged
    (leaf c over leaf c) and a stump on the variable the node already splits on;
    a stump's variable is never one already on the path. With ``n_models =
    1``, ``("leaf", K)`` (the model leaf) is one more leaf replacement; a
    stump's leaves are labels.
    """
    for path, sub in nodes(tree):
        on_path = {v for v, _ in path}
        for c in range(n_classes + n_models):
            if sub != leaf(c):
                yield path, ("leaf", c), replace(tree, path, leaf(c))
        for v in range(n_features):
            if v in on_path or (sub[0] == "split" and sub[1] == v):
                continue
            for ct in range(n_classes):
                for cf in range(n_classes):
                    yield (
                        path,
                        ("stump", v, ct, cf),
                        replace(tree, path, split(v, leaf(ct), leaf(cf))),
                    )


def colour_regret(
    table, path: tuple, replacement: tuple, n_features: int, n_classes: int
) -> float:
    """Biased regret of colour ``(path, replacement)``; 0 if the row is absent."""
    row = table.find(path)
    if row < 0:
        return 0.0
    if replacement[0] == "leaf":
        return float(table.leaf_regrets(row)[replacement[1]])
    _, v, ct, cf = replacement
    return float(table.stump_regrets(row, v)[ct, cf])


def site_rates(
    table, path: tuple, n_features: int, n_classes: int, n_models: int = 0
) -> np.ndarray:
    """``Rtilde+`` of every colour of a path, in :func:`column` order."""
    row = table.find(path)
    rates = [
        max(colour_regret(table, path, ("leaf", c), n_features, n_classes), 0.0)
        for c in range(n_classes + n_models)
    ]
    if row >= 0:
        for v in range(n_features):
            rates.extend(np.maximum(table.stump_regrets(row, v), 0.0).ravel())
    return np.array(rates)


def set_site(table, path: tuple, leaves=None, stumps=None) -> None:
    """Give a path's colours these biased regrets, through the table's update.

    ``leaves``: one regret per leaf colour (``table.n_leaves``). ``stumps``:
    ``{v: (s_true, s_false, cost)}``, the factors of the stump regrets
    ``s_true[c1] + s_false[c2] - cost``. Each is added by one update (the rows
    start at zero).
    """
    k, t = table.n_classes, table.n_tests
    n_leaves = table.n_leaves
    row = table.row(path)
    none_k, none_t = np.zeros((1, n_leaves), bool), np.zeros((1, t), bool)
    if leaves is not None:
        table.update(
            [row],
            np.asarray(leaves, float)[None],
            np.ones((1, n_leaves), bool),
            np.zeros((1, t, k)),
            np.zeros((1, k)),
            np.zeros(1),
            none_t,
        )
    for v, (s_true, s_false, cost) in (stumps or {}).items():
        true_counts = np.zeros((1, t, k))
        true_counts[0, v] = s_true
        only_v = none_t.copy()
        only_v[0, v] = True
        table.update(
            [row],
            np.zeros((1, n_leaves)),
            none_k,
            true_counts,
            (np.asarray(s_true, float) + np.asarray(s_false, float))[None],
            np.array([float(cost)]),
            only_v,
        )


def valid_paths(n_features: int, prefix: tuple = ()) -> list[tuple]:
    """Every path that occurs in some tree (variables distinct along it)."""
    paths = [prefix]
    used = {v for v, _ in prefix}
    for v in range(n_features):
        if v not in used:
            for branch in (1, 0):
                paths.extend(valid_paths(n_features, prefix + ((v, branch),)))
    return paths


def valid_columns(path: tuple, n_features: int, n_classes: int) -> list[int]:
    """Columns of the colours that exist at ``path``."""
    used = {v for v, _ in path}
    cols = list(range(n_classes))
    for v in range(n_features):
        if v not in used:
            cols.extend(
                column(("stump", v, ct, cf), n_features, n_classes)
                for ct in range(n_classes)
                for cf in range(n_classes)
            )
    return cols


class ColoredTreeGraph(DictRateGraph):
    """All trees over ``n_features`` with the paper's colouring, as a RateGraph.

    The rate of an edge is ``Rtilde+`` of its colour ``(path, replacement)`` read
    from ``table``. Levels are breadth-first distances from ``leaf(root_label)``
    over all edges.
    """

    def __init__(
        self,
        table,
        n_features: int,
        n_classes: int,
        root_label: int = 0,
        n_models: int = 0,
    ):
        regrets: dict = {}
        for tree in enumerate_trees(n_features, n_classes, n_models=n_models):
            targets: dict = {}
            for path, repl, new in tree_edges(tree, n_features, n_classes, n_models):
                assert new not in targets  # one edge per target: colours distinct
                targets[new] = colour_regret(table, path, repl, n_features, n_classes)
            regrets[tree] = targets
        super().__init__(leaf(root_label), regrets)


class TreeRefreshSimulator:
    """Reference tree sampler that *simulates* each site's refresh chain.

    Independent of the engine's closed-form ages: a site that has existed for a
    finite time ``A`` gets a Poisson(``W A``) number of clock rings at uniform
    times; every ring draws one colour with probability proportional to
    ``Rtilde+`` and applies it if it is an edge (a leaf over a different
    content; a stump on a variable the node does not already split on). The
    subtrees below a split are created, as the stump's two leaves, at the ring
    that created the split. A site with ``A = inf`` is in its stationary regime:
    content ``pi_x = w_x / W`` and, for a split, the backward time to the
    ring that created it, Exp(``q``) with ``q`` the rate of leaving it (inf if 0).

    The flags plant deliberate bugs for the power tests:

    * ``child_horizon="inf"``: children drawn from their stationary law.
    * ``child_horizon="parent"``: children inherit the parent site's horizon
      instead of the age of its current split.
    * ``same_variable_resets=True``: a stump on the variable the node already
      splits on is treated as an edge (it resets the children).
    """

    def __init__(
        self,
        table,
        n_features: int,
        n_classes: int,
        child_horizon: str = "age",
        same_variable_resets: bool = False,
    ):
        self.n_features, self.n_classes = n_features, n_classes
        self.child_horizon = child_horizon
        self.same_variable_resets = same_variable_resets
        k = n_classes
        self.colours = {}  # path -> (list of colours, cdf, total, weight per split)
        for path in table.keys():
            rates = site_rates(table, path, n_features, n_classes)
            colours = [("leaf", c) for c in range(k)] + [
                ("stump", v, ct, cf)
                for v in range(n_features)
                for ct in range(k)
                for cf in range(k)
            ]
            columns = [column(c, n_features, k) for c in colours]
            assert columns == list(range(len(rates)))
            split_w = rates[k:].reshape(n_features, k * k).sum(axis=1)
            self.colours[path] = (
                colours,
                np.cumsum(rates),
                float(rates.sum()),
                split_w,
            )

    def sample(self, rng: np.random.Generator, root_label: int = 0) -> tuple:
        return self._site(rng, (), root_label, math.inf)

    def _draw_colour(self, rng, path):
        colours, cdf, total, _ = self.colours[path]
        index = int(np.searchsorted(cdf, rng.random() * total, side="right"))
        return colours[min(index, len(colours) - 1)]

    def _site(self, rng, path, start, horizon):
        if path not in self.colours or self.colours[path][2] <= 0.0:
            return leaf(start)
        _, _, total, split_w = self.colours[path]
        if horizon == math.inf:
            colour = self._draw_colour(rng, path)
            if colour[0] == "leaf":
                return leaf(colour[1])
            v = colour[1]
            q = total if self.same_variable_resets else total - split_w[v]
            # Relative cancellation cannot make a lone split leavable.
            if split_w[v] >= total * (1 - 1e-12) and not self.same_variable_resets:
                q = 0.0
            age = rng.exponential(1.0 / q) if q > 0 else math.inf
            return self._children(rng, path, colour, age, horizon)
        content, created, colour_of_run = leaf(start), 0.0, None
        n_rings = rng.poisson(total * horizon)
        for time in np.sort(rng.random(n_rings) * horizon):
            colour = self._draw_colour(rng, path)
            if colour[0] == "leaf":
                content, colour_of_run = leaf(colour[1]), None
            elif (
                content[0] != "split"
                or content[1] != colour[1]
                or self.same_variable_resets
            ):
                content, created, colour_of_run = ("split", colour[1]), time, colour
        if colour_of_run is None:
            return content
        return self._children(rng, path, colour_of_run, horizon - created, horizon)

    def _children(self, rng, path, stump, age, horizon):
        _, v, ct, cf = stump
        below = {"age": age, "inf": math.inf, "parent": horizon}[self.child_horizon]
        return split(
            v,
            self._site(rng, path + ((v, 1),), ct, below),
            self._site(rng, path + ((v, 0),), cf, below),
        )
