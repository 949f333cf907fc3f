import bz2
import gzip
import io
import itertools
import lzma
import pickle

import numpy as np
import pytest
from malformed_dimacs import MALFORMED, OS_ERRORS, make

from sklearn_localregret.maxsat.clause_matrix import (
    ClauseMatrix,
    clause_matrix,
    satisfied,
)
from sklearn_localregret.maxsat.dimacs import DimacsError
from sklearn_localregret.maxsat.formula import WeightedFormula
from sklearn_localregret.maxsat.reading import (
    as_clauses,
    as_formula,
    read_dimacs,
    split_weighted,
)

CNF_TEXT = """c a small formula
c spanning lines and sharing them
p cnf 4 3
1 -2
 3 0 -1 4 0
2 0
"""

SATLIB_TEXT = """c SATLIB style
p cnf 3 2
 1 -2 3 0
-1 2 0
%
0

"""

CLASSIC_TEXT = """c classic wcnf
p wcnf 3 4 10
10 1 2 0
3 -1 0
1.5 -2 3 0
10 -3 0
"""

NEW_TEXT = """c 2022 wcnf
h 1 2 0
h -3 0
3 -1 0
1.5 -2 3 0
"""


def random_formula(rng, n_vars, n_clauses, max_width=4):
    clauses = []
    for _ in range(n_clauses):
        width = int(rng.integers(1, max_width + 1))
        lits = rng.integers(1, n_vars + 1, size=width) * rng.choice([-1, 1], width)
        clauses.append(tuple(int(x) for x in lits))
    return clauses


def python_satisfied(assignment, clauses):
    return [any((x > 0) == bool(assignment[abs(x) - 1]) for x in c) for c in clauses]


# -- reading ------------------------------------------------------------------


def test_read_cnf_spanning_and_shared_lines():
    f = read_dimacs(CNF_TEXT)
    assert f.n_vars == 4
    assert f.clauses == ((1, -2, 3), (-1, 4), (2,))
    np.testing.assert_array_equal(f.weights, [1, 1, 1])
    assert not f.hard.any()


def test_read_satlib_end_marker():
    f = read_dimacs(SATLIB_TEXT)
    assert f.clauses == ((1, -2, 3), (-1, 2))


def test_read_classic_wcnf_hard_by_top():
    f = read_dimacs(CLASSIC_TEXT)
    assert f.n_vars == 3
    assert f.clauses == ((1, 2), (-1,), (-2, 3), (-3,))
    np.testing.assert_array_equal(f.hard, [True, False, False, True])
    # Hard clauses weigh the formula's top (soft total + 1), not the file's.
    np.testing.assert_array_equal(f.weights, [5.5, 3, 1.5, 5.5])
    assert f.top == 5.5


def test_read_classic_wcnf_without_top_is_all_soft():
    f = read_dimacs("p wcnf 2 2\n7 1 2 0\n2 -1 0\n")
    assert not f.hard.any()
    np.testing.assert_array_equal(f.weights, [7, 2])


def test_read_new_wcnf_equals_classic():
    expected = WeightedFormula(
        [(1, 2), (-3,), (-1,), (-2, 3)], weights=[0, 0, 3, 1.5], hard=[1, 1, 0, 0]
    )
    assert read_dimacs(NEW_TEXT) == expected


def test_read_from_path_str_pathlike_file_objects(tmp_path):
    path = tmp_path / "f.cnf"
    path.write_text(CNF_TEXT)
    expected = read_dimacs(CNF_TEXT)
    assert read_dimacs(path) == expected
    assert read_dimacs(str(path)) == expected
    with open(path) as fh:
        assert read_dimacs(fh) == expected
    with open(path, "rb") as fh:
        assert read_dimacs(fh) == expected
    assert read_dimacs(io.StringIO(CNF_TEXT)) == expected
    gz = tmp_path / "f.cnf.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write(CNF_TEXT)
    assert read_dimacs(gz) == expected


