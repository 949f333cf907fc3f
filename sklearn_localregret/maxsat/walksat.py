"""Offline WalkSAT (Selman, Kautz & Cohen 1994) for weighted Max-SAT.

The paper's offline yardstick for Online Max-3SAT: with all clauses known up
front, local search finds an assignment that the online learners, which see one
clause per round, can only approach.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._checks import check_positive_int
from .._random import check_generator
from .clause_matrix import ClauseMatrix, satisfied
from .reading import as_formula
from .walk_kernel import walk_flips

__all__ = [
    "FLIP_BLOCK",
    "Walk",
    "WalkSATClauses",
    "WalkSATResult",
    "check_noise",
    "walksat",
]

# Uniform numbers drawn per block of flips: one call to the generator instead of
# three per flip, without holding max_flips * 3 of them at once.
FLIP_BLOCK = 4096


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
    time_limit: float | None = None,
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
    time_limit : float or None, default=None
        Seconds of search after which it stops (the clock is read every
        ``4096`` flips), returning the best assignment seen; None for no limit.

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
    noise = check_noise(noise)
    max_flips = check_positive_int(max_flips, "max_flips")
    max_restarts = check_positive_int(max_restarts, "max_restarts")
    if time_limit is not None and not (
        isinstance(time_limit, Real)
        and not isinstance(time_limit, bool)
        and float(time_limit) > 0
    ):
        raise ValueError(f"time_limit must be a positive number, got {time_limit!r}")
    formula = as_formula(clauses, n_vars=n_vars, weights=weights)
    rng = check_generator(random_state)  # (drawn from: after every check)
    n = formula.n_vars
    # Zero-weight clauses can neither be picked nor broken: leave them out.
    keep = np.flatnonzero(formula.weights > 0)
    search = WalkSATClauses(
        [formula.clauses[c] for c in keep], formula.weights[keep], n
    )

    stop = None if time_limit is None else time.monotonic() + float(time_limit)
    best, best_cost, n_flips, tries = None, np.inf, 0, 0
    while tries < max_restarts and best_cost > 0:
        if tries and stop is not None and time.monotonic() >= stop:
            break
        tries += 1
        walk = Walk(search, rng.random(n) < 0.5, noise, rng)
        if stop is None:
            walk.step(max_flips)
        else:
            while walk.n_flips < max_flips and time.monotonic() < stop:
                if walk.step(min(FLIP_BLOCK, max_flips - walk.n_flips)) == 0:
                    break
        n_flips += walk.n_flips
        if walk.best_cost < best_cost:
            best, best_cost = walk.best_assignment(), walk.best_cost
    assert best is not None  # max_restarts >= 1: at least one try ran
    unsat = ~satisfied(best, ClauseMatrix(formula.clauses, n, formula.weights))
    return WalkSATResult(best, float(formula.weights[unsat].sum()), n_flips, tries)


class WalkSATClauses:
    """Positive-weight clauses over ``n`` variables as WalkSAT's flat arrays.

    Literal ``2 * v + s`` (``s = 1`` positive, ``0`` negated) indexes the clauses
    it occurs in (``occ_ptr``, ``occ``); a tautology's ``v`` occurs in neither
    list, since flipping ``v`` leaves that clause's true-literal count
    unchanged. ``var_ptr``, ``clause_vars`` list each clause's variables.
    """

    def __init__(self, clauses, weights: np.ndarray, n: int):
        self.w = np.ascontiguousarray(weights, dtype=np.float64)
        if self.w.shape != (len(clauses),):
            raise ValueError(
                f"{len(clauses)} clauses and weights of shape {self.w.shape}: one each"
            )
        if any(len(clause) == 0 for clause in clauses):
            raise ValueError("an empty clause: no flip can satisfy it")
        self.m, self.n = len(clauses), n
        self.uniform = self.m == 0 or bool(np.all(weights == weights[0]))
        self.occ_ptr = np.zeros(2 * n + 1, dtype=np.int64)
        self.occ = np.zeros(0, dtype=np.int64)
        if not self.m:
            return
        matrix = ClauseMatrix(clauses, n, weights)
        self.signed, self.n_neg = matrix.signed, matrix.n_neg
        self.var_ptr = self.signed.indptr.astype(np.int64)
        self.clause_vars = self.signed.indices.astype(np.int64)
        self.widest = int(np.diff(self.var_ptr).max())
        # Each literal's clauses in the order of the variable's column.
        by_var = self.signed.T.tocsr()
        var = np.repeat(np.arange(n), np.diff(by_var.indptr))
        signs = by_var.data
        lits = (2 * var + (signs > 0))[signs != 0]
        order = np.argsort(lits, kind="stable")
        self.occ = by_var.indices[signs != 0][order].astype(np.int64)
        self.occ_ptr[1:] = np.cumsum(np.bincount(lits, minlength=2 * n))


class Walk:
    """One WalkSAT walk over a :class:`WalkSATClauses`'s clauses, continued on demand.

    :meth:`step` makes flips from where the last call stopped, so that a caller
    can check a clock between calls without restarting the walk (restarting
    from the best assignment every 2,000 flips, as ``solve`` did, ended worse
    on 50,000 random 3-clauses). ``best_cost`` and :meth:`best_assignment`
    are the best seen since the start. The flips are compiled
    (:func:`~.walk_kernel.walk_flips`); the uniforms come from ``rng`` a block
    of :data:`FLIP_BLOCK` flips at a time.
    """

    def __init__(self, search: WalkSATClauses, start: np.ndarray, noise: float, rng):
        self.search, self.noise, self.rng = search, noise, rng
        start = np.asarray(start)
        if start.shape != (search.n,) or not np.isin(start, (0, 1)).all():
            raise ValueError(
                f"start must be {search.n} bits (0/1 or bool); got shape {start.shape}"
            )
        self.a = start.astype(np.int64)
        self.best, self.best_cost, self.n_flips = self.a.copy(), np.inf, 0
        self.u = np.empty((0, 3))
        self.next_u = 0
        if not search.m:
            self.best_cost = 0.0
            return
        self.count = np.ascontiguousarray(
            search.signed @ self.a + search.n_neg, dtype=np.int64
        )
        self.where = np.full(search.m, -1, dtype=np.int64)
        self.unsat = np.zeros(search.m, dtype=np.int64)
        false = np.flatnonzero(self.count == 0)
        self.n_unsat = len(false)
        self.unsat[: self.n_unsat] = false
        self.where[false] = np.arange(self.n_unsat)
        self.breaks = np.zeros(search.widest)
        w = search.w
        self.best_cost = float(
            self.n_unsat * w[0] if search.uniform else sum(w[false].tolist())
        )

    def best_assignment(self) -> np.ndarray:
        return self.best.astype(bool)

    def step(self, max_flips: int) -> int:
        """Up to ``max_flips`` flips (fewer once nothing is unsatisfied)."""
        search = self.search
        flips = 0
        while search.m and self.n_unsat and flips < max_flips:
            if self.next_u == len(self.u):
                self.u = self.rng.random((min(FLIP_BLOCK, max_flips - flips), 3))
                self.next_u = 0
            made, self.n_unsat, self.best_cost = walk_flips(
                self.u,
                self.next_u,
                min(len(self.u) - self.next_u, max_flips - flips),
                self.noise,
                search.uniform,
                search.w,
                search.occ_ptr,
                search.occ,
                search.var_ptr,
                search.clause_vars,
                self.a,
                self.count,
                self.unsat,
                self.where,
                self.n_unsat,
                self.best,
                self.best_cost,
                self.breaks,
            )
            self.next_u += made
            flips += made
        self.best_cost = float(self.best_cost)
        self.n_flips += flips
        return flips


def check_noise(noise) -> float:
    """``noise`` as a probability (a ``ValueError`` if it is not one)."""
    if (
        isinstance(noise, bool)
        or not isinstance(noise, Real)
        or not (0 <= float(noise) <= 1)
    ):
        raise ValueError(f"noise must be a probability in [0, 1], got {noise!r}")
    return float(noise)
