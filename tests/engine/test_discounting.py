"""Discounting (:ref:`engine-discounting`): the lazy global scale against an eager
reference that multiplies every regret by lambda each round.

The reference is written from the definition ``R_t = lambda R_{t-1} + r_t``;
the tables under test keep ``Q = R / lambda^t`` and one scale, renormalised
now and then. Small lambdas make the renormalisation happen within the tests.
"""

import numpy as np
import pytest

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret.engine import (
    DiscountClock,
    HierarchicalSampler,
    RegretTable,
    StumpRegretTable,
)
from sklearn_localregret.engine.discount_clock import RENORMALIZE_AT


def test_clock_counts_rounds_and_effective_rounds():
    clock = DiscountClock(0.9)
    assert not clock.tick(4)
    assert clock.n_rounds == 4
    assert clock.scale == pytest.approx(0.9**-4, rel=1e-15)
    assert clock.effective_rounds == pytest.approx(sum(0.9**k for k in range(4)))
    undiscounted = DiscountClock()
    undiscounted.tick(7)
    assert undiscounted.scale == 1.0 and undiscounted.effective_rounds == 7.0
    with pytest.raises(ValueError, match="discount"):
        DiscountClock(0.0)
    with pytest.raises(ValueError, match="discount"):
        DiscountClock(1.5)


