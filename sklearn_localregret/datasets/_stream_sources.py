"""The rows of the named streams: the paper's data, River's data and
generators, and adversarial sequences.

Every builder takes ``(n_rows, rng)`` and returns the keyword arguments of a
:class:`~sklearn_localregret.datasets.Stream` (``X``, ``y``, the drift
description); :mod:`.streams` names them. River is imported only inside the
builders that need it.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import islice

import numpy as np

from ._uci_loaders import load_kr_vs_kp, load_mushroom, load_nursery

__all__ = ["concept_schedule"]

_PAPER_LOADERS = {
    "nursery": load_nursery,
    "mushroom": load_mushroom,
    "kr-vs-kp": load_kr_vs_kp,
}


def _seed(rng: np.random.Generator) -> int:
    """An int seed for River's generators, drawn from ``rng``."""
    return int(rng.integers(2**31 - 1))


def concept_schedule(
    n_rows: int, drift_points, width: int, rng: np.random.Generator
) -> np.ndarray:
    """Which concept generates each row, with drifts at ``drift_points``.

    Concept ``k`` takes over from concept ``k - 1`` at ``drift_points[k - 1]``.
    With ``width == 0`` the change is abrupt; otherwise it is gradual and
    linear: from ``p - width / 2`` to ``p + width / 2`` each row comes from the
    new concept with a probability rising from 0 to 1 (drawn from ``rng``), and
    outside that span only one concept is active.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> concept_schedule(8, [3, 6], 0, rng)
    array([0, 0, 0, 1, 1, 1, 2, 2])
    >>> s = concept_schedule(1000, [500], 200, rng)
    >>> bool((s[:400] == 0).all() and (s[600:] == 1).all()), int(s[400:600].sum())
    (True, 101)
    """
    rows = np.arange(n_rows) + 0.5
    concept = np.zeros(n_rows, dtype=np.int64)
    for k, point in enumerate(drift_points, start=1):
        if width == 0:
            switched = rows >= point
        else:
            chance = np.clip((rows - (point - width / 2)) / width, 0.0, 1.0)
            switched = rng.random(n_rows) < chance
        concept[switched & (concept == k - 1)] = k
    return concept


# -- the paper's datasets ---------------------------------------------------


def paper_dataset(name: str):
    """The paper's protocol as a stream: rows drawn uniformly with replacement."""

    def build(n_rows, rng):
        X, y = _PAPER_LOADERS[name](return_X_y=True, one_hot=True)
        idx = rng.integers(0, len(y), size=n_rows)
        return {"X": np.asarray(X, dtype=np.uint8)[idx], "y": np.asarray(y)[idx]}

    return build


# -- River's bundled real datasets ------------------------------------------


@lru_cache(maxsize=None)
def _river_rows(class_name: str):
    from river import datasets

    rows = list(getattr(datasets, class_name)())
    names = tuple(rows[0][0])
    X = np.array([[x[k] for k in names] for x, _ in rows], dtype=np.float64)
    y = np.array([label for _, label in rows])
    if y.dtype == bool:
        y = y.astype(np.int64)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y, names


def river_dataset(class_name: str):
    """A River dataset bundled in the package, in a random order per seed.

    The rows have no time order to keep, so every seed sees them shuffled
    (the first ``n_rows`` of a random permutation).
    """

    def build(n_rows, rng):
        X, y, names = _river_rows(class_name)
        idx = rng.permutation(len(y))[:n_rows]
        return {"X": X[idx], "y": y[idx], "feature_names": names}

    return build


# -- River's synthetic generators -------------------------------------------


def _take(generator, n_rows: int):
    rows = list(islice(generator, n_rows))
    names = tuple(rows[0][0]) if rows else ()
    X = np.array([[x[k] for k in names] for x, _ in rows], dtype=np.float64)
    X = X.reshape(len(rows), len(names))
    y = np.array([label for _, label in rows])
    if y.dtype == bool:
        y = y.astype(np.int64)
    return X, y, tuple(str(k) for k in names)


def _drifting(make_generator, concepts, n_rows, rng, drift_points, width):
    """Rows of ``make_generator(concept, seed)``, switched by the schedule."""
    schedule = concept_schedule(n_rows, drift_points, width, rng)
    seeds = [_seed(rng) for _ in concepts]
    X = y = names = None
    for k, concept in enumerate(concepts):
        mine = schedule == k
        if not mine.any():  # a short stream may end before a concept's turn
            continue
        Xk, yk, names = _take(make_generator(concept, seeds[k]), int(mine.sum()))
        if X is None:
            X = np.empty((n_rows, len(names)))
            y = np.empty(n_rows, dtype=yk.dtype)
        X[mine], y[mine] = Xk, yk
    return X, y, names


