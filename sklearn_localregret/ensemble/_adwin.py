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
package does not depend on River. The histogram lives in arrays and is
updated by a compiled kernel: a forest feeds one detector per member on
every row, and a Python version took 11 us for a round of 5 rows, this one
1.5 us.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine.compiled.jit import inline_kernel, kernel

__all__ = ["ADWIN"]

# Rows of the histogram: row i holds buckets of 2**i values, so 64 rows hold
# more values than any stream has.
_ROWS = 64
# _scalars: width, total, variance (sum of squared deviations); _counters:
# rows in use, ticks since the window was emptied.
_WIDTH, _TOTAL, _VARIANCE = 0, 1, 2
_N_ROWS, _TICK = 0, 1


@inline_kernel
def _insert(value, totals, variances, counts, scalars, counters, max_buckets):
    width = scalars[_WIDTH]
    if width > 0.0:
        deviation = value - scalars[_TOTAL] / width
        scalars[_VARIANCE] += width * deviation * deviation / (width + 1.0)
    scalars[_WIDTH] = width + 1.0
    scalars[_TOTAL] += value
    totals[0, counts[0]] = value
    variances[0, counts[0]] = 0.0
    counts[0] += 1
    # A full row passes its two oldest buckets, merged, to the next row.
    i = 0
    while counts[i] > max_buckets:
        size = float(2**i)
        gap = totals[i, 0] / size - totals[i, 1] / size
        j = counts[i + 1]
        totals[i + 1, j] = totals[i, 0] + totals[i, 1]
        variances[i + 1, j] = variances[i, 0] + variances[i, 1] + size * gap * gap / 2
        counts[i + 1] += 1
        for k in range(2, counts[i]):
            totals[i, k - 2] = totals[i, k]
            variances[i, k - 2] = variances[i, k]
        counts[i] -= 2
        if i + 2 > counters[_N_ROWS]:
            counters[_N_ROWS] = i + 2
        i += 1


@inline_kernel
def _separates(n0, n1, gap, width, variance, delta, min_window):
    log_term = math.log(2.0 * math.log(width) / delta)
    m = 1.0 / (n0 - min_window + 1.0) + 1.0 / (n1 - min_window + 1.0)
    spread = 2.0 * m * (variance / width) * log_term
    if not spread >= 0.0:  # rounding left the variance below 0: no test
        return False
    return abs(gap) > math.sqrt(spread) + 2.0 / 3.0 * log_term * m


@inline_kernel
def _separated(totals, counts, scalars, counters, delta, min_window, rising_only):
    """Whether a cut of the window separates its older and newer means: 1
    (a drift), -1 (with ``rising_only``, the mean fell: a cut not reported),
    0 (none)."""
    width, variance = scalars[_WIDTH], scalars[_VARIANCE]
    n0, u0 = 0.0, 0.0
    n1, u1 = width, scalars[_TOTAL]
    for i in range(counters[_N_ROWS] - 1, -1, -1):
        size = float(2**i)
        for k in range(counts[i]):
            n0 += size
            n1 -= size
            u0 += totals[i, k]
            u1 -= totals[i, k]
            if i == 0 and k == counts[i] - 1:
                return 0  # the newest bucket: W1 would be empty
            gap = u0 / n0 - u1 / n1  # older mean minus newer
            if (
                n0 >= min_window
                and n1 >= min_window
                and _separates(n0, n1, gap, width, variance, delta, min_window)
            ):
                return -1 if rising_only and gap >= 0.0 else 1
    return 0


@kernel
def _update_many(
    values, totals, variances, counts, scalars, counters,
    delta, clock, max_buckets, min_window, grace, rising_only,
):  # fmt: skip
    """Add ``values`` until a drift: the index of its value, else -1."""
    for i in range(values.shape[0]):
        _insert(values[i], totals, variances, counts, scalars, counters, max_buckets)
        counters[_TICK] += 1
        if counters[_TICK] % clock == 0 and scalars[_WIDTH] > grace:
            cut = _separated(
                totals, counts, scalars, counters, delta, min_window, rising_only
            )
            if cut == 1:
                return i
            if cut == -1:  # the mean fell: the window starts again, unreported
                _empty_window(totals, variances, counts, scalars, counters)
    return -1


