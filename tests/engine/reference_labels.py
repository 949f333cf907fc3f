"""The Python walk of HierarchicalLabels before it was compiled: a reference.

Kept verbatim (less its docstrings' examples) so that the compiled kernels are
checked against the code they replaced, on tables that learners really build
(tests/engine/test_compiled_labels.py).
"""

from __future__ import annotations

import threading
from typing import NamedTuple, cast

import numpy as np
from sklearn.isotonic import IsotonicRegression

from sklearn_localregret.engine import StumpRegretTable

_FEW_ROWS = 16


class _Site(NamedTuple):
    """What one table row contributes, independently of the data rows."""

    version: int
    total: float  # W, the site's clock rate
    leaves: np.ndarray  # (K,) leaf weights
    tests: np.ndarray  # the tests with positive weight
    slope: np.ndarray  # (len(tests), K): true minus false start labels, weighted
    offset: np.ndarray  # (K,): false start labels, weighted, summed
    follow: list  # (test, branch, child row, q_test, w_test, start labels)
    #               for the children that have a row of their own
    model: float  # the model leaf's weight (0 without model leaves)
    row: int  # the table row (for its model)


def _visit(site: _Site, s: float, m: np.ndarray, reach: float):
    """A visit's share of ``reach``, and the labels it gives every row there.

    ``s`` is the site's age rate and ``m`` its start labels; the tests' part,
    which depends on the row, is the caller's.
    """
    return reach / (s + site.total), s * m + site.leaves + site.offset


