"""One fixed threshold for every feature."""

from __future__ import annotations

import numpy as np

from ._base import ThresholdSource

__all__ = ["FixedThresholds"]


class FixedThresholds(ThresholdSource):
    """The test ``x_j > threshold`` for every feature ``j``, from the first round.

    This is binarisation: each feature becomes one boolean, exactly as if the
    input had been replaced by ``X > threshold``.

    Parameters
    ----------
    threshold : float
        The threshold of every feature.

    Examples
    --------
    >>> import numpy as np
    >>> source = FixedThresholds(0.0)
    >>> source.start(n_features=3)
    >>> source.observe(np.array([[0.5, -1.0, 2.0]]))
    [(0, 0.0), (1, 0.0), (2, 0.0)]
    >>> source.complete, source.observe(np.array([[0.5, -1.0, 2.0]]))
    (True, [])
    """

    def __init__(self, threshold: float):
        self.threshold = float(threshold)

    def start(self, n_features: int) -> None:
        self.n_features = int(n_features)
        self.complete = False

    def observe(
        self, X: np.ndarray, rank=None, numeric=None
    ) -> list[tuple[int, float]]:
        if self.complete:
            return []
        self.complete = True
        return [(j, self.threshold) for j in range(self.n_features)]
