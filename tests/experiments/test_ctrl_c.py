"""Ctrl-C or SIGTERM on a running job: exit code 130 or 143, no traceback from
the job or its busy workers, a summary, and nothing left behind but the tasks
kept for a rerun. (What a run keeps when an experiment had finished is tested
in tests/test_cli.py, how a rerun goes on from kept tasks in test_runner.py.)"""

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import sklearn_localregret

pytest.importorskip("tqdm")


def _stop_a_busy_job(out: Path, send) -> tuple[int, str, str]:
    """Start the disjunct job with 2 workers, call ``send(job)`` once a task
    has finished (both workers busy), and return its exit code, stdout and
    stderr."""
    package_root = str(Path(sklearn_localregret.__file__).parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [package_root, *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    command = [
        sys.executable,
        "-m",
        "sklearn_localregret",
        "disjunct",
        "--quick",
        "--trials",
        "40",
        "--jobs",
        "2",
        "--out",
        str(out),
    ]
    # Its own process group, so that a signal can reach the job and its
    # workers together, as a terminal's Ctrl-C does.
    job = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    err, started = [], threading.Event()

    def read_stderr():
        # The progress bar (stderr) reports the first finished task: from
        # then on both workers are busy, which is when an unprepared worker
        # would print a traceback.
        while chunk := job.stderr.read(1):
            err.append(chunk)
            if "1/120 tasks" in "".join(err[-200:]):
                started.set()
        started.set()

    reader = threading.Thread(target=read_stderr)
    reader.start()
    try:
        assert started.wait(timeout=300)
        assert job.poll() is None, "the job ended before it could be interrupted"
        send(job)
        stdout = job.stdout.read()
        job.wait(timeout=120)
        reader.join(timeout=120)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
    return job.returncode, stdout, "".join(err)


def _assert_only_kept_tasks(out: Path, err: str) -> None:
    assert "No experiment had finished." in err
    assert [p.name for p in out.iterdir()] == ["disjunct.partial"]
    kept = sorted(p.name for p in (out / "disjunct.partial").iterdir())
    assert kept[0] == "identity.json"
    tasks = [name for name in kept if name.startswith("task-")]
    assert tasks and len(tasks) + 1 == len(kept)  # no temporary file either
    for name in tasks:  # each whole
        json.loads((out / "disjunct.partial" / name).read_text())
    assert (
        f"Not finished: disjunct ({len(tasks)} of 120 tasks kept in "
        f"{out / 'disjunct.partial'})" in err
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")
def test_ctrl_c_with_busy_workers_stops_cleanly(tmp_path):
    code, out, err = _stop_a_busy_job(
        tmp_path, lambda job: os.killpg(job.pid, signal.SIGINT)
    )
    assert code == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert "Interrupted after" in err
    _assert_only_kept_tasks(tmp_path, err)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_stops_the_job_as_ctrl_c_does(tmp_path):
    """``kill PID`` (SIGTERM to the job alone, its workers busy): the job stops
    its workers, none prints a traceback (they used to die on a broken pipe),
    and the summary is printed."""
    code, out, err = _stop_a_busy_job(
        tmp_path, lambda job: job.send_signal(signal.SIGTERM)
    )
    assert code == 128 + signal.SIGTERM, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert "Terminated (SIGTERM) after" in err
    _assert_only_kept_tasks(tmp_path, err)
