"""The stream leaderboard's results: per-run records, summaries over seeds, files.

:class:`RunRecord` holds one (stream, learner, seed) run; :class:`Leaderboard`
summarises the runs of each (stream, learner) pair over seeds (the mean and a
95% interval: Korn-Graubard for error rates, inside [0, 1]; Student-t cut at 0
for speed and memory; none below 3 seeds, as in the paper's experiments) and
writes them as CSV, JSON, a markdown
leaderboard and one PNG of learning curves per stream (matplotlib, imported
only when plotting). The record is defined in :mod:`._stream_records`, the
files are written by :mod:`._stream_files`; this module holds the summaries and
the markdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._intervals import format_estimate, mean_interval, rate_interval
from ._stream_files import plot_leaderboard, write_leaderboard
from ._stream_records import SCALARS, RunRecord

__all__ = ["Leaderboard", "RunRecord"]


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
        for name in SCALARS:
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

    def _shorter_than_window(self) -> bool:
        """Whether a stream has fewer rows than the error window."""
        window = self.settings.get("window")
        return window is not None and any(
            stream.n_rows < window for stream in self.streams.values()
        )

    def _capped_marks(self) -> dict:
        # (only learners that saw fewer rows than some stream has)
        capped = [
            n for n in self.learners if any(self._capped(s, n) for s in self.streams)
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

    def _rows_per_stream(self) -> str:
        """The streams' lengths: one number, or their range (an added
        stream keeps all its rows, whatever ``n_rows`` says)."""
        rows = sorted({spec.n_rows for spec in self.streams.values()})
        if not rows:
            return f"up to {self.settings['n_rows']}"
        return f"{rows[0]:,}" if len(rows) == 1 else f"{rows[0]:,} to {rows[-1]:,}"

    def markdown(self) -> str:
        """The leaderboard: error tables, speed and memory, failures, settings."""
        s = self.settings
        seeds = s["n_seeds"]
        lines = ["# Stream leaderboard", ""]
        if self.command:
            lines += [f"`{self.command}`", ""]
        lines += [
            f"Progressive validation: rounds of {s['batch_size']} rows, each "
            f"predicted before it is learned; {self._rows_per_stream()} rows "
            f"per stream; {seeds} seed{'s' * (seeds > 1)} "
            f"({', '.join(map(str, s['seeds']))}); wall time "
            f"{s.get('wall_seconds', float('nan')):.0f} s.",
            "",
            *([f"**{s['left_out']}**", ""] if s.get("left_out") else []),
            "## Error over the whole stream (mean [95% CI] over "
            f"{seeds} seed{'s' * (seeds > 1)})",
            "",
            *self._table("error"),
            "",
            f"## Error over the last {s['window']} rows (or fewer: a shorter "
            "stream's all)"
            if self._shorter_than_window()
            else f"## Error over the last {s['window']} rows",
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
            "of predict + partial_fit; peak MB: resident memory the run added, "
            "less the shared libraries' pages a forked process maps back in "
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
        return write_leaderboard(self, out)

    def plot(self, out) -> list[Path]:
        """One PNG per stream: windowed error against rows, drift marked."""
        return plot_leaderboard(self, out)
