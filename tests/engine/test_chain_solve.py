"""The compiled solve of a finite chain against scipy and exact fractions.

:func:`~sklearn_localregret.engine.compiled.chain_solve.chain_from_root` must
list the reachable vertices in exactly the order of
``scipy.sparse.csgraph.breadth_first_order`` (the support's order decides what
a uniform draws) and give the stationary distribution from the root of
:func:`~sklearn_localregret.engine.stationary_from_root`. Rates span six
orders of magnitude, edges repeat (the level redirect sends several to the
root), classes of every kind occur (absorbing vertices, transient cycles,
closed cycles, the root inside one). Against exact rational arithmetic the
kernel is right to a few units in the last place, where scipy's sparse LU
drifts by up to 1e-12 on the same chains.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse import csgraph

from sklearn_localregret.engine import FiniteChainSampler, stationary_from_root
from sklearn_localregret.engine import finite_chain as finite_chain_module
from sklearn_localregret.engine.compiled.chain_solve import chain_from_root


def random_chain(seed, max_n=40, spread=3.0):
    """Edges of a random chain: some vertices with out-edges, repeats, the root."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, max_n))
    rows, cols = [], []
    for source in rng.choice(n, int(rng.integers(0, n + 1)), replace=False):
        targets = rng.integers(0, n, int(rng.integers(1, 6)))
        if rng.random() < 0.5:
            targets = np.append(targets, [0, 0][: int(rng.integers(1, 3))])
        targets = targets[targets != source]
        rows += [source] * len(targets)
        cols += targets.tolist()
    rates = 10 ** rng.uniform(-spread, spread, len(rows))
    return n, np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp), rates


def scipy_solve(n, rows, cols, rates):
    chain = sparse.csr_matrix((rates, (rows, cols)), shape=(n, n))
    reach = csgraph.breadth_first_order(
        chain, 0, directed=True, return_predecessors=False
    )
    return reach, stationary_from_root(chain[reach][:, reach])


def _solve_exactly(a, b):
    """``x`` with ``a x = b`` in fractions (Gauss-Jordan)."""
    m = len(b)
    rows = [list(a[i]) + [b[i]] for i in range(m)]
    for p in range(m):
        pivot = next(i for i in range(p, m) if rows[i][p] != 0)
        rows[p], rows[pivot] = rows[pivot], rows[p]
        for i in range(m):
            if i != p and rows[i][p] != 0:
                f = rows[i][p] / rows[p][p]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[p])]
    return [rows[i][m] / rows[i][i] for i in range(m)]


def exact_solve(n, rows, cols, rates):
    """pi from the root in rational arithmetic: occupancy of all transient
    states at once, then each closed class's balance equations."""
    reach, _ = scipy_solve(n, rows, cols, rates)
    where = {int(v): i for i, v in enumerate(reach)}
    m = len(reach)
    q = [[Fraction(0)] * m for _ in range(m)]
    for r, c, x in zip(rows, cols, rates):
        if r in where and r != c:
            q[where[r]][where[int(c)]] += Fraction(float(x))
    graph = sparse.csr_matrix(np.array([[float(x) for x in row] for row in q]))
    _, label = csgraph.connected_components(graph, directed=True, connection="strong")
    closed = {c: True for c in label}
    for i in range(m):
        for j in range(m):
            if q[i][j] and label[i] != label[j]:
                closed[label[i]] = False
    transient = [i for i in range(m) if not closed[label[i]]]
    mass = {label[0]: Fraction(1)}
    if transient:  # x (D - Q_TT) = e_root, then the flow into closed states
        a = [
            [(sum(q[i]) if i == j else -q[i][j]) for i in transient]  # transposed
            for j in transient
        ]
        x = _solve_exactly(a, [Fraction(int(i == 0)) for i in transient])
        mass = {}
        for j in range(m):
            if closed[label[j]]:
                inflow = sum(xi * q[i][j] for xi, i in zip(x, transient))
                mass[label[j]] = mass.get(label[j], Fraction(0)) + inflow
        total = sum(mass.values())
        mass = {c: v / total for c, v in mass.items()}
    pi = [Fraction(0)] * m
    for c, weight in mass.items():
        members = [i for i in range(m) if label[i] == c]
        k = len(members)
        a = [[q[i][j] for i in members] for j in members]  # transposed
        for j in range(k):
            a[j][j] = -sum(q[members[j]][i] for i in members if i != members[j])
        a[-1] = [Fraction(1)] * k
        share = _solve_exactly(a, [Fraction(0)] * (k - 1) + [Fraction(1)])
        for i, s in zip(members, share):
            pi[i] = weight * s
    return np.array([float(p) for p in pi])


