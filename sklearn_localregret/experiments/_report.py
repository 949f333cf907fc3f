"""What every experiment shares: curves, confidence intervals, progress, output.

An experiment produces, per learner, one curve per trial (a value per round).
:class:`CurveSet` turns those into a mean curve with a 95% confidence interval
(Student t over trials), :func:`write_results` writes them as CSV and JSON, and
:func:`plot_panels` draws them (matplotlib, imported only when plotting).
"""

from __future__ import annotations

import csv
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

__all__ = [
    "CurveSet",
    "Progress",
    "sliding_mean",
    "write_results",
    "plot_panels",
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


@dataclass
class CurveSet:
    """Curves of several learners over trials, for one panel of a figure.

    Parameters
    ----------
    title : str
        Panel title.
    ylabel : str
        What the curves measure.
    """

    title: str
    ylabel: str
    curves: dict[str, list[np.ndarray]] = field(default_factory=dict)
    scalars: dict[str, list[float]] = field(default_factory=dict)

    def add(self, learner: str, curve) -> None:
        """Record one trial's curve for ``learner``."""
        self.curves.setdefault(learner, []).append(np.asarray(curve, dtype=float))

    def add_scalar(self, name: str, value: float) -> None:
        """Record one trial's value of a summary number (e.g. non-zero regrets)."""
        self.scalars.setdefault(name, []).append(float(value))

    def summary(self, learner: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean curve and 95% confidence half-width over trials.

        Examples
        --------
        >>> panel = CurveSet("demo", "error")
        >>> panel.add("a", [0.0, 1.0]); panel.add("a", [1.0, 1.0])
        >>> mean, half = panel.summary("a")
        >>> mean
        array([0.5, 1. ])
        >>> half.round(2)
        array([6.35, 0.  ])
        """
        return mean_ci(np.vstack(self.curves[learner]))

    def final(self, learner: str) -> tuple[float, float]:
        """Mean and 95% half-width of the last round's value."""
        mean, half = self.summary(learner)
        return float(mean[-1]), float(half[-1])

    def scalar(self, name: str) -> tuple[float, float]:
        """Mean and 95% half-width of a summary number over trials."""
        mean, half = mean_ci(np.asarray(self.scalars[name])[:, None])
        return float(mean[0]), float(half[0])


def mean_ci(samples: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Column means of ``samples`` (trials x points) and Student-t half-widths."""
    samples = np.atleast_2d(samples)
    n = samples.shape[0]
    mean = samples.mean(axis=0)
    if n < 2:
        return mean, np.zeros_like(mean)
    sem = samples.std(axis=0, ddof=1) / np.sqrt(n)
    return mean, stats.t.ppf(0.5 + level / 2, n - 1) * sem


class Progress:
    """A one-line progress bar with rate and time left, on stderr.

    Parameters
    ----------
    total : int
        Number of steps.
    label : str
        Shown before the bar.
    enabled : bool
        False silences it (tests, ``--quiet``).
    """

    def __init__(self, total: int, label: str, enabled: bool = True):
        self.total, self.label, self.enabled = max(int(total), 1), label, enabled
        self.done = 0
        self.start = time.perf_counter()
        self._last_draw = 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._last_draw > 0.2 or self.done >= self.total):
            self._last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        frac = min(self.done / self.total, 1.0)
        elapsed = now - self.start
        left = elapsed / frac - elapsed if frac > 0 else float("nan")
        bar = "#" * int(30 * frac)
        sys.stderr.write(
            f"\r{self.label:<28} [{bar:<30}] {self.done}/{self.total} "
            f"{elapsed:6.1f}s elapsed, {left:6.1f}s left"
        )
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def write_results(panels: dict[str, CurveSet], out_dir: Path, stem: str) -> list[Path]:
    """Write every plotted number: ``stem.csv`` (long format) and ``stem.json``.

    The CSV has one row per (panel, learner, round) with mean, 95% half-width
    and the number of trials; the JSON holds the same plus the summary scalars.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.json"
    document: dict = {}
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["panel", "learner", "round", "mean", "ci95", "n_trials"])
        for key, panel in panels.items():
            entry = {"title": panel.title, "ylabel": panel.ylabel, "curves": {},
                     "scalars": {}}
            for learner in panel.curves:
                mean, half = panel.summary(learner)
                n_trials = len(panel.curves[learner])
                for t, (m, h) in enumerate(zip(mean, half), start=1):
                    writer.writerow([key, learner, t, f"{m:.6g}", f"{h:.6g}", n_trials])
                entry["curves"][learner] = {
                    "mean": mean.tolist(), "ci95": half.tolist(), "n_trials": n_trials
                }
            for name in panel.scalars:
                m, h = panel.scalar(name)
                entry["scalars"][name] = {"mean": m, "ci95": h,
                                          "n_trials": len(panel.scalars[name])}
            document[key] = entry
    json_path.write_text(json.dumps(document, indent=1))
    return [csv_path, json_path]


def plot_panels(panels: dict[str, CurveSet], out_dir: Path, stem: str) -> Path | None:
    """Draw the panels side by side into ``stem.png``; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("matplotlib is not installed: no plots (pip install "
                         "'sklearn-localregret[plot]')\n")
        return None
    n = len(panels)
    cols = min(n, 2)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.2 * rows),
                             squeeze=False)
    for ax, panel in zip(axes.ravel(), panels.values()):
        for learner in panel.curves:
            mean, half = panel.summary(learner)
            x = np.arange(1, len(mean) + 1)
            (line,) = ax.plot(x, mean, label=learner, lw=1.5)
            ax.fill_between(x, mean - half, mean + half, color=line.get_color(),
                            alpha=0.2, lw=0)
        ax.set_title(panel.title)
        ax.set_xlabel("round")
        ax.set_ylabel(panel.ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    path = Path(out_dir) / f"{stem}.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


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
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
              for r in rows]
    return "\n".join(lines)
