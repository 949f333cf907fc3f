"""The outcomes of the tests on a block of rows, compiled.

What :meth:`~sklearn_localregret.thresholds.ThresholdTests.outcomes` computes
with numpy (a gather of the tested columns, then a comparison per kind), in
one pass without temporaries: on a row or a round's rows numpy's per-call
cost, not the comparisons, is the time.
"""

from __future__ import annotations

import numpy as np

from ..engine.compiled.jit import kernel

__all__ = ["test_outcomes"]

# Kinds of test (catalog.py), as the kernel reads them from ``feature_kind =
# _N_KINDS * feature + kind``.
_GREATER_OR_MISSING, _EQUALS, _N_KINDS = 1, 2, 3


@kernel
def test_outcomes(X, feature_kind, threshold, out):
    """``out[r, v]``: whether row ``r`` of ``X`` passes test ``v``.

    ``x > t`` (a NaN fails), ``x > t or x is NaN``, or ``x == t`` on the
    code ``t`` of a category, by the kind in ``feature_kind[v]``
    (:attr:`~sklearn_localregret.thresholds.ThresholdTests.feature_kind`).
    """
    n_tests = min(out.shape[1], feature_kind.shape[0], threshold.shape[0])
    for r in range(min(X.shape[0], out.shape[0])):
        for v in range(n_tests):
            j, kind = divmod(feature_kind[v], _N_KINDS)
            value, t = X[r, j], threshold[v]
            if kind == _EQUALS:
                out[r, v] = value == t
            elif kind == _GREATER_OR_MISSING:
                out[r, v] = value > t or np.isnan(value)
            else:
                out[r, v] = value > t
