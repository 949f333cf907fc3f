"""Clauses in the DIMACS convention: reading, writing, validating, evaluating.

A literal is a non-zero ``int``: ``+(i + 1)`` is variable ``i`` and ``-(i + 1)``
its negation; a clause is a tuple of literals of any width. This module reads
DIMACS CNF and both WCNF formats into a :class:`WeightedFormula` (the bytes and
the tokens are :mod:`sklearn_localregret._dimacs_reader`'s job), and normalises
the many shapes a user may hand over through one reading of a clause
(:func:`as_clauses`, :func:`as_formula`, and :func:`split_weighted` for
``(clause, weight)`` pairs); :mod:`sklearn_localregret._clause_matrix`
evaluates assignments in bulk. It imports nothing beyond numpy; PySAT objects
are recognised by their attributes.
"""

from __future__ import annotations

import math
import os
import reprlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ._dimacs_reader import DimacsError, parse_dimacs, read_source
from ._weights import MAX_WEIGHT, first_too_large

__all__ = [
    "DimacsError",
    "WeightedFormula",
    "as_clauses",
    "as_formula",
    "read_dimacs",
    "split_weighted",
]

Clauses = tuple[tuple[int, ...], ...]

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
    if n_vars is not None and abs(x) > n_vars:
        raise ValueError(
            f"clause {index} {_short.repr(clause)}: literal {x} is beyond "
            f"n_vars={n_vars}"
        )
    return x


def _clause(clause, index: int, n_vars: int | None) -> tuple[int, ...]:
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


def _check_weights(weights, clauses: Clauses) -> np.ndarray:
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
    >>> print(f.to_wcnf(style="new"))
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
        checked = tuple(_clause(c, i, n_vars) for i, c in enumerate(clauses))
        if n_vars is None:
            n_vars = max((abs(x) for c in checked for x in c), default=0)
        w = _check_weights(
            np.ones(len(checked)) if weights is None else weights, checked
        )
        mask = np.zeros(len(checked), dtype=bool)
        if hard is not None:
            given = np.asarray(hard)
            if given.shape != mask.shape:
                raise ValueError(
                    f"hard has shape {given.shape} but there are {len(checked)} clauses"
                )
            mask = given.astype(bool)
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


def as_formula(obj, n_vars: int | None = None, weights=None) -> WeightedFormula:
    """Normalise clause input of any supported shape into a :class:`WeightedFormula`.

    Parameters
    ----------
    obj : clause, clauses, WeightedFormula or PySAT formula
        One clause (a sequence of non-zero integer literals, numpy integers and
        whole floats accepted), a sequence of clauses (or a 2-d integer array), a
        :class:`WeightedFormula`, or an object shaped like PySAT's ``CNF``
        (``.clauses``, ``.nv``) or ``WCNF`` (``.hard``, ``.soft``, ``.wght``,
        ``.nv``); PySAT itself is never imported.
    n_vars : int, default=None
        Number of variables; a literal beyond it raises ``ValueError``. When None,
        the object's own count (``n_vars`` or ``nv``) or else the largest
        variable used.
    weights : array-like of shape (n_clauses,), default=None
        Weight of every clause. When given it replaces the object's weights and
        makes every clause soft.

    Returns
    -------
    WeightedFormula

    Raises
    ------
    TypeError
        A literal that is not an integer (bools, strings), a clause that is not a
        sequence, a string instead of clauses (use :func:`read_dimacs`).
    ValueError
        Literal 0, a float literal with a fractional part, a literal beyond
        ``n_vars``, an empty clause or sequence, bad weights. The message names
        the offending clause.

    Examples
    --------
    >>> as_formula([1, -3])
    WeightedFormula(n_vars=3, n_clauses=1, n_hard=0)
    >>> as_formula([[1, 2], [-2]], n_vars=4, weights=[3, 1]).weights
    array([3., 1.])
    """
    if isinstance(obj, (str, bytes, os.PathLike)):
        raise TypeError(
            "got a string or path: read DIMACS text or files with read_dimacs()"
        )
    if isinstance(obj, Mapping):
        raise TypeError(
            f"got a {type(obj).__name__}: clauses are sequences of integer "
            "literals (a mapping would be read as its keys)"
        )
    clauses: Iterable[Iterable]
    own_w: ArrayLike | None
    nv: int | None
    hard: np.ndarray | None = None
    if isinstance(obj, WeightedFormula):
        if weights is None and n_vars in (None, obj.n_vars):
            return obj  # immutable and valid: no second check of every clause
        clauses, own_w, hard, nv = obj.clauses, obj.weights, obj.hard, obj.n_vars
    elif hasattr(obj, "hard") and hasattr(obj, "soft"):  # PySAT WCNF
        clauses = list(obj.hard) + list(obj.soft)
        hard = np.arange(len(clauses)) < len(obj.hard)
        soft_w = list(getattr(obj, "wght", [1.0] * len(obj.soft)))
        own_w, nv = [0.0] * len(obj.hard) + soft_w, getattr(obj, "nv", None)
    elif hasattr(obj, "clauses") and hasattr(obj, "nv"):  # PySAT CNF
        clauses, own_w, nv = obj.clauses, None, obj.nv
    else:
        clauses, own_w, nv = _clauses_of_sequence(obj), None, None
    if weights is not None:
        own_w, hard = weights, None
    formula = WeightedFormula(clauses, n_vars=n_vars, weights=own_w, hard=hard)
    if n_vars is None and nv is not None and nv > formula.n_vars:
        # A declared count may be stale (PySAT's nv), so it only ever widens.
        formula = WeightedFormula(
            formula.clauses, n_vars=int(nv), weights=formula.weights, hard=formula.hard
        )
    return formula


