"""The learners of the stream leaderboard, behind one small protocol.

A learner is a name and a function ``make(seed)`` returning a fresh
estimator with scikit-learn's online interface, ``partial_fit(X, y,
classes=...)`` and ``predict(X)`` (raising
:class:`~sklearn.exceptions.NotFittedError` before it has learned anything).
Adding one to the leaderboard is a line::

    LEARNERS["my-learner"] = Learner(lambda seed: MyClassifier(random_state=seed))

or ``run_streams(learners=[..., ("my-learner", Learner(...))])`` without
touching the registry. River models join through :class:`RiverClassifier`, and learners
that need a wrapper to be fair get one here: linear models see standardised
features (:class:`StandardizedClassifier`), and the offline decision tree is
refit on every row seen so far every ``refit_every`` rows
(:class:`RetrainedClassifier`).
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass
from numbers import Integral
from typing import Callable

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Perceptron, SGDClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from .._disjunct import LocalRegretDisjunctClassifier
from .._tree_classifier import LocalRegretTreeClassifier
from ..ensemble import LocalRegretForestClassifier

__all__ = [
    "LEARNERS",
    "Learner",
    "RetrainedClassifier",
    "RiverClassifier",
    "StandardizedClassifier",
    "learner_names",
]

#: Rows between two refits of the retrained decision tree. A refit costs
#: O(n log n) on the n rows seen, so a stream of n rows costs O(n^2 / k) in all:
#: about 25 full-stream fits for the default 5000-row streams.
REFIT_EVERY = 100

#: Rows the swap-regret tree learner is evaluated on: each predict weighs every
#: tree its exact distribution has ever given weight to (thousands after a few
#: hundred rounds), so its cost per row grows with the stream.
SWAP_MAX_ROWS = 600


@dataclass(frozen=True)
class Learner:
    """One learner of the leaderboard.

    Parameters
    ----------
    make : callable
        ``make(seed)`` returns a fresh estimator with ``partial_fit`` and
        ``predict``, seeded by ``seed`` where it is random.
    description : str, default=""
        One line on what it is.
    binary_only : bool, default=False
        Run only on streams with two classes.
    needs_river : bool, default=False
        Needs River installed (left out of the default set otherwise).
    family : str, default="other"
        "local regret", "river", "scikit-learn" or "other".
    max_rows : int or None, default=None
        Evaluate on the first ``max_rows`` rows of each stream only, for a
        learner whose cost grows with the stream too fast for the suite's
        time; the tables mark it.

    Examples
    --------
    >>> from sklearn.linear_model import SGDClassifier
    >>> from sklearn_localregret.experiments.stream_learners import Learner
    >>> log_loss = Learner(lambda seed: SGDClassifier(loss="log_loss",
    ...                                                 random_state=seed))
    >>> log_loss.make(0).loss
    'log_loss'
    """

    make: Callable
    description: str = ""
    binary_only: bool = False
    needs_river: bool = False
    family: str = "other"
    max_rows: int | None = None

    def __post_init__(self):
        rows = self.max_rows
        if rows is not None and (
            not isinstance(rows, Integral) or isinstance(rows, bool) or rows < 1
        ):
            raise ValueError(f"max_rows must be None or an int >= 1; got {rows!r}")


class StandardizedClassifier:
    """An online classifier that sees features standardised online.

    Each ``partial_fit`` first updates a
    :class:`~sklearn.preprocessing.StandardScaler` with the rows (their
    features only), then passes the scaled rows on; ``predict`` scales with the
    statistics so far.

    Parameters
    ----------
    estimator : classifier with ``partial_fit``
        Cloned before use.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def partial_fit(self, X, y, classes=None):
        # The scaler learns on a copy, kept only if the estimator takes the
        # rows (a refused call leaves both as they were).
        fitted = hasattr(self, "estimator_")
        scaler = copy.deepcopy(self.scaler_) if fitted else StandardScaler()
        estimator = self.estimator_ if fitted else clone(self.estimator)
        scaler.partial_fit(X)
        estimator.partial_fit(scaler.transform(X), y, classes=classes)
        self.scaler_, self.estimator_ = scaler, estimator
        return self

    def predict(self, X):
        if not hasattr(self, "estimator_"):
            raise NotFittedError("StandardizedClassifier has not learned yet.")
        return self.estimator_.predict(self.scaler_.transform(X))