def sea(n_rows, rng, *, noise=0.1):
    """SEA: ``x0 + x1 > threshold``; four thresholds, abrupt drifts at quarters."""
    from river.datasets import synth

    points = tuple(n_rows * k // 4 for k in (1, 2, 3))
    X, y, names = _drifting(
        lambda variant, seed: synth.SEA(variant=variant, noise=noise, seed=seed),
        (0, 1, 2, 3),
        n_rows,
        rng,
        points,
        0,
    )
    return {
        "X": X,
        "y": y,
        "feature_names": names,
        "drift_points": points,
        "drift": "abrupt",
    }


def stagger(n_rows, rng):
    """STAGGER's three boolean concepts, abrupt drifts at thirds, one-hot."""
    from river.datasets import synth

    points = tuple(n_rows * k // 3 for k in (1, 2))
    X, y, names = _drifting(
        lambda f, seed: synth.STAGGER(
            classification_function=f, seed=seed, balance_classes=True
        ),
        (0, 1, 2),
        n_rows,
        rng,
        points,
        0,
    )
    # size, color, shape each take the values 0, 1, 2: one boolean per value.
    values = np.arange(3)
    onehot = (X.astype(np.int64)[:, :, None] == values).reshape(len(X), -1)
    onehot_names = tuple(f"{name}={v}" for name in names for v in values)
    return {
        "X": onehot.astype(np.uint8),
        "y": y,
        "feature_names": onehot_names,
        "drift_points": points,
        "drift": "abrupt",
    }


def agrawal(n_rows, rng):
    """Agrawal's loan concepts 2 then 6, a gradual drift over a fifth of the rows."""
    from river.datasets import synth

    points, width = (n_rows // 2,), n_rows // 5
    X, y, names = _drifting(
        lambda f, seed: synth.Agrawal(classification_function=f, seed=seed),
        (2, 6),
        n_rows,
        rng,
        points,
        width,
    )
    return {
        "X": X,
        "y": y,
        "feature_names": names,
        "drift_points": points,
        "drift": "gradual",
        "drift_width": width,
    }


def rbf_moving(n_rows, rng):
    """Random RBF with all 50 centroids moving: the concept drifts all along."""
    from river.datasets import synth

    seed = _seed(rng)
    X, y, names = _take(
        synth.RandomRBFDrift(
            seed_model=seed,
            seed_sample=seed + 1,
            n_classes=2,
            n_features=10,
            n_centroids=50,
            change_speed=0.001,
            n_drift_centroids=50,
        ),
        n_rows,
    )
    return {"X": X, "y": y, "feature_names": names, "drift": "incremental"}


def led_drift(n_rows, rng):
    """LED digits, 10% noise, 17 irrelevant bits; 7 attributes swap gradually."""
    from river.datasets import synth

    points, width = (n_rows // 2,), n_rows // 5
    X, y, names = _drifting(
        lambda n_drift, seed: synth.LEDDrift(
            seed=seed,
            noise_percentage=0.1,
            irrelevant_features=True,
            n_drift_features=n_drift,
        ),
        (0, 7),
        n_rows,
        rng,
        points,
        width,
    )
    return {
        "X": X.astype(np.uint8),
        "y": y,
        "feature_names": names,
        "drift_points": points,
        "drift": "gradual",
        "drift_width": width,
    }


# -- adversarial sequences --------------------------------------------------

#: Rows that share a label in the alternating stream (the paper's round).
ALTERNATING_BLOCK = 10


def alternating(n_rows, rng, *, n_features=10):
    """One instance repeated; its label alternates 1, 0, 1, ... every 10 rows."""
    instance = rng.integers(0, 2, n_features, dtype=np.uint8)
    X = np.tile(instance, (n_rows, 1))
    y = (np.arange(n_rows) // ALTERNATING_BLOCK + 1) % 2
    return {"X": X, "y": y, "drift": "adversarial"}


def inverted(n_rows, rng, *, n_features=20, n_relevant=3, p_on=0.2):
    """A random disjunction of 3 of 20 boolean features; labels inverted halfway."""
    X = (rng.random((n_rows, n_features)) < p_on).astype(np.uint8)
    relevant = rng.choice(n_features, size=n_relevant, replace=False)
    y = X[:, relevant].any(axis=1).astype(np.int64)
    half = n_rows // 2
    y[half:] = 1 - y[half:]
    return {"X": X, "y": y, "drift_points": (half,), "drift": "abrupt"}
