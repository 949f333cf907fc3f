import json

import numpy as np
import pytest

from sklearn_localregret.experiments._report import (
    CurveSet,
    panels_document,
    sliding_mean,
    window_outcomes,
    write_csv,
)


def test_sliding_mean_matches_a_direct_window():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 2, 357)
    expected = [values[max(0, t - 99) : t + 1].mean() for t in range(len(values))]
    np.testing.assert_allclose(sliding_mean(values, 100), expected)
    np.testing.assert_array_equal(
        window_outcomes(357, 100, 5), [5 * min(t + 1, 100) for t in range(357)]
    )


def test_csv_and_document_hold_every_plotted_number(tmp_path):
    panel = CurveSet("demo", "error")
    for curve in ([0.5, 0.25], [0.5, 0.75], [0.5, 0.5]):
        panel.add("a", curve, n_outcomes=[1, 2])
    panel.add_exact("guess", [0.5, 0.5])
    panel.add_scalar("a: non-zero regrets", 3)
    write_csv({"p": panel}, tmp_path / "demo.csv")
    lines = (tmp_path / "demo.csv").read_text().splitlines()
    assert lines[0] == "panel,learner,round,mean,low,high,n_trials,interval"
    assert lines[2].startswith("p,a,2,0.5,") and lines[2].endswith(",3,korn-graubard")
    assert lines[3] == "p,guess,1,0.5,0.5,0.5,,exact"
    document = json.loads(json.dumps(panels_document({"p": panel})))
    curve = document["p"]["curves"]["a"]
    assert curve["mean"] == [0.5, 0.5] and curve["n_trials"] == 3
    assert all(0 <= lo <= 0.5 <= hi <= 1 for lo, hi in zip(curve["low"], curve["high"]))
    assert document["p"]["scalars"]["a: non-zero regrets"]["mean"] == 3


def test_rate_panels_need_consistent_outcome_counts():
    panel = CurveSet("demo", "error")
    with pytest.raises(ValueError, match="n_outcomes"):
        panel.add("a", [0.5])
    panel.add("a", [0.5], n_outcomes=10)
    with pytest.raises(ValueError, match="differs between trials"):
        panel.add("a", [0.5], n_outcomes=20)
    with pytest.raises(ValueError, match="kind"):
        CurveSet("demo", "error", kind="ratio")


def test_every_learner_has_one_look_in_every_figure():
    """One colour per learner across figures, none shared with a reference
    line (which are grey), and the stream leaderboard's learners told apart."""
    from sklearn_localregret.experiments import _styles
    from sklearn_localregret.experiments.stream_learners import LEARNERS
    from sklearn_localregret.experiments.trees import GROUPS

    paper = [
        *(g for g in GROUPS if g != "hindsight"),
        "removal sets",
        "local external (paper)",
        "Winnow2",
        "WalkSAT (offline)",
    ]
    references = set(_styles.REFERENCES)
    for learner in [*paper, *LEARNERS]:
        assert _styles.style(learner)["color"] != _styles._FALLBACK[0], learner
        assert _styles.style(learner)["color"] not in {
            _styles.style(r)["color"] for r in references
        }
    looks = {
        (s["color"], s["ls"], s.get("marker")) for s in map(_styles.style, LEARNERS)
    }
    assert len(looks) == len(LEARNERS)
    assert (
        _styles.style("C4.5 retrained")["color"]
        == (_styles.style("tree-retrained")["color"])
    )


def test_a_learner_keeps_its_colour_across_panels(tmp_path):
    pytest.importorskip("matplotlib")
    from sklearn_localregret.experiments._report import _draw_panel, pyplot

    plt = pyplot()
    first, second = CurveSet("a", "error"), CurveSet("b", "error")
    for panel, learners in (
        (first, ["x", "C4.5 retrained"]),
        (second, ["C4.5 retrained"]),
    ):
        for learner in learners:
            panel.add(learner, [0.5, 0.4], n_outcomes=10)
    fig, axes = plt.subplots(1, 2)
    colours = [
        {line.get_label(): line.get_color() for line in _draw_panel(ax, panel)}
        for ax, panel in zip(axes, (first, second))
    ]
    plt.close(fig)
    assert colours[0]["C4.5 retrained"] == colours[1]["C4.5 retrained"]
