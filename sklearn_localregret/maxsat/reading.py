"""Reading clauses: every shape a user hands over, and DIMACS files, into formulas.

The one reading of clause input in the package: :func:`as_formula` normalises
a clause, clauses, a 2-d array, a
:class:`~sklearn_localregret.maxsat.formula.WeightedFormula` or a PySAT formula
(recognised by its attributes, never imported) into a :class:`WeightedFormula`;
:func:`split_weighted` reads ``(clause, weight)`` pairs; :func:`read_dimacs`
reads DIMACS CNF and both WCNF formats (the bytes and the tokens are
:mod:`sklearn_localregret.maxsat.dimacs`'s job). Every clause goes through
:func:`~sklearn_localregret.maxsat.formula.check_clause`, so the errors are the
same wherever clauses enter.
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._weights import MAX_WEIGHT, first_too_large
from .dimacs import parse_dimacs, read_source
from .formula import Clauses, WeightedFormula

__all__ = [
    "as_clauses",
    "as_formula",
    "playable_formula",
    "read_dimacs",
    "split_weighted",
]

_short = reprlib.Repr()
_short.maxtuple = _short.maxlist = 8


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
        contains a newline, is blank, or its first word is ``p``, ``c``,
        ``h`` or a number; otherwise it is a path. A path ending in ``.gz``, ``.bz2`` or
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


def playable_formula(clauses, n_vars: int, weights=None) -> WeightedFormula:
    """:func:`as_formula` for :class:`~sklearn_localregret.OnlineMaxSAT`'s
    rounds: every clause, a hard one included, weighs at most
    :data:`~sklearn_localregret._weights.MAX_WEIGHT`.

    A hard clause weighs the formula's ``top``, one more than all soft
    clauses together: a formula (or a PySAT ``WCNF``) whose soft weights
    are each allowed can still give its hard clauses a weight that could
    overflow the regret tables.

    Examples
    --------
    >>> heavy = WeightedFormula([[1], [2], [-1, -2]], weights=[1e100, 1e100, 0],
    ...                         hard=[False, False, True])
    >>> playable_formula(heavy, n_vars=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: clause 2 (-1, -2) is hard and weighs the formula's top, 2e+100, ...
    """
    formula = as_formula(clauses, n_vars=n_vars, weights=weights)
    big = first_too_large(formula.weights)
    if big is not None:
        raise ValueError(
            f"clause {big} {_short.repr(formula.clauses[big])} is hard and weighs "
            f"the formula's top, {formula.top:g}, above {MAX_WEIGHT:g}, the most a "
            "round's clause may weigh (the regret tables could overflow): scale "
            "the soft weights down"
        )
    return formula
