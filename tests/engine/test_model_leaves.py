"""Model leaves: the enlarged tree graph, its samplers, its walk and its update.

A model leaf (label ``K``) predicts with its site's naive Bayes model. The
references here are built from the definitions, apart from the engine: the
291 trees over 2 features whose leaves are the 2 labels or the model
(:mod:`exact` with ``n_models=1``), their stationary distribution by dense
squaring, the models by numpy (:func:`reference_labels.model_labels`), and
the regret update by walking every row down every neighbour of the played
tree.
"""

import itertools

import numpy as np
import pytest
from exact import ColoredTreeGraph, enumerate_trees, set_site, tree_edges, valid_paths
from reference_labels import model_labels
from test_samplers_exact import (
    N_CLASSES,
    N_DRAWS,
    N_FEATURES,
    assert_close_in_tv,
    check_reference,
    random_factors,
)

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._tree import ExternalPlayer
from sklearn_localregret.engine import (
    HierarchicalLabels,
    HierarchicalSampler,
    StumpRegretTable,
)
from sklearn_localregret.engine.compiled.leaf_model import SMOOTHING
from sklearn_localregret.locality.decision_tree import Leaf, Split

MODEL = N_CLASSES  # the model leaf's label
ALL_ROWS = np.array([[a, b] for a in (0, 1) for b in (0, 1)], dtype=bool)


def random_model_table(seed):
    """Random regrets on the enlarged graph, with factors that give the
    sites' models different answers on different rows."""
    rng = np.random.default_rng(seed)
    table = StumpRegretTable(N_CLASSES, n_tests=N_FEATURES, leaf_model=True)
    for path in valid_paths(N_FEATURES):
        if path and rng.random() >= 0.8:
            continue
        leaves = random_factors(rng, N_CLASSES + 1)[0]
        leaves[MODEL] = abs(leaves[MODEL]) + 0.5  # the model leaf in play
        used = {v for v, _ in path}
        stumps = {}
        for v in range(N_FEATURES):
            if v in used:
                continue
            # Non-negative class counts (the model reads them), a random cost.
            s_true, s_false = rng.integers(0, 6, N_CLASSES), rng.integers(0, 6, 2)
            stumps[v] = (s_true, s_false, float(rng.uniform(0, 8)))
        set_site(table, path, leaves, stumps)
    return table


def test_the_enlarged_graph():
    trees = enumerate_trees(N_FEATURES, N_CLASSES, n_models=1)
    assert len(trees) == 291  # leaves: 2 labels and the model
    # Out of the root leaf: the other label, the model leaf, 2 x 4 stumps.
    assert len(list(tree_edges(("leaf", 0), N_FEATURES, N_CLASSES, 1))) == 10
    model_root = ("leaf", MODEL)
    edges = {r for _, r, _ in tree_edges(model_root, N_FEATURES, N_CLASSES, 1)}
    assert ("leaf", MODEL) not in edges and ("leaf", 0) in edges


# Seeds whose tables give pi both model and label leaves, and a root model
# whose answer depends on the row (checked in the tests).
@pytest.mark.parametrize("seed", [2, 3])
def test_sampler_matches_the_enlarged_graph(seed):
    table = random_model_table(seed)
    graph = ColoredTreeGraph(table, N_FEATURES, N_CLASSES, n_models=1)
    exact_pi = check_reference(graph)
    with_model = sum(
        p for tree, p in exact_pi.items() if ("leaf", MODEL) in _leaves(tree)
    )
    assert 0.1 < with_model < 0.9  # model leaves and label leaves both matter
    sampler = HierarchicalSampler(table)
    rng = np.random.default_rng(seed + 10)
    assert_close_in_tv([sampler.sample(rng) for _ in range(N_DRAWS)], exact_pi)


def test_a_sampler_blind_to_the_model_leaf_fails():
    # Power: a sampler that reads the model leaf as the label 0 (planted)
    # fails the same check.
    table = random_model_table(2)
    exact_pi = check_reference(
        ColoredTreeGraph(table, N_FEATURES, N_CLASSES, n_models=1)
    )
    sampler = HierarchicalSampler(
        table, make_leaf=lambda c: ("leaf", 0 if c == MODEL else c)
    )
    rng = np.random.default_rng(2)
    draws = [sampler.sample(rng) for _ in range(N_DRAWS)]
    with pytest.raises(AssertionError):
        assert_close_in_tv(draws, exact_pi)


