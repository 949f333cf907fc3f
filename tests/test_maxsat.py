"""OnlineMaxSAT: the update by hand, learning a planted formula, errors."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.maxsat.online import OnlineMaxSAT


def planted_3sat(n=20, n_clauses=201, seed=0):
    """Random 3-clauses each satisfied by a hidden assignment."""
    rng = np.random.default_rng(seed)
    planted = rng.integers(0, 2, n).astype(bool)
    clauses = []
    while len(clauses) < n_clauses:
        variables = rng.choice(n, 3, replace=False)
        literals = (variables + 1) * (2 * rng.integers(0, 2, 3) - 1)
        if np.any((literals > 0) == planted[variables]):
            clauses.append([int(lit) for lit in literals])
    return clauses, planted


def test_regret_update_by_hand():
    solver = OnlineMaxSAT(3, random_state=0)
    np.testing.assert_array_equal(solver.assignment(), [False] * 3)  # the root
    # (x1 or not x2) is satisfied by all-false; setting x2 would break it.
    assert solver.observe([1, -2]) == 1.0
    table = solver.regret_table_
    np.testing.assert_array_equal(table.biased, [[0, 0], [0, -1], [0, 0]])
    # Weighted round: (x2 or x3) w=2 and (x1) w=1, both unsatisfied.
    assert solver.observe([[2, 3], [1]], weights=[2, 1]) == 0.0
    np.testing.assert_array_equal(table.biased, [[0, 1], [0, 1], [0, 2]])
    np.testing.assert_allclose(solver.probabilities_, [1, 1, 1])
    assert solver.n_rounds_ == 2
    assert solver.satisfied_weight_ == 1.0 and solver.total_weight_ == 4.0
    # Next round plays all-true: (not x1 or not x3) is its only violated clause,
    # flipping x1 or x3 satisfies it; gains of 1 on the "false" colours.
    np.testing.assert_array_equal(solver.assignment(), [True] * 3)
    assert solver.observe([[-1, -3]]) == 0.0
    np.testing.assert_array_equal(table.biased, [[1, 1], [0, 1], [1, 2]])
    # Colored regret: positive unbiased regrets 1+1+1+1+2 = 6 over 3 rounds.
    assert solver.colored_regret_ == pytest.approx(2.0)
    assert solver.n_nonzero_regrets_ == 5


def test_bias_with_finite_level():
    solver = OnlineMaxSAT(2, L=3, random_state=0)  # L >= n: exact, b = W / 4
    solver.observe([[1], [2]], weights=[1.0, 3.0])
    np.testing.assert_array_equal(solver.regret_table_.biased, [[0, 0], [0, 2]])


def test_planted_formula_ends_mostly_satisfied():
    """Local external on a satisfiable formula: the paper's Max-3SAT setting.

    A uniformly random assignment satisfies a 3-clause with probability 7/8: over
    500 rounds its satisfied fraction has sd sqrt(7/8 * 1/8 / 500) = 0.0148, so
    it exceeds 7/8 + 3 sd = 0.919 with probability ~1e-3. Local external
    satisfies 0.936-1.0 of the last 500 of 2000 rounds over seeds 0-5 (seed 0,
    used here, is the hardest instance).
    """
    clauses, planted = planted_3sat(seed=0)
    order = np.random.default_rng(1).integers(0, len(clauses), 2000)
    solver = OnlineMaxSAT(20, random_state=0)
    satisfied = solver.run([clauses[i] for i in order])
    assert satisfied.shape == (2000,)
    assert satisfied[-500:].mean() > 0.875 + 3 * np.sqrt(7 / 64 / 500)
    best = solver.best_assignment()
    fraction = np.mean(
        [any((lit > 0) == best[abs(lit) - 1] for lit in c) for c in clauses]
    )
    assert fraction > 0.93
    # The paper's point: few regrets are non-zero (2n = 40 at most).
    assert solver.n_nonzero_regrets_ <= 40
    assert solver.satisfied_weight_ == satisfied.sum()


def test_swap_tracks_many_more_regrets():
    clauses, _ = planted_3sat(n=8, n_clauses=40, seed=2)
    stream = [clauses[i] for i in np.random.default_rng(2).integers(0, 40, 150)]
    external = OnlineMaxSAT(8, random_state=0)
    swap = OnlineMaxSAT(8, regret="swap", random_state=0)
    external.run(stream)
    swap.run(stream)
    assert swap.n_nonzero_regrets_ > 3 * external.n_nonzero_regrets_
    assert swap.swap_regret_ > 0
    with pytest.raises(AttributeError):
        external.swap_regret_
    # The marginals and the mode are those of the swap distribution.
    assignments, probs = swap.assignment_distribution()
    assert len(probs) > 1 and probs.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(swap.probabilities_, probs @ assignments)
    best = swap.best_assignment()
    assert best.dtype == bool
    np.testing.assert_array_equal(best, assignments[np.argmax(probs)])


def test_assignment_distribution_by_hand():
    solver = OnlineMaxSAT(2, regret="swap", bias=0.0, random_state=0)
    solver.observe([1])  # from all-false, only the edge to (T, F) gains: 1
    assignments, probs = solver.assignment_distribution()
    np.testing.assert_array_equal(assignments, [[True, False]])
    np.testing.assert_array_equal(probs, [1.0])
    solver.observe([[-1]], weights=[3])  # from (T, F) the edge back gains 3
    assignments, probs = solver.assignment_distribution()
    np.testing.assert_array_equal(assignments, [[False, False], [True, False]])
    np.testing.assert_allclose(probs, [3 / 4, 1 / 4], rtol=1e-12)  # pi_0 = 3 pi_1
    for view in (assignments, probs):
        with pytest.raises(ValueError, match="read-only"):
            view[0] = 0
    # External regret: an estimate for L < n_vars (what probabilities_ reads),
    # no list for the exact product.
    approx = OnlineMaxSAT(3, L=1, random_state=0)
    approx.run([[1], [2], [-3]] * 5)
    assignments, probs = approx.assignment_distribution()
    np.testing.assert_allclose(approx.probabilities_, probs @ assignments)
    with pytest.raises(ValueError, match="probabilities_"):
        OnlineMaxSAT(3, random_state=0).assignment_distribution()


def test_batches_and_weighted_pairs():
    solver = OnlineMaxSAT(4, random_state=0)
    solver.partial_fit([[1, 2], [-3], [4], [1, -4], [2]], batch_size=2)
    assert solver.n_rounds_ == 3
    assert solver.total_weight_ == 5.0
    before = solver.satisfied_weight_
    out = solver.run([([1], 2.5), [2, -3], (3, -4), ([4], 0.5)])
    # One round per item, each satisfied in full or not at all.
    assert out.shape == (4,)
    assert all(got in (0.0, weight) for got, weight in zip(out, [2.5, 1, 1, 0.5]))
    assert out.sum() == solver.satisfied_weight_ - before
    assert solver.total_weight_ == 5.0 + 2.5 + 1 + 1 + 0.5


def test_pysat_formula_is_accepted():
    formula = pytest.importorskip("pysat.formula")
    cnf = formula.CNF(from_clauses=[[1, -2], [2, 3]])
    solver = OnlineMaxSAT(3, random_state=0)
    solver.partial_fit(cnf)
    assert solver.n_rounds_ == 2


@pytest.mark.parametrize(
    "bad, error",
    [
        ([[1, 0]], ValueError),  # literal 0
        ([[1, 4]], ValueError),  # beyond n_vars
        ([[1.5]], ValueError),  # not an integer
        ([["a"]], TypeError),
        ([[]], ValueError),  # empty clause
        ([{1: 2}], TypeError),  # a mapping would be read as its keys
    ],
)
def test_bad_clauses_raise_and_leave_the_solver_unchanged(bad, error):
    solver = OnlineMaxSAT(3, random_state=0)
    solver.run([[1], [-2], [3, 1]])
    pending = solver.assignment()
    before = pickle.dumps(solver)
    with pytest.raises(error):
        solver.observe(bad)
    with pytest.raises(error):
        solver.partial_fit([[1], *bad])
    with pytest.raises(error):
        solver.run([[2], *bad])
    assert pickle.dumps(solver) == before
    np.testing.assert_array_equal(solver.assignment(), pending)


def test_bad_weights_and_parameters():
    solver = OnlineMaxSAT(3, random_state=0)
    before = pickle.dumps(solver)
    with pytest.raises(ValueError):
        solver.observe([[1], [2]], weights=[1.0, -1.0])
    with pytest.raises(ValueError):
        solver.observe([[1], [2]], weights=[1.0])
    with pytest.raises(ValueError):
        solver.partial_fit([[1]], batch_size=0)
    assert pickle.dumps(solver) == before
    for kwargs in [
        {"n_vars": 0},
        {"n_vars": 3, "regret": "internal"},
        {"n_vars": 3, "L": -1},
        {"n_vars": 3, "bias": -0.1},
        {"n_vars": 3, "n_mcmc_steps": 0},
    ]:
        with pytest.raises(ValueError):
            OnlineMaxSAT(**kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"regret": "swap"}, {"L": 2}])
def test_same_seed_same_run(kwargs):
    clauses, _ = planted_3sat(n=6, n_clauses=30, seed=3)
    a = OnlineMaxSAT(6, random_state=4, **kwargs).run(clauses * 2)
    b = OnlineMaxSAT(6, random_state=4, **kwargs).run(clauses * 2)
    np.testing.assert_array_equal(a, b)


def test_reading_does_not_change_the_solver():
    clauses, _ = planted_3sat(n=6, n_clauses=30, seed=5)
    solver = OnlineMaxSAT(6, L=2, random_state=0)  # approximate sampler
    solver.run(clauses)
    before = pickle.dumps(solver)
    first = solver.probabilities_
    solver.best_assignment()
    solver.most_probable_assignment_
    np.testing.assert_array_equal(solver.probabilities_, first)
    assert pickle.dumps(solver) == before


# -- one reading of a clause: run, observe and partial_fit agree -------------------


@pytest.mark.parametrize(
    "form",
    [
        [1.0, -2.0],
        (np.int64(1), -2.0),
        np.array([1, -2]),
        np.array([1.0, -2.0]),
        [np.float32(1), np.int8(-2)],
    ],
)
def test_every_clause_form_is_one_clause_everywhere(form):
    """Whole floats and numpy scalars are literals in run, observe, partial_fit."""
    reference = OnlineMaxSAT(3, random_state=0)
    reference.observe([1, -2])
    for play in (
        lambda s: s.run([form]),
        lambda s: s.observe(form),
        lambda s: s.observe([form]),
        lambda s: s.partial_fit([form]),
    ):
        solver = OnlineMaxSAT(3, random_state=0)
        play(solver)
        assert solver.total_weight_ == 1.0 and solver.n_rounds_ == 1
        np.testing.assert_array_equal(
            solver.regret_table_.biased, reference.regret_table_.biased
        )


def test_run_reads_a_pair_only_when_its_first_element_is_a_clause():
    # [1.0, 2.0] was read as the clause (1,) of weight 2 before.
    solver = OnlineMaxSAT(4, random_state=0)
    solver.run([[1.0, 2.0]])
    assert solver.total_weight_ == 1.0
    np.testing.assert_array_equal(solver.regret_table_.biased[:, 1], [1, 1, 0, 0])
    solver = OnlineMaxSAT(4, random_state=0)
    solver.run([([1.0, 2.0], 3.0), ((3, 4), 0.5), 4, (3, -4)])
    assert solver.total_weight_ == 3.0 + 0.5 + 1 + 1
    assert solver.n_rounds_ == 4


@pytest.mark.parametrize(
    "play",
    [
        lambda s: s.run([{1: 2}]),
        lambda s: s.run({1: 2}),
        lambda s: s.observe({1: 2}),
        lambda s: s.observe([{1: 2}]),
        lambda s: s.partial_fit({1: 2}),
        lambda s: s.partial_fit([[1], {1: 2}]),
        lambda s: s.run([([1], True)]),
    ],
)
def test_mappings_and_bool_weights_are_rejected(play):
    solver = OnlineMaxSAT(3, random_state=0)
    before = pickle.dumps(solver)
    with pytest.raises(TypeError, match="mapping|dict|weight True"):
        play(solver)
    assert pickle.dumps(solver) == before


# -- the interactive path: one clause read once, scored without numpy ---------


def random_clauses(rng, n, n_clauses, max_width=5):
    """Clauses with repeated literals and ``x or not x`` mixed in."""
    clauses = []
    for _ in range(n_clauses):
        width = int(rng.integers(1, max_width + 1))
        variables = rng.integers(1, n + 1, width)
        clauses.append(
            [int(v) * int(s) for v, s in zip(variables, rng.choice([-1, 1], width))]
        )
    return clauses


def brute_force_gains(a, clause, weight):
    def u(bits):
        return weight * any((lit > 0) == bool(bits[abs(lit) - 1]) for lit in clause)

    flips = [
        u(np.where(np.arange(len(a)) == k, 1 - a, a)) - u(a) for k in range(len(a))
    ]
    return np.array(flips), u(a)


def test_one_clause_scores_as_maxsat_round_and_by_brute_force():
    from sklearn_localregret.maxsat.clause_matrix import ClauseMatrix as _FlatClauses
    from sklearn_localregret.maxsat.rounds import OneClause as _Clause
    from sklearn_localregret.maxsat.rounds import maxsat_round

    rng = np.random.default_rng(0)
    n = 5
    for clause in random_clauses(rng, n, 300):
        weight = float(rng.choice([0.0, 1.0, 2.5]))
        a = rng.integers(0, 2, n).astype(np.uint8)
        gains, satisfied = _Clause(tuple(clause), n, weight).score(a)
        flat = _FlatClauses((tuple(clause),), n, np.array([weight]))
        np_gains, np_satisfied = maxsat_round(a, *flat.round(0, 1))
        # Exactly equal: the bulk and interactive paths learn the same model.
        np.testing.assert_array_equal(gains, np_gains)
        assert satisfied == np_satisfied
        expected_gains, expected = brute_force_gains(a, clause, weight)
        np.testing.assert_array_equal(gains, expected_gains)
        assert satisfied == expected


def test_flat_clauses_are_the_clause_matrix_entries():
    from sklearn_localregret.maxsat.clause_matrix import ClauseMatrix as _FlatClauses
    from sklearn_localregret.maxsat.clause_matrix import clause_matrix

    rng = np.random.default_rng(1)
    n = 6
    clauses = [tuple(c) for c in random_clauses(rng, n, 200)]
    weights = rng.random(len(clauses))
    flat = _FlatClauses(tuple(clauses), n, weights)
    signed = clause_matrix(clauses, n_vars=n)
    csr = signed.signed.tocsr()
    np.testing.assert_array_equal(flat.indptr, csr.indptr)
    np.testing.assert_array_equal(flat.var_of, csr.indices)
    np.testing.assert_array_equal(flat.sign_of, csr.data)
    np.testing.assert_array_equal(
        flat.clause_of, np.repeat(np.arange(len(clauses)), np.diff(csr.indptr))
    )
    np.testing.assert_array_equal(flat.n_neg, signed.n_neg)
    for start, stop in [(0, 1), (3, 17), (150, 200)]:
        lo, hi = csr.indptr[start], csr.indptr[stop]
        clause_of, var_of, sign_of, n_neg, w = flat.round(start, stop)
        np.testing.assert_array_equal(clause_of, flat.clause_of[lo:hi] - start)
        np.testing.assert_array_equal(w, weights[start:stop])


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"regret": "swap"}, {"L": 2}, {"discount": 0.9}, {"L": 4, "bias": 0.5}],
)
def test_every_driver_plays_the_same_rounds(kwargs):
    """run, partial_fit and the observe loop (plain and numpy literals, so both
    readings of a clause) learn the same solver, bit for bit."""
    rng = np.random.default_rng(2)
    clauses = random_clauses(rng, 6, 60, max_width=3)
    weights = rng.choice([0.0, 1.0, 3.0], len(clauses))

    def solver():
        return OnlineMaxSAT(6, random_state=3, **kwargs)

    by_run = solver()
    played = by_run.run(list(zip(clauses, weights)))
    by_fit = solver().partial_fit(clauses, weights)
    plain, numpy_literals = solver(), solver()
    got_plain = [plain.observe(c, weights=[w]) for c, w in zip(clauses, weights)]
    got_numpy = [
        numpy_literals.observe(np.array(c), weights=[w])
        for c, w in zip(clauses, weights)
    ]
    np.testing.assert_array_equal(played, got_plain)
    np.testing.assert_array_equal(played, got_numpy)
    reference = pickle.dumps(by_run)
    for other in (by_fit, plain, numpy_literals):
        assert pickle.dumps(other) == reference


@pytest.mark.parametrize(
    "clause, weights",
    [
        ([1, 0], None),
        ([1, 4], None),
        ([-4], None),
        ([2, -5, 1], None),
        ([1, True], None),
        ([1, 2.5], None),
        ([1, "a"], None),
        ([1, 2], [-1.0]),
        ([1, 2], [np.nan]),
        ([1, 2], [1.0, 2.0]),
        ([1, 2], 2.0),
        ([1, 2], ["a"]),
    ],
)
def test_a_bad_clause_gets_the_error_of_the_full_reading(clause, weights):
    """observe(clause) reads plain int literals itself: its errors are those
    of the full reading (the same clause, nested), and nothing changes."""
    solver = OnlineMaxSAT(3, random_state=0)
    solver.run([[1], [-2, 3]])
    pending = solver.assignment()
    before = pickle.dumps(solver)
    errors = []
    for given in (clause, [clause]):
        with pytest.raises((ValueError, TypeError)) as info:
            solver.observe(given, weights=weights)
        errors.append((info.type, str(info.value)))
    assert errors[0] == errors[1]
    assert pickle.dumps(solver) == before
    np.testing.assert_array_equal(solver.assignment(), pending)


def test_options_after_regret_are_keyword_only():
    OnlineMaxSAT(3, "swap", L=2)  # n_vars and regret may be positional
    with pytest.raises(TypeError):
        OnlineMaxSAT(3, "external", 2)


def test_a_hard_clause_may_not_weigh_more_than_any_clause():
    """A formula's hard clauses weigh its top (the soft weights' sum plus 1):
    refused past 1e100 given as clauses and weights, taken unchecked given
    as a ``WeightedFormula``."""
    from sklearn_localregret import WeightedFormula

    heavy = WeightedFormula(
        [[1], [2], [-1, -2]], weights=[1e100, 1e100, 0], hard=[False, False, True]
    )
    solver = OnlineMaxSAT(2, random_state=0)
    before = pickle.dumps(solver)
    for call in (solver.partial_fit, solver.observe):
        with pytest.raises(ValueError, match="is hard and weighs the formula's top"):
            call(heavy)
    assert pickle.dumps(solver) == before


@pytest.mark.parametrize(
    "params, match",
    [
        ({"bias": True}, "bias must be None or a finite number"),
        ({"bias": float("inf")}, "bias must be None or a finite number"),
    ],
)
def test_odd_parameters_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        OnlineMaxSAT(3, **params)


def test_odd_weights_and_literals_are_refused():
    solver = OnlineMaxSAT(3, random_state=0)
    with pytest.raises(TypeError, match="not booleans"):
        solver.observe([1], weights=[True])  # as run([([1], True)]) refuses
    from sklearn_localregret import read_dimacs

    with pytest.raises(
        ValueError, match="line 1: .* beyond the limit of 9223372036854775807"
    ):
        read_dimacs("1 -99999999999999999999 0\n")  # was an OverflowError later


def test_a_solver_larger_than_the_machine_is_a_memory_error_at_once():
    # 10**12 variables: ~200 TB of tables (the out-of-memory killer ended
    # the process, without a Python error, at 10**9).
    with pytest.raises(MemoryError, match=r"OnlineMaxSAT\(1000000000000\) needs"):
        OnlineMaxSAT(10**12)
