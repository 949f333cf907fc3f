"""The round counter and global scale of a discounted regret table.

With a discount ``lambda < 1`` every regret becomes ``lambda * R + r`` each
round. A table stores ``Q = R * s`` with one global scale ``s = lambda^-t``
(:ref:`engine-discounting`): a round multiplies ``s`` by ``1 / lambda`` and an
update adds ``r * s``, so a round costs nothing per untouched colour. When
``s`` passes ``RENORMALIZE_AT`` the table is divided by ``s`` once and ``s``
restarts at 1.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DiscountClock", "RENORMALIZE_AT", "SMALLEST_DISCOUNT", "check_discount"]

# The scale at which the stored regrets are brought back to true size.
RENORMALIZE_AT = 1e100

#: The smallest discount: the smallest normal float. A subnormal ``lambda``
#: underflows the products of a round to zero (the swap chain's stationary
#: distribution came out all zeros).
SMALLEST_DISCOUNT = float(np.finfo(float).tiny)


def check_discount(value, what: str = "discount") -> float:
    """``value`` as a discount: a number in ``[SMALLEST_DISCOUNT, 1]``.

    Examples
    --------
    >>> check_discount(0.99)
    0.99
    >>> check_discount(1e-310)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: discount must be a number in (0, 1], at least 2.23e-308 ...
    """
    from numbers import Real

    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{what} must be a number in (0, 1], got {value!r}.")
    if not SMALLEST_DISCOUNT <= float(value) <= 1.0:
        raise ValueError(
            f"{what} must be a number in (0, 1], at least {SMALLEST_DISCOUNT:.3g} "
            f"(a smaller one underflows), got {value!r}."
        )
    return float(value)


class DiscountClock:
    """Rounds, and the global scale ``lambda^-t`` of a discounted regret table.

    Shared by :class:`RegretTable` and
    :class:`~sklearn_localregret.engine.StumpRegretTable`: the owner of the
    round counter of a table, and of its effective number of rounds
    ``sum_{s <= t} lambda^(t - s)`` (``t`` when ``lambda = 1``).

    Parameters
    ----------
    discount : float, default=1.0
        ``lambda`` in (0, 1].

    Examples
    --------
    >>> clock = DiscountClock(0.5)
    >>> clock.tick(3), clock.n_rounds, clock.scale, clock.effective_rounds
    (False, 3, 8.0, 1.75)
    """

    #: The rounds the last tick started (clocks saved before it: one).
    last_tick: float = 1.0

    def __init__(self, discount: float = 1.0):
        self.discount = check_discount(float(discount))
        self.scale = 1.0
        self.n_rounds: float = 0  # a float once a round is a fraction
        self.n_resets = 0  # renormalisations: caches of stored rates go stale

    @property
    def effective_rounds(self) -> float:
        """``sum_{s=1}^{t} lambda^(t - s)``: the weight of the rounds so far."""
        if self.discount == 1.0:
            return float(self.n_rounds)
        return float(
            -np.expm1(self.n_rounds * np.log(self.discount)) / (1 - self.discount)
        )

    def scales(self, n: int) -> np.ndarray:
        """The scales of the next ``n`` rounds (``scale / lambda^k``, k = 1..n)."""
        if self.discount == 1.0:
            return np.full(n, self.scale)
        return self.scale * self.discount ** -np.arange(1, n + 1, dtype=float)

    def needs_renormalizing(self, n: float = 1) -> bool:
        """Whether ``n`` more rounds would take the scale past ``RENORMALIZE_AT``
        (or past any float: then even a reset scale cannot hold them)."""
        if self.discount == 1.0:
            return False
        try:
            return self.scale * self.discount**-n > RENORMALIZE_AT
        except OverflowError:
            return True

    def tick(self, n: float = 1) -> bool:
        """Start ``n`` new rounds; True if the scale must be reset first (then
        the caller divides its table by ``scale`` and calls :meth:`reset`).

        ``n`` may be a fraction: a round shorter than a full one (the tree
        learner's round of ``m < batch_size`` rows is ``m / batch_size``
        rounds) decays the regrets by ``lambda^n``; not negative, not NaN
        (regrets would grow, or all turn NaN for good)."""
        if not n >= 0:
            raise ValueError(f"rounds to start must be >= 0; got {n!r}")
        if self.needs_renormalizing(n):
            return True
        self.n_rounds += n
        self.last_tick = n
        if self.discount != 1.0:
            self.scale *= self.discount**-n
        return False

    def reset(self) -> None:
        """The table was divided by ``scale``: it is 1 again."""
        self.scale = 1.0
        self.n_resets += 1