@pytest.mark.parametrize(
    "text, n_clauses",
    [("p cnf 0 0", 0), ("h 1 0", 1), ("3 1 -2 0", 1)],
)
def test_single_line_strings_are_text(text, n_clauses):
    assert len(read_dimacs(text)) == n_clauses
    with pytest.raises(
        DimacsError,
        match="^no p-line and no clauses: the input is empty or only comments$",
    ):
        read_dimacs("c nothing")


def test_missing_path_is_a_path():
    with pytest.raises(FileNotFoundError):
        read_dimacs("no_such_file.cnf")


def test_read_rejects_other_types():
    with pytest.raises(TypeError, match="source"):
        read_dimacs(42)


@pytest.mark.parametrize(
    "text, match",
    [
        ("p cnf 3\n1 0\n", "line 1: bad p-line"),
        ("p sat 3 1\n1 0\n", "line 1: bad p-line"),
        ("p cnf x 1\n1 0\n", "line 1: bad p-line"),
        ("p cnf -1 1\n1 0\n", "line 1: bad p-line"),
        ("p wcnf 3 1 10 7\n1 1 0\n", "line 1: bad p-line"),
        ("p wcnf 3 1 top\n1 1 0\n", "line 1: weight 'top'"),
        ("c\np cnf 3 2\n1 0\n", "line 2: the p-line declares 2 clauses but 1"),
        ("p cnf 3 1\n1 0\n2 0\n", "line 1: the p-line declares 1 clauses but 2"),
        ("p cnf 3 1\n1 x 0\n", "line 2: 'x' is not an integer literal"),
        ("p cnf 3 1\n1 2.0 0\n", "line 2: '2.0' is not an integer literal"),
        ("p cnf 3 2\n1 2 0\n\n-3\n", "line 4: the clause starting here is missing"),
        ("p cnf 3 1\n1\n2\n", "line 2: the clause starting here is missing"),
        ("h 1 2\n", "line 1: the clause starting here is missing"),
        ("5\n", "line 1: the clause starting here is missing"),
        ("p cnf 3 1\n1 4 0\n", "line 2: literal 4 is beyond the 3 variables"),
        ("p cnf 3 1\n0\n", "line 2: empty clause"),
        ("h 0\n", "line 1: empty clause"),
        ("h 1 0\nx 1 0\n", "line 2: weight 'x'"),
        ("h 1 0\n-2 1 0\n", "line 2: weight '-2'"),
        ("h 1 0\ninf 1 0\n", "line 2: weight 'inf'"),
        ("x 1 0\n", "line 1: 'x' is not an integer literal"),  # plain CNF
        ("p wcnf 2 1 h\n1 1 0\n", "line 1: bad p-line .* top must be a number"),
        ("p cnf 3 1\n1 3\u00b2 0\n", "line 2: character '\u00b2' is not ASCII"),
        ("p cnf 30 1\n1_0 0\n", "line 2: '_' in a number"),
        ("p cnf 3 1\n" + "7" * 100 + " 0\n", r"line 2: literal 7{18}\.\.\.7{19} is"),
        ("1 0\n" + "x" * 100 + " 0\n", r"line 2: 'x{17}\.\.\.x{18}' is not an"),
        ("p wcnf 2 1\nh 1 y 0\n", "line 2: 'y' is not an integer literal"),
        ("1 1 0\np cnf 1 1\n", "line 2: the p-line must come first"),
        ("p cnf 1 1\np cnf 1 1\n1 0\n", "line 2: the p-line must come first"),
    ],
)
def test_malformed_text_names_the_line(text, match):
    with pytest.raises(DimacsError, match="^" + match) as exc:
        read_dimacs(text)
    assert exc.value.source is None and isinstance(exc.value, ValueError)
    assert str(exc.value).startswith(f"line {exc.value.line}: ")


