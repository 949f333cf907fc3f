"""The compiled WalkSAT walk against the Python loop it replaced, flip for flip.

``_python_walk`` is that loop (the package's walk up to 0.9): per flip three
uniforms from a block of ``FLIP_BLOCK``, a clause picked in proportion to its
weight among the unsatisfied ones (kept dense by swap-removal), the freebie /
noise / least-break choice with ties broken by the third uniform. The kernel
must leave the same assignment, best assignment, best cost and unsatisfied
list after every call, whatever the chunking of the calls.
"""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_localregret.maxsat.formula import WeightedFormula
from sklearn_localregret.maxsat.walksat import FLIP_BLOCK, Walk, WalkSATClauses


class _python_walk:
    """The reference: the Python flip loop over lists."""

    def __init__(self, search: WalkSATClauses, start, noise, rng):
        self.noise, self.rng = noise, rng
        self.w, self.uniform = search.w.tolist(), search.uniform
        ptr, occ = search.occ_ptr, search.occ
        self.occurs = [occ[ptr[i] : ptr[i + 1]].tolist() for i in range(len(ptr) - 1)]
        vp, cv = search.var_ptr, search.clause_vars
        self.clause_vars = [cv[vp[c] : vp[c + 1]].tolist() for c in range(search.m)]
        self.a = start.astype(int).tolist()
        count = search.signed @ start.astype(np.int64) + search.n_neg
        self.count = count.tolist()
        self.unsat = np.flatnonzero(count == 0).tolist()
        self.where = {c: i for i, c in enumerate(self.unsat)}
        self.u, self.next_u = [], 0
        self.best, self.best_cost = list(self.a), self._cost()

    def _cost(self):
        w = self.w
        return len(self.unsat) * w[0] if self.uniform else sum(w[c] for c in self.unsat)

    def step(self, max_flips):
        w, occurs, a, count = self.w, self.occurs, self.a, self.count
        unsat, where, flips = self.unsat, self.where, 0
        cost = self._cost()
        while unsat and flips < max_flips:
            if self.next_u == len(self.u):
                size = min(FLIP_BLOCK, max_flips - flips)
                self.u, self.next_u = self.rng.random((size, 3)).tolist(), 0
            u_clause, u_noise, u_var = self.u[self.next_u]
            self.next_u += 1
            if self.uniform:
                c = unsat[int(u_clause * len(unsat))]
            else:
                target, total = u_clause * cost, 0.0
                for c in unsat:
                    total += w[c]
                    if total > target:
                        break
            cvars = self.clause_vars[c]
            breaks = [
                sum(
                    (1 if self.uniform else w[k])
                    for k in occurs[2 * v + a[v]]
                    if count[k] == 1
                )
                for v in cvars
            ]
            least = min(breaks)
            if least > 0 and u_noise < self.noise:
                v = cvars[int(u_var * len(cvars))]
            else:
                ties = [v for v, b in zip(cvars, breaks) if b == least]
                v = ties[int(u_var * len(ties))]
            was = a[v]
            a[v] = 1 - was
            for k in occurs[2 * v + 1 - was]:
                count[k] += 1
                if count[k] == 1:
                    i, last = where.pop(k), unsat.pop()
                    if last != k:
                        unsat[i], where[last] = last, i
            for k in occurs[2 * v + was]:
                count[k] -= 1
                if count[k] == 0:
                    where[k] = len(unsat)
                    unsat.append(k)
            flips += 1
            cost = self._cost()
            if cost < self.best_cost:
                self.best_cost, self.best = cost, a.copy()
        return flips


def _random_formula(seed: int) -> WeightedFormula:
    """Clauses of 1-4 literals with repeated variables (tautologies, repeated
    literals) and one of four weightings, zero weights among them."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    m = int(rng.integers(n, 6 * n))
    clauses = []
    for _ in range(m):
        width = int(rng.integers(1, 5))
        variables = rng.integers(1, n + 1, width)
        clauses.append((variables * rng.choice([-1, 1], width)).tolist())
    weights = [
        np.ones(m),
        rng.integers(1, 10, m).astype(float),
        rng.random(m) * (rng.random(m) < 0.8),
        np.full(m, 2.5),
    ][seed % 4]
    return WeightedFormula(clauses, n_vars=n, weights=weights)


@pytest.mark.parametrize("seed", range(24))
def test_the_compiled_walk_makes_the_python_walks_flips(seed):
    formula = _random_formula(seed)
    keep = np.flatnonzero(formula.weights > 0)
    search = WalkSATClauses(
        [formula.clauses[c] for c in keep], formula.weights[keep], formula.n_vars
    )
    noise = [0.5, 0.2, 0.0, 1.0][seed % 4]
    start = np.random.default_rng(seed).random(formula.n_vars) < 0.5
    walk = Walk(search, start, noise, np.random.default_rng(seed))
    reference = _python_walk(search, start, noise, np.random.default_rng(seed))
    # Chunks across and inside the uniforms' blocks.
    for chunk in (1, 7, FLIP_BLOCK + 5, 3, 2 * FLIP_BLOCK):
        made = walk.step(chunk)
        assert made == reference.step(chunk)
        assert walk.a.tolist() == reference.a
        assert walk.best.tolist() == reference.best
        assert walk.best_cost == reference.best_cost
        assert walk.unsat[: walk.n_unsat].tolist() == reference.unsat
    assert walk.n_flips > 0 or not reference.unsat


def test_a_walk_stops_when_nothing_is_unsatisfied():
    search = WalkSATClauses([(1, 2), (-1, 2)], np.ones(2), 2)
    walk = Walk(search, np.array([True, False]), 0.5, np.random.default_rng(0))
    assert walk.step(100) == 1  # flipping variable 2 (the only freebie)
    assert walk.best_cost == 0.0 and walk.best_assignment().tolist() == [True, True]
    assert walk.step(100) == 0
