"""Offline WalkSAT (Selman, Kautz & Cohen 1994) for weighted Max-SAT.

The paper's offline yardstick for Online Max-3SAT: with all clauses known up
front, local search finds an assignment that the online learners, which see one
clause per round, can only approach.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._checks import check_positive_int
from .._clause_matrix import clause_matrix, satisfied
from .._dimacs import as_formula
from .._random import check_generator

__all__ = ["WalkSATResult", "walksat"]

# Uniform numbers drawn per block of flips: one call to the generator instead of
# three per flip, without holding max_flips * 3 of them at once.
_BLOCK = 4096


@dataclass(frozen=True)
class WalkSATResult:
    """Outcome of :func:`walksat`.

    Attributes
    ----------
    assignment : ndarray of bool of shape (n_vars,)
        The best assignment seen; entry ``i`` is variable ``i`` (literal ``i + 1``).
    unsatisfied_weight : float
        Total weight of the clauses it leaves unsatisfied (the number of them for
        unweighted input; hard clauses weigh the formula's ``top``).
    n_flips : int
        Flips made over all tries.
    n_restarts : int
        Tries started, the first included (at most ``max_restarts``).
    """

    assignment: np.ndarray
    unsatisfied_weight: float
    n_flips: int
    n_restarts: int


def walksat(
    clauses,
    n_vars: int | None = None,
    weights=None,
    *,
    noise: float = 0.5,
    max_flips: int = 10_000,
    max_restarts: int = 10,
    random_state: int | np.random.Generator | None = None,
) -> WalkSATResult:
    """Search for an assignment of minimum unsatisfied weight with WalkSAT.

    Each try starts from a uniformly random assignment and makes up to
    ``max_flips`` flips. A flip picks an unsatisfied clause at random with
    probability proportional to its weight (uniformly when unweighted), then
    flips one of its variables: a variable whose flip breaks nothing if there is
    one (the "freebie" move of the original algorithm), else with probability
    ``noise`` a uniformly random variable of the clause, else the variable of
    least break, the total weight of the satisfied clauses the flip would
    unsatisfy (ties broken at random). The best assignment seen over all tries
    is kept, and the search stops as soon as nothing is unsatisfied.

    Parameters
    ----------
    clauses : clause, clauses, WeightedFormula or PySAT formula
        One clause (a sequence of non-zero DIMACS literals ``+-(var + 1)``),
        a sequence of clauses of any width (or a 2-d integer array), a
        :class:`~sklearn_localregret.WeightedFormula`, or a PySAT ``CNF`` or
        ``WCNF`` formula -- what :class:`~sklearn_localregret.OnlineMaxSAT`
        accepts.
    n_vars : int, default=None
        Number of variables; inferred from ``clauses`` when None.
    weights : array-like of shape (n_clauses,), default=None
        Non-negative clause weights, replacing any carried by ``clauses``; all
        ones when None and ``clauses`` carries none.
    noise : float, default=0.5
        Probability of a random-walk move when no freebie exists, in [0, 1].
    max_flips : int, default=10_000
        Flips per try, at least 1.
    max_restarts : int, default=10
        Tries (random initial assignments), at least 1.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator; a ``numpy.random.RandomState`` is also accepted.

    Returns
    -------
    WalkSATResult

    Raises
    ------
    ValueError
        A parameter out of range or of the wrong type, or invalid clauses or
        weights (the checks of :class:`~sklearn_localregret.WeightedFormula`).
    TypeError
        A literal that is not an integer, or input that is not clauses.

    Examples
    --------
    >>> res = walksat([[1, 2], [-1, 2], [1, -2], [-1, -2, 3]], random_state=0)
    >>> res.assignment, res.unsatisfied_weight
    (array([ True,  True,  True]), 0.0)
    >>> res = walksat([[1], [-1]], weights=[1, 3], random_state=0)
    >>> res.assignment, res.unsatisfied_weight
    (array([False]), 1.0)
    """
    noise = _check_noise(noise)
    max_flips = check_positive_int(max_flips, "max_flips")
    max_restarts = check_positive_int(max_restarts, "max_restarts")
    rng = check_generator(random_state)
    formula = as_formula(clauses, n_vars=n_vars, weights=weights)
    n = formula.n_vars
    # Zero-weight clauses can neither be picked nor broken: leave them out.
    keep = np.flatnonzero(formula.weights > 0)
    search = _Search([formula.clauses[c] for c in keep], formula.weights[keep], n)

    best, best_cost, n_flips, tries = None, np.inf, 0, 0
    while tries < max_restarts and best_cost > 0:
        tries += 1
        a, cost, flips = search.run(rng.random(n) < 0.5, noise, max_flips, rng)
        n_flips += flips
        if cost < best_cost:
            best, best_cost = a, cost
    assert best is not None  # max_restarts >= 1: at least one try ran
    unsat = ~satisfied(best, clause_matrix(formula, n_vars=n))
    return WalkSATResult(best, float(formula.weights[unsat].sum()), n_flips, tries)


class _Search:
    """Incremental WalkSAT state for positive-weight clauses over ``n`` variables.

    Literal ``2 * v + s`` (``s = 1`` positive, ``0`` negated) indexes the clauses
    it occurs in; a tautology's ``v`` occurs in neither list, since flipping
    ``v`` leaves that clause's true-literal count unchanged. scipy builds these
    lists and the first counts, but the flip loop runs on Python lists: an
    occurrence list holds some tens of clauses, where a numpy call costs more
    than the work it does (three times slower on the paper's 3-SAT instances).
    """

    def __init__(self, clauses, weights: np.ndarray, n: int):
        self.w, self.m = weights.tolist(), len(clauses)
        self.uniform = self.m == 0 or bool(np.all(weights == weights[0]))
        self.occurs: list[list[int]] = [[] for _ in range(2 * n)]
        if not self.m:
            return
        matrix = clause_matrix(clauses, n_vars=n)
        self.signed, self.n_neg = matrix.signed, matrix.n_neg
        ptr, idx = self.signed.indptr, self.signed.indices
        self.clause_vars = [idx[ptr[c] : ptr[c + 1]].tolist() for c in range(self.m)]
        by_var = self.signed.T.tocsr()
        for v in range(n):
            lo, hi = by_var.indptr[v], by_var.indptr[v + 1]
            rows, signs = by_var.indices[lo:hi], by_var.data[lo:hi]
            self.occurs[2 * v] = rows[signs < 0].tolist()
            self.occurs[2 * v + 1] = rows[signs > 0].tolist()

    def run(self, start: np.ndarray, noise: float, max_flips: int, rng):
        """One try from ``start``: (best assignment, its cost, flips made)."""
        if not self.m:
            return start, 0.0, 0
        w, occurs, clause_vars = self.w, self.occurs, self.clause_vars
        uniform = self.uniform
        count = (self.signed @ start.astype(np.int64) + self.n_neg).tolist()
        a = start.astype(int).tolist()
        unsat = [c for c, k in enumerate(count) if k == 0]
        where = {c: i for i, c in enumerate(unsat)}
        best, best_cost, flips = a, np.inf, 0
        while True:
            cost = len(unsat) * w[0] if uniform else sum([w[c] for c in unsat])
            if cost < best_cost:
                best, best_cost = a.copy(), cost
            if not unsat or flips == max_flips:
                return np.array(best, dtype=bool), float(best_cost), flips
            if flips % _BLOCK == 0:
                u = rng.random((min(_BLOCK, max_flips - flips), 3)).tolist()
            u_clause, u_noise, u_var = u[flips % _BLOCK]
            if uniform:
                c = unsat[int(u_clause * len(unsat))]
            else:
                target, total = u_clause * cost, 0.0
                for c in unsat:
                    total += w[c]
                    if total > target:
                        break
            cvars = clause_vars[c]
            if uniform:
                breaks = [
                    sum([count[k] == 1 for k in occurs[2 * v + a[v]]]) for v in cvars
                ]
            else:
                breaks = [
                    sum([w[k] for k in occurs[2 * v + a[v]] if count[k] == 1])
                    for v in cvars
                ]
            least = min(breaks)
            if least > 0 and u_noise < noise:
                v = cvars[int(u_var * len(cvars))]
            else:
                ties = [v for v, b in zip(cvars, breaks) if b == least]
                v = ties[int(u_var * len(ties))]
            was = a[v]
            a[v] = 1 - was
            for k in occurs[2 * v + 1 - was]:
                count[k] += 1
                if count[k] == 1:
                    # Swap-remove keeps the unsatisfied list dense for O(1) picks.
                    i, last = where.pop(k), unsat.pop()
                    if last != k:
                        unsat[i], where[last] = last, i
            for k in occurs[2 * v + was]:
                count[k] -= 1
                if count[k] == 0:
                    where[k] = len(unsat)
                    unsat.append(k)
            flips += 1


def _check_noise(noise) -> float:
    if (
        isinstance(noise, bool)
        or not isinstance(noise, Real)
        or not (0 <= float(noise) <= 1)
    ):
        raise ValueError(f"noise must be a probability in [0, 1], got {noise!r}")
    return float(noise)
