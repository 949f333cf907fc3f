"""scikit-learn plumbing shared by the online classifiers of the package.

:class:`BaseOnlineClassifier` owns everything that is the same for every online
learner here, Winnow2 included: input validation, the ``classes`` protocol of
``partial_fit``, binarisation of the inputs, the split of a stream into rounds
of ``batch_size`` rows, the bookkeeping of online mistakes, and the promise
that a failed call leaves a fitted estimator exactly as it was.
:class:`BaseLocalRegretClassifier` adds what the local regret learners share:
the ``regret``, ``L``, ``bias`` and ``random_state`` parameters, the round's
bias, and prediction from the distribution pi over hypotheses. The subclasses
only say what one round does (:meth:`_play_round`) and how to predict
(:meth:`_predict_proba_encoded`).

Streaming calls (River, ``partial_fit`` per row or per small chunk) skip what
only large or unusual inputs need: a call with a plain numeric ndarray whose
width and values are already right, and labels that are all in ``classes_``
(one label of any dtype, object included; a chunk's as a string or numeric
ndarray), goes straight to the rounds
(:meth:`BaseOnlineClassifier._clean_rows`). Anything else, bad input included,
takes the full validation, so errors and their messages are the same whichever
path a call could have taken.
"""

from __future__ import annotations

