"""The rounds of online Max-SAT on the hypercube: the gain of every flip.

For an assignment ``a`` and weighted clauses, the gain of every flip
``u(flip_k a) - u(a)``, ``u`` the weight of the satisfied clauses (paper,
Example "Online Max-3SAT"): :func:`maxsat_round` on the entries of a
:class:`~sklearn_localregret.maxsat.clause_matrix.ClauseMatrix`, vectorised
with numpy, and :class:`OneClause`, the same for the single clause of an
interactive round in plain Python. :func:`formula_rounds` cuts a validated
formula into the rounds :class:`~sklearn_localregret.OnlineMaxSAT` plays.
"""

from __future__ import annotations

import numpy as np

from .clause_matrix import ClauseMatrix, clause_matrix
from .formula import check_clause, check_weights

__all__ = [
    "OneClause",
    "formula_rounds",
    "maxsat_gains",
    "maxsat_round",
    "one_clause",
    "round_score",
]


def maxsat_round(a, clause_of, var_of, sign_of, n_neg, weights):
    """Gains of every flip and the satisfied weight, for flat clause literals.

    The clauses are given as the entries of a :class:`ClauseMatrix`
    (:meth:`ClauseMatrix.round`): entry ``e`` says clause ``clause_of[e]``
    holds variable ``var_of[e]`` positively (``sign_of[e] = 1``) or negated
    (-1). ``n_neg[c]`` is the number of negative literals of clause ``c``, so
    its true-literal count under ``a`` is ``n_neg[c] + sum_e sign_of[e] *
    a[var_of[e]]``.

    Returns
    -------
    gains : ndarray of shape (n,)
        ``u(flip_k a) - u(a)``, ``u`` = weight of the satisfied clauses.
    satisfied : float
        ``u(a)``.
    """
    a = np.asarray(a)
    weights = np.asarray(weights, dtype=np.float64)
    bits = a[var_of].astype(np.float64)
    count = n_neg + np.bincount(
        clause_of, weights=sign_of * bits, minlength=len(weights)
    )
    # Flipping a false literal satisfies an unsatisfied clause; flipping the
    # only true literal of a clause unsatisfies it.
    becomes_true = sign_of * (1.0 - 2.0 * bits) > 0
    count_e = count[clause_of]
    w_e = weights[clause_of]
    contrib = np.where(becomes_true, w_e * (count_e == 0), -w_e * (count_e == 1))
    gains = np.bincount(var_of, weights=contrib, minlength=a.shape[0])
    return gains, float(weights @ (count > 0))


def maxsat_gains(a, clauses, weights=None) -> np.ndarray:
    """``u(flip_k a) - u(a)`` for every variable; ``u`` = satisfied weight.

    Parameters
    ----------
    a : array-like of shape (n,)
        The assignment (0/1); ``a[i]`` is the value of DIMACS variable ``i + 1``.
    clauses : ClauseMatrix or clauses
        A clause matrix (the package's internal form), or clauses as DIMACS
        integer literals, any width.
    weights : array-like of shape (n_clauses,), default=None
        Clause weights (ones when None, whatever the clauses carry).

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    ``(x1 or not x2) and (x2 or x3)`` at the all-false assignment: the second
    clause is unsatisfied, setting ``x2`` satisfies it but breaks the first,
    setting ``x3`` satisfies it.

    >>> maxsat_gains([0, 0, 0], [[1, -2], [2, 3]])
    array([0., 0., 1.])
    >>> maxsat_gains([0, 0, 0], [[1, -2], [2, 3]], weights=[1, 2])
    array([0., 1., 2.])
    """
    a = np.asarray(a)
    if a.ndim != 1 or not np.isin(a, (0, 1)).all():
        raise ValueError("a must be one 0/1 (or bool) value per variable")
    if not isinstance(clauses, ClauseMatrix):
        clauses = clause_matrix(clauses, n_vars=a.shape[0])
    m = len(clauses)
    weights = np.ones(m) if weights is None else np.asarray(weights, dtype=float)
    if weights.shape != (m,) or a.shape != (clauses.n_vars,):
        raise ValueError(
            f"{m} clauses over {clauses.n_vars} variables, weights of shape "
            f"{weights.shape} and an assignment of shape {a.shape}"
        )
    clause_of, var_of, sign_of, n_neg, _ = clauses.round(0, m)
    return maxsat_round(a, clause_of, var_of, sign_of, n_neg, weights)[0]


