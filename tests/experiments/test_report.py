import json

import numpy as np
import pytest
from scipy import stats

from sklearn_localregret.experiments._report import (
    CurveSet,
    mean_ci,
    sliding_mean,
    write_results,
)


def test_sliding_mean_matches_a_direct_window():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 2, 357)
    expected = [values[max(0, t - 99) : t + 1].mean() for t in range(len(values))]
    np.testing.assert_allclose(sliding_mean(values, 100), expected)


def test_mean_ci_is_the_student_t_interval():
    samples = np.array([[1.0], [2.0], [4.0]])
    mean, half = mean_ci(samples)
    sem = np.std(samples[:, 0], ddof=1) / np.sqrt(3)
    assert mean[0] == pytest.approx(7 / 3)
    assert half[0] == pytest.approx(stats.t.ppf(0.975, 2) * sem)


def test_write_results_holds_every_plotted_number(tmp_path):
    panel = CurveSet("demo", "error")
    panel.add("a", [0.5, 0.25])
    panel.add("a", [0.5, 0.75])
    panel.add_scalar("a: non-zero regrets", 3)
    csv_path, json_path = write_results({"p": panel}, tmp_path, "demo")
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "panel,learner,round,mean,ci95,n_trials"
    assert lines[2].startswith("p,a,2,0.5,")
    document = json.loads(json_path.read_text())
    assert document["p"]["curves"]["a"]["mean"] == [0.5, 0.5]
    assert document["p"]["scalars"]["a: non-zero regrets"]["mean"] == 3
