"""Ctrl-C on the main job: a clean stop that keeps every finished experiment."""

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import sklearn_localregret

pytest.importorskip("matplotlib")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")
def test_ctrl_c_keeps_what_finished_and_prints_no_traceback(tmp_path):
    package_root = str(Path(sklearn_localregret.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    command = [sys.executable, "-m", "sklearn_localregret", "all", "--quick",
               "--rounds", "100", "--jobs", "2", "--quiet", "--out", str(tmp_path)]
    # Its own process group, so that the signal reaches the job and its
    # workers together, as a terminal's Ctrl-C does.
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env, start_new_session=True)
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in job.stdout])
    reader.start()
    try:
        # Interrupt once maxsat is done and the workers are busy with the next
        # experiment: that is when an unprepared worker prints a traceback.
        out = []
        while "== disjunct ==\n" not in out:
            out.append(lines.get(timeout=300))
        time.sleep(1.0)
        os.killpg(job.pid, signal.SIGINT)
        err = job.stderr.read()
        job.wait(timeout=120)
        reader.join()
        out = "".join(out + list(lines.queue))
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
    assert job.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert "Interrupted after" in err
    assert "Kept (complete): " in err and str(tmp_path / "maxsat.json") in err
    assert "Run the same command again" in err
    names = {p.name for p in tmp_path.iterdir()}
    assert {"maxsat.csv", "maxsat.png", "maxsat.json"} <= names
    assert "trees.json" not in names
    assert not [n for n in names if n.startswith(".")]  # no temporary file
