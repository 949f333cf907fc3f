"""Finished tasks of an unfinished experiment, kept so that a rerun goes on.

While an experiment runs, every task's result is written as soon as it comes
back, one JSON file per task, into ``<out>/<name>.partial/`` next to an
``identity.json`` holding the run's parameters. A rerun with the same
parameters loads those results and runs only the other tasks; different
parameters (or ``--force``) start the folder afresh. The folder is removed once
the experiment's own files are written. Tasks are seeded from their arguments
alone, so a result read back is the one the task would compute again.

Results are plain JSON (arrays and tuples tagged), not pickles: loading a
results folder never runs code.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np

from ._output import atomic_write, normalise

__all__ = ["TaskCheckpoint", "encode", "decode"]

# The name save() gives a task's file; anything else in the folder (a copy,
# an editor's backup) is not a kept task.
_TASK_FILE = re.compile(r"task-([0-9]+)\.json")


def encode(value):
    """A task result as JSON-ready data that :func:`decode` turns back.

    Examples
    --------
    >>> value = {"a": (np.arange(3.0), 2, "x"), "b": [np.int64(4), 0.5]}
    >>> back = decode(json.loads(json.dumps(encode(value))))
    >>> back["a"][0], back["a"][1:], back["b"]
    (array([0., 1., 2.]), (2, 'x'), [4, 0.5])
    """
    if isinstance(value, np.ndarray):
        return {"ndarray": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("task results may only hold dicts with str keys.")
        return {"dict": {k: encode(v) for k, v in value.items()}}
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot keep a task result of type {type(value).__name__}.")


def decode(data):
    """The value :func:`encode` was given (floats exactly: JSON keeps repr)."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if isinstance(data, dict):
        if "ndarray" in data:
            return np.array(data["ndarray"], dtype=np.dtype(data["dtype"]))
        if "tuple" in data:
            return tuple(decode(v) for v in data["tuple"])
        return {k: decode(v) for k, v in data["dict"].items()}
    return data


class TaskCheckpoint:
    """The finished tasks of one experiment's run, on disk.

    Parameters
    ----------
    out : path
        The experiment's output folder.
    name : str
        The experiment's name: the folder is ``out / (name + ".partial")``.
    identity : dict
        The run's parameters (with the package version): tasks saved under
        other parameters are never reused.
    """

    def __init__(self, out: str | Path, name: str, identity: dict):
        self.folder = Path(out) / f"{name}.partial"
        self.identity = normalise(identity)
        self._stamped = False  # identity.json written (by this run or its own)

    def load(
        self, n_tasks: int | None = None
    ) -> dict[int, tuple[object, float, float]]:
        """``{task index: (result, seconds, cpu seconds)}`` saved with these
        parameters; empty (and the folder reset) otherwise.

        A file that is not one :meth:`save` wrote (another name, unreadable,
        an index other than its name's, or not below ``n_tasks``, the plan's
        number of tasks) is ignored: its task runs again.
        """
        same = self._same_run()
        if not same:
            self.clear()
            return {}
        self._stamped = True
        done = {}
        for index, path in sorted(self._task_files(n_tasks).items()):
            try:
                saved = json.loads(path.read_text())
                if saved["index"] != index:
                    continue  # renamed, or written by hand
                done[index] = (
                    decode(saved["result"]),
                    float(saved["seconds"]),
                    float(saved["cpu"]),
                )
            except (OSError, ValueError, KeyError, TypeError):
                continue  # unreadable: the task runs again
        return done

    def _task_files(self, n_tasks: int | None) -> dict[int, Path]:
        files = {}
        for path in self.folder.glob("task-*.json"):
            match = _TASK_FILE.fullmatch(path.name)
            if match is not None:
                index = int(match.group(1))
                if n_tasks is None or index < n_tasks:
                    files[index] = path
        return files

    def _same_run(self) -> bool:
        try:
            saved = json.loads((self.folder / "identity.json").read_text())
        except (OSError, ValueError):
            return False
        return saved == self.identity

    def indices(self, n_tasks: int | None = None) -> set[int]:
        """Indices of the tasks saved with these parameters, below ``n_tasks``
        if given (none if the folder is another run's); reads only the file
        names, so a file :meth:`load` finds unreadable counts here."""
        if not self._same_run():
            return set()
        return set(self._task_files(n_tasks))

    def count(self, n_tasks: int | None = None) -> int:
        """Tasks saved with these parameters (0 if the folder is another run's)."""
        return len(self.indices(n_tasks))

    def clear(self) -> None:
        """Start afresh: drop what another run kept."""
        self.remove()

    def save(self, index: int, result, seconds: float, cpu: float) -> None:
        """Keep one finished task (written whole or not at all); the first
        one stamps the folder with the run's parameters."""
        if not self._stamped:
            atomic_write(
                self.folder / "identity.json",
                lambda p: p.write_text(json.dumps(self.identity)),
            )
            self._stamped = True
        document = {
            "index": index,
            "seconds": seconds,
            "cpu": cpu,
            "result": encode(result),
        }
        atomic_write(
            self.folder / f"task-{index:05d}.json",
            lambda p: p.write_text(json.dumps(document)),
        )

    def remove(self) -> None:
        """Drop the folder (the experiment's files are written)."""
        shutil.rmtree(self.folder, ignore_errors=True)
