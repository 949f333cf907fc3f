"""The Max-SAT side's public pieces refuse input that does not fit them.

A probe found segfaults in the compiled WalkSAT (a start that is not 0/1, an
empty clause), reads past the weights, literals silently moved into the
neighbouring clause, packed keys overflowing for large variables, a caller's
random state advanced by a refused call, and equal formulas hashing apart.
"""

import numpy as np
import pytest

from sklearn_localregret import WeightedFormula, solve_formula
from sklearn_localregret.baselines import walksat
from sklearn_localregret.maxsat.clause_matrix import ClauseMatrix, clause_matrix
from sklearn_localregret.maxsat.rounds import maxsat_gains
from sklearn_localregret.maxsat.walksat import Walk, WalkSATClauses


def test_a_walk_refuses_a_start_that_is_not_its_bits():
    search = WalkSATClauses([(1, 2)], np.ones(1), 2)
    rng = np.random.default_rng(0)
    for start in (np.array([-(10**9), 10**9]), np.array([0, 2]), np.zeros(3, int)):
        with pytest.raises(ValueError, match="start must be 2 bits"):
            Walk(search, start, 0.5, rng)
    Walk(search, np.array([True, False]), 0.5, rng).step(10)


def test_walksat_clauses_refuse_empty_clauses_and_other_weights():
    with pytest.raises(ValueError, match="an empty clause"):
        WalkSATClauses([(1, 2), ()], np.ones(2), 3)
    with pytest.raises(ValueError, match="one each"):
        WalkSATClauses([(1, 2)] * 5, np.ones(2), 3)  # read past the weights


def test_the_clause_matrix_refuses_literals_off_the_variables():
    """Literal 3 of 2 variables became literal 1 of the next clause."""
    for clauses in (((3,), (1,), (2,)), ((1,), (0, 2))):
        with pytest.raises(ValueError, match="beyond the 2 variables"):
            ClauseMatrix(clauses, 2, np.ones(len(clauses)))


def test_the_clause_matrix_of_large_variables_does_not_overflow():
    matrix = clause_matrix([[1], [2**62], [-(2**62), 1]])
    assert matrix.n_vars == 2**62
    assert matrix.var_of.tolist() == [0, 2**62 - 1, 0, 2**62 - 1]
    assert matrix.sign_of.tolist() == [1.0, 1.0, 1.0, -1.0]


def test_a_refused_walksat_call_draws_nothing_from_the_callers_state():
    state = np.random.RandomState(0)
    before = state.get_state()[2]
    for kwargs in (dict(time_limit=-1), dict(weights=[-1.0, 1.0])):
        with pytest.raises(ValueError):
            walksat([[1], [-1]], random_state=state, **kwargs)
    assert state.get_state()[2] == before


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(noise=float("nan")), ValueError),
        (dict(noise=5), ValueError),
        (dict(noise=True), ValueError),
        (dict(noise="0.5"), ValueError),
        (dict(flips=-5), ValueError),
        (dict(passes=1.5), ValueError),
        (dict(deadline="x"), TypeError),
    ],
)
def test_solve_formula_checks_its_arguments(kwargs, error):
    with pytest.raises(error):
        solve_formula(WeightedFormula([[1, 2], [-1]]), **kwargs)
    with pytest.raises(TypeError, match="WeightedFormula"):
        solve_formula([[1, 2], [-1]])


def test_equal_formulas_hash_alike_and_hard_is_boolean():
    a = WeightedFormula([[1]], weights=[-0.0])
    b = WeightedFormula([[1]], weights=[0.0])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    for hard in (["no", ""], [0.5, 1.0]):
        with pytest.raises(ValueError, match="hard must be booleans"):
            WeightedFormula([[1], [2]], hard=hard)


def test_maxsat_gains_take_an_assignment_of_bits():
    for a in (np.array([2, 0]), np.array([0.5, 0.0]), np.zeros((2, 1))):
        with pytest.raises(ValueError, match="0/1"):
            maxsat_gains(a, [[1, 2]])
    with pytest.raises(ValueError, match="weights of shape"):
        maxsat_gains(np.array([0, 1]), [[1, 2]], weights=[1.0, 2.0])