@pytest.mark.parametrize("case", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_file_names_the_file_and_line(case, tmp_path):
    """The suite that ``solve`` answers with exit 2: the reader's own errors."""
    id_, name, content, fragment, line = case
    path = make(tmp_path, name, content)
    expected = OSError if id_ in OS_ERRORS else DimacsError
    with pytest.raises(expected) as exc:
        read_dimacs(path, max_vars=10_000_000)
    assert fragment in str(exc.value) and str(path) in str(exc.value)
    if expected is DimacsError:
        assert (exc.value.source, exc.value.line) == (str(path), line)
        assert str(exc.value).startswith(
            f"{path}: " + ("" if line is None else f"line {line}: ")
        )
        assert "\n" not in str(exc.value)


def test_which_format_without_a_p_line(tmp_path):
    text = "1 -3 0\n2 3 0\n"
    plain = WeightedFormula([(1, -3), (2, 3)])
    weighted = WeightedFormula([(-3,), (3,)], weights=[1, 2])
    assert read_dimacs(text) == plain  # never weights by guess
    assert read_dimacs(text, format="cnf") == plain
    assert read_dimacs(text, format="wcnf") == weighted
    for name, wcnf in [
        ("f.cnf", False),
        ("f.txt", False),
        ("f.wcnf", True),
        ("F.WCNF", True),
        ("f.wcnf.gz", True),
        ("f.cnf.xz", False),
    ]:
        path = tmp_path / name
        opener = {".gz": gzip.open, ".xz": lzma.open}.get(path.suffix, open)
        with opener(path, "wt") as fh:
            fh.write(text)
        assert read_dimacs(path) == (weighted if wcnf else plain), name
        assert read_dimacs(path, format="cnf") == plain
    # A hard clause exists only in the 2022 format: an h line decides.
    assert read_dimacs("c\n  h 1 0\n2 -1 0\n") == WeightedFormula(
        [(1,), (-1,)], weights=[0, 2], hard=[1, 0]
    )
    # A p-line always decides, whatever format says.
    assert read_dimacs("p cnf 3 2\n" + text, format="wcnf") == WeightedFormula(
        [(1, -3), (2, 3)], n_vars=3
    )
    with pytest.raises(ValueError, match="format must be"):
        read_dimacs(text, format="opb")


def test_comments_and_byte_order_mark_may_hold_anything(tmp_path):
    path = tmp_path / "latin1.cnf"
    path.write_bytes(b"\xef\xbb\xbfc caf\xe9 \xff\np cnf 2 1\nc \x00\n1 -2 0\n")
    assert read_dimacs(path) == WeightedFormula([(1, -2)], n_vars=2)


def test_compressed_files_and_file_objects(tmp_path):
    expected = read_dimacs(CLASSIC_TEXT)
    for ext, opener in [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)]:
        path = tmp_path / f"f.wcnf{ext}"
        with opener(path, "wt") as fh:
            fh.write(CLASSIC_TEXT)
        assert read_dimacs(path) == expected
    assert read_dimacs(CLASSIC_TEXT.encode()) == expected
    path = tmp_path / "bad.cnf"
    path.write_bytes(b"p cnf 1 1\n\xff 0\n")
    with (
        open(path, encoding="utf-8") as fh,
        pytest.raises(DimacsError, match=f"^{path}: not UTF-8 text"),
    ):
        read_dimacs(fh)
    with (
        open(path, "rb") as fh,
        pytest.raises(DimacsError, match=f"^{path}: line 2: byte 0xff is not UTF-8"),
    ):
        read_dimacs(fh)


def test_max_vars_and_dimacs_error():
    assert read_dimacs("p cnf 5 1\n5 0\n", max_vars=5).n_vars == 5
    with pytest.raises(
        DimacsError, match="line 2: variable 6 is beyond the limit of 5 variables"
    ):
        read_dimacs("1 0\n-6 0\n", max_vars=5)
    for bad in (-1, 1.5, True, "5"):
        with pytest.raises(ValueError, match="max_vars"):
            read_dimacs("1 0\n", max_vars=bad)
    err = DimacsError("empty clause", "f.cnf", 3)
    assert (err.reason, err.source, err.line) == ("empty clause", "f.cnf", 3)
    copy = pickle.loads(pickle.dumps(err))
    assert (str(copy), copy.line) == ("f.cnf: line 3: empty clause", 3)


# -- writing and round trips --------------------------------------------------


