"""The checks of a call's input that say what is wrong in the learner's words.

Labels read as they are by the streaming path (one label, a chunk's
labels), weights that could overflow the tables, plain chunks that need
only a finiteness test, columns that cannot be numbers, missing labels,
scikit-learn's messages on NaN, infinities and strings reworded, and the
warning of a ``binarize`` that leaves real-valued features constant.
Functions of the input alone: the estimators call them
(:mod:`.stream_validation`, :class:`~sklearn_localregret._base.BaseOnlineClassifier`).
"""

from __future__ import annotations

import datetime
import sys
import warnings
from contextlib import contextmanager
from numbers import Real
from types import FrameType

import numpy as np
import scipy.sparse as sp

from .._weights import MAX_WEIGHT, first_too_large
from ..thresholds.column_values import is_missing

__all__ = [
    "BinarizeWarning",
    "check_feature_dtypes",
    "check_fit_weighs_something",
    "check_labels_present",
    "check_weight_range",
    "clear_input_errors",
    "first_missing_column",
    "is_plain_stream_chunk",
    "label_types",
    "same_kind_labels",
    "single_label",
    "warn_if_binarize_collapses",
]


# Labels the one-row path reads as they are; a label of any other type (a
# complex number, a tuple, None) takes the full validation.
_PLAIN_LABEL_TYPES = (str, bytes, int, float, np.integer, np.floating, np.bool_)


def single_label(y):
    """The one label of ``y`` when it is a plain one-element array, list or tuple.

    Returns ``None`` for anything else (``None`` is never a valid label).
    """
    if type(y) is np.ndarray:
        if y.shape != (1,) or y.dtype.kind not in "biufUSO":
            return None
    elif type(y) not in (list, tuple) or len(y) != 1:
        return None
    label = y[0]
    return label if isinstance(label, _PLAIN_LABEL_TYPES) else None


def same_kind_labels(y, n_rows: int, known: np.ndarray) -> bool:
    """Whether ``y`` is a chunk's labels that compare with ``known`` as the
    full validation's would: a 1-D ndarray of ``n_rows`` strings, or of
    numbers, as ``known`` holds, or of objects that are all plain labels,
    none missing (the full validation refuses missing ones; the rest it
    encodes as the fast path does, by ``searchsorted`` and equality)."""
    if type(y) is not np.ndarray or y.shape != (n_rows,):
        return False
    kind, known_kind = y.dtype.kind, known.dtype.kind
    if kind == "O":
        return all(
            isinstance(label, _PLAIN_LABEL_TYPES) and not is_missing(label)
            for label in y.tolist()
        )
    return (kind in "US" and known_kind in "US" and kind == known_kind) or (
        kind in "biuf" and known_kind in "biuf"
    )


def check_weight_range(weight: np.ndarray, name: str) -> None:
    """Refuse weights that could overflow the regret tables (``_weights``)."""
    at = first_too_large(weight)
    if at is not None:
        raise ValueError(
            f"{name} must be at most {MAX_WEIGHT:g} (row {at} has "
            f"{float(weight[at]):g}): larger weights could overflow the regret "
            "tables. Rescale them (divided by their mean, say): the plays "
            "depend on their ratios only."
        )


def is_plain_stream_chunk(X, y) -> bool:
    """Whether ``check_array`` / ``check_X_y`` would leave ``X, y`` as they are
    apart from the finiteness test: a non-empty 2-D numeric ndarray and a
    matching 1-D label ndarray (an object one once :func:`check_labels_present`
    has passed it: ``check_X_y`` only looks for missing labels in it)."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.shape[0] > 0
        and X.shape[1] > 0
        and X.dtype.kind in "biuf"
        and type(y) is np.ndarray
        and y.ndim == 1
        and y.dtype.kind in "biuUSO"
        and y.shape[0] == X.shape[0]
    )


def _numbers_only(column) -> bool:
    """Whether an object column holds numbers (or missing values) only; one
    beyond float64's range (an int such as ``10**400``) is a ``ValueError``
    naming the column, not numpy's ``OverflowError`` later."""
    values = column.tolist()
    if not all(isinstance(v, (Real, np.bool_)) or v is None for v in values):
        return False
    try:
        [float(v) for v in values if v is not None]
    except OverflowError:
        raise ValueError(
            f"column {column.name!r} holds a value beyond float64's range (about "
            "1.8e308 in size)."
        ) from None
    return True


