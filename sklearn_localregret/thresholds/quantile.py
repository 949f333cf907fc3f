"""Quantile thresholds from the first rows of the stream, refined at checkpoints."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ._base import ThresholdSource

__all__ = ["QuantileThresholds"]

# Salts the generator of a level_seed, so that a learner's level offsets are
# not the first draws of its own generator seeded the same.
_LEVELS_SALT = 0x1E7E15

#: Most rows of a late column's values kept (:meth:`QuantileThresholds.observe`):
#: a column with no value, or a single one, over the schedule's rows is
#: watched on until its thresholds come from its first values, or this many
#: rows after the schedule have passed without them.
LATE_ROWS = 2**16


class QuantileThresholds(ThresholdSource):
    """Thresholds at quantiles of each feature, entering as the stream grows.

    * A feature whose values in the first round are all 0 or 1 (missing
      values aside, and at least one value) gets the test ``x_j > 0.5`` at
      once. So 0/1 data (one-hot categories) gives exactly
      the paper's graph: one test per feature, all present from round one, in
      feature order.
    * At the checkpoints ``first_checkpoint * growth**k`` rows (``k = 0, 1,
      ...``) every feature is offered the quantile levels
      ``(2i - 1) / 2**(k + 1)`` of the rows seen so far: the median first,
      then the quartiles, the octiles, ... until ``max_thresholds`` are in
      place. A level's threshold is the midpoint between the quantile value
      and the next larger value seen, so a test always separates values that
      occurred (a feature with few distinct values gets few tests); a
      threshold already present is not added again.

    Missing values (NaN) are ignored: a feature's quantiles are those of the
    values it has, and a feature with none gets no threshold.

    Until a feature's first checkpoint its rows are still learned, by the
    leaves and the other features' tests; no row is set aside. Tests only
    enter, at most ``max_thresholds`` per feature, and after the last
    checkpoint the source is complete, unless a numeric feature has no
    threshold yet (no value so far, or a single value: a sensor not yet on,
    a column constant at first). Those *late* features are watched on: at
    the next checkpoints (``growth`` times the rows each), each is offered
    every level at once on its values since the schedule ended, until each
    has its thresholds, or :data:`LATE_ROWS` rows have been kept (or
    ``max_buffered_values`` values) without them; then the source is
    complete.

    **Refining the features that matter.** With ``refined_features=F`` every
    feature gets its median at the first checkpoint, and each later
    checkpoint offers its finer levels to ``F`` features only: those that
    ``rank()`` (given by the learner to :meth:`observe`) scores highest
    among the features that have new thresholds to offer (a 0/1 feature has
    none), ties to the lower index. On wide input most features are noise;
    their finer thresholds would cost memory in every site and dilute the
    draws.

    Parameters
    ----------
    max_thresholds : int, default=7
        Most tests per feature.
    first_checkpoint : int, default=16
        Rows seen at the first checkpoint.
    growth : int, default=4
        Factor between consecutive checkpoints.
    max_buffered_values : int, default=2**20
        Feature values kept to compute quantiles (the first
        ``max_buffered_values // n_features`` rows, at least one).
    refined_features : int or None, default=None
        How many features each checkpoint after the first refines (None:
        every feature).
    level_seed : int or None, default=None
        None: the levels above. An int: feature ``j``'s levels are shifted
        by its own offset ``s_j``, drawn uniformly from ``(-1/2, 1/2)``
        with this seed, to ``(2i - 1 + s_j) / 2**(k + 1)`` (by at most a
        quarter of the gap between a checkpoint's levels; the median becomes
        a quantile between the quartiles). A forest gives each member its
        own seed: members that place their thresholds apart average into a
        finer partition where the concept's boundaries are not at the
        quantiles. 0/1 features keep their one test ``x_j > 0.5``.

    Examples
    --------
    >>> import numpy as np
    >>> source = QuantileThresholds(max_thresholds=3, first_checkpoint=4)
    >>> source.start(n_features=2)
    >>> X = np.column_stack([[0, 1, 1, 0], [3.0, 1.0, 4.0, 2.0]])
    >>> source.observe(X[:2])       # feature 0 is 0/1 so far: 0.5 at once
    [(0, 0.5)]
    >>> source.observe(X[2:])       # 4 rows: the median of feature 1
    [(1, 2.5)]

    Refining one feature of three, the one ``rank`` scores highest:

    >>> source = QuantileThresholds(first_checkpoint=2, refined_features=1)
    >>> source.start(n_features=3)
    >>> X = np.arange(24.0).reshape(8, 3)
    >>> source.observe(X[:2])       # the medians of all three
    [(0, 1.5), (1, 2.5), (2, 3.5)]
    >>> source.observe(X[2:], rank=lambda: np.array([0.1, 0.5, 0.2]))
    [(1, 5.5), (1, 17.5)]

    Shifted levels: the same values, the median's place moved by the seed's
    offset.

    >>> source = QuantileThresholds(first_checkpoint=8, level_seed=0)
    >>> source.start(n_features=1)
    >>> source.observe(np.arange(8.0)[:, None])  # not 3.5
    [(0, 5.5)]
    """

    def __init__(
        self,
        max_thresholds: int = 7,
        first_checkpoint: int = 16,
        growth: int = 4,
        max_buffered_values: int = 2**20,
        refined_features: int | None = None,
        level_seed: int | None = None,
    ):
        for name, value, least in (
            ("max_thresholds", max_thresholds, 0),
            ("first_checkpoint", first_checkpoint, 1),
            ("growth", growth, 2),
            ("max_buffered_values", max_buffered_values, 1),
            (
                "refined_features",
                1 if refined_features is None else refined_features,
                1,
            ),
        ):
            if (
                not isinstance(value, Integral)
                or isinstance(value, bool)
                or value < least
            ):
                raise ValueError(f"{name} must be an int >= {least}; got {value!r}")
        self.max_thresholds = int(max_thresholds)
        self.first_checkpoint = int(first_checkpoint)
        self.growth = int(growth)
        self.max_buffered_values = int(max_buffered_values)
        self.refined_features = refined_features
        self.level_seed = None if level_seed is None else int(level_seed)

    def start(self, n_features: int) -> None:
        self.n_features = int(n_features)
        self.complete = self.max_thresholds < 1
        self._rows_seen = 0
        self._checkpoint = 0  # index k of the next checkpoint
        self._buffer: list[np.ndarray] = []
        self._buffered = 0
        self._buffer_rows = max(1, self.max_buffered_values // max(n_features, 1))
        self._chosen: list[set] = [set() for _ in range(n_features)]
        self._shifts = None  # the even levels
        if self.level_seed is not None:  # a stream of its own (salted)
            rng = np.random.default_rng([self.level_seed, _LEVELS_SALT])
            self._shifts = rng.uniform(-0.5, 0.5, n_features)

    # A set's order depends on its history: saved sorted, a loaded model
    # pickles as the one it was loaded from.
    def __getstate__(self):
        state = self.__dict__.copy()
        if "_chosen" in state:
            state["_chosen"] = [sorted(chosen) for chosen in state["_chosen"]]
        return state

    def __setstate__(self, state):
        state.setdefault("refined_features", None)  # saved before: all
        state.setdefault("level_seed", None)  # saved before: even levels
        self.__dict__.update(state)
        if "_chosen" in state:
            self._chosen = [set(chosen) for chosen in state["_chosen"]]

    def _next_checkpoint_rows(self) -> int:
        return self.first_checkpoint * self.growth**self._checkpoint

    def observe(
        self, X: np.ndarray, rank=None, numeric=None
    ) -> list[tuple[int, float]]:
        """See :meth:`ThresholdSource.observe`; ``numeric`` (a bool mask,
        default all) says which features may be late: the others (a
        catalog's categorical columns, NaN here) never get thresholds."""
        if self.complete:
            return []
        if self.__dict__.get("_late") is not None:
            return [pair for pair in self._observe_late(X) if pair is not None]
        new: list[tuple[int, float]] = []
        if self._rows_seen == 0 and X.shape[0]:
            missing = np.isnan(X)
            boolean = np.all((X == 0) | (X == 1) | missing, axis=0)
            boolean &= ~missing.all(axis=0)
            new.extend(self._add(j, 0.5) for j in np.flatnonzero(boolean).tolist())
        self._rows_seen += X.shape[0]
        room = self._buffer_rows - self._buffered
        if room > 0:
            kept = X[:room]
            self._buffer.append(np.array(kept, dtype=float))
            self._buffered += kept.shape[0]
        while not self.complete and self._rows_seen >= self._next_checkpoint_rows():
            new.extend(self._quantile_candidates(self._checkpoint, rank))
            self._checkpoint += 1
            if 2**self._checkpoint - 1 >= self.max_thresholds:
                self._end_schedule(numeric)
                break
        return [pair for pair in new if pair is not None]

    def _end_schedule(self, numeric) -> None:
        """The last checkpoint: complete, or the late features watched on."""
        self._buffer = []
        late = [
            j
            for j in range(self.n_features)
            if not self._chosen[j] and (numeric is None or numeric[j])
        ]
        if not late:
            self.complete = True
            return
        self._late: list[int] | None = late
        self._late_values: list[np.ndarray] = []
        self._late_kept = 0
        self._late_next = self._rows_seen * self.growth

    def _observe_late(self, X: np.ndarray) -> list:
        """A round's rows for the late features; at a checkpoint, the
        thresholds of those that have values enough (every level at once)."""
        late: list[int] = self.__dict__["_late"]
        self._rows_seen += X.shape[0]
        most = min(LATE_ROWS, max(1, self.max_buffered_values // len(late)))
        room = most - self._late_kept
        if room > 0:
            kept = np.array(X[:room][:, late], dtype=float)
            self._late_values.append(kept)
            self._late_kept += kept.shape[0]
        if self._rows_seen < self._late_next:
            return []
        self._late_next *= self.growth
        values = np.sort(np.concatenate(self._late_values), axis=0)  # NaN last
        counts = values.shape[0] - np.isnan(values).sum(axis=0)
        gaps = 2 ** max(1, int(np.ceil(np.log2(self.max_thresholds + 1))))
        shifts = self.__dict__.get("_shifts")
        new: list = []
        waiting: list[int] = []
        for i, j in enumerate(late):
            shift = 0.0 if shifts is None else shifts[j]
            levels = (np.arange(1, gaps) + shift) / gaps
            column = values[: int(counts[i]), i]
            offer = []
            if column.size:
                offer = self._level_thresholds(column, levels, self.max_thresholds, j)
            new.extend(self._add(j, t) for t in offer)
            if not offer:
                waiting.append(i)
        if not waiting or self._late_kept >= most:
            self.complete = True
            self._late, self._late_values = None, []
        else:
            self._late = [late[i] for i in waiting]
            self._late_values = [v[:, waiting] for v in self._late_values]
        return new

    def _add(self, feature: int, threshold: float):
        chosen = self._chosen[feature]
        if threshold in chosen or len(chosen) >= self.max_thresholds:
            return None
        chosen.add(threshold)
        return feature, threshold

    def _quantile_candidates(self, k: int, rank=None) -> list:
        values = np.sort(np.concatenate(self._buffer), axis=0)  # NaN last
        counts = values.shape[0] - np.isnan(values).sum(axis=0)
        odd = 2 * np.arange(1, 2**k + 1) - 1
        shifts = self.__dict__.get("_shifts")  # even levels: None or absent
        offers = {}  # feature -> its new thresholds, in increasing feature
        for j in range(self.n_features):
            room = self.max_thresholds - len(self._chosen[j])
            n = int(counts[j])
            if room > 0 and n > 0:
                shift = 0.0 if shifts is None else shifts[j]
                levels = (odd + shift) / 2 ** (k + 1)
                offer = self._level_thresholds(values[:n, j], levels, room, j)
                if offer:
                    offers[j] = offer
        limit = self.refined_features
        if k and limit is not None and len(offers) > limit:
            # Only the features that have something new compete for a place.
            scores = np.zeros(self.n_features) if rank is None else rank()
            kept = sorted(offers, key=lambda j: -scores[j])[:limit]  # stable
            offers = {j: offers[j] for j in sorted(kept)}
        return [self._add(j, t) for j, offer in offers.items() for t in offer]

    def _level_thresholds(
        self, column: np.ndarray, levels: np.ndarray, room: int, j: int
    ) -> list[float]:
        """Feature ``j``'s new thresholds at quantile ``levels`` of its sorted
        values ``column``, at most ``room``."""
        n, chosen, offer = column.shape[0], self._chosen[j], []
        # The value with a fraction ``level`` of the rows at or below it.
        at = np.maximum(np.ceil(levels * n).astype(int) - 1, 0)
        if room < len(at):  # spread the last few evenly over the levels
            at = at[np.linspace(0, len(at) - 1, room).round().astype(int)]
        for low in np.unique(column[at]).tolist():
            above = int(np.searchsorted(column, low, side="right"))
            if above == n:  # the largest value: split it from those below
                below = int(np.searchsorted(column, low, side="left"))
                if below == 0:
                    continue  # a single value
                low, above = float(column[below - 1]), below
            high = float(column[above])
            threshold = low + (high - low) / 2
            if not low <= threshold < high:  # adjacent floats
                threshold = low
            if threshold not in chosen and threshold not in offer:
                offer.append(threshold)
        return offer[:room]
