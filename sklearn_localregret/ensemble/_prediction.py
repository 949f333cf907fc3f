"""The forest's predictions: the members' probabilities, combined.

:class:`ForestPrediction` is the part of
:class:`~sklearn_localregret.LocalRegretForestClassifier` that predicts:
the members' probabilities of dense blocks of rows (in threads for large
blocks), and per row an expert of the combination picked with a uniform of
the row: its class (:meth:`predict`) and its probabilities
(:meth:`predict_proba`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._base import rounds
from .._base.concurrency import reads_model
from .._hedge import AdaHedge
from .._sparse_blocks import canonical_csr, nonzero_row_uniforms
from .._tree.wide_input import wide_chunk_rows
from ..engine.compiled.row_uniforms import row_uniforms
from ._combination import hedged_picks
from ._members import ForestMembers

__all__ = ["ForestPrediction"]

# Rows below which a prediction asks the members one after the other: a
# thread pool's hand-over costs more than a few rows' walks.
_PARALLEL_PREDICT_ROWS = 256


class ForestPrediction(ForestMembers):
    """Prediction of the forest (a mixin of
    :class:`~sklearn_localregret.LocalRegretForestClassifier`)."""

    # What prediction reads of the forest (set by its rounds).
    n_rounds_: int
    _hedge: AdaHedge
    _prediction_key: int
    _model_lock: Callable[[], threading.RLock]
    _validate_for_predict: Callable[[Any], np.ndarray]
    _root_posteriors: Callable[[np.ndarray], list]
    _accepts_sparse_blocks: bool

    def _dense_blocks(self, X):
        if self._accepts_sparse_blocks:  # a wide input: CSR, never dense
            X = canonical_csr(X, np.float64)
            chunk = wide_chunk_rows()
            for lo in range(0, X.shape[0], chunk):
                yield X[lo : lo + chunk]
            return
        chunk = rounds.chunk_rows(X.shape[1])  # read here: tests shrink it
        for lo in range(0, X.shape[0], chunk):
            block = X[lo : lo + chunk]
            if sp.issparse(block):
                block = block.toarray()
            yield np.ascontiguousarray(block, dtype=np.float64)

    def _member_probas(self, block: np.ndarray) -> np.ndarray:
        """The members' probabilities of the rows: (n_members, n_rows, n_classes)."""

        def proba(k: int) -> np.ndarray:
            if not self._fitted(k):
                return self._fresh_record(block.shape[0])[0]
            columns = self._columns_of(block, k)
            # Validated by the forest: the members' own walk, no checks.
            return self.estimators_[k]._predict_proba_checked(columns)

        n = block.shape[0] if block.shape[0] >= _PARALLEL_PREDICT_ROWS else 1
        return np.stack(self._map_members(proba, n))

    @reads_model
    def predict_proba(self, X):
        """Class probabilities of the expert that predicts each row.

        While the vote carries all the weight, the members' mean probability
        (its first most probable class is the vote). Otherwise the row's
        uniform picks an expert as :meth:`predict` does, and the row gets that
        expert's probabilities: the members' mean for the vote, a member's
        own, a root expert's posterior. So :meth:`predict` is the most
        probable class but where a member's play draws another, as for a
        tree's play.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return self._predict_proba_checked(self._validate_for_predict(X))

    def _predict_proba_checked(self, X) -> np.ndarray:
        out = [proba for _, proba in self._hedged_blocks(X)]
        return out[0] if len(out) == 1 else np.vstack(out)

    @reads_model
    def predict(self, X):
        """Classes drawn from the combination: the vote while it leads.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        return self.classes_[self._predicted_indices(X)]

    def _predicted_indices(self, X) -> np.ndarray:
        out = [classes for classes, _ in self._hedged_blocks(X)]
        return out[0] if len(out) == 1 else np.concatenate(out)

    def _hedged_blocks(self, X):
        """Per block of rows, their classes under the combination and the
        probabilities of the expert that made each (:func:`hedged_picks`):
        the members' mean and its first most probable class, the vote, while
        the vote carries all the weight."""
        check_is_fitted(self)
        for block in self._dense_blocks(X):
            with self._model_lock():
                probas = self._member_probas(block)
                weights = self._hedge.weights()
                leads = weights[0] >= 1.0
                votes = np.array(
                    [
                        m._vote_weight() if self._fitted(k) else 1.0
                        for k, m in enumerate(self.estimators_)
                    ]
                )
                key = self._prediction_key ^ (self.n_rounds_ * 0x9E3779B97F4A7C15)
                roots = [] if leads else self._root_posteriors(block)
            if leads:
                mean = probas.mean(axis=0)
                yield np.argmax(mean, axis=1), mean
                continue
            if sp.issparse(block):
                uniforms = nonzero_row_uniforms(block, key)
            else:
                uniforms = row_uniforms(block, key)
            yield hedged_picks(probas, votes, weights, roots, uniforms)
