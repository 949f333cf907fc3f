"""Named streams for online evaluation, each saying whether and where it drifts.

A :class:`Stream` is a finite sequence of labelled rows in a fixed order,
with the rows at which its concept changes. :func:`load_stream` builds the
named ones (:data:`STREAMS`), reproducibly from a seed:

* the paper's three datasets, drawn uniformly with replacement as in its
  experiments (one-hot boolean features);
* River's real datasets bundled in the package (no download), shuffled per
  seed;
* River's synthetic generators with abrupt, gradual or incremental drift;
* adversarial sequences for learners that trust the past.

:func:`make_stream` turns a user's data into a :class:`Stream`: an
``(X, y)`` pair, a CSV file, or an iterable of ``(x, y)`` rows. Streams built
from River need River (``pip install river``), imported only when they are
built.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from numbers import Integral
from typing import Callable

import numpy as np

from . import _stream_sources as sources
from ._stream import DRIFT_KINDS as DRIFT_KINDS
from ._stream import Stream
from ._user_streams import make_stream

__all__ = [
    "MIN_ROWS",
    "STREAMS",
    "Stream",
    "StreamSpec",
    "load_stream",
    "make_stream",
    "stream_names",
]


@dataclass(frozen=True)
class StreamSpec:
    """How to build one named stream (an entry of :data:`STREAMS`).

    Parameters
    ----------
    build : callable
        ``build(n_rows, rng)`` returns the keyword arguments of
        :class:`Stream` other than ``name`` and ``description``.
    description : str
        One line on the stream.
    family : str
        "paper", "river real", "river synthetic" or "adversarial".
    max_rows : int or None
        Rows available (a real dataset sampled without replacement), or None.
    needs_river : bool
        Whether building it imports River.
    """

    build: Callable
    description: str
    family: str
    max_rows: int | None = None
    needs_river: bool = False


#: The named streams, in leaderboard order.
STREAMS: dict[str, StreamSpec] = {
    "nursery": StreamSpec(
        sources.paper_dataset("nursery"),
        "UCI nursery, 27 boolean features, 5 classes, drawn with replacement",
        "paper",
    ),
    "mushroom": StreamSpec(
        sources.paper_dataset("mushroom"),
        "UCI mushroom, 117 boolean features, 2 classes, drawn with replacement",
        "paper",
    ),
    "kr-vs-kp": StreamSpec(
        sources.paper_dataset("kr-vs-kp"),
        "UCI chess kr-vs-kp, 73 boolean features, 2 classes, drawn with replacement",
        "paper",
    ),
    "phishing": StreamSpec(
        sources.river_dataset("Phishing"),
        "River Phishing: 1250 web pages, 9 numeric features, shuffled",
        "river real",
        max_rows=1250,
        needs_river=True,
    ),
    "bananas": StreamSpec(
        sources.river_dataset("Bananas"),
        "River Bananas: 5300 points, 2 numeric features, shuffled",
        "river real",
        max_rows=5300,
        needs_river=True,
    ),
    "image-segments": StreamSpec(
        sources.river_dataset("ImageSegments"),
        "River ImageSegments: 2310 regions, 18 numeric features, 7 classes, shuffled",
        "river real",
        max_rows=2310,
        needs_river=True,
    ),
    "shuttle": StreamSpec(
        sources.river_dataset("Shuttle"),
        "River Shuttle: 49097 rows, 9 numeric features, 7% positive, shuffled",
        "river real",
        max_rows=49097,
        needs_river=True,
    ),
    "sea": StreamSpec(
        sources.sea,
        "River SEA, 3 numeric features, 10% label noise, abrupt drifts at each quarter",
        "river synthetic",
        needs_river=True,
    ),
    "stagger": StreamSpec(
        sources.stagger,
        "River STAGGER, 9 boolean features, balanced, abrupt drifts at each third",
        "river synthetic",
        needs_river=True,
    ),
    "agrawal": StreamSpec(
        sources.agrawal,
        "River Agrawal, 9 numeric features, function 2 to 6, gradual drift over "
        "the middle fifth",
        "river synthetic",
        needs_river=True,
    ),
    "rbf-moving": StreamSpec(
        sources.rbf_moving,
        "River RandomRBFDrift, 10 numeric features, all 50 centroids moving",
        "river synthetic",
        needs_river=True,
    ),
    "led-drift": StreamSpec(
        sources.led_drift,
        "River LEDDrift, 24 boolean features, 10 classes, 10% noise, 7 "
        "attributes swapped gradually over the middle fifth",
        "river synthetic",
        needs_river=True,
    ),
    "alternating": StreamSpec(
        sources.alternating,
        "one boolean instance whose label alternates every 10 rows",
        "adversarial",
    ),
    "inverted": StreamSpec(
        sources.inverted,
        "a disjunction of 3 of 20 boolean features, labels inverted halfway",
        "adversarial",
    ),
}

DEFAULT_ROWS = 5000
#: Fewest rows of a named stream: fewer leave no room for a drifting stream's
#: concepts (SEA's four, one after the other) to take a row each, or for the
#: adversarial stream's label to change (every 10 rows).
MIN_ROWS = 20


def _river_installed() -> bool:
    return importlib.util.find_spec("river") is not None


def stream_names(*, available: bool = False) -> list[str]:
    """Names of the named streams; ``available=True`` leaves out those that
    need River when it is not installed.

    Examples
    --------
    >>> stream_names()[:3]
    ['nursery', 'mushroom', 'kr-vs-kp']
    """
    river = _river_installed() if available else True
    return [name for name, spec in STREAMS.items() if river or not spec.needs_river]


def load_stream(name: str, *, n_rows: int | None = None, seed: int = 0) -> Stream:
    """Build the named stream, reproducibly.

    Parameters
    ----------
    name : str
        A key of :data:`STREAMS` (see :func:`stream_names`).
    n_rows : int or None, default=None
        Rows to generate (5000 when None), at least :data:`MIN_ROWS`; a real
        dataset sampled without replacement gives at most all its rows. A
        short sample of a skewed dataset may hold one class (93% of
        shuttle's rows are of one): a ``ValueError`` says so.
    seed : int, default=0
        Seeds the sample, the order and River's generators: the same seed
        gives the same stream.

    Returns
    -------
    Stream

    Raises
    ------
    ValueError
        For an unknown name or a bad ``n_rows``.
    ImportError
        If the stream needs River and River is not installed.

    Examples
    --------
    >>> from sklearn_localregret.datasets import load_stream
    >>> s = load_stream("inverted", n_rows=1000, seed=0)
    >>> s.drift, s.drift_points, s.X.shape
    ('abrupt', (500,), (1000, 20))
    """
    if name not in STREAMS:
        raise ValueError(
            f"Unknown stream {name!r}; the named streams are {', '.join(STREAMS)}."
        )
    if n_rows is None:
        n_rows = DEFAULT_ROWS
    if (
        isinstance(n_rows, bool)
        or not isinstance(n_rows, Integral)
        or n_rows < MIN_ROWS
    ):
        raise ValueError(f"n_rows must be an integer >= {MIN_ROWS}, got {n_rows!r}.")
    spec = STREAMS[name]
    if spec.needs_river and not _river_installed():
        raise ImportError(f"The stream {name!r} is built with River: pip install river")
    if spec.max_rows is not None:
        n_rows = min(n_rows, spec.max_rows)
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}.")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _salt(name)]))
    return Stream(
        name=name, description=spec.description, **spec.build(int(n_rows), rng)
    )


def _salt(name: str) -> int:
    """A stable integer per name, so that streams get independent draws."""
    return sum(ord(c) * 31**i for i, c in enumerate(name)) % (2**31)
