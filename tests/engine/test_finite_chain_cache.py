"""FiniteChainSampler keeps its cache proportional to the reachable chain.

On a long stream most vertices a per-edge learner met stop being reachable
from the root; the sampler drops them from its cache once they outnumber the
reachable ones (the slack is set to 0 here so that small graphs exercise it).
The distribution must stay exactly the one solved from scratch, and a vertex
dropped and reached again must be read again.
"""

import numpy as np
import pytest
from test_finite_chain_incremental import MutableGraph, assert_same, from_scratch

from sklearn_localregret.engine import FiniteChainSampler, reachable_generator


def churning_star(m=30, k=3):
    """Root -> m children -> k grandchildren each, every edge at regret 0."""
    edges = {"r": {f"c{i}": 0.0 for i in range(m)}}
    for i in range(m):
        edges[f"c{i}"] = {"r": 0.0, **{f"g{i}.{j}": 0.0 for j in range(k)}}
        edges.update({f"g{i}.{j}": {f"c{i}": 0.0} for j in range(k)})
    return MutableGraph("r", edges)


@pytest.mark.parametrize("max_level", [None, 1, 2])
def test_cache_cut_back_to_reachable_keeps_the_exact_distribution(
    monkeypatch, max_level
):
    # Each step the root's regrets point at two new children (the old ones
    # become unreachable but stay cached) and a drawn vertex is updated.
    monkeypatch.setattr("sklearn_localregret.engine.finite_chain._CACHE_SLACK", 0)
    rng = np.random.default_rng(0)
    graph = churning_star()
    sampler = FiniteChainSampler(graph, max_level)
    cuts = []
    keep_only = sampler._keep_only  # the private cut is what this test is about
    monkeypatch.setattr(
        sampler, "_keep_only", lambda reach: cuts.append(reach.size) or keep_only(reach)
    )
    for _ in range(120):
        graph.regrets["r"] = dict.fromkeys(graph.regrets["r"], 0.0)
        deltas = np.full(30, -1.0)
        deltas[rng.integers(30, size=2)] = 2.0
        graph.add_regrets("r", deltas)
        sampler.invalidate("r")
        vertex = sampler.sample(rng)
        graph.add_regrets(vertex, rng.normal(size=len(graph.regrets[vertex])))
        sampler.invalidate(vertex)
        vs, probs = sampler.distribution()
        reachable = len(reachable_generator(graph, max_level)[0])
        assert len(sampler._vertices) <= 2 * reachable  # the cache's size
        assert_same(vs, probs, from_scratch(graph, max_level))
        assert_same(
            *FiniteChainSampler(graph, max_level).distribution(), dict(zip(vs, probs))
        )
    assert len(cuts) > 30  # the cache was cut back many times


def test_a_cut_keeps_the_order_of_the_support(monkeypatch):
    # Cutting the cache renumbers the kept vertices in their old order: the
    # support (and so every draw from a given uniform) is the one the full
    # cache gives.
    graph = MutableGraph(
        "r",
        {
            "r": {"a": 1.0, "x": 0.0},
            "a": {"b": 0.0, "c": 0.0},
            "b": {},
            "c": {},
            "x": {"y": 5.0},
            "y": {},
        },
    )
    full = FiniteChainSampler(graph)
    monkeypatch.setattr("sklearn_localregret.engine.finite_chain._CACHE_SLACK", 0)
    cutting = FiniteChainSampler(graph)
    for sampler in (full, cutting):
        sampler.distribution()
    graph.add_regrets("r", [-1.0, 1.0])  # a is no longer reachable; x is
    graph.add_regrets("x", [-10.0])  # y no longer is; x is absorbing
    graph.add_regrets("r", [2.0, 0.0])  # a is back
    graph.add_regrets("a", [1.0, 3.0])
    for vertex in ("r", "x", "a"):
        full.invalidate(vertex)
        cutting.invalidate(vertex)
    expected = full.distribution()
    got = cutting.distribution()
    assert got[0] == expected[0]
    np.testing.assert_allclose(got[1], expected[1], rtol=0, atol=1e-15)
    assert_same(*got, from_scratch(graph, None))
    draws = [cutting.sample(np.random.default_rng(s)) for s in range(20)]
    assert draws == [full.sample(np.random.default_rng(s)) for s in range(20)]