class RetrainedClassifier:
    """An offline classifier refit on every row seen, every ``refit_every`` rows.

    The first ``partial_fit`` fits it; later calls refit it once at least
    ``refit_every`` rows have arrived since the last fit. Between refits it
    predicts with the last fit: the usual way to put an offline learner on a
    stream, at a cost that grows with the stream.

    Parameters
    ----------
    estimator : classifier
        Cloned before use.
    refit_every : int, default=REFIT_EVERY
        Rows between refits.
    """

    def __init__(self, estimator, refit_every: int = REFIT_EVERY):
        self.estimator = estimator
        self.refit_every = refit_every

    def partial_fit(self, X, y, classes=None):
        every = self.refit_every
        if not isinstance(every, Integral) or isinstance(every, bool) or every < 1:
            raise ValueError(f"refit_every must be an int >= 1; got {every!r}")
        # Copies (a caller may reuse its buffers), checked before they are kept.
        X, y = np.array(X, copy=True), np.array(y, copy=True)
        kept = self.__dict__.get("_X", [])
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X of shape {X.shape} and y of shape {y.shape}")
        if kept and X.shape[1] != kept[0].shape[1]:
            raise ValueError(
                f"{X.shape[1]} features; the rows so far have {kept[0].shape[1]}"
            )
        pending = self.__dict__.get("_pending", 0) + len(y)
        if not hasattr(self, "estimator_") or pending >= every:
            self.estimator_ = clone(self.estimator).fit(
                np.vstack([*kept, X]), np.concatenate([*self.__dict__.get("_y", []), y])
            )
            pending = 0
        self._X, self._y = [*kept, X], [*self.__dict__.get("_y", []), y]
        self._pending = pending
        return self

    def predict(self, X):
        if not hasattr(self, "estimator_"):
            raise NotFittedError("RetrainedClassifier has not learned yet.")
        return self.estimator_.predict(X)


class RiverClassifier:
    """A River classifier behind ``partial_fit`` / ``predict``.

    Rows become River's dicts (column index to value); ``partial_fit`` calls
    ``learn_one`` on each row in order and ``predict`` calls ``predict_one``
    on each row. A row River cannot predict yet (``None``) counts as wrong.

    Parameters
    ----------
    model : river classifier
        Used as is (make a fresh one per run).
    """

    def __init__(self, model):
        self.model = model

    def partial_fit(self, X, y, classes=None):
        if len(X) != len(y):
            raise ValueError(f"{len(X)} rows and {len(y)} labels: one each")
        for row, label in zip(np.asarray(X).tolist(), np.asarray(y).tolist()):
            self.model.learn_one(dict(enumerate(row)), label)
        self._learned = True
        return self

    def predict(self, X):
        if not getattr(self, "_learned", False):
            raise NotFittedError("RiverClassifier has not learned yet.")
        return np.array(
            [
                self.model.predict_one(dict(enumerate(row)))
                for row in np.asarray(X).tolist()
            ],
            dtype=object,
        )


def _river(factory):
    def make(seed):
        return RiverClassifier(factory(seed))

    return make


def _hoeffding_tree(seed):
    from river import tree

    return tree.HoeffdingTreeClassifier()


def _hoeffding_adaptive_tree(seed):
    from river import tree

    return tree.HoeffdingAdaptiveTreeClassifier(seed=seed)


def _adaptive_random_forest(seed):
    from river import forest

    return forest.ARFClassifier(seed=seed)


