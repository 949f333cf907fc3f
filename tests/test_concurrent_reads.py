"""Predicting from threads while another learns never crashes the process.

The compiled prediction walk runs without the GIL and does not check
bounds on its own; it checks every index it reads from the model's arrays
against their sizes, so a reader racing a learner that grows them computes
a wrong number at worst, never reads outside memory. (What a reader sees
while a round is under way is not yet a contract: the open reliability
issue is about that.) The run is a subprocess, so that a crash fails this
test instead of the test session.
"""

import subprocess
import sys

SCRIPT = """
import threading
import numpy as np
from sklearn.datasets import make_classification
from sklearn_localregret import LocalRegretTreeClassifier

X, y = make_classification(n_samples=1500, n_features=20, n_informative=10,
                           n_classes=3, random_state=0)
model = LocalRegretTreeClassifier(random_state=0)
model.partial_fit(X[:20], y[:20], classes=[0, 1, 2])
stop = False

def read():
    while not stop:
        try:
            model.predict_proba(X[:7])
        except Exception:
            pass  # a race may raise; it must not crash

readers = [threading.Thread(target=read) for _ in range(3)]
for reader in readers:
    reader.start()
for i in range(20, 1500):
    model.partial_fit(X[i : i + 1], y[i : i + 1])
stop = True
for reader in readers:
    reader.join()
proba = model.predict_proba(X)
assert np.allclose(proba.sum(axis=1), 1.0)
print("done")
"""


def test_readers_racing_a_learner_do_not_crash():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("done")
