"""The one limit on weights: rows' ``sample_weight`` and clauses' weights.

Regrets are sums of weights over all rounds, stored times a discount scale of
up to 1e100 (:class:`~sklearn_localregret.engine.DiscountClock`). With every
weight at most :data:`MAX_WEIGHT` the stored values stay below 1e200 times the
number of rows or clauses, far from overflow. The plays depend only on the
ratios of the weights, so larger weights can always be rescaled.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_WEIGHT", "first_too_large"]

MAX_WEIGHT = 1e100


def first_too_large(weights: np.ndarray) -> int | None:
    """Index of the first weight above :data:`MAX_WEIGHT`, or None.

    Examples
    --------
    >>> import numpy as np
    >>> first_too_large(np.array([1.0, 1e200])), first_too_large(np.ones(2))
    (1, None)
    """
    too_large = np.flatnonzero(np.asarray(weights) > MAX_WEIGHT)
    return int(too_large[0]) if too_large.size else None