def check_feature_dtypes(X, estimator_name: str, categories: bool = False) -> None:
    """Name the column or dtype that cannot be a number, before validation does.

    Categories (pandas ``category``/``object``/string columns) and dates have
    no meaningful order as numbers; scikit-learn's own message does not say
    what to do about them. A learner that reads ``categories`` itself only
    refuses dates.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame
        # As a list: a Series' items cost pandas ~4 us each (a streaming call).
        for at, dtype in enumerate(dtypes.tolist()):
            kind = getattr(dtype, "kind", "O")
            if kind in "biuf" or (categories and kind not in "mM"):
                continue
            if kind == "O" and _numbers_only(X.iloc[:, at]):
                continue  # numbers stored as objects: validation converts them
            column = dtypes.index[at]
            what = "dates or durations" if kind in "mM" else "categories or text"
            raise ValueError(
                f"{estimator_name} needs numeric features; column {column!r} has "
                f"dtype {dtype} ({what}). Encode it first: one-hot encode "
                "categories (sklearn.preprocessing.OneHotEncoder, or "
                "sklearn_localregret.datasets.boolean_encoder()), turn dates into "
                "numbers (e.g. days since a reference date)."
            )
        return
    kind = getattr(getattr(X, "dtype", None), "kind", None)
    if kind in ("m", "M") or (kind == "O" and not categories and _holds_dates(X)):
        what = "holds" if kind == "O" else f"has dtype {X.dtype}:"
        raise ValueError(
            f"{estimator_name} needs numeric features; X {what} dates or "
            "durations. Turn them into numbers first (e.g. days since a "
            "reference date)."
        )


def _holds_dates(X) -> bool:
    """Whether an object array holds a date or a duration (numpy's, Python's
    or pandas'), which validation would otherwise turn into a number of
    days or nanoseconds."""
    dates = (np.datetime64, np.timedelta64, datetime.date, datetime.timedelta)
    # The values' distinct types (a C loop; an isinstance per value was 5x
    # the cost of validation's own conversion to floats).
    types = set(map(type, np.ravel(X).tolist()))
    return any(issubclass(kind, dates) for kind in types)


def check_fit_weighs_something(sample_weight) -> None:
    """``fit``'s rows may not all weigh 0 (scikit-learn's convention: there
    is nothing to learn); a ``partial_fit`` call's may, its rounds learning
    nothing from its rows. Input that is not numbers is left to the
    validation."""
    if sample_weight is None:
        return
    try:
        weight = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        return
    if weight.ndim == 1 and weight.size and not weight.any():
        raise ValueError(
            "Sample weights must contain at least one non-zero number: fit has "
            "nothing to learn from rows that all weigh zero (partial_fit takes "
            "such a call: rounds that learn nothing from their rows)."
        )


def label_types(y) -> list[str]:
    """The type names of the labels in ``y``, sorted (an error message's).

    Examples
    --------
    >>> label_types(np.array([1, "x", 2], dtype=object))
    ['int', 'str']
    """
    return sorted({type(label).__name__ for label in np.ravel(y).tolist()})


def check_labels_present(y) -> None:
    """Missing labels (None, NaN, ``pandas.NA``) get a message that says so."""
    dtype = getattr(y, "dtype", None)
    if dtype is None and isinstance(y, (list, tuple)):
        y, dtype = np.asarray(y, dtype=object), np.dtype(object)
    kind = getattr(dtype, "kind", None)
    if kind is None or (isinstance(dtype, np.dtype) and kind in "biuUS"):
        return  # no missing label can hide there (other input: validation)
    # (pandas' nullable Int64 and boolean say "i" and "b", and hold pd.NA.)
    if kind == "f":
        try:
            if not np.isnan(np.asarray(y, dtype=float)).any():
                return
        except (TypeError, ValueError):  # pandas.NA: read one by one
            pass
    labels = np.asarray(y, dtype=object).ravel().tolist()
    if any(label is None for label in labels):
        what = "None"
    elif any(is_missing(label) for label in labels):
        what = "NaN"
    else:
        return
    raise ValueError(
        f"y contains {what} (missing labels); drop those rows or give them a label."
    )


def first_missing_column(X, names=None) -> str:
    """`` (column c first)``: the first column of ``X`` holding NaN, by its
    name (a frame's, or ``names`` for an array's columns) or index; ``""``
    where none is found (an error message's detail, on its error path)."""
    try:
        if hasattr(X, "isna") and hasattr(X, "columns"):  # a DataFrame
            names, missing = list(X.columns), X.isna().any(axis=0).to_numpy()
        elif sp.issparse(X):
            X = X.tocoo()
            missing = np.zeros(X.shape[1], dtype=bool)
            missing[X.col[np.isnan(X.data)]] = True
        else:
            missing = np.isnan(np.asarray(X, dtype=float)).any(axis=0)
    except (TypeError, ValueError):
        return ""
    hits = np.flatnonzero(missing)
    if hits.size == 0 or np.ndim(missing) != 1:
        return ""
    first = int(hits[0])
    column = first if names is None or len(names) <= first else names[first]
    return f" (column {column!r} first)"


@contextmanager
def clear_input_errors(estimator, X=None, names=None):
    """scikit-learn's errors on NaN, infinities and strings, reworded to say
    what this learner does with them and what to do (and which of ``X``'s
    columns holds a NaN first: ``names`` those of an array's columns)."""
    try:
        yield
    except ValueError as exc:
        message, name = str(exc), type(estimator).__name__
        if "contains NaN" in message and not estimator._allow_nan:
            where = first_missing_column(X, names) if X is not None else ""
            raise ValueError(
                f"X contains NaN (missing values){where}, which {name} does not "
                "read. "
                "Use LocalRegretTreeClassifier, which learns where missing "
                "values go, or fill them in first (e.g. "
                "sklearn.impute.SimpleImputer(strategy='most_frequent', "
                "add_indicator=True) in a pipeline keeps a 0/1 'was missing' "
                "feature)."
            ) from None
        if "infinity" in message and estimator._allow_nan:
            raise ValueError(
                f"X contains infinity: {name} reads missing values (NaN) but not "
                "infinite ones. Clip them to a finite value, or replace them "
                "with NaN if they stand for missing values."
            ) from None
        if "infinity" in message:
            raise ValueError(
                f"X contains infinity, which {name} does not read. Clip the "
                "values to a finite range first (e.g. numpy.clip): it reads "
                "x > binarize as 1, so a large finite value reads as +inf "
                "would, and a large negative one as -inf."
            ) from None
        if "string" in message and not estimator._reads_categories:
            raise ValueError(
                f"X contains strings, which {name} does not read. "
                "One-hot encode the categorical columns first "
                "(sklearn.preprocessing.OneHotEncoder, or "
                "sklearn_localregret.datasets.boolean_encoder()), or use "
                "LocalRegretTreeClassifier, which reads categories itself."
            ) from exc
        raise


class BinarizeWarning(UserWarning):
    """``binarize`` turned nearly every value of real-valued features into one.

    Raised by a learner on 0/1 features (:class:`LocalRegretDisjunctClassifier`,
    :class:`~sklearn_localregret.baselines.Winnow2Classifier`) when its
    threshold ``binarize`` (``x > binarize`` counts as 1) leaves the real-valued
    features of the first call's rows (nearly) constant: on all-positive
    features the default ``binarize=0.0`` makes every value 1, and the learner
    can only predict the majority class.
    """


# Binarising "collapses" real-valued features when at least this share of their
# values falls on their majority side of the threshold and that side holds
# distinct values in most of them (word counts, mostly 0, do not collapse: their
# zeros were one value already).
_COLLAPSED_SHARE = 0.98
# Fewer rows than this say too little (a one-row streaming call always looks
# constant); more are not needed to see it.
_BINARIZE_CHECK_ROWS = (20, 1000)


def warn_if_binarize_collapses(X, threshold: float, estimator_name: str) -> None:
    """Warn (:class:`BinarizeWarning`) if ``X > threshold`` keeps almost nothing
    of the real-valued columns of dense ``X``; 0/1 columns are not judged."""
    low, high = _BINARIZE_CHECK_ROWS
    if sp.issparse(X) or X.shape[0] < low:
        return
    X = np.asarray(X[:high], dtype=float)
    real = np.any((X != 0) & (X != 1), axis=0)
    if not real.any():
        return
    X = X[:, real]
    ones = X > threshold
    majority = ones.mean(axis=0) >= 0.5
    side = ones == majority  # the rows on each column's majority side
    share = side.mean(axis=0)
    kept = np.where(side, X, np.nan)
    varied = np.nanmax(kept, axis=0) > np.nanmin(kept, axis=0)
    if share.mean() < _COLLAPSED_SHARE or varied.mean() < 0.5:
        return
    value = 1 if majority.mean() >= 0.5 else 0
    warnings.warn(
        f"{estimator_name}(binarize={threshold!r}) turns {share.mean():.1%} of "
        f"the values of {real.sum()} real-valued features into "
        f"{value} (x > binarize counts as 1), so the learner sees nearly constant "
        "features and can only predict the majority class. Set binarize to a "
        "threshold inside the features' range, put a "
        "sklearn.preprocessing.KBinsDiscretizer(encode='onehot-dense') before "
        "it in a pipeline, or use LocalRegretTreeClassifier, which chooses "
        "thresholds on real-valued features itself.",
        BinarizeWarning,
        stacklevel=_caller_level(),
    )


def _caller_level() -> int:
    """``stacklevel`` of the first frame outside this package and scikit-learn
    (the user's ``fit`` or ``partial_fit`` call, however deep the wrappers)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and str(frame.f_globals.get("__name__")).startswith(
        ("sklearn_localregret.", "sklearn.")
    ):
        frame, level = frame.f_back, level + 1
    return level
