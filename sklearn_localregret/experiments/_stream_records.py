"""A leaderboard run's record: one learner on one seed's version of a stream.

:class:`RunRecord` holds what one run measured; ``SCALARS`` names the numbers
that :class:`~._stream_report.Leaderboard` summarises over seeds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["RunRecord"]

SCALARS = (
    "error",
    "window_error",
    "played_error",
    "rows_per_second",
    "peak_memory_mb",
)


@dataclass
class RunRecord:
    """One run: a learner on one seed's version of a stream.

    ``status`` is "ok", "failed" (``message`` says why) or "n/a" (a
    binary-only learner on a multi-class stream). ``curve`` is the windowed
    error at the rows ``curve_rows``; ``peak_memory_mb`` is None when not
    measured. ``played_error`` is the ``online_error_`` of learners that
    record one (ours: the error of the randomised plays), else None.
    """

    stream: str
    learner: str
    seed: int
    status: str = "failed"
    message: str = ""
    n_rows: int = 0
    error: float | None = None
    window_error: float | None = None
    played_error: float | None = None
    seconds: float | None = None
    rows_per_second: float | None = None
    peak_memory_mb: float | None = None
    curve_rows: list = field(default_factory=list)
    curve: list = field(default_factory=list)

    def scalars(self) -> dict:
        """Everything but the curve."""
        row = asdict(self)
        del row["curve_rows"], row["curve"]
        return row
