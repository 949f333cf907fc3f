"""Reading DIMACS input into numbers; every error names the file and the line.

:func:`read_source` turns a path, a file object, bytes or a string into text,
and :func:`parse_dimacs` the text into clauses, weights and hard flags, which
:func:`~sklearn_localregret.read_dimacs` makes a formula of. The extension
alone decides decompression (``.gz``, ``.bz2``, ``.xz``), and the first bytes
are checked against it: a ``.gz`` file that is not gzip data, or a ``.cnf``
file that is, is an error saying so, never a guess. Every problem with the
content raises :class:`DimacsError` (a ``ValueError``) naming the file; a path
that cannot be opened raises the ``OSError`` of ``open`` (which names it too).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import os
import re
import reprlib
import zlib
from collections.abc import Callable
from io import BufferedIOBase

import numpy as np

from .._weights import MAX_WEIGHT
from .formula import LARGEST_VARIABLE

__all__ = ["DimacsError", "parse_dimacs", "read_source"]

# Magic numbers of the compressed formats, by the extension that names them.
_COMPRESSED: dict[str, tuple[str, bytes, Callable[..., BufferedIOBase]]] = {
    ".gz": ("gzip", b"\x1f\x8b", gzip.open),
    ".bz2": ("bzip2", b"BZh", bz2.open),
    ".xz": ("xz", b"\xfd7zXZ\x00", lzma.open),
}
# bzip2's magic is "BZh" and a block size digit: "BZh" alone may start text.
_BZ2_BLOCKS = {bytes([d]) for d in b"123456789"}


class DimacsError(ValueError):
    """DIMACS input that cannot be read; the message names the file and line.

    Raised by :func:`~sklearn_localregret.read_dimacs` for every problem with
    the content of a file or text: undecodable bytes, truncated or mislabelled
    compression, no formula at all, a bad p-line, token, literal or weight,
    counts that disagree. The message reads ``"FILE: line N: what is wrong"``,
    leaving out the file for text input and the line where there is none.

    Parameters
    ----------
    reason : str
        What is wrong.
    source : str or None, default=None
        The file's name, None for text.
    line : int or None, default=None
        The 1-based line number, None when the problem has no line.

    Attributes
    ----------
    reason, source, line
        As given.

    Examples
    --------
    >>> err = DimacsError("empty clause", source="f.cnf", line=3)
    >>> str(err), isinstance(err, ValueError)
    ('f.cnf: line 3: empty clause', True)
    """

    def __init__(self, reason: str, source: str | None = None, line: int | None = None):
        self.reason, self.source, self.line = reason, source, line
        where = (f"{source}: " if source else "") + (f"line {line}: " if line else "")
        super().__init__(where + reason)

    def __reduce__(self):
        return type(self), (self.reason, self.source, self.line)


def read_source(source) -> tuple[str, str | None]:
    """The text of ``source`` and the name to give in errors.

    Parameters
    ----------
    source : str, bytes, os.PathLike or file object
        A path (decompressed by its extension), an open text or binary file
        (read as it is), bytes, or a string of DIMACS text. A ``str`` is text
        when it contains a line break, is blank, or its first word is
        ``p``, ``c``, ``h`` or a number; otherwise it is a path.

    Returns
    -------
    text : str
        Decoded as UTF-8; bytes that are not UTF-8 become lone surrogates
        (``errors="surrogateescape"``) so that the parser can name the line
        that holds them, and comment lines may hold anything.
    name : str or None
        The path, or the file object's ``name``; None for text and bytes.

    Raises
    ------
    OSError
        The path cannot be opened (missing, a directory, no permission).
    DimacsError
        Compression that does not match the extension, compressed data that is
        truncated or corrupt, a text-mode file object that is not UTF-8.
    TypeError
        ``source`` is none of the above.

    Examples
    --------
    >>> read_source("p cnf 1 1\\n1 0\\n")
    ('p cnf 1 1\\n1 0\\n', None)
    >>> read_source(b"1 0\\n")
    ('1 0\\n', None)
    """
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        if not isinstance(name, (str, bytes, os.PathLike)):
            name = None  # e.g. the int of a file opened by descriptor
        name = None if name is None else os.fsdecode(name)
        try:
            data = source.read()
        except UnicodeDecodeError as exc:
            raise DimacsError(
                f"not UTF-8 text ({exc.reason} at byte {exc.start})", name
            ) from None
        return (_decode(data) if isinstance(data, bytes) else data), name
    if isinstance(source, (bytes, bytearray)):
        return _decode(bytes(source)), None
    if isinstance(source, str) and _looks_like_text(source):
        return source, None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"source must be a path, a file object or DIMACS text, got "
            f"{type(source).__name__}"
        )
    name = os.fsdecode(source)
    return _decode(_read_path(name)), name


def _read_path(path: str) -> bytes:
    ext = os.path.splitext(path)[1].lower()
    with open(path, "rb") as raw:
        head = raw.read(8)
        raw.seek(0)
        found = _sniff(head)
        if ext not in _COMPRESSED:
            if found is not None:
                kind, fix = found
                raise DimacsError(
                    f"the file is {kind}-compressed but its name does "
                    f"not end in {fix}: rename it to read it",
                    path,
                )
            return raw.read()
        kind, _, opener = _COMPRESSED[ext]
        if found is None or found[0] != kind:
            actual = (
                f"its first bytes are {head[:8]!r}"
                if found is None
                else f"it is {found[0]} data"
            )
            raise DimacsError(
                f"the name ends in {ext} but the file is not {kind} data ({actual})",
                path,
            )
        try:
            with opener(raw, "rb") as fh:
                return fh.read()
        except EOFError:
            raise DimacsError(
                f"the {kind} data is truncated (it ends before its "
                "end-of-stream marker)",
                path,
            ) from None
        except (OSError, zlib.error, lzma.LZMAError) as exc:
            raise DimacsError(f"the {kind} data is corrupt ({exc})", path) from None


def _sniff(head: bytes) -> tuple[str, str] | None:
    """(format, extension) of compressed data by its magic number, else None."""
    for ext, (kind, magic, _) in _COMPRESSED.items():
        block_size = head[len(magic) : len(magic) + 1]
        if head.startswith(magic) and (kind != "bzip2" or block_size in _BZ2_BLOCKS):
            return kind, ext
    return None


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _looks_like_text(s: str) -> bool:
    if "\n" in s or "\r" in s:
        return True
    words = s.split(None, 1)
    if not words:  # empty (or blank): the empty input, never a file's name
        return True
    word = words[0]
    return word in ("p", "c", "h") or word.lstrip("+-").replace(".", "", 1).isdigit()


def parse_dimacs(
    text: str,
    name: str | None = None,
    format: str | None = None,
    max_vars: int | None = None,
) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, int | None]:
    """Parse DIMACS text (see :func:`~sklearn_localregret.read_dimacs`).

    Parameters
    ----------
    text : str
        The text, as :func:`read_source` returns it.
    name : str or None, default=None
        The file's name, for errors and for the ``.wcnf`` rule.
    format : {"cnf", "wcnf"} or None, default=None
        How to read text without a p-line; None applies the rule.
    max_vars : int or None, default=None
        Largest variable index accepted.

    Returns
    -------
    clauses : list of tuple of int
    weights : ndarray of float
        The soft weights; 0 for hard clauses.
    hard : ndarray of bool
    n_vars : int or None
        The p-line's ``V``; None without a p-line.

    Raises
    ------
    DimacsError

    Examples
    --------
    >>> parse_dimacs("h 1 0\\n2 -1 2 0\\n")
    ([(1,), (-1, 2)], array([0., 2.]), array([ True, False]), None)
    >>> parse_dimacs("1 0", name="f.cnf.gz", format="cnf")
    ([(1,)], array([1.]), array([False]), None)
    """
    if text.startswith("\ufeff"):  # a byte-order mark some editors write
        text = text[1:]
    if format is None:
        stem = name or ""
        if os.path.splitext(stem)[1].lower() in _COMPRESSED:
            stem = os.path.splitext(stem)[0]
        wcnf = stem.lower().endswith(".wcnf") or _has_hard_line(text)
        format = "wcnf" if wcnf else "cnf"
    return _Parser(name, format, max_vars).parse(text)


# A line whose first token is "h" (a hard clause of the 2022 WCNF format),
# and one whose first token starts with "%" (the end: the parser stops
# there); lines end at \n or \r, as the parser reads them.
_HARD_LINE = re.compile(r"(?:^|[\r\n])[^\S\r\n]*h(?=\s|$)")
_END_LINE = re.compile(r"(?:^|[\r\n])[^\S\r\n]*%")


def _has_hard_line(text: str) -> bool:
    """Whether a line before the end holds a hard clause (2022 WCNF)."""
    hard = _HARD_LINE.search(text)
    if hard is None:
        return False
    end = _END_LINE.search(text, 0, hard.start() + 1)
    return end is None


_LIMIT = " variables (max_vars; --max-vars of the solve command)"

# Tokens quoted in errors are cut short: one line of stderr, however long a token.
_short = reprlib.Repr()
_short.maxstring = _short.maxlong = 40


class _Parser:
    """One reading of DIMACS text; every error names the source and the line."""

    def __init__(self, name: str | None, headerless: str, max_vars: int | None):
        self.name, self.headerless, self.max_vars = name, headerless, max_vars

    def error(self, reason: str, line: int | None = None) -> DimacsError:
        return DimacsError(reason, self.name, line)

    def parse(self, text: str):
        # kind: "cnf" (no weights), "classic" (p wcnf) or "new" (2022 WCNF).
        kind = "new" if self.headerless == "wcnf" else "cnf"
        n_vars, n_decl, top, p_line = None, None, None, 0
        # Variables index int64 arrays: no larger index, whatever max_vars.
        limit, why = self.max_vars, _LIMIT
        if limit is None or limit > LARGEST_VARIABLE:
            limit, why = LARGEST_VARIABLE, " variables (64-bit literals)"
        clauses: list[tuple[int, ...]] = []
        weights: list[float] = []
        hard: list[bool] = []
        lits: list[int] = []
        head = None  # the pending clause's weight ("h" for hard) in WCNF
        start = 0  # line where the pending clause began
        # Lines end at \n, \r\n or \r only (splitlines() also breaks at
        # form feeds, NEL, U+2028, ...: other line numbers, and non-ASCII
        # separators taken inside a clause line).
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for number, line in enumerate(lines, start=1):
            tokens = line.split()
            if not tokens or tokens[0].startswith("c"):
                continue
            if not line.isascii() or "_" in line:
                raise self._bad_characters(line, number)
            if tokens[0].startswith("%"):
                break
            if tokens[0] == "p":
                if p_line or clauses or lits or head is not None:
                    raise self.error("the p-line must come first, once", number)
                kind, n_vars, n_decl, top = self._p_line(tokens, number)
                p_line = number
                if n_vars > limit:
                    raise self.error(
                        f"the p-line declares {_short.repr(n_vars)} variables, "
                        f"beyond the limit of {limit}{why}",
                        number,
                    )
                continue
            for tok in tokens:
                if kind != "cnf" and head is None:
                    head, start = self._weight(tok, number), number
                    continue
                try:
                    lit = int(tok)
                except ValueError:
                    raise self.error(
                        f"{_short.repr(tok)} is not an integer literal", number
                    ) from None
                if not lits and kind == "cnf":
                    start = number
                if lit:
                    if n_vars is not None and abs(lit) > n_vars:
                        raise self.error(
                            f"literal {_short.repr(lit)} is beyond the "
                            f"{n_vars} variables of the p-line",
                            number,
                        )
                    if abs(lit) > limit:
                        raise self.error(
                            f"variable {_short.repr(abs(lit))} is beyond "
                            f"the limit of {limit}{why}",
                            number,
                        )
                    lits.append(lit)
                    continue
                if not lits:
                    raise self.error("empty clause", number)
                is_hard = head == "h" or (top is not None and head >= top)
                if not is_hard and head is not None and head > MAX_WEIGHT:
                    raise self.error(
                        f"weight {head:g} is above {MAX_WEIGHT:g}, the largest "
                        "a clause may weigh (only the ratios of the weights "
                        "matter: divide them all by a common factor)",
                        start,
                    )
                clauses.append(tuple(lits))
                weights.append(0.0 if is_hard else (1.0 if head is None else head))
                hard.append(is_hard)
                lits, head = [], None
        if lits or head is not None:
            raise self.error(
                "the clause starting here is missing its terminating 0", start
            )
        if n_decl is not None and n_decl != len(clauses):
            raise self.error(
                f"the p-line declares {n_decl} clauses but {len(clauses)} were read",
                p_line,
            )
        if not p_line and not clauses:
            raise self.error(
                "no p-line and no clauses: the input is empty or only comments"
            )
        return clauses, np.asarray(weights), np.asarray(hard, dtype=bool), n_vars

    def _bad_characters(self, line: str, number: int) -> DimacsError:
        if line.isascii():
            return self.error(
                "'_' in a number: clause lines hold plain numbers", number
            )
        char = next(ch for ch in line if not ch.isascii())
        if "\udc80" <= char <= "\udcff":  # an undecodable byte (surrogateescape)
            return self.error(
                f"byte 0x{ord(char) - 0xDC00:02x} is not UTF-8 text "
                "(is this a binary file?)",
                number,
            )
        return self.error(
            f"character {char!r} is not ASCII: clause lines hold plain numbers", number
        )

    def _p_line(self, tokens: list[str], number: int):
        kind = tokens[1] if len(tokens) > 1 else ""
        sizes = (4,) if kind == "cnf" else (4, 5) if kind == "wcnf" else ()
        shown = _short.repr(" ".join(tokens))
        if len(tokens) not in sizes:
            raise self.error(
                f"bad p-line {shown}; expected 'p cnf V C' or 'p wcnf V C [top]'",
                number,
            )
        try:
            n_vars, n_clauses = int(tokens[2]), int(tokens[3])
        except ValueError:
            n_vars = n_clauses = -1
        if n_vars < 0 or n_clauses < 0:
            raise self.error(
                f"bad p-line {shown}; V and C must be non-negative integers", number
            )
        top = None
        if len(tokens) == 5:
            top = self._weight(tokens[4], number)
            if top == "h":
                raise self.error(f"bad p-line {shown}; top must be a number", number)
        return ("classic" if kind == "wcnf" else "cnf"), n_vars, n_clauses, top

    def _weight(self, tok: str, number: int):
        if tok == "h":
            return "h"
        try:
            w = float(tok)
        except ValueError:
            w = math.nan
        if not (math.isfinite(w) and w >= 0):
            raise self.error(
                f"weight {_short.repr(tok)} is not a finite non-negative number", number
            )
        return w
