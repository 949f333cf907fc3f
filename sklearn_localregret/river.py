"""River's ``learn_one`` / ``predict_one`` interface to the package's classifiers.

:class:`RiverAdapter` wraps a :class:`~sklearn_localregret.LocalRegretTreeClassifier`,
:class:`~sklearn_localregret.LocalRegretForestClassifier`,
:class:`~sklearn_localregret.LocalRegretDisjunctClassifier` or
:class:`~sklearn_localregret.baselines.Winnow2Classifier` as a River classifier:
dict rows in, labels and dicts of probabilities out, usable wherever River takes
a classifier (``evaluate.progressive_val_score``, pipelines after
``preprocessing.OneHotEncoder`` given its ``categories``: the first row's keys
are the columns). Each ``learn_one`` is one round of one row,
exactly ``partial_fit`` on that row, without scikit-learn's validation: the
adapter maps feature names to columns once and checks each row itself.

River is an optional dependency (the ``interop`` extra): importing this module
does not import it; the first use of :class:`RiverAdapter` does, and says how to
install it when it is missing.

Examples
--------
>>> from river import datasets, evaluate, metrics
>>> from sklearn_localregret import LocalRegretTreeClassifier
>>> from sklearn_localregret.river import RiverAdapter
>>> model = RiverAdapter(LocalRegretTreeClassifier(random_state=0))
>>> accuracy = evaluate.progressive_val_score(
...     datasets.Phishing(), model, metrics.Accuracy())
>>> accuracy.get() > 0.8
True
>>> proba = model.predict_proba_one({"empty_server_form_handler": 1.0})
>>> sorted(proba), round(sum(proba.values()), 6)
([False, True], 1.0)
"""

from __future__ import annotations

# Defined on first use (River is imported then): see __getattr__.
__all__ = ["RiverAdapter"]  # noqa: F822

_CLASSES: dict[str, type] = {}


def __getattr__(name: str):
    if name == "RiverAdapter":
        if name not in _CLASSES:
            _CLASSES[name] = _build_adapter()
        return _CLASSES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *__all__])


