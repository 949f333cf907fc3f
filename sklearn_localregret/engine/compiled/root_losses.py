"""A round's losses of the tree's root models, in one compiled pass.

The hedge scores each root model on every round before the round is learnt:
the weight of the rows whose class, the first most probable under the
model's posterior, is wrong. The posteriors are those
:func:`~.leaf_model.model_posteriors`, :func:`~.gaussian_nb.gaussian_posteriors`
and :func:`~.passive_aggressive.pa_posteriors` give ``predict_proba`` (the
same kernels, so the same classes ``predict`` gives); one call instead of a
dozen numpy calls a round, which a stream of short calls pays every row.
"""

from __future__ import annotations

import numpy as np

from .gaussian_nb import gaussian_posteriors
from .jit import kernel
from .leaf_model import model_posteriors
from .passive_aggressive import pa_posteriors

__all__ = ["MODEL", "GAUSSIAN", "LINEAR", "root_model_losses"]

# The root models, by code (the order of ``experts`` is the hedge's).
MODEL, GAUSSIAN, LINEAR = 0, 1, 2


@kernel
def _mistakes(posterior, y, w) -> float:
    """Weight of the rows whose first most probable class is not ``y``."""
    wrong = 0.0
    for i in range(posterior.shape[0]):
        best = 0
        for c in range(1, posterior.shape[1]):
            if posterior[i, c] > posterior[i, best]:
                best = c
        if best != y[i]:
            wrong += w[i]
    return wrong


@kernel
def root_model_losses(
    experts,
    odds,
    base,
    root,
    outcomes,
    n_tests,
    gaussian,
    linear,
    X,
    columns,
    X_linear,
    columns_linear,
    y,
    w,
    out,
) -> None:
    """``out[e]``: the round's loss of root model ``experts[e]`` on rows
    ``X`` (test ``outcomes``) of class indices ``y`` at weights ``w``.
    ``MODEL``: the naive Bayes model at table row ``root`` (class 0 for every
    row if ``root`` < 0, before the root has a site); ``GAUSSIAN``:
    ``gaussian`` = its weight, count, total and squares; ``LINEAR``:
    ``linear`` = its coef, intercept, count, total and squares. ``columns``:
    the columns the Gaussian model reads; ``X_linear`` and
    ``columns_linear``: the linear model's inputs (categorical columns
    one-hot: :meth:`~sklearn_localregret._tree.root_linear.RootLinear.inputs`)."""
    n_classes = linear[0].shape[0]
    posterior = np.empty((X.shape[0], n_classes))
    for e in range(min(experts.shape[0], out.shape[0])):
        code = experts[e]
        if code == MODEL and root < 0:
            posterior[:, :] = 1.0 / n_classes
        elif code == MODEL:
            model_posteriors(odds, base, root, outcomes, n_tests, posterior)
        elif code == GAUSSIAN:
            weight, count, total, squares = gaussian
            gaussian_posteriors(weight, count, total, squares, X, columns, posterior)
        else:
            coef, intercept, count, total, squares = linear
            pa_posteriors(
                coef,
                intercept,
                count,
                total,
                squares,
                X_linear,
                columns_linear,
                posterior,
            )
        out[e] = _mistakes(posterior, y, w)
