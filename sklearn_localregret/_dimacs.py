"""Clauses in the DIMACS convention: reading, writing, validating, evaluating.

A literal is a non-zero ``int``: ``+(i + 1)`` is variable ``i`` and ``-(i + 1)``
its negation; a clause is a tuple of literals of any width. This module reads
DIMACS CNF and both WCNF formats into a :class:`WeightedFormula`, normalises the
many shapes a user may hand over (:func:`as_clauses`, :func:`as_formula`);
:mod:`sklearn_localregret._clause_matrix` evaluates assignments in bulk. It
imports nothing beyond numpy; PySAT objects are recognised by their
attributes.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import math
import os
import reprlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal

import numpy as np

__all__ = [
    "WeightedFormula",
    "as_clauses",
    "as_formula",
    "read_dimacs",
]

Clauses = tuple[tuple[int, ...], ...]

_short = reprlib.Repr()
_short.maxtuple = _short.maxlist = 8


def _literal(x, index: int, clause, n_vars: int | None) -> int:
    if type(x) is not int:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, Real):
            raise TypeError(
                f"clause {index} {_short.repr(clause)}: literal {x!r} is not an "
                "integer"
            )
        if not isinstance(x, Integral):
            if not (math.isfinite(x) and float(x).is_integer()):
                raise ValueError(
                    f"clause {index} {_short.repr(clause)}: literal {x!r} is not "
                    "a whole number"
                )
        x = int(x)
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
    return w


def _top(soft_weights: np.ndarray) -> float:
    total = float(soft_weights.sum())
    top = total + 1.0
    # Above 2**53 adding 1 is lost: the top must still exceed every soft weight.
    return top if top > total else float(np.nextafter(total, np.inf))


@dataclass(frozen=True, eq=False, repr=False)
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

    clauses: Clauses
    n_vars: int | None = None
    weights: np.ndarray | None = None
    hard: np.ndarray | None = None

    def __post_init__(self):
        n_vars = self.n_vars
        if n_vars is not None:
            if isinstance(n_vars, bool) or not isinstance(n_vars, Integral):
                raise TypeError(f"n_vars must be an integer, got {n_vars!r}")
            if n_vars < 0:
                raise ValueError(f"n_vars must be non-negative, got {n_vars}")
            n_vars = int(n_vars)
        if isinstance(self.clauses, (str, bytes)):
            raise TypeError("clauses must be a sequence of clauses, not a string")
        clauses = tuple(_clause(c, i, n_vars) for i, c in enumerate(self.clauses))
        if n_vars is None:
            n_vars = max((abs(x) for c in clauses for x in c), default=0)
        w = np.ones(len(clauses)) if self.weights is None else self.weights
        w = _check_weights(w, clauses)
        hard = np.zeros(len(clauses), dtype=bool)
        if self.hard is not None:
            given = np.asarray(self.hard)
            if given.shape != hard.shape:
                raise ValueError(
                    f"hard has shape {given.shape} but there are {len(clauses)} "
                    "clauses"
                )
            hard = given.astype(bool)
        w[hard] = _top(w[~hard])
        w.flags.writeable = False
        hard.flags.writeable = False
        for name, value in [("clauses", clauses), ("n_vars", n_vars),
                            ("weights", w), ("hard", hard)]:
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
        return (self.n_vars == other.n_vars and self.clauses == other.clauses
                and np.array_equal(self.hard, other.hard)
                and np.array_equal(self.weights, other.weights))

    def __hash__(self) -> int:
        return hash((self.n_vars, self.clauses, self.weights.tobytes(),
                     self.hard.tobytes()))

    def __repr__(self) -> str:
        return (f"WeightedFormula(n_vars={self.n_vars}, n_clauses={len(self)}, "
                f"n_hard={int(self.hard.sum())})")

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
    hard = None
    if isinstance(obj, WeightedFormula):
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
        formula = WeightedFormula(formula.clauses, n_vars=int(nv),
                                  weights=formula.weights, hard=formula.hard)
    return formula


def _clauses_of_sequence(obj) -> list:
    if isinstance(obj, np.ndarray):
        if obj.ndim == 1:
            return [obj]
        if obj.ndim == 2:
            return list(obj)
        raise ValueError(f"a clause array must be 1-d or 2-d, got shape {obj.shape}")
    if not isinstance(obj, Iterable):
        raise TypeError(
            f"expected a clause, a sequence of clauses, a WeightedFormula or a "
            f"PySAT formula, got {type(obj).__name__}"
        )
    items = list(obj)
    if not items:
        raise ValueError("got an empty sequence: neither a clause nor clauses")
    first = items[0]
    if isinstance(first, (Real, np.bool_)) or first is None:
        return [items]
    return items


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


def read_dimacs(source) -> WeightedFormula:
    """Read DIMACS CNF or WCNF (classic or 2022 format) into a formula.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path (``os.PathLike``, or a ``str`` that is not text; ``.gz``, ``.bz2``
        and ``.xz`` files are decompressed), an open text or binary file, or the
        text itself. A ``str`` is text when it contains a newline or its first
        word is ``p``, ``c``, ``h`` or a number; otherwise it is a path.

    Returns
    -------
    WeightedFormula
        ``p cnf V C``: every clause soft with weight 1. ``p wcnf V C [top]``:
        each clause starts with its weight, a weight ``>= top`` makes it hard
        (without ``top`` all are soft). No p-line: the 2022 WCNF format, ``h lits
        0`` hard and ``weight lits 0`` soft, ``n_vars`` the largest variable.
        Hard clauses weigh the formula's ``top`` (not the file's).

    Raises
    ------
    ValueError
        With the line number: a bad or misplaced p-line, a non-numeric token, a
        literal beyond ``V``, a bad weight, an empty clause, a clause missing its
        terminating 0 at the end, or a clause count different from ``C``.

    Notes
    -----
    Lines starting with ``c`` are comments, clauses may span lines (or share
    one), and a line starting with ``%`` ends the formula (SATLIB files).

    Examples
    --------
    >>> f = read_dimacs("c example\\np cnf 3 2\\n1 -3 0 2\\n3 0\\n")
    >>> f.clauses, f.n_vars
    (((1, -3), (2, 3)), 3)
    >>> read_dimacs("h 1 2 0\\n5 -1 0\\n").weights
    array([6., 5.])
    >>> read_dimacs("p cnf 2 1\\n1 3 0\\n")
    Traceback (most recent call last):
    ...
    ValueError: line 2: literal 3 is beyond the 2 variables of the p-line
    """
    return _parse(_read_text(source))


def _read_text(source) -> str:
    if hasattr(source, "read"):
        text = source.read()
        return text.decode("utf-8") if isinstance(text, bytes) else text
    if isinstance(source, bytes):
        return source.decode("utf-8")
    if isinstance(source, str) and _looks_like_text(source):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"source must be a path, a file object or DIMACS text, got "
            f"{type(source).__name__}"
        )
    path = os.fspath(source)
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        os.path.splitext(path)[1].lower(), io.open
    )
    with opener(path, "rt", encoding="utf-8") as fh:
        return fh.read()


def _looks_like_text(s: str) -> bool:
    if "\n" in s or "\r" in s:
        return True
    words = s.split(None, 1)
    if not words:
        return False
    word = words[0]
    return word in ("p", "c", "h") or word.lstrip("+-").replace(".", "", 1).isdigit()


def _parse(text: str) -> WeightedFormula:
    kind, n_vars, n_decl, top, p_line = "new", None, None, None, 0
    clauses, weights, hard = [], [], []
    lits: list[int] = []
    head = None  # the pending clause's weight ("h" for hard) in WCNF
    start = 0  # line where the pending clause began
    for number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split()
        if not tokens or tokens[0].startswith("c"):
            continue
        if tokens[0].startswith("%"):
            break
        if tokens[0] == "p":
            if p_line or clauses or lits or head is not None:
                raise ValueError(f"line {number}: the p-line must come first, once")
            kind, n_vars, n_decl, top = _p_line(tokens, number)
            p_line = number
            continue
        for tok in tokens:
            if kind != "cnf" and head is None:
                head, start = _weight(tok, number), number
                continue
            try:
                lit = int(tok)
            except ValueError:
                raise ValueError(
                    f"line {number}: {tok!r} is not an integer literal"
                ) from None
            if not lits and kind == "cnf":
                start = number
            if lit:
                if n_vars is not None and abs(lit) > n_vars:
                    raise ValueError(
                        f"line {number}: literal {lit} is beyond the {n_vars} "
                        "variables of the p-line"
                    )
                lits.append(lit)
                continue
            if not lits:
                raise ValueError(f"line {number}: empty clause")
            is_hard = head == "h" or (top is not None and head >= top)
            clauses.append(tuple(lits))
            weights.append(0.0 if is_hard else (1.0 if head is None else head))
            hard.append(is_hard)
            lits, head = [], None
    if lits or head is not None:
        raise ValueError(
            f"line {start}: the clause starting here is missing its terminating 0"
        )
    if n_decl is not None and n_decl != len(clauses):
        raise ValueError(
            f"line {p_line}: the p-line declares {n_decl} clauses but "
            f"{len(clauses)} were read"
        )
    return WeightedFormula(clauses, n_vars=n_vars, weights=np.asarray(weights),
                           hard=np.asarray(hard, dtype=bool))


def _p_line(tokens: list[str], number: int):
    kind = tokens[1] if len(tokens) > 1 else ""
    sizes = (4,) if kind == "cnf" else (4, 5) if kind == "wcnf" else ()
    if len(tokens) not in sizes:
        raise ValueError(
            f"line {number}: bad p-line {' '.join(tokens)!r}; expected "
            "'p cnf V C' or 'p wcnf V C [top]'"
        )
    try:
        n_vars, n_clauses = int(tokens[2]), int(tokens[3])
    except ValueError:
        n_vars = n_clauses = -1
    if n_vars < 0 or n_clauses < 0:
        raise ValueError(
            f"line {number}: bad p-line {' '.join(tokens)!r}; V and C must be "
            "non-negative integers"
        )
    top = _weight(tokens[4], number) if len(tokens) == 5 else None
    return ("classic" if kind == "wcnf" else "cnf"), n_vars, n_clauses, top


def _weight(tok: str, number: int):
    if tok == "h":
        return "h"
    try:
        w = float(tok)
    except ValueError:
        w = math.nan
    if not (math.isfinite(w) and w >= 0):
        raise ValueError(
            f"line {number}: weight {tok!r} is not a finite non-negative number"
        )
    return w
