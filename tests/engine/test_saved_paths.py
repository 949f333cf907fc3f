"""A regret table's path keys saved as integer arrays come back equal."""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret.engine.saved_paths import (
    is_packed_paths,
    is_packed_tree_paths,
    pack_paths,
    pack_tree_paths,
    unpack_paths,
    unpack_tree_paths,
)
from sklearn_localregret.locality.decision_tree import Leaf, Split


def random_paths(n, max_test, seed=0):
    rng = np.random.default_rng(seed)
    return [
        tuple(
            (int(rng.integers(max_test)), int(rng.integers(2)))
            for _ in range(int(rng.integers(0, 12)))
        )
        for _ in range(n)
    ]


@pytest.mark.parametrize("max_test", [5, 200, 70_000, 2**40])
def test_paths_round_trip_in_their_smallest_type(max_test):
    keys = [()] + random_paths(500, max_test)
    packed = pack_paths(keys)
    assert is_packed_paths(packed)
    assert unpack_paths(packed) == keys
    assert all(type(v) is int for key in unpack_paths(packed) for s in key for v in s)
    # int8 for small tests, wider only where a test needs it.
    width = packed["steps"].dtype.itemsize
    assert width == {5: 1, 200: 2, 70_000: 4, 2**40: 8}[max_test]
    again = pickle.loads(pickle.dumps(packed))
    assert unpack_paths(again) == keys


@pytest.mark.parametrize(
    "keys",
    [
        [("a", 1)],  # not a path
        [((1, 2, 3),)],  # a step of three
        [((1.0, 0),)],  # a float test
        [((np.int64(1), 0),)],  # numpy ints: saved as they are
        ["root"],
    ],
)
def test_other_keys_are_not_packed(keys):
    assert pack_paths(keys) is None


def test_a_damaged_packing_is_a_clear_error():
    packed = pack_paths([((1, 0), (2, 1)), ((3, 1),)])
    packed["lengths"] = packed["lengths"][:1]  # one step left over
    with pytest.raises(ValueError, match="saved paths do not fit"):
        unpack_paths(packed)


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_a_saved_table_keeps_its_keys_and_predictions(regret):
    """A streamed tree's pickle holds its keys packed (the external
    table's paths; the swap table's trees and paths) and predicts and learns
    on as before."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = LocalRegretTreeClassifier(random_state=0, regret=regret, L=3)
    for lo in range(0, 400, 5):
        model.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=[0, 1])
    state = model.regret_table_.__getstate__()
    assert is_packed_paths(state["_keys"]) == (regret == "external")
    assert is_packed_tree_paths(state["_keys"]) == (regret == "swap")
    loaded = pickle.loads(pickle.dumps(model))
    assert loaded.regret_table_.keys() == model.regret_table_.keys()
    if regret == "swap":  # a tree is rebuilt once, shared by its keys
        keys = loaded.regret_table_.keys()
        trees = {id(tree) for tree, _ in keys}
        assert len(trees) == len({tree for tree, _ in keys}) < len(keys)
    for learner in (model, loaded):
        learner.partial_fit(X[400:], y[400:])
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_tree_keys_round_trip_and_other_keys_are_not_packed():
    deep = Leaf(0)
    for test in range(300):  # deeper than Python's recursion would go well
        deep = Split(test % 7, deep, Leaf(test % 3))
    stump = Split(2, Leaf(1), Leaf(0))
    keys = [(deep, ()), (stump, ((2, 1),)), (deep, ((6, 0),)), (Leaf(2), ())]
    packed = pack_tree_paths(keys)
    assert is_packed_tree_paths(packed)
    again = unpack_tree_paths(pickle.loads(pickle.dumps(packed)))
    assert again == keys
    assert again[0][0] is again[2][0]  # one tree object per distinct tree
    assert pack_tree_paths([(deep, ("x",))]) is None  # not a path
    assert pack_tree_paths([((1, 2), ())]) is None  # not tree nodes
    assert pack_tree_paths([(Leaf(-1), ())]) is None  # a negative label
    assert pack_tree_paths([]) is None
    damaged = dict(packed, nodes=packed["nodes"][:-1])
    with pytest.raises(ValueError, match="saved tree's nodes"):
        unpack_tree_paths(damaged)
    damaged = dict(packed, which=np.array([0, 1, 5, 2]))
    with pytest.raises(ValueError, match="saved keys do not fit"):
        unpack_tree_paths(damaged)
