"""The forest's members: how they are made, fed their rows and read.

:class:`ForestMembers` is the part of
:class:`~sklearn_localregret.LocalRegretForestClassifier` that deals with its
member trees one at a time: making a member from the forest's parameters,
its part of the forest's column encoder and of each row, its Poisson-weighted
rounds and their records, its drift detector and its replacement by a fresh
tree, and running a task over all the members in threads.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._base.rounds import round_slices
from .._tree_classifier import LocalRegretTreeClassifier
from .._weights import MAX_WEIGHT
from ..thresholds.columns import ColumnEncoder
from ._bagging import poisson_weights, subspace_encoder
from ._drift import make_detector, next_seed, round_of_drift
from ._threads import map_in_threads, n_threads

__all__ = ["TREE_PARAMS", "ForestMembers"]

# The tree parameters a forest passes to its members, as they are.
TREE_PARAMS = (
    "L",
    "bias",
    "max_thresholds",
    "refined_features",
    "warm_start",
    "max_depth",
    "n_mcmc_steps",
    "predict_tolerance",
    "discount",
    "max_categories",
    "leaf_prediction",
)


def _coded_by(member, encoder: ColumnEncoder):
    """A member's ``_encode_columns`` for rows the forest has coded: they are
    read as they are, and the member keeps ``encoder`` as its own."""

    def encode_columns(X, *, learning: bool, first_call: bool = False, names=None):
        if learning:
            member._columns = encoder
        return X

    return encode_columns


class ForestMembers:
    """The members' plumbing of the forest (a mixin of
    :class:`~sklearn_localregret.LocalRegretForestClassifier`)."""

    # What the members' plumbing reads of the forest.
    n_estimators: int
    lambda_value: float
    drift_detector: str | None
    batch_size: int
    binarize: float | None
    n_jobs: int | None
    classes_: np.ndarray
    estimators_: list[LocalRegretTreeClassifier]
    estimators_features_: list[np.ndarray]
    n_drifts_: np.ndarray
    _columns: ColumnEncoder
    _bagging_rngs: list[np.random.Generator]
    _detectors: list

    def _new_member(self, seed: int) -> LocalRegretTreeClassifier:
        params = {name: getattr(self, name) for name in TREE_PARAMS}
        member = LocalRegretTreeClassifier(
            "external",
            batch_size=self.batch_size,
            binarize=self.binarize,
            prediction="hedge",
            random_state=seed,
            **params,
        )
        # The forest scores its members' vote and play (_score_predictions'
        # recorder): their hedges keep those two experts, not the root model.
        member._root_model_expert = False
        # Its quantile thresholds at levels of its own (QuantileThresholds'
        # level_seed): members that split apart average into a finer forest.
        member._threshold_level_seed = seed
        return member

    def _member_columns(self) -> list[ColumnEncoder]:
        """Each member's part of the forest's encoder (remade when it changes:
        a column typed, a category coded; read by the learning thread)."""
        if self.__dict__.get("_member_columns_of") is not self._columns:
            self._member_encoders = [
                subspace_encoder(self._columns, columns)
                for columns in self.estimators_features_
            ]
            self._member_columns_of = self._columns
        return self._member_encoders

    def _map_members(self, task, n_rows: int) -> list:
        """``[task(k) for k in members]``, in threads when it pays."""
        count = len(self.estimators_)  # (not n_estimators: set after fit)
        size = n_threads(self.n_jobs, count) if n_rows > 1 else 1
        return map_in_threads(task, count, size)

    def _learn_member(self, k: int, X, y, weight) -> list:
        """Member ``k`` learns the block; its rounds' ``(proba, vote weight,
        root posteriors)`` before each was learnt (the recorder in
        ``_score_predictions``; the root naive Bayes model's posteriors, or
        None, from ``_round_expert_losses``).

        With a drift detector, the member's rounds feed it; if it fires in a
        round, the member is replaced after that round by a fresh one, which
        learns the block's later rounds (the old member's learning of them
        is dropped: a detection costs at most one block of extra learning).
        """
        columns = self._columns_of(X, k)
        bagged = poisson_weights(
            self._bagging_rngs[k], float(self.lambda_value), weight, MAX_WEIGHT
        )
        batch, start = self.batch_size, 0
        records: list = []
        while True:
            part = self._learn_rows(k, columns[start:], y[start:], bagged[start:])
            detector = self._detector(k)
            drift = None
            if detector is not None:
                drift = round_of_drift(detector, part, y[start:], weight[start:], batch)
            if drift is None:
                return records + part
            records += part[: drift + 1]
            start += (drift + 1) * batch
            self._replace_member(k)
            if start >= len(y):
                return records

    def _columns_of(self, X: np.ndarray, k: int) -> np.ndarray:
        """Member ``k``'s columns of ``X`` (``X`` itself when it has them all,
        the default: no copy per member)."""
        features = self.estimators_features_[k]
        if sp.issparse(X):  # a wide input's CSR rows
            return X if len(features) == X.shape[1] else X[:, features]
        if len(features) == X.shape[1]:  # sorted and distinct: all, in order
            return np.ascontiguousarray(X)
        return np.ascontiguousarray(X[:, features])

    def _detector(self, k: int):
        """Member ``k``'s detector as ``drift_detector`` now says (set_params
        between calls starts or stops the detection; a new one starts empty)."""
        if self.drift_detector is None:
            self._detectors[k] = None
        elif self._detectors[k] is None:
            self._detectors[k] = make_detector(self.drift_detector)
        return self._detectors[k]

    def _replace_member(self, k: int) -> None:
        """A fresh member and detector in slot ``k`` (a detected drift)."""
        self.estimators_[k] = self._new_member(
            next_seed(self.estimators_[k].random_state)
        )
        self._detectors[k] = make_detector(self.drift_detector)
        self.n_drifts_[k] += 1

    def _learn_rows(self, k: int, columns, y, bagged) -> list:
        """Member ``k`` learns rows of its columns weighted ``bagged``; its
        rounds' records."""
        member = self.estimators_[k]
        encoder = self._member_columns()[k]
        records: list = []
        member._round_recorder = lambda proba, vote: records.append(
            (proba, vote, member.__dict__.pop("_recorded_root", None))
        )
        try:
            if not self._fitted(k):
                # Its first call (the rows validated here already), from the
                # round of its first weighed row: the rounds before it are
                # skipped (as they were when scikit-learn refused weights all
                # 0), and an unfitted member predicts what a fresh one does in
                # its first round, classes_[0] by its vote.
                weighed = np.flatnonzero(bagged)
                if not weighed.size:
                    batch = self.batch_size
                    return [
                        self._fresh_record(min(batch, len(y) - lo))
                        for lo in range(0, len(y), batch)
                    ]
                start = weighed[0] - weighed[0] % self.batch_size
                records += [self._fresh_record(self.batch_size)] * (
                    start // self.batch_size
                )
                # The rows are coded already: the member takes its part of the
                # forest's encoder instead of typing the columns itself.
                member._encode_columns = _coded_by(member, encoder)  # type: ignore[method-assign]
                member.partial_fit(
                    columns[start:],
                    self.classes_[y[start:]],
                    self.classes_,
                    sample_weight=bagged[start:],
                )
            else:
                member._columns = encoder  # a column typed, a category coded
                # Rows validated by the forest (skips ~0.6 ms of checks a call).
                member._learn(columns, y, bagged)
        finally:
            del member._round_recorder
            member.__dict__.pop("_recorded_root", None)
            member.__dict__.pop("_encode_columns", None)
        return records

    def _records_before_call(self, X: np.ndarray) -> list | None:
        """Each member's records of a streaming call's rounds (the layout of
        :meth:`_learn_member`) as it predicts the call's rows before learning
        any: what the forest's caller was given. None for rows a member reads
        through admitted columns (wide input), whose projection the
        member's own rounds make."""
        batch, n_rows = self.batch_size, X.shape[0]
        rounds = round_slices(n_rows, batch)
        out = []
        for k, member in enumerate(self.estimators_):
            if not self._fitted(k):
                out.append(
                    [self._fresh_record(min(r.stop, n_rows) - r.start) for r in rounds]
                )
                continue
            if member._wide_columns() is not None:
                return None
            columns: Any = self._columns_of(X, k)
            if sp.issparse(columns):  # a member of few columns reads them dense
                columns = columns.toarray()
            outcomes = member._tests.outcomes(columns)
            proba = member._player_proba(outcomes)
            vote = member._hedge.weight(0)
            root = None
            if member._player.table.models:
                root = member._root_model_proba(outcomes)
            out.append(
                [(proba[r], vote, None if root is None else root[r]) for r in rounds]
            )
        return out

    def _fitted(self, k: int) -> bool:
        """Whether member ``k`` has had a row of positive weight."""
        return getattr(self.estimators_[k], "classes_", None) is not None

    def _fresh_record(self, n_rows: int) -> tuple:
        """A fresh member's round: its vote, classes_[0], for every row, and
        no root model."""
        proba = np.zeros((int(n_rows), len(self.classes_)))  # (batch_size=True)
        proba[:, 0] = 1.0
        return proba, 1.0, None
