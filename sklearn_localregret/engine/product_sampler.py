"""Exact sampler for product sites: independent regret matching per site.

Used by colourings whose colours at a site mean "set this site's content to x"
and whose sites are independent (the hypercube's 2n colouring with L >= n,
:ref:`engine-hypercube`): the stationary distribution is the product of the
per-site distributions ``pi_x = w_x / W``, and a site with ``W = 0`` keeps the
root's content (Requirement 2(e) of the paper).
"""

from __future__ import annotations

import numpy as np

__all__ = ["site_distributions", "sample_product", "binary_site_probabilities"]


def site_distributions(rates: np.ndarray, root_content: np.ndarray) -> np.ndarray:
    """Per-site stationary distributions over contents.

    Parameters
    ----------
    rates : ndarray of shape (n_sites, n_contents)
        Non-negative rate into each content (``Rtilde+`` of its colour, or the sum
        over the colours that lead to it).
    root_content : ndarray of int of shape (n_sites,)
        Content of the root action at each site, kept when the site has no rate.

    Returns
    -------
    ndarray of shape (n_sites, n_contents)
        Row ``k`` is ``rates[k] / rates[k].sum()``, or a point mass on
        ``root_content[k]`` when that sum is 0.

    Examples
    --------
    >>> import numpy as np
    >>> site_distributions(np.array([[1.0, 3.0], [0.0, 0.0]]), np.array([0, 0]))
    array([[0.25, 0.75],
           [1.  , 0.  ]])
    """
    rates = _checked_rates(rates)
    with np.errstate(over="ignore"):  # (an overflow is caught below)
        total = rates.sum(axis=1, keepdims=True)
    if np.isinf(total).any():  # a sum past the largest float: over the largest
        top = rates.max(axis=1, keepdims=True, initial=0.0)
        rates = np.divide(rates, top, out=np.zeros_like(rates), where=top > 0)
        total = rates.sum(axis=1, keepdims=True)
    out = np.divide(rates, total, out=np.zeros_like(rates), where=total > 0)
    idle = total[:, 0] <= 0
    out[idle, np.asarray(root_content)[idle]] = 1.0
    return out


def binary_site_probabilities(rate_off: np.ndarray, rate_on: np.ndarray) -> np.ndarray:
    """``P(content = 1)`` per two-content site; 0 (the root's content) if idle.

    Examples
    --------
    >>> import numpy as np
    >>> binary_site_probabilities(np.array([1.0, 0.0, 0.0]), np.array([3.0, 2.0, 0.0]))
    array([0.75, 1.  , 0.  ])
    """
    rate_off, rate_on = _checked_rates(rate_off), _checked_rates(rate_on)
    with np.errstate(over="ignore"):  # (an overflow is caught below)
        total = rate_off + rate_on  # (broadcast, as numpy does)
    if np.isinf(total).any():  # two rates near the largest float: halved
        rate_off, rate_on = rate_off / 2, rate_on / 2
        total = rate_off + rate_on
    return np.divide(
        rate_on, total, out=np.zeros_like(total, dtype=float), where=total > 0
    )


def sample_product(distributions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one content per site, independently, by inverse CDF (O(n_sites)).

    Examples
    --------
    >>> import numpy as np
    >>> dist = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> sample_product(dist, np.random.default_rng(0))
    array([1, 0])
    """
    if np.ndim(distributions) != 2 or np.shape(distributions)[1] == 0:
        raise ValueError("distributions must be 2-D, a content at least per site")
    cdf = np.cumsum(distributions, axis=1)
    u = rng.random(int(distributions.shape[0]))[:, None] * cdf[:, -1:]
    return np.minimum((u >= cdf).sum(axis=1), distributions.shape[1] - 1)


def _checked_rates(rates) -> np.ndarray:
    """``rates`` as floats, refused unless finite and non-negative (a
    negative rate made "probabilities" of 1.5 and -0.5)."""
    rates = np.asarray(rates, dtype=float)
    # (NaN fails the first test; two reductions, no temporaries)
    if not (rates.min(initial=0.0) >= 0 and rates.max(initial=0.0) < np.inf):
        raise ValueError("rates must be finite and non-negative")
    return rates
