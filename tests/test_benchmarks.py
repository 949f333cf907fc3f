"""The benchmark scripts stay runnable: the README quotes their output.

Each script's ``--help`` runs in this process (its imports resolve against
today's package: a name a refactoring removed fails here, not in a user's
rerun of a README table). Scripts whose optional peers are not installed are
skipped; the engine's benchmark, cheap, also runs for real.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))
# Optional extras a benchmark may import at its top.
OPTIONAL = {"river", "matplotlib", "dask", "distributed", "pandas", "psutil", "pysat"}


def _run(script: Path, args: list[str], monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # scripts import each other
    monkeypatch.setattr(sys, "argv", [str(script), *args])
    try:
        runpy.run_path(str(script), run_name="__main__")
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] in OPTIONAL:
            pytest.skip(f"{script.name} needs {error.name}")
        raise


def test_there_are_benchmarks():
    assert len(SCRIPTS) >= 20


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_each_benchmark_answers_help(script, monkeypatch, capsys):
    with pytest.raises(SystemExit) as exit_:
        _run(script, ["--help"], monkeypatch)
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_the_engine_benchmark_runs(monkeypatch, capsys):
    _run(BENCHMARKS / "bench_engine.py", ["--seconds", "0.01"], monkeypatch)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["sampler", "draws/s"]
    assert len(lines) == 5
    # The tree table favours a full tree of depth 4: 15 splits.
    assert "(15.0 splits)" in lines[-1]
