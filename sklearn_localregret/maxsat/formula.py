"""The formula type: validated clauses in the DIMACS convention, and their weights.

A literal is a non-zero ``int``: ``+(i + 1)`` is variable ``i`` and ``-(i + 1)``
its negation; a clause is a tuple of literals of any width. :class:`WeightedFormula`
holds validated clauses, their weights and which are hard, and writes itself as
DIMACS CNF or WCNF text; :func:`check_clause` and :func:`check_weights` are the
one validation of a clause and of weights, which every reading of clauses in
:mod:`sklearn_localregret.maxsat` goes through
(:mod:`~sklearn_localregret.maxsat.reading` turns user input and files into
formulas). It imports nothing beyond numpy.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._weights import MAX_WEIGHT, first_too_large

__all__ = ["Clauses", "WeightedFormula", "check_clause", "check_weights"]

Clauses = tuple[tuple[int, ...], ...]

# Literals are held as 64-bit integers (the clause matrices, the solver).
LARGEST_VARIABLE = 2**63 - 1

_short = reprlib.Repr()
_short.maxtuple = _short.maxlist = 8


def _literal(x, index: int, clause, n_vars: int | None) -> int:
    if type(x) is not int:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, Real):
            raise TypeError(
                f"clause {index} {_short.repr(clause)}: literal {x!r} is not an integer"
            )
        if not isinstance(x, Integral):
            if not (math.isfinite(x) and float(x).is_integer()):
                raise ValueError(
                    f"clause {index} {_short.repr(clause)}: literal {x!r} is not "
                    "a whole number"
                )
        # typeshed's numbers.Real lacks __int__; float, numpy and Fraction have it.
        x = int(x)  # type: ignore[call-overload]
    if x == 0:
        raise ValueError(
            f"clause {index} {_short.repr(clause)}: literal 0 is not allowed (0 "
            "only terminates a clause in DIMACS)"
        )
    if abs(x) > LARGEST_VARIABLE:
        raise ValueError(
            f"clause {index} {_short.repr(clause)}: literal {x} is beyond the "
            f"largest variable, {LARGEST_VARIABLE} (64-bit integers)"
        )
    if n_vars is not None and abs(x) > n_vars:
        raise ValueError(
            f"clause {index} {_short.repr(clause)}: literal {x} is beyond "
            f"n_vars={n_vars}"
        )
    return x


def check_clause(clause, index: int, n_vars: int | None) -> tuple[int, ...]:
    """Clause ``index`` as a tuple of ``int`` literals, or the error naming it.

    Integers, numpy integers and whole floats are literals; a mapping, a
    string, a bool, a fractional float, literal 0, a literal beyond
    ``n_vars`` (when not None) and an empty clause raise ``TypeError`` or
    ``ValueError`` naming clause ``index``.
    """
    if isinstance(clause, Mapping):
        raise TypeError(
            f"clause {index} {_short.repr(clause)} is a mapping: give a sequence of "
            "integer literals (a mapping would be read as its keys)"
        )
    if isinstance(clause, (str, bytes)) or not isinstance(clause, Iterable):
        raise TypeError(
            f"clause {index} {clause!r} is not a sequence of integer literals"
        )
    lits = tuple(_literal(x, index, clause, n_vars) for x in clause)
    if not lits:
        raise ValueError(f"clause {index} is empty (an empty clause is never true)")
    return lits


def check_weights(weights, clauses: Clauses) -> np.ndarray:
    """One finite, non-negative weight per clause, at most ``MAX_WEIGHT``.

    Returns a new float array; the errors name the first bad clause.
    """
    if np.asarray(weights).dtype == bool:  # as a pair's weight in run()
        raise TypeError("weights must be numbers, not booleans")
    try:
        w = np.array(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"weights must be an array of numbers: {exc}") from None
    if w.ndim != 1 or len(w) != len(clauses):
        raise ValueError(
            f"weights has shape {w.shape} but there are {len(clauses)} clauses: "
            "give one weight per clause"
        )
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        i = int(bad[0])
        raise ValueError(
            f"weights must be finite and non-negative; clause {i} "
            f"{_short.repr(clauses[i])} has weight {float(w[i])!r}"
        )
    big = first_too_large(w)
    if big is not None:
        raise ValueError(
            f"weights must be at most {MAX_WEIGHT:g} (larger ones could overflow "
            f"the regret tables; only their ratios matter); clause {big} "
            f"{_short.repr(clauses[big])} has weight {float(w[big])!r}"
        )
    return w


def _top(soft_weights: np.ndarray) -> float:
    total = float(soft_weights.sum())
    top = total + 1.0
    # Above 2**53 adding 1 is lost: the top must still exceed every soft weight.
    return top if top > total else float(np.nextafter(total, np.inf))


@dataclass(frozen=True, init=False, eq=False, repr=False)
class WeightedFormula:
    """An immutable weighted Max-SAT formula with optional hard clauses.

    Parameters
    ----------
    clauses : iterable of iterables of int
        Clauses of non-zero DIMACS literals (``+-(var + 1)``), any width.
    n_vars : int, default=None
        Number of variables; the largest ``|literal|`` when None.
    weights : array-like of shape (n_clauses,), default=None
        Non-negative finite weight of each clause; all ones when None. The entries
        of hard clauses are replaced by :attr:`top`.
    hard : array-like of bool of shape (n_clauses,), default=None
        Which clauses are hard; none when None.

    Attributes
    ----------
    clauses : tuple of tuple of int
        The validated clauses.
    n_vars : int
        Number of variables.
    weights : ndarray of float of shape (n_clauses,)
        Read-only. Soft clauses keep their weight; every hard clause weighs
        :attr:`top`, more than all soft clauses together, so maximising the
        satisfied weight never trades a hard clause for soft ones.
    hard : ndarray of bool of shape (n_clauses,)
        Read-only mask of the hard clauses: ``weights[~hard]`` are the soft
        weights, ``[c for c, h in zip(f, f.hard) if h]`` the hard clauses.

    Notes
    -----
    Iterating yields the clauses and ``len`` counts them. Two formulas are equal
    when their variables, clauses, weights and hard masks are.

    Examples
    --------
    >>> f = WeightedFormula([[1, -2], [2, 3], [-1]], weights=[2, 1, 0], hard=[0, 0, 1])
    >>> f
    WeightedFormula(n_vars=3, n_clauses=3, n_hard=1)
    >>> f.weights, f.top
    (array([2., 1., 4.]), 4.0)
    >>> list(f)
    [(1, -2), (2, 3), (-1,)]
    >>> print(f.to_wcnf(style="new"), end="")
    2 1 -2 0
    1 2 3 0
    h -1 0
    """

    # The validated attributes; __init__ takes looser input.
    clauses: Clauses
    n_vars: int
    weights: np.ndarray
    hard: np.ndarray

    def __init__(
        self,
        clauses: Iterable[Iterable],
        n_vars: int | None = None,
        weights: ArrayLike | None = None,
        hard: ArrayLike | None = None,
    ):
        if n_vars is not None:
            if isinstance(n_vars, bool) or not isinstance(n_vars, Integral):
                raise TypeError(f"n_vars must be an integer, got {n_vars!r}")
            if n_vars < 0:
                raise ValueError(f"n_vars must be non-negative, got {n_vars}")
            n_vars = int(n_vars)
        if isinstance(clauses, (str, bytes)):
            raise TypeError("clauses must be a sequence of clauses, not a string")
        checked = tuple(check_clause(c, i, n_vars) for i, c in enumerate(clauses))
        if n_vars is None:
            n_vars = max((abs(x) for c in checked for x in c), default=0)
        w = check_weights(
            np.ones(len(checked)) if weights is None else weights, checked
        )
        mask = np.zeros(len(checked), dtype=bool)
        if hard is not None:
            given = np.asarray(hard)
            if given.shape != mask.shape:
                raise ValueError(
                    f"hard has shape {given.shape} but there are {len(checked)} clauses"
                )
            if given.size and not (
                given.dtype == bool
                or (given.dtype.kind in "iuf" and np.isin(given, (0, 1)).all())
            ):
                raise ValueError("hard must be booleans (or 0/1), one per clause")
            mask = given.astype(bool)
        w += 0.0  # -0.0 is 0.0: equal formulas hash alike
        w[mask] = _top(w[~mask])
        w.flags.writeable = False
        mask.flags.writeable = False
        for name, value in [
            ("clauses", checked),
            ("n_vars", n_vars),
            ("weights", w),
            ("hard", mask),
        ]:
            object.__setattr__(self, name, value)

    @property
    def top(self) -> float:
        """Weight of a hard clause: the total soft weight plus one."""
        return _top(self.weights[~self.hard])

    def __len__(self) -> int:
        return len(self.clauses)

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self.clauses)

    def __eq__(self, other) -> bool:
        if not isinstance(other, WeightedFormula):
            return NotImplemented
        return (
            self.n_vars == other.n_vars
            and self.clauses == other.clauses
            and np.array_equal(self.hard, other.hard)
            and np.array_equal(self.weights, other.weights)
        )

    def __hash__(self) -> int:
        return hash(
            (self.n_vars, self.clauses, self.weights.tobytes(), self.hard.tobytes())
        )

    def __repr__(self) -> str:
        return (
            f"WeightedFormula(n_vars={self.n_vars}, n_clauses={len(self)}, "
            f"n_hard={int(self.hard.sum())})"
        )

    def to_dimacs(self, *, drop_weights: bool = False) -> str:
        """DIMACS CNF text (``p cnf V C``) of the clauses.

        Parameters
        ----------
        drop_weights : bool, default=False
            CNF has no weights: unless this is True, a formula with a hard clause
            or a weight other than 1 raises ``ValueError`` (use :meth:`to_wcnf`).

        Returns
        -------
        str
            The text, one clause per line, ending with a newline.

        Examples
        --------
        >>> print(WeightedFormula([[1, -2], [2]]).to_dimacs(), end="")
        p cnf 2 2
        1 -2 0
        2 0
        """
        if not drop_weights and (self.hard.any() or np.any(self.weights != 1)):
            raise ValueError(
                "this formula has hard clauses or weights other than 1, which "
                "DIMACS CNF cannot hold: use to_wcnf() or drop_weights=True"
            )
        lines = [f"p cnf {self.n_vars} {len(self)}"]
        lines += [" ".join(map(str, c)) + " 0" for c in self.clauses]
        return "\n".join(lines) + "\n"

    def to_wcnf(self, style: Literal["classic", "new"] = "classic") -> str:
        """WCNF text of the weighted formula.

        Parameters
        ----------
        style : {"classic", "new"}, default="classic"
            ``"classic"``: a ``p wcnf V C top`` line, then ``weight lits 0`` with
            hard clauses weighted ``top``. ``"new"`` (MaxSAT Evaluation 2022+):
            no p-line, ``h lits 0`` for hard and ``weight lits 0`` for soft
            clauses; it does not declare ``V``, so it reads back with ``n_vars``
            equal to the largest variable used.

        Returns
        -------
        str
            The text, one clause per line, ending with a newline.

        Examples
        --------
        >>> f = WeightedFormula([[1, 2], [-2]], weights=[0, 1.5], hard=[1, 0])
        >>> print(f.to_wcnf(), end="")
        p wcnf 2 2 2.5
        2.5 1 2 0
        1.5 -2 0
        """
        if style not in ("classic", "new"):
            raise ValueError(f"style must be 'classic' or 'new', got {style!r}")
        heads = [_fmt(w) for w in self.weights]
        lines = []
        if style == "classic":
            lines.append(f"p wcnf {self.n_vars} {len(self)} {_fmt(self.top)}")
        else:
            heads = ["h" if h else w for h, w in zip(self.hard, heads)]
        lines += [f"{w} {' '.join(map(str, c))} 0" for w, c in zip(heads, self)]
        return "\n".join(lines) + "\n"


def _fmt(w: float) -> str:
    w = float(w)
    return str(int(w)) if w.is_integer() else repr(w)