#: The leaderboard's learners, in table order. A variant of ours with a new
#: option (e.g. ``discount``) is one more line, e.g.
#: ``"lr-tree-discount": Learner(lambda s: LocalRegretTreeClassifier(
#: discount=0.99, random_state=s), "...", family="local regret")``.
LEARNERS: dict[str, Learner] = {
    "lr-tree": Learner(
        lambda seed: LocalRegretTreeClassifier(random_state=seed),
        "LocalRegretTreeClassifier(): local external regret, L=100",
        family="local regret",
    ),
    "lr-tree-swap": Learner(
        lambda seed: LocalRegretTreeClassifier(regret="swap", L=3, random_state=seed),
        "LocalRegretTreeClassifier(regret='swap', L=3); its predict weighs "
        "every tree of its exact distribution, which grows with the stream, "
        f"so it runs on the first {SWAP_MAX_ROWS} rows",
        family="local regret",
        max_rows=SWAP_MAX_ROWS,
    ),
    "lr-disjunct": Learner(
        lambda seed: LocalRegretDisjunctClassifier(random_state=seed),
        "LocalRegretDisjunctClassifier(): disjunctions of x > 0",
        binary_only=True,
        family="local regret",
    ),
    "lr-forest": Learner(
        lambda seed: LocalRegretForestClassifier(random_state=seed),
        "LocalRegretForestClassifier(): 10 local-regret trees, online bagging, "
        "a drift detector each, AdaHedge over their vote and their own "
        "predictions",
        family="local regret",
    ),
    "river-ht": Learner(
        _river(_hoeffding_tree),
        "River HoeffdingTreeClassifier()",
        needs_river=True,
        family="river",
    ),
    "river-hat": Learner(
        _river(_hoeffding_adaptive_tree),
        "River HoeffdingAdaptiveTreeClassifier() (drift detection)",
        needs_river=True,
        family="river",
    ),
    "river-arf": Learner(
        _river(_adaptive_random_forest),
        "River ARFClassifier(): adaptive random forest of 10 trees",
        needs_river=True,
        family="river",
    ),
    "sgd": Learner(
        lambda seed: StandardizedClassifier(SGDClassifier(random_state=seed)),
        "SGDClassifier() (hinge loss) on online-standardised features",
        family="scikit-learn",
    ),
    "perceptron": Learner(
        lambda seed: StandardizedClassifier(Perceptron(random_state=seed)),
        "Perceptron() on online-standardised features",
        family="scikit-learn",
    ),
    "passive-aggressive": Learner(
        lambda seed: StandardizedClassifier(
            SGDClassifier(
                loss="hinge",
                penalty=None,
                learning_rate="pa1",
                eta0=1.0,
                random_state=seed,
            )
        ),
        "passive-aggressive (PA-I) as SGDClassifier(learning_rate='pa1'), "
        "scikit-learn's replacement for PassiveAggressiveClassifier; "
        "standardised features",
        family="scikit-learn",
    ),
    "gaussian-nb": Learner(
        lambda seed: GaussianNB(), "GaussianNB()", family="scikit-learn"
    ),
    "tree-retrained": Learner(
        lambda seed: RetrainedClassifier(DecisionTreeClassifier(random_state=seed)),
        f"DecisionTreeClassifier() refit on all rows seen every {REFIT_EVERY} rows",
        family="scikit-learn",
    ),
}


def _river_installed() -> bool:
    return importlib.util.find_spec("river") is not None


def learner_names(*, available: bool = False) -> list[str]:
    """Names of the registered learners; ``available=True`` leaves out those
    that need River when it is not installed.

    Examples
    --------
    >>> learner_names()[:3]
    ['lr-tree', 'lr-tree-swap', 'lr-disjunct']
    """
    river = _river_installed() if available else True
    return [
        name for name, learner in LEARNERS.items() if river or not learner.needs_river
    ]
