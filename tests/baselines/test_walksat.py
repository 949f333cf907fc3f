import itertools
import time

import numpy as np
import pytest

from sklearn_localregret.baselines import WalkSATResult, walksat
from sklearn_localregret.maxsat.clause_matrix import clause_matrix, satisfied
from sklearn_localregret.maxsat.formula import WeightedFormula


def random_ksat(rng, n_vars, n_clauses, k=3):
    clauses = []
    for _ in range(n_clauses):
        variables = rng.choice(n_vars, size=min(k, n_vars), replace=False) + 1
        clauses.append((variables * rng.choice([-1, 1], size=len(variables))).tolist())
    return clauses


def planted_ksat(rng, n_vars, n_clauses, k=3):
    hidden = rng.random(n_vars) < 0.5
    clauses = []
    while len(clauses) < n_clauses:
        (clause,) = random_ksat(rng, n_vars, 1, k)
        if any((x > 0) == hidden[abs(x) - 1] for x in clause):
            clauses.append(clause)
    return clauses


def brute_force_cost(clauses, n_vars, weights):
    every = np.array(list(itertools.product([0, 1], repeat=n_vars)))
    unsat = ~satisfied(every, clause_matrix(clauses, n_vars=n_vars))
    return float((unsat * np.asarray(weights, dtype=float)).sum(axis=1).min())


def cost_of(assignment, clauses, n_vars, weights):
    unsat = ~satisfied(assignment, clause_matrix(clauses, n_vars=n_vars))
    return float(np.asarray(weights, dtype=float)[unsat].sum())


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
def test_finds_brute_force_optimum(seed, weighted):
    rng = np.random.default_rng(seed)
    n_vars = int(rng.integers(4, 13))
    n_clauses = int(rng.integers(3 * n_vars, 8 * n_vars))
    k = int(rng.integers(2, 4))
    clauses = random_ksat(rng, n_vars, n_clauses, k)
    weights = rng.integers(1, 10, n_clauses) if weighted else np.ones(n_clauses)
    res = walksat(
        clauses,
        n_vars,
        weights if weighted else None,
        max_flips=2000,
        max_restarts=5,
        random_state=seed,
    )
    assert isinstance(res, WalkSATResult)
    assert res.assignment.dtype == bool and res.assignment.shape == (n_vars,)
    optimum = brute_force_cost(clauses, n_vars, weights)
    assert res.unsatisfied_weight == pytest.approx(optimum)
    assert res.unsatisfied_weight == pytest.approx(
        cost_of(res.assignment, clauses, n_vars, weights)
    )


def test_hard_clauses_of_a_formula_are_kept():
    rng = np.random.default_rng(3)
    clauses = random_ksat(rng, 8, 50)
    hard = rng.random(50) < 0.2
    formula = WeightedFormula(clauses, weights=rng.random(50), hard=hard)
    res = walksat(formula, max_flips=2000, max_restarts=5, random_state=0)
    optimum = brute_force_cost(clauses, formula.n_vars, formula.weights)
    assert res.unsatisfied_weight == pytest.approx(optimum)
    assert satisfied(res.assignment, clause_matrix(formula))[hard].all()


def test_zero_weight_clauses_are_ignored():
    res = walksat([[1], [-1], [-1]], weights=[0, 2, 0], random_state=0)
    assert res.unsatisfied_weight == 0.0
    assert res.assignment.tolist() == [False]
    assert res.n_restarts == 1


def test_same_seed_same_result():
    rng = np.random.default_rng(0)
    clauses = random_ksat(rng, 20, 201)
    runs = [
        walksat(clauses, max_flips=500, max_restarts=2, random_state=7)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].assignment, runs[1].assignment)
    assert runs[0].unsatisfied_weight == runs[1].unsatisfied_weight
    assert runs[0].n_flips == runs[1].n_flips
    assert runs[0].n_restarts == runs[1].n_restarts
    gen = walksat(
        clauses, max_flips=500, max_restarts=2, random_state=np.random.default_rng(7)
    )
    np.testing.assert_array_equal(gen.assignment, runs[0].assignment)
    legacy = walksat(clauses, max_flips=50, random_state=np.random.RandomState(0))
    assert legacy.n_flips > 0


@pytest.mark.parametrize("seed", range(5))
def test_solves_planted_satisfiable_instances(seed):
    rng = np.random.default_rng(seed)
    clauses = planted_ksat(rng, 60, 240)
    res = walksat(clauses, random_state=seed)
    assert res.unsatisfied_weight == 0.0
    assert satisfied(res.assignment, clauses).all()
    assert res.n_flips < 10_000 * res.n_restarts


