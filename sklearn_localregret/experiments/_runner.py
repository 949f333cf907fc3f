"""Running an experiment: its tasks in parallel, with progress, resumable.

An experiment is a list of independent :class:`Task` objects (one trial of
one panel, or one learner's part of it). A task is a module-level function
called with plain arguments and seeded from them alone, so its result does not
depend on where or when it runs: several worker processes give exactly the
numbers of a serial run. :class:`TaskRunner` runs them (longest first, so the
workers finish together) and shows one `tqdm <https://tqdm.github.io>`_ bar per
experiment on stderr (both in :mod:`._task_runner`, imported here). This module
holds :class:`Experiment`, which ties it together: the parameters of
each scale, the tasks, the panels built from their results, and the files,
written as soon as the experiment finishes and found again by a rerun with the
same parameters. Each task's result is kept as soon as it comes back
(:mod:`._checkpoint`), so a rerun after an interruption runs only the tasks
that had not finished.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path

from .._arguments import folder_problem
from . import MAX_ROUNDS, MAX_TRIALS
from ._checkpoint import TaskCheckpoint
from ._intervals import LEVEL, MIN_TRIALS
from ._output import atomic_write, finished_run, normalise
from ._report import CurveSet, panels_document, plot_panels, write_csv
from ._task_runner import Task, TaskRunner, check_n_jobs, format_duration

__all__ = ["Task", "TaskRunner", "Experiment", "format_duration"]

SCALES = ("quick", "default", "paper")
#: Wall seconds an experiment spends outside its tasks: starting the workers
#: (each imports NumPy, scikit-learn and numba), the panels, plots and files.
STARTUP_SECONDS = 5.0


@dataclass(frozen=True)
class Experiment:
    """One of the paper's experiments, at any scale, resumable.

    Parameters
    ----------
    name : str
        Command name and file stem (``name.csv``, ``name.json``, ``name.png``).
    trials_parameter : str
        The parameter ``--trials`` sets (``"n_trials"`` or ``"n_instances"``).
    fixed : mapping
        Parameters every scale shares (the seed among them).
    scales : mapping
        ``"quick"``, ``"default"`` and ``"paper"``: the parameters each sets.
    plan : callable
        ``plan(parameters) -> list of Task``.
    collect : callable
        ``collect(parameters, results) -> dict of CurveSet``, ``results`` in
        the order of ``plan``'s tasks.
    table : callable
        ``table(panels) -> str``, the summary printed at the end.
    reference_seconds : mapping
        CPU seconds of one task of each kind at 1000 rounds, measured on the
        development machine: the time estimates when no earlier run of this
        machine is in the output folder.
    check : callable, default=None
        ``check(parameters)`` raises ``ValueError`` on parameters that each
        pass alone but not together, or that the experiment cannot use
        (Max-3SAT's clauses need 3 variables).
    """

    name: str
    trials_parameter: str
    fixed: Mapping
    scales: Mapping
    plan: Callable[[dict], list[Task]]
    collect: Callable[[dict, list], dict[str, CurveSet]]
    table: Callable[[dict[str, CurveSet]], str]
    reference_seconds: Mapping
    check: Callable[[dict], None] | None = None

    def parameters(self, scale: str = "default", **overrides) -> dict:
        """The parameters of ``scale`` with ``overrides`` (None: keep) applied.

        Raises
        ------
        ValueError
            An unknown scale, a count that is not a positive integer, more
            than :data:`~sklearn_localregret.experiments.MAX_TRIALS` trials or
            :data:`~sklearn_localregret.experiments.MAX_ROUNDS` rounds, or
            parameters :attr:`check` refuses.
        TypeError
            An unknown parameter.
        """
        if scale not in SCALES:
            raise ValueError(f"scale must be one of {SCALES}, got {scale!r}.")
        parameters = {**self.fixed, **self.scales[scale]}
        for key, value in overrides.items():
            if value is None:
                continue
            if key not in parameters:
                raise TypeError(
                    f"{self.name} has no parameter {key!r}; it has "
                    f"{sorted(parameters)}."
                )
            smallest = 0 if key == "seed" else 1
            if isinstance(parameters[key], int) and (
                not isinstance(value, Integral)
                or isinstance(value, bool)
                or value < smallest
            ):
                raise ValueError(
                    f"{key} must be an integer >= {smallest}, got {value!r}."
                )
            largest = {self.trials_parameter: MAX_TRIALS, "n_rounds": MAX_ROUNDS}
            if key in largest and value > largest[key]:
                raise ValueError(
                    f"{key} must be at most {largest[key]}, got {value!r}."
                )
            parameters[key] = int(value) if isinstance(value, Integral) else value
        if self.check is not None:
            self.check(parameters)
        return parameters

    def _identity(self, parameters: dict) -> dict:
        from .. import __version__

        return {**parameters, "version": __version__}

    def finished(self, out: str | Path, parameters: dict) -> dict | None:
        """The JSON document of a finished run in ``out`` with these parameters."""
        return finished_run(out, self.name, self._identity(parameters))

    def timing_source(self, parameters: dict, out: str | Path | None) -> Path | None:
        """The earlier run in ``out`` whose task times the estimates use: one
        with the same number of rounds (a shorter run's times do not scale:
        fixed costs weigh more in them); None means :attr:`reference_seconds`."""
        if out is None:
            return None
        path = Path(out) / f"{self.name}.json"
        try:
            earlier = json.loads(path.read_text())
            same = earlier["parameters"]["n_rounds"] == parameters["n_rounds"]
            times = earlier["task_cpu_seconds"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return path if same and isinstance(times, dict) else None

    def expected_seconds(
        self, parameters: dict, out: str | Path | None = None
    ) -> list[float]:
        """Expected seconds of each task of ``plan(parameters)`` on a free core.

        From the CPU times an earlier run with as many rounds recorded in
        ``out`` (this machine's, :meth:`timing_source`), else from
        :attr:`reference_seconds` scaled linearly in the number of rounds. CPU
        rather than wall times, so that an earlier run on a busy machine does
        not inflate the estimate.
        """
        per_kind = {
            kind: (seconds, 1000) for kind, seconds in self.reference_seconds.items()
        }
        source = self.timing_source(parameters, out)
        if source is not None:
            measured = json.loads(source.read_text())["task_cpu_seconds"]
            rounds = parameters["n_rounds"]
            per_kind.update({kind: (t, rounds) for kind, t in measured.items()})
        rounds = parameters["n_rounds"]
        expected = []
        for task in self.plan(parameters):
            seconds, at_rounds = per_kind.get(task.kind, (1.0, 1000))
            expected.append(seconds * rounds / at_rounds)
        return expected

    def estimate_seconds(
        self,
        parameters: dict,
        n_jobs: int,
        out: str | Path | None = None,
        skip: Collection[int] = (),
    ) -> float:
        """Expected wall time with ``n_jobs`` workers on otherwise idle cores,
        the tasks numbered in ``skip`` (kept by an interrupted run) left out;
        :data:`STARTUP_SECONDS` included."""
        expected = [
            t
            for i, t in enumerate(self.expected_seconds(parameters, out))
            if i not in skip
        ]
        tasks = max(sum(expected) / n_jobs, max(expected, default=0.0))
        return tasks + STARTUP_SECONDS if expected else 0.0

    def run_alone(
        self,
        out: str | Path,
        scale: str = "default",
        *,
        n_jobs: int | None = None,
        progress: bool = True,
        resume: bool = False,
        **overrides,
    ) -> dict:
        """:meth:`run` with its own worker pool: what the ``run_*`` functions do.

        ``overrides`` go to :meth:`parameters` (None keeps the scale's value).
        """
        parameters = self.parameters(scale, **overrides)
        with TaskRunner(check_n_jobs(n_jobs)) as runner:
            return self.run(
                out,
                parameters,
                runner=runner,
                progress=progress,
                resume=resume,
                scale=scale,
            )

    def run(
        self,
        out: str | Path,
        parameters: dict,
        *,
        runner: TaskRunner,
        progress: bool = True,
        resume: bool = False,
        scale: str | None = None,
    ) -> dict:
        """Run, write ``name.csv``, ``name.png``, then ``name.json``; print the table.

        With ``resume=True`` a finished run with the same parameters in
        ``out`` is not repeated: its table is printed again and its JSON
        document returned, with ``"skipped": True``.

        Returns
        -------
        dict
            The JSON document: parameters, interval method, timings, the list
            of files, the table and every plotted number (``"panels"``).
        """
        out = Path(out)
        problem = folder_problem(out)
        if problem is not None:  # refused before the work, not after a task
            raise ValueError(f"out: {problem}.")
        identity = self._identity(parameters)
        if resume:
            document = self.finished(out, parameters)
            if document is not None:
                print(
                    f"{self.name}: already done with these parameters "
                    f"({out / (self.name + '.json')}); skipped (--force reruns "
                    "it)",
                    flush=True,
                )
                print(document.get("table", ""), flush=True)
                return {**document, "skipped": True}
        tasks = self.plan(parameters)
        checkpoint = TaskCheckpoint(out, self.name, identity)
        if resume:
            kept = checkpoint.load(len(tasks))
            if kept:
                print(
                    f"{self.name}: {len(kept)} of {len(tasks)} tasks kept from an "
                    f"interrupted run ({checkpoint.folder}); running the other "
                    f"{len(tasks) - len(kept)}",
                    flush=True,
                )
        else:
            kept = {}
            checkpoint.clear()
        start = time.perf_counter()
        results, seconds, cpu = runner.run(
            tasks,
            expected=self.expected_seconds(parameters, out),
            desc=self.name,
            progress=progress,
            finished=kept,
            on_result=checkpoint.save,
        )
        panels = self.collect(parameters, results)
        table = self.table(panels)
        # The JSON marks a finished run: an older one must not vouch for the
        # files about to be replaced, should this run be interrupted.
        (out / f"{self.name}.json").unlink(missing_ok=True)
        files = [write_csv(panels, out / f"{self.name}.csv").name]
        png = plot_panels(panels, out / f"{self.name}.png")
        if png is not None:
            files.append(png.name)
        by_kind: dict[str, list[float]] = {}
        cpu_by_kind: dict[str, list[float]] = {}
        for task, elapsed, used in zip(tasks, seconds, cpu):
            by_kind.setdefault(task.kind, []).append(elapsed)
            cpu_by_kind.setdefault(task.kind, []).append(used)
        document = {
            "experiment": self.name,
            "scale": scale,
            "parameters": normalise(identity),
            "interval": {
                "level": LEVEL,
                "min_trials": MIN_TRIALS,
                "rates": "Korn-Graubard (1998): Clopper-Pearson on the outcomes "
                "pooled over trials with an effective sample size",
                "other": "Student t over trials, cut to the quantity's support",
            },
            "seconds": time.perf_counter() - start,
            "kept_tasks": len(kept),
            "n_jobs": runner.n_jobs,
            "cpu_seconds": sum(cpu),
            "task_seconds": {kind: sum(v) / len(v) for kind, v in by_kind.items()},
            "task_cpu_seconds": {
                kind: sum(v) / len(v) for kind, v in cpu_by_kind.items()
            },
            "files": files,
            "table": table,
            "panels": panels_document(panels),
        }
        atomic_write(
            out / f"{self.name}.json",
            lambda p: p.write_text(json.dumps(document, indent=1)),
        )
        checkpoint.remove()
        print(table, flush=True)
        return {**document, "skipped": False}