class ReferenceLabels:
    """Exact class probabilities of :class:`HierarchicalSampler`'s trees.

    ``probabilities(outcomes)[i, c]`` is the probability that a tree drawn by
    :meth:`HierarchicalSampler.sample` (same table, same ``root_label``) gives
    data row ``i`` the label ``c``: exact up to floating point, without draws.

    Parameters
    ----------
    table : StumpRegretTable
        Row keys are paths, tuples of ``(test, branch)`` pairs.

    """

    def __init__(self, table: StumpRegretTable):
        self.table = table
        self._sites: dict[int, _Site] = {}
        self._children: dict[int, list] = {}
        self._indexed = 0  # table rows already in _children
        self._orphans: dict = {}  # parent key -> rows waiting for that parent
        # Concurrent predictions may index new rows at once: one at a time, or
        # a child would be listed twice and counted twice.
        self._indexing = threading.Lock()

    # The cache is derived from the table: not saved.
    def __getstate__(self):
        return {"table": self.table}

    def __setstate__(self, state):
        self.__init__(state["table"])

    def probabilities(self, outcomes: np.ndarray, root_label: int = 0) -> np.ndarray:
        """Class probabilities of the data rows, shape ``(n_rows, n_classes)``.

        Parameters
        ----------
        outcomes : ndarray of shape (n_rows, n_tests)
            Test outcomes of the data rows (true: the ``branch = 1`` child).
        root_label : int, default=0
            The leaf the root site starts as.
        """
        table = self.table
        outcomes = np.asarray(outcomes, dtype=bool)
        n, k = outcomes.shape[0], table.n_classes
        proba = np.zeros((n, k))
        start = np.zeros(k)
        start[root_label] = 1.0
        if n == 0:
            return proba
        self._index_new_rows()
        if n == 1:
            return self._one_row(outcomes, start)
        # Whole data rows are gathered and multiplied by a dense slope: far
        # cheaper than gathering the columns of the positive tests.
        passes = outcomes.astype(np.float64)
        slope = np.zeros((table.n_tests, k))
        # Sites to visit: (table row or -1, data rows there, s, start labels,
        # reach), reach the product of the content probabilities on the way.
        pending = [(table.find(()), np.arange(n), 0.0, start, 1.0)]
        versions = table.versions
        while pending:
            row, rows, s, m, reach = pending.pop()
            site = self._site(row, versions) if row >= 0 else None
            if site is None or s + site.total <= 0.0:  # the start leaf for ever
                proba[rows] += reach * m
                continue
            share, here = _visit(site, s, m, reach)
            if site.model > 0.0:
                labels = model_labels(table, site.row, outcomes[rows])
                here = here + site.model * np.eye(k)[labels]
            if site.tests.size > 0 and rows.size <= _FEW_ROWS:
                here = here + passes[rows][:, site.tests] @ site.slope
            elif site.tests.size:
                slope[site.tests] = site.slope
                here = here + passes[rows] @ slope
                slope[site.tests] = 0.0
            proba[rows] += share * here
            for test, branch, child, q, w, label in site.follow:
                going = rows[outcomes[rows, test] == bool(branch)]
                if going.size:
                    pending.append((child, going, s + q, label, share * w))
        return proba

    def _one_row(self, outcomes: np.ndarray, start: np.ndarray) -> np.ndarray:
        """:meth:`probabilities` of a single data row, the same arithmetic.

        The walk of :meth:`probabilities` with the row's branch choices read
        from a list: the streaming predict-then-learn loop calls this once per
        row, and numpy's per-call cost dominated the few-site arithmetic.
        """
        table = self.table
        went = outcomes[0].tolist()
        passes = outcomes.astype(np.float64)
        proba = np.zeros((1, table.n_classes))
        pending = [(table.find(()), 0.0, start, 1.0)]
        versions = table.versions
        while pending:
            row, s, m, reach = pending.pop()
            site = self._site(row, versions) if row >= 0 else None
            if site is None or s + site.total <= 0.0:  # the start leaf for ever
                proba += reach * m
                continue
            share, here = _visit(site, s, m, reach)
            if site.model > 0.0:
                here = here.copy()
                here[model_labels(table, site.row, outcomes)[0]] += site.model
            if site.tests.size:
                here = here + passes[:, site.tests] @ site.slope
            proba += share * here
            for test, branch, child, q, w, label in site.follow:
                if went[test] == branch:
                    pending.append((child, s + q, label, share * w))
        return proba

    # -- the per-row cache -------------------------------------------------
    def _site(self, row: int, versions: np.ndarray) -> _Site | None:
        """The cached contribution of ``row`` (None: no positive weight)."""
        version = int(versions[row])
        site = self._sites.get(row)
        if site is None or site.version != version:
            site = self._sites[row] = self._compute_site(row, version)
        return site if site.total > 0.0 else None

    def _compute_site(self, row: int, version: int) -> _Site:
        table, k = self.table, self.table.n_classes
        weights, _, total = table.site(row)
        # The model leaf's weight, then the tests' from column n_leaves on.
        model = float(weights[k]) if table.n_leaves > k else 0.0
        weights = np.concatenate((weights[:k], weights[table.n_leaves :]))
        tests = np.flatnonzero(weights[k:] > 0.0)
        if not tests.size:  # only leaves: nothing depends on the data row
            no_slope, no_offset = np.zeros((0, k)), np.zeros(k)
            return _Site(
                version,
                float(total),
                weights[:k].copy(),
                tests,
                no_slope,
                no_offset,
                [],
                model,
                row,
            )
        w = weights[k + tests]
        first, second = table.label_marginals(row, tests)
        m_true, m_false = _scaled(first, w), _scaled(second, w)
        q = _others(weights, total, k + tests)
        follow = []
        children = self._children.get(row)
        if children and tests.size:
            known = np.array(children, dtype=np.intp)
            at = np.minimum(np.searchsorted(tests, known[:, 0]), tests.size - 1)
            # Children of tests without weight are never reached from here.
            weighted = tests[at] == known[:, 0]
            for (test, branch, child), i in zip(
                known[weighted].tolist(), at[weighted].tolist()
            ):
                # This child is visited; its start label leaves the static part.
                labels = m_true if branch else m_false
                follow.append(
                    (test, branch, child, float(q[i]), float(w[i]), labels[i] / w[i])
                )
                labels[i] = 0.0
        return _Site(
            version,
            float(total),
            weights[:k].copy(),
            tests,
            m_true - m_false,
            m_false.sum(axis=0),
            follow,
            model,
            row,
        )

    def _index_new_rows(self) -> None:
        """Index the table's new rows under their parents; forget stale sites."""
        table = self.table
        if self._indexed == table.n_rows:
            return
        with self._indexing:
            self._index_rows(table)

    def _index_rows(self, table: StumpRegretTable) -> None:
        # A stump table's keys are paths: tuples of (test, branch) edges.
        keys = cast("list[tuple]", table.keys())
        for row in range(self._indexed, len(keys)):
            key = keys[row]
            # A row may enter before its parent (the parent adopts it then).
            for child in self._orphans.pop(key, ()):
                self._adopt(row, child, keys[child][-1])
            if key:
                parent = table.find(key[:-1])
                if parent >= 0:
                    self._adopt(parent, row, key[-1])
                else:
                    self._orphans.setdefault(key[:-1], []).append(row)
        self._indexed = len(keys)

    def _adopt(self, parent: int, child: int, edge: tuple) -> None:
        test, branch = edge
        self._children.setdefault(parent, []).append((test, branch, child))
        self._sites.pop(parent, None)  # a cached parent must learn of it