def test_stops_early_and_counts():
    res = walksat([[1, 2], [-1, 2]], max_flips=1000, max_restarts=10, random_state=0)
    assert res.unsatisfied_weight == 0.0
    assert res.n_restarts == 1 and res.n_flips <= 2
    stuck = walksat([[1], [-1]], max_flips=30, max_restarts=4, random_state=0)
    assert stuck.unsatisfied_weight == 1.0
    assert stuck.n_restarts == 4 and stuck.n_flips == 120


def test_noise_extremes_and_wide_clauses():
    rng = np.random.default_rng(5)
    clauses = planted_ksat(rng, 12, 40, k=5) + [[1, -1, 2]]
    for noise in (0.0, 1.0):
        res = walksat(clauses, noise=noise, random_state=1)
        assert res.unsatisfied_weight == 0.0


def test_accepts_pysat_like_and_declared_variables():
    class FakeCNF:
        clauses, nv = [[1, -2], [2]], 5

    res = walksat(FakeCNF(), random_state=0)
    assert res.assignment.shape == (5,) and res.unsatisfied_weight == 0.0
    assert walksat([[1]], n_vars=3, random_state=0).assignment.shape == (3,)
    empty = walksat(WeightedFormula([], n_vars=2), random_state=0)
    assert empty.assignment.shape == (2,) and empty.n_flips == 0


def test_fast_on_the_paper_size():
    rng = np.random.default_rng(0)
    clauses = random_ksat(rng, 20, 201)
    start = time.perf_counter()
    res = walksat(clauses, max_flips=10_000, max_restarts=1, random_state=0)
    assert time.perf_counter() - start < 1.0
    assert res.n_flips == 10_000 or res.unsatisfied_weight == 0.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"noise": -0.1}, "noise"),
        ({"noise": 1.5}, "noise"),
        ({"noise": float("nan")}, "noise"),
        ({"noise": "0.5"}, "noise"),
        ({"noise": True}, "noise"),
        ({"max_flips": 0}, "max_flips must be an integer >= 1"),
        ({"max_flips": 2.5}, "max_flips"),
        ({"max_flips": True}, "max_flips"),
        ({"max_restarts": 0}, "max_restarts must be an integer >= 1"),
        ({"max_restarts": -3}, "max_restarts"),
        ({"random_state": "seed"}, "random_state"),
        ({"random_state": 1.5}, "random_state"),
        ({"weights": [1, -1]}, "non-negative"),
        ({"n_vars": 1}, "beyond n_vars=1"),
        ({"time_limit": 0}, "time_limit must be a positive number"),
        ({"time_limit": "1"}, "time_limit"),
    ],
)
def test_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        walksat([[1, 2], [-2]], **kwargs)


def test_clause_errors_propagate():
    with pytest.raises(ValueError, match="literal 0"):
        walksat([[1, 0]])
    with pytest.raises(TypeError, match="not an integer"):
        walksat([[1, True]])


def test_time_limit_stops_the_search():
    # Every sign pattern over 4 variables: never satisfiable, so only the clock
    # can stop a search of a billion flips.
    clauses = [
        list(np.array(s) * [1, 2, 3, 4]) for s in itertools.product((1, -1), repeat=4)
    ]
    walksat(clauses, max_flips=1, random_state=0)  # compiled before the clock
    start = time.monotonic()
    res = walksat(
        clauses, max_flips=10**9, max_restarts=5, random_state=0, time_limit=0.3
    )
    assert time.monotonic() - start < 2.0
    assert res.n_restarts == 1 and res.n_flips > 1000
    assert res.unsatisfied_weight == 1.0


def test_a_walk_continued_is_the_walk_run_at_once():
    from sklearn_localregret.maxsat.walksat import Walk as _Walk
    from sklearn_localregret.maxsat.walksat import WalkSATClauses as _Search

    clauses = random_ksat(np.random.default_rng(0), 60, 300)
    search = _Search(clauses, np.ones(len(clauses)), 60)
    start = np.random.default_rng(1).random(60) < 0.5
    walks = [_Walk(search, start, 0.5, np.random.default_rng(2)) for _ in range(2)]
    made = walks[0].step(4096) + walks[0].step(4096)
    assert made == walks[1].step(8192) == 8192
    assert (walks[0].a == walks[1].a).all() and (walks[0].best == walks[1].best).all()
    assert walks[0].best_cost == walks[1].best_cost > 0