@pytest.mark.parametrize("text", [CNF_TEXT, SATLIB_TEXT, CLASSIC_TEXT, NEW_TEXT])
def test_round_trips(text):
    f = read_dimacs(text)
    assert read_dimacs(f.to_wcnf()) == f
    if f.n_vars == max(abs(x) for c in f for x in c):
        # Without a p-line or an h line, new-style text is WCNF only when told.
        assert read_dimacs(f.to_wcnf(style="new"), format="wcnf") == f
    if not f.hard.any() and np.all(f.weights == 1):
        assert read_dimacs(f.to_dimacs()) == f


def test_round_trip_random_weighted_formulas():
    rng = np.random.default_rng(0)
    for _ in range(20):
        clauses = random_formula(rng, 6, 12)
        weights = np.round(rng.random(12) * 10, 3)
        hard = rng.random(12) < 0.3
        f = WeightedFormula(clauses, n_vars=8, weights=weights, hard=hard)
        assert read_dimacs(f.to_wcnf(style="classic")) == f
        g = read_dimacs(f.to_wcnf(style="new"), format="wcnf")
        assert g == WeightedFormula(clauses, weights=weights, hard=hard)
        plain = WeightedFormula(clauses, n_vars=8)
        assert read_dimacs(plain.to_dimacs()) == plain


def test_write_int_weights_without_decimals():
    f = WeightedFormula([[1], [-1, 2]], weights=[2, 0.25])
    assert f.to_wcnf() == "p wcnf 2 2 3.25\n2 1 0\n0.25 -1 2 0\n"


def test_to_dimacs_refuses_to_drop_weights_silently():
    f = WeightedFormula([[1], [2]], weights=[1, 2])
    with pytest.raises(ValueError, match="to_wcnf"):
        f.to_dimacs()
    assert f.to_dimacs(drop_weights=True) == "p cnf 2 2\n1 0\n2 0\n"
    with pytest.raises(ValueError, match="style"):
        f.to_wcnf(style="old")


# -- the formula object ---------------------------------------------------------


def test_formula_is_immutable_hashable_iterable():
    f = WeightedFormula([[1, -2], [2]], weights=[1, 2], hard=[True, False])
    assert len(f) == 2 and list(f) == [(1, -2), (2,)]
    assert f.top == 3.0 and f.weights.tolist() == [3.0, 2.0]
    with pytest.raises(AttributeError):
        f.n_vars = 3
    with pytest.raises(ValueError):
        f.weights[0] = 1
    same = WeightedFormula(((1, -2), (2,)), weights=[7, 2], hard=[1, 0])
    assert f == same and hash(f) == hash(same)
    assert f != WeightedFormula([[1, -2], [2]], weights=[1, 2])
    assert f != "formula"
    assert repr(f) == "WeightedFormula(n_vars=2, n_clauses=2, n_hard=1)"
    hard_clauses = [c for c, h in zip(f, f.hard) if h]
    assert hard_clauses == [(1, -2)]


def test_top_exceeds_huge_soft_weight():
    f = WeightedFormula([[1], [2]], weights=[2.0**60, 0], hard=[False, True])
    assert f.top > 2.0**60
    assert read_dimacs(f.to_wcnf()) == f


def test_formula_validation():
    with pytest.raises(ValueError, match="hard has shape"):
        WeightedFormula([[1]], hard=[True, False])
    with pytest.raises(TypeError, match="n_vars"):
        WeightedFormula([[1]], n_vars=1.0)
    with pytest.raises(ValueError, match="n_vars"):
        WeightedFormula([[1]], n_vars=-1)
    with pytest.raises(TypeError, match="string"):
        WeightedFormula("1 2 0")
    assert WeightedFormula([]).n_vars == 0


# -- as_clauses -------------------------------------------------------------------


def test_as_clauses_shapes():
    assert as_clauses([1, -2]) == (((1, -2),), pytest.approx([1.0]))
    clauses, w = as_clauses([[1, -2], (3,)])
    assert clauses == ((1, -2), (3,)) and w.tolist() == [1.0, 1.0]
    clauses, _ = as_clauses(np.array([[1, 2], [-1, 3]], dtype=np.int16))
    assert clauses == ((1, 2), (-1, 3)) and type(clauses[0][0]) is int
    clauses, _ = as_clauses(np.array([1, -3]))
    assert clauses == ((1, -3),)
    clauses, _ = as_clauses([np.int64(1), 2.0, np.float32(-3)])
    assert clauses == ((1, 2, -3),) and all(type(x) is int for x in clauses[0])
    clauses, _ = as_clauses(iter([[1], [2]]))
    assert clauses == ((1,), (2,))


