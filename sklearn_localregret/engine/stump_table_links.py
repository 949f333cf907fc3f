"""The links between a stump table's tests that its naive Bayes models read.

:class:`StumpTableLinks` is a mixin of
:class:`~sklearn_localregret.engine.StumpRegretTable`: per test, its
missing-value variant (:meth:`~StumpTableLinks.pair_missing_variants`) and
its column's next threshold (:meth:`~StumpTableLinks.chain_thresholds`),
which the compiled model cache reads
(:mod:`~sklearn_localregret.engine.compiled.leaf_model`). The regrets do
not depend on them; both are saved with the table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["StumpTableLinks"]


class StumpTableLinks:
    """Links between the tests of a stump table (a mixin of
    :class:`~sklearn_localregret.engine.StumpRegretTable`)."""

    _n_tests: int
    _missing_partner: np.ndarray
    _next_threshold: np.ndarray
    _seen: np.ndarray

    @property
    def models(self) -> bool:  # pragma: no cover - the table's
        raise NotImplementedError

    @property
    def n_rows(self) -> int:  # pragma: no cover - the table's
        raise NotImplementedError

    @property
    def missing_partners(self) -> np.ndarray:
        """Per test, the number of its threshold's ``x > t or missing``
        variant if it is the ``x > t`` test of such a pair, else -1
        (:meth:`pair_missing_variants`); what the kernels read."""
        return self._missing_partner

    def pair_missing_variants(self, partners) -> None:
        """Read the two variants of a threshold on a column with missing
        values, ``x > t`` (missing fails) and ``x > t or missing``, as one
        feature of the sites' naive Bayes models, which a row whose value is
        missing does not read
        (:func:`~sklearn_localregret.engine.compiled.leaf_model.refresh_leaf_model`).

        ``partners[v]`` is the number of the ``or missing`` variant of the
        ``x > t`` test ``v``, -1 where ``v`` is no such test (what
        :meth:`~sklearn_localregret.thresholds.ThresholdTests.missing_partners`
        gives). The regrets are not touched; when the pairs change, every
        site's cache is recomputed at the next refresh (tests enter rarely: a
        column's first missing value, new thresholds).
        """
        self._missing_partner = self._new_links(
            partners, self._missing_partner, "partner"
        )

    @property
    def next_thresholds(self) -> np.ndarray:
        """Per test, the next larger threshold of its column if both are
        read as one feature (:meth:`chain_thresholds`), else -1; what the
        kernels read."""
        return self._next_threshold

    def chain_thresholds(self, next_threshold) -> None:
        """Read the thresholds ``x > t_1``, ..., ``x > t_m`` of a column as
        one feature of the sites' naive Bayes models, the bin of ``x``
        between consecutive thresholds
        (:func:`~sklearn_localregret.engine.compiled.leaf_model.refresh_leaf_model`),
        instead of ``m`` features that would count the column ``m`` times.

        ``next_threshold[v]`` is the test of ``v``'s column with the next
        larger threshold, -1 where there is none (what
        :meth:`~sklearn_localregret.thresholds.ThresholdTests.next_thresholds`
        gives). As :meth:`pair_missing_variants`, the regrets are not
        touched, and a change recomputes every site's cache.
        """
        self._next_threshold = self._new_links(
            next_threshold, self._next_threshold, "next threshold", chains=True
        )

    def _new_links(
        self, links, old: np.ndarray, what: str, chains: bool = False
    ) -> np.ndarray:
        """Checked links between tests (one ``what`` per test, -1 or a
        test; ``chains``: each test named at most once, and no cycle); a
        change marks every model cache stale."""
        links = np.asarray(links, dtype=np.int64)
        if links.shape != (self._n_tests,):
            raise ValueError(f"one {what} per test is expected")
        if links.size and (links.max() >= self._n_tests or links.min() < -1):
            raise ValueError(f"a {what} outside the tests")
        named = links[links >= 0]
        if chains and (np.unique(named).size < named.size or _has_cycle(links)):
            raise ValueError(
                f"the {what}s make no chains (a test named twice, or a cycle)"
            )
        if old.shape == links.shape and np.array_equal(old, links):
            return old
        if self.models:  # the models of sites that counted the tests move
            self._seen[: self.n_rows] = -1
        return links.copy()


def _has_cycle(links: np.ndarray) -> bool:
    """Whether following ``links`` (each test named at most once) from the
    tests no other names leaves some linked test unvisited: a cycle."""
    named = np.zeros(links.size, dtype=bool)
    named[links[links >= 0]] = True
    visited = 0
    for head in np.flatnonzero((links >= 0) & ~named).tolist():
        v = head
        while v >= 0:
            visited += 1
            v = int(links[v])
    return visited < int(np.count_nonzero((links >= 0) | named))