def _leaves(tree):
    if tree[0] == "leaf":
        return [tree]
    return _leaves(tree[2]) + _leaves(tree[3])


def _label(tree, x, table, path=()):
    """A tuple tree's label of one data row; a model leaf asks its site's
    model (the numpy reference)."""
    while tree[0] == "split":
        branch = int(x[tree[1]])
        path += ((tree[1], branch),)
        tree = tree[2] if branch else tree[3]
    if tree[1] != MODEL:
        return tree[1]
    return int(model_labels(table, table.find(path), x[None])[0])


@pytest.mark.parametrize("seed", [2, 3, 6])
def test_label_walk_matches_the_enlarged_graph(seed):
    table = random_model_table(seed)
    pi = check_reference(ColoredTreeGraph(table, N_FEATURES, N_CLASSES, n_models=1))
    exact = np.zeros((len(ALL_ROWS), N_CLASSES))
    for tree, p in pi.items():
        for i, x in enumerate(ALL_ROWS):
            exact[i, _label(tree, x, table)] += p
    # The models really differ by row (else a model leaf is a label leaf).
    root_labels = model_labels(table, table.find(()), ALL_ROWS)
    assert len(set(root_labels.tolist())) == 2
    got = HierarchicalLabels(table).probabilities(ALL_ROWS)
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)
    for i in range(len(ALL_ROWS)):
        one = HierarchicalLabels(table).probabilities(ALL_ROWS[i : i + 1])
        np.testing.assert_allclose(one, exact[i : i + 1], rtol=0, atol=1e-12)


def test_model_labels_are_naive_bayes_over_the_tests():
    # The compiled models against scikit-learn's BernoulliNB fitted on the
    # same rows, at a site whose tests were counted in every round.
    from sklearn.naive_bayes import BernoulliNB

    rng = np.random.default_rng(0)
    n_tests, k = 6, 3
    X = rng.random((200, n_tests)) < rng.random((3, n_tests))[rng.integers(0, 3, 200)]
    y = rng.integers(0, k, 200)
    X[y == 1, 0] ^= rng.random(int((y == 1).sum())) < 0.7  # test 0 tells class 1
    table = StumpRegretTable(k, n_tests=n_tests, leaf_model=True)
    row = table.row(())
    labelled = np.eye(k)[y]
    table.update(
        [row],
        np.zeros((1, k + 1)),
        np.zeros((1, k + 1), bool),
        (X.T.astype(float) @ labelled)[None],
        labelled.sum(axis=0)[None],
        np.zeros(1),
        np.ones((1, n_tests), bool),
    )
    nb = BernoulliNB(alpha=SMOOTHING, force_alpha=True).fit(X, y)
    test_rows = rng.random((300, n_tests)) < 0.5
    got = table.model_labels(np.zeros(300, dtype=np.int64), test_rows)
    np.testing.assert_array_equal(got, nb.predict(test_rows))
    assert len(set(got.tolist())) == k


def test_the_compiled_draw_plays_the_python_draw():
    # The same uniforms give the same trees, model leaves included.
    table = random_model_table(3)
    clf = LocalRegretTreeClassifier(L=None, leaf_model="naive_bayes", random_state=0)
    clf.partial_fit(np.zeros((1, N_FEATURES)), [0], classes=[0, 1])
    # Put the table in the learner (its tests: 0/1 features, test v = x_v).
    player = clf._player
    player.table = player.labels.table = table
    player.labels.paths.table = table
    player.sampler = HierarchicalSampler(table, make_leaf=Leaf, make_split=Split)
    player.labels.paths.__init__(table)
    seen = set()
    for seed in range(300):
        player.draw_flat(np.random.default_rng(seed))
        tree = player.flat.to_tree()
        assert tree == player.sampler.sample(np.random.default_rng(seed))
        seen.add(tree)
    assert any(MODEL in _labels_of(t) for t in seen)


def _labels_of(tree):
    if isinstance(tree, Leaf):
        return {tree.label}
    return _labels_of(tree.true_child) | _labels_of(tree.false_child)