class OneClause:
    """One validated clause and its weight: :func:`maxsat_round` on it, in Python.

    A round of the interactive path scores a single clause; numpy's per-call
    overhead would dominate there. The gains are exactly those of
    :func:`maxsat_round` on the same clause (``tests/test_maxsat.py`` checks
    it): a literal repeated counts once, and ``x or not x`` is one true
    literal whatever ``x`` is.
    """

    __slots__ = ("positive", "negative", "n_always_true", "n_vars", "weight")

    def __init__(self, clause: tuple, n_vars: int, weight: float):
        pos = {lit - 1 for lit in clause if lit > 0}
        neg = {-lit - 1 for lit in clause if lit < 0}
        both = pos & neg
        if both:
            pos, neg = pos - both, neg - both
        self.positive, self.negative = list(pos), list(neg)
        self.n_always_true = len(both)
        self.n_vars, self.weight = n_vars, weight

    def score(self, a: np.ndarray) -> tuple[np.ndarray, float]:
        """``(gains, satisfied weight)`` of assignment ``a`` (0/1)."""
        true = [v for v in self.positive if a[v]] + [
            v for v in self.negative if not a[v]
        ]
        count = self.n_always_true + len(true)
        gains = np.zeros(self.n_vars)
        if count == 0:  # flipping any variable of the clause satisfies it
            gains[self.positive + self.negative] = self.weight
        elif count == 1 and true and self.weight:  # flipping it unsatisfies
            gains[true[0]] = -self.weight
        return gains, (self.weight if count else 0.0)


def one_clause(clause, n_vars: int, weights=None) -> OneClause | None:
    """One clause of plain ``int`` literals (an interactive round), or None.

    The common case of :meth:`~sklearn_localregret.OnlineMaxSAT.observe`,
    read without building a formula: a valid clause is taken as it is; an
    invalid one is handed to
    :func:`~sklearn_localregret.maxsat.formula.check_clause` and
    :func:`~sklearn_localregret.maxsat.formula.check_weights`, so its errors are
    word for word those of
    :func:`~sklearn_localregret.maxsat.reading.as_formula`. Anything else
    (nested clauses, numpy or float literals, PySAT formulas) returns None and
    takes ``as_formula``.
    """
    if type(clause) not in (list, tuple) or not clause:
        return None
    for lit in clause:
        if type(lit) is not int:
            return None
        if not (0 < lit <= n_vars or 0 < -lit <= n_vars):
            check_clause(clause, 0, n_vars)  # raises the error of as_formula
    if weights is None:
        return OneClause(clause, n_vars, 1.0)
    weight = float(check_weights(weights, (tuple(clause),))[0])
    return OneClause(clause, n_vars, weight)


def formula_rounds(formula, batch_size: int):
    """``(score, weight)`` of every round of ``batch_size`` clauses of a
    validated formula, in order, for :meth:`OnlineMaxSAT._play
    <sklearn_localregret.OnlineMaxSAT>`: ``score(a)`` is ``(gains,
    satisfied weight)`` of assignment ``a`` on the round's clauses."""
    weights = formula.weights
    if batch_size == 1:  # one clause a round: plain Python is faster
        for clause, weight in zip(formula.clauses, weights.tolist()):
            yield OneClause(clause, formula.n_vars, weight).score, weight
        return
    matrix = ClauseMatrix(formula.clauses, formula.n_vars, weights)
    for start in range(0, len(matrix), batch_size):
        yield round_score(matrix, start, min(start + batch_size, len(matrix)))


def round_score(matrix: ClauseMatrix, start: int, stop: int):
    """``(score, weight)`` of the round of clauses ``start:stop`` of
    ``matrix``: ``score(a)`` is :func:`maxsat_round` on them."""
    args = matrix.round(start, stop)
    return (lambda a: maxsat_round(a, *args)), float(args[-1].sum())
