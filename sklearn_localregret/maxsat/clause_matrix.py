"""Clauses as sparse literal-incidence matrices: evaluate assignments in bulk.

Used by the Max-SAT learner's gains, by WalkSAT and by the command line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import scipy.sparse as sp

from ._dimacs import as_formula

__all__ = ["ClauseMatrix", "clause_matrix", "satisfied"]


@dataclass(frozen=True, eq=False)
class ClauseMatrix:
    """Clauses as sparse literal-incidence matrices, for bulk evaluation.

    Built by :func:`clause_matrix`; repeated literals count once.

    Attributes
    ----------
    pos, neg : scipy.sparse.csr_array of int8 of shape (n_clauses, n_vars)
        ``pos[c, i] = 1`` when clause ``c`` holds the literal ``i + 1``, ``neg[c,
        i] = 1`` when it holds ``-(i + 1)``.
    signed : scipy.sparse.csr_array of int8 of shape (n_clauses, n_vars)
        ``pos - neg`` without explicit zeros (a tautology ``x or not x`` cancels).
    n_neg : ndarray of int of shape (n_clauses,)
        Negative literals per clause: the clause's true-literal count at the
        all-zero assignment, so that ``count(a) = signed @ a + n_neg``.
    """

    pos: sp.csr_array
    neg: sp.csr_array
    signed: sp.csr_array = field(init=False)
    n_neg: np.ndarray = field(init=False)

    def __post_init__(self):
        signed = (self.pos.astype(np.int8) - self.neg.astype(np.int8)).tocsr()
        signed.eliminate_zeros()
        object.__setattr__(self, "signed", signed)
        n_neg = np.asarray(self.neg.sum(axis=1)).ravel().astype(np.int64)
        object.__setattr__(self, "n_neg", n_neg)

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_clauses, n_vars)``."""
        return self.pos.shape


def clause_matrix(clauses, n_vars: int | None = None) -> ClauseMatrix:
    """Sparse ``pos``/``neg`` incidence matrices of clauses (see :class:`ClauseMatrix`).

    Parameters
    ----------
    clauses : clause, clauses, WeightedFormula or PySAT formula
        Anything :func:`as_formula` accepts.
    n_vars : int, default=None
        Number of columns; inferred as in :func:`as_formula` when None.

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
    """
    formula = as_formula(clauses, n_vars=n_vars)
    lengths = np.fromiter(map(len, formula), dtype=np.int64, count=len(formula))
    lits = np.fromiter(
        chain.from_iterable(formula), dtype=np.int64, count=int(lengths.sum())
    )
    rows = np.repeat(np.arange(len(formula)), lengths)
    mats = []
    for mask in (lits > 0, lits < 0):
        data = np.ones(int(mask.sum()), dtype=np.int8)
        mat = sp.csr_array(
            (data, (rows[mask], np.abs(lits[mask]) - 1)),
            shape=(len(formula), formula.n_vars),
        )
        mat.sum_duplicates()
        mat.data[:] = 1
        mats.append(mat)
    return ClauseMatrix(*mats)


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
