"""Exact sampler for binary sites with group removals (``L = inf``).

The colouring: every site ``k`` (a bit) has the two colours "set bit ``k`` to
``x``" with rates ``w[k, x]`` (the colours' ``Rtilde+``), and every *group*
``j`` (a set ``G_j`` of sites) has one colour "set every bit of ``G_j`` to 0"
with rate ``r_j``, an edge out of every vertex with a bit of ``G_j`` set
(:ref:`exact sampling with removal sets <removal-sets-sampler>`). Its chain
is a set of independent Poisson clocks:

* a site clock of rate ``W_k = w[k, 0] + w[k, 1]`` redraws bit ``k``, 1 with
  probability ``w[k, 1] / W_k`` (a redraw of the current bit changes nothing);
* a group clock of rate ``r_j`` clears the bits of ``G_j`` (a ring on a group
  with no bit set changes nothing).

Started at the root (all bits 0) long ago, bit ``k`` is decided by the last
ring that touched it. Looking back from now the last ring of site ``k`` was
``Exp(W_k)`` ago and that of group ``j`` ``E_j ~ Exp(r_j)`` ago, all
independent; write ``G_k = min_{j : k in G_j} E_j`` (infinite if no group
with a positive rate holds ``k``). So, exactly:

* given the group times, the bits are independent and
  ``P(bit k = 1 | E) = (w[k, 1] / W_k) (1 - exp(-W_k G_k))``, 0 if
  ``W_k = 0`` (the root's bit);
* marginally ``G_k ~ Exp(rho_k)`` with ``rho_k = sum_{j : k in G_j} r_j``, so
  ``P(bit k = 1) = w[k, 1] / (W_k + rho_k)``;
* bits that share a group are dependent: one ring clears them all.

A draw costs one uniform per site and one per group, ``O(n + sum_j |G_j|)``.
Without groups (or with all ``r_j = 0``) it is the product sampler of the
hypercube, bit for bit: ``u W_k < w[k, 1]``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "draw",
    "draw_sites",
    "group_clock_times",
    "latest_group_ring",
    "marginal_on_probabilities",
    "on_probabilities",
]


def group_clock_times(group_rates: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Time since each group's last ring, ``Exp(r_j)`` by inversion of a uniform.

    Parameters
    ----------
    group_rates : ndarray of shape (m,)
        ``r_j``; a group with ``r_j <= 0`` never rings (infinite time).
    uniforms : ndarray of shape (m,) or (n_draws, m)
        Uniforms on ``[0, 1)``, one per group and draw.

    Returns
    -------
    ndarray of the shape of ``uniforms``

    Examples
    --------
    >>> import numpy as np
    >>> group_clock_times(np.array([2.0, 0.0]), np.array([0.5, 0.5]))
    array([0.34657359,        inf])
    """
    rates = np.asarray(group_rates, dtype=float)
    uniforms = np.asarray(uniforms)
    ringing = np.flatnonzero(rates > 0)  # only their uniforms are transformed
    times = np.full(uniforms.shape, np.inf)
    times[..., ringing] = -np.log1p(-uniforms[..., ringing]) / rates[ringing]
    return times


def latest_group_ring(members: np.ndarray, times: np.ndarray) -> np.ndarray:
    """``G_k``: the time since the last ring of any group that holds site ``k``.

    Parameters
    ----------
    members : ndarray of bool or 0/1 of shape (m, n)
        Row ``j`` is the indicator of ``G_j``.
    times : ndarray of shape (m,) or (n_draws, m)
        Time since each group's last ring (:func:`group_clock_times`).

    Returns
    -------
    ndarray of shape (n,) or (n_draws, n)
        Infinite for a site that no ringing group holds.

    Examples
    --------
    >>> import numpy as np
    >>> members = np.array([[1, 1, 0], [0, 1, 0]])
    >>> latest_group_ring(members, np.array([2.0, 0.5]))
    array([2. , 0.5, inf])
    """
    members = np.asarray(members).astype(bool)
    times = np.asarray(times, dtype=float)
    single = times.ndim == 1
    times = np.atleast_2d(times)
    latest = np.full((times.shape[0], members.shape[1]), np.inf)
    # Only groups that ring somewhere matter; usually few do.
    for j in np.flatnonzero(np.isfinite(times).any(axis=0)):
        sites = np.flatnonzero(members[j])
        latest[:, sites] = np.minimum(latest[:, sites], times[:, j : j + 1])
    return latest[0] if single else latest


def _fresh_fraction(total: np.ndarray, latest: np.ndarray) -> np.ndarray:
    """``1 - exp(-W_k G_k)``: P(the site rang since its last group removal).

    1 for ``G_k = inf`` (no removal ever) and 0 for ``W_k = 0``, without the
    ``0 * inf`` of the formula.
    """
    total, latest = np.broadcast_arrays(np.asarray(total, dtype=float), latest)
    finite = np.isfinite(latest)
    # Where G is infinite the product is replaced (0 * inf would be nan).
    exponent = -total * np.where(finite, latest, 0.0)
    return np.where(finite, -np.expm1(exponent), 1.0)