def model_labels(table: StumpRegretTable, row: int, outcomes: np.ndarray):
    """The model leaf of ``row``'s labels of data rows: naive Bayes from the
    row's factors, Laplace smoothing of one row, the prior from the largest
    count of each label over the tests, tests never counted left out; a test
    Bernoulli, or with the table's chains of thresholds, a chain one binned
    feature (:func:`_chain_terms`). Written apart from the compiled cache,
    in numpy and scikit-learn's isotonic regression."""
    t = table.n_tests
    assert (table.missing_partners < 0).all(), "a reference without pairs"
    true, false = table._true[row, :t], table._false[row, :t]  # (t, K)
    # Smoothing: one row in the units of the row's last update (0: never).
    a = 1.0 * (table._model_scale[row] or 1.0)
    seen = true + false
    counts = seen.max(axis=0) if t else np.zeros(table.n_classes)
    counted = seen.sum(axis=1) > 0.0
    p_pass = (true + a) / (seen + 2 * a)
    log_pass = np.where(counted[:, None], np.log(p_pass), 0.0)
    log_fail = np.where(counted[:, None], np.log1p(-p_pass), 0.0)
    for chain in _chains(table.next_thresholds[:t], counted):
        log_fail[chain], log_pass[chain] = _chain_terms(true[chain], seen[chain], a)
    scores = (
        np.log((counts + a) / (counts.sum() + table.n_classes * a))
        + log_fail.sum(axis=0)
        + outcomes.astype(float) @ (log_pass - log_fail)
    )
    return np.argmax(scores, axis=1)


def _chains(next_threshold: np.ndarray, counted: np.ndarray) -> list:
    """The chains of thresholds, each its counted tests in increasing
    threshold (at least two)."""
    named = set(next_threshold[next_threshold >= 0].tolist())
    chains = []
    for head in np.flatnonzero(next_threshold >= 0).tolist():
        if head in named:
            continue
        chain, v = [], head
        while v >= 0:
            if counted[v]:
                chain.append(v)
            v = int(next_threshold[v])
        if len(chain) >= 2:
            chains.append(np.array(chain))
    return chains


def _chain_terms(true: np.ndarray, seen: np.ndarray, a: float):
    """Per-test ``log_fail`` and ``log_pass`` terms (m, K) whose sums over a
    row's passed prefix give ``log P(bin | c)``: the bins' probabilities from
    the decreasing (isotonic) fit of the pass rates weighted by their counts,
    ``a / (m + 1)`` rows of smoothing per bin."""
    m, k = true.shape
    fail, passed = np.zeros((m, k)), np.zeros((m, k))
    for c in range(k):
        weights = seen[:, c]
        rates = np.divide(true[:, c], weights, out=np.zeros(m), where=weights > 0)
        fit = np.zeros(m)
        kept = weights > 0
        if kept.any():
            isotonic = IsotonicRegression(increasing=False)
            fit[kept] = isotonic.fit_transform(
                np.flatnonzero(kept), rates[kept], sample_weight=weights[kept]
            )
        # A test without weight takes the fit of the next one with weight.
        for i in range(m - 2, -1, -1):
            if not kept[i]:
                fit[i] = fit[i + 1]
        largest = weights.max()
        bins = -np.diff(np.concatenate(([1.0], fit, [0.0])))
        log_bin = np.log((bins * largest + a / (m + 1)) / (largest + a))
        fail[0, c] = log_bin[0]  # base: bin 0; test i's odds: bin i over i - 1
        passed[:, c] = log_bin[1:] - log_bin[:-1] + fail[:, c]
    return fail, passed


def _scaled(marginals: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Rows of ``marginals`` normalised to sum to ``w``."""
    sums = marginals.sum(axis=1, keepdims=True)
    return marginals * (w[:, None] / np.where(sums > 0.0, sums, 1.0))


def _others(weights: np.ndarray, total: float, columns: np.ndarray) -> np.ndarray:
    """``total - weights[columns]`` without cancellation when one holds it all.

    As in the sampler: when a content holds nearly all the weight, the rest is
    summed directly, so that it is exactly 0 when that content holds all.
    """
    q = total - weights[columns]
    for i in np.flatnonzero(q <= 1e-9 * total):
        c = columns[i]
        q[i] = float(weights[:c].sum() + weights[c + 1 :].sum())
    return q
