"""Ctrl-C or SIGTERM during ``streams``: exit code 130 or 143, no traceback, a
line saying how far it got, nothing written (a leaderboard needs every run),
and no forked run left behind (SIGTERM used to kill the command and leave its
run's process going on, orphaned)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sklearn_localregret
from sklearn_localregret.cli import main
from sklearn_localregret.experiments import streams
from sklearn_localregret.experiments.streams import can_isolate

ARGV = ["streams", "--streams", "inverted", "--learners", "sgd", "--rows", "40"]
ARGV += ["--seeds", "2", "--window", "20", "--quiet"]

# The command, with every run lasting until it is stopped: the forked run
# processes inherit the patched module.
SCRIPT = """
import sys, time
from sklearn_localregret.experiments import _stream_runs
from sklearn_localregret.cli import main

_stream_runs.evaluate_run = lambda *task: time.sleep(600)
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_between_runs_in_process_writes_nothing(tmp_path, monkeypatch, capsys):
    real_run, runs = streams.evaluate_run, []

    def run_then_interrupt(*task):
        runs.append(task)
        if len(runs) == 2:
            raise KeyboardInterrupt
        return real_run(*task)

    monkeypatch.setattr(streams, "evaluate_run", run_then_interrupt)
    out = tmp_path / "out"
    assert main([*ARGV, "--no-isolate", "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip()
    assert err.startswith("Interrupted after ") and "\n" not in err
    assert err.endswith(
        " s, 1 of 2 runs had finished; nothing written to "
        f"{out}/ (a leaderboard needs every run). The same command runs them all "
        "again."
    )
    assert not out.exists()


def _stat(pid: str) -> list[str]:
    # The fields after the command's name: state, ppid, process group, session.
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def _processes(field: int, value: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(entry.name)[field]) == value:
                    found.append(int(entry.name))
            except (OSError, IndexError):
                continue  # ended meanwhile
    return found


@pytest.mark.skipif(not can_isolate(), reason="forked runs: Linux")
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_a_stop_during_a_forked_run_ends_it_too(stop, tmp_path):
    package_root = str(Path(sklearn_localregret.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": package_root}
    out = tmp_path / "out"
    # Its own session: a signal can reach the job and its runs together, as a
    # terminal's Ctrl-C does, and what is left of it can be found.
    job = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, *ARGV, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not _processes(1, job.pid):  # its first run's process
            assert job.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        if stop == "ctrl-c":
            os.killpg(job.pid, signal.SIGINT)
        else:
            job.send_signal(signal.SIGTERM)  # the job alone, as `kill` does
        stdout, stderr = job.communicate(timeout=60)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
    code, how = (130, "Interrupted") if stop == "ctrl-c" else (143, "Terminated")
    assert job.returncode == code, stderr
    assert "Traceback" not in stderr + stdout
    assert stderr.strip().startswith(f"{how} ") and stderr.count("\n") == 2
    assert "0 of 2 runs had finished; nothing written" in stderr
    assert not out.exists()
    assert _processes(3, job.pid) == []  # nothing left in its session
