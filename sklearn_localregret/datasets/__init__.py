"""Bundled datasets of the paper's online decision tree experiments.

Bowling & Zinkevich (2012, section "Online Decision Tree Learning") evaluate
online decision tree learning on three categorical UCI datasets. They ship
with this package (gzipped CSV, CC BY 4.0) and load offline, in the style of
:mod:`sklearn.datasets`:

* :func:`load_nursery` -- Nursery, 12960 x 8, 5 classes.
* :func:`load_mushroom` -- Mushroom, 8124 x 22, 2 classes; missing
  ``stalk-root`` values are the category ``'?'``.
* :func:`load_kr_vs_kp` -- Chess (King-Rook vs. King-Pawn), 3196 x 36,
  2 classes.
* :func:`boolean_encoder` -- the paper's encoding of categorical attributes
  as boolean features, one per attribute value (a configured
  :class:`~sklearn.preprocessing.OneHotEncoder`). The loaders apply it with
  ``one_hot=True``: 27 / 117 / 73 features, one fewer than the paper's
  footnote (28 / 118 / 74) for every dataset; each loader's ``DESCR``
  explains our analysis of the difference.

The loaders read the files with the standard library; pandas is needed only
for ``as_frame=True``.

Streams for online evaluation (:mod:`sklearn_localregret.datasets.streams`):

* :class:`Stream` -- labelled rows in order, with where the concept drifts.
* :func:`load_stream` -- the named streams (:func:`stream_names`): the paper's
  datasets, River's bundled datasets and drifting generators, adversarial
  sequences.
* :func:`make_stream` -- a stream from an ``(X, y)`` pair, a CSV file or an
  iterable of rows.
"""

from ._base import boolean_encoder
from ._uci_loaders import load_kr_vs_kp, load_mushroom, load_nursery
from .streams import Stream, load_stream, make_stream, stream_names

__all__ = [
    "Stream",
    "boolean_encoder",
    "load_kr_vs_kp",
    "load_mushroom",
    "load_nursery",
    "load_stream",
    "make_stream",
    "stream_names",
]
