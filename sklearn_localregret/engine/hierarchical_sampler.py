"""Exact sampler for hierarchical sites: the decision-tree colouring, L = inf.

A site is a path of tests from the root; its colours are "replace the subtree
here by leaf c" (one colour per class) and "replace it by the stump
(v, c_true, c_false)" (``K * K`` colours per test ``v``), whose regrets the
:class:`~sklearn_localregret.engine.StumpRegretTable` keeps. Each site runs a
*refresh chain* (:ref:`engine-sites`): a Poisson clock of rate ``W`` (the site's
total positive regret) redraws the content from ``pi_x = w_x / W``. Sites below a
split exist only since that split was created and restart as the stump's leaves,
so the stationary tree is drawn top-down: the root site from its stationary
distribution, every child site from its refresh chain run for the age of its
parent's split.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .stump_table import StumpRegretTable

__all__ = ["HierarchicalSampler", "truncated_exponential"]


def truncated_exponential(rate: float, upper: float, rng: np.random.Generator) -> float:
    """Draw from Exp(``rate``) conditioned on being at most ``upper`` (exact).

    ``rate = 0`` gives the uniform distribution on ``[0, upper]``.

    Examples
    --------
    >>> import numpy as np
    >>> x = truncated_exponential(5.0, 0.1, np.random.default_rng(0))
    >>> 0.0 <= x <= 0.1
    True
    """
    return _truncated_exponential(rate, upper, rng.random())


def _truncated_exponential(rate: float, upper: float, u: float) -> float:
    """:func:`truncated_exponential` by inversion of the uniform ``u``."""
    if rate * upper <= 0.0:
        return u * upper
    return -math.log1p(u * math.expm1(-rate * upper)) / rate


class _Uniforms:
    """Uniforms on [0, 1) from ``rng``, drawn in blocks (a scalar draw is slow)."""

    __slots__ = ("rng", "block", "i")

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.block: list[float] = []
        self.i = 0

    def __call__(self) -> float:
        i = self.i
        if i == len(self.block):
            self.block = self.rng.random(32).tolist()
            i = 0
        self.i = i + 1
        return self.block[i]


class HierarchicalSampler:
    """Draw a tree from the stationary distribution of colored regret matching.

    Exact for ``L = inf`` (no redirect to the root). Costs
    O(size of the drawn tree) Python steps: the content weights of every site
    come from the table's cache (:meth:`StumpRegretTable.site`), which is
    recomputed, vectorised, only for the rows that changed.

    Parameters
    ----------
    table : StumpRegretTable
        Colour regrets; row keys are paths, tuples of ``(test, branch)`` pairs
        with ``branch`` 1 for the "test is true" child.
    make_leaf : callable ``(label) -> node``
    make_split : callable ``(test, true_child, false_child) -> node``
        Build the returned tree; by default nested tuples ``("leaf", c)`` and
        ``("split", v, true_child, false_child)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.engine import StumpRegretTable
    >>> table = StumpRegretTable(n_classes=2, n_tests=1)
    >>> row = table.row(())
    >>> # Test 0 separates the labels: true -> 1, false -> 0.
    >>> table.update([row], np.zeros((1, 2)), np.zeros((1, 2), bool),
    ...              true_counts=np.array([[[0.0, 3.0]]]),
    ...              class_counts=np.array([[3.0, 3.0]]), correct=np.array([3.0]),
    ...              test_mask=np.ones((1, 1), bool))
    >>> sampler = HierarchicalSampler(table)
    >>> sampler.sample(np.random.default_rng(0))
    ('split', 0, ('leaf', 1), ('leaf', 0))
    """

    def __init__(
        self,
        table: StumpRegretTable,
        make_leaf: Callable[[int], Any] | None = None,
        make_split: Callable[[int, Any, Any], Any] | None = None,
    ):
        self.table = table
        self.make_leaf = make_leaf or _tuple_leaf
        self.make_split = make_split or _tuple_split

    def refresh(self) -> None:
        """Bring the table's cached site weights up to date (see :meth:`sample`).

        Calling it right after an update keeps the cost out of the next draw,
        and leaves nothing for a reader (``predict``) to write.
        """
        self.table.refresh()

    # -- drawing ----------------------------------------------------------
    def sample(self, rng: np.random.Generator, root_label: int = 0) -> Any:
        """Draw one tree; the root site starts as the leaf ``root_label``."""
        self._check_root_label(root_label)
        self.refresh()
        return self._draw(_Uniforms(rng), (), root_label, math.inf)

    def _check_root_label(self, root_label) -> None:
        # A leaf colour: the classes, and the model leaf if the table has one.
        if not 0 <= root_label < self.table.n_leaves:
            raise ValueError(
                f"root_label must be a leaf colour in [0, {self.table.n_leaves}); "
                f"got {root_label!r}"
            )

    def _draw(self, uniform, path: tuple, start_label: int, horizon: float) -> Any:
        table = self.table
        row = table.find(path)
        if row < 0:
            return self.make_leaf(start_label)
        weights, cdf, total = table.site(row)
        if total <= 0.0:
            return self.make_leaf(start_label)
        # The clock (rate total) never rang during the horizon: starting content.
        if horizon < math.inf and uniform() < math.exp(-total * horizon):
            return self.make_leaf(start_label)
        k, n_leaves = table.n_classes, table.n_leaves
        content = _choose_cdf(cdf, weights, uniform())
        if content < n_leaves:  # a label, or the model leaf (label K)
            return self.make_leaf(content)
        v = content - n_leaves
        w = float(weights[content])
        q = total - w
        if q <= 1e-9 * total:
            # Cancellation: sum the other weights instead, so that q is exactly
            # 0 when v holds all the weight (then the split is never left).
            q = float(weights[:content].sum() + weights[content + 1 :].sum())
        pairs = table.pair_weights(row, v)
        c_true, c_false = divmod(_choose_cdf(np.cumsum(pairs), pairs, uniform()), k)
        age = _split_age(w, q, total, horizon, uniform)
        return self.make_split(
            v,
            self._draw(uniform, path + ((v, 1),), c_true, age),
            self._draw(uniform, path + ((v, 0),), c_false, age),
        )

    def sample_many(
        self, n_trees: int, rng: np.random.Generator, root_label: int = 0
    ) -> list:
        """Draw ``n_trees`` independent trees, vectorised across the trees.

        Every tree has the distribution of a :meth:`sample` draw. The trees
        are drawn site by site: all trees that reach a site draw its content
        (and a split's labels and age) in one vectorised step, so many trees
        (a Monte Carlo estimate of class probabilities) cost far less than as
        many :meth:`sample` calls. The uniforms are used in another order, so
        the trees are not those of repeated :meth:`sample` calls on ``rng``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret.engine import StumpRegretTable
        >>> table = StumpRegretTable(n_classes=2, n_tests=1)
        >>> table.update([table.row(())], np.zeros((1, 2)), np.zeros((1, 2), bool),
        ...              true_counts=np.array([[[0.0, 3.0]]]),
        ...              class_counts=np.array([[3.0, 3.0]]), correct=np.array([3.0]),
        ...              test_mask=np.ones((1, 1), bool))
        >>> sampler = HierarchicalSampler(table)
        >>> set(sampler.sample_many(1000, np.random.default_rng(0)))
        {('split', 0, ('leaf', 1), ('leaf', 0))}
        """
        self._check_root_label(root_label)
        self.refresh()
        nodes = _Nodes(max(4 * n_trees, 16))
        roots = nodes.add(n_trees)
        # Sites still to draw: (path, node ids, starting labels, horizons).
        pending = [
            (
                (),
                roots,
                np.full(n_trees, root_label, dtype=np.intp),
                np.full(n_trees, math.inf),
            )
        ]
        while pending:
            pending = [
                child
                for site in pending
                for child in self._draw_site(*site, rng, nodes)
            ]
        return nodes.build(n_trees, self.make_leaf, self.make_split)

    def _draw_site(self, path, ids, start, horizon, rng, nodes) -> list:
        """Draw the content of site ``path`` for the nodes ``ids`` (see _draw).

        Writes their labels or split variables into ``nodes`` and returns the
        child sites to draw, as ``(path, ids, start labels, horizons)``.
        """
        table = self.table
        row = table.find(path)
        total = table.site(row)[2] if row >= 0 else 0.0
        if total <= 0.0:
            nodes.label[ids] = start
            return []
        weights, cdf, _ = table.site(row)
        # Uniforms per node: clock, content, label pair, age branch, age.
        u = rng.random((len(ids), 5))
        idle = u[:, 0] < np.exp(-total * horizon)  # exp(-inf) = 0: never idle
        nodes.label[ids[idle]] = start[idle]
        busy = ~idle
        ids, horizon, u = ids[busy], horizon[busy], u[busy]
        k, n_leaves = table.n_classes, table.n_leaves
        content = _choose_cdf_many(cdf, weights, u[:, 1])
        leaf = content < n_leaves
        nodes.label[ids[leaf]] = content[leaf]
        children = []
        for v in np.unique(content[~leaf]).tolist():
            at = content == v
            v -= n_leaves
            at_v = n_leaves + v
            w = float(weights[at_v])
            q = total - w
            if q <= 1e-9 * total:  # as in _draw: q exactly 0 when v holds all
                q = float(weights[:at_v].sum() + weights[at_v + 1 :].sum())
            pairs = table.pair_weights(row, v)
            pair = _choose_cdf_many(np.cumsum(pairs), pairs, u[at, 2])
            age = _split_ages(w, q, total, horizon[at], u[at, 3], u[at, 4])
            split = ids[at]
            nodes.variable[split] = v
            true_ids, false_ids = nodes.add(len(split)), nodes.add(len(split))
            nodes.true_child[split] = true_ids
            nodes.false_child[split] = false_ids
            children.append((path + ((v, 1),), true_ids, pair // k, age))
            children.append((path + ((v, 0),), false_ids, pair % k, age))
        return children


class _Nodes:
    """The nodes of many trees being drawn, in growable arrays (parents first)."""

    def __init__(self, capacity: int):
        self.n = 0
        self.label = np.full(capacity, -1, dtype=np.intp)
        self.variable = np.full(capacity, -1, dtype=np.intp)
        self.true_child = np.full(capacity, -1, dtype=np.intp)
        self.false_child = np.full(capacity, -1, dtype=np.intp)

    def add(self, count: int) -> np.ndarray:
        """Ids of ``count`` new nodes."""
        if self.n + count > self.label.shape[0]:
            capacity = max(2 * self.label.shape[0], self.n + count)
            for name in ("label", "variable", "true_child", "false_child"):
                old = getattr(self, name)
                new = np.full(capacity, -1, dtype=np.intp)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)
        ids = np.arange(self.n, self.n + count)
        self.n += count
        return ids

    def build(self, n_roots: int, make_leaf, make_split) -> list:
        """The trees of the first ``n_roots`` nodes, built children first."""
        n = self.n
        label = self.label[:n].tolist()
        variable = self.variable[:n].tolist()
        true_child = self.true_child[:n].tolist()
        false_child = self.false_child[:n].tolist()
        built = [None] * n
        for i in range(n - 1, -1, -1):  # children have larger ids than parents
            if variable[i] < 0:
                built[i] = make_leaf(label[i])
            else:
                built[i] = make_split(
                    variable[i], built[true_child[i]], built[false_child[i]]
                )
        return built[:n_roots]


def _tuple_leaf(label):
    return ("leaf", label)


def _tuple_split(variable, true_child, false_child):
    return ("split", variable, true_child, false_child)


def _split_age(w: float, q: float, total: float, horizon: float, uniform) -> float:
    """Time since the current run of "split on v" began (:ref:`engine-trees`).

    ``w`` is the weight of "split on v", ``q`` the sum of the other weights and
    ``total = w + q`` the site's clock rate; ``horizon`` is how long the site
    has existed; ``uniform()`` returns uniforms on [0, 1).
    """
    if horizon == math.inf:
        return -math.log1p(-uniform()) / q if q > 0 else math.inf
    p_fresh = math.expm1(-q * horizon) / math.expm1(-total * horizon)
    if uniform() < p_fresh:
        return _truncated_exponential(q, horizon, uniform())
    return horizon - _truncated_exponential(w, horizon, uniform())


def _choose_cdf(cdf: np.ndarray, weights: np.ndarray, u: float) -> int:
    """Index ``i`` with probability ``weights[i] / sum``, by inversion of ``u``.

    ``cdf`` holds the cumulative sums of the non-negative ``weights``.
    """
    index = int(cdf.searchsorted(u * cdf[-1], "right"))
    # Guard the float edge u * total == cdf[-1] and zero-weight tails.
    while index >= len(weights) or weights[index] <= 0:
        index -= 1
    return index


def _split_ages(
    w: float,
    q: float,
    total: float,
    horizon: np.ndarray,
    branch: np.ndarray,
    u: np.ndarray,
) -> np.ndarray:
    """:func:`_split_age` for many nodes of one site and split variable.

    ``branch`` and ``u`` are uniforms: which part of the age density to draw
    from, and the draw; with an infinite horizon only ``u`` is used.
    """
    age = np.empty(horizon.shape)
    endless = np.isinf(horizon)
    if endless.any():
        age[endless] = -np.log1p(-u[endless]) / q if q > 0 else math.inf
    h = horizon[~endless]
    if h.size:
        uh, bh = u[~endless], branch[~endless]
        p_fresh = np.expm1(-q * h) / np.expm1(-total * h)
        fresh = bh < p_fresh
        age[~endless] = np.where(
            fresh,
            _truncated_exponentials(q, h, uh),
            h - _truncated_exponentials(w, h, uh),
        )
    return age


def _truncated_exponentials(rate: float, upper: np.ndarray, u: np.ndarray):
    """:func:`_truncated_exponential` for many uniforms and upper bounds."""
    if rate <= 0.0:
        return u * upper
    return -np.log1p(u * np.expm1(-rate * upper)) / rate


def _choose_cdf_many(cdf: np.ndarray, weights: np.ndarray, u: np.ndarray):
    """:func:`_choose_cdf` for many uniforms ``u`` at once."""
    index = np.minimum(cdf.searchsorted(u * cdf[-1], "right"), len(weights) - 1)
    # The same guard: step down to the nearest index with a positive weight.
    positive_at_or_below = np.maximum.accumulate(
        np.where(weights > 0, np.arange(len(weights)), -1)
    )
    return positive_at_or_below[index]
