"""Every Python block of the docs runs as a user copies it: on its own.

Each ``.. code-block:: python`` of ``docs/`` runs in a namespace of its own
(a block that leans on another's imports fails here with the ``NameError``
a reader would get), in a scratch folder (blocks write files).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
_BLOCK = re.compile(r"\.\. code-block:: python\n((?:\n|   .*\n)+)")
OPTIONAL = {"river", "matplotlib", "dask", "distributed", "pandas", "skops", "pysat"}


def _blocks() -> list:
    found = []
    for path in sorted(DOCS.rglob("*.rst")):
        if "_build" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            code = textwrap.dedent(match.group(1))
            found.append(pytest.param(code, id=f"{path.stem}:{line}"))
    return found


BLOCKS = _blocks()


def test_the_docs_have_python_blocks():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("code", BLOCKS)
def test_each_docs_block_runs_alone(code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    try:
        exec(compile(code, "<docs block>", "exec"), {"__name__": "__main__"})
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] in OPTIONAL:
            pytest.skip(f"the block needs {error.name}")
        raise
