"""The stream leaderboard's results: per-run records, summaries over seeds, files.

:class:`RunRecord` holds one (stream, learner, seed) run; :class:`Leaderboard`
summarises the runs of each (stream, learner) pair over seeds (the mean and a
95% interval: Korn-Graubard for error rates, inside [0, 1]; Student-t cut at 0
for speed and memory; none below 3 seeds, as in the paper's experiments) and
writes them as CSV, JSON, a markdown
leaderboard and one PNG of learning curves per stream (matplotlib, imported
only when plotting).
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ._intervals import LEVEL, MIN_TRIALS, format_estimate, mean_interval, rate_interval
from ._report import pyplot
from ._styles import style

__all__ = ["Leaderboard", "RunRecord"]

_SCALARS = (
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


# Scalars that are rates (fractions of rows predicted wrong): Korn-Graubard
# intervals inside [0, 1]; the others (speed, memory) get Student-t cut at 0.
_RATES = ("error", "window_error", "played_error")


def _interval(name: str, values, n_outcomes: int) -> tuple[float, float]:
    """95% interval of a scalar's mean over seeds (NaN below 3 seeds)."""
    values = np.asarray(values, dtype=float)
    if name in _RATES:
        low, high = rate_interval(values, n_outcomes=max(int(n_outcomes), 1))
    else:
        low, high = mean_interval(values, lower=0.0)
    return float(low[0]), float(high[0])


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


