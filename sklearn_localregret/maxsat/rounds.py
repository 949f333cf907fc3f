"""The utilities of online Max-SAT on the hypercube, vectorised with numpy.

For an assignment ``a`` and weighted clauses, the gain of every flip
``u(flip_k a) - u(a)``, ``u`` the weight of the satisfied clauses (paper,
Example "Online Max-3SAT").
"""

from __future__ import annotations

import numpy as np

from .._clause_matrix import ClauseMatrix, clause_matrix

__all__ = ["maxsat_gains", "maxsat_round"]


def maxsat_round(a, clause_of, var_of, sign_of, n_neg, weights):
    """Gains of every flip and the satisfied weight, for flat clause literals.

    The clauses are given as their signed incidence entries (the non-zeros of
    :attr:`sklearn_localregret._dimacs.ClauseMatrix.signed`): entry ``e`` says
    clause ``clause_of[e]`` holds variable ``var_of[e]`` positively
    (``sign_of[e] = 1``) or negated (-1). ``n_neg[c]`` is the number of
    negative literals of clause ``c``, so its true-literal count under ``a`` is
    ``n_neg[c] + sum_e sign_of[e] * a[var_of[e]]``.

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
        A sparse clause matrix (the package's internal form), or clauses as
        DIMACS integer literals, any width.
    weights : array-like of shape (n_clauses,), default=None
        Clause weights (ones when None).

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
    if not isinstance(clauses, ClauseMatrix):
        clauses = clause_matrix(clauses, n_vars=a.shape[0])
    signed = clauses.signed.tocoo()
    m = clauses.shape[0]
    weights = np.ones(m) if weights is None else np.asarray(weights, dtype=float)
    return maxsat_round(
        a,
        signed.row,
        signed.col,
        signed.data.astype(np.float64),
        clauses.n_neg,
        weights,
    )[0]
