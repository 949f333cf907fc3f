"""The colored-regret-matching engine shared by every learner.

It knows regret tables, the paper's biased update and the samplers of the
stationary distribution ``pi^t`` (Requirement 2); it knows nothing of ``X``,
``y`` or scikit-learn. Locality graphs (:mod:`sklearn_localregret.locality`)
map actions and utilities onto it.

* :class:`RegretTable` -- biased and unbiased regret per colour, discounted
  lazily through one global scale (:class:`DiscountClock`); rows by key, their
  versions and the clock come from :class:`KeyedRows`.
* :class:`StumpRegretTable` -- the same for leaf and stump colours, factored
  (decision trees: ``O(n_tests * K)`` numbers per site).
* :func:`site_distributions`, :func:`sample_product` -- product sites (exact).
* :class:`HierarchicalSampler` -- decision-tree sites with ``L = inf`` (exact);
  :class:`HierarchicalLabels` -- what its trees predict, without drawing.
* :class:`FiniteChainSampler` -- per-edge regrets, any ``L`` (exact).
* :class:`UniformizedChainSampler` -- colored regrets, finite ``L`` (MCMC).
* :class:`PathIndex` -- the integer child links of a path-keyed table;
  :mod:`~sklearn_localregret.engine.compiled` -- the compiled kernels of the
  tree rounds and predictions, over the tables' flat arrays.
"""

from .discount_clock import DiscountClock
from .finite_chain import FiniteChainSampler, reachable_generator, stationary_from_root
from .hierarchical_labels import HierarchicalLabels
from .hierarchical_sampler import HierarchicalSampler, truncated_exponential
from .keyed_rows import FORGET_EVERY, FORGET_TOLERANCE, KeyedRows, forget_tolerance
from .mcmc import UniformizedChainSampler
from .path_index import PathIndex
from .product_sampler import (
    binary_site_probabilities,
    sample_product,
    site_distributions,
)
from .rate_graph import RateGraph
from .regret_table import RegretTable
from .stump_pairs import positive_pair_marginals, positive_pair_sums
from .stump_table import StumpRegretTable

__all__ = [
    "FORGET_EVERY",
    "FORGET_TOLERANCE",
    "DiscountClock",
    "FiniteChainSampler",
    "HierarchicalLabels",
    "HierarchicalSampler",
    "KeyedRows",
    "PathIndex",
    "RateGraph",
    "RegretTable",
    "StumpRegretTable",
    "UniformizedChainSampler",
    "binary_site_probabilities",
    "forget_tolerance",
    "reachable_generator",
    "sample_product",
    "site_distributions",
    "positive_pair_marginals",
    "positive_pair_sums",
    "stationary_from_root",
    "truncated_exponential",
]
