"""The compiled kernels against the numpy and Python code they replaced.

Every kernel is checked on the tables that learners really build (a tree
learner fitted on a stream with 2, 10 and 20 classes: both pair-sum code
paths) and on adversarial factors (ties, exact zeros, magnitudes over six
orders), to 1e-12 relative to the size of the numbers compared: both sides are
exact, and what separates them is the order of floating-point sums.
"""

import numpy as np
import pytest
from reference_labels import ReferenceLabels
from sklearn.datasets import make_classification

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import (
    HierarchicalLabels,
    positive_pair_marginals,
    positive_pair_sums,
)
from sklearn_localregret.engine.compiled.pair_sums import (
    pair_marginals,
    positive_pair_sum,
)


def adversarial_factors(k, seed, n=300):
    """Factors ``a``, ``b``, ``c`` of ``n`` tests' stumps, the hard cases."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, k)) * 10 ** rng.uniform(-3, 3, (n, 1))
    b = rng.normal(size=(n, k)) * 10 ** rng.uniform(-3, 3, (n, 1))
    c = rng.normal(size=n) * 10 ** rng.uniform(-3, 3, n)
    a[::7], b[::7], c[::7] = a[::7].round(), b[::7].round(), c[::7].round()
    b[::11, : k // 2] = -a[::11, : k // 2] + c[::11, None]  # pairs exactly at 0
    c[::13] = 1e9  # nothing positive
    c[::17] = -1e9  # everything positive
    return a, b, c


@pytest.mark.parametrize("k", [1, 2, 3, 16, 17, 40])
def test_pair_sum_kernels_match_numpy(k):
    a, b, c = adversarial_factors(k, seed=k)
    sums = positive_pair_sums(a, b, c)
    first, second = positive_pair_marginals(a, b, c)
    got_first, got_second = np.empty(k), np.empty(k)
    for i in range(len(c)):
        size = np.abs(a[i]).max() + np.abs(b[i]).max() + abs(c[i])
        tolerance = 1e-12 * k * k * size
        assert abs(positive_pair_sum(a[i], b[i], c[i]) - sums[i]) <= tolerance
        pair_marginals(a[i], b[i], c[i], got_first, got_second)
        np.testing.assert_allclose(got_first, first[i], rtol=0, atol=tolerance)
        np.testing.assert_allclose(got_second, second[i], rtol=0, atol=tolerance)
    # Exact zeros stay exact: a draw must never pick a rounding dust.
    assert positive_pair_sum(a[13], b[13], c[13]) == 0.0


def fitted_tree(n_classes, seed=0, n_rows=1500, leaf_model=None, **params):
    # Label leaves by default: the learnt trees are then large (a model leaf
    # at the root would win on these data and keep the tables small).
    X, y = make_classification(
        n_samples=n_rows,
        n_features=12,
        n_informative=8,
        n_classes=n_classes,
        n_clusters_per_class=1,
        random_state=seed,
    )
    model = LocalRegretTreeClassifier(
        random_state=seed, leaf_model=leaf_model, **params
    ).fit(X, y)
    return model, X


@pytest.mark.parametrize(
    "n_classes, leaf_model, n_rows, seed",
    [
        (2, None, 1500, 0),
        (10, None, 1500, 0),
        (20, None, 1500, 0),
        (2, "naive_bayes", 300, 3),
        (10, "naive_bayes", 1500, 0),
    ],
)
def test_learnt_tables_predict_as_the_python_walk(n_classes, leaf_model, n_rows, seed):
    # The table a learner builds (hundreds of sites, positive weight spread
    # over many tests, discounting) through both walks, one row and many.
    # With model leaves the reference computes the models apart, in numpy.
    model, X = fitted_tree(n_classes, seed, leaf_model=leaf_model, n_rows=n_rows)
    table = model.regret_table_
    assert table.n_rows > 50
    if leaf_model:  # model leaves in play at many sites
        assert np.count_nonzero(table._leaf[: table.n_rows, 0, n_classes] > 0) > 5
    if n_rows == 300:  # early on: pi is spread, a row's labels are a mixture
        walked = model.pi_proba(X[:300])
        assert ((walked > 0.01) & (walked < 0.99)).any(axis=1).mean() > 0.2
    outcomes = model._tests.outcomes(X[:300])
    reference = ReferenceLabels(table).probabilities(outcomes)
    # Tests alone, and grouped by feature (one bisection per feature).
    alone, grouped = HierarchicalLabels(table), HierarchicalLabels(table)
    grouped.group_tests(model.test_features_, model.test_thresholds_)
    for compiled in (alone, grouped):
        got = compiled.probabilities(outcomes)
        np.testing.assert_allclose(got, reference, rtol=0, atol=1e-12)
        for i in range(0, 300, 37):
            one = compiled.probabilities(outcomes[i : i + 1])
            np.testing.assert_allclose(one, reference[i : i + 1], rtol=0, atol=1e-12)
    # The learner's own predict_proba is the grouped walk (its leaves read
    # their sites' models where those lead: tests/engine/test_model_reads.py).
    np.testing.assert_array_equal(
        model.pi_proba(X[:300]), grouped.probabilities(outcomes, reads=True)
    )
    model.set_params(leaf_prediction="label")
    np.testing.assert_array_equal(model.pi_proba(X[:300]), got)


def test_a_grouping_that_is_not_monotone_is_caught():
    # Power: declaring the tests of one feature in the wrong order (a row
    # then does not pass a prefix) changes the answer; the checks above
    # would see it.
    model, X = fitted_tree(2)
    outcomes = model._tests.outcomes(X[:300])
    reference = ReferenceLabels(model.regret_table_).probabilities(outcomes)
    wrong = HierarchicalLabels(model.regret_table_)
    wrong.group_tests(model.test_features_, -model.test_thresholds_)
    assert np.abs(wrong.probabilities(outcomes) - reference).max() > 1e-3


def test_cache_kept_across_rounds_equals_a_fresh_one():
    # One object refreshed after every call (slots rewritten, the pool
    # compacted as it fills) answers as a fresh one, and as the Python walk.
    X, y = make_classification(n_samples=2000, n_features=8, random_state=3)
    model = LocalRegretTreeClassifier(random_state=3, discount=0.9)
    model.partial_fit(X[:5], y[:5], classes=[0, 1])
    kept = model._player.labels
    outcomes = None
    for lo in range(5, 2000, 45):
        model.partial_fit(X[lo : lo + 45], y[lo : lo + 45])
        outcomes = model._tests.outcomes(X[:50])
        fresh = HierarchicalLabels(model.regret_table_)
        fresh.group_tests(model.test_features_, model.test_thresholds_)
        fresh = fresh.probabilities(outcomes)
        np.testing.assert_array_equal(kept.probabilities(outcomes), fresh)
    reference = ReferenceLabels(model.regret_table_).probabilities(outcomes)
    np.testing.assert_allclose(fresh, reference, rtol=0, atol=1e-12)
    live = int(kept._slot_len[: model.regret_table_.n_rows].sum())
    assert live <= kept.pool_size <= kept._pool_int.shape[0]


def test_a_site_wider_than_the_pool_grows_it():
    # A first site with positive weight on 100 tests: more entries than the
    # empty pool, or its first growth, can hold (a refresh must grow the pool
    # until the row fits, not loop), then rows that need compaction.
    from test_hierarchical_labels import many_tests_table

    rng = np.random.default_rng(5)
    table = many_tests_table(11, n_classes=2, n_tests=100, depth=1)
    labels = HierarchicalLabels(table)
    X = rng.random((20, table.n_tests)) < 0.5
    np.testing.assert_allclose(
        labels.probabilities(X),
        ReferenceLabels(table).probabilities(X),
        rtol=0,
        atol=1e-12,
    )
    assert labels.pool_size >= 90


@pytest.mark.parametrize("n_classes", [2, 10])
def test_site_by_site_walk_equals_the_row_by_row_walk(n_classes):
    # Batches of 32 rows or more are walked site by site, in blocks of rows;
    # each row must get exactly what the row-by-row walk gives it, across
    # block boundaries too (600 rows: three blocks).
    model, X = fitted_tree(n_classes, n_rows=2000)
    X = np.vstack([X, X[:100]])[:600]
    labels = model._player.labels
    batch = labels.probabilities(model._tests.outcomes(X))
    for i in range(0, 600, 7):
        one = labels.probabilities(model._tests.outcomes(X[i : i + 1]))
        np.testing.assert_allclose(one[0], batch[i], rtol=0, atol=1e-15)
    few = labels.probabilities(model._tests.outcomes(X[:31]))  # row by row
    np.testing.assert_allclose(few, batch[:31], rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_sorted_order_is_numpys_stable_argsort(seed):
    """The kernels' merge sort (instead of numba's np.sort/np.argsort) orders
    as numpy's stable sort: ties in their order, NaN last."""
    from sklearn_localregret.engine.compiled.sort_order import sorted_order

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 70))
    keys = rng.integers(-5, 5, size=n).astype(float)  # many ties
    keys[rng.random(n) < 0.1] = np.nan
    keys[rng.random(n) < 0.1] = -0.0
    np.testing.assert_array_equal(sorted_order(keys), np.argsort(keys, kind="stable"))
    ints = rng.integers(0, 1000, size=n)
    np.testing.assert_array_equal(sorted_order(ints), np.argsort(ints, kind="stable"))


@pytest.mark.parametrize("seed", range(5))
def test_search_right_is_numpys_searchsorted_right(seed):
    from sklearn_localregret.engine.compiled.sort_order import search_right

    rng = np.random.default_rng(seed)
    values = np.sort(rng.integers(0, 10, size=int(rng.integers(0, 30))).astype(float))
    for key in [*rng.integers(-1, 11, size=20).astype(float), np.nan, -np.inf, np.inf]:
        assert search_right(values, key) == np.searchsorted(values, key, side="right")
