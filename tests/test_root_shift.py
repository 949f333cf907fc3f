"""The root models' sums are taken from each column's first value learnt:
columns far from 0 for their spread (times in milliseconds) keep their
variance, merges move one side's sums to the other's first values, and
models saved before read their sums as they were."""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_localregret import LocalRegretTreeClassifier
from sklearn_localregret._tree.root_gaussian import RootGaussian
from sklearn_localregret._tree.root_linear import RootLinear
from sklearn_localregret.merging._sums import add_counters

# A time in milliseconds: 1.7e12, and a minute of spread. Its squares are
# ~3e24, where float64 steps by ~5e8: a variance of ~3e8 taken as Q/N - m^2
# from plain sums is noise.
OFFSET = 1.7e12

each_root_model = pytest.mark.parametrize(
    "make",
    [lambda: RootGaussian(2, 3, 1.0), lambda: RootLinear(2, 3)],
    ids=["gaussian", "linear"],
)


def _stream(n, seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 6e4, n)
    other = rng.normal(size=(n, 2))
    y = ((t / 6e4 + 0.3 * other[:, 0]) > 0.6).astype(int)
    return np.column_stack([t, other]), y


def _learnt(model, X, y):
    for lo in range(0, len(y), 5):
        rows = slice(lo, lo + 5)
        if isinstance(model, RootGaussian):
            model.learn(X[rows], y[rows], np.ones(len(y[rows])), 1.0)
        else:
            model.learn(X[rows], y[rows], np.ones(len(y[rows])))
    return model


@each_root_model
def test_a_column_far_from_zero_reads_as_near_it(make):
    # The same rows moved by 1.7e12 in their first column: the same
    # posteriors (a Gaussian and a standardised linear model do not move
    # with a column). From plain sums they differed by up to ~1.
    X, y = _stream(1000, 0)
    moved = X.copy()
    moved[:, 0] += OFFSET
    near, far = _learnt(make(), X, y), _learnt(make(), moved, y)
    np.testing.assert_allclose(far.proba(moved), near.proba(X), atol=1e-6)


def test_the_tree_is_as_accurate_on_a_column_of_times():
    # Test-then-train in rounds of 5: the hedge's best expert on this stream
    # is the linear model, which plain sums broke (errors 0.032 near 0,
    # 0.076 with the times; 0.032 and 0.032 from first values).
    X, y = _stream(3000, 1)
    errors = []
    for offset in (0.0, OFFSET):
        moved = X.copy()
        moved[:, 0] += offset
        clf = LocalRegretTreeClassifier(random_state=0)
        wrong = 0
        for lo in range(0, len(y), 5):
            rows = slice(lo, lo + 5)
            if lo:
                wrong += int((clf.predict(moved[rows]) != y[rows]).sum())
            clf.partial_fit(moved[rows], y[rows], classes=[0, 1])
        errors.append(wrong / len(y))
    assert abs(errors[1] - errors[0]) < 0.01


@each_root_model
def test_a_merge_moves_the_other_sums_to_these_first_values(make):
    # Two models whose first rows differ add up to the model of both
    # streams' statistics: the sums (count, total, squares) of one model
    # that learnt both, to rounding.
    X, y = _stream(600, 2)
    X[:, 0] += OFFSET
    a, b = _learnt(make(), X[:300], y[:300]), _learnt(make(), X[300:], y[300:])
    assert not np.array_equal(a.shift, b.shift)
    names = ("count", "total", "squares")
    moved = b.sums_for(a, names)
    both = make()
    both.shift = a.shift.copy()
    both_sums = _learnt_sums(both, X, y, names)
    for name in names:
        merged = getattr(a, name) + moved[name]
        scale = np.abs(both_sums[name]).max()
        np.testing.assert_allclose(merged, both_sums[name], rtol=0, atol=1e-9 * scale)


def _learnt_sums(model, X, y, names) -> dict:
    """The sums ``names`` of ``model`` after it learns ``X, y`` (the
    linear model's steps aside: its statistics are sums)."""
    _learnt(model, X, y)
    return {name: getattr(model, name) for name in names}


def test_a_tree_merge_adds_root_sums_from_other_first_values():
    # Through the learners' merge: each root model of the merged tree holds
    # the sums of both streams, taken from its own first values.
    X, y = _stream(1200, 3)
    X[:, 0] += OFFSET
    params = dict(random_state=0, binarize=OFFSET + 3e4)
    a = LocalRegretTreeClassifier(**params).fit(X[:600], y[:600])
    b = LocalRegretTreeClassifier(**params).fit(X[600:], y[600:])
    gaussian = a._root_gaussian
    before = {n: getattr(gaussian, n).copy() for n in ("count", "total", "squares")}
    expected = b._root_gaussian.sums_for(gaussian, ("count", "total", "squares"))
    a.merge(b)
    for name in ("count", "total", "squares"):
        np.testing.assert_allclose(
            getattr(a._root_gaussian, name), before[name] + expected[name], rtol=1e-12
        )
    assert not np.array_equal(gaussian.shift, b._root_gaussian.shift)


def test_add_counters_reads_moved_sums():
    # The merges' generic counter sum takes a root model's sums through
    # sums_for (an unfitted side takes the other's first values).
    X, y = _stream(200, 4)
    X[:, 0] += OFFSET
    src = _learnt(RootGaussian(2, 3, 1.0), X, y)
    dst = RootGaussian(2, 3, 1.0)

    class Holder:
        def counter_groups(self, est):
            return [(est, ("weight", "count", "total", "squares"), ())]

    add_counters(Holder(), dst, src, 1)
    np.testing.assert_array_equal(dst.shift, src.shift)
    np.testing.assert_allclose(dst.proba(X), src.proba(X))


def test_models_saved_before_read_their_sums_as_they_were():
    # A model saved without first values (plain sums) stays plain.
    X, y = _stream(300, 5)
    for model in (RootGaussian(2, 3, 1.0), RootLinear(2, 3)):
        del model.shift
        _learnt(model, X, y)
        assert "shift" not in model.__dict__
        assert model.count.sum() > 0
        plain_total = X[:, 0].sum() if isinstance(model, RootLinear) else None
        if plain_total is not None:
            np.testing.assert_allclose(model.total[0], plain_total)
        assert np.isfinite(model.proba(X)).all()
