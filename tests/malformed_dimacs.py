"""A suite of malformed DIMACS files, shared by the reader's and solve's tests.

Each case is ``(id, file name, content, message fragment, line)``: content is
the file's bytes, ``None`` for a file that does not exist, ``"dir"`` for a
directory. ``line`` is the line the error must name, or None when the problem
has no line. Cases marked by ``OS_ERRORS`` cannot be opened at all (the reader
raises ``OSError``); every other case is a ``DimacsError``.
"""

import bz2
import gzip
import lzma

TEXT = b"p cnf 3 2\n1 -2 0\n2 3 0\n"
WCNF = b"h 1 2 0\n3 -1 0\n2 -2 3 0\n"


def _truncated(compress, data=TEXT * 50):
    packed = compress(data)
    return packed[: len(packed) // 2]


def _flipped_middle(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :]


MALFORMED = [
    # What cannot be opened.
    ("missing", "missing.cnf", None, "No such file", None),
    ("directory", "folder.cnf", "dir", "Is a directory", None),
    # Bytes that are not text, and compression.
    (
        "undecodable",
        "bad.cnf",
        b"p cnf 3 1\n1 \xff\xfe 0\n",
        "byte 0xff is not UTF-8",
        2,
    ),
    ("binary", "noise.cnf", bytes(range(128, 256)) * 4, "not UTF-8", 1),
    ("latin1 digit", "latin.cnf", b"p cnf 3 1\n1 2\xb2 0\n", "byte 0xb2", 2),
    (
        "non-ascii digit",
        "arabic.cnf",
        "p cnf 3 1\n1 \u0661 0\n".encode(),
        "is not ASCII",
        2,
    ),
    ("nul bytes", "nul.cnf", b"p cnf 3 1\n1 \x00 0\n", "is not an integer", 2),
    ("truncated gz", "cut.cnf.gz", _truncated(gzip.compress), "truncated", None),
    ("truncated bz2", "cut.wcnf.bz2", _truncated(bz2.compress), "truncated", None),
    ("truncated xz", "cut.cnf.xz", _truncated(lzma.compress), "truncated", None),
    (
        "corrupt gz",
        "flip.cnf.gz",
        _flipped_middle(gzip.compress(TEXT * 50)),
        "corrupt",
        None,
    ),
    ("plain text named gz", "plain.cnf.gz", TEXT, "is not gzip data", None),
    ("gzip named bz2", "wrong.cnf.bz2", gzip.compress(TEXT), "is not bzip2 data", None),
    ("gzip named cnf", "packed.cnf", gzip.compress(TEXT), "gzip-compressed", None),
    ("xz named wcnf", "packed.wcnf", lzma.compress(WCNF), "xz-compressed", None),
    # No formula at all.
    ("empty", "empty.cnf", b"", "empty or only comments", None),
    ("comments only", "notes.wcnf", b"c just\nc comments\n", "empty or only", None),
    ("blank lines", "blank.cnf", b"\n  \n\t\n", "empty or only comments", None),
    ("empty gz", "empty.cnf.gz", gzip.compress(b""), "empty or only comments", None),
    # The p-line.
    ("p-line short", "short.cnf", b"p cnf 3\n1 0\n", "bad p-line", 1),
    ("p-line kind", "sat.cnf", b"p sat 3 1\n1 0\n", "bad p-line", 1),
    ("p-line letters", "letters.cnf", b"p cnf x 1\n1 0\n", "bad p-line", 1),
    ("p-line negative", "neg.cnf", b"p cnf -1 1\n1 0\n", "bad p-line", 1),
    ("p-line long", "long.wcnf", b"p wcnf 3 1 10 7\n1 1 0\n", "bad p-line", 1),
    ("p-line top word", "top.wcnf", b"p wcnf 3 1 top\n1 1 0\n", "weight 'top'", 1),
    ("p-line top h", "toph.wcnf", b"p wcnf 3 1 h\n1 1 0\n", "top must be a number", 1),
    ("p-line late", "late.cnf", b"1 0\np cnf 1 1\n", "p-line must come first", 2),
    (
        "p-line twice",
        "twice.cnf",
        b"p cnf 1 1\np cnf 1 1\n1 0\n",
        "p-line must come first",
        2,
    ),
    # Counts that disagree.
    (
        "too few clauses",
        "few.cnf",
        b"p cnf 5 5\n1 0\n2 0\n",
        "declares 5 clauses but 2 were read",
        1,
    ),
    (
        "too many clauses",
        "many.cnf",
        b"c x\np cnf 3 1\n1 0\n2 0\n",
        "declares 1 clauses but 2",
        2,
    ),
    (
        "literal beyond V",
        "beyond.cnf",
        b"p cnf 2 1\n1 3 0\n",
        "literal 3 is beyond the 2 variables",
        2,
    ),
    # Tokens and clauses.
    ("word literal", "word.cnf", b"p cnf 3 1\n1 x 0\n", "'x' is not an integer", 2),
    ("float literal", "float.cnf", b"p cnf 3 1\n1 2.0 0\n", "'2.0' is not an", 2),
    ("underscore", "under.cnf", b"p cnf 30 1\n1_0 0\n", "'_'", 2),
    (
        "huge token",
        "huge.cnf",
        b"p cnf 3 1\n" + b"9" * 5000 + b" 0\n",
        "is not an integer",
        2,
    ),
    (
        "no final 0",
        "open.cnf",
        b"p cnf 3 2\n1 2 0\n\n-3\n",
        "missing its terminating",
        4,
    ),
    ("empty clause", "zero.cnf", b"p cnf 3 1\n0\n", "empty clause", 2),
    # Weights.
    ("negative weight", "neg.wcnf", b"h 1 0\n-2 1 0\n", "weight '-2'", 2),
    ("infinite weight", "inf.wcnf", b"p wcnf 2 1 9\ninf 1 0\n", "weight 'inf'", 2),
    ("nan weight", "nan.wcnf", b"nan 1 0\n", "weight 'nan'", 1),
    ("word weight", "word.wcnf", b"h 1 0\nheavy 1 0\n", "weight 'heavy'", 2),
    ("hard missing 0", "open.wcnf", b"h 1 2\n", "missing its terminating", 1),
    ("weight above 1e100", "heavy.wcnf", b"h 1 2 0\n1e101 -1 0\n", "above 1e+100", 2),
    (
        "classic weight above 1e100 below top",
        "heavy-classic.wcnf",
        b"p wcnf 2 2 1e300\n1e300 1 2 0\n\n2e200\n-1 0\n",
        "weight 2e+200 is above 1e+100",
        4,
    ),
    # Sizes: a limit checked before anything is allocated per variable.
    (
        "variable 1e9",
        "big.cnf",
        b"1 -3 0\n1000000000 0\n",
        "variable 1000000000 is beyond the limit",
        2,
    ),
    (
        "p-line 1e9",
        "bigp.cnf",
        b"c big\np cnf 1000000000 1\n1 0\n",
        "declares 1000000000 variables",
        2,
    ),
]

OS_ERRORS = {"missing", "directory"}


def make(tmp_path, name: str, content):
    """Create the case's file (or directory) under ``tmp_path``; its path."""
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    return path