@dataclass
class Leaderboard:
    """The records of a leaderboard run and everything derived from them.

    Parameters
    ----------
    records : list of RunRecord
        Every run.
    streams : dict of str to Stream
        The streams (the first seed's version of each).
    learners : dict of str to Learner
        The learners.
    settings : dict
        Seeds, rows, batch size, window, wall time, ...
    command : str or None
        The command line that made it, quoted in the markdown.
    """

    records: list
    streams: dict
    learners: dict
    settings: dict
    command: str | None = None

    # -- summaries ------------------------------------------------------------
    def runs(self, stream: str, learner: str) -> list:
        """The records of one (stream, learner) pair, in seed order."""
        return [r for r in self.records if r.stream == stream and r.learner == learner]

    def cell(self, stream: str, learner: str) -> dict:
        """Summary of one pair over seeds: status, means and 95% intervals
        (``<name>_low``, ``<name>_high``; NaN below 3 seeds)."""
        runs = self.runs(stream, learner)
        out = {"stream": stream, "learner": learner, "n_seeds": len(runs)}
        failed = [r for r in runs if r.status == "failed"]
        if not runs or all(r.status == "n/a" for r in runs):
            out.update(
                status="n/a" if runs else "-", message=runs[0].message if runs else ""
            )
            return out
        if failed:
            out.update(status="failed", message=failed[0].message)
            return out
        out.update(status="ok", message="", n_rows=runs[0].n_rows)
        window = min(self.settings.get("window", runs[0].n_rows), runs[0].n_rows)
        for name in _SCALARS:
            values = [getattr(r, name) for r in runs]
            if any(v is None for v in values):
                out[name] = out[f"{name}_low"] = out[f"{name}_high"] = None
            else:
                rows = window if name == "window_error" else runs[0].n_rows
                out[name] = float(np.mean(values))
                out[f"{name}_low"], out[f"{name}_high"] = _interval(name, values, rows)
        return out

    def summary(self) -> list:
        """:meth:`cell` for every (stream, learner) pair."""
        return [self.cell(s, n) for s in self.streams for n in self.learners]

    def curves(self) -> dict:
        """Mean windowed-error curve and its 95% interval per stream and learner."""
        out: dict = {}
        for stream in self.streams:
            for learner in self.learners:
                runs = self.runs(stream, learner)
                if not runs or any(r.status != "ok" for r in runs):
                    continue
                curves = np.array([r.curve for r in runs])
                low, high = rate_interval(
                    curves, n_outcomes=max(int(self.settings.get("window", 1)), 1)
                )
                out.setdefault(stream, {})[learner] = {
                    "rows": runs[0].curve_rows,
                    "mean": curves.mean(axis=0).tolist(),
                    "low": low.tolist(),
                    "high": high.tolist(),
                    "n_seeds": len(runs),
                }
        return out

    # -- the markdown leaderboard ----------------------------------------------
    def _drift(self, stream) -> str:
        s = self.streams[stream]
        if s.drift in ("abrupt", "gradual"):
            at = ", ".join(str(p) for p in s.drift_points)
            width = f" (over {s.drift_width} rows)" if s.drift == "gradual" else ""
            return f"{s.drift} at {at}{width}"
        return s.drift

    def _capped(self, stream: str, learner: str) -> bool:
        """Whether the learner saw only the first rows of the stream."""
        cap = getattr(self.learners[learner], "max_rows", None)
        return cap is not None and cap < self.streams[stream].n_rows

    def _best(self, stream: str, key: str):
        """Lowest mean (to 3 decimals) among full-stream runs, or None."""
        means = [
            round(c[key], 3)
            for c in (self.cell(stream, n) for n in self.learners)
            if c["status"] == "ok" and not self._capped(stream, c["learner"])
        ]
        return min(means) if means else None

    def _table(self, key: str) -> list[str]:
        marks = self._capped_marks()
        header = ["stream", "drift"] + [n + marks.get(n, "") for n in self.learners]
        lines = [
            "| " + " | ".join(header) + " |",
            "| " + " | ".join(["---", "---"] + ["---:"] * len(self.learners)) + " |",
        ]
        for stream in self.streams:
            best = self._best(stream, key)
            row = [stream, self._drift(stream)]
            for name in self.learners:
                c = self.cell(stream, name)
                if c["status"] != "ok":
                    row.append(c["status"])
                    continue
                text = format_estimate(
                    c[key], c[f"{key}_low"], c[f"{key}_high"], c["n_seeds"]
                )
                if self._capped(stream, name):
                    text = f"({text})"
                elif round(c[key], 3) == best:
                    text = f"**{text}**"
                row.append(text)
            lines.append("| " + " | ".join(row) + " |")
        return lines

    def _capped_marks(self) -> dict:
        capped = [
            n
            for n, learner in self.learners.items()
            if getattr(learner, "max_rows", None)
        ]
        return {n: "*" * (k + 1) for k, n in enumerate(capped)}

    def _learner_table(self) -> list[str]:
        lines = [
            "| learner | best on | failed on | rows/s (median) | "
            "peak MB (median) | peak MB (max) |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        wins = dict.fromkeys(self.learners, 0)
        for stream in self.streams:
            best = self._best(stream, "error")
            for name in self.learners:
                c = self.cell(stream, name)
                wins[name] += (
                    c["status"] == "ok"
                    and not self._capped(stream, name)
                    and round(c["error"], 3) == best
                )
        for name in self.learners:
            cells = [self.cell(s, name) for s in self.streams]
            ok = [c for c in cells if c["status"] == "ok"]
            failed = sum(c["status"] == "failed" for c in cells)
            speed = [c["rows_per_second"] for c in ok]
            memory = [
                c["peak_memory_mb"] for c in ok if c["peak_memory_mb"] is not None
            ]
            lines.append(
                "| "
                + " | ".join(
                    [
                        name,
                        f"{wins[name]} / {len(ok)}",
                        str(failed),
                        f"{np.median(speed):,.0f}" if speed else "-",
                        f"{np.median(memory):.1f}" if memory else "-",
                        f"{max(memory):.1f}" if memory else "-",
                    ]
                )
                + " |"
            )
        return lines

    def _played_table(self) -> list[str]:
        """predict's error against the played models' error, where recorded."""
        names = [
            n
            for n in self.learners
            if any(
                c["status"] == "ok" and c.get("played_error") is not None
                for c in (self.cell(s, n) for s in self.streams)
            )
        ]
        if not names:
            return []
        lines = [
            "| stream | " + " | ".join(names) + " |",
            "| --- | " + " | ".join(["---:"] * len(names)) + " |",
        ]
        for stream in self.streams:
            row = [stream]
            for name in names:
                c = self.cell(stream, name)
                if c["status"] != "ok" or c.get("played_error") is None:
                    row.append(c["status"] if c["status"] != "ok" else "-")
                else:
                    row.append(f"{c['error']:.3f} / {c['played_error']:.3f}")
            lines.append("| " + " | ".join(row) + " |")
        return [
            "## Predicted against played (whole stream)",
            "",
            "Error of `predict` (as above: each learner's `prediction` rule, "
            "by default the hedge of the vote and the play) / error of "
            "the randomised plays recorded inside `partial_fit` "
            "(`online_error_`, the quantity the regret guarantee is about; a "
            "call of more rows than `batch_size` plays several rounds, and "
            "the later ones have learnt the call's first rows).",
            "",
            *lines,
            "",
        ]

    def _failures(self) -> list[str]:
        grouped: dict = {}
        for cell in self.summary():
            if cell["status"] == "failed":
                first_line = cell["message"].splitlines()[-1] if cell["message"] else ""
                grouped.setdefault((cell["learner"], first_line), []).append(
                    cell["stream"]
                )
        return [
            f"* `{learner}` on {', '.join(streams)}: {message}"
            for (learner, message), streams in grouped.items()
        ]

    def markdown(self) -> str:
        """The leaderboard: error tables, speed and memory, failures, settings."""
        s = self.settings
        seeds = s["n_seeds"]
        lines = ["# Stream leaderboard", ""]
        if self.command:
            lines += [f"`{self.command}`", ""]
        lines += [
            f"Progressive validation: rounds of {s['batch_size']} rows, each "
            f"predicted before it is learned; up to {s['n_rows']} rows per "
            f"stream; {seeds} seed{'s' * (seeds > 1)} "
            f"({', '.join(map(str, s['seeds']))}); wall time "
            f"{s.get('wall_seconds', float('nan')):.0f} s.",
            "",
            *([f"**{s['left_out']}**", ""] if s.get("left_out") else []),
            f"## Error over the whole stream (mean [95% CI] over {seeds} seeds)",
            "",
            *self._table("error"),
            "",
            f"## Error over the last {s['window']} rows",
            "",
            *self._table("window_error"),
            "",
            *self._played_table(),
            "## Speed and memory",
            "",
            *self._learner_table(),
            "",
            "Bold: the lowest mean error on the stream (to 3 decimals) among "
            "learners that saw all of it; 'best on' counts those streams. "
            "rows/s: rows predicted and learned per second "
            "of predict + partial_fit; peak MB: resident memory the run added "
            "(one forked process per run, after each of our learners learnt the "
            "first rows of each stream once, so that compiled kernels are "
            "loaded; '-' when not measured). 'failed': the "
            "learner raised on that stream (below); 'n/a': a binary-only "
            "learner on a multi-class stream.",
        ]
        marks = self._capped_marks()
        for name, mark in marks.items():
            lines += [
                "",
                f"{mark} `{name}`: first {self.learners[name].max_rows} "
                "rows of each stream only (in parentheses, not ranked: not "
                "comparable with the full streams, nor with their drifts). "
                + self.learners[name].description
                + ".",
            ]
        failures = self._failures()
        if failures:
            lines += ["", "Failures:", "", *failures]
        return "\n".join(lines)

    # -- files -------------------------------------------------------------------
    def write(self, out) -> list[Path]:
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
        runs = [r.scalars() for r in self.records]
        summary = self.summary()
        curves = self.curves()
        _write_csv(paths[0], runs, list(RunRecord.__dataclass_fields__)[:-2])
        summary_fields = ["stream", "learner", "status", "n_seeds", "n_rows"]
        for name in _SCALARS:
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
            "command": self.command,
            "settings": self.settings,
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
                for name, s in self.streams.items()
            },
            "learners": {
                name: {
                    "description": learner.description,
                    "family": learner.family,
                    "binary_only": learner.binary_only,
                    "max_rows": learner.max_rows,
                }
                for name, learner in self.learners.items()
            },
            "runs": [asdict(r) for r in self.records],
            "summary": summary,
            "curves": curves,
        }
        paths[3].write_text(json.dumps(document, indent=1))
        paths[4].write_text(self.markdown() + "\n")
        return paths + self.plot(out)

    def plot(self, out) -> list[Path]:
        """One PNG per stream: windowed error against rows, drift marked."""
        plt = pyplot()
        if plt is None:
            return []
        curves = self.curves()
        paths = []
        # One figure, cleared for each stream: creating figures dominates.
        fig, ax = plt.subplots(figsize=(8, 4.5))
        fig.subplots_adjust(left=0.08, right=0.8, top=0.92, bottom=0.12)
        for name, stream in self.streams.items():
            ax.clear()
            for learner, c in curves.get(name, {}).items():
                rows, mean = np.array(c["rows"]), np.array(c["mean"])
                low, high = np.array(c["low"]), np.array(c["high"])
                # One look per learner in every figure (._styles).
                (line,) = ax.plot(
                    rows, mean, label=learner, **style(learner, len(rows))
                )
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
            ax.set_title(f"{name}{note}: {stream.description}", fontsize=9)
            seeds = self.settings["n_seeds"]
            ax.set_xlabel(
                f"rows seen (bands: {LEVEL:.0%} intervals over {seeds} seeds)"
                if seeds >= MIN_TRIALS
                else f"rows seen (no intervals: {seeds} seed{'s' * (seeds > 1)}; "
                f"they need {MIN_TRIALS})"
            )
            ax.set_ylabel(f"error over the last {self.settings['window']} rows")
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
            path = Path(out) / f"streams_{_safe_name(name)}.png"
            fig.savefig(path, dpi=110)
            paths.append(path)
        plt.close(fig)
        return paths


def _write_csv(path: Path, rows: list, fields: list) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: ("" if row.get(k) is None else row.get(k)) for k in fields}
            )
