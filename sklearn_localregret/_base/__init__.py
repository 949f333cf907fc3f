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

The two bases are here, with the first-call set-up, ``fit``/``partial_fit``
and the locks' hooks; they are made of one part per concern:

* ``stream_validation.py`` -- :class:`StreamValidation`, a call's input
  validated before any state changes, and the fast paths that skip it;
* ``input_checks.py`` -- the checks and messages it uses (labels, weights,
  dtypes, NaN and strings, the ``binarize`` warning);
* ``rounds.py`` -- :class:`OnlineRounds`, the loop over rounds and the
  counters;
* ``hedged_prediction.py`` -- :class:`HedgedPrediction`, ``predict`` and
  ``predict_proba`` from pi, the hedge of the vote and the play, the last
  prediction remembered for the round that learns it;
* ``concurrency.py`` -- the estimator's locks and BLAS on one thread.
"""

from __future__ import annotations

import copyreg
import threading
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, unique_labels

from .._hedge import PLAY_HANDICAP, AdaHedge
from .._loaded_check import ChecksWhenLoaded
from .._random import check_generator, generator_key
from ..engine.bias import paper_bias
from ..engine.discount_clock import SMALLEST_DISCOUNT
from .built_params import built_values, check_set_params, set_params_checked
from .concurrency import lock_of, one_blas_thread, refitting, restore_attributes
from .hedged_prediction import REMEMBERED_ROWS, HedgedPrediction, same_rows
from .input_checks import (
    BinarizeWarning,
    check_fit_weighs_something,
    check_labels_present,
    is_plain_stream_chunk,
    single_label,
)
from .rounds import DENSE_CHUNK_ROWS, OnlineRounds
from .state_pickling import pickled_state, unpickled_state
from .stream_validation import StreamValidation

__all__ = [
    "BaseLocalRegretClassifier",
    "BaseOnlineClassifier",
    "BinarizeWarning",
    "paper_bias",
    "same_rows",
]


# The names these helpers had when they were this module's, before _base/
# was split by concern (for whoever imports them from here).
_DENSE_CHUNK_ROWS = DENSE_CHUNK_ROWS
_REMEMBERED_ROWS = REMEMBERED_ROWS
_is_plain_stream_chunk = is_plain_stream_chunk
_one_blas_thread = one_blas_thread
_single_label = single_label


class BaseOnlineClassifier(
    ChecksWhenLoaded, StreamValidation, OnlineRounds, ClassifierMixin, BaseEstimator
):
    """Common base of the package's online classifiers (not public).

    Subclasses define ``__init__`` (storing their parameters, which include
    ``binarize``; ``batch_size`` is a parameter or a class attribute),
    ``_parameter_constraints`` and the hooks ``_check_classes``,
    ``_init_model`` and ``_play_round`` (or ``_play_rounds``, a faster loop
    over a block of rounds), and their own prediction methods.
    """

    _parameter_constraints: dict = {
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "binarize": [Interval(Real, None, None, closed="neither"), None],
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

    # Parameters the model is built from on its first call (each learner
    # lists its own): set_params on a fitted model cannot change what they
    # built, so the next partial_fit refuses (fit starts over with them).
    _BUILT_FROM: tuple[str, ...] = ()

    def set_params(self, **params):
        # Under the model lock: a reader's block reads its rule (prediction,
        # predict_tolerance) more than once.
        with self._model_lock(), set_params_checked(self):
            super().set_params(**params)
        return self

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
        return lock_of(self, "_lock_model")

    def _call_lock(self) -> threading.RLock:
        return lock_of(self, "_lock_calls")

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: never the live __dict__
        state.pop("_lock_model", None)
        state.pop("_lock_calls", None)
        state.pop("_refits", None)
        state.pop("_refitter", None)
        state.pop("_whole_call_rows", None)  # set during a learning call only
        state.pop("_next_columns", None)  # (the coding of rows not yet learnt)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        # Made now, not by the first predict: predicting changes no attribute.
        self._model_lock()
        self._call_lock()

    def __sklearn_is_fitted__(self) -> bool:
        # check_is_fitted's answer, read outside the model lock by readers:
        # one key, where its default walks vars(self), which a call changes
        # meanwhile ("dictionary changed size during iteration").
        return "classes_" in self.__dict__

    def __reduce_ex__(self, protocol):
        # Pickled whole under the model lock, so that a model saved from one
        # thread while another learns is the model of complete rounds: pickle
        # reads the tables inside the state after __getstate__ has returned,
        # and a round in between left saved files that did not load.
        # (Apart from the outer pickle: references back to the estimator are
        # persistent ones; see state_pickling.)
        with self._model_lock():
            state = pickled_state(self, self.__getstate__(), max(protocol, 2))
        return _unpickled, (type(self), state)

    def _reduce_in_place(self):
        """What ``pickle`` does by default (no lock, no inner pickle): for picklers
        whose caller holds the lock (:mod:`~sklearn_localregret.merging._copies`,
        whose own picklers store the tables faster)."""
        return copyreg.__newobj__, (type(self),), self.__getstate__()

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
        # Readers wait for the whole refit: the model is replaced, not learnt
        # on; a reader under way reads again (concurrency.reads_model).
        with self._call_lock(), self._model_lock(), refitting(self):
            return self._fit(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X, y, sample_weight=None):
        """:meth:`fit` under its locks: a fresh model, or the old one if it fails."""
        saved = self.__dict__.copy()
        fitted = [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]
        for name in fitted:
            delattr(self, name)
        try:
            check_labels_present(y)
            check_fit_weighs_something(sample_weight)
            check_classification_targets(y)
            return self._partial_fit(
                X, y, classes=unique_labels(y), sample_weight=sample_weight
            )
        except BaseException:
            # A failed refit keeps the model it had (the new one, built from
            # fresh objects, is dropped).
            restore_attributes(self, saved)
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
            self._check_before_learning()
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

    def _check_before_learning(self) -> None:
        """What a learning call checks first: a loaded file's consistency,
        and parameters set since the model was built (``check_set_params``)."""
        self._check_loaded()
        if "_params_changed" in self.__dict__ or "_params_set" in self.__dict__:
            check_set_params(self)

    def _validated_partial_fit(self, X, y, classes, sample_weight):
        return self._partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    # _fit_context validates the parameters unless the method is called
    # "partial_fit" and the estimator is fitted: it keeps that name.
    _validated_partial_fit.__name__ = "partial_fit"
    _validated_partial_fit = _fit_context(prefer_skip_nested_validation=True)(
        _validated_partial_fit
    )

    def _partial_fit(self, X, y, classes, sample_weight):
        lock = self._model_lock()  # made before the copy: it stays the same
        saved = self.__dict__.copy()
        # Readers in other threads wait while a first call builds the model
        # (they would see ``classes_`` before the tables) and while a failed
        # call puts the attributes back (they would see none).
        fitted = "classes_" in saved
        try:
            with nullcontext() if fitted else lock:
                X, y_encoded, weight, first_call = self._validate_stream(
                    X, y, classes, sample_weight
                )
                if first_call:
                    self.__dict__.pop("_params_changed", None)
                    self.__dict__.pop("_params_set", None)  # fit validated them
                    self._built_with = built_values(self)
                    self._start_stream()
                    self._init_model(self.n_features_in_, len(self.classes_))
                    self.n_rounds_ = 0
                    self.n_samples_seen_ = 0
                    self.n_online_mistakes_ = 0.0
                    self._weight_seen = 0.0
        except BaseException:
            # Nothing was learned yet: put back exactly what was there, in
            # place (a reader validating meanwhile never finds it empty).
            with lock:
                restore_attributes(self, saved)
            raise
        self._learn(X, y_encoded, weight)
        return self

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
        # One that reads categories reads string and category columns too.
        tags.input_tags.categorical = tags.input_tags.string = self._reads_categories
        # Left at its default, and true: non_deterministic stays False (a
        # fixed random_state gives the same model; the online plays are random
        # draws from that seed).
        return tags


class BaseLocalRegretClassifier(HedgedPrediction, BaseOnlineClassifier):
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
        "discount": [Interval(Real, SMALLEST_DISCOUNT, 1, closed="both")],
        "random_state": ["random_state", np.random.Generator],
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


def _unpickled(cls, state: bytes):
    """A classifier from what :meth:`BaseOnlineClassifier.__reduce_ex__` saved."""
    obj = cls.__new__(cls)
    obj.__setstate__(unpickled_state(obj, state))
    return obj
