"""Prediction from pi: the vote, the draw, their hedge, the last prediction.

:class:`HedgedPrediction` is the part of
:class:`~sklearn_localregret._base.BaseLocalRegretClassifier` that predicts:
``predict_proba`` block by block under the model lock, ``predict`` as the
vote, a draw keyed by the row, or AdaHedge's mix of the two (scored on
every round before it is learnt), and the memory of the last small
prediction, for the round that learns the same rows (test-then-train).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._hedge import hedged_classes
from .._sparse_blocks import canonical_csr, sparse_row_uniforms
from ..engine.compiled.row_uniforms import row_uniforms
from . import rounds

__all__ = ["REMEMBERED_ROWS", "HedgedPrediction", "same_rows"]

# A prediction of at most this many rows is remembered for the hedge's score
# of the round that learns them (test-then-train loops).
REMEMBERED_ROWS = 64


def same_rows(block: np.ndarray, rows: np.ndarray) -> bool:
    """Whether ``rows`` are the first rows of a remembered ``block`` (same
    width and dtype, missing values equal)."""
    n = rows.shape[0]
    if (
        block.shape[0] < n
        or block.shape[1:] != rows.shape[1:]
        or block.dtype != rows.dtype
    ):
        return False
    # The common case first (no missing value): one comparison, no copies.
    return bool((block[:n] == rows).all()) or (
        rows.dtype.kind == "f" and np.array_equal(block[:n], rows, equal_nan=True)
    )


class HedgedPrediction:
    """Prediction from pi and the hedge of the vote and the play (a mixin of
    the local regret classifiers' base)."""

    # What prediction reads of the estimator (parameters, the fitted state,
    # the base's locks and hooks).
    prediction: Any
    regret: Any
    classes_: Any
    n_rounds_: Any
    n_samples_seen_: Any
    _hedge: Any
    _prediction_key: Any
    _model_lock: Any
    _blas_context: Any
    _predict_proba_encoded: Any
    _block_dtype: Any

    def _prediction_rule(self) -> str:
        """``prediction`` with ``"auto"`` resolved (:meth:`_auto_prediction`)."""
        if self.prediction == "auto":
            return self._auto_prediction()
        return self.prediction

    def _auto_prediction(self) -> str:
        """What ``prediction="auto"`` means: the hedge for external regret;
        the vote for swap regret, whose exact distribution can hold thousands
        of hypotheses, so that scoring every round would cost a whole
        prediction over them."""
        return "vote" if self.regret == "swap" else "hedge"

    def _hedging(self) -> bool:
        return self._prediction_rule() == "hedge"

    # -- the last prediction, for the round that learns the same rows ------
    def _proba_version(self) -> tuple:
        """What ``predict_proba`` depends on besides the rows: the rounds
        learnt and (subclasses) the parameters of the prediction walk."""
        return (self.n_rounds_, self.n_samples_seen_)

    def _remember_proba(self, version: tuple, block: np.ndarray, proba) -> None:
        """Keep a small block's probabilities: a test-then-train loop learns
        the rows it just predicted, and the hedge scores them (the cache
        saves that second walk). ``version`` is read under the model lock,
        with the walk: the probabilities are those of that version."""
        memory = self.__dict__.get("_last_proba")
        if (
            memory is not None
            and block.shape[0] <= REMEMBERED_ROWS
            and isinstance(block, np.ndarray)  # not sparse
            and self._hedging()
        ):
            memory[0] = (version, block.copy(), proba.copy())

    def _remembered_proba(self, rows: np.ndarray) -> np.ndarray | None:
        """``pi``'s probabilities of a round's rows (``_block_dtype``) if the
        last prediction was of these rows (its first ones) under this very
        model, else None."""
        memory = getattr(self, "_last_proba", None)
        last = None if memory is None else memory[0]
        if last is None or sp.issparse(rows):
            return None
        version, block, proba = last
        if same_rows(block, rows) and version == self._proba_version():
            return proba[: rows.shape[0]]
        return None

    def _score_predictions(
        self, proba: np.ndarray, y: np.ndarray, weight, model_labels=None
    ) -> None:
        """Add a round's losses of the vote and the play to the hedge.

        ``proba`` are the round's class probabilities under ``pi`` before the
        round was learnt; the vote's loss is the weight of the rows whose most
        probable class is wrong, the play's the expected weight of the rows a
        class drawn from ``proba`` gets wrong. A hedge with a third expert
        (:meth:`_model_expert_labels`) is given ``model_labels``, that
        expert's class indices of the rows, and its loss too.
        """
        if len(y) == 1:  # a one-row round (streaming): plain floats
            w, label, row = float(weight[0]), int(y[0]), proba[0]
            vote_wrong = w * float(int(row.argmax()) != label)
            play_wrong = w * (1.0 - float(row[label]))
        else:
            rows = np.arange(len(y))
            vote_wrong = float(weight @ (np.argmax(proba, axis=1) != y))
            play_wrong = float(weight @ (1.0 - proba[rows, y]))
        # A forest scores its members on the same rounds (ensemble/_forest.py).
        recorder = self.__dict__.get("_round_recorder")
        if recorder is not None:
            recorder(proba, self._hedge.weight(0))
        if model_labels is None:
            self._hedge.update((vote_wrong, play_wrong))
        else:
            model_wrong = float(weight @ (model_labels != y))
            self._hedge.update((vote_wrong, play_wrong, model_wrong))

    @property
    def vote_weight_(self) -> float:
        """Probability that :meth:`predict` gives the vote.

        AdaHedge's weight of the vote against the play, from their losses on
        the rounds learnt while hedging: 1 for the vote, 0 for
        ``"sample"``.
        """
        check_is_fitted(self)
        return self._vote_weight()

    def _model_weight(self) -> float:
        """The hedge's weight of its third expert, a model (0 without one)."""
        if self._prediction_rule() != "hedge" or self._hedge.n_experts < 3:
            return 0.0
        return self._hedge.weight(2)

    @staticmethod
    def _row_uniforms(block, key: int) -> np.ndarray:
        if sp.issparse(block):
            return sparse_row_uniforms(block, key)
        return row_uniforms(block, key)

    def _model_expert_part(self, block, uniforms, vote_weight: float) -> tuple:
        """The model expert's weight and its labels of the rows whose uniform
        picks it (the others' labels are never read: 0), or ``(0.0, None)``."""
        model_weight = self._model_weight()
        if model_weight <= 0.0:
            return 0.0, None
        if uniforms.shape[0] == 1:  # one row (streaming): plain floats
            u = float(uniforms[0])
            if vote_weight <= u < vote_weight + model_weight:
                return model_weight, self._model_expert_labels(block)
            return model_weight, np.zeros(1, dtype=np.int64)
        picks = (uniforms >= vote_weight) & (uniforms < vote_weight + model_weight)
        labels = np.zeros(uniforms.shape[0], dtype=np.int64)
        if picks.all():
            labels[:] = self._model_expert_labels(block)
        elif picks.any():
            labels[picks] = self._model_expert_labels(block[picks])
        return model_weight, labels

    def _model_expert_labels(self, block) -> np.ndarray:
        """The model expert's class indices of a block of encoded rows
        (learners whose hedge has a third expert)."""
        raise NotImplementedError

    def _vote_weight(self) -> float:
        rule = self._prediction_rule()
        if rule == "vote":
            return 1.0
        if rule == "sample":
            return 0.0
        return self._hedge.weight(0)

    @property
    def hedge_regret_bound_(self) -> float:
        """Bound on the hedged predictions' expected mistakes beyond the best
        of their experts (the vote, the play and, for trees whose sites keep
        models, the root model), over the rounds learnt so far (``2 Delta``;
        see the user guide, "The hedged prediction").

        In the units of the mistake counts (sample weight); 0 when nothing
        was learnt while hedging.
        """
        check_is_fitted(self)
        return self._hedge.regret_bound

    def predict_proba(self, X):
        """Probability of each class under the current distribution pi over models.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return self._predict_proba_checked(self._validate_for_predict(X))

    def _row_blocks(self, X):
        """Encoded rows (dense or sparse) that passed validation, as dense
        ``_block_dtype`` blocks of a bounded number of rows (canonical CSR
        blocks for sparse ``X`` if ``_accepts_sparse_blocks``)."""
        if X.shape[0] == 1 and not sp.issparse(X):
            yield np.asarray(X, dtype=self._block_dtype)
            return
        if sp.issparse(X) and self._accepts_sparse_blocks:
            X = canonical_csr(X, self._block_dtype)
            for start in range(0, X.shape[0], rounds.DENSE_CHUNK_ROWS):
                yield X[start : start + rounds.DENSE_CHUNK_ROWS]
            return
        itemsize = max(X.dtype.itemsize, np.dtype(self._block_dtype).itemsize)
        chunk = rounds.chunk_rows(X.shape[1], itemsize)
        for start in range(0, X.shape[0], chunk):
            block = X[start : start + chunk]
            if sp.issparse(block):
                block = block.toarray()
            yield np.asarray(block, dtype=self._block_dtype)

    def _predict_proba_checked(self, X) -> np.ndarray:
        """:meth:`predict_proba` of encoded rows that passed validation."""
        if isinstance(X, np.ndarray) and 0 < X.shape[0] <= rounds.DENSE_CHUNK_ROWS:
            # One block, as _row_blocks gives it (a streaming call: its
            # generator and list cost a fifth of a row's prediction).
            return self._block_proba(np.asarray(X, dtype=self._block_dtype))
        out = [self._block_proba(block) for block in self._row_blocks(X)]
        if not out:
            return np.zeros((0, len(self.classes_)))
        return out[0] if len(out) == 1 else np.vstack(out)

    def _block_proba(self, block) -> np.ndarray:
        """:meth:`predict_proba` of one block of :meth:`_row_blocks`."""
        with self._model_lock(), self._blas_context():
            version = self._proba_version()
            proba = self._predict_proba_encoded(block)
        self._remember_proba(version, block, proba)
        return proba

    def predict(self, X):
        """Predicted classes: the hedge of the vote and the play by default.

        With ``prediction="vote"``, the most probable class under ``pi``. With
        ``"sample"``, a class drawn from ``pi``'s probabilities of the row, as
        the randomised plays predict. With ``"hedge"`` (the default with
        external regret: ``prediction="auto"``), the vote
        with probability :attr:`vote_weight_`, the tree's root model with
        its weight (trees whose sites keep models), else the draw: AdaHedge's
        weights from the predictions' losses on the stream, so that it is
        never much worse than the best of them (the user guide derives the
        bound, :attr:`hedge_regret_bound_`). A draw's uniform is a function of
        the row, ``random_state`` and ``n_rounds_``: a fitted model predicts a
        row the same alone, in any batch and at every call.

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
        """Indices into ``classes_`` that :meth:`predict` gives for encoded
        rows (dense or sparse) that passed validation."""
        if "classes_" not in self.__dict__:  # (scikit-learn's check is slow)
            check_is_fitted(self)
        out = []
        for block in self._row_blocks(X):
            with self._model_lock(), self._blas_context():
                # The weights, the draws' key and pi of the same complete round.
                vote_weight = self._vote_weight()  # fitting checked above
                key = self._prediction_key ^ (self.n_rounds_ * 0x9E3779B97F4A7C15)
                version = self._proba_version()
                proba = self._predict_proba_encoded(block)
                if vote_weight < 1.0:
                    uniforms = self._row_uniforms(block, key)
                    model_weight, labels = self._model_expert_part(
                        block, uniforms, vote_weight
                    )
            self._remember_proba(version, block, proba)
            if vote_weight >= 1.0:
                out.append(np.argmax(proba, axis=1))
            else:
                out.append(
                    hedged_classes(proba, vote_weight, uniforms, labels, model_weight)
                )
        if not out:
            return np.zeros(0, dtype=np.intp)
        return out[0] if len(out) == 1 else np.concatenate(out)
