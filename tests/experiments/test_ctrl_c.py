"""Ctrl-C on a running job: exit code 130, no traceback from the job or its
busy workers, no file left behind. (What a run keeps when an experiment had
finished is tested in tests/test_cli.py.)"""

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import sklearn_localregret

pytest.importorskip("tqdm")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")
def test_ctrl_c_with_busy_workers_stops_cleanly(tmp_path):
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
        str(tmp_path),
    ]
    # Its own process group, so that the signal reaches the job and its
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
        os.killpg(job.pid, signal.SIGINT)
        out = job.stdout.read()
        job.wait(timeout=120)
        reader.join(timeout=120)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
    err = "".join(err)
    assert job.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert "Interrupted after" in err
    assert "No experiment had finished: nothing was written." in err
    assert list(tmp_path.iterdir()) == []  # no temporary file either
