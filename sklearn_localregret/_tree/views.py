"""The tree learner's public views: inspection and diagnostics.

:class:`TreeViews` is the part of
:class:`~sklearn_localregret.LocalRegretTreeClassifier` that reads a fitted
model and changes nothing: the representative tree and its text, the tree
distribution, and the attributes computed from the regret table and the
tests (``local_regret_``, ``regret_table_``, ``test_features_``, ...).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._discount_players import DiscountPlayers
from ..engine import StumpRegretTable
from ..locality.decision_tree import Tree, depth, export_text, n_leaves
from ..thresholds import ColumnEncoder, ThresholdTests
from .players import TreePlayer

__all__ = ["TreeViews"]


class TreeViews:
    """Inspection methods and diagnostic attributes of the tree learner (a
    mixin of :class:`~sklearn_localregret.LocalRegretTreeClassifier`)."""

    # What the views read of the estimator (set by its rounds).
    regret: str
    n_predict_trees: Any
    classes_: np.ndarray
    _player: TreePlayer
    _tests: ThresholdTests
    _test_columns: Any
    _columns: ColumnEncoder
    _players: DiscountPlayers | None
    _model_lock: Callable[[], threading.RLock]

    # -- inspection -------------------------------------------------------
    def representative_tree(self) -> Tree:
        """One tree that summarises the current distribution ``pi``.

        Swap regret: the most probable tree (exact). External regret: the
        greedy top-down mode of the hierarchical distribution, at each site
        the heaviest content (a leaf, or a split with its heaviest label
        pair), a site without positive regret keeping the leaf it starts as.
        That is not in general the most probable tree: two children of a
        split share their age, so a tree's probability does not factor over
        its sites, and the exact mode is not computed.

        Returns
        -------
        Leaf or Split
        """
        check_is_fitted(self)
        with self._model_lock():  # between two rounds of a learning thread
            return self._player.representative_tree()

    def most_probable_tree(self) -> Tree:
        """Deprecated name of :meth:`representative_tree`.

        For external regret the tree returned is a greedy mode, not the most
        probable tree; the name promised more than the method does.
        """
        warnings.warn(
            "most_probable_tree() is renamed representative_tree(): for "
            "external regret it is a greedy mode, not the most probable tree. "
            "The old name will be removed in a future release.",
            FutureWarning,
            stacklevel=2,
        )
        return self.representative_tree()

    def tree_distribution(self) -> tuple[list, np.ndarray]:
        """The trees ``predict_proba`` averages over, and their weights.

        Swap regret: the exact stationary distribution ``pi`` over trees,
        every tree with positive probability. External regret with
        ``n_predict_trees`` set: the fixed-seed sample ``predict_proba``
        uses, as relative frequencies (``predict_proba`` is deterministic,
        so is this). External regret by default has no list of trees:
        ``pi`` is hierarchical and ``predict_proba`` computes its label
        probabilities exactly, site by site, without enumerating trees; a
        ``ValueError`` says so.

        Returns
        -------
        trees : list of Leaf or Split
            Distinct trees, each once.
        probabilities : ndarray of shape (len(trees),)
            Their weights (summing to 1), a read-only array.

        Raises
        ------
        ValueError
            For external regret with ``n_predict_trees=None``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_localregret import LocalRegretTreeClassifier
        >>> X = np.array([[0.0], [1.0]] * 20)
        >>> y = np.array([0, 1] * 20)
        >>> clf = LocalRegretTreeClassifier("swap", L=2, random_state=0).fit(X, y)
        >>> trees, probs = clf.tree_distribution()
        >>> bool(np.isclose(probs.sum(), 1.0)), probs.flags.writeable
        (True, False)
        >>> trees[int(np.argmax(probs))] == clf.representative_tree()
        True
        """
        check_is_fitted(self)
        if self._player.walks(self.n_predict_trees):
            raise ValueError(
                "tree_distribution() needs regret='swap' or n_predict_trees: "
                "with external regret pi is hierarchical and predict_proba "
                "computes it site by site, without a list of trees."
            )
        trees, probs = self._player.distribution(self.n_predict_trees)
        probs = np.array(probs, dtype=float)
        probs.flags.writeable = False
        return list(trees), probs

    def export_text(
        self, tree=None, feature_names=None, class_names=None, decimals=2
    ) -> str:
        """Text view of a tree, like :func:`sklearn.tree.export_text`.

        Parameters
        ----------
        tree : Leaf or Split, default=None
            The tree to show; :meth:`representative_tree` if None.
        feature_names : sequence of str, default=None
            Defaults to ``feature_names_in_`` when fitted on a DataFrame, else
            ``feature_<i>``.
        class_names : sequence, default=None
            Name of each class, in the order of ``classes_``; defaults to
            ``classes_``. A model leaf shows as ``class: naive Bayes``.
        decimals : int, default=2
            Digits after the point of the thresholds (as scikit-learn's):
            columns of small values need more (a threshold of 6.4e-05 prints
            as ``0.00`` on both sides at 2).

        Returns
        -------
        str
        """
        check_is_fitted(self)
        if tree is None:
            tree = self.representative_tree()
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        elif len(feature_names) != (width := getattr(self, "n_features_in_")):
            raise ValueError(
                f"feature_names must contain {width} names, got {len(feature_names)}"
            )
        if class_names is None:
            class_names = self.classes_
        elif len(class_names) != len(self.classes_):
            raise ValueError(
                f"class_names must contain {len(self.classes_)} names, got "
                f"{len(class_names)}"
            )
        if self._player.table.leaf_model:
            class_names = [*class_names, "naive Bayes"]  # label K: the model
        tests, columns = self._tests, self._columns
        descriptions = [
            (
                j,
                *tests.description(
                    v, columns.category(j, t) if columns.categorical[j] else None
                )[1:],
            )
            for v, (j, t) in enumerate(
                zip(self._test_columns().tolist(), tests.threshold.tolist())
            )
        ]
        return export_text(
            tree, feature_names, class_names, decimals=decimals, tests=descriptions
        )

    def get_depth(self) -> int:
        """Depth of :meth:`representative_tree` (a leaf has depth 0)."""
        return depth(self.representative_tree())

    def get_n_leaves(self) -> int:
        """Number of leaves of :meth:`representative_tree`."""
        return n_leaves(self.representative_tree())

    # -- diagnostics --------------------------------------------------------
    @property
    def discounts_(self) -> tuple[float, ...]:
        """The discounts learnt at, one player each."""
        check_is_fitted(self)
        if self._players is None:
            return (float(self._player.table.clock.discount),)
        return self._players.discounts

    @property
    def discount_weights_(self) -> np.ndarray:
        """Each discount's weight in the probabilities (AdaHedge's)."""
        check_is_fitted(self)
        if self._players is None:
            return np.ones(1)
        return self._players.weights()

    @property
    def discount_regret_bound_(self) -> float:
        """``2 Delta`` of the hedge over the discounts (0 with one)."""
        check_is_fitted(self)
        if self._players is None:
            return 0.0
        return self._players.hedge.regret_bound

    @property
    def last_tree_(self) -> Tree:
        """The tree played in the last round (by the leading player)."""
        check_is_fitted(self)
        return self._player.last_tree

    @property
    def n_mcmc_draws_(self) -> int:
        """Rounds whose tree came from the approximate chain sampler."""
        check_is_fitted(self)
        return self._player.n_mcmc_draws

    @n_mcmc_draws_.setter
    def n_mcmc_draws_(self, value: int) -> None:
        # A merge adds the counters by name (sklearn_localregret.merging).
        self._player.n_mcmc_draws = value

    @property
    def _largest_round(self) -> float:
        """The player's scale of forgetting, kept at the largest by a merge."""
        return self._player.largest_round

    @_largest_round.setter
    def _largest_round(self, value: float) -> None:
        self._player.largest_round = value

    @property
    def local_regret_(self) -> float:
        """Time-averaged local colored (external) or local swap regret."""
        check_is_fitted(self)
        player = self._player
        return player.regret_sum() / max(player.table.effective_rounds, 1.0)

    @property
    def n_nonzero_regrets_(self) -> int:
        """Number of non-zero (biased) regret values tracked."""
        check_is_fitted(self)
        return self._player.table.n_nonzero()

    @property
    def regret_table_(self) -> StumpRegretTable:
        """The learner's regret table, for inspection: read it, never update it.

        Rows are keyed by path (external) or ``(tree, path)`` (swap); see
        :class:`~sklearn_localregret.engine.StumpRegretTable` for its views.
        """
        check_is_fitted(self)
        return self._player.table

    @property
    def regret_nbytes_(self) -> int:
        """Bytes of regret state: ``8 (2C + 2 T K + 2 T)`` per site row
        (``C`` leaf colours: ``K``, ``K + 1`` with model leaves)."""
        check_is_fitted(self)
        return self._player.table.nbytes

    @property
    def n_sites_(self) -> int:
        """Rows of the regret table: paths (external) or (tree, path) pairs (swap)."""
        check_is_fitted(self)
        return self._player.table.n_rows

    @property
    def test_features_(self) -> np.ndarray:
        """Feature of each threshold test ``x_j > t``, in order of entry."""
        check_is_fitted(self)
        return self._test_columns().copy()

    @property
    def test_thresholds_(self) -> np.ndarray:
        """Threshold of each test ``x_j > t``, in order of entry (the code of
        ``c`` for a test ``x_j == c``)."""
        check_is_fitted(self)
        return self._tests.threshold.copy()

    @property
    def test_kinds_(self) -> np.ndarray:
        """``">"``, ``"> or missing"`` or ``"=="`` for each test."""
        check_is_fitted(self)
        return np.array([">", "> or missing", "=="])[self._tests.kind]

    @property
    def categories_(self) -> list:
        """Categories of each categorical column in code order (None: the
        missing value); None for a numeric column."""
        check_is_fitted(self)
        return [None if c is None else list(c) for c in self._columns.categories]
