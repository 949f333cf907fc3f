"""The hedge's further experts: the root site's models.

The root is in every played tree, so a model of the root is a classifier of
every row learnt, as River's Hoeffding tree predicts at its one leaf before
it splits. Two such models join the vote and the play as experts of the
hedged prediction (AdaHedge over all of them, each scored on every round
before the round is learnt), so that ``predict`` is never much worse than
the best of them on the stream (the user guide, "The hedged prediction"):

* ``"model"``: the root site's naive Bayes model over the tests, where the
  sites keep models (adaptive leaf reads or model leaves);
* ``"gaussian"``: Gaussian naive Bayes over the numeric columns
  (:class:`~sklearn_localregret._tree.root_gaussian.RootGaussian`), which
  a linear concept favours.

The plays, and so the local regret guarantee, do not depend on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._discount_players import resolve_discounts
from .._hedge import PLAY_HANDICAP, AdaHedge
from .root_gaussian import RootGaussian

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
        root's naive Bayes model where the sites keep models, and the
        root's Gaussian model."""
        names = ["vote", "play"]
        if self._hedging() and self.__dict__.get("_root_model_expert", True):
            if self._player.table.models:
                names.append("model")
            names.append("gaussian")
            discount = resolve_discounts(self.discount)[0]
            self._root_gaussian = RootGaussian(n_classes, n_features, discount)
        if len(names) > 2:
            self._experts = tuple(names)
            self._hedge = AdaHedge((0.0,) + (PLAY_HANDICAP,) * (len(names) - 1))

    def _expert_names(self) -> tuple:
        """The hedge's experts by name (models saved with a three-expert hedge
        had the root's naive Bayes model as the third)."""
        names = self.__dict__.get("_experts")
        if names is None:
            return ("vote", "play", "model")[: self._hedge.n_experts]
        return names

    def _has_model_expert(self) -> bool:
        return self._hedge.n_experts > 2

    def _root_model_proba(self, outcomes: np.ndarray) -> np.ndarray:
        """The root site's naive Bayes model's posteriors of rows with these
        test outcomes (the same for every class before the root has a site)."""
        table = self._player.table
        root = table.find(())
        if root < 0:
            n_classes = len(self.classes_)
            return np.full((outcomes.shape[0], n_classes), 1.0 / n_classes)
        return table.row_model_proba(root, outcomes)

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
        categorical = self._columns.categorical
        numeric = None if categorical is None else ~categorical
        return self._root_gaussian.proba(X, numeric)

    # An expert's class is the first most probable under its posterior, in
    # the rounds that score it as in predict (and predict_proba gives that
    # posterior on the rows it predicts).
    def _round_expert_labels(self, X: np.ndarray, outcomes: np.ndarray) -> list:
        """Each further expert's class indices of a round's rows (before the
        round is learnt)."""
        return [
            np.argmax(self._root_expert_proba(name, X, outcomes), axis=1)
            for name in self._expert_names()[2:]
        ]

    def _learn_root_models(self, X: np.ndarray, y: np.ndarray, weight) -> None:
        """The Gaussian model learns a round's rows (the naive Bayes model is
        the root site's, learnt with the table), decayed as the table is."""
        model = self.__dict__.get("_root_gaussian")
        if model is not None:
            decay = model.discount ** (y.shape[0] / self.batch_size)
            model.learn(X, y, weight, decay)

    def _expert_labels(self, k: int, block: np.ndarray) -> np.ndarray:
        return np.argmax(self._expert_proba(k, block), axis=1)

    def _expert_proba(self, k: int, block: np.ndarray) -> np.ndarray:
        return self._root_expert_proba(self._expert_names()[2 + k], block, None)

    def pi_proba(self, X):
        """Probability of each class under the current distribution pi over trees.

        What the vote and the play predict from, exact (or within
        ``predict_tolerance``, or from ``n_predict_trees`` draws, as set).
        :meth:`predict_proba` gives these too, except for the rows whose
        hedged prediction a root model makes (:attr:`model_weight_`,
        :attr:`gaussian_weight_`): there it gives that model's posterior.

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
