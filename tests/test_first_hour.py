"""A new user's first hour: the README's main install in a fresh virtual
environment, then the quickstart and the stream leaderboard's quick run.

Slow (about 2 minutes on 2 cores: the install ~50 s from pip's cache, the
quickstart ~50 s with the numba kernels compiled cold, ``streams --quick`` on
two learners ~10 s), so it runs only with ``SKLEARN_LOCALREGRET_FIRST_HOUR=1``
set; ``-m slow`` selects it.
"""

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("SKLEARN_LOCALREGRET_FIRST_HOUR") != "1",
        reason="slow (~2 min): set SKLEARN_LOCALREGRET_FIRST_HOUR=1 to run it",
    ),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout"),
]


def _readme_install() -> str:
    """The pip install of the README's main command (``pip install ".[plot]"``)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r"pip install (\"\.\[[a-z,]+\]\") && python -m sklearn_lo", readme
    )
    assert match, "the README's main command has no pip install of the project"
    return match.group(1).strip('"')


def test_readme_install_runs_the_quickstart_and_the_streams(tmp_path):
    # A copy of the project, so that the install's build files stay out of it.
    source = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for name in ("sklearn_localregret", "examples"):
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    environment = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    requirement = _readme_install().replace(".", str(source), 1)

    def run(*command, cwd=tmp_path):
        done = subprocess.run(
            command, cwd=cwd, env=environment, capture_output=True, text=True
        )
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-4000:])
        return done

    run(python, "-m", "pip", "install", "-q", requirement)
    # The installed package, not the copy: run from elsewhere.
    quickstart = run(python, str(source / "examples" / "quickstart.py"))
    assert quickstart.stdout.startswith("test accuracy ")
    assert "satisfied" in quickstart.stdout.splitlines()[-1]
    # Every stream the main install has (the bundled UCI data files among
    # them: package data), run by one of our learners (numba kernels read
    # from, and written to, the installed package's cache) and a
    # scikit-learn peer, each run isolated in a forked child, then the
    # report files: what the install has to provide. The other learners
    # (tests/experiments/test_streams.py runs them all) would add ~35 s,
    # mostly compiling their kernels.
    streams = run(
        python,
        "-m",
        "sklearn_localregret",
        "streams",
        "--quick",
        "--learners",
        "lr-tree",
        "sgd",
        "--quiet",
        "--out",
        str(tmp_path / "results"),
    )
    assert "# Stream leaderboard" in streams.stdout
    # The main install has no River: the run says what it leaves out (here
    # the River streams, as the learners are named).
    assert "River is not installed: left out" in streams.stderr
    assert (tmp_path / "results" / "streams.md").is_file()