import sys
import threading
import warnings
from contextlib import contextmanager
from numbers import Integral, Real
from types import FrameType

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import (
    _assert_all_finite,
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ._hedge import PLAY_HANDICAP, AdaHedge, hedged_classes
from ._interrupts import deferred_interrupt, deliver_held
from ._random import check_generator, generator_key
from ._sparse_blocks import canonical_csr, sparse_row_uniforms
from ._weights import MAX_WEIGHT, first_too_large
from .engine.bias import paper_bias
from .engine.compiled.row_uniforms import row_uniforms

__all__ = ["BaseLocalRegretClassifier", "BaseOnlineClassifier", "paper_bias"]

# Rows densified at a time from sparse input: bounds memory whatever the stream.
_DENSE_CHUNK_ROWS = 4096

# A prediction of at most this many rows is remembered for the hedge's score
# of the round that learns them (test-then-train loops).
_REMEMBERED_ROWS = 64

_BLAS_LIBRARIES = None


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


class _OneBlasThread:
    """A context in which BLAS runs on one thread (see :func:`_one_blas_thread`)."""

    __slots__ = ("_restore",)

    def __enter__(self):
        global _BLAS_LIBRARIES
        if _BLAS_LIBRARIES is None:
            from threadpoolctl import ThreadpoolController

            _BLAS_LIBRARIES = (
                ThreadpoolController().select(user_api="blas").lib_controllers
            )
        self._restore = []
        for library in _BLAS_LIBRARIES:
            threads = library.num_threads
            if threads is not None and threads != 1:
                library.set_num_threads(1)
                self._restore.append((library, threads))
        return self

    def __exit__(self, *exc_info):
        for library, threads in self._restore:
            library.set_num_threads(threads)
        return False


def _one_blas_thread() -> _OneBlasThread:
    """A context in which BLAS runs on one thread.

    The learners multiply small matrices (a round's rows, a window of recent
    rows) many times; a multi-threaded BLAS gains nothing there and, on a busy
    machine, its threads spin-wait: measured 5x slower under load on 2 cores.
    The libraries are found once (a few ms); entering and leaving the context
    costs ~10 us (threadpoolctl's ``limit`` costs ~40 us), nothing when BLAS
    already runs on one thread.
    """
    return _OneBlasThread()


# Labels the one-row path reads as they are; a label of any other type (a
# complex number, a tuple, None) takes the full validation.
_PLAIN_LABEL_TYPES = (str, bytes, int, float, np.integer, np.floating, np.bool_)


def _single_label(y):
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


def _same_kind_labels(y, n_rows: int, known: np.ndarray) -> bool:
    """Whether ``y`` is a chunk's labels that compare with ``known`` as the
    full validation's would: a 1-D ndarray of ``n_rows`` strings, or of
    numbers, as ``known`` holds (object labels take the full validation)."""
    if type(y) is not np.ndarray or y.shape != (n_rows,):
        return False
    kind, known_kind = y.dtype.kind, known.dtype.kind
    return (kind in "US" and known_kind in "US" and kind == known_kind) or (
        kind in "biuf" and known_kind in "biuf"
    )


def _check_weight_range(weight: np.ndarray, name: str) -> None:
    """Refuse weights that could overflow the regret tables (``_weights``)."""
    at = first_too_large(weight)
    if at is not None:
        raise ValueError(
            f"{name} must be at most {MAX_WEIGHT:g} (row {at} has "
            f"{float(weight[at]):g}): larger weights could overflow the regret "
            "tables. Rescale them; only their ratios matter."
        )


def _is_plain_stream_chunk(X, y) -> bool:
    """Whether ``check_array`` / ``check_X_y`` would leave ``X, y`` as they are
    apart from the finiteness test: a non-empty 2-D numeric ndarray and a
    matching 1-D label ndarray (an object one once :func:`_check_labels_present`
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


def _check_feature_dtypes(X, estimator_name: str, categories: bool = False) -> None:
    """Name the column or dtype that cannot be a number, before validation does.

    Categories (pandas ``category``/``object``/string columns) and dates have
    no meaningful order as numbers; scikit-learn's own message does not say
    what to do about them. A learner that reads ``categories`` itself only
    refuses dates.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame
        for column, dtype in dtypes.items():
            kind = getattr(dtype, "kind", "O")
            if kind in "biuf" or (categories and kind not in "mM"):
                continue
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
    if kind in ("m", "M"):
        raise ValueError(
            f"{estimator_name} needs numeric features; X has dtype {X.dtype} "
            "(dates or durations). Turn them into numbers first (e.g. days since "
            "a reference date)."
        )


def _is_missing_label(label) -> bool:
    if label is None:
        return True
    if isinstance(label, (float, np.floating)):
        return bool(label != label)
    return type(label).__name__ in ("NAType", "NaTType")


def _check_labels_present(y) -> None:
    """Missing labels (None, NaN, ``pandas.NA``) get a message that says so."""
    dtype = getattr(y, "dtype", None)
    if dtype is None and isinstance(y, (list, tuple)):
        y, dtype = np.asarray(y, dtype=object), np.dtype(object)
    kind = getattr(dtype, "kind", None)
    if kind is None or kind in "biuUS":
        return  # no missing label can hide there (other input: validation)
    if kind == "f":
        try:
            if not np.isnan(np.asarray(y, dtype=float)).any():
                return
        except (TypeError, ValueError):  # pandas.NA: read one by one
            pass
    labels = np.asarray(y, dtype=object).ravel().tolist()
    if any(label is None for label in labels):
        what = "None"
    elif any(_is_missing_label(label) for label in labels):
        what = "NaN"
    else:
        return
    raise ValueError(
        f"y contains {what} (missing labels); drop those rows or give them a label."
    )


@contextmanager
def _clear_input_errors(estimator):
    """scikit-learn's errors on NaN, infinities and strings, reworded to say
    what this learner does with them and what to do."""
    try:
        yield
    except ValueError as exc:
        message, name = str(exc), type(estimator).__name__
        if "contains NaN" in message and not estimator._allow_nan:
            raise ValueError(
                f"X contains NaN (missing values), which {name} does not read. "
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


def _warn_if_binarize_collapses(X, threshold: float, estimator_name: str) -> None:
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


def _lock_of(estimator, name: str) -> threading.RLock:
    """The estimator's lock ``name``, made on first use (``dict.setdefault``
    is atomic: two threads that ask at once get the same lock). Not made in
    ``__init__`` (scikit-learn's estimators set only their parameters there)
    nor saved (``__getstate__`` drops it)."""
    lock = estimator.__dict__.get(name)
    if lock is None:
        lock = estimator.__dict__.setdefault(name, threading.RLock())
    return lock


class BaseOnlineClassifier(ClassifierMixin, BaseEstimator):
    """Common base of the package's online classifiers (not public).

    Subclasses define ``__init__`` (storing their parameters, which include
    ``binarize``; ``batch_size`` is a parameter or a class attribute),
    ``_parameter_constraints`` and the hooks ``_check_classes``,
    ``_init_model`` and ``_play_round`` (or ``_play_rounds``, a faster loop
    over a block of rounds), and their own prediction methods.
    """

    _parameter_constraints: dict = {
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "binarize": [Real, None],
    }

    # Dtype of the dense blocks of rows that ``_play_rounds`` and
    # ``_predict_proba_encoded`` receive: 0/1 bytes, unless a learner reads
    # real values (the tree learner's threshold tests).
    _block_dtype: type[np.generic] = np.uint8

    # Whether ``_play_rounds`` and ``_predict_proba_encoded`` take sparse
    # input as canonical CSR blocks (``_block_dtype``) rather than dense ones:
    # a learner that reads a round in its nonzeros sets it, so memory and time
    # follow the data's nonzeros, not its width.
    _accepts_sparse_blocks: bool = False

    # Whether the learner reads missing values (NaN) and categorical columns
    # (strings, pandas categories) itself (:meth:`_encode_columns`); the
    # others refuse them with a message that says how to encode them.
    _allow_nan: bool = False
    _reads_categories: bool = False

    # -- hooks for subclasses ---------------------------------------------
    def _check_classes(self, classes: np.ndarray) -> None:
        """Raise ``ValueError`` if these classes are not supported."""

    def _require_binary(self, classes: np.ndarray, hypothesis: str) -> None:
        """The error of a binary-only learner, worded as scikit-learn expects."""
        if len(classes) > 2:
            raise ValueError(
                "Only binary classification is supported. "
                f"{type(self).__name__} learns {hypothesis}, which separates two "
                f"classes; got {len(classes)} classes. Wrap it in "
                "sklearn.multiclass.OneVsRestClassifier for more."
            )

    def _start_stream(self) -> None:
        """Reset what a new stream starts from, before ``_init_model``."""

    def _init_model(self, n_features: int, n_classes: int) -> None:
        """Create the locality graph and engine state (first call only)."""
        raise NotImplementedError

    def _play_round(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> float:
        """Play one round on rows ``X`` (``_block_dtype``) with class indices ``y``.

        Draw an action from pi^t, predict the round with it, update the regrets.
        Returns the weight of the rows the played action got wrong.
        """
        raise NotImplementedError

    # -- threads ----------------------------------------------------------
    # Readers (predict, predict_proba, decision_function, score) may run in
    # any number of threads while one thread learns: a learner holds the
    # model lock for each round (or bulk unit), a reader for each block it
    # predicts, so a reader sees the model of complete rounds. Learning calls
    # (fit, partial_fit) hold the call lock throughout: they run one at a
    # time, in the order they get it.
    def _model_lock(self) -> threading.RLock:
        return _lock_of(self, "_lock_model")

    def _call_lock(self) -> threading.RLock:
        return _lock_of(self, "_lock_calls")

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: never the live __dict__
        state.pop("_lock_model", None)
        state.pop("_lock_calls", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        # Made now, not by the first predict: predicting changes no attribute.
        self._model_lock()
        self._call_lock()

    # -- fitting ----------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Reset the model and learn from ``X, y`` in one online pass.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Features. :class:`~sklearn_localregret.LocalRegretTreeClassifier`
            reads real values as they are (its thresholds come from the
            stream); the disjunct learner and Winnow2 read 0/1 values and cut
            real ones at ``binarize`` (``x > binarize`` is 1).
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row in the round's utility.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        # Readers wait for the whole refit: the model is replaced, not learnt on.
        with self._call_lock(), self._model_lock():
            return self._fit(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X, y, sample_weight=None):
        """:meth:`fit` under its locks: a fresh model, or the old one if it fails."""
        saved = self.__dict__.copy()
        fitted = [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]
        for name in fitted:
            delattr(self, name)
        try:
            _check_labels_present(y)
            check_classification_targets(y)
            return self._partial_fit(
                X, y, classes=unique_labels(y), sample_weight=sample_weight
            )
        except BaseException:
            # A failed refit keeps the model it had (the new one, built from
            # fresh objects, is dropped).
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from ``X, y`` online, one round per ``batch_size`` rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Features. :class:`~sklearn_localregret.LocalRegretTreeClassifier`
            reads real values as they are (its thresholds come from the
            stream); the disjunct learner and Winnow2 read 0/1 values and cut
            real ones at ``binarize`` (``x > binarize`` is 1).
        y : array-like of shape (n_samples,)
            Target labels.
        classes : array-like of shape (n_classes,), default=None
            All labels the stream can carry. Required on the first call,
            checked against ``classes_`` on later ones.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row in the round's utility.

        Returns
        -------
        self : object
            The estimator, updated.
        """
        with self._call_lock():  # one learning call at a time
            if getattr(self, "classes_", None) is not None:
                row = self._clean_rows(X, y, classes, sample_weight)
                if row is not None:
                    # A fitted model's one-row call that validation would pass
                    # through unchanged. scikit-learn's _fit_context does
                    # nothing for it (a fitted partial_fit's parameters are
                    # not checked again) but costs ~30 us, a tenth of a
                    # streaming call.
                    self._learn(*row)
                    return self
            return self._validated_partial_fit(X, y, classes, sample_weight)

    def _validated_partial_fit(self, X, y, classes, sample_weight):
        return self._partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    # _fit_context validates the parameters unless the method is called
    # "partial_fit" and the estimator is fitted: it keeps that name.
    _validated_partial_fit.__name__ = "partial_fit"
    _validated_partial_fit = _fit_context(prefer_skip_nested_validation=True)(
        _validated_partial_fit
    )

    def _partial_fit(self, X, y, classes, sample_weight):
        saved = self.__dict__.copy()
        try:
            X, y_encoded, weight, first_call = self._validate_stream(
                X, y, classes, sample_weight
            )
            if first_call:
                self._start_stream()
                self._init_model(self.n_features_in_, len(self.classes_))
                self.n_rounds_ = 0
                self.n_samples_seen_ = 0
                self.n_online_mistakes_ = 0.0
                self._weight_seen = 0.0
        except BaseException:
            # Nothing was learned yet: put back exactly what was there.
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        self._learn(X, y_encoded, weight)
        return self

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
        if (
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
            label = _single_label(y)
            if label is None:
                return None
        elif not _same_kind_labels(y, X.shape[0], known):
            return None
        if X.dtype.kind == "f" and not self._finite_enough(X):
            return None
        if not self._numeric_rows_read_as_is():
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
        _check_feature_dtypes(X, type(self).__name__, self._reads_categories)
        _check_labels_present(y)
        X = self._encode_columns(X, learning=True, first_call=first_call)
        with _clear_input_errors(self):
            if not first_call and _is_plain_stream_chunk(X, y):
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
                if not self._plain_width(X):
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
        y_encoded = np.searchsorted(known, y)
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
            and type(self)._encode_features is BaseOnlineClassifier._encode_features
        ):
            _warn_if_binarize_collapses(X, self.binarize, type(self).__name__)
        X = self._encode_features(X)
        if sample_weight is None:
            weight = np.ones(X.shape[0])
        else:
            weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            if np.any(weight < 0):
                raise ValueError("sample_weight must be non-negative.")
            _check_weight_range(weight, "sample_weight")
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
        if self._allow_nan:
            return not np.isinf(X).any()
        return bool(np.isfinite(X).all())

    def _binarize(self, X):
        """0/1 version of ``X`` (sparse stays sparse); rejects non-binary input."""
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
        n_samples = X.shape[0]
        batch = self.batch_size
        # Chunks hold whole rounds so that round boundaries do not move.
        chunk = max(batch, (_DENSE_CHUNK_ROWS // batch) * batch)
        sparse_blocks = sp.issparse(X) and self._accepts_sparse_blocks
        if sparse_blocks:
            X = canonical_csr(X, self._block_dtype)
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

    def _blas_context(self):
        """The context learning and predicting run in: BLAS on one thread
        (:func:`_one_blas_thread`). A learner whose hot paths call no BLAS
        returns a context that does nothing (it saves ~10 us a call)."""
        return _one_blas_thread()

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
        for lo in range(0, X.shape[0], batch):
            hi = lo + batch
            with lock:  # readers in other threads see complete rounds
                if hedging:  # pi's predictions of the round, before it is learnt
                    proba = self._remembered_proba(X[lo:hi])
                    if proba is None:
                        proba = self._predict_proba_encoded(X[lo:hi])
                wrong = self._play_round(X[lo:hi], y[lo:hi], weight[lo:hi])
                if hedging:
                    self._score_predictions(proba, y[lo:hi], weight[lo:hi])
                self._count_rounds(weight[lo:hi], wrong)

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

    # -- prediction -------------------------------------------------------
    def _is_clean_row(self, X) -> bool:
        """Whether predicting on ``X`` may skip validation: finite rows (one or
        a chunk: a test-then-train loop predicts every round's rows) of a
        plain numeric ndarray, of the width of a model fitted without feature
        names (the full validation would pass them unchanged)."""
        return self._is_plain_rows(X) and self._numeric_rows_read_as_is()

    def _is_plain_rows(self, X) -> bool:
        """:meth:`_is_clean_row` but for rows whose columns are numbers already
        (what :meth:`_encode_columns` gives a learner that codes categories)."""
        return (
            type(X) is np.ndarray
            and X.ndim == 2
            and X.shape[0] > 0
            and X.dtype.kind in "biuf"
            and self._plain_width(X)
            and (X.dtype.kind != "f" or self._finite_enough(X))
        )

    def _plain_width(self, X: np.ndarray) -> bool:
        """Whether validate_data's feature checks pass an ndarray ``X`` silently:
        the fitted width, and no feature names on either side."""
        return X.shape[1] == getattr(self, "n_features_in_", None) and not hasattr(
            self, "feature_names_in_"
        )

    def _validate_for_predict(self, X) -> np.ndarray:
        if self._is_clean_row(X):
            return self._encode_features(X)
        check_is_fitted(self)
        _check_feature_dtypes(X, type(self).__name__, self._reads_categories)
        encoded = self._encode_columns(X, learning=False)
        if encoded is not X and self._is_plain_rows(encoded):
            return self._encode_features(encoded)  # categories, coded
        X = encoded
        with _clear_input_errors(self):
            X = validate_data(
                self,
                X,
                reset=False,
                accept_sparse=["csr", "csc"],
                dtype=None if sp.issparse(X) else "numeric",
                ensure_all_finite="allow-nan" if self._allow_nan else True,
            )
        return self._encode_features(X)

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

    # Same as ClassifierMixin.score; restated for a docstring that does not
    # link into scikit-learn's own documentation (which ours cannot resolve).
    def score(self, X, y, sample_weight=None):
        """Mean accuracy of :meth:`predict` on ``X`` against ``y``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Test rows.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row in the mean.

        Returns
        -------
        score : float
            Weighted fraction of rows predicted right.
        """
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # CSR/CSC input is read in row chunks, never densified as a whole.
        tags.input_tags.sparse = True
        # A learner that reads missing values says so; the others reject NaN.
        tags.input_tags.allow_nan = self._allow_nan
        # Left at its default, and true: non_deterministic stays False (a
        # fixed random_state gives the same model; the online plays are random
        # draws from that seed).
        return tags


class BaseLocalRegretClassifier(BaseOnlineClassifier):
    """Common base of the local regret classifiers (not public).

    Adds to :class:`BaseOnlineClassifier` the parameters ``regret``, ``L``,
    ``bias``, ``discount`` and ``random_state``, the bias of a round, a seeded generator
    ``_rng`` for the draws, and prediction from pi through the hook
    ``_predict_proba_encoded``.
    """

    _parameter_constraints: dict = {
        **BaseOnlineClassifier._parameter_constraints,
        "regret": [StrOptions({"external", "swap"})],
        "L": [Interval(Integral, 0, None, closed="left"), None],
        "bias": [Interval(Real, 0, None, closed="left"), None],
        "discount": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
        "prediction": [StrOptions({"auto", "hedge", "vote", "sample"})],
    }

    def _start_stream(self) -> None:
        self._rng = check_generator(self.random_state)
        # Keys the uniforms of randomised predictions; read from the
        # generator's state without drawing, so the plays are unchanged.
        self._prediction_key = generator_key(self._rng)
        self._hedge = AdaHedge((0.0, PLAY_HANDICAP))  # experts: the vote, the play
        # A holder made at fit time and filled in place: predicting never
        # changes the estimator's __dict__ (scikit-learn's check_dict_unchanged).
        self._last_proba: list = [None]

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: never the live __dict__
        state.pop("_last_proba", None)  # a cache of the last prediction
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "_rng" in state:  # fitted: the holder of the last prediction
            self._last_proba = [None]
        if "prediction" not in state:
            # Saved before the hedged prediction: it predicted by the vote.
            self.prediction = "vote"
        if "_rng" in state and "_hedge" not in state:
            self._prediction_key = generator_key(self._rng)
            self._hedge = AdaHedge((0.0, PLAY_HANDICAP))

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
        if (
            self._hedging()
            and block.shape[0] <= _REMEMBERED_ROWS
            and not sp.issparse(block)
        ):
            memory = getattr(self, "_last_proba", None)
            if memory is not None:
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

    def _score_predictions(self, proba: np.ndarray, y: np.ndarray, weight) -> None:
        """Add a round's losses of the vote and the play to the hedge.

        ``proba`` are the round's class probabilities under ``pi`` before the
        round was learnt; the vote's loss is the weight of the rows whose most
        probable class is wrong, the play's the expected weight of the rows a
        class drawn from ``proba`` gets wrong.
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
        self._hedge.update((vote_wrong, play_wrong))

    @property
    def vote_weight_(self) -> float:
        """Probability that :meth:`predict` gives the vote.

        AdaHedge's weight of the vote against the play, from their losses on
        the rounds learnt while hedging: 1 for the vote, 0 for
        ``"sample"``.
        """
        check_is_fitted(self)
        return self._vote_weight()

    def _vote_weight(self) -> float:
        rule = self._prediction_rule()
        if rule == "vote":
            return 1.0
        if rule == "sample":
            return 0.0
        return self._hedge.weight(0)

    @property
    def hedge_regret_bound_(self) -> float:
        """Bound on the hedged predictions' expected mistakes beyond the better
        of the vote and the play, over the rounds learnt so far (``2 Delta``;
        see the user guide, "The hedged prediction").

        In the units of the mistake counts (sample weight); 0 when nothing
        was learnt while hedging.
        """
        check_is_fitted(self)
        return self._hedge.regret_bound

    def _predict_proba_encoded(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities under pi for rows ``X`` (``_block_dtype``)."""
        raise NotImplementedError

    def round_bias(self, round_weight: float) -> float:
        """The bias ``b`` of a round whose utilities span ``round_weight``.

        ``bias=None`` means the paper's ``Delta / (L + 1)`` for finite ``L`` and 0
        for ``L=None``, with ``Delta`` the round's total sample weight (the
        number of rows when unweighted).
        """
        return paper_bias(self.bias, self.L, round_weight)

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
            for start in range(0, X.shape[0], _DENSE_CHUNK_ROWS):
                yield X[start : start + _DENSE_CHUNK_ROWS]
            return
        for start in range(0, X.shape[0], _DENSE_CHUNK_ROWS):
            block = X[start : start + _DENSE_CHUNK_ROWS]
            if sp.issparse(block):
                block = block.toarray()
            yield np.asarray(block, dtype=self._block_dtype)

    def _predict_proba_checked(self, X) -> np.ndarray:
        """:meth:`predict_proba` of encoded rows that passed validation."""
        out = []
        for block in self._row_blocks(X):
            with self._model_lock(), self._blas_context():
                version = self._proba_version()
                out.append(self._predict_proba_encoded(block))
            self._remember_proba(version, block, out[-1])
        if not out:
            return np.zeros((0, len(self.classes_)))
        return out[0] if len(out) == 1 else np.vstack(out)

    def predict(self, X):
        """Predicted classes: the hedge of the vote and the play by default.

        With ``prediction="vote"``, the most probable class under ``pi``. With
        ``"sample"``, a class drawn from ``pi``'s probabilities of the row, as
        the randomised plays predict. With ``"hedge"`` (the default with
        external regret: ``prediction="auto"``), the vote
        with probability :attr:`vote_weight_`, else the draw: AdaHedge's
        weight from the two predictions' losses on the stream, so that it is
        never much worse than the better of them (the user guide derives the
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
                # The weight, the draws' key and pi of the same complete round.
                vote_weight = self._vote_weight()  # fitting checked above
                key = self._prediction_key ^ (self.n_rounds_ * 0x9E3779B97F4A7C15)
                version = self._proba_version()
                proba = self._predict_proba_encoded(block)
            self._remember_proba(version, block, proba)
            if vote_weight >= 1.0:
                out.append(np.argmax(proba, axis=1))
            else:
                if sp.issparse(block):
                    uniforms = sparse_row_uniforms(block, key)
                else:
                    uniforms = row_uniforms(block, key)
                out.append(hedged_classes(proba, vote_weight, uniforms))
        if not out:
            return np.zeros(0, dtype=np.intp)
        return out[0] if len(out) == 1 else np.concatenate(out)
