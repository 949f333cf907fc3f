"""The ``solve`` command: bad files, the Max-SAT output convention, the search."""

import io
import itertools
import subprocess
import sys

import numpy as np
import pytest
from malformed_dimacs import MALFORMED, make

from sklearn_localregret import WeightedFormula, read_dimacs
from sklearn_localregret.cli import main
from sklearn_localregret.maxsat import command as solve_module
from sklearn_localregret.maxsat import search as search_module
from sklearn_localregret.maxsat.search import _unit_propagate, solve_formula


def run_main(capsys, *argv):
    code = main(["solve", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def parse_answer(lines):
    """(o costs, s status, v assignment or None) of solve's stdout."""
    costs = [float(line[2:]) for line in lines if line.startswith("o ")]
    status = [line[2:] for line in lines if line.startswith("s ")]
    v_lines = [line for line in lines if line.startswith("v")]
    assert len(status) == 1 and len(v_lines) <= 1
    assignment = None
    if v_lines:
        tokens = v_lines[0].split()
        if len(tokens) <= 2 and set("".join(tokens[1:])) <= {"0", "1"}:
            # The default, the MaxSAT Evaluation's 0/1 string ("v" alone for
            # no variable); literals always end in a 0 of their own.
            assignment = np.array([c == "1" for c in "".join(tokens[1:])])
        else:
            assert tokens[-1] == "0"
            lits = [int(t) for t in tokens[1:-1]]
            assert [abs(x) for x in lits] == list(range(1, len(lits) + 1))
            assignment = np.array([x > 0 for x in lits])
    return costs, status[0], assignment


def score(formula, assignment):
    """(violated hard clauses, falsified soft weight), in pure Python."""
    n_hard, cost = 0, 0.0
    for clause, weight, hard in zip(formula, formula.weights, formula.hard):
        if not any((x > 0) == bool(assignment[abs(x) - 1]) for x in clause):
            n_hard += bool(hard)
            cost += 0.0 if hard else float(weight)
    return n_hard, cost


def random_formula(n, n_soft, n_hard, seed, width=3):
    rng = np.random.default_rng(seed)
    clauses = [
        [
            int(v)
            for v in (rng.choice(n, width, replace=False) + 1)
            * rng.choice([-1, 1], width)
        ]
        for _ in range(n_soft + n_hard)
    ]
    weights = rng.integers(1, 10, n_soft + n_hard).astype(float)
    return WeightedFormula(
        clauses, n_vars=n, weights=weights, hard=np.arange(n_soft + n_hard) >= n_soft
    )


# -- bad input: exit 2, one line naming the file, never a traceback -------------


@pytest.mark.parametrize("case", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_file_gives_one_line_and_exit_2(case, tmp_path, capsys):
    _, name, content, fragment, line = case
    path = make(tmp_path, name, content)
    code, out, err = run_main(capsys, path)
    assert code == 2
    assert out == []
    assert len(err) == 1, err
    assert err[0].startswith(f"error: {path}: ")
    assert fragment in err[0]
    assert (f": line {line}: " in err[0]) == (line is not None)
    assert "Traceback" not in err[0]


def test_malformed_file_through_a_subprocess(tmp_path):
    # A truncated .gz raised EOFError: a 21-line traceback.
    content = next(c[2] for c in MALFORMED if c[0] == "truncated gz")
    path, fragment = make(tmp_path, "cut.cnf.gz", content), "truncated"
    proc = subprocess.run(
        [sys.executable, "-m", "sklearn_localregret", "solve", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ")
    assert fragment in lines[0] and "Traceback" not in proc.stderr


def test_weight_above_the_limit_through_a_subprocess(tmp_path):
    # The reader took 1e101 and WeightedFormula refused it: a traceback, exit 1.
    path = make(tmp_path, "heavy.wcnf", b"h 1 2 0\n1e101 -1 0\n")
    proc = subprocess.run(
        [sys.executable, "-m", "sklearn_localregret", "solve", str(path)],
        capture_output=True,
        text=True,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines() == [
        f"error: {path}: line 2: weight 1e+101 is above 1e+100, the largest a "
        "clause may weigh (only the ratios of the weights matter: divide them "
        "all by a common factor)"
    ]


def test_soft_weights_whose_total_passes_the_limit_are_solved(tmp_path, capsys):
    # Each weight is allowed but the hard clauses' top (their total + 1) is not:
    # the learner refused it with a traceback; the search rescales it exactly.
    path = make(tmp_path, "sum.wcnf", b"h 1 2 0\n1e100 -1 0\n1e100 -2 0\n3 -1 0\n")
    code, out, err = run_main(capsys, path, "--flips", "2000", "--passes", "2")
    costs, status, assignment = parse_answer(out)
    assert (code, status) == (10, "SATISFIABLE")
    assert costs[-1] == 1e100
    assert score(read_dimacs(path), assignment) == (0, 1e100)
    assert "Traceback" not in "\n".join(err)


def test_usage_errors_exit_2(tmp_path, capsys):
    path = make(tmp_path, "ok.cnf", b"1 0\n")
    for bad in (
        ["--time-limit", "0"],
        ["--time-limit", "inf"],
        ["--passes", "-1"],
        ["--flips", "x"],
        ["--max-vars", "0"],
        ["--format", "opb"],
        ["--seed", "-1"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(["solve", str(path), *bad])
        assert exc.value.code == 2
        out, err = capsys.readouterr()
        # One line on stderr, naming the option (the exit codes' promise).
        assert out == "" and err.count("\n") == 1
        assert f"argument {bad[0]}" in err


def test_internal_errors_keep_their_traceback(tmp_path, monkeypatch):
    path = make(tmp_path, "ok.cnf", b"1 0\n")

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(solve_module, "solve_formula", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["solve", str(path)])


# -- which format ----------------------------------------------------------------


def test_headerless_file_is_cnf_not_weights(tmp_path, capsys):
    # The file: read as weights it was "satisfied weight 2 of 3".
    for name in ("issue.cnf", "issue.txt"):
        path = make(tmp_path, name, b"1 -3 0\n2 3 0\n")
        code, out, _ = run_main(capsys, path, "--v-format", "literals")
        costs, status, a = parse_answer(out)
        assert out[1] == "c 3 variables, 2 clauses: 0 hard, 2 soft of total weight 2"
        assert (status, code, costs[-1]) == ("OPTIMUM FOUND", 30, 0)
        assert score(read_dimacs(path), a) == (0, 0.0)


def test_headerless_wcnf_by_extension_h_lines_or_option(tmp_path, capsys):
    text = b"1 -3 0\n2 3 0\n"  # as WCNF: (-3) weight 1, (3) weight 2
    for name, extra in [
        ("w.wcnf", []),
        ("w.wcnf.gz", []),
        ("w.txt", ["--format", "wcnf"]),
    ]:
        content = text
        if name.endswith(".gz"):
            import gzip

            content = gzip.compress(text)
        code, out, _ = run_main(
            capsys, make(tmp_path, name, content), "--flips", "2000", *extra
        )
        costs, status, a = parse_answer(out)
        assert out[1] == "c 3 variables, 2 clauses: 0 hard, 2 soft of total weight 3"
        assert (status, code, costs[-1], bool(a[2])) == ("SATISFIABLE", 10, 1, True)
    code, out, _ = run_main(capsys, make(tmp_path, "h.txt", b"h 1 0\n4 -1 0\n"))
    assert parse_answer(out)[:2] == ([4.0], "OPTIMUM FOUND")  # forced: proven


def test_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 0\n-1 2 0\n")))
    code, out, _ = run_main(capsys, "-")
    assert out[0] == "c sklearn_localregret solve <stdin>"
    assert parse_answer(out)[1:] == ("OPTIMUM FOUND", pytest.approx([True, True]))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"c nothing\n")))
    code, out, err = run_main(capsys, "-")
    assert code == 2 and err == [
        "error: <stdin>: no p-line and no clauses: the input is empty or only comments"
    ]


# -- the Max-SAT output convention --------------------------------------------------


def test_answers_match_rc2_optimum(tmp_path, capsys):
    rc2 = pytest.importorskip("pysat.examples.rc2")
    from pysat.formula import WCNF

    for seed in range(4):
        formula = random_formula(12, 50, 6, seed)
        path = tmp_path / f"r{seed}.wcnf"
        path.write_text(formula.to_wcnf())
        wcnf = WCNF()
        for clause, weight, hard in zip(formula, formula.weights, formula.hard):
            wcnf.append(list(clause), weight=None if hard else int(weight))
        with rc2.RC2(wcnf) as exact:
            assert exact.compute() is not None
            optimum = float(exact.cost)
        code, out, _ = run_main(capsys, path, "--flips", "20000", "--seed", seed)
        costs, status, a = parse_answer(out)
        # o lines improve strictly; the last is the v line's cost, soft only.
        assert costs == sorted(set(costs), reverse=True)
        assert score(formula, a) == (0, costs[-1])
        assert costs[-1] == optimum
        expected = "OPTIMUM FOUND" if optimum == 0 else "SATISFIABLE"
        assert (status, code) == (expected, 30 if optimum == 0 else 10)
        assert out.index(f"o {optimum:g}") < out.index(f"s {status}")


def test_hard_clauses_are_never_folded_into_costs(tmp_path, capsys):
    # The hard clause weighs top = 7 inside the search; costs stay soft.
    path = make(
        tmp_path, "t.wcnf", b"p wcnf 3 4 100\n100 1 2 0\n1 -1 0\n5 -2 3 0\n1 3 0\n"
    )
    code, out, _ = run_main(capsys, path)
    costs, status, a = parse_answer(out)
    assert out[1] == "c 3 variables, 4 clauses: 1 hard, 3 soft of total weight 7"
    assert (
        max(costs) <= 7 and costs[-1] == 0 and (status, code) == ("OPTIMUM FOUND", 30)
    )
    assert a.tolist() == [False, True, True]


def test_unsatisfiable_hard_part_says_unknown_with_the_count(tmp_path, capsys):
    # Every assignment of x1, x2 falsifies one of the four hard clauses, and
    # unit propagation cannot see it: no solution to print.
    path = make(tmp_path, "u.wcnf", b"h 1 2 0\nh -1 2 0\nh 1 -2 0\nh -1 -2 0\n3 1 0\n")
    code, out, _ = run_main(capsys, path, "--flips", "2000")
    costs, status, a = parse_answer(out)
    assert (status, code, costs, a) == ("UNKNOWN", 0, [], None)
    # x1 true violates one hard clause and no soft one: hard weight not in cost.
    assert (
        "c the best assignment found violates 1 of 4 hard clauses (soft cost "
        "0); it is no solution and is not printed"
    ) in out


def test_unit_propagation_proves_unsatisfiable(tmp_path, capsys):
    path = make(tmp_path, "p.wcnf", b"h 1 0\nh -1 2 0\nh -2 -3 0\nh 3 0\n1 2 0\n")
    code, out, _ = run_main(capsys, path)
    assert parse_answer(out) == ([], "UNSATISFIABLE", None) and code == 20


def test_forced_cost_is_proven_optimal(tmp_path, capsys):
    # x1 is forced, so (-x1, weight 3) is falsified by every solution.
    path = make(tmp_path, "f.wcnf", b"h 1 0\n3 -1 0\n2 2 0\n")
    code, out, _ = run_main(capsys, path)
    assert parse_answer(out)[:2] == ([3.0], "OPTIMUM FOUND") and code == 30


def test_empty_formula_and_both_v_lines(tmp_path, capsys):
    code, out, _ = run_main(capsys, make(tmp_path, "e.cnf", b"p cnf 0 0\n"))
    assert (code, out[2:5]) == (30, ["o 0", "s OPTIMUM FOUND", "v"])
    path = make(tmp_path, "b.cnf", b"p cnf 4 2\n1 0\n-2 3 0\n")
    # The MaxSAT Evaluation's 0/1 string is the default (issue 30).
    code, out, _ = run_main(capsys, path)
    v = next(line for line in out if line.startswith("v"))
    assert v[:3] == "v 1" and len(v) == 6
    bits = np.array([c == "1" for c in v[2:]])
    assert score(read_dimacs(path), bits) == (0, 0.0)
    code, out, _ = run_main(capsys, path, "--v-format", "literals")
    v = next(line for line in out if line.startswith("v"))
    lits = [int(t) for t in v.split()[1:]]
    assert lits[-1] == 0 and [abs(x) for x in lits[:-1]] == [1, 2, 3, 4]
    assert np.array_equal(np.array(lits[:-1]) > 0, bits)


def test_unsatisfiable_cnf_is_max_sat_and_help_says_so(tmp_path, capsys):
    # Plain CNF is Max-SAT: no hard clause, so an unsatisfiable CNF is
    # "s SATISFIABLE" with the one falsified clause on the o line.
    path = make(tmp_path, "unsat.cnf", b"p cnf 1 2\n1 0\n-1 0\n")
    code, out, _ = run_main(capsys, path)
    assert (code, parse_answer(out)[:2]) == (10, ([1.0], "SATISFIABLE"))
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "an unsatisfiable CNF answers 's SATISFIABLE'" in text
    assert "(e.g. 'o 1')" in text


# -- the search --------------------------------------------------------------------


def naive_unit_propagation(clauses):
    """Unit propagation to its fixpoint by repeated sweeps: the reference."""
    value = {}
    while True:
        changed = False
        for clause in clauses:
            if any(value.get(abs(x)) == (x > 0) for x in clause):
                continue
            open_literals = {x for x in clause if abs(x) not in value}
            if not open_literals:
                return None
            if len(open_literals) == 1:
                (x,) = open_literals
                value[abs(x)], changed = x > 0, True
        if not changed:
            return value


def test_unit_propagation_is_sound_and_complete():
    """Against enumeration: a conflict means no model, forced values hold in all;
    and against sweeps to the fixpoint (unit propagation is confluent)."""
    rng = np.random.default_rng(0)
    conflicts = 0
    for _ in range(300):
        n = int(rng.integers(1, 6))
        clauses = [
            tuple(
                int(v) * int(rng.choice([-1, 1]))
                for v in rng.integers(1, n + 1, rng.integers(1, 4))
            )
            for _ in range(rng.integers(1, 9))
        ]
        models = [
            a
            for a in itertools.product([False, True], repeat=n)
            if all(any((x > 0) == a[abs(x) - 1] for x in c) for c in clauses)
        ]
        forced = _unit_propagate(clauses)
        assert forced == naive_unit_propagation(clauses)
        if forced is None:
            conflicts += 1
            assert models == []
        else:
            assert all(a[v - 1] == value for a in models for v, value in forced.items())
    assert 30 < conflicts < 270  # both outcomes are exercised


def test_learner_and_walksat_see_only_the_variables_used(monkeypatch):
    sizes = []
    original = search_module.OnlineMaxSAT

    def spy(n_vars, **kwargs):
        sizes.append(n_vars)
        return original(n_vars, **kwargs)

    monkeypatch.setattr(search_module, "OnlineMaxSAT", spy)
    formula = WeightedFormula([[1, -(10**7)], [10**7, 5], [-1]], n_vars=10**7)
    # The learner plays at a plateau or once the flips are spent: here at once.
    answer = solve_formula(formula, passes=2, flips=0)
    assert sizes == [3]
    assert answer.assignment.shape == (10**7,)
    assert score(formula, answer.assignment) == (0, answer.cost)
    assert np.flatnonzero(answer.assignment).tolist() in ([4], [4, 10**7 - 1])


def test_walksat_first_then_the_learner_once_the_flips_are_spent(monkeypatch):
    # Every sign pattern over 3 variables: one clause stays false whatever the
    # assignment, so neither part can stop early.
    signs = itertools.product((1, -1), repeat=3)
    formula = WeightedFormula([[a * 1, b * 2, c * 3] for a, b, c in signs])
    calls = []
    original = search_module.Walk.step

    def spy(walk, n):
        calls.append(("walk", solve_module_state.n_rounds))
        return original(walk, n)

    solve_module_state = None
    real_state = search_module._SearchState

    def keep_state(*args):
        nonlocal solve_module_state
        solve_module_state = real_state(*args)
        return solve_module_state

    monkeypatch.setattr(search_module.Walk, "step", spy)
    monkeypatch.setattr(search_module, "_SearchState", keep_state)
    answer = solve_formula(formula, passes=3, flips=5000, seed=0)
    assert (answer.n_flips, answer.n_rounds) == (5000, 3 * 8)
    # Every flip came before the first round of the learner.
    assert len(calls) == 2 and all(rounds == 0 for _, rounds in calls)
    assert (answer.cost, answer.status) == (1.0, "SATISFIABLE")
    # A satisfiable formula: WalkSAT stops at cost 0 and the learner never plays.
    satisfiable = random_formula(60, 200, 0, seed=3)
    answer = solve_formula(satisfiable, passes=10, flips=100_000, seed=0)
    assert (answer.cost, answer.status, answer.n_rounds) == (0.0, "OPTIMUM FOUND", 0)
    assert 0 < answer.n_flips < 100_000


@pytest.mark.parametrize("seed", range(3))
def test_the_search_is_walksat_alone_flip_for_flip(seed):
    # Given the same time, solve cannot end worse than WalkSAT alone: until the
    # learner plays, it is the same walk (start, random numbers, flips).
    from sklearn_localregret.baselines import walksat

    formula = random_formula(20, 200, 0, seed=seed)  # over-constrained: no stop
    answer = solve_formula(formula, passes=0, flips=10_000, seed=seed)
    alone = walksat(formula, max_flips=10_000, max_restarts=1, random_state=seed)
    assert answer.n_flips == alone.n_flips == 10_000
    assert answer.cost == alone.unsatisfied_weight > 0
    np.testing.assert_array_equal(answer.assignment, alone.assignment)


def test_time_limit_gives_walksat_unlimited_flips(tmp_path, capsys, monkeypatch):
    seen = []
    original = solve_module.solve_formula

    def spy(formula, **kwargs):
        seen.append(kwargs["flips"])
        return original(formula, **kwargs)

    monkeypatch.setattr(solve_module, "solve_formula", spy)
    path = make(tmp_path, "ok.cnf", b"1 2 0\n-1 0\n")
    for extra, flips in [
        ([], 100_000),
        (["--time-limit", "5"], None),
        (["--time-limit", "5", "--flips", "7"], 7),
    ]:
        assert run_main(capsys, path, *extra)[0] == 30
        assert seen.pop() == flips


def test_interrupt_returns_the_best_so_far():
    formula = random_formula(30, 129, 14, seed=1)

    def interrupt(text):
        if text.startswith("pass 2/"):
            raise KeyboardInterrupt

    answer = solve_formula(formula, passes=10, flips=0, on_progress=interrupt)
    assert answer.interrupted and answer.n_flips == 0
    assert answer.n_rounds == 2 * len(formula)
    assert score(formula, answer.assignment) == (answer.n_hard_violated, answer.cost)


def test_deadline_stops_an_endless_polish():
    formula = random_formula(40, 200, 10, seed=2)
    import time

    answer = solve_formula(
        formula, passes=1, flips=10**12, deadline=time.monotonic() + 0.5
    )
    assert 0 < answer.n_flips < 10**12
    assert score(formula, answer.assignment) == (answer.n_hard_violated, answer.cost)


def test_progress_lines_for_long_runs_only():
    stream = io.StringIO()
    progress = solve_module._Progress(stream, start=0.0, every=2.0)
    progress.next = float("inf")  # a short run: nothing
    progress("pass 1/10")
    assert stream.getvalue() == ""
    progress.next = 0.0  # two seconds have passed
    progress("pass 2/10: best cost 3")
    assert stream.getvalue().startswith("c [") and stream.getvalue().endswith(
        "] pass 2/10: best cost 3\n"
    )


@pytest.mark.parametrize("name", ["42", "c", "h", "p"])
def test_a_file_named_like_dimacs_text_is_read_as_a_file(
    capsys, tmp_path, monkeypatch, name
):
    """``solve PATH`` reads the file, whatever its name: a bare "42" or "c"
    was taken for DIMACS text."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text("p cnf 2 2\n1 0\n-2 0\n")
    code, out, _ = run_main(capsys, name, "--quiet")
    assert code == 30  # the MaxSAT Evaluation's OPTIMUM FOUND
    _, status, assignment = parse_answer(out)
    assert status == "OPTIMUM FOUND" and assignment.tolist() == [True, False]


def test_an_assignment_beyond_memory_is_refused_before_the_search(capsys, tmp_path):
    path = tmp_path / "wide.cnf"
    path.write_text("p cnf 100000000000000 1\n1 0\n")
    code, _, err = run_main(capsys, path, "--quiet", "--max-vars", 10**15)
    assert code == 2
    assert err[-1].startswith(
        f"error: {path}: an assignment of 100000000000000 variables"
    )