def test_as_clauses_weights_and_formula():
    f = WeightedFormula([[1], [-1, 2]], weights=[0, 4], hard=[1, 0])
    clauses, w = as_clauses(f)
    assert clauses == f.clauses and w.tolist() == [5.0, 4.0]
    w[0] = 0  # a copy, not the formula's read-only array
    clauses, w = as_clauses(f, weights=[1, 2])
    assert w.tolist() == [1.0, 2.0]
    assert as_formula(f, weights=[1, 2]).hard.tolist() == [False, False]
    assert as_formula(f, n_vars=5).n_vars == 5
    with pytest.raises(ValueError, match="beyond n_vars=1"):
        as_formula(f, n_vars=1)


class FakeCNF:
    def __init__(self, clauses, nv):
        self.clauses, self.nv = clauses, nv


class FakeWCNF:
    def __init__(self, hard, soft, wght, nv):
        self.hard, self.soft, self.wght, self.nv = hard, soft, wght, nv
        self.topw = sum(wght) + 1


def test_duck_typed_pysat_objects():
    f = as_formula(FakeCNF([[1, -2], [3]], nv=5))
    assert f == WeightedFormula([[1, -2], [3]], n_vars=5)
    # PySAT's nv may lag behind the clauses: it never rejects a literal.
    assert as_formula(FakeCNF([[1, -4]], nv=2)).n_vars == 4
    g = as_formula(FakeWCNF([[1, 2]], [[-1], [2, -3]], [3, 1.5], nv=3))
    assert g == read_dimacs("h 1 2 0\n3 -1 0\n1.5 2 -3 0\n")
    clauses, w = as_clauses(FakeWCNF([[1, 2]], [[-1]], [2], nv=2))
    assert clauses == ((1, 2), (-1,)) and w.tolist() == [3.0, 2.0]


def test_real_pysat_objects():
    formula = pytest.importorskip("pysat.formula")
    cnf = formula.CNF(from_clauses=[[1, -2], [2, 3]])
    assert as_formula(cnf) == WeightedFormula([[1, -2], [2, 3]])
    wcnf = formula.WCNF()
    wcnf.append([1, 2])
    wcnf.append([-1], weight=3)
    wcnf.append([2, -3], weight=1.5)
    assert as_formula(wcnf) == read_dimacs(wcnf.to_dimacs() + "\n")
    assert read_dimacs(cnf.to_dimacs() + "\n") == as_formula(cnf)