# ---------------------------------------------------------------------------
# the regret update, from the definition
# ---------------------------------------------------------------------------

K3 = 3  # three labels: the model leaf is label 3
TREE = Split(0, Split(1, Leaf(K3), Leaf(2)), Leaf(K3))


def _walk(tree, x, models, path=()):
    while isinstance(tree, Split):
        branch = int(x[tree.test])
        path += ((tree.test, branch),)
        tree = tree.true_child if branch else tree.false_child
    return models[path] if tree.label == K3 else tree.label


def test_update_matches_the_definition(monkeypatch):
    """Every colour's regret after rounds on a fixed played tree with model
    leaves equals the sum of its gains, each neighbour's utility computed by
    walking the rows down it, a model leaf answering with its site's model
    as it stood before the round (the numpy reference)."""
    rng = np.random.default_rng(5)
    k, n_features, bias, batch = K3, 4, 0.3, 6
    clf = LocalRegretTreeClassifier(
        L=None,
        bias=bias,
        batch_size=batch,
        discount=1.0,
        warm_start=0,
        leaf_model="naive_bayes",
    )
    monkeypatch.setattr(
        ExternalPlayer, "draw_flat", lambda self, rng: self.play_next(TREE) or False
    )
    width = k + 1 + n_features * k * k
    paths = [(), ((0, 1),), ((0, 1), (1, 1)), ((0, 1), (1, 0)), ((0, 0),)]
    expected = {p: np.zeros(width) for p in paths}
    for round_ in range(8):
        X = rng.integers(0, 2, size=(batch, n_features))
        y = rng.integers(0, k, size=batch)
        w = rng.uniform(0.5, 2.0, size=batch)
        if round_ == 0:
            clf.partial_fit(X, y, classes=[0, 1, 2], sample_weight=w)
            continue  # the sites have no row before the first round
        table = clf.regret_table_
        # Every site's model's answer for every row, before the round.
        models = {p: model_labels(table, table.find(p), X.astype(bool)) for p in paths}
        per_row = [{p: int(models[p][i]) for p in paths} for i in range(batch)]

        def utility(tree):
            return sum(
                wi
                for xi, yi, wi, m in zip(X, y, w, per_row)
                if _walk(tree, xi, m) == yi
            )

        base = utility(TREE)
        for path, sub in _nodes(TREE):
            on_path = {v for v, _ in path}
            for c in range(k + 1):
                if sub != Leaf(c):
                    gain = utility(_put(TREE, path, Leaf(c))) - base
                    expected[path][c] += gain - bias
            for v in range(n_features):
                if v in on_path or (isinstance(sub, Split) and sub.test == v):
                    continue
                for ct, cf in itertools.product(range(k), repeat=2):
                    stump = Split(v, Leaf(ct), Leaf(cf))
                    gain = utility(_put(TREE, path, stump)) - base
                    expected[path][k + 1 + (v * k + ct) * k + cf] += gain - bias
        before = {p: _dense(table, table.find(p)) for p in paths}
        clf.partial_fit(X, y, sample_weight=w)
        for p in paths:
            expected[p] += before[p] if round_ == 1 else 0.0
    table = clf.regret_table_
    for p in paths:
        np.testing.assert_allclose(_dense(table, table.find(p)), expected[p], atol=1e-9)
    # The model colours moved (they were really computed) and differ by site.
    model_regrets = [expected[p][k] for p in paths if not _is_model(p)]
    assert len(set(np.round(model_regrets, 9))) > 1


def _is_model(path):
    sub = dict(_nodes(TREE))[path]
    return sub == Leaf(K3)


def _dense(table, row):
    leaves, stumps = table.dense_regrets()
    return np.concatenate((leaves[row], stumps[row].reshape(-1)))


def _nodes(tree, path=()):
    out = [(path, tree)]
    if isinstance(tree, Split):
        out += _nodes(tree.true_child, path + ((tree.test, 1),))
        out += _nodes(tree.false_child, path + ((tree.test, 0),))
    return out


def _put(tree, path, new):
    if not path:
        return new
    (v, b), rest = path[0], path[1:]
    if b:
        return Split(v, _put(tree.true_child, rest, new), tree.false_child)
    return Split(v, tree.true_child, _put(tree.false_child, rest, new))
