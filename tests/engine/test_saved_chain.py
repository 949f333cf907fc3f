"""A chain sampler's cache and a rate graph's played trees, saved as arrays,
come back equal, sharing what they shared."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.engine import FiniteChainSampler
from sklearn_localregret.engine.saved_chain import (
    pack_chain_cache,
    unpack_chain_cache,
)
from sklearn_localregret.engine.saved_paths import (
    is_packed_tree_nodes,
    pack_tree_nodes,
    unpack_tree_nodes,
)
from sklearn_localregret.locality.decision_tree import Leaf, Split


def random_tree(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return Leaf(int(rng.integers(3)))
    return Split(
        int(rng.integers(300)), random_tree(rng, depth - 1), random_tree(rng, depth - 1)
    )


def test_trees_round_trip_as_their_distinct_nodes():
    rng = np.random.default_rng(0)
    # Distinct trees (a chain's vertices are), some built from others: they
    # share their subtrees, as a chain's do.
    trees = list(dict.fromkeys(random_tree(rng, 6) for _ in range(300)))[:200]
    trees += [Split(301, t, trees[0]) for t in trees[:50]]
    packed = pack_tree_nodes(trees)
    assert is_packed_tree_nodes(packed)
    loaded = unpack_tree_nodes(packed)
    assert loaded == trees
    assert all(type(t) in (Leaf, Split) for t in loaded)
    # Each distinct node once: fewer than the trees' nodes counted whole.
    assert len(packed["codes"]) < sum(len(repr(t)) for t in trees) // 20
    assert loaded[200].true_child is loaded[0] and loaded[200].false_child is loaded[0]
    assert packed["codes"].dtype == np.int16  # tests up to 301 need 2 bytes


@pytest.mark.parametrize(
    "trees", [[], ["a"], [(1, 2)], [Leaf(-1)], [Split(1.5, Leaf(0), Leaf(1))]]
)
def test_other_vertices_are_not_packed(trees):
    assert pack_tree_nodes(trees) is None


def test_a_damaged_tree_packing_is_a_clear_error():
    packed = pack_tree_nodes([Split(1, Leaf(0), Leaf(1))])
    packed["children"] = np.array([[-1, -1], [-1, -1], [2, 0]])  # a child after it
    with pytest.raises(ValueError, match="damaged chain"):
        unpack_tree_nodes(packed)
    packed = pack_tree_nodes([Leaf(0), Leaf(1)])
    packed["roots"] = np.array([0, 0])  # two vertices one tree
    with pytest.raises(ValueError, match="damaged chain"):
        unpack_tree_nodes(packed)


class Ring:
    """A chain over ``n`` string vertices, each to the next at rate 1 + i."""

    root = "v0"

    def __init__(self, n):
        self.n = n

    def level(self, vertex):
        return int(vertex[1:])

    def positive_out_edges(self, vertex):
        i = int(vertex[1:])
        return [f"v{(i + 1) % self.n}", "v0"], [1.0 + i, 0.5]


def test_a_sampler_draws_on_alike_after_pickling():
    sampler = FiniteChainSampler(Ring(12))
    rng = np.random.default_rng(0)
    first = [sampler.sample(rng) for _ in range(20)]
    state = sampler.__getstate__()
    assert set(state["_edges"]) >= {"sources", "lengths", "targets", "rates"}
    copy = pickle.loads(pickle.dumps(sampler))
    a, b = np.random.default_rng(1), np.random.default_rng(1)
    assert [sampler.sample(a) for _ in range(50)] == [copy.sample(b) for _ in range(50)]
    assert first and copy.distribution()[0] == sampler.distribution()[0]
    np.testing.assert_array_equal(copy.distribution()[1], sampler.distribution()[1])


def test_a_sampler_saved_before_loads():
    sampler = FiniteChainSampler(Ring(5))
    sampler.refresh()
    state = sampler.__dict__.copy()  # the state as it was saved before
    del state["_ids"]
    copy = FiniteChainSampler.__new__(FiniteChainSampler)
    copy.__setstate__(state)
    assert copy.distribution()[0] == sampler.distribution()[0]


def test_damaged_edges_are_a_clear_error():
    sampler = FiniteChainSampler(Ring(5))
    sampler.refresh()
    state = sampler.__getstate__()
    edges = dict(state["_edges"])
    for name, damage in [
        ("targets", lambda a: a + 99),
        ("rates", lambda a: np.full_like(a, np.nan)),
        ("rates", lambda a: -a),
        ("sources", lambda a: np.zeros_like(a)),  # one source twice
    ]:
        state["_edges"] = {**edges, name: damage(edges[name])}
        with pytest.raises(ValueError, match="damaged chain"):
            unpack_chain_cache(state)
    assert unpack_chain_cache(pack_chain_cache({"_vertices": [], "_edges": {}})) == {
        "_vertices": [],
        "_edges": {},
    }


def test_byte_vertices_and_keys_round_trip_as_one_array():
    from sklearn_localregret.engine.saved_paths import (
        is_packed_bytes,
        pack_bytes,
        unpack_bytes,
    )

    keys = [bytes([i % 2, i // 2 % 2, 1]) for i in range(4)]
    packed = pack_bytes(keys)
    assert is_packed_bytes(packed) and packed["rows"].shape == (4, 3)
    assert unpack_bytes(packed) == keys
    assert pack_bytes([b"a", "a"]) is None  # not all bytes
    state = pack_chain_cache({"_vertices": keys, "_edges": {}})
    assert is_packed_bytes(state["_vertices"])
    assert unpack_chain_cache(state)["_vertices"] == keys
    packed["rows"] = packed["rows"].astype(np.int64)
    with pytest.raises(ValueError, match="damaged file"):
        unpack_bytes(packed)
