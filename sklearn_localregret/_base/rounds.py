"""The rounds of a call: chunks of whole rounds, the loop, the counters.

:class:`OnlineRounds` is the part of
:class:`~sklearn_localregret._base.BaseOnlineClassifier` that cuts a validated
call into rounds of ``batch_size`` rows (sparse input a bounded chunk at a
time), plays them through the learner's hooks, counts them as they complete
(``n_rounds_``, ``n_samples_seen_``, ``n_online_mistakes_``) and holds a
Ctrl-C back until the round in which it came is counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._interrupts import deferred_interrupt, deliver_held
from .._sparse_blocks import canonical_csr
from .concurrency import one_blas_thread, refitting

__all__ = [
    "DENSE_CHUNK_BYTES",
    "DENSE_CHUNK_ROWS",
    "STREAMING_CALL_ROWS",
    "OnlineRounds",
    "chunk_rows",
    "round_slices",
]

# Rows densified at a time from sparse input: bounds memory whatever the
# stream; and the bytes of one such chunk, whatever its width.
DENSE_CHUNK_ROWS = 4096
DENSE_CHUNK_BYTES = 32 * 2**20

#: The most rows of a streaming call: the hedge scores every round of such a
#: call on the experts' predictions before the call
#: (:meth:`OnlineRounds._call_predictions`).
STREAMING_CALL_ROWS = 64


def chunk_rows(n_features: int, itemsize: int = 8, batch: int = 1) -> int:
    """Rows a call densifies at a time: at most ``DENSE_CHUNK_ROWS`` and, for
    wide rows, ``DENSE_CHUNK_BYTES`` (4 rows of 2**20 sparse columns as
    floats, not 4,096 rows and 32 GiB), in whole rounds of ``batch`` rows,
    at least one round.

    Examples
    --------
    >>> chunk_rows(20), chunk_rows(2**20), chunk_rows(2**20, batch=5)
    (4096, 4, 5)
    """
    fit = DENSE_CHUNK_BYTES // max(1, int(n_features) * int(itemsize))
    rows = min(DENSE_CHUNK_ROWS, fit) // batch * batch
    return max(batch, rows)


def round_slices(n_rows: int, batch: int) -> list[slice]:
    """The rows of each round of a block of ``n_rows`` rows, in order."""
    return [slice(lo, lo + batch) for lo in range(0, n_rows, batch)]


class OnlineRounds:
    """The loop over rounds and its counters (a mixin of the classifiers' base)."""

    # What the loop reads of the estimator (the base's attributes and hooks).
    batch_size: Any
    _block_dtype: Any
    _accepts_sparse_blocks: Any
    n_rounds_: Any
    n_samples_seen_: Any
    n_online_mistakes_: Any
    _weight_seen: Any
    _model_lock: Any
    _encode_features: Any
    _play_round: Any
    _predict_proba_encoded: Any
    _remembered_proba: Any
    _score_predictions: Any

    def _learn(self, X, y, weight) -> None:
        """Play the rounds of one call, densifying sparse input a chunk at a time
        (or handing it on as CSR blocks: ``_accepts_sparse_blocks``).

        The counters move with the rounds (:meth:`_count_rounds`), so between
        two rounds they always describe the rounds learnt. A Ctrl-C (SIGINT)
        is held back until the round in which it came is counted (a bulk
        path's block of rounds counts as one), so an interrupted call leaves
        exactly the model of the rows learnt before it stopped
        (:mod:`sklearn_localregret._interrupts`).
        """
        columns = self.__dict__.pop("_next_columns", None)
        if columns is not None:
            # The call brings categories or types (_encode_columns): its
            # rounds add their tests. Readers see the model before the call
            # or after it, as across a refit: they wait, and one that coded
            # its rows before the new coding came in reads again.
            with self._model_lock(), refitting(self):
                self._columns = columns
                self._learn_call(X, y, weight)
            return
        self._learn_call(X, y, weight)

    def _learn_call(self, X, y, weight) -> None:
        """:meth:`_learn` with the call's column coding in place."""
        n_samples = X.shape[0]
        batch = self.batch_size
        # Chunks hold whole rounds so that round boundaries do not move.
        itemsize = max(X.dtype.itemsize, np.dtype(self._block_dtype).itemsize)
        chunk = chunk_rows(self._dense_width(X), itemsize, batch)
        sparse_blocks = sp.issparse(X) and self._accepts_sparse_blocks
        if sparse_blocks:
            X = canonical_csr(X, self._block_dtype)
        # Only a whole call learnt as one block may be a streaming call
        # (_call_predictions), never a chunk or a part of a larger call.
        whole = n_samples <= chunk
        self._whole_call_rows = n_samples if whole else 0
        try:
            self._learn_chunks(X, y, weight, chunk, sparse_blocks)
        finally:
            self.__dict__.pop("_whole_call_rows", None)

    def _learn_chunks(self, X, y, weight, chunk: int, sparse_blocks: bool) -> None:
        """The rounds of :meth:`_learn`, ``chunk`` rows at a time."""
        n_samples = X.shape[0]
        with deferred_interrupt() as interrupt:
            for start in range(0, n_samples, chunk):
                stop = min(start + chunk, n_samples)
                block = X[start:stop]
                if not sparse_blocks:
                    if sp.issparse(block):
                        block = block.toarray()
                    block = np.ascontiguousarray(block, dtype=self._block_dtype)
                rows = slice(start, stop)
                with self._blas_context():
                    self._play_rounds(block, y[rows], weight[rows])
                interrupt.deliver()

    def _dense_width(self, X) -> int:
        """Columns of the dense rows a block of ``X`` becomes (what bounds
        the rows of a chunk): its own, unless a learner reads it projected."""
        return X.shape[1]

    def _blas_context(self):
        """The context learning and predicting run in: BLAS on one thread
        (:func:`one_blas_thread`). A learner whose hot paths call no BLAS
        returns a context that does nothing (it saves ~10 us a call)."""
        return one_blas_thread()

    def _play_rounds(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> None:
        """Play consecutive rounds of ``batch_size`` rows (the last may be short).

        ``X`` is a dense block (``_block_dtype``, 0/1 by default) that starts on
        a round boundary. Each round is counted as soon as it is complete, so
        an exception raised between two rounds leaves the model of the rounds
        before it. Subclasses may override it with a faster loop that plays
        exactly the same rounds (and counts them, with :meth:`_count_rounds`).
        """
        batch = self.batch_size
        hedging = self._hedging()
        lock = self._model_lock()
        # A streaming call is scored as the one prediction a caller makes of it.
        given, given_losses = (
            self._call_predictions(X, y, weight) if hedging else (None, None)
        )
        for at, lo in enumerate(range(0, X.shape[0], batch)):
            hi = lo + batch
            with lock:  # readers in other threads see complete rounds
                if given is not None:
                    proba, extra = given[lo:hi], given_losses[at]
                elif hedging:  # the experts' predictions, before it is learnt
                    proba = self._remembered_proba(X[lo:hi])
                    if proba is None:
                        proba = self._predict_proba_encoded(X[lo:hi])
                    extra = self._expert_losses(X[lo:hi], y[lo:hi], weight[lo:hi])
                wrong = self._play_round(X[lo:hi], y[lo:hi], weight[lo:hi])
                if hedging:
                    self._score_predictions(proba, y[lo:hi], weight[lo:hi], extra)
                self._learn_experts(X[lo:hi], y[lo:hi], weight[lo:hi])
                self._count_rounds(weight[lo:hi], wrong)

    def _call_predictions(self, X, y, weight) -> tuple:
        """The experts' predictions of a streaming call's rows, made before
        the call: ``pi``'s probabilities and each round's further experts'
        losses; ``(None, None)`` unless the rows are a whole streaming call
        (:meth:`_streaming_call`; else round by round).

        A test-then-train caller predicts a call's rows, then learns them, so
        the predictions it gets are those of the model before the call, not
        those of the model after the call's earlier rounds. The hedge scores
        every round of a streaming call on the former: its weights are then
        those of the experts' predictions as :meth:`predict` gives them to
        such a caller, whatever the call's size against ``batch_size`` (the
        last prediction of these rows is remembered: no second walk).
        """
        if not self._streaming_call(X):
            return None, None
        batch = self.batch_size
        with self._model_lock():
            proba = self._remembered_proba(X)
            if proba is None:
                proba = self._predict_proba_encoded(X)
            losses = [
                self._expert_losses(X[r], y[r], weight[r])
                for r in round_slices(X.shape[0], batch)
            ]
        return proba, losses

    def _streaming_call(self, X) -> bool:
        """Whether rows ``X`` are a whole streaming call: more than one round,
        at most :data:`STREAMING_CALL_ROWS` rows, learnt as one block."""
        n = X.shape[0]
        whole = n == self.__dict__.get("_whole_call_rows", 0)
        return whole and self.batch_size < n <= STREAMING_CALL_ROWS

    def _expert_losses(self, X, y, weight) -> list | None:
        """The losses of the hedge's experts after the vote and the play on a
        round's rows, before it is learnt (None: it has no further expert)."""
        return None

    def _learn_experts(self, X, y, weight) -> None:
        """The hedge's further experts learn a round's rows (after the round)."""

    def _hedging(self) -> bool:
        """Whether the rounds score the vote and the play (the hedged predict)."""
        return False

    def _count_rounds(self, weight: np.ndarray, wrong: float) -> None:
        """Add complete rounds to the counters: their rows' ``weight`` (one per
        row, from a round boundary) and the weight their plays got wrong."""
        n = len(weight)
        self.n_online_mistakes_ += wrong
        self.n_rounds_ += -(-n // self.batch_size)
        self.n_samples_seen_ += n
        self._weight_seen += float(weight.sum())
        deliver_held()  # a Ctrl-C that came during these rounds acts here

    def _learn_clean_rows(self, X: np.ndarray, y_encoded: np.ndarray) -> None:
        """Learn rows that passed validation elsewhere (the River adapter's path).

        ``X`` is a float64 array of shape ``(n, n_features_in_)``, finite
        (NaN allowed for a learner that reads missing values) and through
        :meth:`_encode_columns`; ``y_encoded`` the rows' indices into
        ``classes_``, of a fitted model.
        The features are encoded first, so a learner of 0/1 features rejects
        other values before any state changes.
        """
        X = self._encode_features(X)
        self._learn(X, y_encoded, np.ones(X.shape[0]))

    @property
    def online_error_(self) -> float:
        """Weighted fraction of the rows the played models got wrong.

        ``n_online_mistakes_`` over the total sample weight seen (the number
        of rows when unweighted); 0 before any weight was seen.
        """
        check_is_fitted(self)
        if self._weight_seen <= 0:
            return 0.0
        return self.n_online_mistakes_ / self._weight_seen
