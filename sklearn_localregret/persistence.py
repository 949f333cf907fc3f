"""Safe persistence with skops: the types a saved model of ours is made of.

``pickle`` runs whatever code a file names, so a model file from someone else
is a risk. ``skops.io`` saves the same state in a format that names every type
it holds and refuses, on load, any type the reader has not trusted. Trust
:func:`trusted_types` -- the types of this package, and ``collections.deque``
that the River adapter keeps its recent rows in -- and a file that asks for
anything more fails to load instead of running it. :func:`load` does that and
then checks that the model is consistent (:func:`check_consistency`): a file
made of trusted types can still carry forged numbers::

    from sklearn_localregret.persistence import dump, load

    dump(model, "model.skops")  # skops.io.dump, under the model's lock
    model = load("model.skops")

NumPy arrays and generators, scikit-learn's and Python's built-in types are
trusted by skops itself. ``skops`` is an optional dependency
(``pip install "sklearn-localregret[interop]"``).
"""

from __future__ import annotations

from contextlib import ExitStack

from ._consistency import check_consistency
from ._discount_players import DiscountPlayers
from ._disjunct import LocalRegretDisjunctClassifier
from ._hedge import AdaHedge
from ._moved import old_names
from ._tree import ExternalPlayer, SwapPlayer
from ._tree.root_gaussian import RootGaussian
from ._tree.root_linear import RootLinear
from ._tree_classifier import LocalRegretTreeClassifier
from .baselines.winnow2 import Winnow2Classifier
from .engine import DiscountClock, RegretTable
from .engine.finite_chain import FiniteChainSampler
from .engine.hierarchical_labels import HierarchicalLabels
from .engine.hierarchical_sampler import HierarchicalSampler
from .engine.mcmc import UniformizedChainSampler
from .engine.stump_table import StumpRegretTable
from .ensemble import LocalRegretForestClassifier
from .ensemble._adwin import ADWIN
from .locality.decision_tree import Leaf, Split, TreeLayout
from .locality.hypercube import HypercubeColoring
from .locality.hypercube_swap import HypercubeSwapRegrets
from .locality.recent_rows import RecentRows
from .locality.removal_sets import RemovalSetColoring
from .locality.tree_coloring import TreeColoring
from .locality.tree_rate_graph import TreeRateGraph
from .maxsat import OnlineMaxSAT
from .thresholds import (
    AdmittedColumns,
    ColumnEncoder,
    FixedThresholds,
    QuantileThresholds,
    ThresholdTests,
)

__all__ = ["check_consistency", "dump", "load", "trusted_types"]

# Every class whose instances a fitted estimator of ours holds. A test saves
# every estimator in every configuration, and a pipeline, and checks that
# skops asks for no type beyond these and _NAMED_TYPES.
_OUR_TYPES = (
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
    ExternalPlayer,
    SwapPlayer,
    LocalRegretForestClassifier,
    OnlineMaxSAT,
    Winnow2Classifier,
    AdaHedge,
    DiscountPlayers,
    ADWIN,
    RegretTable,
    DiscountClock,
    StumpRegretTable,
    ThresholdTests,
    QuantileThresholds,
    FixedThresholds,
    AdmittedColumns,
    ColumnEncoder,
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
    RootGaussian,
    RootLinear,
    TreeLayout,
    Leaf,
    Split,
)
# Named, not imported: the River adapter's class is built only when River is
# installed (its recent rows were a deque in files saved before they were
# saved as a list); boolean_encoder()'s feature-name
# combiner, a private function that saved pipelines name.
_NAMED_TYPES = (
    "sklearn_localregret.river.RiverAdapter",
    "collections.deque",
    "sklearn_localregret.datasets._base._boolean_feature_name",
)


def trusted_types() -> list[str]:
    """Names of the types to trust when loading a model of ours with skops.

    They cover every estimator of the package (under its current module
    path, and under an old one for files saved before a module moved), the
    River adapter
    (:class:`~sklearn_localregret.river.RiverAdapter`, with the
    ``collections.deque`` of its recent rows) and pipelines that use
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
    >>> [n for n in names if not n.startswith("sklearn_localregret.")]
    ['collections.deque']
    """
    ours = [f"{cls.__module__}.{cls.__qualname__}" for cls in _OUR_TYPES]
    # Files saved before a module moved name the class by its old path.
    moved = [name for cls in _OUR_TYPES for name in old_names(cls)]
    return ours + moved + list(_NAMED_TYPES)


def dump(model, file, **kwargs) -> None:
    """Save a model with ``skops.io.dump``, holding the model's lock.

    skops reads the model's state itself, attribute by attribute: while
    another thread learns the model, a file saved in the middle of a round
    held tables of two different rounds, and did not load (25 of 44 saves
    of a tree learning one row per call). This waits for the round under
    way and keeps learning and predicting threads waiting until the file is
    written: the file holds the model of complete rounds. ``pickle`` needs no
    help: our classifiers pickle under their own lock.

    Parameters
    ----------
    model : estimator, pipeline or River adapter
        A classifier of ours, a pipeline with some, or
        :class:`~sklearn_localregret.river.RiverAdapter`.
    file : str, path or file object
        What ``skops.io.dump`` takes.
    **kwargs
        Passed to ``skops.io.dump`` (``compression=`` ...).

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from sklearn_localregret import LocalRegretTreeClassifier
    >>> from sklearn_localregret.persistence import dump, load
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0]] * 10)
    >>> model = LocalRegretTreeClassifier(random_state=0).fit(X, [0, 1] * 10)
    >>> file = io.BytesIO()
    >>> dump(model, file)
    >>> _ = file.seek(0)
    >>> load(file).predict([[1.0, 0.0]])
    array([1])
    """
    import skops.io as sio

    steps = [step for _, step in getattr(model, "steps", ())]  # a pipeline's
    with ExitStack() as held:
        for part in (model, getattr(model, "estimator_", None), *steps):
            if hasattr(part, "_model_lock") and not isinstance(part, type):
                held.enter_context(part._model_lock())
        sio.dump(model, file, **kwargs)


def load(file, *, check: bool = True):
    """Load a model saved with ``skops.io.dump``, trusting our types only.

    Parameters
    ----------
    file : str, path or file object
        What ``skops.io.load`` takes.
    check : bool, default=True
        Check the loaded model with :func:`check_consistency`.

    Returns
    -------
    model
        The estimator (or pipeline, or River adapter) that was saved.

    Raises
    ------
    skops.io.exceptions.UntrustedTypesFoundException
        The file holds a type beyond :func:`trusted_types` and skops' own.
    ValueError
        The model is inconsistent (a forged or damaged file).
    """
    import skops.io as sio

    model = sio.load(file, trusted=trusted_types())
    if check:
        check_consistency(model)
    return model