def _clauses_of_sequence(obj) -> list:
    if isinstance(obj, np.ndarray):
        if obj.ndim == 1:
            return [obj]
        if obj.ndim == 2:
            return list(obj)
        raise ValueError(f"a clause array must be 1-d or 2-d, got shape {obj.shape}")
    if isinstance(obj, Mapping) or not isinstance(obj, Iterable):
        raise TypeError(
            f"expected a clause, a sequence of clauses, a WeightedFormula or a "
            f"PySAT formula, got {type(obj).__name__}"
        )
    items = list(obj)
    if not items:
        raise ValueError("got an empty sequence: neither a clause nor clauses")
    return [items] if _is_scalar(items[0]) else items


def _is_scalar(x) -> bool:
    """A literal-like item (a number, bool or None): not a clause of its own."""
    return (
        isinstance(x, (Real, np.number, np.bool_))
        or x is None
        or (isinstance(x, np.ndarray) and x.ndim == 0)
    )


def split_weighted(items) -> tuple[list, list]:
    """One clause per item, each a clause or a ``(clause, weight)`` pair.

    The reading of :meth:`~sklearn_localregret.OnlineMaxSAT.run`'s stream: an
    item is a pair when it is a tuple or list of two whose first element is a
    clause (not a literal); any other item is a clause, a lone literal a
    clause of one. The clauses themselves are validated later, by
    :func:`as_formula`, as everywhere else.

    Parameters
    ----------
    items : iterable

    Returns
    -------
    clauses : list
        The clauses, unvalidated.
    weights : list of float
        1.0 for items without a weight.

    Raises
    ------
    TypeError
        A pair's weight is not a number (or is a bool); ``items`` is a string,
        a mapping or not iterable.

    Examples
    --------
    >>> split_weighted([[1, -2], ([3], 2.5), 4, [1.0, 2.0]])
    ([[1, -2], [3], (4,), [1.0, 2.0]], [1.0, 2.5, 1.0, 1.0])
    """
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise TypeError(
            f"expected an iterable of clauses or (clause, weight) pairs, got "
            f"{type(items).__name__}"
        )
    clauses, weights = [], []
    for index, item in enumerate(items):
        weight = 1.0
        if (
            isinstance(item, (tuple, list))
            and len(item) == 2
            and not _is_scalar(item[0])
        ):
            item, weight = item
            if isinstance(weight, (bool, np.bool_)) or not isinstance(
                weight, (Real, np.number)
            ):
                raise TypeError(
                    f"item {index}: the weight {_short.repr(weight)} of the pair "
                    f"(clause, weight) is not a number"
                )
            weight = float(weight)
        elif _is_scalar(item):
            item = (item,)
        clauses.append(item)
        weights.append(weight)
    return clauses, weights


def as_clauses(
    obj, n_vars: int | None = None, weights=None
) -> tuple[Clauses, np.ndarray]:
    """Normalise clause input into validated clauses and their weights.

    Accepts everything :func:`as_formula` does, with the same parameters and
    errors; hard clauses come back weighted with the formula's ``top``.

    Returns
    -------
    clauses : tuple of tuple of int
    weights : ndarray of float of shape (n_clauses,)

    Examples
    --------
    >>> as_clauses([1, -2])
    (((1, -2),), array([1.]))
    >>> import numpy as np
    >>> as_clauses(np.array([[1, 2], [-1, 3]]), weights=[0.5, 2])
    (((1, 2), (-1, 3)), array([0.5, 2. ]))
    >>> as_clauses([[1, 0]])
    Traceback (most recent call last):
    ...
    ValueError: clause 0 [1, 0]: literal 0 is not allowed (0 only terminates a clause in DIMACS)
    """  # noqa: E501
    formula = as_formula(obj, n_vars=n_vars, weights=weights)
    return formula.clauses, formula.weights.copy()


