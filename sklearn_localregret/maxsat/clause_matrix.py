"""Clauses as flat signed incidence entries: the one form that scores them.

:class:`ClauseMatrix` holds validated clauses as the non-zero entries of their
signed literal-incidence matrix, clause by clause. Everything that evaluates
clauses reads it: the rounds of :class:`~sklearn_localregret.OnlineMaxSAT`
(:meth:`ClauseMatrix.round` gives
:func:`~sklearn_localregret.maxsat.rounds.maxsat_round` its arguments), WalkSAT
(its occurrence lists, from :attr:`ClauseMatrix.signed`), and ``solve`` and
``walksat`` scoring whole assignments (:func:`satisfied`). It is built with
numpy alone; scipy views of the same entries are made on first request.
"""

from __future__ import annotations

from functools import cached_property
from itertools import chain

import numpy as np
import scipy.sparse as sp

from .formula import Clauses
from .reading import as_formula

__all__ = ["ClauseMatrix", "clause_matrix", "satisfied"]


class ClauseMatrix:
    """Validated clauses as the entries of their signed incidence matrix.

    Entry ``e`` says clause ``clause_of[e]`` holds variable ``var_of[e]``
    positively (``sign_of[e] = 1``) or negated (-1); the entries run clause by
    clause and by variable within a clause (CSR order, ``indptr``). A literal
    repeated in a clause counts once, and ``x or not x`` leaves no entry (the
    clause is always true: its negative literal still counts in ``n_neg``), so
    the true-literal count of clause ``c`` under a 0/1 assignment ``a`` is
    ``n_neg[c] + sum_e sign_of[e] * a[var_of[e]]``.

    Built by :func:`clause_matrix` from any clause input, or directly from
    clauses already validated (a :class:`~sklearn_localregret.WeightedFormula`'s).

    Parameters
    ----------
    clauses : tuple of tuple of int
        Validated clauses: non-zero literals within ``n_vars``.
    n_vars : int
        Number of variables (columns).
    weights : ndarray of shape (n_clauses,)
        The clauses' weights, which :meth:`round` hands on.

    Attributes
    ----------
    indptr : ndarray of intp of shape (n_clauses + 1,)
        The entries of clause ``c`` are ``indptr[c]:indptr[c + 1]``.
    clause_of, var_of : ndarray of intp of shape (n_entries,)
    sign_of : ndarray of float64 of shape (n_entries,)
    n_neg : ndarray of int64 of shape (n_clauses,)
        Negative literals per clause: the clause's true-literal count at the
        all-zero assignment.
    weights : ndarray of shape (n_clauses,)
    """

    def __init__(self, clauses: Clauses, n_vars: int, weights: np.ndarray):
        self.weights = weights
        self.n_vars = n_vars
        self._clauses = clauses
        m = len(clauses)
        lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=m)
        lits = np.fromiter(
            chain.from_iterable(clauses), dtype=np.int64, count=int(lengths.sum())
        )
        if lits.size and not (lits.all() and np.abs(lits).max() <= n_vars):
            raise ValueError(
                f"a literal 0 or beyond the {n_vars} variables: clauses are "
                "non-zero literals within n_vars"
            )
        rows = np.repeat(np.arange(m, dtype=np.int64), lengths)
        # One entry per distinct (clause, variable, sign), sorted by clause,
        # then variable: repeated literals count once. (Sorted as three keys:
        # one packed key overflowed int64 for large variables.)
        var, negative = np.abs(lits) - 1, lits < 0
        order = np.lexsort((negative, var, rows))
        rows, var, negative = rows[order], var[order], negative[order]
        if len(rows):
            new = (rows[1:] != rows[:-1]) | (var[1:] != var[:-1])
            distinct = np.r_[True, new | (negative[1:] != negative[:-1])]
            rows, var, negative = rows[distinct], var[distinct], negative[distinct]
        self.n_neg = np.bincount(rows[negative], minlength=m).astype(np.int64)
        cell = np.r_[True, (rows[1:] != rows[:-1]) | (var[1:] != var[:-1])]
        starts = np.flatnonzero(cell[: len(rows)])
        signs = (
            np.add.reduceat(np.where(negative, -1.0, 1.0), starts)
            if len(rows)
            else np.zeros(0)
        )
        kept = signs != 0  # x or not x: no entry
        self.sign_of = signs[kept]
        self.clause_of = rows[starts][kept].astype(np.intp)
        self.var_of = var[starts][kept].astype(np.intp)
        self.indptr = np.zeros(m + 1, dtype=np.intp)
        np.cumsum(np.bincount(self.clause_of, minlength=m), out=self.indptr[1:])

    def __len__(self) -> int:
        return len(self.n_neg)

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_clauses, n_vars)``."""
        return len(self), self.n_vars

    def round(self, start: int, stop: int):
        """Arguments of :func:`~sklearn_localregret.maxsat.rounds.maxsat_round`
        for clauses ``start:stop``: ``(clause_of, var_of, sign_of, n_neg,
        weights)``, the clauses numbered from 0."""
        lo, hi = self.indptr[start], self.indptr[stop]
        return (
            self.clause_of[lo:hi] - start,
            self.var_of[lo:hi],
            self.sign_of[lo:hi],
            self.n_neg[start:stop],
            self.weights[start:stop],
        )

    @cached_property
    def signed(self) -> sp.csr_array:
        """The entries as a ``scipy.sparse.csr_array`` of int8 ``pos - neg``."""
        return sp.csr_array(
            (self.sign_of.astype(np.int8), self.var_of, self.indptr),
            shape=self.shape,
        )

    @cached_property
    def pos(self) -> sp.csr_array:
        """``pos[c, i] = 1`` when clause ``c`` holds the literal ``i + 1``
        (tautologies included), as int8."""
        return self._incidence(positive=True)

    @cached_property
    def neg(self) -> sp.csr_array:
        """``neg[c, i] = 1`` when clause ``c`` holds the literal ``-(i + 1)``
        (tautologies included), as int8."""
        return self._incidence(positive=False)

    def _incidence(self, positive: bool) -> sp.csr_array:
        clauses = self._clauses
        lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
        lits = np.fromiter(
            chain.from_iterable(clauses), dtype=np.int64, count=int(lengths.sum())
        )
        rows = np.repeat(np.arange(len(clauses)), lengths)
        mask = lits > 0 if positive else lits < 0
        mat = sp.csr_array(
            (
                np.ones(int(mask.sum()), dtype=np.int8),
                (rows[mask], abs(lits[mask]) - 1),
            ),
            shape=self.shape,
        )
        mat.sum_duplicates()
        mat.data[:] = 1
        return mat


def clause_matrix(clauses, n_vars: int | None = None) -> ClauseMatrix:
    """The :class:`ClauseMatrix` of clauses of any supported shape.

    Parameters
    ----------
    clauses : clause, clauses, WeightedFormula or PySAT formula
        Anything :func:`~sklearn_localregret.maxsat.reading.as_formula`
        accepts; its weights (ones when it carries none) go with the matrix.
    n_vars : int, default=None
        Number of columns; inferred as in ``as_formula`` when None.

    Returns
    -------
    ClauseMatrix

    Examples
    --------
    >>> m = clause_matrix([[1, -2], [2, 3]], n_vars=3)
    >>> m.pos.toarray()
    array([[1, 0, 0],
           [0, 1, 1]], dtype=int8)
    >>> m.neg.toarray()
    array([[0, 1, 0],
           [0, 0, 0]], dtype=int8)
    >>> m.var_of, m.sign_of, m.n_neg
    (array([0, 1, 1, 2]), array([ 1., -1.,  1.,  1.]), array([1, 0]))
    """
    formula = as_formula(clauses, n_vars=n_vars)
    return ClauseMatrix(formula.clauses, formula.n_vars, formula.weights)


def satisfied(assignments, matrix) -> np.ndarray:
    """Which clauses each assignment satisfies, vectorised.

    Parameters
    ----------
    assignments : array-like of 0/1 or bool of shape (n_vars,) or (m, n_vars)
        One assignment, or one per row; entry ``i`` is the value of variable
        ``i`` (literal ``i + 1``).
    matrix : ClauseMatrix or clauses
        A :func:`clause_matrix`, or anything :func:`as_formula` accepts (then
        built with ``n_vars = assignments.shape[-1]``).

    Returns
    -------
    ndarray of bool of shape (n_clauses,) or (m, n_clauses)

    Examples
    --------
    >>> m = clause_matrix([[1, -2], [2, 3], [-1]], n_vars=3)
    >>> satisfied([1, 1, 0], m)
    array([ True,  True, False])
    >>> satisfied([[0, 0, 0], [1, 0, 1]], m)
    array([[ True, False,  True],
           [ True,  True, False]])
    """
    a = np.asarray(assignments)
    if a.ndim not in (1, 2):
        raise ValueError(f"assignments must be 1-d or 2-d, got shape {a.shape}")
    if a.dtype != bool:
        if not np.all((a == 0) | (a == 1)):
            raise ValueError("assignments must hold only 0/1 (or bool) values")
    if not isinstance(matrix, ClauseMatrix):
        matrix = clause_matrix(matrix, n_vars=a.shape[-1])
    if a.shape[-1] != matrix.shape[1]:
        raise ValueError(
            f"assignments have {a.shape[-1]} variables but the clauses "
            f"{matrix.shape[1]}"
        )
    a = a.astype(np.int32)
    counts = matrix.signed @ (a if a.ndim == 1 else a.T)
    counts = counts.T if a.ndim == 2 else counts
    return counts + matrix.n_neg > 0