def on_probabilities(
    rate_off: np.ndarray, rate_on: np.ndarray, latest: np.ndarray | None = None
) -> np.ndarray:
    """``P(bit k = 1)`` given the group times ``G_k`` (independent given them).

    Parameters
    ----------
    rate_off, rate_on : ndarray of shape (n,)
        ``w[k, 0]`` and ``w[k, 1]``, non-negative.
    latest : ndarray of shape (n,) or (n_draws, n), default=None
        :func:`latest_group_ring`; None means no group rings (the product).

    Returns
    -------
    ndarray of the shape of ``latest`` (or (n,))

    Examples
    --------
    >>> import numpy as np
    >>> on_probabilities(np.array([1.0, 0.0]), np.array([3.0, 0.0]))
    array([0.75, 0.  ])
    >>> on_probabilities(np.array([1.0]), np.array([3.0]), np.array([np.log(2) / 4]))
    array([0.375])
    """
    total = np.asarray(rate_off, dtype=float) + np.asarray(rate_on, dtype=float)
    pi = np.divide(rate_on, total, out=np.zeros_like(total), where=total > 0)
    if latest is None:
        return pi
    return pi * _fresh_fraction(total, latest)


def draw_sites(
    rate_off: np.ndarray, rate_on: np.ndarray, latest: np.ndarray, uniforms: np.ndarray
) -> np.ndarray:
    """Bits from site uniforms given the group times: 1 iff ``u < P(bit = 1 | G)``.

    Computed as ``u W_k < w[k, 1] (1 - exp(-W_k G_k))``, without division, so
    that with ``G_k = inf`` it is exactly the hypercube's product draw
    ``u W_k < w[k, 1]`` (a site with ``W_k = 0`` keeps the root's 0).

    Parameters
    ----------
    rate_off, rate_on : ndarray of shape (n,)
    latest : ndarray of shape (n,) or (n_draws, n)
    uniforms : ndarray of the shape of ``latest``

    Returns
    -------
    ndarray of bool of the shape of ``uniforms``

    Examples
    --------
    >>> import numpy as np
    >>> off, on = np.array([1.0, 1.0]), np.array([3.0, 3.0])
    >>> draw_sites(off, on, np.array([np.inf, 1e-9]), np.array([0.5, 0.5]))
    array([ True, False])
    """
    rate_on = np.asarray(rate_on, dtype=float)
    total = np.asarray(rate_off, dtype=float) + rate_on
    return uniforms * total < rate_on * _fresh_fraction(total, latest)


def draw(
    rate_off: np.ndarray,
    rate_on: np.ndarray,
    members: np.ndarray,
    group_rates: np.ndarray,
    site_uniforms: np.ndarray,
    group_uniforms: np.ndarray,
) -> np.ndarray:
    """Exact draws of the bits: :func:`draw_sites` given the group clocks.

    The same bits as ``draw_sites(rate_off, rate_on, latest_group_ring(members,
    group_clock_times(group_rates, group_uniforms)), site_uniforms)``, but the
    group times are only looked at for the bits the product draw would set
    (``u W_k < w[k, 1]``): a group ring can only clear a bit, so the others are
    0 whatever the clocks say. Usually few bits are set, so a draw costs
    ``O(n + m)`` per row instead of ``O(n m)``.

    Parameters
    ----------
    rate_off, rate_on : ndarray of shape (n,)
    members : ndarray of shape (m, n)
    group_rates : ndarray of shape (m,)
    site_uniforms : ndarray of shape (n,) or (n_draws, n)
    group_uniforms : ndarray of shape (m,) or (n_draws, m)

    Returns
    -------
    ndarray of bool of the shape of ``site_uniforms``

    Examples
    --------
    >>> import numpy as np
    >>> off, on = np.array([1.0, 1.0, 0.0]), np.array([3.0, 3.0, 1.0])
    >>> members, rates = np.array([[0, 1, 0]]), np.array([1e9])
    >>> draw(off, on, members, rates, np.full(3, 0.5), np.array([0.5]))
    array([ True, False,  True])
    """
    rate_on = np.asarray(rate_on, dtype=float)
    total = np.asarray(rate_off, dtype=float) + rate_on
    site_uniforms = np.asarray(site_uniforms)
    bits = site_uniforms * total < rate_on
    group_rates = np.asarray(group_rates)
    ringing = np.flatnonzero(group_rates > 0)
    if not len(ringing) or not bits.any():
        return bits
    members = np.asarray(members)[ringing].astype(bool)
    out = np.atleast_2d(bits).copy()
    # Only the set bits that a ringing group holds can be cleared.
    rows, sites = np.nonzero(out & members.any(axis=0))
    if not len(rows):
        return bits
    times = group_clock_times(
        group_rates[ringing], np.atleast_2d(group_uniforms)[:, ringing]
    )
    latest = np.where(members[:, sites].T, times[rows], np.inf).min(axis=1)
    keep = np.atleast_2d(site_uniforms)[rows, sites] * total[sites] < rate_on[
        sites
    ] * _fresh_fraction(total[sites], latest)
    out[rows[~keep], sites[~keep]] = False
    return out.reshape(bits.shape)


def marginal_on_probabilities(
    rate_off: np.ndarray,
    rate_on: np.ndarray,
    members: np.ndarray,
    group_rates: np.ndarray,
) -> np.ndarray:
    """Exact ``P(bit k = 1) = w[k, 1] / (W_k + rho_k)``, ``rho_k`` its groups' rates.

    Parameters
    ----------
    rate_off, rate_on : ndarray of shape (n,)
    members : ndarray of shape (m, n)
    group_rates : ndarray of shape (m,)
        Non-positive rates count as 0.

    Examples
    --------
    >>> import numpy as np
    >>> marginal_on_probabilities(np.array([1.0, 0.0]), np.array([3.0, 2.0]),
    ...                           np.array([[1, 1]]), np.array([4.0]))
    array([0.375     , 0.33333333])
    """
    rho = np.maximum(np.asarray(group_rates, dtype=float), 0.0) @ np.asarray(
        members, dtype=float
    )
    total = np.asarray(rate_off, dtype=float) + rate_on + rho
    return np.divide(rate_on, total, out=np.zeros_like(total), where=total > 0)