@inline_kernel
def _empty_window(totals, variances, counts, scalars, counters) -> None:
    totals[:] = 0.0
    variances[:] = 0.0
    counts[:] = 0
    scalars[:] = 0.0
    counters[_N_ROWS] = 1
    counters[_TICK] = 0


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
        drifting; MOA's ARF acts only on a rise of its trees' error too. A
        cut after which the mean fell still starts the window again (not
        reported), as MOA's change detector does: kept, the older, higher
        values would hide a later rise. River's ADWIN tests both sides
        (False).

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
        if not 0.0 < float(delta) < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {delta!r}")
        for name, value, low in (
            ("clock", clock, 1),
            ("max_buckets", max_buckets, 2),  # a full row merges its two oldest
            ("min_window_length", min_window_length, 1),
            ("grace_period", grace_period, 0),
        ):
            if isinstance(value, bool) or int(value) != value or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        self.delta = float(delta)
        self.clock = int(clock)
        self.max_buckets = int(max_buckets)
        self.min_window_length = int(min_window_length)
        self.grace_period = int(grace_period)
        self.rising_only = bool(rising_only)
        self.n_detections = 0
        self._empty()

    def _empty(self) -> None:
        # Row i: the totals and variances of its buckets of 2**i values,
        # oldest first (one slot more than max_buckets: a full row merges).
        self._totals = np.zeros((_ROWS, self.max_buckets + 1))
        self._variances = np.zeros((_ROWS, self.max_buckets + 1))
        self._counts = np.zeros(_ROWS, dtype=np.int64)
        self._scalars = np.zeros(3)
        self._counters = np.array([1, 0], dtype=np.int64)

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
        return self.update_many(np.array([float(value)])) is not None

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
        values = np.asarray(values, dtype=np.float64)
        if not np.isfinite(values).all():  # one NaN: a NaN mean for good
            raise ValueError("ADWIN values must be finite numbers")
        at = _update_many(
            values,
            self._totals,
            self._variances,
            self._counts,
            self._scalars,
            self._counters,
            self.delta,
            self.clock,
            self.max_buckets,
            float(self.min_window_length),
            float(self.grace_period),
            self.rising_only,
        )
        if at < 0:
            return None
        self.n_detections += 1
        self._empty()
        return int(at)

    def inconsistency(self) -> str | None:
        """What in a loaded detector's state the kernel could not read safely
        (a forged or damaged file), or None.

        Examples
        --------
        >>> adwin = ADWIN()
        >>> adwin.inconsistency() is None
        True
        >>> adwin._counts[3] = 9
        >>> adwin.inconsistency()
        'bucket counts outside 0..5 or rows in use outside 1..63'
        """
        shape = (_ROWS, self.max_buckets + 1)
        if not (self.max_buckets >= 2 and self.clock >= 1):
            return f"max_buckets {self.max_buckets} < 2 or clock {self.clock} < 1"
        if not (
            self._totals.shape == self._variances.shape == shape
            and self._counts.shape == (_ROWS,)
            and self._scalars.shape == (3,)
            and self._counters.shape == (2,)
        ):
            return f"histogram arrays not of shape {shape}"
        rows = int(self._counters[_N_ROWS])
        if not (
            0 <= self._counts.min()
            and self._counts.max() <= self.max_buckets
            and 1 <= rows < _ROWS
        ):
            return (
                f"bucket counts outside 0..{self.max_buckets} or rows in use "
                f"outside 1..{_ROWS - 1}"
            )
        return None

    @property
    def width(self) -> int:
        """Values in the window."""
        return int(self._scalars[_WIDTH])

    @property
    def estimation(self) -> float:
        """Mean of the window (0 when empty)."""
        width = self._scalars[_WIDTH]
        return float(self._scalars[_TOTAL] / width) if width else 0.0
