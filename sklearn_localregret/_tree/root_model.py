"""The hedge's further experts: the root site's models.

The root is in every played tree, so a model of the root is a classifier of
every row learnt, as River's Hoeffding tree predicts at its one leaf before
it splits. Three such models join the vote and the play as experts of the
hedged prediction (AdaHedge over all of them, each scored on every round
as it predicted the round's rows before their call), so that ``predict``
is never much worse than the best of them on the stream (the user guide,
"The hedged prediction"):

* ``"model"``: the root site's naive Bayes model over the tests, where the
  sites keep models (adaptive leaf reads or model leaves);
* ``"gaussian"``: Gaussian naive Bayes over the numeric columns
  (:class:`~sklearn_localregret._tree.root_gaussian.RootGaussian`), which
  smooth class boundaries favour;
* ``"linear"``: a passive-aggressive linear model of the columns (the
  categorical ones one-hot)
  (:class:`~sklearn_localregret._tree.root_linear.RootLinear`), which
  linear concepts and abrupt drifts favour.

The plays, and so the local regret guarantee, do not depend on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._discount_players import resolve_discounts
from .._hedge import PLAY_HANDICAP, AdaHedge
from ..engine.compiled.root_losses import GAUSSIAN, LINEAR, MODEL, root_model_losses
from ..thresholds import ColumnEncoder
from .root_gaussian import RootGaussian
from .root_linear import RootLinear

__all__ = ["RootModelExpert"]


class RootModelExpert:
    """The root models as experts of the hedge (a mixin of
    :class:`~sklearn_localregret.LocalRegretTreeClassifier`)."""

    _hedge: AdaHedge
    _player: Any
    classes_: Any
    _tests: Any
    _columns: Any
    _hedging: Any
    _expert_weights: Any
    discount: Any
    batch_size: Any

    def _start_model_expert(self, n_features: int, n_classes: int) -> None:
        """The hedge's experts: the vote and the play, then (a hedging tree
        but a forest member, whose forest scores their vote and play) the
        root's naive Bayes model where the sites keep models, the root's
        Gaussian model and its linear model. Only the play starts with the
        handicap: the root models, deterministic as the vote, start level
        with it."""
        names = ["vote", "play"]
        if self._hedging() and self.__dict__.get("_root_model_expert", True):
            if self._player.table.models:
                names.append("model")
            names += ["gaussian", "linear"]
            discount = resolve_discounts(self.discount)[0]
            self._root_gaussian = RootGaussian(n_classes, n_features, discount)
            columns = self._columns
            if columns.n_features != n_features:  # a wide input's slots
                columns = ColumnEncoder.numeric(n_features)
            self._root_linear = RootLinear.of_columns(n_classes, columns)
        if len(names) > 2:
            self._experts = tuple(names)
            self._hedge = AdaHedge((0.0, PLAY_HANDICAP) + (0.0,) * (len(names) - 2))

    def _expert_names(self) -> tuple:
        """The hedge's experts by name (models saved with a three-expert hedge
        had the root's naive Bayes model as the third)."""
        names = self.__dict__.get("_experts")
        if names is None:
            return ("vote", "play", "model")[: self._hedge.n_experts]
        return names

    def _has_model_expert(self) -> bool:
        return self._hedge.n_experts > 2

    def _scores_root_models(self) -> bool:
        """Whether a round reads the root models before it is learnt: the
        tree's experts, or a forest member's root naive Bayes model, which
        its forest records (``_round_recorder``)."""
        return self._has_model_expert() or "_round_recorder" in self.__dict__

    def _record_root_model(self, outcomes: np.ndarray) -> None:
        """A forest member's root naive Bayes posteriors of a round's rows,
        before the round is learnt, for its forest's recorder (None where
        the sites keep no models)."""
        models = self._player.table.models
        self._recorded_root = self._root_model_proba(outcomes) if models else None

    def _root_model_proba(self, outcomes: np.ndarray) -> np.ndarray:
        """The root site's naive Bayes model's posteriors of rows with these
        test outcomes (the same for every class before the root has a site)."""
        table = self._player.table
        root = table.find(())
        if root < 0:
            n_classes = len(self.classes_)
            return np.full((outcomes.shape[0], n_classes), 1.0 / n_classes)
        return table.row_model_proba(root, outcomes, counted_only=True)

    def _root_model_labels(self, outcomes: np.ndarray) -> np.ndarray:
        """The root site's naive Bayes model's class indices of these rows."""
        return np.argmax(self._root_model_proba(outcomes), axis=1)

    def _root_expert_proba(self, name: str, X: np.ndarray, outcomes) -> np.ndarray:
        """Root model ``name``'s posteriors of rows ``X`` (their test
        ``outcomes`` if known, else None)."""
        if name == "model":
            if outcomes is None:
                outcomes = self._tests.outcomes(X)
            return self._root_model_proba(outcomes)
        if name == "linear":
            return self._root_linear.proba(X, self._numeric_columns())
        return self._root_gaussian.proba(X, self._numeric_columns())

    def _numeric_columns(self):
        """Which columns the Gaussian and linear models read (not the
        categorical ones); None: all."""
        columns = self._columns
        if columns.n_features != self._tests.n_features:  # a wide input's slots
            return None
        return columns.not_categorical

    def _linear_inputs(self, X: np.ndarray) -> tuple | None:
        """What the linear model reads of rows ``X`` (:meth:`RootLinear.inputs`:
        categorical columns one-hot), for the rounds of a call to share; None
        without the model."""
        linear = self.__dict__.get("_root_linear")
        if linear is None:
            return None
        return linear.inputs(X, self._numeric_columns(), learning=True)

    def _round_expert_losses(
        self, X, outcomes, y, weight, linear_inputs=None
    ) -> list | None:
        """Each further expert's loss on a round's rows (before the round is
        learnt): the weight of the rows whose class, the first most probable
        under its posterior, is wrong (the class :meth:`predict` gives).
        ``linear_inputs``: :meth:`_linear_inputs` of ``X``, if known. A
        forest member has no further expert: it records its root model."""
        if not self._has_model_expert():
            self._record_root_model(outcomes)
            return None
        names = self._expert_names()[2:]
        n_classes = len(self.classes_)
        if "model" in names:
            table = self._player.table
            odds, base, n_tests = table.model_arrays()
            root = table.find(())
            if root >= 0:  # the expert's model, as _root_model_proba reads it
                odds, base = table.counted_model(root)
                root = 0
        else:
            odds, base, n_tests = (
                np.zeros((1, 0, n_classes)),
                np.zeros((1, n_classes)),
                0,
            )
            root = -1
        gaussian = self.__dict__.get("_root_gaussian")
        linear = self.__dict__.get("_root_linear")
        columns = self._numeric_columns()
        if columns is None:
            columns = np.ones(X.shape[1], dtype=bool)
        if linear is not None:
            X_linear, columns_linear = linear_inputs or linear.inputs(
                X, columns, learning=True
            )
        else:
            X_linear, columns_linear = X, columns
        out = np.zeros(len(names))
        root_model_losses(
            np.array([_CODES[name] for name in names], dtype=np.int64),
            odds,
            base,
            root,
            np.ascontiguousarray(outcomes, dtype=bool),
            n_tests,
            _sums(gaussian, n_classes, ("weight", "count", "total", "squares")),
            _sums(
                linear, n_classes, ("coef", "intercept", "count", "total", "squares")
            ),
            # (the Gaussian model's rows: less its columns' first values)
            np.ascontiguousarray(X if gaussian is None else gaussian.shifted(X)),
            np.ascontiguousarray(columns, dtype=bool),
            np.ascontiguousarray(X_linear, dtype=np.float64),
            np.ascontiguousarray(columns_linear, dtype=bool),
            np.asarray(y, dtype=np.int64),
            np.asarray(weight, dtype=np.float64),
            out,
        )
        return out.tolist()

    def _learn_root_models(
        self, X: np.ndarray, y: np.ndarray, weight, linear_inputs=None
    ) -> None:
        """The Gaussian model (decayed as the table is) and the linear model
        learn a round's rows (the naive Bayes model is the root site's,
        learnt with the table); ``linear_inputs``: :meth:`_linear_inputs` of
        ``X``, if known."""
        model = self.__dict__.get("_root_gaussian")
        if model is not None:
            decay = model.discount ** (y.shape[0] / self.batch_size)
            model.learn(X, y, weight, decay)
        linear = self.__dict__.get("_root_linear")
        if linear is not None:
            columns = self._numeric_columns()
            linear.learn(X, y, weight, columns, inputs=linear_inputs)

    def _expert_labels(self, k: int, block: np.ndarray) -> np.ndarray:
        return np.argmax(self._expert_proba(k, block), axis=1)

    def _expert_proba(self, k: int, block: np.ndarray) -> np.ndarray:
        return self._root_expert_proba(self._expert_names()[2 + k], block, None)

    def _named_weight(self, name: str) -> float:
        check_is_fitted(self)
        names = self._expert_names()
        if name not in names[2:]:
            return 0.0
        weights = self._expert_weights()
        return weights[names.index(name) - 2] if weights else 0.0

    @property
    def model_weight_(self) -> float:
        """Probability that :meth:`predict` gives the root site's naive Bayes
        model's class (0 without that expert: sites that keep no models,
        ``prediction`` other than the hedge, forest members, or a model saved
        before it)."""
        return self._named_weight("model")

    @property
    def gaussian_weight_(self) -> float:
        """Probability that :meth:`predict` gives the root's Gaussian naive
        Bayes model's class (0 without that expert, as :attr:`model_weight_`)."""
        return self._named_weight("gaussian")

    @property
    def linear_weight_(self) -> float:
        """Probability that :meth:`predict` gives the root's linear
        (passive-aggressive) model's class (0 without that expert, as
        :attr:`model_weight_`)."""
        return self._named_weight("linear")


_CODES = {"model": MODEL, "gaussian": GAUSSIAN, "linear": LINEAR}
_GAUSSIAN_SUMS = ("weight", "count", "total", "squares")
_LINEAR_SUMS = ("coef", "intercept", "count", "total", "squares")


def _sums(model, n_classes: int, names: tuple) -> tuple:
    """A root model's arrays for :func:`root_model_losses` (empty if None)."""
    if model is not None:
        return tuple(getattr(model, name) for name in names)
    if names[0] == "coef":  # the linear model: coef, intercept, column sums
        return (np.zeros((n_classes, 0)), np.zeros(n_classes)) + (np.zeros(0),) * 3
    return (np.zeros(n_classes),) + (np.zeros((n_classes, 0)),) * 3
