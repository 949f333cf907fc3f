"""Adaptive leaf reads: leaves that predict with their site's model where it leads.

A table with ``model_reads`` keeps every site's naive Bayes model and two
prequential scores (what the model and the majority label got right). A
prediction with ``reads=True`` lets a leaf at a site whose model leads
predict the model's label for the row. The references are built from the
definitions, apart from the engine: every tree over 2 features (:mod:`exact`),
its exact stationary probability, each tree's leaf read in numpy
(:func:`reference_labels.model_labels`); and the scores' update by routing the
round's rows down the played tree against a copy of the table before the
round.
"""

import copy

import numpy as np
import pytest
from exact import ColoredTreeGraph, set_site, valid_paths
from reference_labels import model_labels
from test_samplers_exact import (
    N_CLASSES,
    N_FEATURES,
    check_reference,
    random_factors,
)

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine import HierarchicalLabels, StumpRegretTable

ALL_ROWS = np.array([[a, b] for a in (0, 1) for b in (0, 1)], dtype=bool)
QUIET = ((0, 1),)  # the site given no positive weight but counts


def random_read_table(seed, leaf_model=False):
    """Random regrets and counts, random read scores (some sites' models
    lead, some not), and one site without weight whose model leads."""
    rng = np.random.default_rng(seed)
    n_leaves = N_CLASSES + int(leaf_model)
    table = StumpRegretTable(
        N_CLASSES, n_tests=N_FEATURES, leaf_model=leaf_model, model_reads=True
    )
    for path in valid_paths(N_FEATURES):
        if path and path != QUIET and rng.random() >= 0.8:
            continue
        used = {v for v, _ in path}
        leaves = random_factors(rng, n_leaves)[0]
        stumps = {}
        for v in range(N_FEATURES):
            if v in used:
                continue
            s_true, s_false = rng.integers(0, 6, N_CLASSES), rng.integers(0, 6, 2)
            stumps[v] = (s_true, s_false, float(rng.uniform(0, 8)))
        if path == QUIET:  # counts, but every regret below zero
            leaves = -np.ones(n_leaves)
            stumps = {1: (np.array([3, 1]), np.array([0, 4]), 100.0)}
        set_site(table, path, leaves, stumps)
    n = table.n_rows
    table._reads[:n] = rng.uniform(0.0, 5.0, (n, 2))
    table._reads[table.find(QUIET)] = [2.0, 1.0]
    table._versions[:n] += 1
    return table


def _read_label(tree, x, table):
    """A tuple tree's label of one data row, its leaf read as defined: the
    site's model's label where the site's model leads, else the leaf's own
    (a model leaf: its model's)."""
    path = ()
    while tree[0] == "split":
        branch = int(x[tree[1]])
        path += ((tree[1], branch),)
        tree = tree[2] if branch else tree[3]
    row = table.find(path)
    scores = table.read_scores
    reads = row >= 0 and scores[row, 0] > scores[row, 1]
    if tree[1] != N_CLASSES and not reads:
        return tree[1]
    return int(model_labels(table, row, x[None])[0])


def exact_read_probabilities(table, n_models):
    graph = ColoredTreeGraph(table, N_FEATURES, N_CLASSES, n_models=n_models)
    pi = check_reference(graph)
    exact = np.zeros((len(ALL_ROWS), N_CLASSES))
    for tree, p in pi.items():
        for i, x in enumerate(ALL_ROWS):
            exact[i, _read_label(tree, x, table)] += p
    return exact


@pytest.mark.parametrize("seed", [2, 3, 6])
@pytest.mark.parametrize("leaf_model", [False, True])
def test_read_walk_matches_the_enumerated_trees(seed, leaf_model):
    table = random_read_table(seed, leaf_model)
    exact = exact_read_probabilities(table, int(leaf_model))
    labels = HierarchicalLabels(table)
    got = labels.probabilities(ALL_ROWS, reads=True)
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)
    for i in range(len(ALL_ROWS)):  # one row at a time
        one = labels.probabilities(ALL_ROWS[i : i + 1], reads=True)
        np.testing.assert_allclose(one, exact[i : i + 1], rtol=0, atol=1e-12)
    # Many rows: the site-by-site walk.
    many = labels.probabilities(np.tile(ALL_ROWS, (16, 1)), reads=True)
    np.testing.assert_allclose(many, np.tile(exact, (16, 1)), rtol=0, atol=1e-12)
    # The reads matter here (else this test could not fail): without them
    # the walk gives the leaves' own labels.
    plain = labels.probabilities(ALL_ROWS)
    assert np.abs(plain - exact).max() > 1e-3


def test_a_site_without_weight_reads_its_model():
    # The quiet site is a leaf for ever (no positive weight): where its model
    # leads, every tree that reaches it gives the model's label.
    table = random_read_table(2)
    row = table.find(QUIET)
    assert table.site_totals()[row] == 0.0
    x = np.array([[1, 0]], dtype=bool)  # passes test 0: reaches QUIET
    model = int(model_labels(table, row, x)[0])
    exact = exact_read_probabilities(table, 0)[2]
    np.testing.assert_allclose(
        HierarchicalLabels(table).probabilities(x, reads=True)[0], exact, atol=1e-12
    )
    # Planted: the same table with the quiet site's model behind gives less
    # weight to the model's label (the read really is taken there).
    table._reads[row] = [1.0, 2.0]
    table._versions[row] += 1
    behind = HierarchicalLabels(table).probabilities(x, reads=True)[0]
    assert behind[model] < exact[model] - 1e-6


