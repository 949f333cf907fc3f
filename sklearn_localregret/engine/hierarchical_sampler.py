"""Exact sampler for hierarchical sites: the decision-tree colouring, L = inf.

A site is a path of tests from the root; its colours are "replace the subtree
here by leaf c" (one colour per class) and "replace it by the stump
(v, c_true, c_false)" (``K * K`` colours per variable ``v``). Each site runs a
*refresh chain* (ENGINE.md section 3): a Poisson clock of rate ``W`` (the site's
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

from .regret_table import RegretTable

__all__ = ["HierarchicalSampler", "stump_column", "truncated_exponential"]


def stump_column(variable: int, c_true: int, c_false: int, n_classes: int) -> int:
    """Column of colour "stump on ``variable`` with leaves (c_true, c_false)".

    Leaves ``0 .. n_classes - 1`` come first, then stumps variable by variable.

    Examples
    --------
    >>> stump_column(0, 0, 0, n_classes=2), stump_column(1, 1, 0, n_classes=2)
    (2, 8)
    """
    return n_classes + (variable * n_classes + c_true) * n_classes + c_false


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
    u = rng.random()
    if rate * upper <= 0.0:
        return u * upper
    return -math.log1p(u * math.expm1(-rate * upper)) / rate


class HierarchicalSampler:
    """Draw a tree from the stationary distribution of colored regret matching.

    Exact for ``L = inf`` (no redirect to the root). Costs
    O(size of the drawn tree x colours per site); the per-site work is numpy.

    Parameters
    ----------
    table : RegretTable
        Colour regrets; row keys are paths, tuples of ``(variable, branch)`` pairs
        with ``branch`` 1 for the "variable is true" child. The row layout is
        ``n_classes`` leaf colours followed by ``n_features * n_classes**2`` stump
        colours (see :func:`stump_column`).
    n_features, n_classes : int
        Shape of the colouring.
    make_leaf : callable ``(label) -> node``
    make_split : callable ``(variable, true_child, false_child) -> node``
        Build the returned tree; by default nested tuples ``("leaf", c)`` and
        ``("split", v, true_child, false_child)``.

    Examples
    --------
    >>> import numpy as np
    >>> table = RegretTable(width=2 + 1 * 4)
    >>> row = table.row(())
    >>> table.update_entries([row], [stump_column(0, 1, 0, 2)], [3.0])
    >>> sampler = HierarchicalSampler(table, n_features=1, n_classes=2)
    >>> sampler.sample(np.random.default_rng(0))
    ('split', 0, ('leaf', 1), ('leaf', 0))
    """

    def __init__(
        self,
        table: RegretTable,
        n_features: int,
        n_classes: int,
        make_leaf: Callable[[int], Any] | None = None,
        make_split: Callable[[int, Any, Any], Any] | None = None,
    ):
        self.table = table
        self.n_features = n_features
        self.n_classes = n_classes
        self.make_leaf = make_leaf or (lambda c: ("leaf", c))
        self.make_split = make_split or (lambda v, t, f: ("split", v, t, f))

    def site_weights(self, row: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Leaf weights (K,), split weights (n,) and stump rates (n, K*K) of a row."""
        rates = np.maximum(self.table._biased[row], 0.0)
        k = self.n_classes
        stumps = rates[k:].reshape(self.n_features, k * k)
        return rates[:k], stumps.sum(axis=1), stumps

    def sample(self, rng: np.random.Generator, root_label: int = 0) -> Any:
        """Draw one tree; the root site starts as the leaf ``root_label``."""
        return self._draw(rng, (), root_label, math.inf)

    def _draw(self, rng, path: tuple, start_label: int, horizon: float) -> Any:
        row = self.table.find(path)
        if row < 0:
            return self.make_leaf(start_label)
        leaf_w, split_w, stumps = self.site_weights(row)
        total = leaf_w.sum() + split_w.sum()
        if total <= 0.0:
            return self.make_leaf(start_label)
        # The clock (rate total) never rang during the horizon: starting content.
        if horizon < math.inf and rng.random() < math.exp(-total * horizon):
            return self.make_leaf(start_label)
        k = self.n_classes
        content = _choose(np.concatenate((leaf_w, split_w)), rng)
        if content < k:
            return self.make_leaf(content)
        v = content - k
        pair = _choose(stumps[v], rng)
        c_true, c_false = divmod(pair, k)
        age = self._split_age(leaf_w, split_w, v, total, horizon, rng)
        return self.make_split(
            v,
            self._draw(rng, path + ((v, 1),), c_true, age),
            self._draw(rng, path + ((v, 0),), c_false, age),
        )

    @staticmethod
    def _split_age(leaf_w, split_w, v, total, horizon, rng) -> float:
        """Time since the current run of "split on v" began (ENGINE.md 3.3)."""
        w = split_w[v]
        # Sum the other weights directly so that q is exactly 0 when v holds all.
        q = leaf_w.sum() + split_w[:v].sum() + split_w[v + 1:].sum()
        if horizon == math.inf:
            return rng.exponential(1.0 / q) if q > 0 else math.inf
        p_fresh = math.expm1(-q * horizon) / math.expm1(-total * horizon)
        if rng.random() < p_fresh:
            return truncated_exponential(q, horizon, rng)
        return horizon - truncated_exponential(w, horizon, rng)


def _choose(weights: np.ndarray, rng: np.random.Generator) -> int:
    """Index drawn with probability proportional to ``weights`` (never a zero)."""
    cdf = np.cumsum(weights)
    index = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
    # Guard the float edge u * total == cdf[-1] and zero-weight tails.
    while index >= len(weights) or weights[index] <= 0:
        index -= 1
    return index


