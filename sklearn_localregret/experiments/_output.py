"""Result files that are either complete or absent, and finding finished runs.

Every file is written to a temporary name in the same folder and renamed over
its final name (:func:`atomic_write`), so that an interrupted run never leaves
a half-written CSV, JSON or PNG behind. An experiment writes its JSON last:
the JSON holds the run's parameters and the list of the other files, so its
presence with matching parameters means the whole experiment is done
(:func:`finished_run`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["atomic_write", "finished_run", "normalise"]


def atomic_write(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write(temporary_path)``, then rename the result to ``path``.

    The temporary file is removed if ``write`` fails or is interrupted.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> path = atomic_write(folder / "a.txt", lambda p: p.write_text("done"))
    >>> path.read_text(), sorted(p.name for p in folder.iterdir())
    ('done', ['a.txt'])
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def normalise(parameters: dict) -> dict:
    """Parameters as they read back from JSON (tuples become lists)."""
    return json.loads(json.dumps(parameters))


def finished_run(out: str | Path, stem: str, parameters: dict) -> dict | None:
    """The JSON document of a finished run with these parameters, else None.

    Finished means: ``stem.json`` exists, parses, records exactly these
    parameters, and every file it lists exists in ``out``.
    """
    path = Path(out) / f"{stem}.json"
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict):
        return None
    if document.get("parameters") != normalise(parameters):
        return None
    if not all((Path(out) / name).is_file() for name in document.get("files", [])):
        return None
    return document
