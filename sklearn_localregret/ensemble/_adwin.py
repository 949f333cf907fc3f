"""ADWIN: a drift detector on a stream of numbers (here a member's 0/1 losses).

ADWIN (adaptive windowing, Bifet and Gavalda 2007) keeps the recent values in
an exponential histogram (ADWIN2: rows of buckets, row ``i`` summarising
``2**i`` values each, at most ``max_buckets`` per row) and, every ``clock``
values, tests every cut of the window into an older part ``W0`` and a newer
part ``W1``: if their means differ by more than

``eps = sqrt(2 m var ln(2 ln(n) / delta)) + 2/3 m ln(2 ln(n) / delta)``

(``m = 1/(n0 - w + 1) + 1/(n1 - w + 1)``, ``w`` the shortest part allowed,
``var`` the window's variance, ``n`` its width) a drift is reported and the
window starts again empty (River drops old buckets until no cut separates,
then empties it at the next value: the same detections). It detects the same
drifts as River's ``river.drift.ADWIN`` with the same parameters
(``tests/test_forest_drift.py`` compares them), written here so that the
package does not depend on River.
"""

from __future__ import annotations

import math

__all__ = ["ADWIN"]


class ADWIN:
    """Adaptive windowing drift detector.

    Parameters
    ----------
    delta : float, default=0.002
        Significance of each test: smaller detects fewer and later drifts.
    clock : int, default=32
        Values between two tests of the window.
    max_buckets : int, default=5
        Buckets per row of the histogram before the two oldest merge.
    min_window_length : int, default=5
        Fewest values on either side of a cut.
    grace_period : int, default=10
        Values before the first test.
    rising_only : bool, default=False
        Report only cuts after which the mean rose (a one-sided test). For a
        stream of losses, a learner whose error falls is learning, not
        drifting; MOA's ARF acts only on a rise of its trees' error too.
        River's ADWIN tests both sides (False).

    Attributes
    ----------
    width : int
        Values in the window.
    n_detections : int
        Drifts detected so far.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> adwin = ADWIN()
    >>> stream = np.concatenate([rng.random(1000) < 0.1, rng.random(1000) < 0.6])
    >>> [i for i, x in enumerate(stream) if adwin.update(float(x))]
    [1023]
    >>> adwin.n_detections, adwin.width
    (1, 976)
    """

    def __init__(
        self,
        delta=0.002,
        clock=32,
        max_buckets=5,
        min_window_length=5,
        grace_period=10,
        rising_only=False,
    ):
        self.delta = float(delta)
        self.clock = int(clock)
        self.max_buckets = int(max_buckets)
        self.min_window_length = int(min_window_length)
        self.grace_period = int(grace_period)
        self.rising_only = bool(rising_only)
        self.n_detections = 0
        self._empty()

    def _empty(self) -> None:
        # rows[i]: [total, variance] of the buckets of 2**i values, oldest first.
        self.rows: list[list[list[float]]] = [[]]
        self.width = 0
        self.total = 0.0
        self.variance = 0.0  # sum of squared deviations over the window
        self._tick = 0

    def update(self, value: float) -> bool:
        """Add ``value``; whether a drift was detected (a test ran and cut).

        After a drift the window starts again empty, as River's does.

        Parameters
        ----------
        value : float

        Returns
        -------
        bool
        """
        self._insert(float(value))
        self._tick += 1
        if self._tick % self.clock or self.width <= self.grace_period:
            return False
        if not self._separated():
            return False
        self.n_detections += 1
        self._empty()
        return True

    def update_many(self, values) -> int | None:
        """Add ``values`` in order until a drift; the index of the value it
        was detected at (the later ones are not added), or None.

        The same as calling :meth:`update` on each, faster.

        Examples
        --------
        >>> losses = [0.0] * 400 + [1.0] * 100
        >>> ADWIN().update_many(losses)
        415
        """
        clock, grace = self.clock, self.grace_period
        insert = self._insert
        for i, value in enumerate(values):
            insert(float(value))
            self._tick += 1
            if self._tick % clock == 0 and self.width > grace and self._separated():
                self.n_detections += 1
                self._empty()
                return i
        return None

    def _insert(self, value: float) -> None:
        width = self.width
        if width:
            deviation = value - self.total / width
            self.variance += width * deviation * deviation / (width + 1)
        self.width = width + 1
        self.total += value
        row = self.rows[0]
        row.append([value, 0.0])
        if len(row) > self.max_buckets:
            self._merge()

    def _merge(self) -> None:
        """Each full row passes its two oldest buckets, merged, to the next."""
        i = 0
        while len(self.rows[i]) > self.max_buckets:
            (t0, v0), (t1, v1) = self.rows[i][0], self.rows[i][1]
            size = float(2**i)
            gap = t0 / size - t1 / size
            if i + 1 == len(self.rows):
                self.rows.append([])
            self.rows[i + 1].append([t0 + t1, v0 + v1 + size * gap * gap / 2])
            del self.rows[i][:2]
            i += 1

    def _separated(self) -> bool:
        """Whether a cut of the window separates its older and newer means."""
        n0, u0 = 0.0, 0.0
        n1, u1 = float(self.width), self.total
        last = len(self.rows) - 1
        for i in range(last, -1, -1):
            size = float(2**i)
            row = self.rows[i]
            for k, (total, _) in enumerate(row):
                n0 += size
                n1 -= size
                u0 += total
                u1 -= total
                if i == 0 and k == len(row) - 1:
                    return False  # the newest bucket: W1 would be empty
                if (
                    n0 >= self.min_window_length
                    and n1 >= self.min_window_length
                    and self._separates(n0, n1, u0 / n0 - u1 / n1)
                ):
                    return True
        return False

    def _separates(self, n0: float, n1: float, gap: float) -> bool:
        if self.rising_only and gap >= 0.0:  # gap: older mean minus newer
            return False
        w = self.min_window_length
        log_term = math.log(2.0 * math.log(self.width) / self.delta)
        m = 1.0 / (n0 - w + 1.0) + 1.0 / (n1 - w + 1.0)
        spread = 2.0 * m * (self.variance / self.width) * log_term
        if not spread >= 0.0:  # rounding left the variance below 0: no test
            return False
        return abs(gap) > math.sqrt(spread) + 2.0 / 3.0 * log_term * m

    @property
    def estimation(self) -> float:
        """Mean of the window (0 when empty)."""
        return self.total / self.width if self.width else 0.0