@pytest.mark.parametrize("seed", range(400))
def test_matches_the_sparse_solve(seed):
    n, rows, cols, rates = random_chain(seed)
    reach, pi, *chain = chain_from_root(n, rows, cols, rates, 256)
    want_reach, want_pi = scipy_solve(n, rows, cols, rates)
    np.testing.assert_array_equal(reach, want_reach)
    # The reachable chain it hands to the sparse solve, in reach's numbering.
    full = sparse.csr_matrix((rates, (rows, cols)), shape=(n, n))
    local = sparse.csr_matrix(tuple(chain[::-1]), shape=(len(reach),) * 2)
    np.testing.assert_allclose(
        local.toarray(), full[reach][:, reach].toarray(), rtol=1e-15
    )
    # scipy's LU drifts by up to ~2e-12 here (the exact test below).
    np.testing.assert_allclose(pi, want_pi, rtol=0, atol=1e-10)
    assert pi.sum() == pytest.approx(1.0, abs=1e-14)


# Seeds where scipy is off by 1e-12 or more (764, 1232, 1960, 2927) and others.
@pytest.mark.parametrize("seed", [764, 1232, 1960, 2927, 0, 1, 2, 3, 5, 8, 13])
def test_matches_exact_fractions(seed):
    n, rows, cols, rates = random_chain(seed)
    _, pi, *_ = chain_from_root(n, rows, cols, rates, 256)
    np.testing.assert_allclose(pi, exact_solve(n, rows, cols, rates), atol=1e-15)


@pytest.mark.parametrize(
    "edges, reach, pi",
    [
        ([], [0], [1.0]),  # nothing moves: the root
        ([(1, 2, 1.0)], [0], [1.0]),  # vertices not reached are left out
        ([(0, 0, 5.0), (0, 1, 1.0)], [0, 1], [0.0, 1.0]),  # self-loops ignored
        ([(0, 1, 1.0), (1, 0, 3.0)], [0, 1], [0.75, 0.25]),  # the root's class
        ([(0, 2, 1.0), (0, 2, 2.0), (0, 1, 1.0)], [0, 1, 2], [0.0, 0.25, 0.75]),
        # Root -> transient cycle {1, 2} -> absorbing 3 (from 1) or 4 (from 2).
        (
            [(0, 1, 1.0), (1, 2, 1.0), (2, 1, 1.0), (1, 3, 1.0), (2, 4, 3.0)],
            [0, 1, 2, 3, 4],
            [0.0, 0.0, 0.0, 4 / 7, 3 / 7],
        ),
    ],
)
def test_hand_computed_chains(edges, reach, pi):
    rows = np.array([e[0] for e in edges], dtype=np.intp)
    cols = np.array([e[1] for e in edges], dtype=np.intp)
    rates = np.array([e[2] for e in edges], dtype=float)
    got_reach, got_pi, *_ = chain_from_root(5, rows, cols, rates, 256)
    np.testing.assert_array_equal(got_reach, reach)
    np.testing.assert_allclose(got_pi, pi, atol=1e-15)


def test_a_class_over_the_limit_is_left_to_the_sparse_solve(monkeypatch):
    # A cycle through the root of five states: no answer with max_class 4.
    rows = np.arange(5, dtype=np.intp)
    cols = (rows + 1) % 5
    rates = np.arange(1.0, 6.0)
    reach, pi, *_ = chain_from_root(5, rows, cols, rates, 4)
    assert pi.size == 0 and reach.tolist() == [0, 1, 2, 3, 4]
    # The sampler then solves sparsely, with the same answer.
    graph = _CycleGraph(rates)
    expected = FiniteChainSampler(graph).distribution()
    monkeypatch.setattr(finite_chain_module, "DENSE_CLASS_LIMIT", 4)
    got = FiniteChainSampler(graph).distribution()
    assert got[0] == expected[0]
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
    np.testing.assert_allclose(got[1], (1 / rates) / (1 / rates).sum(), rtol=1e-12)


class _CycleGraph:
    """Vertices 0..4 in a ring, vertex ``i`` leaving at rate ``rates[i]``."""

    root = 0

    def __init__(self, rates):
        self.rates = rates

    def level(self, vertex):
        return vertex

    def positive_out_edges(self, vertex):
        return [(vertex + 1) % 5], self.rates[vertex : vertex + 1]
