"""The stream leaderboard's files: CSV, JSON, markdown, and a PNG per stream.

Each is written whole or not at all (:func:`~._output.atomic_write`): a run
stopped while writing leaves every file as the last run wrote it, or new.

:func:`write_leaderboard` and :func:`plot_leaderboard` are
:meth:`~._stream_report.Leaderboard.write` and
:meth:`~._stream_report.Leaderboard.plot` (matplotlib, imported only when
plotting).
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._intervals import LEVEL, MIN_TRIALS
from ._output import atomic_write
from ._report import pyplot
from ._stream_records import SCALARS, RunRecord
from ._styles import style

if TYPE_CHECKING:
    from ._stream_report import Leaderboard

__all__ = ["figure_names", "plot_leaderboard", "write_leaderboard"]

# Every figure's name matches this, and removing an earlier run's figures
# removes only what matches it.
_FIGURE = re.compile(r"streams_[A-Za-z0-9_.-]*\.png")


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def figure_names(streams) -> dict[str, str]:
    """The file name of each stream's figure, one per stream.

    ``streams_<name>.png``, the characters of the name a file name should
    not hold replaced by ``_``; a name that another stream's figure already
    took then (letter case aside: some file systems ignore it) gets ``-2``,
    ``-3``, ... in the order of ``streams``.

    Examples
    --------
    >>> figure_names(["my data", "my_data", "sea"])
    {'my data': 'streams_my_data.png', 'my_data': 'streams_my_data-2.png', \
'sea': 'streams_sea.png'}
    """
    taken: set[str] = set()
    names = {}
    for stream in streams:
        stem = candidate = _safe_name(stream)
        copy = 1
        while candidate.casefold() in taken:
            copy += 1
            candidate = f"{stem}-{copy}"
        taken.add(candidate.casefold())
        names[stream] = f"streams_{candidate}.png"
    return names


def write_leaderboard(board: Leaderboard, out) -> list[Path]:
    """Write the CSV, JSON, markdown and PNG files into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [
        out / "streams.csv",
        out / "streams_summary.csv",
        out / "streams_curves.csv",
        out / "streams.json",
        out / "streams.md",
    ]
    runs = [r.scalars() for r in board.records]
    summary = board.summary()
    curves = board.curves()
    _write_csv(paths[0], runs, list(RunRecord.__dataclass_fields__)[:-2])
    summary_fields = ["stream", "learner", "status", "n_seeds", "n_rows"]
    for name in SCALARS:
        summary_fields += [name, f"{name}_low", f"{name}_high"]
    _write_csv(paths[1], summary, summary_fields + ["message"])
    curve_rows = [
        {
            "stream": s,
            "learner": n,
            "row": row,
            "mean": m,
            "low": lo,
            "high": hi,
            "n_seeds": c["n_seeds"],
        }
        for s, by_learner in curves.items()
        for n, c in by_learner.items()
        for row, m, lo, hi in zip(c["rows"], c["mean"], c["low"], c["high"])
    ]
    _write_csv(
        paths[2],
        curve_rows,
        ["stream", "learner", "row", "mean", "low", "high", "n_seeds"],
    )
    document = {
        "command": board.command,
        "settings": board.settings,
        "streams": {
            name: {
                "description": s.description,
                "drift": s.drift,
                "drift_points": list(s.drift_points),
                "drift_width": s.drift_width,
                "n_rows": s.n_rows,
                "n_features": s.n_features,
                "n_classes": len(s.classes),
                "boolean": s.is_boolean,
            }
            for name, s in board.streams.items()
        },
        "learners": {
            name: {
                "description": learner.description,
                "family": learner.family,
                "binary_only": learner.binary_only,
                "max_rows": learner.max_rows,
            }
            for name, learner in board.learners.items()
        },
        "runs": [asdict(r) for r in board.records],
        "summary": summary,
        "curves": curves,
    }
    atomic_write(paths[3], lambda p: p.write_text(json.dumps(document, indent=1)))
    atomic_write(paths[4], lambda p: p.write_text(board.markdown() + "\n"))
    figures = board.plot(out)
    # An earlier leaderboard's figures of other streams would pass for this
    # one's: the folder keeps the figures of the files beside them only.
    drawn = {path.name for path in figures}
    for path in out.iterdir():
        if _FIGURE.fullmatch(path.name) and path.name not in drawn and path.is_file():
            path.unlink()
    return paths + figures


def plot_leaderboard(board: Leaderboard, out) -> list[Path]:
    """One PNG per stream: windowed error against rows, drift marked."""
    plt = pyplot()
    if plt is None:
        return []
    curves = board.curves()
    files = figure_names(board.streams)
    paths = []
    # One figure, cleared for each stream: creating figures dominates.
    fig, ax = plt.subplots(figsize=(8, 4.5))
    fig.subplots_adjust(left=0.08, right=0.8, top=0.92, bottom=0.12)
    for name, stream in board.streams.items():
        ax.clear()
        for learner, c in curves.get(name, {}).items():
            rows, mean = np.array(c["rows"]), np.array(c["mean"])
            low, high = np.array(c["low"]), np.array(c["high"])
            # One look per learner in every figure (._styles).
            (line,) = ax.plot(rows, mean, label=learner, **style(learner, len(rows)))
            if np.all(np.isfinite(low)):  # no band below 3 seeds
                ax.fill_between(
                    rows, low, high, color=line.get_color(), alpha=0.15, lw=0
                )
        for k, point in enumerate(stream.drift_points):
            label = "drift" if k == 0 else None
            if stream.drift == "gradual":
                ax.axvspan(
                    point - stream.drift_width / 2,
                    point + stream.drift_width / 2,
                    color="0.85",
                    label=label,
                )
            ax.axvline(
                point,
                color="k",
                ls="--",
                lw=0.8,
                label=label if stream.drift != "gradual" else None,
            )
        note = {
            "incremental": " (drifts all along)",
            "adversarial": " (adversarial)",
        }.get(stream.drift, "")
        about = f": {stream.description}" if stream.description else ""
        ax.set_title(f"{name}{note}{about}", fontsize=9)
        seeds = board.settings["n_seeds"]
        ax.set_xlabel(
            f"rows seen (bands: {LEVEL:.0%} intervals over {seeds} seeds)"
            if seeds >= MIN_TRIALS
            else f"rows seen (no intervals: {seeds} seed{'s' * (seeds > 1)}; "
            f"they need {MIN_TRIALS})"
        )
        ax.set_ylabel(f"error over the last {board.settings['window']} rows")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
        # (The temporary name does not end in .png: the format is given.)
        path = atomic_write(
            Path(out) / files[name], lambda p: fig.savefig(p, dpi=110, format="png")
        )
        paths.append(path)
    plt.close(fig)
    return paths


def _write_csv(path: Path, rows: list, fields: list) -> None:
    def write(temporary: Path) -> None:
        with temporary.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow(
                    {k: ("" if row.get(k) is None else row.get(k)) for k in fields}
                )

    atomic_write(path, write)
