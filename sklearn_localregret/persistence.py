"""Safe persistence with skops: the types a saved model of ours is made of.

``pickle`` runs whatever code a file names, so a model file from someone else
is a risk. ``skops.io`` saves the same state in a format that names every type
it holds and refuses, on load, any type the reader has not trusted. Trust
:func:`trusted_types` -- the types of this package, nothing else -- and a
file that asks for anything more fails to load instead of running it::

    import skops.io as sio
    from sklearn_localregret.persistence import trusted_types

    sio.dump(model, "model.skops")
    model = sio.load("model.skops", trusted=trusted_types())

NumPy arrays and generators, scikit-learn's and Python's built-in types are
trusted by skops itself. ``skops`` is an optional dependency
(``pip install "sklearn-localregret[interop]"``).
"""

from __future__ import annotations

from ._disjunct import LocalRegretDisjunctClassifier
from ._hedge import AdaHedge
from ._maxsat import OnlineMaxSAT
from ._tree_classifier import LocalRegretTreeClassifier
from .baselines.winnow2 import Winnow2Classifier
from .datasets._base import _boolean_feature_name
from .engine import DiscountClock, RegretTable
from .engine.finite_chain import FiniteChainSampler
from .engine.hierarchical_labels import HierarchicalLabels
from .engine.hierarchical_sampler import HierarchicalSampler
from .engine.mcmc import UniformizedChainSampler
from .engine.stump_table import StumpRegretTable
from .locality.decision_tree import Leaf, Split, TreeLayout
from .locality.hypercube import HypercubeColoring
from .locality.hypercube_swap import HypercubeSwapRegrets
from .locality.recent_rows import RecentRows
from .locality.removal_sets import RemovalSetColoring
from .locality.tree_coloring import TreeColoring
from .locality.tree_rate_graph import TreeRateGraph
from .thresholds import FixedThresholds, QuantileThresholds, ThresholdTests

__all__ = ["trusted_types"]

# Every class whose instances a fitted estimator of ours holds, and the
# feature-naming function of boolean_encoder() (a pipeline holds it). A test
# saves every estimator in every configuration, and a pipeline, and checks that
# skops asks for no type beyond these.
_OUR_TYPES = (
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
    OnlineMaxSAT,
    Winnow2Classifier,
    AdaHedge,
    RegretTable,
    DiscountClock,
    StumpRegretTable,
    ThresholdTests,
    QuantileThresholds,
    FixedThresholds,
    FiniteChainSampler,
    HierarchicalLabels,
    HierarchicalSampler,
    UniformizedChainSampler,
    HypercubeColoring,
    HypercubeSwapRegrets,
    RemovalSetColoring,
    TreeColoring,
    TreeRateGraph,
    RecentRows,
    TreeLayout,
    Leaf,
    Split,
    _boolean_feature_name,
)


def trusted_types() -> list[str]:
    """Names of the types to trust when loading a model of ours with skops.

    They cover every estimator of the package and pipelines that use
    :func:`~sklearn_localregret.datasets.boolean_encoder`; scikit-learn's own
    estimators and NumPy's types are trusted by skops already.

    Returns
    -------
    types : list of str
        Fully qualified type names, as ``skops.io.load(..., trusted=...)``
        takes them. A new list on every call.

    Examples
    --------
    >>> from sklearn_localregret.persistence import trusted_types
    >>> names = trusted_types()
    >>> "sklearn_localregret._disjunct.LocalRegretDisjunctClassifier" in names
    True
    >>> all(name.startswith("sklearn_localregret.") for name in names)
    True
    """
    return [f"{cls.__module__}.{cls.__qualname__}" for cls in _OUR_TYPES]