@pytest.mark.parametrize(
    "obj, kwargs, exc, match",
    [
        ([1, 0, 2], {}, ValueError, r"clause 0 \[1, 0, 2\]: literal 0"),
        ([[1], [2, 0]], {}, ValueError, r"clause 1 \[2, 0\]: literal 0"),
        ([[1], [True]], {}, TypeError, r"clause 1 \[True\]: literal True is not"),
        ([np.bool_(True)], {}, TypeError, r"literal (np\.)?True_? is not an integer"),
        ([[1, "2"]], {}, TypeError, "literal '2' is not an integer"),
        ([[1, None]], {}, TypeError, "literal None is not an integer"),
        ([1, 2.5], {}, ValueError, r"clause 0 \[1, 2.5\]: literal 2.5 is not a whole"),
        ([1, float("nan")], {}, ValueError, "literal nan is not a whole"),
        ([1, float("inf")], {}, ValueError, "literal inf is not a whole"),
        (
            [[1, -3]],
            {"n_vars": 2},
            ValueError,
            r"clause 0 \[1, -3\]: literal -3 is "
            "beyond n_vars=2",
        ),
        ([[1], []], {}, ValueError, "clause 1 is empty"),
        ([], {}, ValueError, "empty sequence"),
        ([[1], 2], {}, TypeError, "clause 1 2 is not a sequence"),
        ("1 2 0", {}, TypeError, "read_dimacs"),
        (5, {}, TypeError, "got int"),
        (np.zeros((1, 1, 1), dtype=int), {}, ValueError, "1-d or 2-d"),
        (
            [[1], [2]],
            {"weights": [1, -1]},
            ValueError,
            r"non-negative; clause 1 \(2,\) has weight -1",
        ),
        ([[1], [2]], {"weights": [np.nan, 1]}, ValueError, "clause 0 .* weight nan"),
        ([[1], [2]], {"weights": [1, np.inf]}, ValueError, "clause 1 .* weight inf"),
        (
            [[1], [2]],
            {"weights": [1, 2, 3]},
            ValueError,
            r"shape \(3,\) but there "
            "are 2 clauses",
        ),
        ([[1], [2]], {"weights": 1.0}, ValueError, "one weight per clause"),
        ([[1], [2]], {"weights": ["a", 1]}, TypeError, "array of numbers"),
        ({1: 2}, {}, TypeError, "got a dict: .* read as its keys"),
        ([[1], {2: 3}], {}, TypeError, r"clause 1 \{2: 3\} is a mapping"),
        ([[1, 2.5]], {}, ValueError, "literal 2.5 is not a whole number"),
    ],
)
def test_as_clauses_errors(obj, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        as_clauses(obj, **kwargs)


# -- clause_matrix and satisfied -------------------------------------------------


def test_clause_matrix_against_python_evaluation():
    rng = np.random.default_rng(1)
    for n_vars in (1, 3, 7):
        clauses = random_formula(rng, n_vars, 25)
        m = clause_matrix(clauses, n_vars=n_vars)
        assert isinstance(m, ClauseMatrix) and m.shape == (25, n_vars)
        every = np.array(list(itertools.product([0, 1], repeat=n_vars)))
        expected = [python_satisfied(a, clauses) for a in every]
        np.testing.assert_array_equal(satisfied(every, m), expected)
        for a in every[:4]:
            np.testing.assert_array_equal(satisfied(a, m), python_satisfied(a, clauses))
            np.testing.assert_array_equal(
                satisfied(a.astype(bool), clauses), python_satisfied(a, clauses)
            )


def test_clause_matrix_entries_are_pos_minus_neg():
    """The flat entries (built with numpy) against scipy's pos - neg, built
    independently from the literals, on formulas with repeats and
    tautologies; and round() cuts them clause by clause."""
    rng = np.random.default_rng(3)
    for n_vars in (1, 4, 9):
        sizes = rng.integers(1, 6, 40)
        clauses = [
            list(rng.integers(1, n_vars + 1, k) * rng.choice([-1, 1], k)) for k in sizes
        ]
        m = clause_matrix(clauses, n_vars=n_vars)
        expected = (m.pos.astype(np.int8) - m.neg.astype(np.int8)).tocsr()
        expected.eliminate_zeros()
        np.testing.assert_array_equal(m.signed.toarray(), expected.toarray())
        np.testing.assert_array_equal(m.indptr, expected.indptr)
        np.testing.assert_array_equal(m.var_of, expected.indices)
        np.testing.assert_array_equal(m.sign_of, expected.data)
        np.testing.assert_array_equal(m.n_neg, m.neg.sum(axis=1))
        clause_of, var_of, sign_of, n_neg, w = m.round(5, 12)
        lo, hi = m.indptr[5], m.indptr[12]
        np.testing.assert_array_equal(clause_of, m.clause_of[lo:hi] - 5)
        np.testing.assert_array_equal(n_neg, m.n_neg[5:12])
        np.testing.assert_array_equal(w, np.ones(7))


def test_clause_matrix_repeats_and_tautologies():
    m = clause_matrix([[1, 1, -2], [2, -2], [-1, -1]], n_vars=2)
    np.testing.assert_array_equal(m.pos.toarray(), [[1, 0], [0, 1], [0, 0]])
    np.testing.assert_array_equal(m.neg.toarray(), [[0, 1], [0, 1], [1, 0]])
    np.testing.assert_array_equal(m.signed.toarray(), [[1, -1], [0, 0], [-1, 0]])
    assert m.signed.nnz == 3
    np.testing.assert_array_equal(
        satisfied([[0, 0], [0, 1], [1, 0], [1, 1]], m),
        [
            [True, True, True],
            [False, True, True],
            [True, True, False],
            [True, True, False],
        ],
    )


def test_satisfied_errors():
    m = clause_matrix([[1, -2]], n_vars=2)
    with pytest.raises(ValueError, match="0/1"):
        satisfied([0, 2], m)
    with pytest.raises(ValueError, match="3 variables but the clauses 2"):
        satisfied([0, 1, 1], m)
    with pytest.raises(ValueError, match="1-d or 2-d"):
        satisfied(np.zeros((1, 1, 2)), m)
    assert satisfied(np.zeros((0, 2)), m).shape == (0, 1)


def test_split_weighted_reads_pairs_by_their_first_element():
    clauses, weights = split_weighted(
        [
            [1.0, 2.0],
            (3, -4),
            ([1], 2.5),
            (np.array([2, 3]), np.float32(0.5)),
            -5,
            np.array([1, 2]),
            ((1, 2), 3),
        ]
    )
    assert clauses[:2] == [[1.0, 2.0], (3, -4)]  # literals first: clauses
    assert clauses[4] == (-5,)
    assert weights == [1.0, 1.0, 2.5, 0.5, 1.0, 1.0, 3.0]
    assert as_clauses(clauses, weights=weights)[0] == (
        (1, 2),
        (3, -4),
        (1,),
        (2, 3),
        (-5,),
        (1, 2),
        (1, 2),
    )
    for bad, match in [
        ([([1], True)], "weight True"),
        ([([1], "2")], "weight '2'"),
        ({1: 2}, "got dict"),
        ("1 2", "got str"),
        (5, "got int"),
    ]:
        with pytest.raises(TypeError, match=match):
            split_weighted(bad)


def test_lines_end_at_newlines_and_carriage_returns_only():
    # splitlines() also broke lines at form feeds, NEL and U+2028: errors
    # named the wrong line, and NEL or U+2028 inside a clause line was read
    # as a line break where every other non-ASCII character is refused.
    with pytest.raises(DimacsError, match="line 3: 'x'"):
        read_dimacs("p cnf 3 2\n1\x0c2 0\nx 0\n")
    for separator in ("\x85", "\u2028"):
        with pytest.raises(DimacsError, match="line 2: character .* is not ASCII"):
            read_dimacs(f"p cnf 3 2\n1 2 0{separator}3 0\n")
    crlf = read_dimacs("p cnf 3 2\r\n1 2 0\r\n3 0\r\n")
    cr = read_dimacs("p cnf 3 2\r1 2 0\r3 0\r")
    assert crlf.clauses == cr.clauses == read_dimacs("p cnf 3 2\n1 2 0\n3 0\n").clauses


def test_a_blank_string_is_the_empty_input_not_a_path():
    for text in ("", "  "):  # (FileNotFoundError: '' before)
        with pytest.raises(DimacsError, match="the input is empty"):
            read_dimacs(text)


def test_the_format_is_told_from_lines_as_the_parser_reads_them():
    """Lines end at \\r too, and nothing after the end marker counts: an
    ``h`` line there made the file 2022 WCNF (its first clause's first
    literal read as a weight)."""
    assert read_dimacs("1 -2 0\rh 1 0\r").clauses == ((-2,), (1,))
    assert read_dimacs("1 -2 0\r\x0ch 1 0\r").clauses == ((-2,), (1,))
    after_end = read_dimacs("1 -2 0\n%\nh 1 0\n")
    assert after_end.clauses == ((1, -2),)
    assert not after_end.hard.any()


@pytest.mark.parametrize(
    "text", ["p cnf 99999999999999999999999 1\n1 0\n", "1 99999999999999999999999 0\n"]
)
def test_variables_beyond_int64_are_refused_with_their_line(text):
    with pytest.raises(
        DimacsError,
        match="line 1: .*beyond the limit of 9223372036854775807 variables \\(64-bit",
    ):
        read_dimacs(text, max_vars=None)
