"""The compiled chain of the hypercube colourings against the Python sampler.

``EstimatedByChain._chain`` (``hypercube_chain.chain_draws``) must make the
draws of :class:`~sklearn_localregret.engine.UniformizedChainSampler` on the
same graph from the same generator, draw for draw, and leave the generator
where the Python sampler leaves it: the plays and the estimates of ``pi`` of
``L < n`` learners depend on both.
"""

import numpy as np
import pytest

from sklearn_localregret import LocalRegretDisjunctClassifier, OnlineMaxSAT
from sklearn_localregret.locality.hypercube_chain import _pairwise_sum


def _learnt_graph(kind: str, seed: int):
    rng = np.random.default_rng(seed)
    if kind == "maxsat":
        n = int(rng.integers(5, 40))
        clauses = [
            (rng.choice(n, 3, replace=False) + 1) * rng.choice([-1, 1], 3)
            for _ in range(200)
        ]
        solver = OnlineMaxSAT(n, L=int(rng.integers(1, 4)), random_state=seed)
        return solver.partial_fit([c.tolist() for c in clauses])._graph
    X = rng.integers(0, 2, (300, int(rng.integers(4, 12))))
    y = X[:, 0] | X[:, 1]
    params = {"graph": "hypercube"} if kind == "hypercube" else {}
    model = LocalRegretDisjunctClassifier(
        L=2, n_mcmc_steps=int(rng.integers(5, 50)), random_state=seed, **params
    )
    return model.partial_fit(X, y, classes=[0, 1])._graph


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["removal-sets", "hypercube", "maxsat"])
def test_the_compiled_chain_makes_the_python_samplers_draws(kind, seed):
    graph = _learnt_graph(kind, seed)
    assert not graph.exact
    # Rates of both signs everywhere (a view of the table), and for removal
    # sets random literals, so that every kind of edge is in play.
    rng = np.random.default_rng(100 + seed)
    rates = graph.table.rates
    rates[...] = rng.normal(size=rates.shape) * (rng.random(rates.shape) < 0.6)
    if kind == "removal-sets":
        graph.sets[...] = rng.random(graph.sets.shape) < 0.3
    fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
    draws = graph._chain(graph._state, fast, 40)
    state, bound = graph._state, graph._rate_bound()
    for draw in draws:
        state = graph._sampler.sample(state, bound, slow)
        assert draw.tobytes() == state
    assert fast.random() == slow.random()  # the generators where they were
    assert len({d.tobytes() for d in draws}) > 1  # the chain moved


def test_the_out_rate_is_summed_as_numpy_sums():
    rng = np.random.default_rng(0)
    for n in [0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 300, 1001]:
        a = rng.random(n) * 10.0 ** rng.integers(-8, 8, n)
        assert _pairwise_sum(a, 0, n) == np.sum(a), n


@pytest.mark.parametrize("kind", ["removal-sets", "hypercube"])
def test_the_remembered_estimate_follows_the_chains_inputs(kind):
    graph = _learnt_graph(kind, 1)
    rng = np.random.default_rng(7)
    rates = graph.table.rates
    rates[...] = rng.normal(size=rates.shape) * (rng.random(rates.shape) < 0.6)
    if kind == "removal-sets":
        graph.sets[...] = rng.random(graph.sets.shape) < 0.3

    def fresh(seed):
        graph.__dict__.pop("_estimate_memo", None)
        return graph.estimate_distribution(64, seed)

    support, probs = graph.estimate_distribution(64, [3, 1])
    support[...], probs[...] = 0, 0.0  # the caller's copy: the memo keeps its own
    for got, want in zip(graph.estimate_distribution(64, [3, 1]), fresh([3, 1])):
        np.testing.assert_array_equal(got, want)
    # Each input the chain reads changes the estimate, and the memo follows.
    if kind == "removal-sets":
        rates[graph.n_vars, 0] = 50.0  # slot 0 rings loudly: its literals matter
        graph.sets[0] = 0
        graph.sets[0, :2] = 1
    changes = {
        "seed": lambda: None,
        "rate": lambda: rates.__setitem__((0, 1), rates[0, 1] + 5.0),
    }
    if kind == "removal-sets":
        changes["sets"] = lambda: graph.sets.__setitem__(0, 1)

    def same(a, b):
        return all(x.shape == y.shape and (x == y).all() for x, y in zip(a, b))

    for what, change in changes.items():
        before = graph.estimate_distribution(64, [4, 1])
        change()
        seed = [5, 1] if what == "seed" else [4, 1]
        after, want = graph.estimate_distribution(64, seed), fresh(seed)
        assert not same(before, want), what  # the change matters ...
        assert same(after, want), what  # ... and the memo saw it