# -- reading ----------------------------------------------------------------


def read_dimacs(
    source,
    *,
    format: Literal["cnf", "wcnf"] | None = None,
    max_vars: int | None = None,
) -> WeightedFormula:
    """Read DIMACS CNF or WCNF (classic or 2022 format) into a formula.

    Parameters
    ----------
    source : str, os.PathLike, bytes or file object
        A path (``os.PathLike``, or a ``str`` that is not text), an open text or
        binary file, bytes, or the text itself. A ``str`` is text when it
        contains a newline or its first word is ``p``, ``c``, ``h`` or a
        number; otherwise it is a path. A path ending in ``.gz``, ``.bz2`` or
        ``.xz`` is decompressed; its first bytes must match that extension, and
        a compressed file under another name is an error.
    format : {"cnf", "wcnf"}, default=None
        How to read input *without* a p-line: ``"cnf"`` as plain clauses of
        weight 1, ``"wcnf"`` as the 2022 WCNF format. None applies the rule of
        the Notes. A p-line, when there is one, always decides.
    max_vars : int, default=None
        Largest variable index accepted (in the p-line and in the clauses);
        None for no limit. Reading allocates nothing per variable, but a
        solver given the formula may: this is the check before it does.

    Returns
    -------
    WeightedFormula
        ``p cnf V C``: every clause soft with weight 1. ``p wcnf V C [top]``:
        each clause starts with its weight, a weight ``>= top`` makes it hard
        (without ``top`` all are soft). 2022 WCNF: ``h lits 0`` hard and
        ``weight lits 0`` soft, ``n_vars`` the largest variable. Hard clauses
        weigh the formula's ``top`` (not the file's).

    Raises
    ------
    DimacsError
        A ``ValueError`` whose message starts with the file's name (for a file)
        and the line number (where there is one): bytes that are not UTF-8 text
        on a clause line, compression that is truncated, corrupt or does not
        match the extension, input without a p-line and without clauses (empty
        or only comments), a bad or misplaced p-line, a token that is not a
        number, a literal beyond ``V`` or ``max_vars``, a bad weight, an empty
        clause, a clause missing its terminating 0 at the end, or a clause
        count different from ``C``.
    OSError
        The path cannot be opened (``FileNotFoundError``,
        ``IsADirectoryError``, ``PermissionError``), with its name.
    TypeError
        ``source`` is not a path, file object, bytes or text.

    Notes
    -----
    **Which format.** The p-line decides: ``p cnf`` is CNF, ``p wcnf`` classic
    WCNF. Input without one is 2022-format WCNF when ``format="wcnf"``, when
    the file's name ends in ``.wcnf`` (before any compression extension) or
    when a line starts with ``h`` (a hard clause, which only that format has);
    otherwise it is plain CNF, every number a literal. The numbers are never
    used to guess: ``1 -3 0`` without a p-line is the clause ``(1, -3)``
    unless the input is WCNF by this rule, where ``1`` is the weight.

    Lines starting with ``c`` are comments (they may hold any bytes), clauses
    may span lines (or share one), and a line starting with ``%`` ends the
    formula (SATLIB files). Clause lines hold only ASCII numbers: literals are
    integers, weights non-negative finite numbers.

    Examples
    --------
    >>> f = read_dimacs("c example\\np cnf 3 2\\n1 -3 0 2\\n3 0\\n")
    >>> f.clauses, f.n_vars
    (((1, -3), (2, 3)), 3)
    >>> read_dimacs("h 1 2 0\\n5 -1 0\\n").weights
    array([6., 5.])
    >>> read_dimacs("1 -3 0\\n2 3 0\\n").clauses  # no p-line, no h: plain CNF
    ((1, -3), (2, 3))
    >>> read_dimacs("1 -3 0\\n2 3 0\\n", format="wcnf").weights
    array([1., 2.])
    >>> try:
    ...     read_dimacs("p cnf 2 1\\n1 3 0\\n")
    ... except ValueError as exc:
    ...     print(exc)
    line 2: literal 3 is beyond the 2 variables of the p-line
    """
    if format not in (None, "cnf", "wcnf"):
        raise ValueError(f"format must be None, 'cnf' or 'wcnf', got {format!r}")
    if max_vars is not None and (
        isinstance(max_vars, bool) or not isinstance(max_vars, Integral) or max_vars < 0
    ):
        raise ValueError(
            f"max_vars must be None or a non-negative integer, got {max_vars!r}"
        )
    text, name = read_source(source)
    clauses, weights, hard, n_vars = parse_dimacs(text, name, format, max_vars)
    return WeightedFormula(clauses, n_vars=n_vars, weights=weights, hard=hard)
