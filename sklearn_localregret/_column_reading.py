"""Missing values and categorical columns, read as the tree learner reads them."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from .thresholds import ColumnEncoder
from .thresholds.columns import UNKNOWN

__all__ = ["ReadsColumns"]

# A DataFrame of at most this many rows (a streaming call) is read as one
# object array: a column at a time costs pandas tens of microseconds each.
_FRAME_ROWS = 64


class ReadsColumns:
    """Mixin of a classifier whose rows may hold NaN and categorical columns.

    Before validation a :class:`~sklearn_localregret.thresholds.ColumnEncoder`
    (``max_categories`` per column, kept by the first call) turns categories
    into codes and missing values into NaN; the threshold and equality tests
    read them (the user guide, "Missing values and categorical columns").
    Put it before the classifier's base class.
    """

    # Missing values and categories are tests, categories coded before
    # validation by the encoder the first call makes.
    _allow_nan = True
    _reads_categories = True
    _columns: ColumnEncoder
    max_categories: int

    def _encode_columns(
        self, X, *, learning: bool, first_call: bool = False, names=None
    ):
        # The encoder kept is put back by a call that fails
        # (BaseOnlineClassifier._partial_fit).
        columns: ColumnEncoder
        if first_call:
            columns = ColumnEncoder(self.max_categories)
        else:
            columns = self._columns
            if (
                not columns.has_categories
                and (type(X) is np.ndarray and X.dtype.kind in "biuf")
                and not (learning and columns.has_untyped())
            ):
                return X  # the streaming case: nothing to encode (or type)
        if names is None and not first_call:
            self._check_frame_names(X)
        X, columns = columns.encode(
            X, learning=learning, name=type(self).__name__, names=names
        )
        if learning:
            self._check_still_numeric(columns, names)
            if first_call or columns is self._columns:
                self._columns = columns
            else:  # new categories or types: the call installs it (_learn)
                self._next_columns = columns
        return X

    def _check_frame_names(self, X) -> None:
        """scikit-learn's error for a frame whose columns are not the fitted
        names in order, before the encoder reads its columns by position
        (its messages would name them by the frame's names)."""
        fitted = self.__dict__.get("feature_names_in_")
        if (
            fitted is not None
            and hasattr(X, "columns")
            and X.columns.tolist() != fitted.tolist()
            and all(isinstance(name, str) for name in X.columns)
        ):  # (names of other types: scikit-learn warns, later, once)
            validate_data(self, X, reset=False, skip_check_array=True)

    def _check_still_numeric(self, columns: ColumnEncoder, names) -> None:
        """Refuse categories in a wide model's column (read through admitted
        numeric columns, a layout its first call fixed) before anything
        changes."""
        if not (self.__dict__.get("_accepts_sparse_blocks") and columns.has_categories):
            return
        j = int(np.flatnonzero(columns.categorical)[0])
        if names is None:
            names = self.__dict__.get("feature_names_in_")
        name = f"column {j}" if names is None else f"column {names[j]!r}"
        raise ValueError(
            f"{name} holds categories, but {type(self).__name__} reads this "
            f"input of {columns.n_features} columns as numbers only (a wide "
            "input, none of its columns categorical at the first call): "
            "encode the column as numbers, or give its categories from the "
            "first call."
        )

    def _numeric_rows_read_as_is(self) -> bool:
        # (numbers learnt type a column that only had missing values so far)
        columns = self._columns
        return not columns.has_categories and not columns.has_untyped()

    def _known_category_rows(self, X) -> np.ndarray | None:
        """An object ndarray's codes (``ColumnEncoder._known_codes``: every
        column categorical, every value with its code) for a model fitted
        without feature names at this width; None otherwise."""
        if (
            type(X) is not np.ndarray
            or X.dtype != object
            or X.ndim != 2
            or X.shape[0] == 0
            or X.shape[1] != self.__dict__.get("n_features_in_")
            or "feature_names_in_" in self.__dict__
        ):
            return None
        return self._columns._known_codes(X)

    def _frame_rows(self, X) -> np.ndarray | None:
        """A streaming call's DataFrame as an object array (``to_numpy``),
        when that is all that matters of it: a fitted model whose encoder has
        typed every column (a frame's dtypes only type an untyped column:
        the array's values code as the frame's do) and a frame whose columns
        are the fitted feature names, in order (the check validation would
        make; ``check_feature_dtypes`` has refused dates). None otherwise."""
        names = self.__dict__.get("feature_names_in_")
        if (
            names is None
            or not (hasattr(X, "iloc") and hasattr(X, "columns"))
            or not 0 < X.shape[0] <= _FRAME_ROWS
            or X.shape[1] != len(names)
            or UNKNOWN in self._columns.kinds.tolist()
            or X.columns.tolist() != names.tolist()
        ):
            return None
        return X.to_numpy(dtype=object)