def _build_adapter():
    try:
        from river import base
    except ImportError as exc:
        raise ImportError(
            "sklearn_localregret.river needs River: pip install river (or the "
            "package's 'interop' extra)."
        ) from exc

    from collections import deque

    import numpy as np
    from sklearn.base import clone
    from sklearn.utils import get_tags
    from sklearn.utils.multiclass import unique_labels

    from ._base import BaseOnlineClassifier
    from ._river_rows import (
        check_label,
        checked_learner,
        dict_row,
        labels_with,
        loaded_replay_rows,
        saved_replay_rows,
        sorted_names,
        warn_ignored_keys,
    )

    class RiverAdapter(base.Classifier):
        """A classifier of this package as a River classifier (``learn_one``,
        ``predict_one``, ``predict_proba_one`` on dict rows).

        Parameters
        ----------
        estimator : LocalRegretTreeClassifier, LocalRegretForestClassifier, \
LocalRegretDisjunctClassifier or Winnow2Classifier
            The learner, with its parameters; the adapter learns with a clone
            of it (:attr:`estimator_`) and leaves it untouched. Its
            ``batch_size`` does not apply: every ``learn_one`` is a round of
            one row, as ``partial_fit`` on one row is.
        classes : list or None, default=None
            Every label the stream can carry. Given, a label outside it is an
            error. None: a multi-class learner discovers the labels as they
            come (see Notes); a binary-only learner (disjunctions, Winnow2)
            takes River's binary convention, ``[False, True]``.
        replay_rows : int, default=1000
            With ``classes=None`` and a multi-class learner: how many recent
            rows are kept to be learnt again when a new label appears.
        absent : {"zero", "missing"}, default="zero"
            What a feature absent from a row (or None) is: 0, as in River's
            sparse rows (``preprocessing.OneHotEncoder(drop_zeros=True)``),
            or a missing value, for a learner that reads them
            (:class:`~sklearn_localregret.LocalRegretTreeClassifier`).

        Attributes
        ----------
        estimator_ : estimator or None
            The fitted clone of ``estimator`` (None before the first
            ``learn_one``). Its ``classes_`` are :attr:`classes_`; it predicts
            as the adapter does and can be used with scikit-learn.
        classes_ : list
            The labels known, in the learner's order (sorted): the keys of
            :meth:`predict_proba_one`.
        feature_names_ : list or None
            The columns: the names of the first row learnt, sorted.
        n_restarts_ : int
            How many times a new label made the learner start again.
        n_replay_rows_ : int
            Rows kept to be learnt again when a new label appears: the last
            ``replay_rows`` rows at most, 0 when no rows are kept (``classes``
            given, or a binary-only learner).

        Notes
        -----
        **Rows.** The first row learnt fixes the features: its names, sorted,
        are the columns (so the order of a dict's keys never matters). In
        later rows a missing name, or the value None, reads as 0 (River's
        sparse rows, e.g. from ``preprocessing.OneHotEncoder``, leave zeros
        out) or, with ``absent="missing"``, as a missing value; a name not
        among the columns is ignored (warned once: give River's
        ``OneHotEncoder`` its ``categories``, or the tree raw strings). (For
        the tree learner, 0 applies to
        numeric columns only: an absent category, or None in a column whose
        type is not known yet, is missing.) Values are real numbers (bools count
        as 0/1). The tree learner also reads NaN (a missing value) and
        strings (categories: a feature whose first value is a string is a
        categorical column; see
        :class:`~sklearn_localregret.LocalRegretTreeClassifier`); the other
        learners refuse them. A value refused, an infinity, or a feature that
        changes type raises ``TypeError`` or ``ValueError`` naming the
        feature, and the model is unchanged.

        **Labels.** The learners need every label before they start, River
        streams reveal them as they go. With ``classes=None`` a multi-class
        learner starts with the labels seen; when a new label arrives, it
        starts again with all labels known, learns again the last
        ``replay_rows`` rows, one ``learn_one`` at a time as they came, then
        the new row. While the stream is no longer than ``replay_rows`` the
        result is exactly the model that knew every label from the start;
        after that, what was learnt before the last ``replay_rows`` rows is
        lost at each new label. Pass ``classes`` when the labels are known
        (no rows are kept then).

        **Before any learning** ``predict_proba_one`` gives the learner's
        first play, the first class with probability 1 (an empty dict while
        no label is known), and ``predict_one`` its label (None).

        Examples
        --------
        >>> from sklearn_localregret import LocalRegretDisjunctClassifier
        >>> from sklearn_localregret.river import RiverAdapter
        >>> model = RiverAdapter(LocalRegretDisjunctClassifier(random_state=0))
        >>> model.predict_proba_one({"a": 1, "b": 0})
        {False: 1.0, True: 0.0}
        >>> for _ in range(20):
        ...     model.learn_one({"a": 1, "b": 0}, True)
        ...     model.learn_one({"a": 0, "b": 1}, False)
        >>> model.predict_one({"a": 1}), model.predict_one({"b": 1})
        (True, False)
        """

        # The state, set by the first learn_one (an __init__ stores the
        # parameters only).
        estimator_ = None
        feature_names_ = None
        n_restarts_ = 0
        _classes = None
        _index = None
        _recent = None

        def __init__(
            self,
            estimator,
            *,
            classes=None,
            replay_rows: int = 1000,
            absent: str = "zero",
        ):
            self.estimator = estimator
            self.classes = classes
            self.replay_rows = replay_rows
            self.absent = absent

        @property
        def classes_(self) -> list:
            if self._classes is not None:
                return list(self._classes)
            return [] if self._discovers() else self._fixed_classes()

        @property
        def n_replay_rows_(self) -> int:
            """Rows kept to be learnt again when a new label appears.

            Examples
            --------
            >>> from sklearn_localregret import LocalRegretTreeClassifier
            >>> from sklearn_localregret.river import RiverAdapter
            >>> model = RiverAdapter(LocalRegretTreeClassifier(), replay_rows=2)
            >>> for i in range(3):
            ...     model.learn_one({"a": i % 2}, "yes" if i % 2 else "no")
            >>> model.n_replay_rows_
            2
            >>> known = RiverAdapter(LocalRegretTreeClassifier(), classes=["no", "yes"])
            >>> known.learn_one({"a": 1}, "yes")
            >>> known.n_replay_rows_
            0
            """
            return 0 if self._recent is None else len(self._recent)

        def __getstate__(self):
            state = self.__dict__.copy()
            if state.get("_recent") is not None:
                state["_recent"] = saved_replay_rows(state["_recent"])
            return state

        def __setstate__(self, state):
            self.__dict__.update(state)
            if self._recent is not None and not isinstance(self._recent, deque):
                self._recent = loaded_replay_rows(self._recent, int(self.replay_rows))

        def _check_params(self) -> None:
            if not isinstance(self.estimator, BaseOnlineClassifier):
                raise TypeError(
                    "estimator must be a classifier of sklearn_localregret "
                    "(LocalRegretTreeClassifier, LocalRegretForestClassifier, "
                    "LocalRegretDisjunctClassifier, Winnow2Classifier); got "
                    f"{type(self.estimator).__name__}."
                )
            if isinstance(self.classes, str):  # (its letters are no labels)
                raise TypeError(
                    f"classes must be a list of labels, not {self.classes!r}."
                )
            for label in () if self.classes is None else self.classes:
                check_label(label)
            rows = self.replay_rows
            if (
                isinstance(rows, bool)
                or not isinstance(rows, (int, np.integer))
                or rows < 0
            ):
                raise ValueError(
                    f"replay_rows must be a non-negative integer, got {rows!r}."
                )
            if self.absent not in ("zero", "missing"):
                raise ValueError(
                    f"absent must be 'zero' or 'missing', got {self.absent!r}."
                )
            if self.absent == "missing" and not self.estimator._allow_nan:
                raise ValueError(
                    f"absent='missing' needs a learner that reads missing "
                    f"values; {type(self.estimator).__name__} does not "
                    "(LocalRegretTreeClassifier does)."
                )

        def _binary_only(self) -> bool:
            return not get_tags(self.estimator).classifier_tags.multi_class

        def _discovers(self) -> bool:
            return self.classes is None and not self._binary_only()

        def _fixed_classes(self) -> list:
            given = [False, True] if self.classes is None else list(self.classes)
            return unique_labels(given).tolist()

        @property
        def _multiclass(self) -> bool:
            if self.classes is not None:
                return len(self.classes) > 2
            return not self._binary_only()

        # -- reading rows and labels ---------------------------------------
        def _row(self, x, names) -> np.ndarray:
            """``x`` as a row of the columns ``names`` (see Notes): float64,
            or objects when it holds categories; not yet encoded."""
            return dict_row(x, names, self.estimator, self.estimator_, self.absent)

        def _encoded(self, row, learning: bool) -> np.ndarray:
            """The fitted learner's rows from :meth:`_row` (categories coded;
            while ``learning``, new ones kept)."""
            estimator = checked_learner(self.estimator_, learning)
            row = estimator._encode_columns(
                row, learning=learning, names=self.feature_names_
            )
            return estimator._encode_features(np.asarray(row, dtype=np.float64))

        # -- learning --------------------------------------------------------
        def learn_one(self, x, y) -> None:
            """Learn one row: one round of the learner on ``x`` labelled ``y``.

            Parameters
            ----------
            x : dict
                Feature name -> real value.
            y : str, number or bool
                The label.
            """
            if self.estimator_ is None:
                self._learn_first(x, y)
                return
            row = self._row(x, self.feature_names_)
            check_label(y)
            code = self._index.get(y)
            estimator = checked_learner(self.estimator_, learning=True)
            if code is not None:
                names = self.feature_names_
                encoded = estimator._encode_columns(row, learning=True, names=names)
                estimator._learn_clean_rows(encoded, np.array([code]))
            elif self._recent is not None:
                self._refit([*self._recent, (row, y)], labels_with(self._classes, y))
                self.n_restarts_ += 1
            else:
                raise ValueError(self._unknown(y))
            if self._recent is not None:
                self._recent.append((row, y))
            if not self.__dict__.get("_warned_keys"):  # (once it is learnt)
                warn_ignored_keys(self, x)

        def _unknown(self, y) -> str:
            hint = (
                "; a binary-only learner takes River's binary labels unless "
                "classes= is given."
                if self.classes is None
                else "."
            )
            return f"label {y!r} is not in classes {self.classes_!r}{hint}"

        def _learn_first(self, x, y) -> None:
            self._check_params()
            names = sorted_names(x) if isinstance(x, dict) else None
            row = self._row(x, names)
            if not names:
                raise ValueError(
                    "the first row learnt has no features: its names fix the "
                    "columns of the model."
                )
            check_label(y)
            discovers = self._discovers()
            if discovers:
                classes = [y]
            else:
                classes = self._fixed_classes()
                if y not in classes:
                    raise ValueError(self._unknown(y))
            self._refit([(row, y)], unique_labels(classes).tolist())
            self.feature_names_, self._column_set = names, set(names)  # (skops: set)
            if discovers:
                self._recent = deque([(row, y)], maxlen=int(self.replay_rows))

        def _refit(self, rows: list, classes: list) -> None:
            """A new learner for ``classes`` that learns ``rows`` ((row, label)
            pairs), one call each; swapped in only once it has learnt them."""
            index = {label: i for i, label in enumerate(classes)}
            known = np.asarray(classes)
            estimator = clone(self.estimator)
            row, label = rows[0]
            estimator.partial_fit(row, known[[index[label]]], classes=known)
            for row, label in rows[1:]:
                encoded = estimator._encode_columns(
                    row, learning=True, names=self.feature_names_
                )
                estimator._learn_clean_rows(encoded, np.array([index[label]]))
            self.estimator_, self._classes, self._index = estimator, classes, index

        # -- predicting ------------------------------------------------------
        def _proba(self, x) -> np.ndarray:
            estimator = self.estimator_
            row = self._encoded(self._row(x, self.feature_names_), learning=False)
            # A sum of Monte Carlo shares can exceed 1 by a rounding error;
            # River wants probabilities in [0, 1].
            return np.clip(estimator._predict_proba_checked(row)[0], 0.0, 1.0)

        def predict_proba_one(self, x, **kwargs) -> dict:
            """Probability of each label under the learner's distribution.

            Parameters
            ----------
            x : dict
                Feature name -> real value.

            Returns
            -------
            dict
                Label -> probability, for every label in :attr:`classes_`.
            """
            if not hasattr(self.estimator, "predict_proba"):
                raise NotImplementedError(
                    f"{type(self.estimator).__name__} has no predict_proba."
                )
            if self.estimator_ is None:
                return {label: float(i == 0) for i, label in enumerate(self.classes_)}
            return dict(zip(self._classes, self._proba(x).tolist()))

        def predict_one(self, x, **kwargs):
            """The estimator's ``predict`` of the row (its ``prediction`` rule).

            Parameters
            ----------
            x : dict
                Feature name -> real value.

            Returns
            -------
            label or None
                None while no label is known.
            """
            if self.estimator_ is None:
                classes = self.classes_
                return classes[0] if classes else None
            estimator = self.estimator_
            if not hasattr(estimator, "_predicted_indices"):
                row = self._row(x, self.feature_names_)
                return estimator.predict(row)[0].item()
            row = self._encoded(self._row(x, self.feature_names_), learning=False)
            return self._classes[int(estimator._predicted_indices(row)[0])]

        @classmethod
        def _unit_test_params(cls):
            from sklearn_localregret import (
                LocalRegretDisjunctClassifier,
                LocalRegretForestClassifier,
                LocalRegretTreeClassifier,
            )

            yield {
                "estimator": LocalRegretTreeClassifier(
                    max_depth=3, n_predict_trees=5, random_state=0
                )
            }
            yield {"estimator": LocalRegretDisjunctClassifier(random_state=0)}
            yield {
                "estimator": LocalRegretForestClassifier(
                    n_estimators=2, max_depth=3, random_state=0
                )
            }

    RiverAdapter.__module__ = __name__
    RiverAdapter.__qualname__ = "RiverAdapter"
    return RiverAdapter
