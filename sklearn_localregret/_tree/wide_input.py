"""Wide input: the tree reads a bounded number of columns, admitted by evidence."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._base import rounds
from .._sparse_blocks import canonical_csr
from ..thresholds import (
    AdmittedColumns,
    FixedThresholds,
    QuantileThresholds,
    ThresholdSource,
)

__all__ = ["WIDE_COLUMNS", "WIDE_SLOTS", "WideInput", "is_wide", "wide_chunk_rows"]

# Inputs of more numeric columns than WIDE_COLUMNS are read through at most
# WIDE_SLOTS columns (AdmittedColumns); narrower ones give every column its
# thresholds. A site holds about 8 T (3K + 4) bytes for T tests (with model
# reads): 80 KiB at 1,024 tests and 2 classes, and hashed text grows about a
# site every 3-5 rows (measured ad hoc on bench_sparse_text.py's 5,000 rows:
# a peak of 0.45 GB with 1,024 slots, 1.15 GB with 2,048, 2.3 GB with 4,096).
WIDE_COLUMNS = 2**14
WIDE_SLOTS = 2**10


def is_wide(n_features: int, columns) -> bool:
    """Whether rows of ``n_features`` columns (``columns``: their encoder)
    are read through admitted columns: more than ``WIDE_COLUMNS``, none
    categorical."""
    return n_features > WIDE_COLUMNS and not columns.has_categories


def wide_chunk_rows() -> int:
    """Rows of a block of a wide input (its projection is a chunk)."""
    return rounds.chunk_rows(WIDE_SLOTS, 8)


class WideInput:
    """The tree's side of wide input (a mixin of
    :class:`~sklearn_localregret.LocalRegretTreeClassifier`): choosing the
    threshold source, and reading rows through the admitted columns
    (:class:`~sklearn_localregret.thresholds.AdmittedColumns`; the user
    guide, "Wide input"). Every part of the tree (tests, recent rows, root
    models, predictions) reads the projected rows; sparse input is projected
    a block at a time, never densified at its width."""

    binarize: Any
    max_thresholds: Any
    _accepts_sparse_blocks: bool
    batch_size: Any
    n_samples_seen_: int
    _columns: Any
    _refined_features: Any
    _play_block_rounds: Any

    def _threshold_source(
        self, n_features: int, n_classes: int
    ) -> tuple[ThresholdSource, int]:
        """The source of the tests and the width of the rows the model reads:
        ``n_features``, or the slots of a wide input's admitted columns."""
        # Sparse rows of a wide input reach the rounds as CSR (projected here).
        self._accepts_sparse_blocks = is_wide(n_features, self._columns)
        if self._accepts_sparse_blocks:
            threshold = 0.0 if self.binarize is None else self.binarize
            source = AdmittedColumns(n_features, n_classes, WIDE_SLOTS, threshold)
            return source, WIDE_SLOTS
        if self.binarize is not None:
            return FixedThresholds(self.binarize), n_features
        refined = self._refined_features(n_features)
        # A forest's member places its levels by its own seed (its forest
        # sets it; a tree alone keeps the even levels).
        level_seed = self.__dict__.get("_threshold_level_seed")
        quantiles = QuantileThresholds(
            self.max_thresholds, refined_features=refined, level_seed=level_seed
        )
        return quantiles, n_features

    def _wide_columns(self) -> AdmittedColumns | None:
        """The admitted columns a wide input is read through (None: the rows
        are read as they are)."""
        tests = self.__dict__.get("_tests")
        source = None if tests is None else tests.source
        return source if isinstance(source, AdmittedColumns) else None

    def _dense_width(self, X) -> int:
        # What a sparse block is densified to: the slots.
        wide = self._wide_columns()
        if wide is None or not sp.issparse(X):
            return X.shape[1]
        return wide.n_slots

    def _play_rounds(self, X, y, weight) -> None:
        """The rounds of a block, wide input projected onto the admitted
        columns, with admissions between rounds at the checkpoints."""
        wide = self._wide_columns()
        if wide is None:
            self._play_block_rounds(X, y, weight)
            return
        batch, lo = self.batch_size, 0
        while lo < X.shape[0]:
            with self._model_lock():  # readers project with the slots they read
                wide.admit_if_due()
            ahead = wide.rows_to_checkpoint()
            hi = X.shape[0]
            if ahead is not None:  # up to the round at the checkpoint
                hi = min(hi, lo + batch * max(1, -(-ahead // batch)))
            rows, seen = X[lo:hi], self.n_samples_seen_
            try:
                self._play_block_rounds(wide.project(rows), y[lo:hi], weight[lo:hi])
            finally:  # the evidence of the rounds played (all, or up to a Ctrl-C)
                done = lo + self.n_samples_seen_ - seen
                wide.learn(X[lo:done], y[lo:done], weight[lo:done])
            lo = hi

    def _row_blocks(self, X):
        wide = self._wide_columns()
        if wide is None:
            yield from super()._row_blocks(X)
            return
        if sp.issparse(X):
            X = canonical_csr(X, np.float64)
        chunk = wide_chunk_rows()
        for start in range(0, X.shape[0], chunk):
            # Projected and predicted under one hold of the model lock (the
            # reader's re-entry is its own): a learning thread admits no
            # column in between, so a block is read with the slots of the
            # model that predicts it.
            with self._model_lock():
                yield wide.project(X[start : start + chunk])

    def _predict_proba_checked(self, X, experts: bool = True) -> np.ndarray:
        if self._wide_columns() is None:
            return super()._predict_proba_checked(X, experts)  # type: ignore[misc]
        out = [self._block_proba(block, experts) for block in self._row_blocks(X)]
        if not out:
            return np.zeros((0, len(self.classes_)))
        return out[0] if len(out) == 1 else np.vstack(out)

    def _test_columns(self) -> np.ndarray:
        """The input column each test reads."""
        features = self._tests.feature
        wide = self._wide_columns()
        return features if wide is None else wide.columns[features]

    _tests: Any
    classes_: Any
    _block_proba: Any
    _model_lock: Any
