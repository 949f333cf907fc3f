"""Predicting from threads while another learns (external regret trees).

Readers wait for the round under way and see the model of complete rounds:
every answer is a distribution, and the learnt model is the one learnt with
no reader at all. The compiled walk also checks every index it reads
against the arrays' sizes, so that even a reader that bypassed the lock
could not read outside memory. The run is a subprocess, so that a crash
fails this test instead of the test session.
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
answers = []

def read():
    while not stop:
        answers.append(model.predict_proba(X[:7]))

readers = [threading.Thread(target=read) for _ in range(3)]
for reader in readers:
    reader.start()
for i in range(20, 1500):
    model.partial_fit(X[i : i + 1], y[i : i + 1])
stop = True
for reader in readers:
    reader.join()
assert len(answers) > 100
assert all(np.allclose(p.sum(axis=1), 1.0) and (p >= 0).all() for p in answers)
alone = LocalRegretTreeClassifier(random_state=0)
alone.partial_fit(X[:20], y[:20], classes=[0, 1, 2])
for i in range(20, 1500):
    alone.partial_fit(X[i : i + 1], y[i : i + 1])
assert alone.n_online_mistakes_ == model.n_online_mistakes_
assert np.array_equal(alone.predict_proba(X), model.predict_proba(X))
print("done")
"""


def test_readers_see_complete_rounds_and_leave_the_model_alone():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("done")
