"""Validation of a call's input, and the fast paths that skip it.

:class:`StreamValidation` is the part of
:class:`~sklearn_localregret._base.BaseOnlineClassifier` that turns a call's
``X, y, classes, sample_weight`` into what the rounds read (class indices,
weights, encoded features) before any state changes, and the streaming
calls' shortcut: a plain numeric call that validation would pass through
unchanged goes straight to the rounds, anything else (bad input included)
takes the full validation, so errors are the same on either path.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import (
    _assert_all_finite,
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ..engine.compiled.row_checks import finite_enough
from .input_checks import (
    check_feature_dtypes,
    check_labels_present,
    check_weight_range,
    clear_input_errors,
    is_plain_stream_chunk,
    label_types,
    same_kind_labels,
    single_label,
    warn_if_binarize_collapses,
)

__all__ = ["StreamValidation"]

# The CSR types a one-row fast path takes as they are (other sparse formats
# take the full validation).
_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


def _series_values(y) -> np.ndarray | None:
    """A pandas Series of labels as ``check_X_y`` reads it (``np.asarray``
    of its values), None for anything else."""
    if not (hasattr(y, "to_numpy") and hasattr(y, "index")) or y.ndim != 1:
        return None
    return np.asarray(y)


class StreamValidation:
    """Input validation and its fast paths (a mixin of the classifiers' base)."""

    _check_loaded: Any

    # What validation reads of the estimator (the base's class attributes).
    _allow_nan: Any
    _reads_categories: Any
    _accepts_sparse_blocks: Any
    _block_dtype: Any

    def _clean_rows(self, X, y, classes, sample_weight):
        """The fast path of a streaming call: ``(X, y_encoded, weight)``.

        Taken when the full validation would pass the call through unchanged:
        a fitted model, ``X`` a plain numeric ndarray of shape
        ``(n, n_features_in_)`` with finite values (a model fitted without
        feature names), labels all in ``classes_``, ``classes`` absent or
        equal to ``classes_``, no ``sample_weight``. One row's label may come
        in a one-element array, list or tuple of any dtype (object included,
        as long as the label is a string, bytes or a real number); a chunk's
        labels in a 1-D ndarray of strings or numbers, of the kind of
        ``classes_``. Returns None otherwise: the call then takes the full
        validation, which raises the errors.
        """
        n_features = getattr(self, "n_features_in_", None)
        coded = None if sample_weight is not None else self._known_category_rows(X)
        if coded is not None:  # raw categories, every value coded already
            X = coded
        sparse = sample_weight is None and self._is_plain_sparse(X)
        if not sparse and (
            sample_weight is not None
            or type(X) is not np.ndarray
            or X.ndim != 2
            or X.shape[0] == 0
            or X.shape[1] != n_features
            or X.dtype.kind not in "biuf"
            or hasattr(self, "feature_names_in_")
        ):
            return None
        known = self.classes_
        one = X.shape[0] == 1
        if one:
            label = single_label(y)
            if label is None:
                return None
        elif not same_kind_labels(y, X.shape[0], known):
            return None
        if (
            coded is None  # (codes are finite)
            and not sparse
            and X.dtype.kind == "f"
            and not self._finite_enough(X)
        ):
            return None
        if coded is None and not self._numeric_rows_read_as_is():
            return None
        try:
            # The full path's encoding (searchsorted, then equality); a
            # comparison numpy refuses means the full path decides.
            if one:
                at = int(np.searchsorted(known, label))
                if at >= len(known) or not bool(known[at] == label):
                    return None
                index = np.array([at])
            else:
                index = np.searchsorted(known, y)
                if (index >= len(known)).any() or not bool(np.all(known[index] == y)):
                    return None
            if classes is not None and not np.array_equal(known, np.asarray(classes)):
                return None
        except (TypeError, ValueError):
            return None
        return self._encode_features(X), index, np.ones(X.shape[0])

    def _validate_stream(self, X, y, classes, sample_weight):
        """Validate one call's input before any state changes (see _partial_fit)."""
        first_call = getattr(self, "classes_", None) is None
        if not first_call:
            row = self._clean_rows(X, y, classes, sample_weight)
            if row is not None:
                return (*row, False)
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit."
                )
            with warnings.catch_warnings():
                # A list of classes is all distinct values: scikit-learn's
                # "could represent a regression problem" guess (over half
                # the samples unique) is about targets, not this list.
                warnings.filterwarnings(
                    "ignore", "The number of unique classes is greater than 50%"
                )
                check_classification_targets(classes)
            classes = unique_labels(classes)
            self._check_classes(classes)
        elif (
            classes is not None
            # Already the sorted unique labels (the usual case): same answer
            # as unique_labels, without its cost on every streaming call.
            and not np.array_equal(self.classes_, np.asarray(classes))
            and not np.array_equal(self.classes_, unique_labels(classes))
        ):
            raise ValueError(
                f"`classes={classes!r}` is not the same as on the first call to "
                f"partial_fit, which was {self.classes_!r}."
            )
        check_feature_dtypes(X, type(self).__name__, self._reads_categories)
        check_labels_present(y)
        named = False  # whether X was a frame whose names are checked here
        if not first_call:
            rows = self._frame_rows(X)
            labels = y if type(y) is np.ndarray else _series_values(y)
            if (
                rows is not None
                and labels is not None
                and labels.ndim == 1
                and labels.shape[0] == rows.shape[0]
                and labels.dtype.kind in "biuUSO"
            ):  # what is_plain_stream_chunk asks of labels (else: the frame)
                X, y, named = rows, labels, True
        # (a frame's rows as an array: its messages name the columns still)
        names = list(self.__dict__["feature_names_in_"]) if named else None
        X = self._encode_columns(X, learning=True, first_call=first_call, names=names)
        with clear_input_errors(self, X, names):
            if not first_call and is_plain_stream_chunk(X, y):
                # Streaming calls (River, dask-ml: one small chunk per call;
                # coded categories) would spend most of their time in
                # check_array; for a plain 2-D numeric ndarray its only
                # remaining check is finiteness, done here, and validate_data's
                # of the feature count and names, needed only when they differ.
                if X.dtype.kind == "f" and not self._finite_enough(X):
                    _assert_all_finite(
                        X,
                        allow_nan=self._allow_nan,
                        input_name="X",
                        estimator_name=type(self).__name__,
                    )
                if not self._plain_width(X, named):
                    X, y = validate_data(self, X, y, reset=False, skip_check_array=True)
            else:
                X, y = validate_data(
                    self,
                    X,
                    y,
                    reset=first_call,
                    accept_sparse=["csr", "csc"],
                    dtype=None if sp.issparse(X) else "numeric",
                    ensure_all_finite="allow-nan" if self._allow_nan else True,
                )
        if first_call:
            # Later calls skip it: the test against ``classes_`` below is stricter
            # (a continuous or multilabel y cannot consist of known labels).
            check_classification_targets(y)
        known = classes if first_call else self.classes_
        try:
            y_encoded = np.searchsorted(known, y)
        except TypeError as error:  # labels numpy cannot order with the classes
            raise ValueError(
                f"y holds labels of types {label_types(y)}, which cannot be "
                f"compared with the classes {known!r}: give labels of the "
                "classes' type."
            ) from error
        y_encoded = np.minimum(y_encoded, len(known) - 1)
        unseen = known[y_encoded] != y
        if np.any(unseen):
            raise ValueError(
                f"y contains labels {np.unique(y[unseen])!r} that are not in "
                f"classes {known!r}."
            )
        if (
            first_call
            and self.binarize is not None
            # Only learners that binarise (the tree chooses its own thresholds).
            and type(self)._encode_features is StreamValidation._encode_features
        ):
            warn_if_binarize_collapses(X, self.binarize, type(self).__name__)
        X = self._encode_features(X)
        if sample_weight is None:
            weight = np.ones(X.shape[0])
        else:
            weight = _check_sample_weight(
                sample_weight, X, dtype=np.float64, allow_all_zero_weights=True
            )
            if np.any(weight < 0):
                raise ValueError("sample_weight must be non-negative.")
            check_weight_range(weight, "sample_weight")
        if first_call:
            self.classes_ = classes
        return X, y_encoded, weight, first_call

    def _encode_features(self, X):
        """What the rounds see of validated ``X``: by default its 0/1 version."""
        return self._binarize(X)

    def _encode_columns(
        self, X, *, learning: bool, first_call: bool = False, names=None
    ):
        """``X`` before validation, its columns made numbers (a learner that
        reads categories codes them here; while ``learning`` it may keep new
        codes, put back by a call that fails). ``names`` name the columns in
        messages (default: a DataFrame's own, else their numbers). By default
        ``X`` itself."""
        return X

    def _numeric_rows_read_as_is(self) -> bool:
        """Whether a plain numeric row needs no :meth:`_encode_columns` (the
        one-row fast paths skip it)."""
        return True

    def _finite_enough(self, X: np.ndarray) -> bool:
        """Whether float ``X`` holds no value validation refuses (NaN and
        infinities; infinities only, for a learner that reads NaN)."""
        if X.dtype == np.float64 and X.ndim == 2 and X.flags.c_contiguous:
            # One pass, compiled: numpy's two calls cost more on a row.
            return finite_enough(X, self._allow_nan)
        if self._allow_nan:
            return not np.isinf(X).any()
        return bool(np.isfinite(X).all())

    def _binarize(self, X):
        """0/1 version of ``X`` (sparse stays sparse); rejects non-binary input."""
        if sp.issparse(X) and not getattr(X, "has_canonical_format", True):
            # Repeated entries of a cell are one value, their sum (as
            # ``toarray`` reads them): summed before any is thresholded.
            X = X.copy()
            X.sum_duplicates()
        data = X.data if sp.issparse(X) else X
        if self.binarize is None:
            if data.dtype != bool and np.any((data != 0) & (data != 1)):
                raise ValueError(
                    f"{type(self).__name__} with binarize=None needs 0/1 (boolean) "
                    "features; got other values. Set binarize to a threshold "
                    "(features > threshold count as 1) or one-hot encode them."
                )
            if sp.issparse(X):
                return X.astype(np.uint8)
            return X.astype(np.uint8, copy=False)
        if sp.issparse(X):
            if self.binarize < 0:
                raise ValueError(
                    "binarize must be >= 0 for sparse input: the implicit zeros "
                    "would all become 1."
                )
            X = X.copy()
            X.data = (X.data > self.binarize).astype(np.uint8)
            X.eliminate_zeros()
            return X.astype(np.uint8)
        return (X > self.binarize).astype(np.uint8)

    # -- prediction -------------------------------------------------------
    def _is_clean_row(self, X) -> bool:
        """Whether predicting on ``X`` may skip validation: finite rows (one or
        a chunk: a test-then-train loop predicts every round's rows) of a
        plain numeric ndarray, of the width of a model fitted without feature
        names (the full validation would pass them unchanged)."""
        return (
            self._is_plain_rows(X) or self._is_plain_sparse(X)
        ) and self._numeric_rows_read_as_is()

    def _is_plain_sparse(self, X) -> bool:
        """:meth:`_is_plain_rows` for CSR rows, for a learner that reads them
        as CSR blocks of real values (a tree on a wide input): the full
        validation would pass them unchanged, at ~1.5 ms a call."""
        return (
            type(X) in _CSR_TYPES
            and self._accepts_sparse_blocks
            and self._block_dtype is np.float64
            and X.shape[0] > 0
            and X.dtype.kind in "biuf"
            and self._plain_width(X)
            and (X.dtype.kind != "f" or self._finite_enough(X.data))
        )

    def _is_plain_rows(self, X, named: bool = False) -> bool:
        """:meth:`_is_clean_row` but for rows whose columns are numbers already
        (what :meth:`_encode_columns` gives a learner that codes categories);
        ``named``: rows of a frame whose column names were checked
        (:meth:`_frame_rows`)."""
        return (
            type(X) is np.ndarray
            and X.ndim == 2
            and X.shape[0] > 0
            and X.dtype.kind in "biuf"
            and self._plain_width(X, named)
            and (X.dtype.kind != "f" or self._finite_enough(X))
        )

    def _known_category_rows(self, X) -> np.ndarray | None:
        """The codes of an object ndarray of raw categories, where coding it
        learns nothing and validation would pass the codes unchanged: a
        learner that codes categories says so
        (:class:`~sklearn_localregret._column_reading.ReadsColumns`). By
        default None: the call takes the full validation."""
        return None

    def _frame_rows(self, X) -> np.ndarray | None:
        """A small DataFrame's rows as an object array, where coding them
        gives what coding the frame gives and its column names are the
        fitted ones (checked): a learner that codes categories says so
        (:class:`~sklearn_localregret._column_reading.ReadsColumns`). By
        default None: the frame takes the full validation."""
        return None

    def _plain_width(self, X: np.ndarray, named: bool = False) -> bool:
        """Whether validate_data's feature checks pass an ndarray ``X`` silently:
        the fitted width, and no feature names on either side (or ``named``:
        the rows of a frame whose names :meth:`_frame_rows` checked)."""
        return X.shape[1] == getattr(self, "n_features_in_", None) and (
            named or not hasattr(self, "feature_names_in_")
        )

    def _validate_for_predict(self, X) -> np.ndarray:
        self._check_loaded()
        if self._is_clean_row(X):
            return self._encode_features(X)
        coded = self._known_category_rows(X)
        if coded is not None:  # codes: finite, of the fitted width
            return self._encode_features(coded)
        if "classes_" not in self.__dict__:  # (scikit-learn's check is slow)
            check_is_fitted(self)
        check_feature_dtypes(X, type(self).__name__, self._reads_categories)
        rows = self._frame_rows(X)
        if rows is not None:  # a small frame of the fitted names
            names = list(self.__dict__["feature_names_in_"])
            encoded = self._encode_columns(rows, learning=False, names=names)
            if self._is_plain_rows(encoded, named=True):
                return self._encode_features(encoded)
        encoded = self._encode_columns(X, learning=False)
        if encoded is not X and self._is_plain_rows(encoded):
            return self._encode_features(encoded)  # categories, coded
        X = encoded
        with clear_input_errors(self, X):
            X = validate_data(
                self,
                X,
                reset=False,
                accept_sparse=["csr", "csc"],
                dtype=None if sp.issparse(X) else "numeric",
                ensure_all_finite="allow-nan" if self._allow_nan else True,
            )
        return self._encode_features(X)
