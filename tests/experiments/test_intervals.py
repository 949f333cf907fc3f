"""The intervals of the experiments: nominal coverage, inside [0, 1], honest
about too few trials."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_localregret.experiments._intervals import (
    MIN_TRIALS,
    format_estimate,
    mean_interval,
    rate_interval,
)
from sklearn_localregret.experiments._report import CurveSet

# Coverage is estimated from REPLICATIONS simulated experiments; its Monte
# Carlo standard error is sqrt(c (1 - c) / REPLICATIONS) <= 0.0035 near
# c = 0.95, so a valid interval is below 0.95 by more than 4 of them
# (0.014) with probability < 1e-4.
REPLICATIONS = 4000
MC_SE = np.sqrt(0.95 * 0.05 / REPLICATIONS)


def _coverage(trial_rates, true_rate, n_outcomes):
    low, high = rate_interval(trial_rates, n_outcomes)
    return np.mean((low <= true_rate) & (true_rate <= high))


@pytest.mark.parametrize("n_trials", [MIN_TRIALS, 10])
@pytest.mark.parametrize("rate", [0.05, 0.3])
def test_rate_interval_covers_bernoulli_trials_at_the_nominal_rate(n_trials, rate):
    # Each trial: the error rate of 100 independent Bernoulli(rate) outcomes.
    # Replications are the columns: one call computes all their intervals.
    rng = np.random.default_rng(0)
    m = 100
    rates = rng.binomial(m, rate, size=(n_trials, REPLICATIONS)) / m
    coverage = _coverage(rates, rate, m)
    assert coverage >= 0.95 - 4 * MC_SE
    if n_trials == 10:
        # Not vacuous. The interval is conservative by design (t_9 instead
        # of z widens it by 15%, Clopper-Pearson adds its discreteness):
        # about 0.988 here. One that ignores how many outcomes a trial holds
        # (effective size = number of trials) covers nearly always; 0.998 is
        # 5 standard errors (0.0017 at 0.988) above the right one.
        assert coverage <= 0.998


@pytest.mark.parametrize("n_trials", [5, 10])
def test_rate_interval_widens_when_trials_differ(n_trials):
    # Trials of different difficulty: each trial's true rate is drawn from a
    # Beta with mean 0.3. Pooling all outcomes as if independent would cover
    # far less often; the effective sample size keeps the nominal rate.
    rng = np.random.default_rng(1)
    m, mean, concentration = 500, 0.3, 20
    trial_p = rng.beta(
        mean * concentration, (1 - mean) * concentration, size=(n_trials, REPLICATIONS)
    )
    rates = rng.binomial(m, trial_p) / m
    assert _coverage(rates, mean, m) >= 0.95 - 4 * MC_SE
    # The exact binomial interval on the pooled outcomes, as if independent:
    k, n = np.round(rates.sum(axis=0) * m), n_trials * m
    naive_low = stats.beta.ppf(0.025, np.maximum(k, 1e-9), n - k + 1)
    naive_high = stats.beta.ppf(0.975, k + 1, np.maximum(n - k, 1e-9))
    naive = np.mean((naive_low <= mean) & (mean <= naive_high))
    assert naive < 0.8  # what the effective sample size repairs


@settings(max_examples=200, deadline=None)
@given(
    n_trials=st.integers(MIN_TRIALS, 30),
    m=st.integers(1, 1000),
    data=st.data(),
)
def test_rate_interval_stays_in_the_unit_interval(n_trials, m, data):
    counts = data.draw(
        st.lists(st.integers(0, m), min_size=n_trials, max_size=n_trials)
    )
    rates = np.asarray(counts, dtype=float)[:, None] / m
    low, high = rate_interval(rates, m)
    mean = rates.mean()
    assert 0.0 <= low[0] <= mean <= high[0] <= 1.0
    assert high[0] > low[0]  # never a zero-width claim of certainty


def test_all_zero_trials_get_an_upper_bound_not_zero_width():
    low, high = rate_interval(np.zeros((5, 1)), 500)
    assert low[0] == 0.0 and 0.0 < high[0] < 0.01
    low, high = rate_interval(np.ones((5, 1)), 500)
    assert high[0] == 1.0 and 0.99 < low[0] < 1.0


@pytest.mark.parametrize("n_trials", [1, 2])
def test_too_few_trials_give_no_interval(n_trials):
    rates = np.full((n_trials, 4), 0.25)
    for low, high in (rate_interval(rates, 100), mean_interval(rates)):
        assert np.all(np.isnan(low)) and np.all(np.isnan(high))
    panel = CurveSet("demo", "error")
    for _ in range(n_trials):
        panel.add("learner", [0.432, 0.432], n_outcomes=100)
    plural = "s" if n_trials > 1 else ""
    assert panel.summary("learner").format() == f"0.432 n/a ({n_trials} trial{plural})"
    assert not panel.summary("learner").has_interval


def test_mean_interval_is_student_t_cut_at_the_support():
    values = np.array([1.0, 2.0, 4.0])
    half = stats.t.ppf(0.975, 2) * values.std(ddof=1) / np.sqrt(3)
    low, high = mean_interval(values)
    assert low[0] == pytest.approx(7 / 3 - half)
    assert high[0] == pytest.approx(7 / 3 + half)
    low, high = mean_interval(values, lower=0.0)
    assert low[0] == 0.0 and high[0] == pytest.approx(7 / 3 + half)


def test_format_estimate():
    assert format_estimate(0.1234, 0.1, 0.15, 10) == "0.123 [0.100, 0.150]"
    assert format_estimate(0.5, 0.5, 0.5, None) == "0.500"
    assert format_estimate(0.2, np.nan, np.nan, 1) == "0.200 n/a (1 trial)"


@pytest.mark.parametrize(
    "rates, n_outcomes, level, match",
    [
        ([[1.5], [0.5], [0.5]], 10, 0.95, "in \\[0, 1\\]"),
        ([[0.5], [np.nan], [0.5]], 10, 0.95, "finite"),
        ([[0.5], [0.5], [0.5]], 0, 0.95, "n_outcomes"),
        ([[0.5], [0.5], [0.5]], 10, 1.0, "level"),
        (np.zeros((0, 3)), 10, 0.95, "at least one trial"),
    ],
)
def test_bad_input_is_named(rates, n_outcomes, level, match):
    with pytest.raises(ValueError, match=match):
        rate_interval(rates, n_outcomes, level=level)


def test_plotted_bands_stay_where_the_quantity_lives(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from sklearn_localregret.experiments import _report

    # Three trials near 0: a Student-t band would dip below 0 ...
    trials = [[0.0, 0.01], [0.0, 0.0], [0.08, 0.0]]
    values = np.array(trials)
    t_low = values.mean(0) - stats.t.ppf(0.975, 2) * values.std(0, ddof=1) / np.sqrt(3)
    assert t_low.min() < 0
    rate_panel = CurveSet("rates", "error")
    mean_panel = CurveSet("regret", "regret / T", kind="mean")
    for curve in trials:
        rate_panel.add("learner", curve, n_outcomes=20)
        mean_panel.add("learner", curve)
    captured = []
    original = plt.close

    def keep_figure(fig):
        captured.append(fig)

    plt.close = keep_figure
    try:
        _report.plot_panels({"a": rate_panel, "b": mean_panel}, tmp_path / "p.png")
    finally:
        plt.close = original
    (fig,) = captured
    bands = [c for ax in fig.axes for c in ax.collections]
    assert len(bands) == 2
    for band in bands:
        y = np.vstack([p.vertices for p in band.get_paths()])[:, 1]
        assert y.min() >= 0.0 and y.max() <= 1.0  # ... these never do
    plt.close(fig)
    assert (tmp_path / "p.png").stat().st_size > 0
