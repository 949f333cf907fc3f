"""Which tests a path leaves undecided, with missing values and categories:
the compiled kernel and its Python twin against brute force."""

import itertools

import numpy as np

from sklearn_localregret.locality.tree_coloring import TreeColoring
from sklearn_localregret.locality.tree_round_kernels import path_masks
from sklearn_localregret.thresholds import (
    EQUALS,
    GREATER_OR_MISSING,
    QuantileThresholds,
    ThresholdTests,
)

CATEGORICAL = np.array([False, False, False, True])


def catalogue(seed=0):
    """Column 0 numeric, 1 and 2 numeric with missing values, 3 categorical
    (codes 0..3, and NaN: a value without a code)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)).round(1)
    X[rng.random(300) < 0.3, 1] = np.nan
    X[rng.random(300) < 0.2, 2] = np.nan
    X[:, 3] = rng.integers(0, 4, 300)
    tests = ThresholdTests(QuantileThresholds(max_thresholds=3, first_checkpoint=8), 4)
    for lo in range(0, 300, 5):
        tests.observe(X[lo : lo + 5], CATEGORICAL)
    return tests


def grid_points(tests):
    """Every region of the tests: thresholds, between and beyond them, and the
    missing value where a column has one (always, for categories)."""
    axes = []
    for j in range(tests.n_features):
        on_j = tests.tests_of(j)
        t = np.unique(tests.threshold[on_j])
        if CATEGORICAL[j]:
            axes.append(np.concatenate((t, [np.nan])))
            continue
        points = [t, (t[1:] + t[:-1]) / 2, [t[0] - 1, t[-1] + 1]]
        if tests.missing[j]:
            points.append([np.nan])
        axes.append(np.concatenate(points))
    return np.array(list(itertools.product(*axes)))


def decided_by_brute_force(outcomes, path):
    """Tests whose outcome is the same on every grid point following ``path``."""
    follows = np.ones(outcomes.shape[0], dtype=bool)
    for v, branch in path:
        follows &= outcomes[:, v] == bool(branch)
    here = outcomes[follows]
    return here.all(axis=0) | ~here.any(axis=0)


def random_tree(coloring, rng, depth=4):
    """A random played tree in pre-order: (test, parent, branch, path) per node,
    splitting only on tests its path leaves undecided."""
    nodes = []

    def grow(parent, branch, path):
        here = len(nodes)
        nodes.append([-1, parent, branch, path])
        open_tests = np.flatnonzero(coloring.available_tests(path))
        if len(path) < depth and open_tests.size and rng.random() < 0.85:
            v = int(rng.choice(open_tests))
            nodes[here][0] = v
            grow(here, 0, path + ((v, 0),))
            grow(here, 1, path + ((v, 1),))

    grow(-1, 0, ())
    return nodes


def test_kernel_and_twin_agree_with_brute_force():
    tests = catalogue()
    kinds = set(tests.kind.tolist())
    assert EQUALS in kinds and GREATER_OR_MISSING in kinds
    coloring = TreeColoring(tests, 2)
    outcomes = tests.outcomes(grid_points(tests))
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(60):
        nodes = random_tree(coloring, rng)
        node_test = np.array([n[0] for n in nodes], dtype=np.int64)
        node_parent = np.array([n[1] for n in nodes], dtype=np.int64)
        node_branch = np.array([n[2] for n in nodes], dtype=np.int64)
        masks = np.empty((len(nodes), tests.n_tests), dtype=bool)
        path_masks(
            len(nodes),
            node_test,
            node_parent,
            node_branch,
            tests.feature_kind,
            tests.threshold,
            masks,
        )
        for i, (*_, path) in enumerate(nodes):
            expected = ~decided_by_brute_force(outcomes, path)
            np.testing.assert_array_equal(coloring.available_tests(path), expected)
            np.testing.assert_array_equal(masks[i], expected, err_msg=str(path))
            checked += 1
    assert checked > 300


def test_a_missing_row_below_its_branch_keeps_the_column_open():
    """After ``x > t or missing`` passed, a missing row is on that branch: the
    column's ``x > s`` with s < t (missing fails) still splits the rows there,
    while ``x > s or missing`` no longer does."""
    tests = catalogue()
    coloring = TreeColoring(tests, 2)
    j = 1
    on_j = tests.tests_of(j)
    passes = [v for v in on_j if tests.kind[v] == GREATER_OR_MISSING]
    top = max(passes, key=lambda v: tests.threshold[v])
    mask = coloring.available_tests(((top, 1),))
    for v in on_j:
        below = tests.threshold[v] < tests.threshold[top]
        if below:
            assert mask[v] == (tests.kind[v] != GREATER_OR_MISSING), v
