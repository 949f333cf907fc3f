"""The category codes the catalogue of tests takes: whole numbers, bounded.

A categorical column's tests are ``x_j == c`` for the codes ``c`` its
encoder gave (0, 1, ... below its ``max_categories``); the catalogue keeps a
mark per code up to the largest met. A code given directly (the public
:class:`~sklearn_localregret.thresholds.ThresholdTests`) that is negative
marked another code's test as present (numpy wraps the index), a fraction
was truncated onto its whole part, and a huge one asked for terabytes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LARGEST_CODE", "check_codes"]

#: Category codes are whole numbers below this.
LARGEST_CODE = 2**20


def check_codes(codes: np.ndarray) -> None:
    """Refuse codes that are not whole numbers in ``[0, LARGEST_CODE)``
    (NaN, a missing value, aside).

    Examples
    --------
    >>> import numpy as np
    >>> check_codes(np.array([[0.0, 2.0], [np.nan, 1.0]]))
    >>> check_codes(np.array([[-1.0]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: category codes must be whole numbers in [0, 1048576); got ...
    """
    known = codes[~np.isnan(codes)]
    if known.size and not (
        known.min() >= 0
        and known.max() < LARGEST_CODE
        and (known == np.floor(known)).all()
    ):
        raise ValueError(
            f"category codes must be whole numbers in [0, {LARGEST_CODE}); "
            f"got values in [{float(known.min())!r}, {float(known.max())!r}]"
        )