def _round_rows(seed, n_rows=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] > 0).astype(int)
    return X, y


def test_a_round_scores_every_played_site_before_learning():
    # The scores' update against its definition: each site of the played
    # tree adds, over the round's rows that reach it, the weight its model
    # and its majority label (both as they stood before the round) get right.
    X, y = _round_rows(0)
    est = LocalRegretTreeClassifier(random_state=0, warm_start=0, batch_size=20)
    est.partial_fit(X[:200], y[:200], classes=[0, 1])
    table = est._player.table
    checked = 0
    for start in range(200, 400, 20):
        before = copy.deepcopy(table)
        X_round, y_round = X[start : start + 20], y[start : start + 20]
        est.partial_fit(X_round, y_round)
        outcomes = est._tests.outcomes(X_round)
        tree = est._player.last_tree
        expected = np.zeros_like(table._reads[: table.n_rows])
        for path, reaching in _sites_of(tree, outcomes):
            row, old = table.find(path), before.find(path)
            if old < 0 or not reaching.any():
                continue  # a new site (no counts before) or no row reached
            t = before.n_tests
            seen = before._true[old, :t] + before._false[old, :t]
            counts = seen.max(axis=0)
            if counts.max() <= 0.0:
                continue
            majority = int(np.argmax(counts))
            model = model_labels(before, old, outcomes[reaching][:, :t])
            labels = y_round[reaching]
            expected[row] += [np.sum(model == labels), np.sum(labels == majority)]
            checked += 1
        old_scores = np.zeros_like(expected)
        n_old = before.n_rows
        old_scores[:n_old] = before.read_scores * table.discount
        np.testing.assert_allclose(
            table.read_scores, old_scores + expected, rtol=1e-9, atol=1e-9
        )
    assert checked > 20


def _sites_of(tree, outcomes, path=(), reaching=None):
    """(path, rows reaching it) for every node of a played tree."""
    if reaching is None:
        reaching = np.ones(len(outcomes), dtype=bool)
    yield path, reaching
    if hasattr(tree, "test"):
        v = tree.test
        yield from _sites_of(
            tree.true_child, outcomes, path + ((v, 1),), reaching & outcomes[:, v]
        )
        yield from _sites_of(
            tree.false_child, outcomes, path + ((v, 0),), reaching & ~outcomes[:, v]
        )


def test_the_learner_reads_as_its_sampled_trees():
    # predict_proba with adaptive reads (the exact walk) against the same
    # learner's fixed-seed sample of trees read leaf by leaf: the sample's
    # mean is within 5 standard errors (0.5 / sqrt(n) each) of the walk.
    X, y = _round_rows(2)
    est = LocalRegretTreeClassifier(random_state=2).fit(X, y)
    table = est._player.table
    assert (table.read_scores[:, 0] > table.read_scores[:, 1]).sum() > 3
    exact = est.pi_proba(X[:50])
    n = 4000
    est.set_params(n_predict_trees=n)
    sampled = est.pi_proba(X[:50])
    assert np.abs(sampled - exact).max() < 5 * 0.5 / np.sqrt(n)
    est.set_params(n_predict_trees=None, leaf_prediction="label")
    assert np.abs(est.pi_proba(X[:50]) - exact).max() > 0.01


def test_a_site_no_row_reached_keeps_its_model_and_its_cache():
    """Most nodes of a played tree are reached by none of the round's rows:
    their update pays the bias only, their counts and smoothing scale stay,
    and the round keeps their naive Bayes cache. After every round the cache
    of every site is its model computed afresh from the table (a cache kept
    when it was stale, or a scale moved without the counts, would differ)."""
    from sklearn_localregret.engine.compiled.leaf_model import refresh_leaf_model

    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    model = LocalRegretTreeClassifier(random_state=0, warm_start=50)
    kept = 0
    for lo in range(0, 600, 5):
        table = model._player.table if lo else None
        before = None
        if table is not None:
            n = table.n_rows
            before = (table._versions[:n].copy(), table._model_scale[:n].copy())
        model.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
        table = model._player.table
        if before is not None:
            versions, scales = before
            n = len(versions)
            updated = table._versions[:n] > versions
            same_scale = table._model_scale[:n] == scales
            kept += int(np.sum(updated & same_scale & (scales > 0)))
        t, n = table.n_tests, table.n_rows
        odds, base = np.zeros_like(table._odds), np.zeros_like(table._base)
        for r in range(n):
            scale, pairs = table._model_scale[r], table.missing_partners
            refresh_leaf_model(
                table._true, table._false, r, t, scale, odds, base, pairs,
                table.next_thresholds,
            )  # fmt: skip
        np.testing.assert_allclose(table._odds[:n, :t], odds[:n, :t], rtol=1e-12)
        np.testing.assert_allclose(table._base[:n], base[:n], rtol=1e-12)
    assert kept > 0  # the case happened (24 times in this stream)
