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

from .._sparse_blocks import canonical_csr, nonzero_row_uniforms, sparse_row_uniforms
from ..engine.compiled.row_uniforms import row_uniforms
from . import rounds
from .concurrency import reads_model
from .hedge_draws import hedge_block

__all__ = ["REMEMBERED_ROWS", "WIDE_ROW_HASH", "HedgedPrediction", "same_rows"]

# A prediction of at most this many rows (a streaming call's) is remembered
# for the hedge's score of the call that learns them (test-then-train loops).
REMEMBERED_ROWS = rounds.STREAMING_CALL_ROWS

# Rows wider than this (the tree's wide input, hashed text) draw their
# uniforms from their nonzeros (O(nonzeros) a row), dense or sparse alike;
# narrower ones from every byte of their row (the same hash dense or sparse).
WIDE_ROW_HASH = 2**14


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
        # The version first: it is a tuple of a few numbers, and a call's
        # later rounds (which never match) already differ in it.
        if version == self._proba_version() and same_rows(block, rows):
            return proba[: rows.shape[0]]
        return None

    def _score_predictions(
        self, proba: np.ndarray, y: np.ndarray, weight, expert_losses=None
    ) -> None:
        """Add a round's losses of the vote and the play to the hedge.

        ``proba`` are the round's class probabilities under ``pi`` before the
        round was learnt; the vote's loss is the weight of the rows whose most
        probable class is wrong, the play's the expected weight of the rows a
        class drawn from ``proba`` gets wrong. A hedge with further experts
        (the tree's root models) is given ``expert_losses``, theirs (the
        weight of the rows their class gets wrong, as the vote's).
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
        if expert_losses is None:
            self._hedge.update((vote_wrong, play_wrong))
        else:
            self._hedge.update((vote_wrong, play_wrong, *expert_losses))

    @property
    def vote_weight_(self) -> float:
        """Probability that :meth:`predict` gives the vote.

        AdaHedge's weight of the vote against the play, from their losses on
        the rounds learnt while hedging: 1 for the vote, 0 for
        ``"sample"``.
        """
        check_is_fitted(self)
        return self._vote_weight()

    def _expert_weights(self) -> list[float]:
        """The hedge's weights of its experts after the vote and the play (the
        tree's root models, the disjunct learner's linear model)."""
        n = self._hedge.n_experts
        if n < 3 or self._prediction_rule() != "hedge":
            return []
        return [self._hedge.weight(k) for k in range(2, n)]

    @staticmethod
    def _row_uniforms(block, key: int) -> np.ndarray:
        if block.shape[1] > WIDE_ROW_HASH:  # its nonzeros, dense or sparse:
            # the hash of a row's every word costs its width (2**20 columns:
            # 0.7 ms a row of hashed text)
            return nonzero_row_uniforms(canonical_csr(block, np.float64), key)
        if sp.issparse(block):
            return sparse_row_uniforms(block, key)
        return row_uniforms(block, key)

    def _expert_labels(self, k: int, block) -> np.ndarray:
        """Further expert ``k``'s class indices of a block of encoded rows
        (learners whose hedge has more than two experts)."""
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
        of their experts (the vote, the play and, for trees, the root
        models; for disjunctions, the linear model), over the rounds learnt
        so far (``2 Delta``; against the play, beyond its loss plus the
        handicap it starts with, ``PLAY_HANDICAP`` = 10 rows; see the user
        guide, "The hedged prediction").

        In the units of the mistake counts (sample weight); 0 when nothing
        was learnt while hedging.
        """
        check_is_fitted(self)
        return self._hedge.regret_bound

    @reads_model
    def predict_proba(self, X):
        """Probability of each class under the current distribution pi over models.

        Where the hedged :meth:`predict` weighs further experts (a tree's
        root models: :attr:`model_weight_`, :attr:`gaussian_weight_`,
        :attr:`linear_weight_`; the disjunct learner's linear model), a row
        whose draw picks one of them gets that model's posterior instead, so
        that :meth:`predict` stays the most probable class but where the
        play draws another; :meth:`pi_proba` gives ``pi``'s alone.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return self._predict_proba_checked(self._validate_for_predict(X))

    @reads_model
    def pi_proba(self, X):
        """Probability of each class under the current distribution pi.

        What the vote and the play predict from (for trees: exact, or within
        ``predict_tolerance``, or from ``n_predict_trees`` draws, as set).
        :meth:`predict_proba` gives these too, except for the rows whose
        hedged prediction a further expert makes (the tree's root models,
        the disjunct learner's linear model): there it gives that
        expert's posterior.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret import LocalRegretTreeClassifier
        >>> X = np.array([[0.0], [1.0]] * 20)
        >>> y = np.array([0, 1] * 20)
        >>> tree = LocalRegretTreeClassifier(random_state=0).fit(X, y)
        >>> tree.pi_proba([[1.0]]).shape
        (1, 2)
        """
        return self._predict_proba_checked(self._validate_for_predict(X), False)

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

    def _predict_proba_checked(self, X, experts: bool = True) -> np.ndarray:
        """:meth:`predict_proba` of encoded rows that passed validation
        (``pi``'s probabilities alone if not ``experts``)."""
        if isinstance(X, np.ndarray) and 0 < X.shape[0] <= rounds.DENSE_CHUNK_ROWS:
            # One block, as _row_blocks gives it (a streaming call: its
            # generator and list cost a fifth of a row's prediction).
            block = np.asarray(X, dtype=self._block_dtype)
            return self._block_proba(block, experts)
        out = [self._block_proba(block, experts) for block in self._row_blocks(X)]
        if not out:
            return np.zeros((0, len(self.classes_)))
        return out[0] if len(out) == 1 else np.vstack(out)

    def _block_proba(self, block, experts: bool = True) -> np.ndarray:
        """:meth:`predict_proba` of one block of :meth:`_row_blocks`."""
        with self._model_lock(), self._blas_context():
            version = self._proba_version()
            proba = self._predict_proba_encoded(block)
            mixed = self._mixed_proba(block, proba) if experts else proba
        self._remember_proba(version, block, proba)
        return mixed

    def _draw_key(self) -> int:
        """The key of the rows' uniforms (:meth:`_row_uniforms`): a function
        of ``random_state`` and the rounds learnt (read under the model lock)."""
        return self._prediction_key ^ (self.n_rounds_ * 0x9E3779B97F4A7C15)

    def _mixed_proba(self, block, proba: np.ndarray) -> np.ndarray:
        """The class probabilities of the expert that predicts each row: the
        row's uniform (the one :meth:`predict` reads) picks the vote, a
        further expert or the play (:meth:`_expert_rows`); the vote and the
        play predict from ``pi`` (``proba``), a further expert from its own
        posterior. So :meth:`predict` is the argmax of these probabilities
        except where the play draws a less probable class, as with
        ``prediction="sample"``."""
        vote_weight = self._vote_weight()
        if vote_weight >= 1.0 or not any(w > 0.0 for w in self._expert_weights()):
            return proba
        experts, picked = self._expert_rows(block, proba, vote_weight)
        out = proba
        for k, count in enumerate(picked):
            if count == proba.shape[0]:
                return self._expert_proba(k, block)
            if count:
                rows = experts == -1 - k
                out = proba.copy() if out is proba else out
                out[rows] = self._expert_proba(k, block[rows])
        return out

    def _expert_proba(self, k: int, block) -> np.ndarray:
        """Further expert ``k``'s class probabilities of a block of encoded
        rows (learners whose hedge has more than two experts)."""
        raise NotImplementedError

    @reads_model
    def predict(self, X):
        """Predicted classes: the hedge of the vote and the play by default.

        With ``prediction="vote"``, the most probable class under ``pi``. With
        ``"sample"``, a class drawn from ``pi``'s probabilities of the row, as
        the randomised plays predict. With ``"hedge"`` (the default with
        external regret: ``prediction="auto"``), the vote with probability
        :attr:`vote_weight_`, each further expert with its weight (the
        tree's root models: :attr:`model_weight_`, :attr:`gaussian_weight_`,
        :attr:`linear_weight_`; the disjunct learner's linear model:
        :attr:`linear_weight_`), else the draw: AdaHedge's weights from the
        predictions' losses on the stream, so that it is never much worse
        than the best of them (the user guide derives the bound,
        :attr:`hedge_regret_bound_`). A draw's uniform is a function of
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
                version = self._proba_version()
                proba = self._predict_proba_encoded(block)
                if vote_weight >= 1.0:
                    classes = np.argmax(proba, axis=1)
                else:
                    classes = self._hedged_block(block, proba, vote_weight)
            self._remember_proba(version, block, proba)
            out.append(classes)
        if not out:
            return np.zeros(0, dtype=np.intp)
        return out[0] if len(out) == 1 else np.concatenate(out)

    def _expert_rows(self, block, proba: np.ndarray, vote_weight: float) -> tuple:
        """Which expert predicts each row of a block (under the model lock):
        :func:`~sklearn_localregret._base.hedge_draws.hedge_block`'s classes of the vote
        and the play, ``-1 - k`` for further expert ``k``, and its counts."""
        weights = self._expert_weights()
        for k, weight in enumerate(weights):
            if weight >= 1.0:  # every row picks it: no uniforms needed
                picked = [0] * len(weights)
                picked[k] = proba.shape[0]
                return np.full(proba.shape[0], -1 - k), picked
        uniforms = self._row_uniforms(block, self._draw_key())
        return hedge_block(proba, vote_weight, weights, uniforms)

    def _hedged_block(self, block, proba: np.ndarray, vote_weight: float):
        """The hedged classes of a block (under the model lock), a further
        expert's computed for its rows only."""
        classes, picked = self._expert_rows(block, proba, vote_weight)
        for k, count in enumerate(picked):
            if count == classes.shape[0]:
                return self._expert_labels(k, block)
            if count:
                rows = classes == -1 - k
                classes[rows] = self._expert_labels(k, block[rows])
        return classes
