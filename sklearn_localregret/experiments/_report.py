"""What every experiment shares: curves, their intervals, tables, CSV and plots.

An experiment produces, per learner, one curve per trial (a value per round).
A :class:`CurveSet` (one panel of a figure) turns them into a mean curve with a
95% confidence interval at every round (:mod:`._intervals` says which interval
and why), :func:`write_csv` writes every plotted number, :func:`plot_panels`
draws the panels (matplotlib, imported only when plotting) and
:func:`format_table` prints the summary tables.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._intervals import LEVEL, MIN_TRIALS, format_estimate, mean_interval, rate_interval
from ._output import atomic_write
from ._styles import style

__all__ = [
    "CurveSet",
    "Summary",
    "sliding_mean",
    "window_outcomes",
    "panels_document",
    "write_csv",
    "plot_panels",
    "pyplot",
    "format_table",
]


def sliding_mean(values, window: int = 100) -> np.ndarray:
    """Mean of the last ``window`` values at every round (fewer at the start).

    The paper's curves: "the fraction over the previous 100 rounds".

    Examples
    --------
    >>> sliding_mean([1, 0, 1, 1], window=2)
    array([1. , 0.5, 0.5, 1. ])
    """
    values = np.asarray(values, dtype=float)
    cumulative = np.concatenate(([0.0], np.cumsum(values)))
    rounds = np.arange(1, len(values) + 1)
    start = np.maximum(rounds - window, 0)
    return (cumulative[rounds] - cumulative[start]) / (rounds - start)


def window_outcomes(n_rounds: int, window: int, per_round: int = 1) -> np.ndarray:
    """Outcomes behind each point of a :func:`sliding_mean` curve.

    Examples
    --------
    >>> window_outcomes(4, window=2, per_round=5)
    array([ 5, 10, 10, 10])
    """
    return np.minimum(np.arange(1, n_rounds + 1), window) * per_round


@dataclass(frozen=True)
class Summary:
    """A mean curve over trials with its interval bounds (NaN: no interval).

    ``n_trials`` is None for an exact curve (an expectation known in closed
    form), which has no interval.
    """

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_trials: int | None
    method: str

    def format(self, point: int = -1, digits: int = 3) -> str:
        """The value at ``point`` (default: the last) as table text."""
        return format_estimate(
            float(self.mean[point]),
            float(self.low[point]),
            float(self.high[point]),
            self.n_trials,
            digits,
        )

    @property
    def has_interval(self) -> bool:
        return self.n_trials is not None and not np.all(np.isnan(self.low))


@dataclass
class CurveSet:
    """Curves of several learners over trials, for one panel of a figure.

    Parameters
    ----------
    title : str
        Panel title.
    ylabel : str
        What the curves measure.
    kind : {"rate", "mean"}, default="rate"
        ``"rate"``: each trial's value is a fraction of 0/1 outcomes, in
        [0, 1] (Korn-Graubard intervals; :meth:`add` needs ``n_outcomes``).
        ``"mean"``: a non-negative average (Student-t intervals, cut at 0).
    """

    title: str
    ylabel: str
    kind: str = "rate"
    curves: dict[str, list[np.ndarray]] = field(default_factory=dict)
    outcomes: dict[str, np.ndarray] = field(default_factory=dict)
    exact: dict[str, np.ndarray] = field(default_factory=dict)
    scalars: dict[str, list[float]] = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in ("rate", "mean"):
            raise ValueError(f"kind must be 'rate' or 'mean', got {self.kind!r}.")

    @property
    def learners(self) -> list[str]:
        """Learners in the order they were first added, exact curves included."""
        return list(dict.fromkeys([*self.curves, *self.exact]))

    def add(self, learner: str, curve, n_outcomes=None) -> None:
        """Record one trial's curve for ``learner``.

        For a ``"rate"`` panel, ``n_outcomes`` (an int or one per point) is the
        number of 0/1 outcomes behind each value; it must be the same in every
        trial.
        """
        curve = np.asarray(curve, dtype=float)
        if self.kind == "rate":
            if n_outcomes is None:
                raise ValueError("a rate panel needs n_outcomes for every curve.")
            n_outcomes = np.broadcast_to(np.asarray(n_outcomes), curve.shape).copy()
            known = self.outcomes.setdefault(learner, n_outcomes)
            if not np.array_equal(known, n_outcomes):
                raise ValueError(f"{learner!r}: n_outcomes differs between trials.")
        self.curves.setdefault(learner, []).append(curve)

    def add_exact(self, learner: str, curve) -> None:
        """Record a curve known exactly (e.g. random guessing's 1/2)."""
        self.exact[learner] = np.asarray(curve, dtype=float)

    def add_scalar(self, name: str, value: float) -> None:
        """Record one trial's value of a summary count (e.g. non-zero regrets)."""
        self.scalars.setdefault(name, []).append(float(value))

    def summary(self, learner: str) -> Summary:
        """Mean curve over trials and its 95% interval at every point.

        Examples
        --------
        >>> panel = CurveSet("demo", "error")
        >>> for errors in ([0.1, 0.2], [0.3, 0.2], [0.2, 0.2]):
        ...     panel.add("a", errors, n_outcomes=100)
        >>> panel.summary("a").format(point=0)
        '0.200 [0.025, 0.557]'
        >>> panel.add_exact("random guessing", [0.5, 0.5])
        >>> panel.summary("random guessing").format()
        '0.500'
        """
        if learner in self.exact:
            curve = self.exact[learner]
            return Summary(curve, curve, curve, None, "exact")
        samples = np.vstack(self.curves[learner])
        if self.kind == "rate":
            low, high = rate_interval(samples, self.outcomes[learner])
            method = "korn-graubard"
        else:
            low, high = mean_interval(samples, lower=0.0)
            method = "student-t"
        if len(samples) < MIN_TRIALS:
            method = "n/a"
        return Summary(samples.mean(axis=0), low, high, len(samples), method)

    def scalar(self, name: str) -> Summary:
        """Mean of a summary count over trials and its Student-t interval."""
        values = np.asarray(self.scalars[name])
        low, high = mean_interval(values, lower=0.0)
        method = "student-t" if len(values) >= MIN_TRIALS else "n/a"
        return Summary(np.array([values.mean()]), low, high, len(values), method)

    def n_trials(self) -> int:
        """Trials behind the panel's measured curves (0 if only exact ones)."""
        return max((len(c) for c in self.curves.values()), default=0)


def _nullable(values: np.ndarray) -> list:
    return [None if np.isnan(v) else float(v) for v in values]


def panels_document(panels: dict[str, CurveSet]) -> dict:
    """Every plotted number as JSON-ready dicts (NaN bounds become null)."""
    document = {}
    for key, panel in panels.items():
        entry: dict = {
            "title": panel.title,
            "ylabel": panel.ylabel,
            "kind": panel.kind,
            "curves": {},
            "scalars": {},
        }
        for learner in panel.learners:
            s = panel.summary(learner)
            entry["curves"][learner] = {
                "mean": s.mean.tolist(),
                "low": _nullable(s.low),
                "high": _nullable(s.high),
                "n_trials": s.n_trials,
                "interval": s.method,
            }
        for name in panel.scalars:
            s = panel.scalar(name)
            entry["scalars"][name] = {
                "mean": float(s.mean[0]),
                "low": _nullable(s.low)[0],
                "high": _nullable(s.high)[0],
                "n_trials": s.n_trials,
                "interval": s.method,
            }
        document[key] = entry
    return document


def write_csv(panels: dict[str, CurveSet], path: str | Path) -> Path:
    """One row per (panel, learner, round): mean, 95% bounds, trials, method.

    Bounds are empty where there is no interval (too few trials); an exact
    curve has no trials and its bounds equal its mean.
    """

    def write(temporary: Path) -> None:
        with temporary.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(
                [
                    "panel",
                    "learner",
                    "round",
                    "mean",
                    "low",
                    "high",
                    "n_trials",
                    "interval",
                ]
            )
            for key, panel in panels.items():
                for learner in panel.learners:
                    s = panel.summary(learner)
                    trials = "" if s.n_trials is None else s.n_trials
                    for t in range(len(s.mean)):
                        writer.writerow(
                            [
                                key,
                                learner,
                                t + 1,
                                f"{s.mean[t]:.6g}",
                                _cell(s.low[t]),
                                _cell(s.high[t]),
                                trials,
                                s.method,
                            ]
                        )

    return atomic_write(path, write)


def _cell(value: float) -> str:
    return "" if np.isnan(value) else f"{value:.6g}"


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or None (said on stderr).

    matplotlib is an optional extra: without it the experiments write their
    numbers and skip the plots.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write(
            "matplotlib is not installed: no plots (pip install "
            "'sklearn-localregret[plot]')\n"
        )
        return None
    return plt


def plot_panels(panels: dict[str, CurveSet], path: str | Path) -> Path | None:
    """Draw the panels side by side into a PNG; None without matplotlib.

    Bands are the 95% intervals, so they stay where the quantity lives
    (rates in [0, 1], averages at or above 0); a panel with too few trials
    for an interval says so instead of drawing bands.
    """
    plt = pyplot()
    if plt is None:
        return None
    n = len(panels)
    cols = min(n, 2)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(
        rows, cols, figsize=(6.4 * cols, 4.2 * rows + 0.6), squeeze=False
    )
    handles: dict = {}
    for ax, panel in zip(axes.ravel(), panels.values()):
        for line in _draw_panel(ax, panel):
            handles.setdefault(line.get_label(), line)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    # A learner looks the same in every panel (._styles), so one legend below
    # the panels serves them all and covers no curve.
    legend = fig.legend(
        list(handles.values()),
        list(handles),
        loc="lower center",
        ncol=min(len(handles), 5),
        fontsize=9,
        frameon=False,
    )
    fig.canvas.draw()
    height = legend.get_window_extent().height / fig.bbox.height
    fig.tight_layout(rect=(0, height + 0.01, 1, 1))

    def save(temporary: Path) -> None:
        fig.savefig(temporary, dpi=120, format="png")

    try:
        return atomic_write(path, save)
    finally:
        plt.close(fig)


def _pairs_if_alternating(x: np.ndarray, y: np.ndarray):
    """An exact curve that goes up and down every round, as the mean of each
    pair of rounds; any other curve unchanged.

    The best label on alternating labels errs every other round: over the
    first ``t < 100`` rounds its window error is ``ceil(t / 2) / t``, 1/2 at
    even rounds and above at odd ones. Drawn round by round at two rounds a
    pixel, the zigzag filled a solid block; the pairs' means are the curve it
    oscillates around (the CSV keeps every round).

    Examples
    --------
    >>> t = np.arange(1, 7)
    >>> _pairs_if_alternating(t, np.ceil(t / 2) / t)[1]
    array([0.75      , 0.58333333, 0.55      ])
    >>> _pairs_if_alternating(t, np.full(6, 0.5))[1]
    array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    """
    moves = np.diff(y)
    moves = moves[moves != 0]  # (flat stretches neither turn nor go on)
    turns = np.count_nonzero(moves[:-1] * moves[1:] < 0)
    if len(y) < 4 or len(moves) < 2 or turns < len(moves) / 2:
        return x, y
    n = len(y) // 2 * 2
    return x[:n].reshape(-1, 2).mean(axis=1), y[:n].reshape(-1, 2).mean(axis=1)


def _draw_panel(ax, panel: CurveSet) -> list:
    """Draw one panel; return its lines (for the figure's legend)."""
    lines = []
    for learner in panel.learners:
        s = panel.summary(learner)
        x, y = np.arange(1, len(s.mean) + 1), s.mean
        if s.n_trials is None:
            x, y = _pairs_if_alternating(x, y)
        (line,) = ax.plot(x, y, label=learner, **style(learner, len(x)))
        lines.append(line)
        if s.has_interval:
            ax.fill_between(x, s.low, s.high, color=line.get_color(), alpha=0.2, lw=0)
    n_trials = panel.n_trials()
    note = (
        f"{LEVEL:.0%} intervals over {n_trials} trials"
        if n_trials >= MIN_TRIALS
        else f"no intervals: {n_trials} trial{'' if n_trials == 1 else 's'} "
        f"(they need {MIN_TRIALS})"
    )
    # Only a thin margin beyond what the quantity can take, so that curves
    # at exactly 0 or 1 stay visible off the frame.
    bottom, top = ax.get_ylim()
    if panel.kind == "rate":
        ax.set_ylim(max(bottom, -0.02), min(top, 1.02))
    else:
        ax.set_ylim(max(bottom, -0.02 * top), top)
    ax.set_title(panel.title)
    ax.set_xlabel(f"round ({note})")
    ax.set_ylabel(panel.ylabel)
    ax.grid(alpha=0.3)
    return lines


def format_table(rows: list[list[str]], header: list[str]) -> str:
    """A plain-text table with aligned columns.

    Examples
    --------
    >>> print(format_table([["a", "0.1"]], ["learner", "error"]))
    learner  error
    -------  -----
    a        0.1
    """
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows
    ]
    return "\n".join(lines)
