"""The model leaf of a site: naive Bayes over the tests, compiled.

A *model leaf* (:ref:`engine-model-leaves`) predicts a data row's label with
a Bernoulli naive Bayes model of the rows that reached its site, read off the
site's own stump factors: ``S_true[v, c]`` is the (discounted) weight of the
rows of label ``c`` that passed test ``v`` in the rounds where the stumps on
``v`` were edges at the site, and ``S_false[v, c]`` that of those that failed
it. So ::

    P(pass v | c) = (S_true[v, c] + a) / (S_true[v, c] + S_false[v, c] + 2 a)

with Laplace smoothing ``a`` (``SMOOTHING`` rows, in the table's scaled units
at the site's last update that counted rows: the model is that of the
counts as they stood then, a function of the saved table alone; an update
with no row, which only pays the bias, leaves the model as it is),
and the label prior from ``n_c = max_v (S_true + S_false)[v, c]``, the weight
of label ``c`` over the rounds the site counted most. A test never counted at
the site (``S_true + S_false = 0`` for every label) says nothing and is left
out. The model costs no memory of its own beyond a cache: per site, the log
odds ``log P(pass | c) - log P(fail | c)`` per test and the log score of a row
failing every test (:func:`refresh_leaf_model`), so that a row's score is one
sum over the tests it passes (:func:`model_label`).

The thresholds of a numeric column are nested (a row passes a prefix of
them): they are read as one feature, the bin of the value between them
(:mod:`~sklearn_localregret.engine.compiled.threshold_bins`; on a column with
missing values the bin of the known value, which a missing value leaves
out), not as one feature each; the two variants of a threshold outside such
a chain as one feature that a missing value leaves out
(:func:`_pair_variants`).

The factors of a test at a site are counted only in rounds where its stumps
are edges there (not where the path decides it, nor where the site splits on
it), so each likelihood is estimated from its own rounds: a naive Bayes model
with per-feature sample sizes. A row's label is the first class of largest
score (``argmax``), as scikit-learn's naive Bayes predicts.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel
from .softmax import softmax_row
from .threshold_bins import find_chains, read_chains

__all__ = [
    "SMOOTHING",
    "majority_label",
    "model_label",
    "model_labels",
    "model_posteriors",
    "passed_tests",
    "read_label",
    "refresh_leaf_model",
    "uncounted_labels",
]

# Laplace smoothing of every count, in rows.
SMOOTHING = 1.0


@kernel
def _class_count(true, false, r, c, n_tests) -> float:
    """``n_c = max_v (S_true + S_false)[v, c]`` of table row ``r``: the
    weight of label ``c`` over the rounds the site counted most."""
    count = 0.0
    for v in range(n_tests):
        seen = true[r, v, c] + false[r, v, c]
        if seen > count:
            count = seen
    return count


@kernel
def uncounted_labels(true, false, r, n_tests, out) -> int:
    """``out[c]``: whether table row ``r`` never counted label ``c`` (no
    test's factors hold a row of it); how many labels it counted."""
    n_tests = min(n_tests, true.shape[1], false.shape[1])
    counted = 0
    for c in range(min(true.shape[2], out.shape[0])):
        out[c] = not _class_count(true, false, r, c, n_tests) > 0.0
        counted += 0 if out[c] else 1
    return counted


@kernel
def refresh_leaf_model(
    true, false, r, n_tests, scale, odds, base, partner, next_threshold
) -> None:
    """Recompute the naive Bayes cache of table row ``r`` from its factors.

    ``odds[r, v, c] = log P(pass v | c) - log P(fail v | c)`` and
    ``base[r, c] = log P(c) + sum_v log P(fail v | c)`` (tests never counted
    at the site left out); ``scale`` is the table's scale at the row's last
    update that counted rows (the smoothing is ``SMOOTHING`` rows in its
    units; 0: never counted, no counts, any smoothing). ``partner`` pairs
    the two missing-value variants of a threshold (:func:`_pair_variants`),
    and ``next_threshold`` chains the thresholds of a column, read as one
    binned feature
    (:func:`~sklearn_localregret.engine.compiled.threshold_bins.read_chains`);
    either may be shorter than the tests, or empty.
    """
    k = true.shape[2]
    n_tests = min(n_tests, true.shape[1], false.shape[1], odds.shape[1])
    a = SMOOTHING * scale if scale > 0.0 else SMOOTHING
    # One pass over the tests: each label's largest count (the prior's
    # numerator, as _class_count) and which tests the site has counted.
    for c in range(k):
        base[r, c] = 0.0
    counted = np.zeros(n_tests, dtype=np.bool_)
    for v in range(n_tests):
        for c in range(k):
            seen = true[r, v, c] + false[r, v, c]
            if seen > base[r, c]:
                base[r, c] = seen
            if seen > 0.0:
                counted[v] = True
    total = 0.0
    for c in range(k):
        total += base[r, c]
    for c in range(k):
        base[r, c] = math.log((base[r, c] + a) / (total + k * a))
    # The tests read as a column's bins (and their variants) are left to
    # read_chains.
    n = min(n_tests, next_threshold.shape[0])
    binned = np.zeros(n_tests, dtype=np.bool_)
    members = np.empty(max(n, 0), dtype=np.int64)
    starts = np.empty(max(n, 0) + 1, dtype=np.int64)
    n_chains = find_chains(counted, n, partner, next_threshold, members, starts, binned)
    for v in range(n_tests):
        if binned[v]:
            continue
        if not counted[v]:
            for c in range(k):
                odds[r, v, c] = 0.0
            continue
        for c in range(k):
            passed = true[r, v, c] + a
            failed = false[r, v, c] + a
            odds[r, v, c] = math.log(passed / failed)
            base[r, c] += math.log(failed / (passed + failed))
    for v in range(min(n_tests, partner.shape[0])):
        u = partner[v]
        if 0 <= u < n_tests and not binned[v]:
            _pair_variants(true, false, r, v, u, a, odds, base)
    read_chains(true, false, r, n, a, odds, base, partner, members, starts, n_chains)


@kernel
def _pair_variants(true, false, r, v, u, a, odds, base) -> None:
    """Make the two variants of one threshold, ``v``: ``x > t`` (a missing
    value fails it) and ``u``: ``x > t or missing``, one feature of the
    model that a row with the value missing does not read.

    Read one by one, the variants count the threshold twice, and a missing
    value as evidence (passing ``u``, failing ``v``). Their counts give the
    threshold's rates on the rows where the value is known: ``v`` passes
    exactly those that pass it, ``u`` fails exactly those that fail it, so
    (each rate over its own test's rounds) ::

        p = P_v(pass | c),  f = P_u(fail | c),  P(pass | c, known) = p / (p + f)

    The cache then holds ``log P(pass | known)`` for ``v`` and
    ``-log P(fail | known)`` for ``u``, and ``base`` ``log P(fail | known)``
    in place of both variants' terms: a known value passing the threshold
    passes both (its log odds), one failing it passes neither, and a missing
    value passes ``u`` only, which takes the feature out of the sum, as naive
    Bayes does with a missing feature. A site that has counted one variant
    only keeps that variant's own model (both never counted: nothing to do).
    """
    k = true.shape[2]
    seen_v = seen_u = False
    for c in range(k):
        seen_v = seen_v or true[r, v, c] + false[r, v, c] > 0.0
        seen_u = seen_u or true[r, u, c] + false[r, u, c] > 0.0
    if not (seen_v and seen_u):
        return
    for c in range(k):
        n_v = true[r, v, c] + false[r, v, c] + 2.0 * a
        n_u = true[r, u, c] + false[r, u, c] + 2.0 * a
        fail_v = (false[r, v, c] + a) / n_v
        fail_u = (false[r, u, c] + a) / n_u
        p = (true[r, v, c] + a) / n_v
        known_fail = fail_u / (p + fail_u)
        # Both variants' own terms out, the known value's in.
        base[r, c] += math.log(known_fail) - math.log(fail_v) - math.log(fail_u)
        odds[r, v, c] = math.log(p / (p + fail_u))
        odds[r, u, c] = -math.log(known_fail)


@kernel
def _first_largest(scores) -> int:
    """The first index of the largest score (``argmax``, as scikit-learn's
    naive Bayes predicts)."""
    best = 0
    for c in range(1, scores.shape[0]):
        if scores[c] > scores[best]:
            best = c
    return best


@kernel
def model_label(odds, base, r, went, n_tests, scores) -> int:
    """The model leaf of table row ``r``'s label for a data row (outcomes
    ``went``): the first class of largest naive Bayes score. ``scores`` is
    scratch space of ``K`` numbers."""
    k = base.shape[1]
    n_tests = min(n_tests, went.shape[0], odds.shape[1])
    for c in range(k):
        scores[c] = base[r, c]
    for v in range(n_tests):
        if went[v]:
            for c in range(k):
                scores[c] += odds[r, v, c]
    return _first_largest(scores)


@kernel
def majority_label(true, false, r, n_tests) -> int:
    """Table row ``r``'s majority label: the first class of largest count
    ``n_c = max_v (S_true + S_false)[v, c]`` (the model's prior), or -1 if
    the site has counted no row."""
    k = true.shape[2]
    n_tests = min(n_tests, true.shape[1], false.shape[1])
    best = -1
    best_count = 0.0
    for c in range(k):
        count = _class_count(true, false, r, c, n_tests)
        if count > best_count:
            best, best_count = c, count
    return best


@kernel
def passed_tests(went, n_tests, passed) -> int:
    """Write the tests a data row passes (outcomes ``went``), in increasing
    order, into ``passed``; return how many. A walk that reads many sites'
    models sums their log odds over these only (:func:`model_label_passed`)."""
    n = 0
    for v in range(min(n_tests, went.shape[0], passed.shape[0])):
        if went[v]:
            passed[n] = v
            n += 1
    return n


@kernel
def model_label_passed(odds, base, r, passed, n_passed, scores) -> int:
    """:func:`model_label` from the tests the row passes (the same sums in
    the same order, so the same label)."""
    k = base.shape[1]
    for c in range(k):
        scores[c] = base[r, c]
    for i in range(n_passed):
        v = passed[i]
        if v < odds.shape[1]:
            for c in range(k):
                scores[c] += odds[r, v, c]
    return _first_largest(scores)


@kernel
def read_label(reads, odds, base, site, passed, n_passed, scores) -> int:
    """What a leaf at table row ``site`` reads for a data row (the tests it
    passes: :func:`passed_tests`) under adaptive leaf reads: its model's
    label where the model has got more weight right than the site's majority
    label (``reads[site, 0] > reads[site, 1]``), else -1 (the leaf's own)."""
    if not (0 <= site < reads.shape[0] and site < odds.shape[0]):
        return -1
    if site >= base.shape[0] or reads[site, 0] <= reads[site, 1]:
        return -1
    return model_label_passed(odds, base, site, passed, n_passed, scores)


@kernel
def model_labels(odds, base, rows, outcomes, n_tests, out) -> None:
    """``out[i]``: the model leaf of table row ``rows[i]``'s label for data
    row ``i`` (:func:`model_label`)."""
    scores = np.empty(base.shape[1])
    for i in range(min(rows.shape[0], outcomes.shape[0], out.shape[0])):
        out[i] = model_label(odds, base, rows[i], outcomes[i], n_tests, scores)


@kernel
def model_posteriors(odds, base, r, outcomes, n_tests, out) -> None:
    """``out[i, c]``: the posterior of label ``c`` under table row ``r``'s
    model for data row ``i`` (outcomes ``outcomes[i]``): the softmax of the
    scores :func:`model_label` maximises."""
    k = min(base.shape[1], out.shape[1])
    for i in range(min(outcomes.shape[0], out.shape[0])):
        went = outcomes[i]
        n = min(n_tests, went.shape[0], odds.shape[1])
        for c in range(k):
            out[i, c] = base[r, c]
        for v in range(n):
            if went[v]:
                for c in range(k):
                    out[i, c] += odds[r, v, c]
        softmax_row(out, i, k)
