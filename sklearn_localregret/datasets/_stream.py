"""The :class:`Stream` type: labelled rows in order, and where the concept drifts.

A stream checks its rows, labels and drift description when it is made; the
named streams (:mod:`.streams`) and a user's own (:mod:`._user_streams`) are
streams of this type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral

import numpy as np

__all__ = ["DRIFT_KINDS", "Stream"]

DRIFT_KINDS = ("none", "abrupt", "gradual", "incremental", "adversarial")


@dataclass(frozen=True, eq=False)
class Stream:
    """A finite stream of labelled rows, in order, and where its concept drifts.

    Parameters
    ----------
    name : str
        Short name (used in tables and file names).
    X : ndarray of shape (n_rows, n_features)
        Numeric rows (booleans as 0/1), in stream order.
    y : ndarray of shape (n_rows,)
        Labels, at least two distinct ones.
    drift_points : tuple of int, default=()
        Rows at which a new concept takes over (row index of the first row of
        the new concept; the centre of a gradual change).
    drift : {"none", "abrupt", "gradual", "incremental", "adversarial"}, \
default=None
        How the concept changes: not at all, at once at each drift point,
        over ``drift_width`` rows around each drift point, continuously
        ("incremental", no points), or against the learner by construction
        ("adversarial"). None infers "abrupt" or "gradual" from the points
        and the width, "none" without points.
    drift_width : int, default=0
        Rows over which a gradual change mixes the old and new concept.
    description : str, default=""
        One line on what the stream is.
    feature_names : tuple of str or None, default=None
        Names of the columns of ``X``.

    Raises
    ------
    ValueError
        If ``X`` and ``y`` do not match, ``X`` holds an infinity, ``y`` a
        missing label or fewer than two classes, a drift point lies outside
        the stream or repeats one, or the drift's kind contradicts its points
        and width (abrupt: points, no width; gradual: both; incremental: no
        points).
    TypeError
        If ``drift_points`` or ``feature_names`` is not a sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.datasets import Stream
    >>> X = np.array([[0], [1], [0], [1]])
    >>> s = Stream("flip", X, np.array([0, 1, 1, 0]), drift_points=(2,))
    >>> s.drift, s.n_rows, s.is_boolean, s.classes
    ('abrupt', 4, True, array([0, 1]))
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    drift_points: tuple = ()
    drift: str | None = None
    drift_width: int = 0
    description: str = ""
    feature_names: tuple | None = field(default=None)

    def __post_init__(self):
        # Copies: a frozen stream is not changed through the caller's arrays.
        X, y = np.array(self.X), np.array(self.y)
        if X.ndim != 2:
            raise ValueError(
                f"Stream {self.name!r}: X must be 2-D, got shape {X.shape}."
            )
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"Stream {self.name!r}: y must be 1-D with one label "
                f"per row of X; got shapes {X.shape} and {y.shape}."
            )
        if X.dtype.kind not in "biuf":
            raise ValueError(
                f"Stream {self.name!r}: X must be numeric, got dtype {X.dtype}."
            )
        if np.isinf(X).any():  # (NaN is a missing value: the tree reads it)
            raise ValueError(f"Stream {self.name!r}: X holds an infinity.")
        if any(v is None or v != v for v in y.tolist()):  # None, NaN
            raise ValueError(f"Stream {self.name!r}: y holds a missing label.")
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                f"Stream {self.name!r} has a single class ({classes.tolist()!r} in "
                f"all {len(y)} rows): there is nothing to learn or predict."
            )
        if not isinstance(self.drift_points, (tuple, list, np.ndarray)):
            raise TypeError(
                f"Stream {self.name!r}: drift_points is a sequence of rows, "
                f"got {self.drift_points!r}."
            )
        points = tuple(self.drift_points)
        if not all(isinstance(p, Integral) and not isinstance(p, bool) for p in points):
            raise ValueError(
                f"Stream {self.name!r}: drift points are rows (integers), got {points}."
            )
        points = tuple(int(p) for p in points)
        if any(not 0 < p < len(y) for p in points) or any(
            a >= b for a, b in zip(points, points[1:])
        ):
            raise ValueError(
                f"Stream {self.name!r}: drift points must be increasing "
                f"rows between 1 and {len(y) - 1}, got {points}."
            )
        drift = self.drift
        if drift is None:
            drift = ("gradual" if self.drift_width else "abrupt") if points else "none"
        if drift not in DRIFT_KINDS:
            raise ValueError(
                f"Stream {self.name!r}: drift must be one of "
                f"{DRIFT_KINDS}, got {drift!r}."
            )
        if drift == "none" and points:
            raise ValueError(
                f"Stream {self.name!r}: drift='none' with drift points {points}."
            )
        width = self.drift_width
        if not isinstance(width, Integral) or isinstance(width, bool) or width < 0:
            raise ValueError(
                f"Stream {self.name!r}: drift_width must be an "
                f"integer >= 0, got {width!r}."
            )
        if (
            (drift == "incremental" and points)
            or (drift == "gradual" and not (points and width))
            or (drift == "abrupt" and (width or not points))
        ):
            raise ValueError(
                f"Stream {self.name!r}: drift={drift!r} with drift points "
                f"{points} and drift_width={width}: abrupt has points and no "
                "width, gradual both, incremental neither."
            )
        names = self.feature_names
        if isinstance(names, str):
            raise TypeError(
                f"Stream {self.name!r}: feature_names is a sequence of names, "
                f"got the string {names!r}."
            )
        if names is not None and len(names) != X.shape[1]:
            raise ValueError(
                f"Stream {self.name!r}: {len(names)} feature names for "
                f"{X.shape[1]} columns."
            )
        for attr, value in [
            ("X", X),
            ("y", y),
            ("drift_points", points),
            ("drift", drift),
            ("feature_names", None if names is None else tuple(names)),
        ]:
            object.__setattr__(self, attr, value)

    @property
    def n_rows(self) -> int:
        """Rows in the stream."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Columns of ``X``."""
        return int(self.X.shape[1])

    @property
    def classes(self) -> np.ndarray:
        """The sorted distinct labels."""
        return np.unique(self.y)

    @property
    def is_binary(self) -> bool:
        """Whether the stream has exactly two classes."""
        return len(self.classes) == 2

    @property
    def is_boolean(self) -> bool:
        """Whether every feature value is 0 or 1."""
        return bool(np.isin(self.X, (0, 1)).all())