@pytest.mark.parametrize("discount", [1.0, 0.9, 0.3])
def test_regret_table_lazy_equals_eager(discount):
    rng = np.random.default_rng(0)
    rows, width = 6, 3
    lazy = RegretTable(width, initial_rows=rows, discount=discount)
    biased, unbiased = np.zeros((rows, width)), np.zeros((rows, width))
    resets = 0
    for t in range(400):
        n = int(rng.integers(0, 5))
        r = rng.integers(0, rows, n)
        c = rng.integers(0, width, n)
        keep = np.unique(r * width + c, return_index=True)[1]  # distinct colours
        r, c = r[keep], c[keep]
        gains = rng.normal(size=len(r)) * 10.0 ** rng.uniform(-2, 2, len(r))
        bias = float(rng.uniform(0, 0.5))
        before = lazy.clock.n_resets
        lazy.advance()
        resets += lazy.clock.n_resets - before
        lazy.update_entries(r, c, gains, bias)
        biased *= discount
        unbiased *= discount
        biased[r, c] += gains - bias
        unbiased[r, c] += gains
        np.testing.assert_allclose(lazy.biased, biased, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(lazy.unbiased, unbiased, rtol=1e-12, atol=1e-300)
        # What the samplers read: the same up to one common positive factor.
        np.testing.assert_allclose(lazy.rates / lazy.scale, biased, rtol=1e-12)
    assert lazy.n_rounds == 400
    if discount == 0.3:
        assert resets > 0  # 0.3^-400 is far beyond the renormalisation point
        assert lazy.scale < RENORMALIZE_AT
    else:
        assert resets == 0


def test_regret_table_bulk_rounds_equal_round_by_round():
    rng = np.random.default_rng(1)
    one, bulk = (RegretTable(2, initial_rows=4, discount=0.5) for _ in range(2))
    rounds = [
        (rng.integers(0, 4, 3), rng.integers(0, 2, 3), rng.normal(size=3))
        for _ in range(500)
    ]
    for r, c, g in rounds:
        one.advance()
        one.update_sequence(r, c, g)
    for start in range(0, 500, 50):
        block = rounds[start : start + 50]
        scales = bulk.round_scales(len(block))
        bulk.update_sequence(
            np.concatenate([b[0] for b in block]),
            np.concatenate([b[1] for b in block]),
            np.concatenate([b[2] for b in block]),
            scales=np.repeat(scales, 3),
        )
        bulk.advance(len(block))
    np.testing.assert_allclose(bulk.biased, one.biased, rtol=1e-12)
    assert bulk.clock.n_resets > 0 and one.clock.n_resets > 0


def _random_round(table, rng, rows):
    k, t = table.n_classes, table.n_tests
    n = len(rows)
    class_counts = rng.integers(0, 4, (n, k)).astype(float)
    true_counts = np.floor(class_counts[:, None, :] * rng.random((n, t, k)))
    correct = np.floor(class_counts.sum(axis=1) * rng.random(n) * 0.5)
    return (
        class_counts - correct[:, None],
        rng.random((n, k)) < 0.8,
        true_counts,
        class_counts,
        correct,
        rng.random((n, t)) < 0.8,
    )


class EagerStumpTable(StumpRegretTable):
    """The reference: undiscounted storage, every factor times lambda each round.

    (It reaches into the stored arrays on purpose: it *is* the eager
    definition the lazy scale must reproduce.)
    """

    def __init__(self, n_classes, n_tests, discount):
        super().__init__(n_classes, n_tests)
        self.eager_discount = discount

    def advance(self, n=1):
        super().advance(n)
        factor = self.eager_discount**n
        for array in (self._leaf, self._true, self._false, self._cost):
            array *= factor
        self._versions[: self.n_rows] += 1


@pytest.mark.parametrize("discount", [0.95, 0.2])
def test_stump_table_lazy_equals_eager_regrets_weights_and_draws(discount):
    rng = np.random.default_rng(2)
    lazy = StumpRegretTable(3, n_tests=2, discount=discount)
    eager = EagerStumpTable(3, 2, discount)
    paths = [(), ((0, 1),), ((0, 0),), ((1, 1),), ((0, 1), (1, 0))]
    for t in range(300):
        rows = sorted({int(i) for i in rng.integers(0, len(paths), 3)})
        args = _random_round(lazy, rng, rows)
        bias = float(rng.uniform(0, 0.3))
        for table in (lazy, eager):
            table.advance()
            table.update([table.row(paths[i]) for i in rows], *args, bias=bias)
    assert lazy.clock.n_resets > 0 if discount == 0.2 else lazy.clock.n_resets == 0
    # A stump regret is s_true + s_false - cost: it may cancel to far below its
    # terms, so it is compared to 1e-12 of the terms' size, not of itself.
    for unbiased in (False, True):
        for mine, theirs in zip(
            lazy.dense_regrets(unbiased), eager.dense_regrets(unbiased)
        ):
            np.testing.assert_allclose(
                mine, theirs, rtol=1e-12, atol=1e-12 * np.abs(theirs).max()
            )
    # The samplers' weights: equal up to the common factor, so the content
    # distributions agree to 1e-12 and a seed gives the same trees.
    for path in paths:
        w_lazy, _, total_lazy = lazy.site(lazy.find(path))
        w_eager, _, total_eager = eager.site(eager.find(path))
        if total_eager > 0:
            np.testing.assert_allclose(
                w_lazy / total_lazy, w_eager / total_eager, rtol=1e-12, atol=1e-15
            )
    draws_lazy = HierarchicalSampler(lazy).sample_many(500, np.random.default_rng(3))
    draws_eager = HierarchicalSampler(eager).sample_many(500, np.random.default_rng(3))
    assert draws_lazy == draws_eager
    one_lazy, one_eager = np.random.default_rng(4), np.random.default_rng(4)
    assert [HierarchicalSampler(lazy).sample(one_lazy) for _ in range(200)] == [
        HierarchicalSampler(eager).sample(one_eager) for _ in range(200)
    ]
    assert len(set(draws_lazy)) > 3  # not a trivially constant distribution


def test_discount_one_never_scales_and_a_discount_changes_the_model():
    # discount=1 is the paper's update: the stored regrets are the regrets (no
    # scale ever); the brute-force update tests of tests/locality use it.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] > 0).astype(int) ^ (rng.random(600) < 0.1)
    paper = LocalRegretTreeClassifier(random_state=0, discount=1.0).fit(X, y)
    table = paper.regret_table_
    assert table.scale == 1.0 and table.clock.n_resets == 0
    assert table.effective_rounds == paper.n_rounds_ == 120
    forgetting = LocalRegretTreeClassifier(random_state=0, discount=0.9).fit(X, y)
    assert forgetting.regret_table_.effective_rounds == pytest.approx(
        (1 - 0.9**120) / 0.1
    )
    assert not np.allclose(
        forgetting.regret_table_.dense_regrets()[0][0], table.dense_regrets()[0][0]
    )


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_disjunct_bulk_rounds_equal_one_call_per_round_with_discount(regret):
    # The bulk path plays windows of rounds with one update; with a discount each
    # round's gains carry their own scale (and renormalisation happens inside).
    rng = np.random.default_rng(6)
    X = rng.integers(0, 2, (3000, 8))
    y = X[:, 0] | X[:, 3]
    y[1500:] = X[1500:, 5]  # the target changes
    params = dict(regret=regret, discount=0.7, random_state=0, batch_size=3)
    bulk = LocalRegretDisjunctClassifier(**params).fit(X, y)
    calls = LocalRegretDisjunctClassifier(**params)
    for lo in range(0, 3000, 3):
        calls.partial_fit(X[lo : lo + 3], y[lo : lo + 3], classes=[0, 1])
    assert bulk.n_online_mistakes_ == calls.n_online_mistakes_
    np.testing.assert_allclose(
        bulk.predict_proba(X[:50]), calls.predict_proba(X[:50]), rtol=1e-9
    )
    assert calls.regret_table_.clock.n_resets > 0  # 0.7^-1000: renormalised


def test_swap_chain_follows_a_renormalisation(monkeypatch):
    """Right after the table is renormalised every cached out-edge is stale.

    Two assignments with an edge to each other form a closed class whose
    stationary law weighs each by one over its out-rate, so rates read before
    and after the renormalisation must not be mixed. A low renormalisation point
    makes it happen within a few dozen rounds.
    """
    from sklearn_localregret.engine import reachable_generator, stationary_from_root
    from sklearn_localregret.locality.hypercube_swap import HypercubeSwapRegrets

    monkeypatch.setattr("sklearn_localregret.engine.discount_clock.RENORMALIZE_AT", 1e3)
    swap = HypercubeSwapRegrets(2, discount=0.9)
    a00, a10 = np.array([0, 0], np.uint8), np.array([1, 0], np.uint8)
    swap.update(a00, np.array([1.0, 0.0]))  # 00 -> 10
    swap.update(a10, np.array([2.0, 0.0]))  # 10 -> 00
    checked = 0
    for _ in range(150):  # only 00 is played: 10's regrets just decay
        resets = swap.table.clock.n_resets
        swap.update(a00, np.array([0.01, 0.0]))
        support, probs = swap.distribution()
        vertices, rates = reachable_generator(swap, None)
        expected = dict(zip(vertices, stationary_from_root(rates)))
        got = {row.tobytes(): p for row, p in zip(support, probs)}
        assert got == pytest.approx(expected, abs=1e-12)
        if swap.table.clock.n_resets != resets:
            # Both assignments matter at that point: a stale rate would show.
            checked += min(expected.values()) > 1e-3
    assert checked >= 1


@pytest.mark.parametrize(
    "make",
    [
        lambda d: RegretTable(2, discount=d),
        lambda d: StumpRegretTable(2, 3, discount=d),
    ],
)
@pytest.mark.parametrize("jump", [10, 30_000, 10**6])
def test_a_jump_of_many_rounds_decays_every_row(make, jump):
    """``advance(n)`` for ``n`` past what a scale can hold (a sync skips the
    other shards' rounds at once: 0.99^-100000 overflows a float) decays the
    rows by ``lambda^n`` (to 0 where it underflows), as ``n`` single rounds
    would, and counts the rounds."""
    discount = 0.99
    table = make(discount)
    rows = [table.row(key) for key in "ab"]
    if isinstance(table, RegretTable):
        table.update_entries(rows, [0, 1], [2.0, -3.0])
    else:
        table._true[rows, 0, :] = [[2.0, 1.0], [-3.0, 0.5]]
    before = [np.array(getattr(table, name)[:2]) for name in table._SCALED]
    scale, versions = table.clock.scale, table.versions.copy()
    table.advance(jump)
    assert table.n_rounds == jump
    factor = discount**jump / scale
    for name, old in zip(table._SCALED, before):
        true = getattr(table, name)[:2] / table.clock.scale
        np.testing.assert_allclose(true, old * factor, rtol=1e-9, atol=0)
    if jump > 10:  # a jump past the scale: every row's caches are stale
        assert (table.versions > versions).all()


def test_a_discount_that_underflows_is_refused_by_every_learner():
    from sklearn_localregret import LocalRegretForestClassifier, OnlineMaxSAT

    tiny = 1e-310  # subnormal: its powers underflow
    X, y = np.eye(4), [0, 1, 0, 1]
    for learner in (
        LocalRegretTreeClassifier(discount=tiny),
        LocalRegretTreeClassifier(discount=(1.0, tiny)),
        LocalRegretDisjunctClassifier(discount=tiny),
        LocalRegretForestClassifier(discount=tiny),
    ):
        with pytest.raises(ValueError, match="discount"):
            learner.fit(X, y)
    with pytest.raises(ValueError, match="at least 2.23e-308"):
        OnlineMaxSAT(3, discount=tiny)
    with pytest.raises(ValueError, match="discount"):
        DiscountClock(tiny)


@pytest.mark.parametrize("discount", [2.3e-308, 1e-300, 1e-200])
def test_swap_chains_solve_under_the_smallest_discounts(discount):
    """A tiny discount decays an edge's rate to a subnormal next to rates of
    order 1: the solve took it, overflowed, and ``pi`` came out NaN
    (``IndexError`` in the draw, half a round applied)."""
    from sklearn_localregret import OnlineMaxSAT

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 4))
    tree = LocalRegretTreeClassifier(regret="swap", discount=discount, random_state=0)
    proba = tree.fit(X, np.arange(300) % 2).predict_proba(X[:20])
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    solver = OnlineMaxSAT(4, "swap", discount=discount, random_state=0)
    for clause in [[1], [-2], [3, 4], [-1]] * 50:
        solver.observe(clause)
    p = solver.probabilities_
    assert solver.n_rounds_ == 200 and np.isfinite(p).all()
