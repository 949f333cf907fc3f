"""Refusing a loaded model whose saved numbers disagree with each other.

:func:`check_consistency` (public as
:func:`sklearn_localregret.persistence.check_consistency`): the counts and
shapes the estimators rely on, then two probe rows predicted.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from ._disjunct import LocalRegretDisjunctClassifier
from ._tree.root_linear import RootLinear
from ._tree_classifier import LocalRegretTreeClassifier
from .baselines.winnow2 import Winnow2Classifier
from .ensemble import LocalRegretForestClassifier
from .ensemble._adwin import ADWIN
from .maxsat import OnlineMaxSAT
from .merging._tree import tree_players

__all__ = ["check_consistency"]


def check_consistency(model) -> None:
    """Refuse a model whose saved numbers disagree with each other.

    A skops file made only of trusted types can still carry forged values:
    an ``n_features_in_`` larger than the tables it indexes loaded and then
    failed with ``IndexError`` at the first ``predict``. This checks the
    counts and shapes the estimators rely on (features, classes, variables,
    the thresholds' features, the weight vector), then predicts two probe rows
    (all zeros, all ones), which reads every table a prediction reads.
    Predicting does not change a model, so a checked model learns on as the
    saved one would. Pipelines and the River adapter are checked step by
    step; other objects pass.

    Parameters
    ----------
    model : estimator, Pipeline or RiverAdapter

    Raises
    ------
    ValueError
        Naming the estimator and what disagrees.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.baselines import Winnow2Classifier
    >>> model = Winnow2Classifier().fit(np.eye(3, dtype=int), [0, 1, 1])
    >>> check_consistency(model)
    >>> model.n_features_in_ = 5
    >>> check_consistency(model)
    Traceback (most recent call last):
    ...
    ValueError: inconsistent Winnow2Classifier (a forged or damaged file?): coef_ has shape (3,) for n_features_in_=5
    """  # noqa: E501
    steps = getattr(model, "steps", None)
    if isinstance(steps, list):  # a Pipeline
        for _, step in steps:
            check_consistency(step)
        return
    name = type(model).__name__
    # The check predicts: a model loaded unchecked would check itself again
    # inside it (nested messages); checked once it passes.
    holder: Any = getattr(model, "__dict__", {}).get("_unchecked")
    unchecked = bool(holder and holder[0])
    if unchecked:
        holder[0] = False
    try:
        if name == "RiverAdapter" and hasattr(model, "estimator"):
            _check_river_adapter(model)
        elif isinstance(model, OnlineMaxSAT):
            _check_maxsat(model)
        elif isinstance(model, _CLASSIFIERS) and hasattr(model, "classes_"):
            _check_classifier(model)
    except _Inconsistent as exc:
        if unchecked:
            holder[0] = True
        raise ValueError(
            f"inconsistent {name} (a forged or damaged file?): {exc}"
        ) from None
    except BaseException:
        if unchecked:
            holder[0] = True
        raise


_CLASSIFIERS = (
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
    LocalRegretForestClassifier,
    Winnow2Classifier,
)


class _Inconsistent(Exception):
    """What disagrees, before check_consistency names the estimator."""


def _count(value, what: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise _Inconsistent(f"{what} is {value!r}, not an integer >= {low}")
    return int(value)


def _check_admitted(wide, n: int, slots: int, n_classes: int) -> None:
    columns = np.asarray(wide.columns)
    if (
        wide.n_columns != n
        or wide.n_slots != slots
        or columns.ndim != 1
        or len(columns) > slots
        or (len(columns) and (columns.min() < 0 or columns.max() >= n))
        or len(np.unique(columns)) != len(columns)
        or np.shape(wide._hits) != (n, n_classes)
        or np.shape(wide._hit_rows) != (n,)
        or np.shape(wide._class_weight) != (n_classes,)
    ):
        raise _Inconsistent(
            f"the admitted columns ({len(columns)} of {wide.n_slots} slots, "
            f"over {wide.n_columns} columns) do not fit n_features_in_={n}"
        )


def _check_classifier(model) -> None:
    n = _count(model.n_features_in_, "n_features_in_", low=1)
    classes = model.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or not len(classes):
        raise _Inconsistent("classes_ is not a non-empty 1-d array")
    if len(np.unique(classes)) != len(classes):
        raise _Inconsistent(f"classes_ repeats a label: {classes.tolist()!r}")
    for what in ("n_rounds_", "n_samples_seen_"):
        if hasattr(model, what):
            _count(getattr(model, what), what)
    mistakes = getattr(model, "n_online_mistakes_", 0.0)
    if not (isinstance(mistakes, Real) and 0 <= float(mistakes) < np.inf):
        raise _Inconsistent(f"n_online_mistakes_ is {mistakes!r}")
    if isinstance(model, Winnow2Classifier):
        coef = np.asarray(model.coef_)
        if coef.shape != (n,):
            raise _Inconsistent(f"coef_ has shape {coef.shape} for n_features_in_={n}")
        if len(classes) not in (1, 2):  # one: a stream of a single class so far
            raise _Inconsistent(f"{len(classes)} classes for a binary learner")
    elif isinstance(model, LocalRegretDisjunctClassifier):
        graph = model._graph
        if graph.n_vars != n or len(graph.root) != n:
            raise _Inconsistent(
                f"the disjunctions are over {graph.n_vars} features but "
                f"n_features_in_={n}"
            )
        if len(classes) not in (1, 2):  # one: a stream of a single class so far
            raise _Inconsistent(f"{len(classes)} classes for a binary learner")
        linear = model.__dict__.get("_linear_expert")
        experts = 2 if linear is None else 3
        if len(model._hedge.losses) != experts:
            raise _Inconsistent(
                f"the hedge weighs {len(model._hedge.losses)} experts, not {experts}"
            )
        wrong = None if linear is None else linear.shape_error(2, n)
        if wrong is not None:
            raise _Inconsistent(f"the linear expert: {wrong}")
    elif isinstance(model, LocalRegretForestClassifier):
        _check_forest(model, n, classes)
    else:
        tests, table = model._tests, model._player.table
        features = np.asarray(tests.feature)
        read, wide = n, model._wide_columns()
        if wide is not None:  # a wide input read through its admitted columns
            _check_admitted(wide, n, tests.n_features, len(classes))
            read = wide.n_slots
        if tests.n_features != read or (len(features) and features.max() >= read):
            raise _Inconsistent(
                f"the tree's tests read {tests.n_features} features (up to "
                f"feature {int(features.max(initial=-1))}) but n_features_in_={n}"
            )
        if table.n_classes != len(classes):
            raise _Inconsistent(
                f"the regret table has {table.n_classes} labels but classes_ "
                f"has {len(classes)}"
            )
        _check_tree_rounds(model, tests.n_tests, len(classes))
    _probe(model, n, len(classes))


def _check_tree_rounds(model, n_tests: int, n_classes: int) -> None:
    """What learning reads and predicting does not: each player's last
    played tree (a short round goes on with it, in compiled kernels that
    index by its tests) and the hedge's losses."""
    for player in tree_players(model):
        labels = n_classes + bool(player.table.leaf_model)
        stack = [player.last_tree]
        while stack:
            node = stack.pop()
            if hasattr(node, "test"):
                if not 0 <= int(node.test) < n_tests:
                    raise _Inconsistent(
                        f"the last played tree tests {node.test} of {n_tests} tests"
                    )
                stack += [node.true_child, node.false_child]
            elif not 0 <= int(node.label) < labels:
                raise _Inconsistent(f"the last played tree has label {node.label}")
    losses = np.asarray(model._hedge.losses, dtype=float)
    if len(losses) != len(model._expert_names()) or not np.isfinite(losses).all():
        raise _Inconsistent(f"the hedge's losses are {losses.tolist()}")


def _check_forest(model, n: int, classes: np.ndarray) -> None:
    """Members that agree with the forest, each consistent itself."""
    members, features = model.estimators_, model.estimators_features_
    # The count it was built with, where set_params changed it since (its
    # next partial_fit says so); a file that says otherwise is forged.
    k = model.n_estimators
    if "n_estimators" in model.__dict__.get("_params_changed", ()):
        k = model._built_with["n_estimators"]
    k = _count(k, "n_estimators", low=1)
    if not (len(members) == len(features) == len(model._bagging_rngs) == k):
        raise _Inconsistent(
            f"{len(members)} members and {len(features)} subspaces for n_estimators={k}"
        )
    if not (len(model._detectors) == len(model.n_drifts_) == k):
        raise _Inconsistent(f"{len(model._detectors)} drift detectors for {k} members")
    for i, detector in enumerate(model._detectors):
        if detector is not None and not isinstance(detector, ADWIN):
            raise _Inconsistent(f"member {i}'s drift detector is a {type(detector)}")
        wrong = None if detector is None else detector.inconsistency()
        if wrong is not None:
            raise _Inconsistent(f"member {i}'s drift detector: {wrong}")
    roots, n_roots = model._root_models(), model._n_root_experts()
    if len(model._hedge.losses) != k + 1 + n_roots:
        raise _Inconsistent(
            f"the combination weighs {len(model._hedge.losses)} experts for "
            f"{k} members, the vote and {n_roots} root experts"
        )
    prior = model._hedge.__dict__.get("log_prior")  # None: saved before, uniform
    if prior is not None and len(prior) != k + 1 + n_roots:
        raise _Inconsistent(f"the combination's prior has {len(prior)} shares")
    for i, (member, columns) in enumerate(zip(members, features)):
        columns = np.asarray(columns)
        if not isinstance(member, LocalRegretTreeClassifier):
            raise _Inconsistent(f"member {i} is a {type(member).__name__}")
        if (
            columns.ndim != 1
            or not len(columns)
            or columns.min() < 0
            or (columns.max() >= n)
        ):
            raise _Inconsistent(f"member {i} reads columns outside 0..{n - 1}")
        if getattr(member, "classes_", None) is None:
            continue  # not fitted yet (a forest saved between fit and its rows)
        if member.n_features_in_ != len(columns):
            raise _Inconsistent(
                f"member {i} has {member.n_features_in_} features for its "
                f"{len(columns)} columns"
            )
        if not np.array_equal(member.classes_, classes):
            raise _Inconsistent(f"member {i} has other classes than the forest")
        _check_classifier(member)
    for root in roots:  # per class and column (the linear model: and slot)
        shape = (len(classes), n)
        if isinstance(root, RootLinear):
            wrong = root.shape_error(len(classes), n)
            if wrong is not None:
                raise _Inconsistent(wrong)
        elif (
            root.count.shape != shape
            or root.total.shape != shape
            or np.shape(root.shift_array()) != (n,)
        ):
            raise _Inconsistent(f"a root model's statistics are not of {shape}")


def _probe(model, n_features: int, n_classes: int) -> None:
    rows = np.array([[0] * n_features, [1] * n_features])
    names = model.__dict__.get("feature_names_in_")
    if names is not None:  # (an array would be warned about: no names)
        try:
            import pandas as pd

            rows = pd.DataFrame(rows, columns=list(names))
        except ImportError:  # pragma: no cover - a frame was fitted on
            pass
    try:
        if hasattr(model, "predict_proba"):
            out = np.asarray(model.predict_proba(rows))
            expected: tuple[int, ...] = (2, n_classes)
        else:
            out = np.asarray(model.decision_function(rows))
            expected = (2,)
        labels = model.predict(rows)
    except (IndexError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _Inconsistent(
            f"predicting a probe row fails: {type(exc).__name__}: {exc}"
        ) from None
    if out.shape != expected or not np.all(np.isfinite(out)):
        raise _Inconsistent(f"a probe row's scores have shape {out.shape}")
    if not np.isin(labels, model.classes_).all():
        raise _Inconsistent("a probe row's label is not in classes_")


def _check_maxsat(model) -> None:
    if not hasattr(model, "n_rounds_"):
        return  # not played yet: nothing saved but the parameters
    n = _count(model.n_vars, "n_vars", low=1)
    _count(model.n_rounds_, "n_rounds_")
    graph = model._graph
    if graph.n_vars != n or len(graph.root) != n:
        raise _Inconsistent(
            f"the learner's hypercube has {graph.n_vars} variables but n_vars={n}"
        )
    try:
        best = np.asarray(model.best_assignment())
        probabilities = np.asarray(model.probabilities_)
    except (IndexError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _Inconsistent(
            f"reading the assignment fails: {type(exc).__name__}: {exc}"
        ) from None
    if best.shape != (n,) or probabilities.shape != (n,):
        raise _Inconsistent(f"the assignment has shape {best.shape} for n_vars={n}")
    pending = model.__dict__.get("_pending")  # the round's committed assignment
    if pending is not None:
        # The sampler draws 0/1 bytes (uint8); bool is as good.
        values = np.asarray(pending)
        if values.shape != (n,):
            raise _Inconsistent(
                f"the pending assignment has shape {values.shape} for n_vars={n}"
            )
        if values.dtype.kind not in "bu" or (
            values.dtype.kind == "u" and values.max(initial=0) > 1
        ):
            raise _Inconsistent(
                f"the pending assignment is not 0/1 values (dtype {values.dtype})"
            )


def _check_river_adapter(adapter) -> None:
    estimator = getattr(adapter, "estimator_", None)
    if estimator is None:
        return
    check_consistency(estimator)
    names, classes = adapter.feature_names_, adapter._classes
    if names is not None and len(names) != estimator.n_features_in_:
        raise _Inconsistent(
            f"{len(names)} feature names for a learner of "
            f"{estimator.n_features_in_} features"
        )
    if len(classes) != len(estimator.classes_):
        raise _Inconsistent(
            f"{len(classes)} labels for a learner of {len(estimator.classes_)}"
        )
